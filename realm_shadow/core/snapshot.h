// realm_shadow/core/snapshot.h - a consistent picture of one memory.
//
// A Snapshot is a value: it owns copies of everything in it and never
// changes after it is returned.  It is exactly the state after the first
// `sequence` events of its memory (a prefix of the journal), never a blend of
// two moments.  Analysis, the dump format, the texts and every tool read
// Snapshots; none of them reads live tracker state (layers.h).
//
// Semantics of events, as applied to the picture (the same table drives the
// reference model in tests/recorder):
//  allocated(i,o,s,a)      i becomes live at [o, o+s).  Anomalies, still
//                          applied: i already live (the old range is dropped),
//                          overlap with a live range, range beyond capacity.
//  deferred(i,s,a,p)       i waits in `pending`; p is its planned offset.
//  deferred_completed(i,o) the pending i becomes live at o (unknown i: anomaly).
//  deferred_failed(i)      the pending i moves to `failures` (eventual).
//  allocation_failed(i,s,a) a failure (instant).  Either, with offset bit
//                          kFailureMaybeCancelled: the failure is marked
//                          maybe_cancelled (a log that cannot tell).
//  release_requested(i,r)  live i stays, state kReleasePending or
//                          kReleaseReady; a pending i is left as it is.
//  release_cancelled(i)    live i goes back to kLive (recorded as a
//                          release_requested event with aux 2).
//  released(i)             live i leaves; a pending i is cancelled; a failed i
//                          is forgotten quietly (Realm destroys failed
//                          instances; the last kFailedMemory failed ones
//                          are remembered); otherwise a double or unknown
//                          release anomaly.
//  redistrict(old, pieces) old leaves, every piece becomes live.
//  reserved / reservation_ended: `reservations`; they never change holes,
//                          since Realm's allocator does not see them.
//  attach_identity(i,id,p) sets identity and pinned on live or pending i.
// Heap observation (heap_observer.h, realm_sites.h; the memory is
// registered REALM_SHADOW_HEAP_OBSERVED): what Realm's heaps did.
//  heap_placed(i,o,s,a)    i entered the current heap at [o, o+s): a pending
//                          i is completed (it keeps its identity and pinning,
//                          and is kWasDeferred if it had been planned), else
//                          a new live allocation; a release requested before
//                          it appeared applies now.  i already live: anomaly,
//                          as allocated.
//  heap_removed(i)         live i leaves (unknown i: anomaly).
//  heap_split(old) group   old leaves; each redistrict_piece record that
//                          follows is placed as heap_placed, kFromRedistrict.
//  heap_swapped group      its heap_removed / heap_placed records, as above,
//                          applied as one.
//  heap_replaced group     its heap_placed records are the whole current
//                          heap: what they do not name leaves, what moved
//                          moves, the rest stays as it is.
//  future_placed(i,p,s,a)  Realm plans i at p in its future heap (p =
//                          kNoOffset: i waits, no plan yet).  A live i whose
//                          release was not requested is a copy of the
//                          current heap and changes nothing; otherwise i is
//                          a pending request (a reused id may be pending while
//                          its old range is still live) and p its plan.
//  future_reset            every pending request's plan is void (Realm
//                          rebuilt the future heap; new plans follow).
//  request_failed(i,e,s,a) a failure, eventual if e, of size s; a pending i
//                          leaves `pending`.
//  request_cancelled(i)    a pending i leaves `pending` (counted cancelled).
//  release_requested(i,r)  as above for a live i; for an i that is not live:
//                          a pending i keeps the release for its placement
//                          and has no plan from here on (Realm takes a
//                          queued request's range out of its future heap at
//                          its destroy; a future_placed of it is ignored
//                          until the release is cancelled);
//                          a failed or cancelled i is forgotten once ready;
//                          an i no heap has seen yet keeps it until it
//                          appears (at most 4096 such; past that, anomaly).
//                          A reused id, live (release requested) and failed
//                          or pending at once: the request is the newer
//                          one's.
//  noop                    nothing (a group applied outside the journal).
// A record of a heap group that is not of the group's kinds is malformed.
// A placement (allocated, deferred_completed, a redistrict piece) at offset
// kNoOffset, the format's "not placed", is a malformed event: counted, and
// it changes nothing (a completed request is already out of `pending`).
// Zero-byte allocations are live but occupy nothing (several may sit at 0).
// Overlap is checked against the nearest non-empty neighbours in address
// order (O(log n), not a scan): once the map already holds an overlap, a
// later range overlapping only the earlier of the two may go unreported.
// Holes and every analysis answer stay exact whatever overlaps exist.
#ifndef REALM_SHADOW_CORE_SNAPSHOT_H_
#define REALM_SHADOW_CORE_SNAPSHOT_H_

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "realm_shadow/layers.h"
#include "realm_shadow/core/event.h"
#include "realm_shadow/core/identity.h"
#include "realm_shadow/core/memory_kind.h"
#include "realm_shadow/core/text.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(core);

