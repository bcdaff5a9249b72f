// The shadow map: applies events to the picture of one memory.  The
// semantics table is in snapshot.h; every branch below is one row of it.
#include "realm_shadow/analysis/shadow_map.h"

#include <algorithm>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "realm_shadow/analysis/internal/sorted_runs.h"

namespace realm_shadow {

// Released ids are remembered to tell a double release from an unknown one.
// Realm reuses ids, so few are remembered at a time; a workload that never
// reuses them would grow the index without bound.  So once more than
// max(kReleasedMemory, live allocations) are remembered, all are forgotten
// at once (a later double release of one of them is then reported as an
// unknown-instance release).  Tied to the live count, the purge costs at
// most two index entries per release, amortized, and the index stays within
// about twice the live allocations plus 2^14 entries, so the hash lookups
// of live instances stay in cache.
static constexpr size_t kReleasedMemory = size_t{1} << 14;

// In the instance index, the offset of an instance that was released and
// not since reused.  No live allocation has it: a placement at kNoOffset
// (the same value) is refused as malformed.
static constexpr uint64_t kReleasedMark = kNoOffset;

struct ShadowMap::State {
  State(uint64_t capacity_, bool addressed_, bool capacity_known_)
      : capacity(capacity_), addressed(addressed_),
        capacity_known(capacity_known_) {}

  uint64_t capacity;
  bool addressed;
  bool capacity_known;
  uint64_t sequence = 0;  // events applied so far

  SortedRuns live;
  // instance -> offset of the live allocation, or kReleasedMark for an
  // instance released and not since reused.  One index for both, so that
  // an allocation and a release each cost one hash operation: placing an
  // instance overwrites its release mark, releasing it writes the mark.
  absl::flat_hash_map<uint64_t, uint64_t> instances;
  size_t released_count = 0;  // entries holding kReleasedMark
  absl::flat_hash_map<uint64_t, PendingRequest> pending;
  // Failed or cancelled, not yet destroyed: instance -> the sequence number
  // of its failure.  Bounded (RememberFailed).
  absl::flat_hash_map<uint64_t, uint64_t> failed;
  // Heap-observed memories only: releases requested for an instance Realm
  // has not yet put in a heap (a destroy that arrived while the creation
  // still waited on its precondition); the state applies once it appears.
  bool heap_observed = false;
  absl::flat_hash_map<uint64_t, uint8_t> early_releases;  // instance -> ready
  // The group being applied: its header's type and the records still due.
  EventType group_type = EventType::kNoop;
  uint32_t group_left = 0;
  // kHeapReplaced: the new content of `current`, applied at its last record.
  std::vector<Event> replacement;
  // How many live allocations carry each identity, so that a snapshot
  // lists the identities it needs without walking every allocation.
  absl::flat_hash_map<uint32_t, uint32_t> identity_uses;
  absl::btree_map<uint64_t, Reservation> reservations;
  std::deque<Failure> failures;
  std::deque<Anomaly> anomalies;
  EventCounters counters;
  uint64_t used = 0;
  AllocationObserver* observer = nullptr;  // replays only (history.h)

  void Note(AnomalyKind kind, uint64_t instance, uint64_t offset = 0,
            uint64_t size = 0, uint64_t other = 0) {
    NoteAnomaly(Anomaly{kind, sequence, instance, offset, size, other});
  }
  void NoteAnomaly(const Anomaly& a) {
    ++counters.anomalies[static_cast<size_t>(a.kind)];
    anomalies.push_back(a);
    if (anomalies.size() > kRecentAnomalies) anomalies.pop_front();
  }
  // A failure of the size and alignment an event carries.
  Failure FailureOf(const Event& e, bool eventual) const {
    return Failure{e.instance, e.size, e.aux, sequence, eventual};
  }
  void NoteFailure(const Failure& f) {
    if (observer != nullptr) observer->Failed(f);
    ++counters.failures;
    failures.push_back(f);
    if (failures.size() > kRecentFailures) failures.pop_front();
  }
  void UseIdentity(uint32_t identity) {
    if (identity != 0) ++identity_uses[identity];
  }
  void DropIdentity(uint32_t identity) {
    if (identity == 0) return;
    auto it = identity_uses.find(identity);
    if (it != identity_uses.end() && --it->second == 0) identity_uses.erase(it);
  }

