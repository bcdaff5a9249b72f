// realm_shadow/render/timeline.h - what the history of a memory says, in
// text (`realm-shadow timeline`), and a dump of any moment of it
// (`realm-shadow at`).
//
// Layer render.  Both read MemoryHistory (history.h) through one replay of every
// event (history_walk.h): the figures are exact at every moment, never
// sampled.  Moments are named as the command line takes them: event k
// (numbered from 1) leads to moment k, the state after the first k events
// of the memory; `at --event k` gives that state.  Times are the history's
// own clock (the tracker's drain time, or each node's log time; history.h)
// and are printed with it.
#ifndef REALM_SHADOW_RENDER_TIMELINE_H_
#define REALM_SHADOW_RENDER_TIMELINE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(render);

struct TimelineOptions {
  size_t top = 5;    // hole drops and longest lives listed
  size_t lead = 10;  // events shown before each failure
  size_t failures_shown = 10;  // the most recent ones
};

// Per memory: the window and its clock; peak used and when; the largest
// hole at the start, the end and its smallest; the moments where the
// largest hole shrank the most and by what event; the allocations alive
// the longest (with identity); each failure in the window with the figures
// at that moment and the events that led to it.
std::string FormatTimeline(const Snapshot& memory, const MemoryHistory& history,
                           const TimelineOptions& options);

// Which moment `at` rebuilds: after `event` events, or the latest moment
// whose events are all at or before `time_ns` (MomentAtTime).
struct MomentChoice {
  std::optional<uint64_t> event;
  std::optional<int64_t> time_ns;
  bool with_history = false;  // keep the history up to the moment
};

// The dump of `in` at that moment: every memory with a history (or only
// `memory_id`), each at its state then (StateAt); with_history keeps each
// history up to the moment (a copy of it), so that the result has a
// timeline and a time strip too.  `file` names `in` in the notes and
// errors.  FailedPrecondition or NotFound when a memory has no history,
// OutOfRange when the moment is outside a window (the message names it) or
// before its first event, InvalidArgument when an event number is given
// for several memories.
absl::StatusOr<DumpFile> DumpAtMoment(const DumpFile& in, const std::string& file,
                                      std::optional<uint64_t> memory_id,
                                      const MomentChoice& moment);

// The same from the file: the dump read for that moment (DumpMoments, so
// one checkpoint and the events after it, not the whole history; its
// checksum is not verified, every byte used is checked), or read whole with
// with_history or when the moment is outside a window.  What `realm-shadow
// at` runs.  The errors of DumpAtMoment and of the read.
absl::StatusOr<DumpFile> ReadDumpAtMoment(const std::string& file,
                                          std::optional<uint64_t> memory_id,
                                          const MomentChoice& moment);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_RENDER_TIMELINE_H_
