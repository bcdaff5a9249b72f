// realm_shadow/core/history.h - how a memory got into its state: the
// events of a window of its run in order, when each was applied or logged,
// from which the exact state at any moment inside the window follows
// (analysis/history_cursor.h).
//
// Layer core.  A MemoryHistory is a value, like a Snapshot: it owns copies of
// everything in it and nothing live refers to it.  The tracker's consumer
// records one per memory (TakeHistory in live/snapshots.h), ingest-realm-log
// builds one per memory from a log, dumps carry them (the optional hist
// section, docs/dump-format.md), and the timeline, `at`, the trace and the
// page's time strip read them.
//
// Moments
//  A moment is a sequence number s: the state after the first s events of
//  the memory (Snapshot::sequence).  The window is [first_sequence(),
//  end_sequence()]: every moment in it is exact.  StateAt
//  (analysis/history_cursor.h) restores the last
//  checkpoint at or before s and applies the events from there to s with the
//  same ShadowMap the live consumer uses, so the state at s is what
//  TakeSnapshot showed after s events (tests/analysis/history_cursor_test.cc checks
//  every k-th moment against the reference model).  A moment outside the
//  window is refused with an error that names the window; nothing is
//  guessed.
//
// Time: two clocks, never mixed
//  - kDrainTime, the tracker.  The hot path takes no timestamp (it stays one
//    32-byte journal append).  The consumer reads the steady clock once per
//    batch it applies (HistoryMark): every event of the batch gets that
//    time, the moment it reached the shadow map, which is at most D after
//    the allocator's call.  D is the time an event waits in the journal.
//    With the drainer running (StartDrainer(period)) every journal is
//    applied each period, so D <= period + one drain pass over the
//    memories (a pass applies at most one journal per memory: 16384 events
//    x about 100 ns = 1.6 ms), about 3 ms with the default 1 ms period; a
//    journal that fills is applied by the writer at once, so a burst does
//    not wait longer.  Without the drainer D is the time to the next
//    snapshot, DrainAll or full journal, unbounded for a quiet memory.
//    Within a batch the order is the journal's (exact); the times only
//    order batches.  Times are nanoseconds since the process's history
//    origin (HistoryClockOrigin: the first history made in the process,
//    about when the first memory registered); clock_origin_unix_ns is the
//    wall-clock time of that origin.
//  - kLogTime, ingest-realm-log: the time printed on the log line, seconds
//    since that rank's process start (microseconds on the line), in ns.
//    Each node's log counts from its own start: times of two nodes are not
//    comparable, and nothing here pretends to align them.  Log lines of two
//    threads may be a few microseconds out of order; the events keep the
//    log's order and a time selects the longest prefix whose times are all
//    <= it (MomentAtTime).
//
// Cost and memory (tracker, REALM_SHADOW_HISTORY=N, default 65536, 0 = off)
//  The consumer keeps the events in segments of L = max(min(N/4, 65536), 1,
//  live allocations at the segment's start) events, each opened by a
//  checkpoint of the map, and drops the oldest segment as soon as the
//  others hold N events: the window always holds the last N events (all of
//  them before N have happened) and at most N + L.  Bytes per memory: 32 per
//  event kept, 16 per applied batch (one mark; a batch is up to 256
//  events), and one checkpoint per segment: 32 per live allocation, 48 per
//  pending request, 8 per released id the map remembers (at most
//  max(16384, live)), plus the short recent failure and anomaly lists.  With
//  the default and up to 16384 live allocations: at most 81920 events, 2.5
//  MiB, and six checkpoints.  Because L grows with the live allocations, a
//  checkpoint is never larger than about the events of its segment, and its
//  copy (the live runs, plus a walk of the map's instance table for the
//  released ids, left unsorted) costs a few ns per event applied, amortized
//  (docs/benchmarks.md: BM_DrainWithHistory against BM_Drain).  StateAt
//  replays at most L events after a restore.
#ifndef REALM_SHADOW_CORE_HISTORY_H_
#define REALM_SHADOW_CORE_HISTORY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"
#include "realm_shadow/core/event.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(core);

// Values are part of the dump format: append only.
enum class HistoryClock : uint8_t {
  kDrainTime = 1,  // the tracker's consumer: when a batch was applied
  kLogTime = 2,    // the log line's own time, per node
};
const char* HistoryClockName(HistoryClock clock);

// The events from `sequence` up to the next mark's sequence have time
// time_ns (see "Time" above).
struct HistoryMark {
  uint64_t sequence = 0;
  int64_t time_ns = 0;
};