// The records below are plain aggregates, and the shadow map and the tests
// build them by position (Anomaly{kind, sequence, instance, ...}): a new
// field goes last, with its default.

enum class AllocationState : uint8_t {
  kLive = 0,
  kReleasePending = 1,  // release queued, its precondition not triggered
  kReleaseReady = 2,    // release queued and ready, range not yet given back
};
const char* AllocationStateName(AllocationState state);

// Bits of Allocation::flags.
enum AllocationFlag : uint8_t {
  kPinned = 1,          // valid: the collector may not release it
  kFromRedistrict = 2,  // a piece of a redistricted range
  kWasDeferred = 4,     // placed by an eventual success
};

// One live allocation.  32 bytes: a snapshot of 100k allocations is 3.2 MB
// and copies at memcpy speed.
struct Allocation {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t instance = 0;
  uint32_t identity = 0;       // 0: none attached; else an Identity id
  uint8_t alignment_log2 = 0;  // alignment = 1 << alignment_log2
  AllocationState state = AllocationState::kLive;
  uint8_t flags = 0;
  AllocationKind kind = AllocationKind::kUnknown;

  uint64_t end() const { return offset + size; }
  uint64_t alignment() const { return uint64_t{1} << alignment_log2; }
  bool pinned() const { return flags & kPinned; }
};
static_assert(sizeof(Allocation) == 32, "copy cost is sized for 32 bytes");

// Rounds an alignment up to a power of two and returns its log2 (0 and 1
// both give 0).
uint8_t AlignmentLog2(uint64_t alignment);

// Bits of PendingRequest::flags (kPinned as for allocations).
enum PendingFlag : uint8_t {
  // Not a request: a live instance whose placement the source never gave
  // (a Realm log without debug-level lines).  It holds `size` bytes
  // somewhere in the memory, so that memory's holes and free space are
  // unknown (PlacementsKnown in analysis.h); no analysis places it.
  kPlacementUnknown = 8,
};

// A deferred request waiting on releases (or, with kPlacementUnknown, a
// live instance of unknown placement).
struct PendingRequest {
  uint64_t instance = 0;
  uint64_t size = 0;
  uint64_t alignment = 0;
  uint64_t planned_offset = kNoOffset;
  uint64_t sequence = 0;  // event number at which it was deferred
  uint32_t identity = 0;
  uint8_t flags = 0;

  bool placement_unknown() const { return flags & kPlacementUnknown; }
};

struct Failure {
  uint64_t instance = 0;
  uint64_t size = 0;       // 0 when the request was never seen (anomaly)
  uint64_t alignment = 0;
  uint64_t sequence = 0;
  bool eventual = false;   // a deferred request that failed later
  uint32_t identity = 0;
  // Refused by the allocator, or cancelled by a poisoned precondition: the
  // source (a Realm log) cannot tell (kFailureMaybeCancelled).  False: a
  // refusal, as a fact (every tracked failure).
  bool maybe_cancelled = false;
};

