// realm_shadow/analysis/remedies.h - from diagnosis to remedy: for a failed
// request, what would have made it fit, ranked by how little each asks of
// the user, each with its figure and whether it was checked.
//
// Layer analysis.  One definition of each remedy, read by every face: the
// failure report at the moment of failure (render/failure_report.h), the
// `realm-shadow explain` command, the end of `report`, and the page.  The
// remedies that need no replay are computed here from a Snapshot and, for
// `wait`, the memory's history; the ones that need the model memory
// (capacity, allocator) are whatif/remedies.h's, which fills the same
// structs (the live side cannot link whatif, so the report printed at a
// failure has these and names the command that gives the rest).  Texts are
// render's (failure_report.h FormatRemedies), JSON whatif/explain.h's.
//
// The ranking: RemedyKind's order, from what asks least of the user to what
// asks most.  Releasing collectable instances asks nothing of the program
// (Legion's collector may take them; a Realm program destroys them);
// waiting for releases the program already requested asks it to let them
// complete; a larger memory is one command-line flag; releasing pinned
// instances asks a mapper change (their GC priority, an acquire); waste
// (padding, inflated bounds, unrequested fields) asks a change of layouts
// in the mapper; another allocator asks for a Realm built with it.  The
// remedies that make the request fit are listed first, in that order, then
// those that do not, do not apply or cannot be told (OrderedRemedies).
//
// Every figure is checked where a check is possible, and says so: a
// release by first fit on the picture without the released allocations, a
// wait on the state just before the failure with the releases it counted
// on completed, a capacity or an allocator by a replay (whatif).  Nothing
// is claimed that the source cannot know: a stock log's rebuild has no GC
// state (Snapshot::gc_state_known), so its release remedy proposes
// instances only "if Legion may collect them", and no pinned remedy.
//
// Cost: a release remedy is two FindBlockers passes and a first fit on a
// copy of the picture (linear in its allocations); wait, with a history,
// two StateAt (at most one segment of events each, history.h) and a pass
// over the events between the request's deferral and its failure; waste,
// FindWaste and FitAfterRecovery (O(n log n), waste.h).
#ifndef REALM_SHADOW_ANALYSIS_REMEDIES_H_
#define REALM_SHADOW_ANALYSIS_REMEDIES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/analysis/waste.h"
#include "realm_shadow/core/history.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(analysis);

// In rank order: least asked of the user first (see above).
enum class RemedyKind : uint8_t {
  kRelease = 0,        // release collectable blockers (FindBlockers)
  kWait = 1,           // the releases a deferred request counted on
  kCapacity = 2,       // a larger memory: the flag that sizes it (whatif)
  kReleasePinned = 3,  // release pinned blockers: make them collectable
  kWaste = 4,          // recover bytes live instances hold unasked
                       // (analysis/waste.h)
  kAllocator = 5,      // another allocator at the run's capacity (whatif)
};
inline constexpr int kRemedyKindCount = 6;
// "release", "wait", "capacity", "release-pinned", "waste", "allocator".
const char* RemedyKindName(RemedyKind kind);

enum class RemedyVerdict : uint8_t {
  kFits = 0,           // makes this request fit (`checked`: verified)
  kDoesNotFit = 1,     // considered: it does not
  kNotApplicable = 2,  // does not apply to this failure (`reason`)
  kUnknown = 3,        // cannot be told from what is at hand (`missing`
                       // says what, and how to get it)
  kNotComputed = 4,    // not computed here (the live report: no replay)
};
// "fits", "does not fit", "does not apply", "unknown", "not computed".
const char* RemedyVerdictName(RemedyVerdict verdict);

// What every remedy says of itself.
struct RemedyStatus {
  RemedyVerdict verdict = RemedyVerdict::kNotComputed;
  bool checked = false;  // the figure was verified (how: the kind's text)
  std::string reason;    // kNotApplicable, kDoesNotFit: why, a few words
  std::string missing;   // kUnknown: what is missing and how to get it
};

// ---- release: collectable blockers, or pinned ones ----------------------

struct ReleaseRemedy : RemedyStatus {
  BlockerWindow window;  // kRelease: collectable only; kReleasePinned: any
  // The check: first fit on the picture without the window's allocations.
  uint64_t placement = 0;
  // kRelease: false when the source cannot tell which are collectable (a
  // stock log): the window holds them "if Legion may collect them".
  bool gc_state_known = true;
  // kReleasePinned: the window's pinned allocations, with what the tracked
  // side recorded of why Legion keeps them (identity attributes
  // kGcReasonAttribute, kGcPriorityAttribute; "" when not recorded).
  struct Pinned {
    Allocation allocation;
    std::string reason;
    std::string priority;
  };
  std::vector<Pinned> pinned;
  uint64_t pinned_bytes = 0;
};

// ---- wait: the releases a deferred request counted on -------------------

enum class ReleaseFate : uint8_t {
  kStillPending = 0,  // requested, its precondition not fired by the failure
  kReady = 1,         // fired; Realm had not given the range back yet
  kCompleted = 2,     // the range went back
  kCancelled = 3,     // the precondition was poisoned: no release, the
                      // instance live again
};
// "still pending", "ready, not yet given back", "completed",
// "cancelled (its precondition was poisoned)".
const char* ReleaseFateName(ReleaseFate fate);

