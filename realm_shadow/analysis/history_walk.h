// realm_shadow/analysis/history_walk.h - one pass over a memory's history that
// the timeline, the trace and the page's time strip are all computed from.
//
// Layer analysis.  WalkHistory replays the history (history.h, HistoryCursor) from
// a moment of its window to its end, one event at a time, and tells a
// visitor each moment's figures (used, total free, largest hole, as
// Summarize computes them), each allocation's life as it begins and ends
// (a life: one placement of one instance id; a reused id is a new life, its
// generation counted from 1 in this walk), each in-place change and each
// failure.  Nothing is sampled or interpolated: every event is applied.
//
// Cost: the replay's (about 100 ns per event at 100k live) plus, for the
// figures, one B-tree search and three small hole updates per event without
// overlaps (coverage_index.h), and one lookup per life in a table of a bit
// per instance id (16 B per 64 ids: it stays in cache for dense ids).
//
// Also here: how the faces name moments, times and events, so that the
// timeline, `at`, the trace and the page say them alike.
#ifndef REALM_SHADOW_ANALYSIS_HISTORY_WALK_H_
#define REALM_SHADOW_ANALYSIS_HISTORY_WALK_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "realm_shadow/core/history.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"
#include "realm_shadow/analysis/history_cursor.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(analysis);

class HistoryVisitor {
 public:
  virtual ~HistoryVisitor() = default;
  // The walk's first moment, before any event.
  virtual void Start(uint64_t /*sequence*/, const MemoryFigures& /*figures*/) {}
  // A life begins: at `sequence` (the moment it is first in), or at the
  // walk's start when it was live before (at_start).
  virtual void Began(const Allocation& /*a*/, uint64_t /*generation*/,
                     uint64_t /*sequence*/, bool /*at_start*/) {}
  // A life ends at moment `sequence` (the first moment it is no longer
  // in), or at the end of the window (at_end: still live).
  virtual void Ended(const Allocation& /*a*/, uint64_t /*generation*/,
                     uint64_t /*sequence*/, bool /*at_end*/) {}
  virtual void Changed(const Allocation& /*before*/, const Allocation& /*after*/,
                       uint64_t /*generation*/, uint64_t /*sequence*/) {}
  virtual void Failed(const Failure& /*failure*/) {}
  // After event number `sequence` (1-based: the moment it leads to).
  virtual void Moment(uint64_t /*sequence*/, const Event& /*event*/,
                      const MemoryFigures& /*figures*/) {}
};

// Walks from moment `from` to the end of the window; OutOfRange, naming
// the window, when `from` is outside it (nothing is visited then).
absl::Status WalkHistory(const MemoryHistory& history, uint64_t from,
                         HistoryVisitor* visitor);

// "12.345678 s": a time of the history's clock (nanoseconds), in seconds
// with microsecond digits.
std::string FormatHistoryTime(int64_t ns);
// What the times of a history count from, for a heading: "log time:
// seconds since node 0's process start (nodes' clocks are not aligned)".
std::string HistoryClockText(const MemoryHistory& history);
// "event 17 (0.101234 s)", or with the log line: "event 17 (0.101234 s,
// line 40)".  Events are numbered from 1; event k leads to moment k.
std::string EventPlace(const MemoryHistory& history, uint64_t event_number);
// One event as a person reads it: "allocated 0x4000000000000010 [786432,
// 1245184) 448 KiB align 32", "release requested 0x4000000000000003
// (ready)", ...
std::string DescribeEvent(const Event& event);

// A time on the command line: seconds by default, or with a unit s, ms, us,
// ns ("12.5", "350ms", "20us"); exact to the nanosecond, never through a
// float.  InvalidArgument, quoting the text, on anything else.
absl::StatusOr<int64_t> ParseHistoryTime(std::string_view text);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_ANALYSIS_HISTORY_WALK_H_
