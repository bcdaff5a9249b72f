// whatif/from_dump.h - the replay script of a memory of a dump, from the
// history the dump carries (its hist section, core/history.h), or a
// clear error.
//
// Both sources read the same way: a tracker's dump (REALM_SHADOW_HISTORY,
// the consumer's window of applied events) and ingest-realm-log's (every
// event of the log, clock kLogTime).  A window that starts after the run's
// start replays from its base checkpoint, and the script's notes say so
// (compile.h).  Refused, with the memory named: no history of the memory;
// a history that breaks its invariants (CheckHistory); one that does not
// end at the memory's picture; one whose events cannot be read as one run
// (a hole: an event about a request no earlier event made).
//
// Cost: O(events) (compile.h), plus, when the window opens inside an event
// group, one StateAt to the group's end.
#ifndef WHATIF_FROM_DUMP_H_
#define WHATIF_FROM_DUMP_H_

#include "absl/status/statusor.h"
#include "realm_shadow/format/dump.h"
#include "whatif/replay.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(whatif);
namespace whatif {

// The script, or an error naming the memory and saying what is missing
// and how to get it: NotFound when the dump holds no history of `memory`,
// InvalidArgument when its history cannot be replayed.
absl::StatusOr<ReplayScript> ScriptOfDumpMemory(const DumpFile& dump,
                                                const Snapshot& memory);

}  // namespace whatif
}  // namespace realm_shadow

#endif  // WHATIF_FROM_DUMP_H_
