// Snapshots of tracked memories, and the shadow map installed as every
// journal's consumer.
#include "realm_shadow/live/snapshots.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "realm_shadow/analysis/history_recorder.h"
#include "realm_shadow/analysis/shadow_map.h"
#include "realm_shadow/recorder/identity_table.h"

namespace realm_shadow {
namespace {

// What the analysis layer keeps per memory: its shadow map and, unless
// REALM_SHADOW_HISTORY=0, the history of the events applied to it.
struct ConsumerState {
  explicit ConsumerState(const MemoryDescription& memory)
      : map(memory.capacity, (memory.flags & REALM_SHADOW_ADDRESSED) != 0) {
    map.set_heap_observed((memory.flags & REALM_SHADOW_HEAP_OBSERVED) != 0);
    if (memory.history_events > 0)
      history = std::make_unique<HistoryRecorder>(memory.history_events, map);
  }
  ShadowMap map;
  std::unique_ptr<HistoryRecorder> history;
};

void* CreateShadowMap(const MemoryDescription& memory) {
  return new ConsumerState(memory);
}
void ApplyToShadowMap(void* state, const Event* events, size_t count) {
  ConsumerState* c = static_cast<ConsumerState*>(state);
  if (c->history) {
    // One clock read per batch (history.h: the drain time).
    c->history->Apply(&c->map, events, count, HistoryClockNow());
    return;
  }
  for (size_t i = 0; i < count; ++i) c->map.Apply(events[i]);
}
void DestroyShadowMap(void* state) { delete static_cast<ConsumerState*>(state); }
// Every identity the state refers to: the map's, and the history window's
// (what keeps an identity in the table, recorder.h).
void ConsumerIdentities(const void* state, std::vector<uint32_t>* out) {
  const ConsumerState* c = static_cast<const ConsumerState*>(state);
  c->map.AppendReferencedIdentities(out);
  if (c->history) c->history->AppendReferencedIdentities(out);
}

constexpr JournalConsumer kShadowMapConsumer = {
    &CreateShadowMap, &ApplyToShadowMap, &DestroyShadowMap, &ConsumerIdentities};

const bool installed = [] {
  InstallJournalConsumer(&kShadowMapConsumer);
  return true;
}();

}  // namespace

const JournalConsumer& ShadowMapConsumer() { return kShadowMapConsumer; }

Snapshot TakeSnapshot(realm_shadow_memory* memory) {
  Snapshot s;
  TakeSnapshotInto(memory, &s);
  return s;
}

namespace {

// Appends the identities that `ids` name (sorted, unique) to *out, from
// the process's table.
void LookupIdentities(std::vector<uint32_t>* ids, std::vector<Identity>* out) {
  std::sort(ids->begin(), ids->end());
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  for (uint32_t id : *ids) {
    Identity identity;
    if (LookupIdentity(id, &identity)) out->push_back(std::move(identity));
  }
}

// The memory's description on a picture of it.
void Describe(const MemoryDescription& d, Snapshot* s) {
  s->memory_id = d.id;
  s->kind = d.kind;
  s->name = d.name;
  s->node = Options().node;
  s->exact = d.exact;
}

// What one visit of the consumer state copies, under the consumer mutex.
struct Capture {
  Snapshot* snapshot = nullptr;     // may be null
  MemoryHistory* history = nullptr; // may be null
  bool history_kept = false;
};

void CaptureState(realm_shadow_memory* memory, Capture* capture) {
  VisitConsumerState(
      memory,
      [](void* context, void* state) {
        auto* c = static_cast<Capture*>(context);
        const ConsumerState* consumer = static_cast<const ConsumerState*>(state);
        if (consumer == nullptr) return;  // no consumer installed
        // The identities are copied here, under the consumer mutex, so that
        // the identity table's collection (identity.h), which reads the
        // state under the same mutex, cannot forget one in between.
        if (c->snapshot != nullptr) {
          consumer->map.CopyTo(c->snapshot);
          std::vector<uint32_t> ids;
          consumer->map.AppendReferencedIdentities(&ids);
          LookupIdentities(&ids, &c->snapshot->identities);
        }
        if (c->history != nullptr && consumer->history) {
          consumer->history->Export(c->history);
          std::vector<uint32_t> ids;
          consumer->history->AppendReferencedIdentities(&ids);
          c->history->identities.clear();
          LookupIdentities(&ids, &c->history->identities);
          c->history_kept = true;
        }
      },
      capture);
}

// Fills what a history needs beyond the recorder's window and its
// identities: the memory's description on every checkpoint and the clock
// origin.
void CompleteHistory(const MemoryDescription& d, MemoryHistory* h) {
  h->memory_id = d.id;
  h->node = Options().node;
  h->clock_origin_unix_ns = HistoryClockOrigin();
  for (HistoryCheckpoint& c : h->checkpoints) {
    Describe(d, &c.state);
    c.state.counters.journal_overflows = d.journal_overflows;
  }
}

}  // namespace

void TakeSnapshotInto(realm_shadow_memory* memory, Snapshot* out) {
  if (memory == nullptr) {
    *out = Snapshot();
    return;
  }
  TakeSnapshotAndHistory(memory, out, nullptr);
}

bool TakeSnapshotAndHistory(realm_shadow_memory* memory, Snapshot* snapshot,
                            MemoryHistory* history) {
  if (memory == nullptr) return false;
  Capture capture;
  capture.snapshot = snapshot;
  capture.history = history;
  if (snapshot != nullptr) snapshot->identities.clear();
  CaptureState(memory, &capture);
  const MemoryDescription d = DescribeMemory(memory);
  if (snapshot != nullptr) {
    Snapshot& s = *snapshot;
    Describe(d, &s);
    s.counters.journal_overflows = d.journal_overflows;
    if (!d.exact) MarkNotExact(&s);
  }
  if (capture.history_kept) CompleteHistory(d, history);
  return capture.history_kept;
}

bool TakeHistory(realm_shadow_memory* memory, MemoryHistory* out) {
  return TakeSnapshotAndHistory(memory, nullptr, out);
}

size_t HistoryBytes(realm_shadow_memory* memory) {
  size_t bytes = 0;
  VisitConsumerState(
      memory,
      [](void* context, void* state) {
        const ConsumerState* c = static_cast<const ConsumerState*>(state);
        if (c != nullptr && c->history)
          *static_cast<size_t*>(context) = c->history->bytes();
      },
      &bytes);
  return bytes;
}

bool TakeSnapshot(uint64_t memory_id, Snapshot* out) {
  realm_shadow_memory* memory = FindMemory(memory_id);
  if (memory == nullptr) return false;
  TakeSnapshotInto(memory, out);
  return true;
}

}  // namespace realm_shadow

extern "C" {
int realm_shadow_live_consumer_anchor = 0;
}