// The exact state of the shadow map after `state.sequence` events: the
// picture plus what the map keeps beyond it to apply the next events the
// same way (the rows of snapshot.h that look at released, failed and early-
// released ids, and a heap group applied halfway).  Restoring it and
// applying events gives what the live map gave; users read `state`.
struct HistoryCheckpoint {
  // The picture; its identities are empty (MemoryHistory::identities holds
  // them for the whole window).
  Snapshot state;
  bool heap_observed = false;
  // Ids released and not reused: in no particular order as the consumer
  // takes them (a sort per checkpoint cost the drain ~20 ns an event at 1k
  // live); ascending in a dump file (the writer sorts).
  std::vector<uint64_t> released;
  std::vector<uint64_t> failed;    // failed or cancelled, not yet destroyed,
                                   //   in the order they failed
  // Heap-observed memories: releases requested before the instance was in
  // a heap: (instance, 1 if ready), ascending.
  std::vector<std::pair<uint64_t, uint8_t>> early_releases;
  // The map's own flags of each state.pending[i] (the picture keeps only the
  // pinned bit): identity kind and the heap-observed release and plan bits.
  std::vector<uint8_t> pending_flags;
  // A group whose header was applied and whose records are still due.
  EventType group_type = EventType::kNoop;
  uint32_t group_left = 0;
  std::vector<Event> group_records;  // a heap_replaced group's, so far
};

// One memory's history.  Invariants (CheckHistory):
//  - checkpoints is not empty; checkpoints[0] is the base, the state at
//    first_sequence(); their sequences ascend and lie in the window;
//  - events[i] is event number first_sequence() + i (the one that takes
//    moment first_sequence() + i to the next);
//  - marks ascend by sequence, marks[0].sequence == first_sequence() when
//    there are events, and every mark's sequence lies in [first, end);
//  - lines is empty or one per mark (kLogTime: the log line number, from 1,
//    of the mark's event).
struct MemoryHistory {
  uint64_t memory_id = 0;
  uint32_t node = 0;
  HistoryClock clock = HistoryClock::kDrainTime;
  uint64_t clock_origin_unix_ns = 0;  // wall-clock time of time 0 (0: unknown)
  uint64_t window_events = 0;         // N asked for (0: no bound, a log)
  std::vector<HistoryCheckpoint> checkpoints;
  std::vector<EventRecord> events;    // stamp = the type, nothing else
  std::vector<HistoryMark> marks;
  std::vector<uint64_t> lines;
  std::vector<Identity> identities;   // every identity referred to, by id

  uint64_t first_sequence() const {
    return checkpoints.empty() ? 0 : checkpoints[0].state.sequence;
  }
  uint64_t end_sequence() const { return first_sequence() + events.size(); }
  bool Contains(uint64_t sequence) const {
    return !checkpoints.empty() && sequence >= first_sequence() &&
           sequence <= end_sequence();
  }
  // Event number `sequence` (first <= sequence < end).
  Event EventAt(uint64_t sequence) const {
    return DecodeEvent(events[sequence - first_sequence()]);
  }
  // The time of event number `sequence` (first <= sequence < end); of a
  // moment, the time of the event that led to it (moment s: event s - 1),
  // the base's: the first event's.  0 when there are no marks.
  int64_t TimeOfEvent(uint64_t sequence) const;
  int64_t TimeOfMoment(uint64_t sequence) const;
  // The log line of event number `sequence`, 0 when unknown.
  uint64_t LineOfEvent(uint64_t sequence) const;
};

// The record the history stores for an event.
inline EventRecord HistoryRecordOf(const Event& e) {
  return EventRecord{e.instance, e.offset, e.size, e.aux,
                     static_cast<uint32_t>(e.type)};
}

// "the history of memory 0x1e...: it holds moments 10 to 90 (the 10 events
// before were dropped ...)": what an error about a moment names.
std::string DescribeWindow(const MemoryHistory& history);

// Whether the invariants above hold: OK, or InvalidArgument with one line
// naming the memory and the broken invariant.  The dump reader calls it on
// every history it reads.
absl::Status CheckHistory(const MemoryHistory& history);

// The latest moment whose events (from the window's start) all have a time
// <= time_ns: the state "at" that time.  False when time_ns is before the
// window's first event (OutOfRange: the base is then the state at an
// earlier, unknown time; the message says so).
absl::StatusOr<uint64_t> MomentAtTime(const MemoryHistory& history, int64_t time_ns);
// The same from a history's marks and end alone (what a dump read in part
// keeps of a history without its events: DumpMoments in dump.h).
absl::StatusOr<uint64_t> MomentAtTime(uint64_t memory_id,
                                      const std::vector<HistoryMark>& marks,
                                      uint64_t end_sequence, int64_t time_ns);

// The wall-clock origin shared by every tracker history of this process
// (nanoseconds since the Unix epoch), and the steady-clock time since it:
// what kDrainTime marks hold.
uint64_t HistoryClockOrigin();
int64_t HistoryClockNow();

}  // namespace realm_shadow

#endif  // REALM_SHADOW_CORE_HISTORY_H_
