// realm_shadow/recorder/tracker.h - the registry of tracked memories, and
// the only way to get a Snapshot of one.
//
// Guarantees
//  - TakeSnapshot(memory) returns the state after a prefix of that memory's
//    events: it applies the journal's readable records to the memory's
//    shadow map, then copies the map (32 bytes per live allocation, at memcpy
//    speed).  Writers keep appending meanwhile; they never wait on it unless
//    the journal fills during the copy.
//  - Consumers (TakeSnapshot, Drain, the drainer thread, a writer applying a
//    full journal) are serialized per memory by the memory's consumer mutex.
//    That mutex is never taken on the hot path in steady state.
//  - Memories are never unregistered: a handle stays valid for the process.
//
// Cost: TakeSnapshot is O(backlog x 250 ns + live x 32 B / 11 GB/s); with the
// drainer on, the backlog is at most what arrived in one drainer period.
#ifndef REALM_SHADOW_RECORDER_TRACKER_H_
#define REALM_SHADOW_RECORDER_TRACKER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "realm_shadow/hooks.h"
#include "realm_shadow/recorder/snapshot.h"

namespace realm_shadow {

// The process-wide options, read once from the environment at the first
// registration: REALM_SHADOW=0 disables tracking (hooks get NULL handles);
// REALM_SHADOW_JOURNAL_EVENTS sets each journal's capacity;
// REALM_SHADOW_NODE sets the node id written into dumps.
struct TrackerOptions {
  bool tracking = true;
  size_t journal_events = 16384;
  uint32_t node = 0;
};
const TrackerOptions& Options();

// C++ spelling of realm_shadow_register_memory; always available, whatever
// REALM_SHADOW_ENABLED says (tools and tests register memories directly).
// journal_events 0 takes Options().journal_events.
realm_shadow_memory* RegisterMemory(uint64_t memory_id, MemoryKind kind,
                                    uint64_t capacity, const std::string& name,
                                    unsigned flags, size_t journal_events = 0);
realm_shadow_memory* FindMemory(uint64_t memory_id);
std::vector<uint64_t> RegisteredMemoryIds();  // ascending

uint64_t MemoryId(const realm_shadow_memory* memory);

// Consistent picture of one memory; false if the id is not registered.
bool TakeSnapshot(uint64_t memory_id, Snapshot* out);
Snapshot TakeSnapshot(realm_shadow_memory* memory);
// Same, into *out, reusing its vectors' capacity: a process that
// snapshots repeatedly (a periodic dumper) copies into warm memory and
// allocates nothing once the capacity suffices.
void TakeSnapshotInto(realm_shadow_memory* memory, Snapshot* out);

// Applies every memory's backlog now.
void DrainAll();

// A background thread that applies every journal each period_us
// microseconds, so writers never find a journal full in steady state.
// Idempotent; StopDrainer joins it.
void StartDrainer(unsigned period_us = 1000);
void StopDrainer();

// Called on the writer's thread, right after a failure event (instant or
// eventual) is appended, with the memory and the failed instance.  Off the
// hot path: failures are rare and Realm is about to report them.  One
// observer per process (layer 4 installs the dump-on-failure one).
using FailureObserver = void (*)(realm_shadow_memory* memory,
                                 uint64_t instance);
void SetFailureObserver(FailureObserver observer);

// Identity interning (legion_glue).  Thread-safe, off the hot path; equal
// identities get equal ids; ids start at 1 and stay valid for the process.
uint32_t InternIdentity(const Identity& identity);
bool LookupIdentity(uint32_t id, Identity* out);

// Forgets every memory and identity.  Tests only: no hook may be running.
void ResetTrackerForTesting();

}  // namespace realm_shadow

#endif  // REALM_SHADOW_RECORDER_TRACKER_H_