  // Remembers a failed (or cancelled) instance until Realm destroys it.  A
  // memory whose integration never reports the destroy of a failed
  // instance (the decision hooks of a dynamic framebuffer, a model) would
  // grow the set for ever, so past kFailedMemory the older half is
  // forgotten at once (their destroy, if it comes, is then an unknown
  // instance release): O(1) amortized, at most 2^14 entries (256 KiB).
  void RememberFailed(uint64_t instance) {
    failed[instance] = sequence;
    if (failed.size() <= kFailedMemory) return;
    std::vector<uint64_t> when;
    when.reserve(failed.size());
    for (const auto& entry : failed) when.push_back(entry.second);
    auto middle = when.begin() + when.size() / 2;
    std::nth_element(when.begin(), middle, when.end());
    const uint64_t oldest_kept = *middle;
    absl::erase_if(failed, [&](const auto& entry) { return entry.second < oldest_kept; });
  }

  // Marks an instance released; past the bound above, all marks are
  // forgotten at once but this one.
  void MarkReleased(absl::flat_hash_map<uint64_t, uint64_t>::iterator it) {
    it->second = kReleasedMark;
    if (++released_count <= std::max(kReleasedMemory, live.size())) return;
    const uint64_t instance = it->first;
    absl::erase_if(instances, [](const auto& entry) {
      return entry.second == kReleasedMark;
    });
    instances.emplace(instance, kReleasedMark);
    released_count = 1;
  }

  Allocation* FindLive(uint64_t instance) {
    auto it = instances.find(instance);
    if (it == instances.end() || it->second == kReleasedMark) return nullptr;
    return live.Find(SortedRuns::Key{it->second, instance});
  }

  // Takes the live allocation of `it` out of the runs; the index entry is
  // the caller's to update.
  Allocation TakeOut(absl::flat_hash_map<uint64_t, uint64_t>::iterator it) {
    Allocation removed;
    live.Erase(SortedRuns::Key{it->second, it->first}, &removed);
    if (observer != nullptr) observer->Removed(removed);
    used -= removed.size;
    DropIdentity(removed.identity);
    return removed;
  }

  // Removes a live allocation and marks its instance released; false if
  // the instance is not live.
  bool Release(uint64_t instance) {
    auto it = instances.find(instance);
    if (it == instances.end() || it->second == kReleasedMark) return false;
    TakeOut(it);
    MarkReleased(it);
    return true;
  }

  // Removes a live allocation and forgets the instance (a deferral of an
  // id that is still live); false if it is not live.
  bool Discard(uint64_t instance) {
    auto it = instances.find(instance);
    if (it == instances.end()) return false;
    if (it->second == kReleasedMark) {
      --released_count;
      instances.erase(it);
      return false;
    }
    TakeOut(it);
    instances.erase(it);
    return true;
  }

  // Checks a new range, already inserted at `at`, against its neighbours;
  // zero-byte ranges occupy nothing and overlap nothing.
  void CheckRange(uint64_t instance, uint64_t offset, uint64_t size,
                  SortedRuns::Location at) {
    const uint64_t end = offset + size;
    if (!addressed && capacity_known && (end > capacity || end < offset))
      Note(AnomalyKind::kBeyondCapacity, instance, offset, size);
    if (size == 0) return;
    SortedRuns::Location back = at;
    const Allocation* before = live.Before(&back);
    while (before != nullptr && before->size == 0) before = live.Before(&back);
    if (before != nullptr && before->end() > offset) {
      Note(AnomalyKind::kOverlap, instance, offset, size, before->instance);
      return;
    }
    for (const Allocation* after = live.After(&at);
         after != nullptr && after->offset < end; after = live.After(&at)) {
      if (after->size > 0) {
        Note(AnomalyKind::kOverlap, instance, offset, size, after->instance);
        return;
      }
    }
  }

