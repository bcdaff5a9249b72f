// The identity table: interning, lookups, collection of the identities
// nothing refers to any more, and the lock-free kind lookup that attaching
// an identity uses on the caller's thread.
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/recorder/identity_table.h"
#include "realm_shadow/recorder/internal/memory.h"

namespace realm_shadow {
namespace {

// Kinds by id, readable without the table's mutex: attaching an identity
// (realm_shadow_attach_identity) carries the identity's kind in its journal
// record, and must not take a lock or copy the identity to find it.  Kinds
// sit in chunks that never move once made; `published` says how many ids
// have theirs written.  4096 chunks of 4096 kinds cover the first 16M ids
// (16 MiB at most; ids are never reused, so a collected id keeps its byte);
// beyond, the kind is looked up under the mutex.
constexpr size_t kKindChunk = 4096;
constexpr size_t kKindChunks = 4096;

// A collection runs when the table holds this many, or twice what the last
// one left, whichever is more: amortized O(1) per interned identity.
constexpr size_t kFirstCollection = 4096;

constexpr size_t kMaxRootSources = 8;

struct Entry {
  Identity identity;
  uint64_t interned_in = 0;  // the collection epoch of its last InternIdentity
};

struct IdentityTable {
  std::mutex mutex;
  absl::flat_hash_map<uint32_t, Entry> by_id;
  absl::flat_hash_map<std::string, uint32_t> by_key;
  uint32_t next_id = 1;
  uint64_t epoch = 0;         // collections started so far
  size_t collect_at = kFirstCollection;
  bool collecting = false;    // one collection at a time
  std::atomic<uint8_t*> kind_chunks[kKindChunks] = {};
  std::atomic<uint32_t> published{0};
  std::atomic<void (*)(std::vector<uint32_t>*)> roots[kMaxRootSources] = {};
};
IdentityTable& GetIdentities() {
  static IdentityTable* table = new IdentityTable;  // never destroyed
  return *table;
}

// The key is the kind and every attribute, length-prefixed so that no two
// different identities share one.
std::string KeyOf(const Identity& identity) {
  std::string key = std::to_string(static_cast<int>(identity.kind));
  for (const auto& [name, value] : identity.attributes)
    absl::StrAppend(&key, "|", name.size(), ":", name, "|", value.size(), ":", value);
  return key;
}

// Writes the kind of a new id for IdentityKind.  Table mutex held.
void PublishKind(IdentityTable& table, uint32_t id, AllocationKind kind) {
  const size_t index = id - 1;
  if (index / kKindChunk >= kKindChunks) return;
  std::atomic<uint8_t*>& chunk = table.kind_chunks[index / kKindChunk];
  uint8_t* kinds = chunk.load(std::memory_order_relaxed);
  if (kinds == nullptr) {
    kinds = new uint8_t[kKindChunk]();
    // Relaxed: published's release store below publishes it.
    chunk.store(kinds, std::memory_order_relaxed);
  }
  kinds[index % kKindChunk] = static_cast<uint8_t>(kind);
  // Release: a reader that acquires `published` sees the chunk and kind.
  table.published.store(id, std::memory_order_release);
}

// Forgets every identity that nothing refers to and that was not interned
// since the collection before this one (identity.h states the rule).  Runs
// on the interning thread; the table's mutex is not held while the journals
// are drained and the references gathered (a drain applies attach records,
// and the shadow map looks identities up under its consumer mutex).
void Collect(IdentityTable& table, std::unique_lock<std::mutex>& lock) {
  table.collecting = true;
  const uint64_t epoch = table.epoch++;
  lock.unlock();
  std::vector<uint32_t> referenced;
  internal::AppendIdentitiesInUse(&referenced);
  for (auto& source : table.roots)
    if (auto append = source.load(std::memory_order_acquire)) append(&referenced);
  const absl::flat_hash_set<uint32_t> marked(referenced.begin(), referenced.end());
  lock.lock();
  absl::erase_if(table.by_id, [&](const auto& entry) {
    const Entry& e = entry.second;
    if (e.interned_in >= epoch || marked.contains(entry.first)) return false;
    table.by_key.erase(KeyOf(e.identity));
    return true;
  });
  table.collect_at = std::max(kFirstCollection, 2 * table.by_id.size());
  table.collecting = false;
}

}  // namespace

uint32_t InternIdentity(const Identity& identity) {
  std::string key = KeyOf(identity);
  IdentityTable& table = GetIdentities();
  std::unique_lock<std::mutex> lock(table.mutex);
  if (auto it = table.by_key.find(key); it != table.by_key.end()) {
    table.by_id[it->second].interned_in = table.epoch;
    return it->second;
  }
  if (table.next_id == 0) return 0;  // 2^32 - 1 ids given out: no more
  Entry entry;
  entry.identity = identity;
  entry.identity.id = table.next_id++;
  entry.interned_in = table.epoch;
  const uint32_t id = entry.identity.id;
  table.by_id.emplace(id, std::move(entry));
  table.by_key.emplace(std::move(key), id);
  PublishKind(table, id, identity.kind);
  if (table.by_id.size() >= table.collect_at && !table.collecting) Collect(table, lock);
  return id;
}

bool LookupIdentity(uint32_t id, Identity* out) {
  IdentityTable& table = GetIdentities();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.by_id.find(id);
  if (it == table.by_id.end()) return false;
  *out = it->second.identity;
  return true;
}

AllocationKind IdentityKind(uint32_t id) {
  IdentityTable& table = GetIdentities();
  // Acquire: pairs with PublishKind's release store.
  if (id != 0 && id <= table.published.load(std::memory_order_acquire)) {
    const uint8_t* kinds =
        table.kind_chunks[(id - 1) / kKindChunk].load(std::memory_order_relaxed);
    return static_cast<AllocationKind>(kinds[(id - 1) % kKindChunk]);
  }
  if (id == 0 || (id - 1) / kKindChunk < kKindChunks) return AllocationKind::kUnknown;
  Identity identity;
  return LookupIdentity(id, &identity) ? identity.kind : AllocationKind::kUnknown;
}

size_t IdentityCount() {
  IdentityTable& table = GetIdentities();
  std::lock_guard<std::mutex> lock(table.mutex);
  return table.by_id.size();
}

void AddIdentityRoots(void (*append)(std::vector<uint32_t>* out)) {
  IdentityTable& table = GetIdentities();
  std::lock_guard<std::mutex> lock(table.mutex);
  for (auto& source : table.roots) {
    void (*none)(std::vector<uint32_t>*) = nullptr;
    if (source.load(std::memory_order_relaxed) == append) return;
    // Release: a collection that acquires it may call it.
    if (source.compare_exchange_strong(none, append, std::memory_order_release)) return;
  }
}

void CollectIdentitiesNow() {
  IdentityTable& table = GetIdentities();
  std::unique_lock<std::mutex> lock(table.mutex);
  if (!table.collecting) Collect(table, lock);
}

void ResetIdentitiesForTesting() {
  IdentityTable& table = GetIdentities();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.by_id.clear();
  table.by_key.clear();
  table.next_id = 1;
  table.epoch = 0;
  table.collect_at = kFirstCollection;
  table.published.store(0, std::memory_order_release);
  for (std::atomic<uint8_t*>& chunk : table.kind_chunks)
    delete[] chunk.exchange(nullptr, std::memory_order_relaxed);
}

}  // namespace realm_shadow
