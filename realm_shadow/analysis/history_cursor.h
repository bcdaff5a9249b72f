// realm_shadow/analysis/history_cursor.h - the exact state at any moment of
// a memory's history, and a cursor that walks its moments forward.
//
// Layer analysis.  A history (core/history.h) is a value: a window of a
// memory's events with checkpoints.  The cursor restores the last
// checkpoint at or before a moment and applies the events from there with
// the same ShadowMap the live consumer uses (shadow_map.h), so the state at
// moment s is what TakeSnapshot showed after s events
// (tests/analysis/history_cursor_test.cc checks every k-th moment against
// the reference model).  A moment outside the window is refused with an
// error that names the window; nothing is guessed.  A history rebuilt from
// Realm's log (clock kLogTime) marks at every moment what the log cannot
// tell, as the rebuilt dump does: redistricted pieces' sizes are upper
// bounds, waiting pieces' sizes unknown (the identities it holds for that).
#ifndef REALM_SHADOW_ANALYSIS_HISTORY_CURSOR_H_
#define REALM_SHADOW_ANALYSIS_HISTORY_CURSOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "realm_shadow/core/history.h"
#include "realm_shadow/analysis/shadow_map.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(analysis);

// The exact state at moment `sequence`, with the memory's description (id,
// kind, name, node, exact) from the base and the identities it refers to.
// OutOfRange, naming the window, when the moment is outside it.
absl::StatusOr<Snapshot> StateAt(const MemoryHistory& history, uint64_t sequence);

// The figures of Summarize (analysis.h) for the replay's current state,
// kept as each event is applied instead of walking the allocations:
// used is the union of the live ranges, holes are clipped to the capacity
// (to the highest end when it is unknown), addressed memories have none.
struct MemoryFigures {
  uint64_t used = 0;
  uint64_t total_free = 0;
  uint64_t largest_hole = 0;
  uint64_t hole_count = 0;
  uint64_t allocation_count = 0;
  double fragmentation = 0;  // 1 - largest_hole / total_free
};

// Walks the moments of a history forward, one event at a time, from any
// moment in its window: what the timeline, the trace and the page are
// computed from.  Cost per event: the shadow map's (about 100 ns at 100k
// live), plus with figures on about three B-tree steps.
class HistoryCursor {
 public:
  explicit HistoryCursor(const MemoryHistory& history);
  ~HistoryCursor();
  HistoryCursor(const HistoryCursor&) = delete;
  HistoryCursor& operator=(const HistoryCursor&) = delete;

  // Keep the figures current (before Start).  Off: Step is the map's cost.
  void set_figures(bool on);
  // Receives every change to the live allocations from Start on (the
  // allocations live at the start are Placed by Start, in offset order).
  void set_observer(AllocationObserver* observer);

  // Restores the state at `sequence`; OutOfRange outside the window.
  absl::Status Start(uint64_t sequence);
  // Applies the next event; false at the end of the window.
  bool Step();

  uint64_t sequence() const;
  // The event Step applied last (valid after a true Step).
  const Event& last_event() const;
  MemoryFigures figures() const;  // with set_figures(true)
  size_t live_count() const;
  // The state now, as StateAt gives it.
  void CopyTo(Snapshot* out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace realm_shadow

#endif  // REALM_SHADOW_ANALYSIS_HISTORY_CURSOR_H_
