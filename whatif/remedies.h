// whatif/remedies.h - the remedies of a failure that need the model memory
// (analysis/remedies.h has the others and the structs): the smallest
// capacity that gets past this failure, given as the command-line flag that
// sizes that memory in the flag's own unit and checked by a replay at
// exactly that value; and whether Realm's SizedRangeAllocator design
// (size-classes) or best fit would have avoided it at the run's capacity,
// with their smallest capacities.
//
// Past this failure, not the whole run: the replays run the memory's
// history up to and including the event that recorded this failure and
// stop there (CutAtFailure).  A dump written at a failure has no history
// past it, and what the run would have asked afterwards is not known, so
// the figure is what gets past this failure; the texts say so.  A capacity
// passes when the replay has no failure up to that moment and has placed
// this request by then.
//
// Checked: the search (whatif/replay.h FindMinCapacity) ends at a capacity
// with no failure whose next lower alignment unit fails; that capacity is
// rounded up to the flag's unit and replayed at exactly the rounded value,
// and at one flag unit below.  Placement is not monotone in the capacity,
// so either may surprise: a rounded value that fails is reported and the
// next values up are replayed until one passes (at most 64), and a value
// one unit below that passes is reported too, never hidden.  The figures
// are evidence only where the replay at the run's capacity fails this
// request as the run did (CapacityRemedy::reproduced); else both remedies
// say so and claim nothing.
//
// Cost: one compile-free copy of the script up to the failure, then the
// capacity search (about 20 replays of it, whatif/replay.h), 2 probes and
// a few more when the rounded value fails, and per allocator policy one
// replay at the run's capacity and its own search.  Size-classes replays at
// about a seventh of realm's speed (docs/replay.md).
#ifndef WHATIF_REMEDIES_H_
#define WHATIF_REMEDIES_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "realm_shadow/analysis/remedies.h"
#include "realm_shadow/core/memory_kind.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"
#include "whatif/replay.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(whatif);
namespace whatif {

// The flag that sets the size of a kind of memory, in its own unit:
// Realm's -ll:csize (system), -ll:fsize (framebuffer, per GPU), -ll:zsize
// (zero-copy), -ll:rsize (registered), all in MiB; Legate's --sysmem,
// --fbmem, --zcmem, in MiB (Legate has none for registered memory).
struct CapacityFlag {
  const char* realm = "";
  const char* legate = "";  // "" when Legate has none
  const char* unit = "MiB";
  uint64_t unit_bytes = uint64_t{1} << 20;
};
// nullptr when no command-line flag sizes this kind of memory.
const CapacityFlag* CapacityFlagOf(MemoryKind kind);

// The run up to and including the event that recorded `failure`: its steps
// up to that event, and every outcome the run recorded after it forgotten
// (those requests are still pending there).  *life is the failed request's
// life.  InvalidArgument when the script holds no request that failed at
// that event (a failed piece of unknown size, a failure before the
// history's window).
absl::StatusOr<ReplayScript> CutAtFailure(const ReplayScript& script,
                                          const Failure& failure, uint32_t* life);

// Fills remedies->capacity and remedies->allocator from the memory's
// whole script (ScriptOfDumpMemory) and the failure.
void FindReplayRemedies(const ReplayScript& script, const Failure& failure,
                        FailureRemedies* remedies);

// Both kUnknown, `missing` saying what is missing and how to get it (a dump
// without a history, a history the replay refuses).
void ReplayRemediesUnknown(const std::string& missing, FailureRemedies* remedies);

}  // namespace whatif
}  // namespace realm_shadow

#endif  // WHATIF_REMEDIES_H_
