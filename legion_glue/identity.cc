// legion_glue/identity.cc - building, interning and attaching identities.
#include "legion_glue/identity.h"

#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/recorder/recorder.h"
#include "realm_shadow/recorder/identity_table.h"

namespace realm_shadow {
namespace legion {
namespace {

void AddIfSet(Identity* identity, const char* key, const std::string& value) {
  if (!value.empty()) identity->attributes.emplace_back(key, value);
}

void AddLegionFacts(Identity* identity,
                    const LegionInstanceDescription& legion) {
  AddIfSet(identity, kRegionsAttribute, legion.regions);
  AddIfSet(identity, kFieldsAttribute, legion.fields);
  AddIfSet(identity, kCreatorAttribute, legion.creator);
  AddIfSet(identity, kProvenanceAttribute, legion.provenance);
}

void AddExtra(Identity* identity, const LegionInstanceDescription& legion) {
  for (const auto& kv : legion.extra) AddIfSet(identity, kv.first.c_str(),
                                               kv.second);
}

// The last identity attached to each (memory, instance).  Instance ids are
// reused, the most recently freed first, so the table stays about as large
// as the most instances ever live at once; a reused id's entry is simply
// overwritten by the next creation's attach.
struct AttachedTable {
  std::mutex mutex;
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, uint32_t> identity;
};

AttachedTable& Attached() {
  static AttachedTable* table = new AttachedTable;  // never destroyed
  return *table;
}

void RememberIdentity(uint64_t memory_id, uint64_t instance,
                      uint32_t identity) {
  AttachedTable& table = Attached();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.identity[{memory_id, instance}] = identity;
}

}  // namespace

const char* GcStateName(GcState state) {
  switch (state) {
    case GcState::kValid: return "valid";
    case GcState::kCollectable: return "collectable";
    case GcState::kUnknown: break;
  }
  return "unknown";
}

Identity MakeIdentity(const LegionInstanceDescription& description) {
  Identity identity;
  identity.kind = description.kind;
  AddLegionFacts(&identity, description);
  AddExtra(&identity, description);
  return identity;
}

Identity MakeIdentity(const LegateStoreDescription& store, AllocationKind kind,
                      const LegionInstanceDescription* legion) {
  Identity identity;
  identity.kind = kind;
  if (legion) {
    // The store's provenance (the user's line) wins over Legion's: leave
    // Legion's out when the store has one, so there is one provenance.
    LegionInstanceDescription facts = *legion;
    if (!store.provenance.empty()) facts.provenance.clear();
    AddLegionFacts(&identity, facts);
  }
  AddIfSet(&identity, kStoreAttribute, store.store);
  AddIfSet(&identity, kShapeAttribute, store.shape);
  AddIfSet(&identity, kTypeAttribute, store.type);
  AddIfSet(&identity, kTransformAttribute, store.transform);
  AddIfSet(&identity, kPartitionAttribute, store.partition);
  AddIfSet(&identity, kProvenanceAttribute, store.provenance);
  if (legion) AddExtra(&identity, *legion);
  return identity;
}

uint32_t InternLegionIdentity(const LegionInstanceDescription& description) {
  return InternIdentity(MakeIdentity(description));
}

uint32_t InternLegateStore(const LegateStoreDescription& store,
                           AllocationKind kind,
                           const LegionInstanceDescription* legion) {
  return InternIdentity(MakeIdentity(store, kind, legion));
}

void AttachIdentity(realm_shadow_memory* memory, uint64_t instance,
                    uint32_t identity, GcState gc) {
  if (memory == nullptr) return;
  RememberIdentity(MemoryId(memory), instance, identity);
  realm_shadow_attach_identity(memory, instance, identity,
                               IsPinned(gc) ? 1 : 0);
}

bool SetGcState(uint64_t memory_id, uint64_t instance, GcState gc) {
  realm_shadow_memory* memory = FindMemory(memory_id);
  if (memory == nullptr) return false;
  realm_shadow_attach_identity(memory, instance,
                               AttachedIdentity(memory_id, instance),
                               IsPinned(gc) ? 1 : 0);
  return true;
}

uint32_t AttachedIdentity(uint64_t memory_id, uint64_t instance) {
  AttachedTable& table = Attached();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.identity.find({memory_id, instance});
  return it == table.identity.end() ? 0 : it->second;
}

bool AttachIdentity(uint64_t memory_id, uint64_t instance, uint32_t identity,
                    GcState gc) {
  realm_shadow_memory* memory = FindMemory(memory_id);
  if (memory == nullptr) return false;
  AttachIdentity(memory, instance, identity, gc);
  return true;
}

const Identity* IdentityOf(const Snapshot& snapshot,
                           const Allocation& allocation) {
  if (allocation.identity == 0) return nullptr;
  return snapshot.FindIdentity(allocation.identity);
}

std::string IdentityAttribute(const Identity& identity,
                              const std::string& key) {
  for (const auto& kv : identity.attributes)
    if (kv.first == key) return kv.second;
  return std::string();
}

std::string DescribeIdentity(const Identity* identity) {
  if (identity == nullptr) return "unknown";
  std::string out = AllocationKindName(identity->kind);
  for (const auto& kv : identity->attributes) {
    out += ' ';
    out += kv.first;
    out += "=\"";
    out += kv.second;
    out += '"';
  }
  return out;
}

}  // namespace legion
}  // namespace realm_shadow
