// whatif/remedies.cc - see remedies.h.
#include "whatif/remedies.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "realm_shadow/core/text.h"
#include "whatif/report.h"

namespace realm_shadow {
namespace whatif {
namespace {

// Values above a rounded flag value that fails, replayed until one passes.
constexpr int kValuesTriedAbove = 64;

// The Realm flags of runtime_impl.cc, cuda_module.cc and numa_module.cc
// (Legion master): add_option_int_units(..., 'm'), a plain number in MiB.
constexpr CapacityFlag kSystemFlag{"-ll:csize", "--sysmem"};
constexpr CapacityFlag kFramebufferFlag{"-ll:fsize", "--fbmem"};
constexpr CapacityFlag kZeroCopyFlag{"-ll:zsize", "--zcmem"};
constexpr CapacityFlag kRegisteredFlag{"-ll:rsize", ""};
constexpr CapacityFlag kSocketFlag{"-ll:nsize", ""};
constexpr CapacityFlag kManagedFlag{"-ll:msize", ""};
constexpr CapacityFlag kDiskFlag{"-ll:dsize", ""};
constexpr CapacityFlag kGlobalFlag{"-ll:gsize", ""};

// The first failure of a replay in a few words: "event 12: 64 MiB
// (67108864 B) for 0x4000000000000007, instant failure".
std::string FailureWords(const ReplayScript& s, const ReplayResult& r) {
  if (r.failures.empty()) return "";
  const ReplayFailure& f = r.failures.front();
  const ReplayLife& l = s.lives[f.life];
  return absl::StrCat(f.sequence >= s.end_sequence
                          ? absl::StrCat("at the failure's event ", s.end_sequence)
                          : absl::StrCat("event ", EventNumber(f.sequence)),
                      ": ", FormatSizeExact(l.size), " for ", HexId(l.instance), ", ",
                      FailureKindName(f.kind));
}

CapacityProbe Probe(const ReplayScript& cut, PlacementPolicy policy, uint64_t capacity) {
  CapacityProbe p;
  p.run = true;
  p.capacity = capacity;
  ReplayOptions o;
  o.policy = policy;
  o.capacity = capacity;
  o.stop_at_first_failure = true;
  const absl::StatusOr<ReplayResult> r = RunReplay(cut, o);
  if (!r.ok()) {
    p.failure = std::string(r.status().message());
    return p;
  }
  p.passes = !r->failed();
  p.failure = FailureWords(cut, *r);
  return p;
}

// The capacity the run had, or where it is unknown the highest end its
// placements reached (replay.md: first fit places every request there as at
// the real capacity).
uint64_t RunCapacity(const ReplayScript& s) {
  if (s.capacity_known && s.capacity > 0) return s.capacity;
  uint64_t reached = 0;
  for (const ReplayLife& l : s.lives)
    if (l.recorded_offset != kNone64) reached = std::max(reached, l.recorded_offset + l.size);
  return reached;
}

void FindCapacity(const ReplayScript& cut, const MemoryKind kind, uint64_t lower_bound,
                  CapacityRemedy* c) {
  const MinCapacity min = FindMinCapacityWithLowerBound(cut, PlacementPolicy::kRealm, lower_bound);
  c->lower_bound = lower_bound;
  c->found = min.found;
  c->min_capacity = min.capacity;
  c->unit = min.unit;
  c->replays = min.probes;
  if (!min.found) {
    c->verdict = RemedyVerdict::kDoesNotFit;
    c->reason = min.method;
    return;
  }
  const CapacityFlag* flag = CapacityFlagOf(kind);
  if (flag == nullptr) {
    c->at_flag = Probe(cut, PlacementPolicy::kRealm, min.capacity);
    if (min.capacity > min.unit)
      c->one_below = Probe(cut, PlacementPolicy::kRealm, min.capacity - min.unit);
  } else {
    c->flag = flag->realm;
    c->legate_flag = flag->legate;
    c->flag_unit = flag->unit;
    c->flag_unit_bytes = flag->unit_bytes;
    const uint64_t u = flag->unit_bytes;
    c->flag_value = (min.capacity + u - 1) / u;
    c->at_flag = Probe(cut, PlacementPolicy::kRealm, c->flag_value * u);
    while (!c->at_flag.passes && c->values_tried_above < kValuesTriedAbove) {
      ++c->values_tried_above;
      c->at_flag = Probe(cut, PlacementPolicy::kRealm, (c->flag_value + 1) * u);
      ++c->flag_value;
    }
    if (!c->at_flag.passes) {
      // None passed: name the rounded value again, with the failure seen there.
      c->flag_value -= static_cast<uint64_t>(c->values_tried_above);
      c->values_tried_above = 0;
      c->at_flag = Probe(cut, PlacementPolicy::kRealm, c->flag_value * u);
    }
    if (c->flag_value > 1)
      c->one_below = Probe(cut, PlacementPolicy::kRealm, (c->flag_value - 1) * u);
  }
  c->checked = c->at_flag.passes;
  if (c->checked) {
    c->verdict = RemedyVerdict::kFits;
  } else {
    c->verdict = RemedyVerdict::kDoesNotFit;
    c->reason = absl::StrCat(
        "the search found ", FormatSizeExact(min.capacity), " but a replay at ",
        c->flag.empty() ? FormatSizeExact(c->at_flag.capacity)
                        : absl::StrCat(c->flag, " ", c->flag_value),
        " fails (", c->at_flag.failure, ") and so do the ", kValuesTriedAbove,
        " values above it: placement is not monotone in the capacity");
  }
}

void FindAllocator(const ReplayScript& cut, uint64_t run_capacity, uint64_t lower_bound,
                   AllocatorRemedy* a) {
  bool any = false;
  for (PlacementPolicy policy : {PlacementPolicy::kSizeClasses, PlacementPolicy::kBestFit}) {
    AllocatorRemedy::Policy p;
    p.policy = model::PlacementPolicyName(policy);
    const CapacityProbe at_run = Probe(cut, policy, run_capacity);
    p.avoids = at_run.passes;
    p.failure = at_run.failure;
    const MinCapacity min = FindMinCapacityWithLowerBound(cut, policy, lower_bound);
    p.min_found = min.found;
    p.min_capacity = min.capacity;
    p.replays = min.probes;
    any |= p.avoids;
    a->policies.push_back(std::move(p));
  }
  a->checked = true;  // each answer is a replay
  if (any) {
    a->verdict = RemedyVerdict::kFits;
  } else {
    a->verdict = RemedyVerdict::kDoesNotFit;
    a->reason = "neither avoids it at the run's capacity";
  }
}

}  // namespace

const CapacityFlag* CapacityFlagOf(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kSystem: return &kSystemFlag;
    case MemoryKind::kFramebuffer: return &kFramebufferFlag;
    case MemoryKind::kZeroCopy: return &kZeroCopyFlag;
    case MemoryKind::kRegdma: return &kRegisteredFlag;
    case MemoryKind::kSocket: return &kSocketFlag;
    case MemoryKind::kManaged: return &kManagedFlag;
    case MemoryKind::kDisk: return &kDiskFlag;
    case MemoryKind::kGlobal: return &kGlobalFlag;
    case MemoryKind::kDynamicFramebuffer:  // sized by the device
    case MemoryKind::kOther:
      break;
  }
  return nullptr;
}

absl::StatusOr<ReplayScript> CutAtFailure(const ReplayScript& script,
                                          const Failure& failure, uint32_t* life) {
  *life = kNoLife;
  for (uint32_t l = 0; l < script.lives.size(); ++l) {
    const ReplayLife& x = script.lives[l];
    if (x.instance == failure.instance && x.recorded == RecordedOutcome::kFailed &&
        x.recorded_sequence == failure.sequence)
      *life = l;
  }
  if (*life == kNoLife)
    return absl::InvalidArgumentError(absl::StrCat(
        "the history holds no request of ", HexId(failure.instance),
        " that failed at event ", failure.sequence + 1,
        failure.sequence < script.first_sequence
            ? " (it is before the history's window)"
            : " (a request of a size the history does not give is not replayed)"));
  // The whole script up to the failure: its steps after it are dropped
  // below, its later outcomes reset.
  ReplayScript cut = script;
  cut.end_sequence = failure.sequence + 1;
  // Outcomes after the failure had not happened yet: those requests are
  // still pending at the cut.
  for (ReplayLife& l : cut.lives) {
    if (l.recorded == RecordedOutcome::kLiveAtBase || l.recorded_sequence == kNone64 ||
        l.recorded_sequence <= failure.sequence)
      continue;
    l.recorded = RecordedOutcome::kPending;
    l.recorded_offset = kNone64;
    l.recorded_sequence = kNone64;
    l.recorded_eventual = false;
  }
  size_t kept = 0;  // the steps are in the run's order
  while (kept < cut.steps.size() && cut.steps[kept].sequence <= failure.sequence) ++kept;
  cut.steps.resize(kept);
  return cut;
}

void ReplayRemediesUnknown(const std::string& missing, FailureRemedies* r) {
  for (RemedyStatus* st : {static_cast<RemedyStatus*>(&r->capacity),
                           static_cast<RemedyStatus*>(&r->allocator)}) {
    st->verdict = RemedyVerdict::kUnknown;
    st->missing = missing;
  }
}

void FindReplayRemedies(const ReplayScript& script, const Failure& failure,
                        FailureRemedies* r) {
  uint32_t life = kNoLife;
  absl::StatusOr<ReplayScript> cut = CutAtFailure(script, failure, &life);
  if (!cut.ok()) {
    ReplayRemediesUnknown(std::string(cut.status().message()), r);
    return;
  }
  const uint64_t run_capacity = RunCapacity(*cut);
  CapacityRemedy& c = r->capacity;
  c.run_capacity = run_capacity;
  c.run_capacity_known = cut->capacity_known && cut->capacity > 0;
  if (run_capacity == 0) {
    ReplayRemediesUnknown("the memory's capacity: a log with machine=1 gives it", r);
    return;
  }
  // Does the replay fail this request at the run's capacity, as the run did?
  ReplayOptions o;
  o.policy = PlacementPolicy::kRealm;
  o.capacity = run_capacity;
  const absl::StatusOr<ReplayResult> at_run = RunReplay(*cut, o);
  if (!at_run.ok()) {
    ReplayRemediesUnknown(std::string(at_run.status().message()), r);
    return;
  }
  c.reproduced = std::any_of(at_run->failures.begin(), at_run->failures.end(),
                             [&](const ReplayFailure& f) { return f.life == life; });
  if (!c.reproduced) {
    ReplayRemediesUnknown(
        absl::StrCat("a replay that reproduces it: at the run's capacity Realm's "
                     "replay ",
                     at_run->failed() ? "fails elsewhere first (" + FailureWords(*cut, *at_run) + ")"
                                      : std::string("places it"),
                     " (", FormatSelfCheck(*cut, at_run->self_check),
                     "), so its capacities are no evidence"),
        r);
    return;
  }
  const uint64_t lower_bound = PeakLiveBytes(*cut);
  FindCapacity(*cut, script.kind, lower_bound, &c);
  r->allocator.realm_min_found = c.found;
  r->allocator.realm_min_capacity = c.min_capacity;
  FindAllocator(*cut, run_capacity, lower_bound, &r->allocator);
}

}  // namespace whatif
}  // namespace realm_shadow
