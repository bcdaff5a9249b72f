// realm_shadow/live/internal/tracked_dump.h - the dump of tracked memories,
// assembled one way for DumpMemoryState, DumpAllMemories and dump on
// failure.
//
// Layer live, internal.  A tracker dump holds the snapshot of each memory
// (live/snapshots.h) with its history when it keeps one, the pools the
// pool source gives for it (dump.h SetPoolSource), and every identity those
// pools name that the snapshot does not carry already, so that the file
// stands alone.  Periodic dumps (periodic.cc) are assembled the same way
// without the histories: up to 1000 of them a run, each would repeat the
// window (2 MiB a memory at the default 65536 events).
#ifndef REALM_SHADOW_LIVE_INTERNAL_TRACKED_DUMP_H_
#define REALM_SHADOW_LIVE_INTERNAL_TRACKED_DUMP_H_

#include "realm_shadow/format/dump.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(live);

// An empty dump of this process: node, the time now, source "tracker".
DumpFile NewTrackerDump();

// Appends the memory's snapshot, its history (taken at the same moment;
// with_history) and its pools to *dump.
void AddTrackedMemory(realm_shadow_memory* memory, DumpFile* dump,
                      bool with_history = true);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_LIVE_INTERNAL_TRACKED_DUMP_H_
