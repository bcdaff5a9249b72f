// whatif/replay.h - what-if replay: the requests and releases of one
// memory's run, run again through Realm's deferral rules under another
// placement policy or another capacity.
//
// Beside the library (realm_shadow/layers.h): it reads the library's value
// types and runs the model memory (model/), whose three heaps, pending
// queues and release reordering are Realm's LocalManagedMemory; only the
// placement (model/placement.h) and the capacity change.  So the deferral
// rules live in one place, the model, and a replay under `realm` at the
// run's capacity must place every request where the run did: the
// self-check printed with every replay (SelfCheck below).
//
// Input: a ReplayScript, the ordered steps of one memory as its allocator
// saw them (requests entering, releases requested, becoming ready or
// cancelled, redistricts), each with the run's event number, and per
// request what the run recorded (placed where, failed, still pending).
// whatif/compile.h builds it from a memory's history; tests build it by
// hand.
//
// What a replay cannot know: when a program would have stopped.  It replays
// every step of the run whatever happens, so a request the run placed and
// the replay fails is replayed as failed (its release then changes
// nothing), and one the run failed and the replay places stays live until
// the run's own destroy of it, if any.  A request the run had placed that is
// still waiting when the run releases it, or at the end, is counted a
// failure too (kStalled, kNotPlaced): the program was using it; so is one
// the run failed that the replay still holds back at the end (never served
// is no success: a compacting replay below the live bytes leaves a request
// waiting on a plan that no poisoned release ends).
//
// Cost: the model memory's per step (the heap's allocated ranges and the
// records by slot index, the placement's O(log n) on the common path; a
// copy of a heap per step while deferred requests wait, as Realm pays),
// plus O(1) bookkeeping here; the next releases' lives, keys, records and
// allocated-range entries are prefetched a few steps ahead, since at 100k
// live each is a cache miss.
#ifndef WHATIF_REPLAY_H_
#define WHATIF_REPLAY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/placement.h"
#include "realm_shadow/core/event.h"
#include "realm_shadow/core/identity.h"
#include "realm_shadow/core/memory_kind.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(whatif);
namespace whatif {

using model::PlacementPolicy;

// ---- input ---------------------------------------------------------------

inline constexpr uint64_t kNone64 = UINT64_MAX;
inline constexpr uint32_t kNoLife = UINT32_MAX;

// A step's `sequence` is the moment before its event (history.h: the
// event at index s takes moment s to s + 1).  What the replay prints
// numbers events as the timeline, the page and `at --event N` do: event n
// is the one after which the memory is at moment n, so the event at
// moment s is event s + 1.
inline constexpr uint64_t EventNumber(uint64_t sequence) { return sequence + 1; }

// What the run recorded for one request.
enum class RecordedOutcome : uint8_t {
  kPlaced,    // at recorded_offset (instantly or once deferred)
  kFailed,    // instant or eventual failure
  kPending,   // still waiting at the end of the history
  kCancelled, // cancelled before it was placed
  kLiveAtBase,// live in the base snapshot: placed before the window
};

// One request: one life of an instance id (ids are reused).
struct ReplayLife {
  uint64_t instance = 0;   // the run's id
  uint64_t size = 0;
  uint64_t alignment = 0;
  uint32_t identity = 0;   // the run's identity id (0: none)
  bool size_known = true;  // false: an upper bound from a log (a piece)
  RecordedOutcome recorded = RecordedOutcome::kPending;
  uint64_t recorded_offset = kNone64;  // kPlaced, kLiveAtBase
  uint64_t recorded_sequence = kNone64;  // moment before the outcome's event
  bool recorded_eventual = false;        // kFailed: an eventual failure
  // kFailed in a log that cannot tell it from a cancellation
  // (Failure::maybe_cancelled): Realm's allocator refused it, or Realm
  // cancelled it (its precondition poisoned) and never asked the allocator.
  // Not one of the run's failures (recorded_failures): a replay that places
  // it avoided nothing the log states.
  bool recorded_maybe_cancelled = false;
};

enum class StepKind : uint8_t {
  kRequest,          // life enters the allocator (allocate_storage_deferrable
                     // with its precondition triggered)
  kRequestWaits,     // life waits on its creation precondition
  kRequestEnters,    // ... which has now triggered
  kRequestCancelled, // ... which was poisoned: life never enters
  kRelease,          // destroy of life requested; `ready`: its
                     // precondition has triggered
  kReleaseReady,     // the release's precondition triggered
  kReleaseCancelled, // the release's precondition was poisoned
  kRedistrict,       // life's range split into the lives
                     // [first_piece, first_piece + piece_count); `ready`
};

struct ReplayStep {
  StepKind kind = StepKind::kRequest;
  bool ready = false;
  uint32_t life = kNoLife;
  uint32_t first_piece = 0;
  uint32_t piece_count = 0;
  uint64_t sequence = 0;  // moment before the run's event that gives this step