  // One hash operation in the common case (an id that is new or was
  // released): the index entry is claimed first, and only a duplicate of a
  // live id costs a removal.
  void Place(uint64_t instance, uint64_t offset, uint64_t size,
             uint8_t alignment_log2, uint8_t flags, uint32_t identity,
             AllocationKind kind,
             AllocationState state = AllocationState::kLive) {
    // kNoOffset is the event format's "not placed"; as a placement it is
    // malformed (and is the index's release mark).  Nothing changes.
    if (offset == kNoOffset) {
      Note(AnomalyKind::kMalformedEvent, instance, offset, size);
      return;
    }
    auto [it, fresh] = instances.try_emplace(instance, offset);
    if (!fresh) {
      if (it->second == kReleasedMark) {
        --released_count;
      } else {
        TakeOut(it);
        Note(AnomalyKind::kDuplicateInstance, instance, offset, size);
      }
      it->second = offset;
    }
    if (!failed.empty()) failed.erase(instance);
    const Allocation a{offset, size, instance, identity, alignment_log2, state,
                       flags, kind};
    SortedRuns::Location at;
    live.Insert(a, &at);
    if (observer != nullptr) observer->Placed(a);
    CheckRange(instance, offset, size, at);
    UseIdentity(identity);
    used += size;
    counters.peak_used = std::max(counters.peak_used, used);
  }

  // ---- heap observation (the rows of snapshot.h's second table) ----------

  static constexpr uint8_t kPendingReleaseRequested = 2;  // PendingRequest
  static constexpr uint8_t kPendingReleaseReady = 4;      // flags, internal
  static constexpr uint8_t kPendingWasPlanned = 8;
  static constexpr size_t kEarlyReleaseLimit = 4096;

  // The release state a destroy requested before placement gives.
  static AllocationState ReleaseStateOf(uint8_t pending_flags) {
    if (pending_flags & kPendingReleaseReady) return AllocationState::kReleaseReady;
    if (pending_flags & kPendingReleaseRequested)
      return AllocationState::kReleasePending;
    return AllocationState::kLive;
  }
  uint8_t TakeEarlyRelease(uint64_t instance) {
    if (early_releases.empty()) return 0;
    auto it = early_releases.find(instance);
    if (it == early_releases.end()) return 0;
    const uint8_t bits = it->second ? kPendingReleaseReady : kPendingReleaseRequested;
    early_releases.erase(it);
    return bits;
  }

  // An instance entered `current`: a pending request of the same id is
  // completed (an eventual success keeps its identity and pinning), else it
  // is a new live allocation.
  void HeapPlace(const Event& e, uint8_t extra_flags) {
    uint8_t release_bits = TakeEarlyRelease(e.instance);
    auto it = pending.find(e.instance);
    if (it != pending.end()) {
      const PendingRequest p = it->second;
      pending.erase(it);
      release_bits |= p.flags & (kPendingReleaseRequested | kPendingReleaseReady);
      const uint64_t alignment = e.aux ? e.aux : p.alignment;
      // Deferred: Realm had planned it in the future heap.  A request that
      // only waited (on its precondition, or a piece of a redistrict placed
      // by the split itself) was never deferred by the allocator.
      const uint8_t deferred = (p.flags & kPendingWasPlanned) ? kWasDeferred : 0;
      Place(e.instance, e.offset, e.size, AlignmentLog2(alignment),
            static_cast<uint8_t>(extra_flags | deferred | (p.flags & kPinned)),
            p.identity, static_cast<AllocationKind>(p.flags >> 4),
            ReleaseStateOf(release_bits));
      return;
    }
    Place(e.instance, e.offset, e.size, AlignmentLog2(e.aux), extra_flags, 0,
          AllocationKind::kUnknown, ReleaseStateOf(release_bits));
  }

