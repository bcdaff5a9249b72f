// realm_shadow/recorder/recorder.h - the registry of tracked memories, the
// drainer, and the seam the analysis layer plugs into.
//
// Layer recorder.  The hooks (hooks.h) append to a memory's journal and return;
// everything here is off the allocation path, except the rare path of a
// full journal, where the writer applies the backlog itself.
//
// Guarantees
//  - A handle (realm_shadow_memory*) stays valid for the process: memories
//    are never unregistered.  Registration takes the registry's mutex and
//    allocates the journal (REALM_SHADOW_JOURNAL_EVENTS records, 32 B each).
//  - Consumers of one memory's journal (a snapshot, DrainAll, the drainer
//    thread, a writer that found the journal full) are serialized by the
//    memory's consumer mutex, which the hot path never takes in steady
//    state.  They apply records in journal order to the memory's consumer
//    state: the shadow map, when the analysis layer is linked (it installs
//    its JournalConsumer at load time); without one, records are consumed
//    and counted, so that writers never wait on a journal nobody reads.
//  - The drainer thread, once started, applies every journal each period,
//    so that a writer finds its journal full only when events arrive faster
//    than about one journal per period (16384 events per millisecond with
//    the defaults).
#ifndef REALM_SHADOW_RECORDER_RECORDER_H_
#define REALM_SHADOW_RECORDER_RECORDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "realm_shadow/hooks.h"
#include "realm_shadow/layers.h"
#include "realm_shadow/core/event.h"
#include "realm_shadow/core/identity.h"
#include "realm_shadow/core/memory_kind.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(recorder);

// The process-wide options, read once from the environment at the first
// registration: REALM_SHADOW=0 disables tracking (hooks get NULL handles);
// REALM_SHADOW_JOURNAL_EVENTS sets each journal's capacity;
// REALM_SHADOW_HISTORY sets how many of each memory's latest events the
// consumer keeps as its history (realm_shadow/core/history.h; 0 = none);
// REALM_SHADOW_NODE sets the node id written into dumps.
struct TrackerOptions {
  bool tracking = true;
  size_t journal_events = 16384;
  // 65536 events: at most 2.5 MiB of events per memory plus its
  // checkpoints (history.h gives the bound); read by the consumer only.
  size_t history_events = 65536;
  uint32_t node = 0;
};
const TrackerOptions& Options();

// C++ spelling of realm_shadow_register_memory; always available, whatever
// REALM_SHADOW_ENABLED says (tools and tests register memories directly).
// journal_events 0 takes Options().journal_events; history_events
// kHistoryFromOptions takes Options().history_events (0 keeps no history).
inline constexpr size_t kHistoryFromOptions = SIZE_MAX;
realm_shadow_memory* RegisterMemory(uint64_t memory_id, MemoryKind kind,
                                    uint64_t capacity, const std::string& name,
                                    unsigned flags, size_t journal_events = 0,
                                    size_t history_events = kHistoryFromOptions);
realm_shadow_memory* FindMemory(uint64_t memory_id);
std::vector<uint64_t> RegisteredMemoryIds();  // ascending
uint64_t MemoryId(const realm_shadow_memory* memory);

// What a memory was registered as, and what its journal went through.
struct MemoryDescription {
  uint64_t id = 0;
  MemoryKind kind = MemoryKind::kOther;
  uint64_t capacity = 0;
  std::string name;
  unsigned flags = 0;          // REALM_SHADOW_SERIALIZED, ...
  // False when some of its events were not recorded: tracking was switched
  // off (realm_shadow_set_enabled) since, or when, it was registered.
  bool exact = true;
  uint64_t journal_overflows = 0;  // times a writer found the journal full
  uint64_t journal_appended = 0;   // records appended (claimed) so far
  uint64_t journal_consumed = 0;   // records applied to the consumer so far
  size_t history_events = 0;       // the consumer's history window (0: none)
};
MemoryDescription DescribeMemory(const realm_shadow_memory* memory);

// ---- the consumer seam (the analysis layer installs the shadow map) -----

// What consumes a memory's records: Create makes the per-memory state
// (called once, under the consumer mutex, at the first drain); Apply gets
// records in journal order, in batches, the records of a group always in one
// drain; Destroy ends it (tests only: memories live for the process);
// Identities, when given, appends every identity id the state refers to
// (what keeps an identity in the table, identity.h), under the consumer
// mutex.
struct JournalConsumer {
  void* (*create)(const MemoryDescription& memory);
  void (*apply)(void* state, const Event* events, size_t count);
  void (*destroy)(void* state);
  void (*identities)(const void* state, std::vector<uint32_t>* out) = nullptr;
};
// Installs the consumer for every memory, before any drain; once per
// process (a second call is ignored).
void InstallJournalConsumer(const JournalConsumer* consumer);
// Replaces it (tests and the soak, which wrap the shadow map to see the
// records in journal order): only between ResetTrackerForTesting and the
// next registration.
void ReplaceJournalConsumerForTesting(const JournalConsumer* consumer);

// Under the memory's consumer mutex: applies the backlog, then calls
// visit(context, state) with the consumer's state (null when no consumer is
// installed).  What a snapshot is made of.
void VisitConsumerState(realm_shadow_memory* memory,
                        void (*visit)(void* context, void* state),
                        void* context);

// Applies every memory's backlog now.
void DrainAll();

// A background thread that applies every journal each period_us
// microseconds.  Idempotent; StopDrainer joins it.
void StartDrainer(unsigned period_us = 1000);
void StopDrainer();

// Called on the writer's thread, right after a failure event (instant or
// eventual) is appended, with the memory and the failed instance.  Off the
// hot path: failures are rare and Realm is about to report them.  One
// observer per process (the dump layer installs the dump-on-failure one).
using FailureObserver = void (*)(realm_shadow_memory* memory,
                                 uint64_t instance);
void SetFailureObserver(FailureObserver observer);

// Forgets every memory and identity.  Tests only: no hook may be running.
void ResetTrackerForTesting();

}  // namespace realm_shadow

#endif  // REALM_SHADOW_RECORDER_RECORDER_H_