struct WaitRemedy : RemedyStatus {
  uint64_t deferred_at = 0;  // moment before the deferral's event
  bool plan_known = false;   // Realm's plan in its future heap
  uint64_t plan = 0;
  struct CountedOn {
    Allocation allocation;   // as it was when the request was deferred
    ReleaseFate fate = ReleaseFate::kStillPending;
    uint64_t fate_sequence = 0;  // moment before the event that settled it
  };
  // The releases pending when it was deferred whose ranges its plan
  // overlaps (every release then pending when the plan is unknown).
  std::vector<CountedOn> counted_on;
  uint64_t counted_on_bytes = 0;
  // The check: on the state just before the failure, with every one of
  // them completed, where first fit (the plan first) places the request.
  uint64_t placement = 0;
};

// ---- capacity, allocator: filled by whatif/remedies.h --------------------

// One replay at a capacity, stopped at this failure.
struct CapacityProbe {
  bool run = false;
  uint64_t capacity = 0;
  bool passes = false;  // no failure up to and including this one
  // !passes: the first failure, in the replay's words (event, request).
  std::string failure;
};

struct CapacityRemedy : RemedyStatus {
  uint64_t run_capacity = 0;
  bool run_capacity_known = true;
  // The replay at the run's capacity fails this request as the run did
  // (else the replay's figures are no evidence, and the verdict says so).
  bool reproduced = false;
  uint64_t lower_bound = 0;  // peak live bytes up to the failure
  bool found = false;
  uint64_t min_capacity = 0;  // the search's answer, in `unit`s
  uint64_t unit = 1;
  int replays = 0;
  // The flag that sizes this kind of memory, in its own unit, rounded up
  // from min_capacity; empty when no flag does (the figure is then bytes).
  std::string flag;         // "-ll:fsize"
  std::string legate_flag;  // "--fbmem", or "" when Legate has none
  std::string flag_unit;    // "MiB"
  uint64_t flag_unit_bytes = 0;
  uint64_t flag_value = 0;
  CapacityProbe at_flag;    // a replay at exactly flag_value units
  CapacityProbe one_below;  // and one flag unit below
  // When the rounded value failed (placement is not monotone), the next
  // values up that were replayed until one passed: flag_value is then it.
  int values_tried_above = 0;
};

struct AllocatorRemedy : RemedyStatus {
  struct Policy {
    std::string policy;  // "size-classes", "best-fit"
    // At the run's capacity: placed with no failure up to this one.
    bool avoids = false;
    std::string failure;  // !avoids: its first failure, in words
    bool min_found = false;
    uint64_t min_capacity = 0;
    int replays = 0;
  };
  std::vector<Policy> policies;
  uint64_t realm_min_capacity = 0;  // Realm's own (the capacity remedy's)
  bool realm_min_found = false;
};

// ---- waste: bytes live instances hold that no one asked for ---------------

// Judged on the same picture as release (analysis/waste.h): every live
// allocation's padding, inflation and unrequested fields, and whether
// recovering them (shrinking each in place) leaves room for the request.
// Never `checked`: recovery means re-creating instances at their useful
// size, which only a run can show (waste.h: an upper bound).  kUnknown when
// no allocation carries the figures (a tracked dump, or a log without
// "instance layout" lines); kDoesNotFit when recovery leaves no room or no
// waste is known; kFits when the room it leaves is enough.
struct WasteRemedy : RemedyStatus {
  MemoryWaste waste;
  RecoveryFit recovery;
};

// ---- one failure ------------------------------------------------------------

struct FailureRemedies {
  Failure failure;
  // The picture the release remedies and the cause were judged on: the
  // state just before the failure (the history's moment failure.sequence),
  // or, without a history that holds it, the dump's own picture.
  uint64_t judged_at = 0;  // its sequence
  bool judged_before_failure = false;
  ReleaseRemedy release;
  WaitRemedy wait;
  CapacityRemedy capacity;
  ReleaseRemedy release_pinned;
  WasteRemedy waste;
  AllocatorRemedy allocator;

  const RemedyStatus& Status(RemedyKind kind) const;
};

// The kinds in the order they are shown: those that make the request fit,
// in rank order, then the others in rank order; kinds not computed (a live
// report's capacity and allocator) are left out.
std::vector<RemedyKind> OrderedRemedies(const FailureRemedies& remedies);

// How to get a history where a remedy needs one.
inline constexpr char kHowToGetHistory[] =
    "a dump with its history (REALM_SHADOW_HISTORY, on by default: 65536 "
    "events per memory), or ingest-realm-log of the run's log (-level "
    "inst=1,machine=1)";

// The remedies that need no replay for `failure`, judged on `state` (the
// picture at or just before the failure), with `history` the memory's
// history when there is one (wait needs it; nullptr: wait is kUnknown,
// saying so): release, wait, release-pinned, waste.  Capacity and
// allocator are left kNotComputed.
FailureRemedies FindRemedies(const Snapshot& state, const Failure& failure,
                             const MemoryHistory* history);

// The same on the best picture a dump holds: the state just before the
// failure when `history` holds that moment (StateAt) and `picture` knows
// every placement (else the history lacks the unplaced instances), else
// `picture` itself.  The state's allocations without an identity take the
// one `picture` gives the same life (instance, offset, size): a log's
// rebuild attaches identities and figures to its final picture only.
// *judged gets that state (it outlives the call: the texts read it).
FailureRemedies FindRemediesInDump(const Snapshot& picture, const Failure& failure,
                                   const MemoryHistory* history, Snapshot* judged);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_ANALYSIS_REMEDIES_H_