  // A step about one life (a redistrict's pieces are set after).
  static ReplayStep Of(StepKind kind, uint32_t life, uint64_t sequence,
                       bool ready = false) {
    ReplayStep st;
    st.kind = kind;
    st.ready = ready;
    st.life = life;
    st.sequence = sequence;
    return st;
  }
};

// The events from `sequence` on have time `time_ns` (the history's marks).
struct ReplayTimeMark {
  uint64_t sequence = 0;
  int64_t time_ns = 0;
};

struct ReplayScript {
  uint64_t memory_id = 0;
  uint32_t node = 0;
  MemoryKind kind = MemoryKind::kOther;
  std::string memory_name;
  uint64_t capacity = 0;
  bool capacity_known = true;
  // The window: events [first_sequence, end_sequence).  first_sequence > 0:
  // the history does not reach back to the start of the run, and the replay
  // starts from the base snapshot: base_lives are live there, at their
  // offsets, under every policy.
  uint64_t first_sequence = 0;
  uint64_t end_sequence = 0;
  std::vector<uint32_t> base_lives;
  std::vector<ReplayLife> lives;
  std::vector<ReplayStep> steps;  // in the run's order
  std::vector<ReplayTimeMark> times;
  bool log_times = false;  // times are the log's (per node), else drain times
  // What the compile could not tell, one line each (notes of the replay).
  std::vector<std::string> notes;
  // The identities the lives refer to (ReplayLife::identity), by id.
  std::vector<Identity> identities;

  // The time of the event at moment `sequence` (0 when the history has none).
  int64_t TimeOf(uint64_t sequence) const;
};

// ---- running ----------------------------------------------------------------

enum class FailureKind : uint8_t {
  kInstant,     // INSTANT_FAILURE
  kEventual,    // EVENTUAL_FAILURE (a poisoned release it counted on)
  kStalled,     // the run placed, then released it while the replay still
                // had it waiting
  kNotPlaced,   // the run placed (or failed) it; the replay had not by the end
};
const char* FailureKindName(FailureKind kind);

struct ReplayFailure {
  uint32_t life = kNoLife;
  FailureKind kind = FailureKind::kInstant;
  uint64_t sequence = 0;      // moment before the run's event at which it happened
};

// A live range of the replay's current heap.
struct ReplayRange {
  uint32_t life = kNoLife;  // kNoLife: a range Realm's queues lost (model)
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct ReplayOptions {
  PlacementPolicy policy = PlacementPolicy::kRealm;
  uint64_t capacity = 0;  // 0: the script's
  // Stop at the first failure (a capacity probe needs no more).
  bool stop_at_first_failure = false;
  // Take the current heap's ranges just before the step of this event
  // (kNone64: never); ReplayResult::map_at.
  uint64_t map_before_sequence = kNone64;
};

// Per-placement comparison with the run (self-check).
struct SelfCheck {
  uint64_t checked = 0;        // placements the run recorded, with known size
  uint64_t as_recorded = 0;    // ... that the replay placed at the same offset
  uint64_t not_checkable = 0;  // placements of a size the history lacks
  // The first differences: life, the run's offset, the replay's (kNone64:
  // not placed).
  struct Difference {
    uint32_t life = kNoLife;
    uint64_t recorded = 0;
    uint64_t replayed = kNone64;
  };
  std::vector<Difference> differences;  // at most 16
  uint64_t difference_count = 0;
};

struct ReplayResult {
  PlacementPolicy policy = PlacementPolicy::kRealm;
  uint64_t capacity = 0;
  uint64_t steps_run = 0;
  bool stopped_early = false;
  std::vector<ReplayFailure> failures;  // in order (all, unless stopped)
  // The run's failures (lives recorded kFailed) and how many of them the
  // replay placed.
  uint64_t recorded_failures = 0;
  uint64_t recorded_failures_avoided = 0;
  // The run's failures marked maybe cancelled (ReplayLife::
  // recorded_maybe_cancelled), how many of them the replay placed, and how
  // many of `failures` are theirs.
  uint64_t recorded_maybe_cancelled = 0;
  uint64_t maybe_cancelled_placed = 0;
  uint64_t failures_of_maybe_cancelled = 0;
  uint64_t peak_used = 0;  // bytes in the current heap, high-water mark
  // The highest end any placement reached, in any of the model's heaps
  // (ModelMemory::highest_end()): under realm, every capacity from it up to
  // this one replays the same (to the step where this one stopped).
  uint64_t highest_end = 0;
  // The most by which a request that could not be placed at once exceeded
  // the current heap's largest hole (0: never).
  uint64_t peak_hole_deficit = 0;
  // Fragmentation (1 - largest hole / total free) of the current heap just
  // before the step that recorded the run's first failure; -1 without one.
  double fragmentation_at_recorded_failure = -1;
  uint64_t recorded_failure_sequence = kNone64;
  SelfCheck self_check;  // against the run's placements (any policy)
  // With ReplayOptions::map_before_sequence: the ranges then, by offset.
  bool map_taken = false;
  std::vector<ReplayRange> map_at;
  uint64_t map_free_bytes = 0;
  // Offsets the replay gave each life (kNone64: never placed).
  std::vector<uint64_t> placed_at;
  // Ranges of released lives that Realm's queues lost, still held (the
  // model's current_contents(); see model_memory.h).
  uint64_t stranded_ranges = 0;
  uint64_t ready_releases_dropped = 0;

