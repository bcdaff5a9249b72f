// realm_shadow/analysis/history_recorder.h - the consumer side of
// REALM_SHADOW_HISTORY: the bounded per-memory ring of applied events, in
// segments each opened by a checkpoint of the shadow map.
//
// Layer analysis.  The memory's consumer (snapshots.cc) hands every
// applied batch here instead of straight to its ShadowMap, under the memory's
// consumer mutex, on whichever thread drains (snapshot, DrainAll, drainer,
// or a writer whose journal filled).  history.h states what the times mean,
// the window and the memory bound; this is how they are kept:
//  - per batch: one steady-clock read by the caller and one mark (16 B),
//    skipped when the time equals the last mark's;
//  - per event: the map's Apply and one 32-byte store into the open
//    segment's array (no allocation until the array grows);
//  - per segment of L events (L = max(min(N/4, 65536), 1, live
//    allocations)): SaveCheckpoint, into the checkpoint of a dropped
//    segment when there is one, so that its arrays are reused.
// Not thread-safe: the consumer mutex serializes it.
#ifndef REALM_SHADOW_ANALYSIS_HISTORY_RECORDER_H_
#define REALM_SHADOW_ANALYSIS_HISTORY_RECORDER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "realm_shadow/core/history.h"
#include "realm_shadow/analysis/shadow_map.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(analysis);

class HistoryRecorder {
 public:
  // Keeps at least the last window_events (> 0) events; the base is `map`
  // as it is now.
  HistoryRecorder(size_t window_events, const ShadowMap& map);

  // Applies `events` to *map in order and records them, with time time_ns.
  void Apply(ShadowMap* map, const Event* events, size_t count,
             int64_t time_ns);

  // The window as a MemoryHistory: checkpoints, events and marks (clock
  // kDrainTime).  The memory's description (id, node, kind, name, exact),
  // the origin and the identities are the caller's.
  void Export(MemoryHistory* out) const;

  // Appends, in no order, every identity id the window refers to: those of
  // its checkpoints' allocations, pending requests and failures, and those
  // its events attach (what keeps them in the identity table, and what a
  // dump of the history carries).  Cost: the window's length.
  void AppendReferencedIdentities(std::vector<uint32_t>* out) const;

  // Bytes held: event and mark arrays, and every checkpoint.
  size_t bytes() const;
  uint64_t first_sequence() const;

 private:
  struct Segment {
    HistoryCheckpoint checkpoint;  // the state at its first event
    std::vector<EventRecord> events;
    std::vector<HistoryMark> marks;
    size_t limit = 0;  // events it takes before the next segment opens
  };
  void OpenSegment(const ShadowMap& map);
  void AddMark(uint64_t sequence, int64_t time_ns);

  size_t window_;
  size_t min_segment_;
  std::deque<Segment> segments_;
  std::vector<Segment> spare_;  // dropped segments, arrays kept for reuse
};

}  // namespace realm_shadow

#endif  // REALM_SHADOW_ANALYSIS_HISTORY_RECORDER_H_