  // Realm planned an instance in its `future` heap.  A live instance whose
  // release was not requested is a copy of `current` (Realm rebuilds the
  // future from it); anything else is a request waiting to be placed, and
  // a second plan of it moves its planned offset.
  void FuturePlace(const Event& e) {
    if (const Allocation* a = FindLive(e.instance);
        a != nullptr && a->state == AllocationState::kLive)
      return;
    auto [it, fresh] = pending.try_emplace(e.instance);
    PendingRequest& p = it->second;
    if (fresh) {
      p.instance = e.instance;
      p.sequence = sequence;
      p.flags = TakeEarlyRelease(e.instance);
      failed.erase(e.instance);
    }
    p.size = e.size;
    if (e.aux != 0 || fresh) p.alignment = e.aux;
    // A request whose destroy is requested has no plan: Realm takes its
    // range out of the future heap again right after planning it (its
    // release is queued behind it), which the heap reports no record of.
    p.planned_offset =
        (p.flags & (kPendingReleaseRequested | kPendingReleaseReady)) != 0 ? kNoOffset : e.offset;
    if (e.offset != kNoOffset) p.flags |= kPendingWasPlanned;
  }

  // kHeapReplaced's last record arrived: `current` holds exactly
  // `replacement`.  What stays where it was is untouched.
  void ApplyReplacement() {
    absl::flat_hash_set<uint64_t> present;
    present.reserve(replacement.size());
    for (const Event& r : replacement) present.insert(r.instance);
    std::vector<uint64_t> gone;
    live.ForEach([&](const Allocation& a) {
      if (!present.contains(a.instance)) gone.push_back(a.instance);
    });
    for (uint64_t instance : gone) Release(instance);
    for (const Event& r : replacement) {
      if (const Allocation* a = FindLive(r.instance)) {
        if (a->offset == r.offset && a->size == r.size) continue;
        Release(r.instance);  // moved: Realm never moves, but say what it holds
      }
      HeapPlace(r, 0);
    }
    replacement.clear();
  }

  // kReleaseRequested, heap-observed memory, instance not live: a pending
  // request keeps the release for when it is placed; a failed instance that
  // Realm destroys is forgotten; an instance not yet in any heap is
  // remembered until it appears (bounded: past the limit it is an anomaly).
  void ObservedReleaseRequest(const Event& e) {
    const ReleaseState release = EventReleaseState(e);
    const uint8_t bits = release == ReleaseState::kPending ? kPendingReleaseRequested
                         : release == ReleaseState::kReady ? kPendingReleaseReady
                                                           : 0;
    if (auto it = pending.find(e.instance); it != pending.end()) {
      it->second.flags = static_cast<uint8_t>(
          (it->second.flags & ~(kPendingReleaseRequested | kPendingReleaseReady)) | bits);
      // Realm takes a queued request's planned range out of its future heap
      // when its destroy is requested (release_storage_deferrable: later
      // requests are planned into it), so it has no plan from here on.
      if (bits != 0) it->second.planned_offset = kNoOffset;
      return;
    }
    if (failed.count(e.instance)) {
      if (release == ReleaseState::kReady) failed.erase(e.instance);
      return;
    }
    if (release == ReleaseState::kCancelled) {
      early_releases.erase(e.instance);
      return;
    }
    if (early_releases.size() >= kEarlyReleaseLimit &&
        !early_releases.contains(e.instance)) {
      Note(AnomalyKind::kUnknownInstance, e.instance);
      return;
    }
    early_releases[e.instance] = release == ReleaseState::kReady;
  }

  // Applies a record of a heap group; the header's type says how.
  void ApplyGroupRecord(const Event& e) {
    switch (group_type) {
      case EventType::kHeapSplit:
        if (e.type == EventType::kRedistrictPiece) return HeapPlace(e, kFromRedistrict);
        break;
      case EventType::kHeapSwapped:
        if (e.type == EventType::kHeapRemoved) {
          if (!Release(e.instance)) Note(AnomalyKind::kUnknownInstance, e.instance);
          return;
        }
        if (e.type == EventType::kHeapPlaced) return HeapPlace(e, 0);
        break;
      case EventType::kHeapReplaced:  // applied at the group's last record
        if (e.type == EventType::kHeapPlaced) {
          replacement.push_back(e);
          return;
        }
        break;
      default:
        break;
    }
    Note(AnomalyKind::kMalformedEvent, e.instance, e.offset, e.size);
  }

