// The identity table: interning, lookups, and the lock-free kind lookup
// that attaching an identity uses on the caller's thread.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "realm_shadow/recorder/identity.h"

namespace realm_shadow {
namespace {


// Kinds by id, readable without the table's mutex: attaching an identity
// (realm_shadow_attach_identity) carries the identity's kind in its journal
// record, and must not take a lock or copy the identity to find it.  Kinds
// sit in chunks that never move once made; `published` says how many ids
// have theirs written.  4096 chunks of 4096 kinds cover 16M identities (a
// run interns one per distinct description: thousands); beyond, the kind
// is looked up under the mutex.
constexpr size_t kKindChunk = 4096;
constexpr size_t kKindChunks = 4096;

struct IdentityTable {
  std::mutex mutex;
  std::vector<Identity> identities;             // index = id - 1
  absl::flat_hash_map<std::string, uint32_t> by_key;
  std::atomic<uint8_t*> kind_chunks[kKindChunks] = {};
  std::atomic<uint32_t> published{0};
};
IdentityTable& GetIdentities() {
  static IdentityTable* table = new IdentityTable;  // never destroyed
  return *table;
}

}  // namespace

const char* AllocationKindName(AllocationKind kind) {
  switch (kind) {
    case AllocationKind::kUnknown: return "unknown";
    case AllocationKind::kRegionInstance: return "region_instance";
    case AllocationKind::kDeferredBuffer: return "deferred_buffer";
    case AllocationKind::kDeferredValue: return "deferred_value";
    case AllocationKind::kFuture: return "future";
    case AllocationKind::kPoolBacking: return "pool_backing";
    case AllocationKind::kPoolSubAllocation: return "pool_suballocation";
    case AllocationKind::kExternal: return "external";
  }
  return "unknown";
}

AllocationKind ParseAllocationKind(const std::string& name) {
  for (int k = 0; k < kAllocationKindCount; ++k) {
    const auto kind = static_cast<AllocationKind>(k);
    if (absl::AsciiStrToLower(name) == AllocationKindName(kind)) return kind;
  }
  return AllocationKind::kUnknown;
}

uint32_t InternIdentity(const Identity& identity) {
  // The key is the kind and every attribute, length-prefixed so that no
  // two different identities share one.
  std::string key = std::to_string(static_cast<int>(identity.kind));
  for (const auto& attribute : identity.attributes) {
    key += '|' + std::to_string(attribute.first.size()) + ':' + attribute.first;
    key += '|' + std::to_string(attribute.second.size()) + ':' + attribute.second;
  }
  IdentityTable& table = GetIdentities();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.by_key.find(key);
  if (it != table.by_key.end()) return it->second;
  Identity stored = identity;
  stored.id = static_cast<uint32_t>(table.identities.size() + 1);
  table.identities.push_back(stored);
  table.by_key.emplace(std::move(key), stored.id);
  const size_t index = stored.id - 1;
  if (index / kKindChunk < kKindChunks) {
    std::atomic<uint8_t*>& chunk = table.kind_chunks[index / kKindChunk];
    uint8_t* kinds = chunk.load(std::memory_order_relaxed);
    if (kinds == nullptr) {
      kinds = new uint8_t[kKindChunk]();
      // Relaxed: published's release store below publishes it.
      chunk.store(kinds, std::memory_order_relaxed);
    }
    kinds[index % kKindChunk] = static_cast<uint8_t>(identity.kind);
    // Release: a reader that acquires `published` sees the chunk and kind.
    table.published.store(stored.id, std::memory_order_release);
  }
  return stored.id;
}

bool LookupIdentity(uint32_t id, Identity* out) {
  IdentityTable& table = GetIdentities();
  std::lock_guard<std::mutex> lock(table.mutex);
  if (id == 0 || id > table.identities.size()) return false;
  *out = table.identities[id - 1];
  return true;
}

AllocationKind IdentityKind(uint32_t id) {
  IdentityTable& table = GetIdentities();
  // Acquire: pairs with InternIdentity's release store.
  if (id != 0 && id <= table.published.load(std::memory_order_acquire)) {
    const uint8_t* kinds =
        table.kind_chunks[(id - 1) / kKindChunk].load(std::memory_order_relaxed);
    return static_cast<AllocationKind>(kinds[(id - 1) % kKindChunk]);
  }
  if (id == 0 || (id - 1) / kKindChunk < kKindChunks) return AllocationKind::kUnknown;
  Identity identity;
  return LookupIdentity(id, &identity) ? identity.kind : AllocationKind::kUnknown;
}

void ResetIdentitiesForTesting() {
  IdentityTable& table = GetIdentities();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.identities.clear();
  table.by_key.clear();
  table.published.store(0, std::memory_order_release);
  for (std::atomic<uint8_t*>& chunk : table.kind_chunks)
    delete[] chunk.exchange(nullptr, std::memory_order_relaxed);
}

}  // namespace realm_shadow
