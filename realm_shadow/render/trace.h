// realm_shadow/render/trace.h - the histories of dumps as a Chrome /
// Perfetto trace-event JSON file (`realm-shadow trace`), which opens in
// ui.perfetto.dev and chrome://tracing with no server.
//
// Layer render.  What the file holds (the trace-event format's JSON object form,
// {"traceEvents": [...]}, every ts in microseconds of the history's clock):
//  - one process per node (pid = node + 1, named "node N" by a process_name
//    metadata event, with the clock it counts on), one thread per memory
//    (named by thread_name: the memory's name and id);
//  - per memory four counter tracks ("C" events) named "<memory> used",
//    "<memory> total free", "<memory> largest hole" (args {"bytes"}) and
//    "<memory> fragmentation" (args {"ratio"}), one sample at the last
//    event of each distinct time, written when a figure changed: exact at
//    every time the clock can tell apart;
//  - each allocation's life as an async slice ("b" at its placement, "e"
//    at its release; cat "allocation", the memory's label as name, so each
//    memory's lives form one track group), keyed by id "<memory>/<instance>
//    /<life>" so that a reused instance id stays apart (the instance and
//    life are in it, not repeated as args); args give offset, size,
//    alignment, kind and identity attributes; a change
//    in place (release requested, identity attached) is an "n" event of the
//    same id; a life live before the window begins at the window's first
//    time, one live at the end ends at its last, and say so;
//  - each failure an instant event ("i", thread scope, cat "failure") with
//    the request and the figures after it.
// Times of different nodes are each node's own clock: they are not aligned
// and the process names say so.
//
// Cost: one replay of every event (history_walk.h), and the text streamed to
// the file through a 1 MiB buffer (the one JSON writer,
// dump/internal/json_writer.h, cleared between events); about 360 bytes per
// allocation life (a "b" and an "e": 363 MB for 10^6 lives of one memory).
// The parts of an event that are the same for a memory (phase, category,
// name, process, thread, the id's memory part) are rendered once; times and
// ids with std::to_chars, and each flat field is one append (json_writer.h).
#ifndef REALM_SHADOW_RENDER_TRACE_H_
#define REALM_SHADOW_RENDER_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(render);

struct TraceSummary {
  uint64_t memories = 0;       // with a history
  uint64_t lives = 0;          // slices
  uint64_t counter_samples = 0;
  uint64_t failures = 0;
  uint64_t skipped = 0;        // memories without a history
};

// Writes the trace of every memory history in `dumps` (files name them in
// messages) to `path`, atomically (dump/internal/atomic_file.h), and says
// what it holds.  An error when no memory has a history or the file cannot
// be written.
absl::StatusOr<TraceSummary> WriteTrace(const std::vector<DumpFile>& dumps,
                                        const std::vector<std::string>& files,
                                        const std::string& path);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_RENDER_TRACE_H_
