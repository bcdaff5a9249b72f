// realm_shadow/analysis/remedies.cc - the remedies that need no replay
// (remedies.h): release, release-pinned, wait.
#include "realm_shadow/analysis/remedies.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "realm_shadow/analysis/history_cursor.h"
#include "realm_shadow/core/identity.h"
#include "realm_shadow/core/text.h"

namespace realm_shadow {
namespace {

// `s` without the allocations whose instance is in `gone`.
Snapshot Without(const Snapshot& s, const absl::flat_hash_set<uint64_t>& gone) {
  Snapshot copy = s;
  copy.allocations.erase(
      std::remove_if(copy.allocations.begin(), copy.allocations.end(),
                     [&](const Allocation& a) { return gone.contains(a.instance); }),
      copy.allocations.end());
  return copy;
}

// Whether [offset, offset + size) lies inside one hole of `s`.
bool RangeFree(const Snapshot& s, uint64_t offset, uint64_t size) {
  for (const Hole& h : FindHoles(s))
    if (h.offset <= offset && offset + size <= h.end()) return true;
  return false;
}

std::string AttributeOf(const Snapshot& s, uint32_t identity, const char* key) {
  const Identity* id = s.FindIdentity(identity);
  if (id == nullptr) return "";
  for (const auto& [k, v] : id->attributes)
    if (k == key) return v;
  return "";
}

// Why Legion keeps a pinned allocation: what the tracked side recorded, else
// what its kind says (legion_glue pins these kinds and no others: a region
// instance when Legion's GC state turns valid, the rest when created).
std::string WhyPinned(const Snapshot& s, const Allocation& a) {
  std::string recorded = AttributeOf(s, a.identity, kGcReasonAttribute);
  if (!recorded.empty()) return recorded;
  switch (a.kind) {
    case AllocationKind::kRegionInstance:
      return "valid: Legion holds a valid reference to it (mapped by a running "
             "task, acquired by a mapper, or GC priority LEGION_GC_NEVER_PRIORITY)";
    case AllocationKind::kDeferredBuffer:
    case AllocationKind::kDeferredValue:
      return "task-local: Legion never collects it; it goes when its task ends";
    case AllocationKind::kFuture:
      return "a future's instance: kept while the future is referenced";
    case AllocationKind::kPoolBacking:
      return "a pool's backing: kept while the pool lives";
    default:
      return "";
  }
}

// The window's check: first fit on the picture without its allocations.
void CheckWindow(const Snapshot& s, uint64_t size, uint64_t alignment,
                 ReleaseRemedy* r) {
  absl::flat_hash_set<uint64_t> gone;
  for (const Allocation& a : r->window.blockers) gone.insert(a.instance);
  const FitResult fit = FirstFit(Without(s, gone), size, alignment);
  r->checked = fit.fits;
  r->placement = fit.offset;
}

void FindRelease(const Snapshot& s, const Failure& f, FailureRemedies* out) {
  ReleaseRemedy& r = out->release;
  ReleaseRemedy& pinned = out->release_pinned;
  r.gc_state_known = pinned.gc_state_known = s.gc_state_known;
  const uint64_t alignment = f.alignment == 0 ? 1 : f.alignment;
  if (f.size == 0) {
    r.verdict = pinned.verdict = RemedyVerdict::kUnknown;
    r.missing = pinned.missing = "the request's size (the source never gave it)";
    return;
  }
  if (!PlacementsKnown(s)) {
    r.verdict = pinned.verdict = RemedyVerdict::kUnknown;
    r.missing = pinned.missing =
        "the placements of the memory's instances (a log without debug-level "
        "lines: -level inst=1 with a DEBUG output level build)";
    return;
  }
  r.window = FindBlockers(s, f.size, alignment, BlockerObjective::kFewestBytes);
  if (r.window.fits_already) {
    r.verdict = pinned.verdict = RemedyVerdict::kNotApplicable;
    r.reason = pinned.reason =
        "it fits in this picture without releasing anything";
    return;
  }
  if (r.window.found) {
    CheckWindow(s, f.size, alignment, &r);
    r.verdict = RemedyVerdict::kFits;
  } else {
    r.verdict = RemedyVerdict::kDoesNotFit;
    r.reason = s.gc_state_known
                   ? "no window of collectable allocations makes it fit"
                   : "no window of allocations makes it fit: it is larger than "
                     "the memory";
  }

  // Pinned ones, where only they block.
  if (!s.gc_state_known) {
    pinned.verdict = RemedyVerdict::kUnknown;
    pinned.missing =
        "which instances Legion keeps valid: a stock log does not say (no GC "
        "state); a tracked run's dump does";
    return;
  }
  if (r.window.found) {
    pinned.verdict = RemedyVerdict::kNotApplicable;
    pinned.reason = "collectable ones suffice (release)";
    return;
  }
  Snapshot unpinned = s;
  bool any_pinned = false;
  for (Allocation& a : unpinned.allocations) {
    any_pinned |= a.pinned();
    a.flags = static_cast<uint8_t>(a.flags & ~kPinned);
  }
  if (!any_pinned) {
    pinned.verdict = RemedyVerdict::kNotApplicable;
    pinned.reason = "nothing in the memory is pinned";
    return;
  }
  pinned.window = FindBlockers(unpinned, f.size, alignment, BlockerObjective::kFewestBytes);
  if (!pinned.window.found) {
    pinned.verdict = RemedyVerdict::kDoesNotFit;
    pinned.reason = "even releasing pinned allocations leaves no room: the "
                    "request is larger than the memory";
    return;
  }
  // The window holds the original flags: the blockers come from `unpinned`.
  absl::flat_hash_map<uint64_t, const Allocation*> by_instance;
  for (const Allocation& a : s.allocations) by_instance[a.instance] = &a;
  for (Allocation& b : pinned.window.blockers) {
    auto it = by_instance.find(b.instance);
    if (it == by_instance.end()) continue;
    b = *it->second;
    if (!b.pinned()) continue;
    pinned.pinned.push_back(
        {b, WhyPinned(s, b), AttributeOf(s, b.identity, kGcPriorityAttribute)});
    pinned.pinned_bytes += b.size;
  }
  CheckWindow(s, f.size, alignment, &pinned);
  pinned.verdict = RemedyVerdict::kFits;
}

// Where a counted-on release stands after `e`, if `e` is about it.
void Settle(const Event& e, uint64_t sequence,
            absl::flat_hash_map<uint64_t, size_t>& open,
            std::vector<WaitRemedy::CountedOn>& counted) {
  auto it = open.find(e.instance);
  if (it == open.end()) return;
  WaitRemedy::CountedOn& c = counted[it->second];
  switch (e.type) {
    case EventType::kReleaseRequested:
      switch (EventReleaseState(e)) {
        case ReleaseState::kPending: c.fate = ReleaseFate::kStillPending; break;
        case ReleaseState::kReady: c.fate = ReleaseFate::kReady; break;
        case ReleaseState::kCancelled: c.fate = ReleaseFate::kCancelled; break;
        default: return;
      }
      break;
    case EventType::kReleased:
    case EventType::kHeapRemoved:
    case EventType::kRedistrict:
    case EventType::kHeapSplit:
      // Its range went back (a split gives it back as pieces); a later
      // event about this id is another life.
      c.fate = ReleaseFate::kCompleted;
      c.fate_sequence = sequence;
      open.erase(it);
      return;
    default:
      return;
  }
  c.fate_sequence = sequence;
}

void FindWait(const Snapshot& state, const Failure& f, const MemoryHistory* h,
              WaitRemedy* w) {
  if (!f.eventual) {
    w->verdict = RemedyVerdict::kNotApplicable;
    w->reason = "an instant failure: Realm does not wait when the request "
                "does not fit even once every pending release is done";
    return;
  }
  if (h == nullptr) {
    w->verdict = RemedyVerdict::kUnknown;
    w->missing = std::string("the memory's history (the releases it counted on "
                             "are there), which the dump does not hold: ") +
                 kHowToGetHistory;
    return;
  }
  if (!h->Contains(f.sequence)) {
    w->verdict = RemedyVerdict::kUnknown;
    w->missing = DescribeWindow(*h) + "; the failure is event " +
                 std::to_string(f.sequence + 1) +
                 ": a dump taken at the failure (REALM_SHADOW_DUMP_DIR) holds it";
    return;
  }
  Snapshot before;
  if (state.sequence == f.sequence) {
    before = state;
  } else {
    absl::StatusOr<Snapshot> at = StateAt(*h, f.sequence);
    if (!at.ok()) {
      w->verdict = RemedyVerdict::kUnknown;
      w->missing = std::string(at.status().message());
      return;
    }
    before = *std::move(at);
  }
  const PendingRequest* request = nullptr;
  for (const PendingRequest& p : before.pending)
    if (p.instance == f.instance && !p.placement_unknown()) request = &p;
  if (request == nullptr) {
    w->verdict = RemedyVerdict::kUnknown;
    w->missing = "the request is not waiting just before its failure in the "
                 "history (its deferral is not in it)";
    return;
  }
  w->deferred_at = request->sequence;
  w->plan_known = request->planned_offset != kNoOffset;
  w->plan = w->plan_known ? request->planned_offset : 0;
  if (!h->Contains(request->sequence)) {
    w->verdict = RemedyVerdict::kUnknown;
    w->missing = DescribeWindow(*h) + "; it was deferred at event " +
                 std::to_string(request->sequence + 1) +
                 ", before the window: a larger REALM_SHADOW_HISTORY";
    return;
  }
  absl::StatusOr<Snapshot> deferred = StateAt(*h, request->sequence);
  if (!deferred.ok()) {
    w->verdict = RemedyVerdict::kUnknown;
    w->missing = std::string(deferred.status().message());
    return;
  }
  // The releases pending when it was deferred: those under its plan (Realm
  // planned it in its future heap, where they are done), or every one when
  // the plan is unknown or lies on none of them (it waited its turn).
  const uint64_t size = f.size;
  for (int pass = 0; pass < 2 && w->counted_on.empty(); ++pass) {
    for (const Allocation& a : deferred->allocations) {
      if (a.state == AllocationState::kLive) continue;
      if (pass == 0 && (!w->plan_known || a.end() <= w->plan || a.offset >= w->plan + size))
        continue;
      WaitRemedy::CountedOn c;
      c.allocation = a;
      c.fate = a.state == AllocationState::kReleaseReady ? ReleaseFate::kReady
                                                         : ReleaseFate::kStillPending;
      c.fate_sequence = request->sequence;
      w->counted_on.push_back(c);
      w->counted_on_bytes += a.size;
    }
  }
  if (w->counted_on.empty()) {
    w->verdict = RemedyVerdict::kNotApplicable;
    w->reason = "no release was pending when it was deferred";
    return;
  }
  absl::flat_hash_map<uint64_t, size_t> open;
  absl::flat_hash_set<uint64_t> counted_ids;
  for (size_t i = 0; i < w->counted_on.size(); ++i) {
    open[w->counted_on[i].allocation.instance] = i;
    counted_ids.insert(w->counted_on[i].allocation.instance);
  }
  for (uint64_t s = request->sequence; s < f.sequence && !open.empty(); ++s)
    Settle(h->EventAt(s), s, open, w->counted_on);
  // The check: every one of them completed, on the state before the failure.
  const Snapshot done = Without(before, counted_ids);
  const uint64_t alignment = f.alignment == 0 ? 1 : f.alignment;
  if (w->plan_known && RangeFree(done, w->plan, size)) {
    w->placement = w->plan;
    w->checked = true;
  } else {
    const FitResult fit = FirstFit(done, size, alignment);
    w->checked = fit.fits;
    w->placement = fit.offset;
  }
  if (w->checked) {
    w->verdict = RemedyVerdict::kFits;
  } else {
    w->verdict = RemedyVerdict::kDoesNotFit;
    w->reason = "even with every one of them completed it does not fit: "
                "other allocations took the room since";
  }
}

void FindWasteRemedy(const Snapshot& s, const Failure& f, WasteRemedy* w) {
  w->waste = FindWaste(s);
  if (f.size == 0) {
    w->verdict = RemedyVerdict::kUnknown;
    w->missing = "the request's size (the source never gave it)";
    return;
  }
  // Known for some allocation that holds bytes: a zero-byte one wastes
  // nothing by definition and says nothing of the source.
  const bool any_known = std::any_of(
      w->waste.allocations.begin(), w->waste.allocations.end(),
      [](const AllocationWaste& a) {
        return a.allocation.size > 0 &&
               (a.padding.known || a.inflation.known || a.unrequested.known);
      });
  if (!any_known) {
    w->verdict = RemedyVerdict::kUnknown;
    w->missing =
        "what the instances' bytes hold: ingest-realm-log of the run's log with "
        "Realm's \"instance layout\" lines (-level inst=1, a DEBUG output level "
        "build), and Legion Spy's (-lg:spy -level legion_spy=2) for the regions "
        "and fields asked for";
    return;
  }
  const uint64_t alignment = f.alignment == 0 ? 1 : f.alignment;
  w->recovery = FitAfterRecovery(s, w->waste, f.size, alignment);
  if (!w->recovery.placements_known) {
    w->verdict = RemedyVerdict::kUnknown;
    w->missing = "the placements of the memory's instances";
    return;
  }
  if (w->recovery.fits_now) {
    w->verdict = RemedyVerdict::kNotApplicable;
    w->reason = "it fits in this picture without recovering anything";
    return;
  }
  if (w->waste.totals.known_waste() == 0) {
    w->verdict = RemedyVerdict::kDoesNotFit;
    w->reason = "no live instance is known to hold bytes it was not asked for";
    return;
  }
  w->verdict = w->recovery.fits_after_recovery ? RemedyVerdict::kFits
                                               : RemedyVerdict::kDoesNotFit;
  if (!w->recovery.fits_after_recovery)
    w->reason = "even with every instance cut to its useful bytes, no range is "
                "large enough";
}

// The identities the dump's own picture gives the allocations of `judged`
// that have none there: a log's rebuild attaches identities (and the
// figures of what an instance's bytes hold) to the final picture, not to
// the history's events.  An allocation is the same life when its instance,
// offset and size are.
void AdoptIdentities(const Snapshot& picture, Snapshot* judged) {
  absl::flat_hash_map<uint64_t, const Allocation*> by_instance;
  for (const Allocation& a : picture.allocations)
    if (a.identity != 0) by_instance[a.instance] = &a;
  absl::flat_hash_set<uint32_t> have;
  for (const Identity& id : judged->identities) have.insert(id.id);
  bool added = false;
  for (Allocation& a : judged->allocations) {
    if (a.identity != 0) continue;
    auto it = by_instance.find(a.instance);
    if (it == by_instance.end() || it->second->offset != a.offset ||
        it->second->size != a.size)
      continue;
    const Identity* id = picture.FindIdentity(it->second->identity);
    if (id == nullptr) continue;
    a.identity = id->id;
    if (have.insert(id->id).second) {
      judged->identities.push_back(*id);
      added = true;
    }
  }
  if (added)
    std::sort(judged->identities.begin(), judged->identities.end(),
              [](const Identity& x, const Identity& y) { return x.id < y.id; });
}

}  // namespace

const char* RemedyKindName(RemedyKind kind) {
  static constexpr const char* kNames[] = {"release", "wait", "capacity",
      "release-pinned", "waste", "allocator"};
  return EnumName<kRemedyKindCount>(kNames, kind);
}

const char* RemedyVerdictName(RemedyVerdict verdict) {
  static constexpr const char* kNames[] = {"fits", "does not fit",
      "does not apply", "unknown", "not computed"};
  return EnumName<size_t(RemedyVerdict::kNotComputed) + 1>(kNames, verdict);
}

const char* ReleaseFateName(ReleaseFate fate) {
  static constexpr const char* kNames[] = {"still pending",
      "ready, not yet given back", "completed",
      "cancelled (its precondition was poisoned)"};
  return EnumName<size_t(ReleaseFate::kCancelled) + 1>(kNames, fate);
}

const RemedyStatus& FailureRemedies::Status(RemedyKind kind) const {
  switch (kind) {
    case RemedyKind::kRelease: return release;
    case RemedyKind::kWait: return wait;
    case RemedyKind::kCapacity: return capacity;
    case RemedyKind::kReleasePinned: return release_pinned;
    case RemedyKind::kWaste: return waste;
    case RemedyKind::kAllocator: return allocator;
  }
  return release;
}

std::vector<RemedyKind> OrderedRemedies(const FailureRemedies& r) {
  std::vector<RemedyKind> fits, others;
  for (int k = 0; k < kRemedyKindCount; ++k) {
    const RemedyKind kind = static_cast<RemedyKind>(k);
    const RemedyVerdict v = r.Status(kind).verdict;
    if (v == RemedyVerdict::kNotComputed) continue;
    (v == RemedyVerdict::kFits ? fits : others).push_back(kind);
  }
  fits.insert(fits.end(), others.begin(), others.end());
  return fits;
}

FailureRemedies FindRemedies(const Snapshot& state, const Failure& failure,
                             const MemoryHistory* history) {
  FailureRemedies r;
  r.failure = failure;
  r.judged_at = state.sequence;
  r.judged_before_failure = state.sequence == failure.sequence;
  FindRelease(state, failure, &r);
  FindWait(state, failure, history, &r.wait);
  FindWasteRemedy(state, failure, &r.waste);
  return r;
}

FailureRemedies FindRemediesInDump(const Snapshot& picture, const Failure& failure,
                                   const MemoryHistory* history, Snapshot* judged) {
  *judged = picture;
  // A picture with instances of unknown placement (a log without debug-level
  // lines) has a history without them: the state it rebuilds would show
  // room that is not there.
  if (history != nullptr && history->Contains(failure.sequence) &&
      picture.sequence != failure.sequence && PlacementsKnown(picture)) {
    absl::StatusOr<Snapshot> before = StateAt(*history, failure.sequence);
    if (before.ok()) {
      *judged = *std::move(before);
      // The memory's description is the dump's (StateAt takes the base's).
      judged->gc_state_known = picture.gc_state_known;
      judged->capacity = picture.capacity;
      judged->capacity_known = picture.capacity_known;
      judged->name = picture.name;
      judged->kind = picture.kind;
      judged->node = picture.node;
      judged->addressed = picture.addressed;
      AdoptIdentities(picture, judged);
    }
  }
  return FindRemedies(*judged, failure, history);
}

}  // namespace realm_shadow