  void Apply(const Event& e) {
    const auto type_index = static_cast<size_t>(e.type);
    if (type_index >= static_cast<size_t>(kEventTypeCount)) {
      Note(AnomalyKind::kMalformedEvent, e.instance, e.offset, e.size);
      ++sequence;
      return;
    }
    ++counters.by_type[type_index];
    // Inside a heap group its header decides what a record means; the
    // pieces of a redistrict group are ordinary events.
    if (group_left > 0 && group_type != EventType::kRedistrict) {
      --group_left;
      ApplyGroupRecord(e);
      if (group_left == 0 && group_type == EventType::kHeapReplaced)
        ApplyReplacement();
      ++sequence;
      return;
    }
    if (group_left > 0) --group_left;
    if (IsGroupHeader(e.type)) {
      group_type = e.type;
      group_left = e.aux;
      replacement.clear();
      if (e.type == EventType::kHeapReplaced && e.aux == 0) ApplyReplacement();
    }
    switch (e.type) {
      case EventType::kAllocated:
        if (!pending.empty() && pending.erase(e.instance))
          Note(AnomalyKind::kDuplicateInstance, e.instance, e.offset, e.size);
        Place(e.instance, e.offset, e.size, AlignmentLog2(e.aux), 0, 0,
              AllocationKind::kUnknown);
        break;
      case EventType::kRedistrictPiece:
        if (pending.erase(e.instance))
          Note(AnomalyKind::kDuplicateInstance, e.instance, e.offset, e.size);
        Place(e.instance, e.offset, e.size, AlignmentLog2(e.aux),
              kFromRedistrict, 0, AllocationKind::kUnknown);
        break;
      case EventType::kDeferred: {
        if (Discard(e.instance) || pending.count(e.instance))
          Note(AnomalyKind::kDuplicateInstance, e.instance, e.offset, e.size);
        failed.erase(e.instance);
        pending[e.instance] =
            PendingRequest{e.instance, e.size, e.aux, e.offset, sequence};
        break;
      }
      case EventType::kDeferredCompleted: {
        auto it = pending.find(e.instance);
        if (it == pending.end()) {
          Note(AnomalyKind::kUnknownInstance, e.instance, e.offset);
          break;
        }
        const PendingRequest p = it->second;
        pending.erase(it);
        Place(e.instance, e.offset, p.size, AlignmentLog2(p.alignment),
              static_cast<uint8_t>(kWasDeferred | (p.flags & kPinned)),
              p.identity, static_cast<AllocationKind>(p.flags >> 4));
        break;
      }
      case EventType::kDeferredFailed: {
        Failure f;
        f.instance = e.instance;
        f.sequence = sequence;
        f.eventual = true;
        f.maybe_cancelled = (e.offset & kFailureMaybeCancelled) != 0;
        auto it = pending.find(e.instance);
        if (it == pending.end()) {
          Note(AnomalyKind::kUnknownInstance, e.instance);
        } else {
          f.size = it->second.size;
          f.alignment = it->second.alignment;
          f.identity = it->second.identity;
          pending.erase(it);
        }
        NoteFailure(f);
        RememberFailed(e.instance);
        break;
      }
      case EventType::kAllocationFailed: {
        Failure f = FailureOf(e, /*eventual=*/false);
        f.maybe_cancelled = (e.offset & kFailureMaybeCancelled) != 0;
        NoteFailure(f);
        RememberFailed(e.instance);
        break;
      }
      case EventType::kReleaseRequested: {
        Allocation* live_one = FindLive(e.instance);
        // A reused id: the live range of an older instance whose release
        // is already on its way, and a failed or still queued newer one
        // that is now being destroyed.  The request is the newer one's.
        if (heap_observed && live_one != nullptr &&
            live_one->state != AllocationState::kLive &&
            (failed.count(e.instance) || pending.count(e.instance))) {
          ObservedReleaseRequest(e);
          break;
        }
        if (Allocation* a = live_one) {
          const Allocation before = *a;
          const ReleaseState release = EventReleaseState(e);
          a->state = release == ReleaseState::kPending ? AllocationState::kReleasePending
                     : release == ReleaseState::kReady ? AllocationState::kReleaseReady
                                                       : AllocationState::kLive;  // cancelled
          if (observer != nullptr && a->state != before.state)
            observer->Changed(before, *a);
        } else if (!heap_observed) {
          if (!pending.count(e.instance) && !failed.count(e.instance))
            Note(AnomalyKind::kUnknownInstance, e.instance);
        } else {
          ObservedReleaseRequest(e);
        }
        break;
      }
      case EventType::kReleased:
        if (Release(e.instance)) break;
        // Not live: an entry left in the index is a release mark.
        if (pending.erase(e.instance)) {
          ++counters.cancelled;
          auto [it, fresh] = instances.try_emplace(e.instance, kReleasedMark);
          if (fresh) MarkReleased(it);  // an existing mark stays as it is
        } else if (failed.erase(e.instance)) {
          // Realm destroys failed instances too: nothing to give back.
        } else if (instances.contains(e.instance)) {
          Note(AnomalyKind::kDoubleRelease, e.instance);
        } else {
          Note(AnomalyKind::kUnknownInstance, e.instance);
        }
        break;
      case EventType::kRedistrict:
        // The pieces follow as kRedistrictPiece events; the parent's range
        // is given back here, so pieces never overlap it.
        if (!Release(e.instance))
          Note(AnomalyKind::kUnknownInstance, e.instance);
        break;
      case EventType::kReserved:
        reservations[e.instance] =
            Reservation{e.instance, e.offset, e.size, sequence};
        break;
      case EventType::kReservationEnded:
        if (!reservations.erase(e.instance))
          Note(AnomalyKind::kUnknownReservation, e.instance);
        break;
      case EventType::kHeapPlaced:
        HeapPlace(e, 0);
        break;
      case EventType::kHeapRemoved:
        if (!Release(e.instance)) Note(AnomalyKind::kUnknownInstance, e.instance);
        break;
      case EventType::kHeapSplit:
        if (!Release(e.instance)) Note(AnomalyKind::kUnknownInstance, e.instance);
        break;
      case EventType::kHeapSwapped:
      case EventType::kHeapReplaced:
      case EventType::kNoop:
        break;  // a group header's records do the work; kNoop does none
      case EventType::kFuturePlaced:  // kNoOffset: waiting, no plan yet
        FuturePlace(e);
        break;
      case EventType::kFutureReset:
        // Realm rebuilt its plan (from the current heap, then replanned what
        // it still plans, which the kFuturePlaced events that follow say).
        for (auto& entry : pending) entry.second.planned_offset = kNoOffset;
        break;
      case EventType::kRequestFailed: {
        Failure f = FailureOf(e, /*eventual=*/e.offset != 0);
        if (auto it = pending.find(e.instance); it != pending.end()) {
          f.identity = it->second.identity;
          pending.erase(it);
        }
        early_releases.erase(e.instance);
        NoteFailure(f);
        RememberFailed(e.instance);
        break;
      }
      case EventType::kRequestCancelled:
        // Like a failed one, a cancelled instance is still destroyed later:
        // its release then finds it here.
        if (pending.erase(e.instance)) ++counters.cancelled;
        early_releases.erase(e.instance);
        RememberFailed(e.instance);
        break;
      case EventType::kAttachIdentity: {
        const uint32_t identity = static_cast<uint32_t>(e.offset);
        const bool pinned = e.size != 0;
        const auto kind = static_cast<AllocationKind>(
            e.aux < static_cast<uint32_t>(kAllocationKindCount) ? e.aux : 0);
        if (Allocation* a = FindLive(e.instance)) {
          const Allocation before = *a;
          DropIdentity(a->identity);
          UseIdentity(identity);
          a->identity = identity;
          a->kind = kind;
          a->flags = static_cast<uint8_t>(pinned ? (a->flags | kPinned)
                                                 : (a->flags & ~kPinned));
          if (observer != nullptr &&
              (a->identity != before.identity || a->kind != before.kind ||
               a->flags != before.flags))
            observer->Changed(before, *a);
        } else if (auto it = pending.find(e.instance); it != pending.end()) {
          // Pending flags: bit 0 pinned, bits 1-3 the heap-observed release
          // and plan bits (kept), kind in the high nibble.
          it->second.identity = identity;
          it->second.flags = static_cast<uint8_t>(
              (it->second.flags & (kPendingReleaseRequested |
                                   kPendingReleaseReady | kPendingWasPlanned)) |
              (pinned ? kPinned : 0) | (static_cast<uint8_t>(kind) << 4));
        } else if (!failed.count(e.instance)) {
          Note(AnomalyKind::kUnknownInstance, e.instance);
        }
        break;
      }
    }
    ++sequence;
  }
};

ShadowMap::ShadowMap(uint64_t capacity, bool addressed, bool capacity_known)
    : state_(new State(capacity, addressed, capacity_known)) {}
ShadowMap::~ShadowMap() = default;
ShadowMap::ShadowMap(ShadowMap&&) noexcept = default;
ShadowMap& ShadowMap::operator=(ShadowMap&&) noexcept = default;

void ShadowMap::Apply(const Event& event) { state_->Apply(event); }

void ShadowMap::CopyTo(Snapshot* out) const {
  const State& s = *state_;
  out->capacity = s.capacity;
  out->capacity_known = s.capacity_known;
  out->addressed = s.addressed;
  out->sequence = s.sequence;
  out->allocations.clear();
  s.live.CopyTo(&out->allocations);
  out->pending.clear();
  out->pending.reserve(s.pending.size());
  for (const auto& entry : s.pending) {
    PendingRequest p = entry.second;
    p.flags &= kPinned;  // the kind nibble is internal
    out->pending.push_back(p);
  }
  std::sort(out->pending.begin(), out->pending.end(),
            [](const PendingRequest& a, const PendingRequest& b) {
              return a.sequence < b.sequence;
            });
  out->reservations.clear();
  for (const auto& entry : s.reservations)
    out->reservations.push_back(entry.second);
  out->failures.assign(s.failures.begin(), s.failures.end());
  out->anomalies.assign(s.anomalies.begin(), s.anomalies.end());
  out->counters = s.counters;
}

void ShadowMap::AppendIdentities(std::vector<uint32_t>* out) const {
  for (const auto& entry : state_->identity_uses) out->push_back(entry.first);
}

void ShadowMap::AppendReferencedIdentities(std::vector<uint32_t>* out) const {
  AppendIdentities(out);
  for (const auto& entry : state_->pending)
    if (entry.second.identity) out->push_back(entry.second.identity);
  for (const Failure& f : state_->failures)
    if (f.identity) out->push_back(f.identity);
}

size_t ShadowMap::remembered_failed() const { return state_->failed.size(); }

uint64_t ShadowMap::sequence() const { return state_->sequence; }
size_t ShadowMap::live_count() const { return state_->live.size(); }
uint64_t ShadowMap::used_bytes() const { return state_->used; }
uint64_t ShadowMap::capacity() const { return state_->capacity; }
void ShadowMap::set_capacity(uint64_t capacity, bool known) {
  state_->capacity = capacity;
  state_->capacity_known = known;
}
void ShadowMap::set_heap_observed(bool observed) {
  state_->heap_observed = observed;
}
void ShadowMap::NoteAnomaly(const Anomaly& anomaly) {
  state_->NoteAnomaly(anomaly);
}

void MarkNotExact(Snapshot* s) {
  s->exact = false;
  Anomaly paused;
  paused.kind = AnomalyKind::kTrackingPaused;
  paused.sequence = s->sequence;
  s->anomalies.push_back(paused);
  ++s->counters.anomalies[static_cast<size_t>(AnomalyKind::kTrackingPaused)];
}

void ShadowMap::set_observer(AllocationObserver* observer) {
  state_->observer = observer;
}

void ShadowMap::SaveCheckpoint(HistoryCheckpoint* checkpoint) const {
  const State& s = *state_;
  HistoryCheckpoint& c = *checkpoint;
  CopyTo(&c.state);
  c.state.identities.clear();
  c.heap_observed = s.heap_observed;
  c.released.clear();
  c.released.reserve(s.released_count);
  // In the hash table's order: sorting up to 16384 ids here was a third of
  // the history's cost to the drain at 1k live (history.h); the dump
  // writer sorts its copy instead, off the drain.
  for (const auto& entry : s.instances)
    if (entry.second == kReleasedMark) c.released.push_back(entry.first);
  // In the order they failed (then by id): a map rebuilt from the
  // checkpoint forgets the same ones first (RememberFailed).
  std::vector<std::pair<uint64_t, uint64_t>> by_failure;  // (sequence, instance)
  by_failure.reserve(s.failed.size());
  for (const auto& [instance, when] : s.failed) by_failure.emplace_back(when, instance);
  std::sort(by_failure.begin(), by_failure.end());
  c.failed.clear();
  c.failed.reserve(by_failure.size());
  for (const auto& entry : by_failure) c.failed.push_back(entry.second);
  c.early_releases.assign(s.early_releases.begin(), s.early_releases.end());
  std::sort(c.early_releases.begin(), c.early_releases.end());
  c.pending_flags.clear();
  c.pending_flags.reserve(c.state.pending.size());
  for (const PendingRequest& p : c.state.pending)
    c.pending_flags.push_back(s.pending.at(p.instance).flags);
  c.group_type = s.group_type;
  c.group_left = s.group_left;
  c.group_records = s.replacement;
}

ShadowMap ShadowMap::FromCheckpoint(const HistoryCheckpoint& c) {
  const Snapshot& p = c.state;
  ShadowMap map(p.capacity, p.addressed, p.capacity_known);
  State& s = *map.state_;
  s.sequence = p.sequence;
  s.heap_observed = c.heap_observed;
  // The picture's allocations are sorted by (offset, instance) and their
  // instances distinct (the map keeps one range per id); a file may say
  // otherwise, so the runs are loaded only from a sorted, distinct list.
  std::vector<Allocation> sorted = p.allocations;
  const auto key_less = [](const Allocation& x, const Allocation& y) {
    return SortedRuns::KeyOf(x) < SortedRuns::KeyOf(y);
  };
  if (!std::is_sorted(sorted.begin(), sorted.end(), key_less))
    std::sort(sorted.begin(), sorted.end(), key_less);
  s.instances.reserve(sorted.size() + c.released.size());
  size_t kept = 0;
  for (const Allocation& a : sorted) {
    if (a.offset == kNoOffset || !s.instances.try_emplace(a.instance, a.offset).second)
      continue;  // a second range for one id: the map never holds one
    sorted[kept++] = a;
    s.used += a.size;
    s.UseIdentity(a.identity);
  }
  sorted.resize(kept);
  s.live.AssignSorted(sorted);
  for (uint64_t id : c.released)
    if (s.instances.try_emplace(id, kReleasedMark).second) ++s.released_count;
  for (size_t i = 0; i < p.pending.size(); ++i) {
    PendingRequest r = p.pending[i];
    if (i < c.pending_flags.size()) r.flags = c.pending_flags[i];
    s.pending[r.instance] = r;
  }
  // Their failures' order as ranks: below the sequence of any later
  // failure (there are fewer failed instances than events before it).
  for (size_t i = 0; i < c.failed.size(); ++i) s.failed.emplace(c.failed[i], i);
  for (const auto& [instance, ready] : c.early_releases)
    s.early_releases[instance] = ready;
  for (const Reservation& r : p.reservations) s.reservations[r.id] = r;
  s.failures.assign(p.failures.begin(), p.failures.end());
  s.anomalies.assign(p.anomalies.begin(), p.anomalies.end());
  s.counters = p.counters;
  s.group_type = c.group_type;
  s.group_left = c.group_left;
  s.replacement = c.group_records;
  return map;
}

}  // namespace realm_shadow