  bool failed() const { return !failures.empty(); }
};

// Replays the script under options.policy at the capacity.
// InvalidArgument when the script cannot be replayed (no capacity, base
// ranges that do not fit the capacity, a step naming an unknown life).
absl::StatusOr<ReplayResult> RunReplay(const ReplayScript& script,
                                       const ReplayOptions& options);

// The most bytes the run asked to hold at once: every request counted from
// when it was made (placed or not) until its release was ready, by a
// compacting replay with room for everything.  Below it, some request must
// wait longer than it did in the run, or fail: the lower bound no policy
// reaches without changing when requests are served.
uint64_t PeakLiveBytes(const ReplayScript& script);

// The largest alignment any request of the script asks for (at least 1):
// the unit of the capacity search.
uint64_t AlignmentUnit(const ReplayScript& script);

// ---- the smallest capacity --------------------------------------------------

struct MinCapacity {
  bool found = false;
  uint64_t capacity = 0;     // no failure at it ...
  uint64_t unit = 1;         // ... and one at capacity - unit (checked)
  uint64_t lower_bound = 0;  // PeakLiveBytes
  int probes = 0;            // replays run
  std::string method;        // how it was searched, in words
};

// Searches the capacities that are multiples of AlignmentUnit for the
// smallest under which a replay with `policy` has no failure.  Doubling
// from max(lower bound, the run's capacity) until a capacity has none,
// then bisection between the largest failing and the smallest passing one
// found, to one unit.  Under realm a capacity that passes passes the same
// way down to the highest end its placements reached
// (ReplayResult::highest_end), so the passing side of the bracket drops to
// that end rounded up to a unit at once: the same answer, fewer replays.
// Placement is not monotone in the capacity in general, so the answer is a
// capacity with no failure whose next lower unit fails, the smallest the
// bisection met; not a proof that nothing smaller works.  At most
// `max_probes` replays (found = false beyond).
MinCapacity FindMinCapacity(const ReplayScript& script, PlacementPolicy policy,
                            int max_probes = 96);
// The same with the script's PeakLiveBytes already known (a report that
// searches under several policies replays it once, not once per policy).
MinCapacity FindMinCapacityWithLowerBound(const ReplayScript& script,
                                          PlacementPolicy policy, uint64_t lower_bound,
                                          int max_probes = 96);

}  // namespace whatif
}  // namespace realm_shadow

#endif  // WHATIF_REPLAY_H_
