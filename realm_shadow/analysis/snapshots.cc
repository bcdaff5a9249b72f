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
void ShadowMapIdentities(const void* state, std::vector<uint32_t>* out) {
  static_cast<const ShadowMap*>(state)->AppendReferencedIdentities(out);
}

constexpr JournalConsumer kShadowMapConsumer = {
    &CreateShadowMap, &ApplyToShadowMap, &DestroyShadowMap, &ShadowMapIdentities};

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

void TakeSnapshotInto(realm_shadow_memory* memory, Snapshot* out) {
  if (memory == nullptr) {
    *out = Snapshot();
    return;
  }
  Snapshot& s = *out;
  s.identities.clear();
  VisitConsumerState(
      memory,
      [](void* context, void* state) {
        Snapshot& s = *static_cast<Snapshot*>(context);
        const ShadowMap* map = static_cast<const ShadowMap*>(state);
        if (map == nullptr) return;  // nothing recorded yet
        map->CopyTo(&s);
        // Every identity the picture refers to is copied, so that it stands
        // alone.  The live allocations' ones come from the map's use counts
        // (a walk of 100k allocations here cost a fifth of the copy).  The
        // copies are made here, under the consumer mutex, so that the
        // identity table's collection (identity.h), which reads the map
        // under the same mutex, cannot forget one in between.
        std::vector<uint32_t> ids;
        map->AppendReferencedIdentities(&ids);
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        for (uint32_t id : ids) {
          Identity identity;
          if (LookupIdentity(id, &identity)) s.identities.push_back(std::move(identity));
        }
      },
      &s);
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
