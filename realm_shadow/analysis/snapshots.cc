// Snapshots of tracked memories, and the shadow map installed as every
// journal's consumer.
#include "realm_shadow/analysis/snapshots.h"

#include <algorithm>
#include <vector>

#include "realm_shadow/analysis/internal/shadow_map.h"

namespace realm_shadow {
namespace {

void* CreateShadowMap(const MemoryDescription& memory) {
  auto* map = new ShadowMap(memory.capacity,
                            (memory.flags & REALM_SHADOW_ADDRESSED) != 0);
  map->set_heap_observed((memory.flags & REALM_SHADOW_HEAP_OBSERVED) != 0);
  return map;
}
void ApplyToShadowMap(void* state, const Event* events, size_t count) {
  ShadowMap* map = static_cast<ShadowMap*>(state);
  for (size_t i = 0; i < count; ++i) map->Apply(events[i]);
}
void DestroyShadowMap(void* state) { delete static_cast<ShadowMap*>(state); }

constexpr JournalConsumer kShadowMapConsumer = {&CreateShadowMap,
                                                &ApplyToShadowMap,
                                                &DestroyShadowMap};

const bool installed = [] {
  InstallJournalConsumer(&kShadowMapConsumer);
  return true;
}();

}  // namespace

Snapshot TakeSnapshot(realm_shadow_memory* memory) {
  Snapshot s;
  TakeSnapshotInto(memory, &s);
  return s;
}

void TakeSnapshotInto(realm_shadow_memory* memory, Snapshot* out) {
  if (memory == nullptr) {
    *out = Snapshot();
    return;
  }
  Snapshot& s = *out;
  s.identities.clear();
  struct Copy {
    Snapshot* snapshot;
    std::vector<uint32_t> ids;
  } copy{&s, {}};
  VisitConsumerState(
      memory,
      [](void* context, void* state) {
        auto* c = static_cast<Copy*>(context);
        const ShadowMap* map = static_cast<const ShadowMap*>(state);
        if (map == nullptr) return;  // nothing recorded yet
        map->CopyTo(c->snapshot);
        map->AppendIdentities(&c->ids);
      },
      &copy);
  const MemoryDescription d = DescribeMemory(memory);
  s.memory_id = d.id;
  s.kind = d.kind;
  s.name = d.name;
  s.node = Options().node;
  s.counters.journal_overflows = d.journal_overflows;
  s.exact = d.exact;
  if (!d.exact) {
    Anomaly paused;
    paused.kind = AnomalyKind::kTrackingPaused;
    paused.sequence = s.sequence;
    s.anomalies.push_back(paused);
    ++s.counters.anomalies[static_cast<size_t>(AnomalyKind::kTrackingPaused)];
  }
  // Copy every identity the picture refers to, so it stands alone.  The
  // live allocations' identities came from the map's use counts above; a
  // walk of 100k allocations here cost a fifth of the copy.
  std::vector<uint32_t>& ids = copy.ids;
  for (const PendingRequest& p : s.pending)
    if (p.identity) ids.push_back(p.identity);
  for (const Failure& f : s.failures)
    if (f.identity) ids.push_back(f.identity);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (uint32_t id : ids) {
    Identity identity;
    if (LookupIdentity(id, &identity)) s.identities.push_back(identity);
  }
}

bool TakeSnapshot(uint64_t memory_id, Snapshot* out) {
  realm_shadow_memory* memory = FindMemory(memory_id);
  if (memory == nullptr) return false;
  TakeSnapshotInto(memory, out);
  return true;
}

}  // namespace realm_shadow

extern "C" {
int realm_shadow_analysis_consumer_anchor = 0;
}