// What a failure's reader is told when maybe_cancelled is set (one text for
// the report, the failure report, the timeline, the page's JSON readers).
inline constexpr const char* kMaybeCancelledText =
    "refused by the allocator, or cancelled by a poisoned precondition: "
    "the log cannot tell";

struct Reservation {
  uint64_t id = 0;
  uint64_t offset = kNoOffset;  // kNoOffset: an amount, not a range
  uint64_t size = 0;
  uint64_t sequence = 0;
};

enum class AnomalyKind : uint8_t {
  kOverlap = 0,             // an allocation overlapping a live one
  kBeyondCapacity = 1,      // a range past the memory's capacity
  kDuplicateInstance = 2,   // allocated or deferred while already live/pending
  kUnknownInstance = 3,     // completion, failure, release of an unknown id
  kDoubleRelease = 4,       // release of an instance already released
  kUnknownReservation = 5,  // end of a reservation never made
  kMalformedEvent = 6,      // an event record that cannot be decoded, or a
                            // placement at kNoOffset
  kTrackingPaused = 7,      // events were not recorded for a while
};
inline constexpr int kAnomalyKindCount = 8;
const char* AnomalyKindName(AnomalyKind kind);

struct Anomaly {
  AnomalyKind kind = AnomalyKind::kOverlap;
  uint64_t sequence = 0;
  uint64_t instance = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t other_instance = 0;  // the live one it overlaps, when known
};

struct EventCounters {
  std::array<uint64_t, kEventTypeCount> by_type{};
  std::array<uint64_t, kAnomalyKindCount> anomalies{};
  uint64_t failures = 0;
  uint64_t cancelled = 0;        // pending requests released before placing
  uint64_t peak_used = 0;        // bytes, high-water mark
  uint64_t journal_overflows = 0;
};

struct Snapshot {
  uint64_t memory_id = 0;
  MemoryKind kind = MemoryKind::kOther;
  uint64_t capacity = 0;
  bool capacity_known = true;  // false: rebuilt from a log that never said
  bool addressed = false;      // offsets are device addresses (no holes)
  uint32_t node = 0;           // the process (Legion node) it came from
  std::string name;
  uint64_t sequence = 0;       // events applied: the prefix this shows
  bool exact = true;           // false: tracking was off for some events
  // Whether the source knows which allocations Legion may collect: the
  // tracker does (legion_glue attaches each instance's GC state as the
  // pinned flag), a stock log does not (ingest-realm-log: Realm's log and
  // Legion Spy say nothing of validity, so nothing is pinned there and a
  // blocker may be one Legion must keep).  Blocker answers say so when
  // false.  Dumps carry it (docs/dump-format.md, the gcun section).
  bool gc_state_known = true;

  std::vector<Allocation> allocations;  // sorted by (offset, instance)
  std::vector<PendingRequest> pending;  // in the order they were deferred
  std::vector<Reservation> reservations;  // sorted by id
  std::vector<Failure> failures;        // the most recent, oldest first
  std::vector<Anomaly> anomalies;       // the most recent, oldest first
  EventCounters counters;
  // Every identity referenced above, sorted by id, each id once: every
  // producer (TakeSnapshot, the dump reader, the log reader) keeps that
  // order, so that FindIdentity is a binary search.
  std::vector<Identity> identities;

  // The identity with this id, or nullptr (id 0 is "none").  O(log n): a
  // report, the JSON and the pools look one up per allocation.
  const Identity* FindIdentity(uint32_t id) const;
  uint64_t used_bytes() const;  // sum of live sizes (overlaps counted twice)
};

// How many failures and anomalies a picture keeps (the counters keep totals).
inline constexpr size_t kRecentFailures = 64;
inline constexpr size_t kRecentAnomalies = 256;
// How many failed (or cancelled) instances a shadow map remembers until
// Realm destroys them (their release is then quiet, not an anomaly); past
// this many the older half is forgotten, and a destroy of one of those is
// an unknown-instance release.
inline constexpr size_t kFailedMemory = size_t{1} << 14;

}  // namespace realm_shadow

#endif  // REALM_SHADOW_CORE_SNAPSHOT_H_
