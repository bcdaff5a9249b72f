// realm_shadow/live/snapshots.h - the only way to get a Snapshot of a
// tracked memory.
//
// Layer live.  The live side makes the analysis layer's shadow map the
// consumer of every journal: at load time it installs it
// (analysis/shadow_map.h) as the recorder's JournalConsumer, so that drains,
// the drainer thread and a writer that finds its journal full all apply
// records to it.  The recorder never names the shadow map, and the analysis
// layer never names the recorder: the same map serves the log rebuild.
//
// Guarantees
//  - TakeSnapshot(memory) returns the state after a prefix of that memory's
//    events: it applies the journal's readable records to the memory's
//    shadow map, then copies the map (32 bytes per live allocation, at
//    memcpy speed), under the memory's consumer mutex.  Writers keep
//    appending meanwhile; they never wait on it unless the journal fills
//    during the copy.
//  - A snapshot stands alone: it carries a copy of every identity it
//    refers to.
//
//  - With REALM_SHADOW_HISTORY on (the default), the consumer also keeps
//    each memory's history as it applies records (history.h); TakeHistory
//    copies it out.
//
// Cost: O(backlog x 100 ns + live x 32 B / 11 GB/s); with the drainer on,
// the backlog is at most what arrived in one drainer period.
#ifndef REALM_SHADOW_LIVE_SNAPSHOTS_H_
#define REALM_SHADOW_LIVE_SNAPSHOTS_H_

#include <cstdint>

#include "realm_shadow/core/history.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"
#include "realm_shadow/recorder/recorder.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(live);

// Consistent picture of one memory; false if the id is not registered.
bool TakeSnapshot(uint64_t memory_id, Snapshot* out);
Snapshot TakeSnapshot(realm_shadow_memory* memory);
// Same, into *out, reusing its vectors' capacity: a process that
// snapshots repeatedly (a periodic dumper) copies into warm memory and
// allocates nothing once the capacity suffices.
void TakeSnapshotInto(realm_shadow_memory* memory, Snapshot* out);

// The memory's history (history.h): the window of its latest events, the
// checkpoints to rebuild any moment in it, the identities they refer to.
// False when the memory keeps none (REALM_SHADOW_HISTORY=0).  Applies the
// backlog first, like a snapshot.  Cost: a copy of the window (32 B per
// event) and of its checkpoints, under the consumer mutex.
bool TakeHistory(realm_shadow_memory* memory, MemoryHistory* out);
// A snapshot and the history at the same moment (the history ends at the
// snapshot's sequence), in one visit: what a dump of the memory writes.
// Either pointer may be null; returns whether a history was taken.
bool TakeSnapshotAndHistory(realm_shadow_memory* memory, Snapshot* snapshot,
                            MemoryHistory* history);
// Bytes the memory's history holds now (0: none); for benchmarks.
size_t HistoryBytes(realm_shadow_memory* memory);
// The shadow map as a journal consumer (what this layer installs), for a
// test that wraps it (recorder.h ReplaceJournalConsumerForTesting): its
// state must stay the shadow map, which TakeSnapshot reads.
const JournalConsumer& ShadowMapConsumer();

}  // namespace realm_shadow

// Keeps the consumer's installation in static links (the analysis target
// passes -u on it to its users).
extern "C" int realm_shadow_live_consumer_anchor;

#endif  // REALM_SHADOW_LIVE_SNAPSHOTS_H_
