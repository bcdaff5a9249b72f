// legion_glue/pools.cc - the pool table, the dumps' pool source, reading
// pools back from dumps (version 1 dumps' identity strings too), and the
// per-pool usage figures.
#include "legion_glue/pools.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <unordered_map>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/recorder/identity_table.h"
#include "realm_shadow/live/dump.h"

namespace realm_shadow {
namespace legion {
namespace {

// Attribute keys of a pool backing's identity.  Version 1 dumps also
// carried the pool's contents in the last three, as strings.
constexpr char kPoolSizeKey[] = "pool.size";
constexpr char kPoolUsedKey[] = "pool.used";
constexpr char kPoolCountKey[] = "pool.suballocations";
constexpr char kPoolListKey[] = "pool.list";

// A number in a version 1 identity string: decimal, or hex with 0x.  The
// whole text or nothing: "-1" and "16k" are not numbers (strtoull read
// them as 2^64 - 1 and 16).
bool ParseU64(absl::string_view text, uint64_t* out) {
  int base = 10;
  if (absl::ConsumePrefix(&text, "0x")) base = 16;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out, base);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

// Bytes covered by the sub-allocations (union, clipped to the pool) and the
// largest free run inside [0, size).
struct Coverage {
  uint64_t used = 0;
  uint64_t largest_unused = 0;
  uint64_t out_of_range = 0;
  uint64_t overlapping = 0;
};

Coverage Cover(std::vector<PoolSubAllocation> subs, uint64_t size) {
  Coverage c;
  std::sort(subs.begin(), subs.end(),
            [](const PoolSubAllocation& a, const PoolSubAllocation& b) {
              return a.offset != b.offset ? a.offset < b.offset
                                          : a.instance < b.instance;
            });
  uint64_t covered_end = 0;  // end of the union so far
  for (const PoolSubAllocation& s : subs) {
    const uint64_t end = s.offset + s.size < s.offset ? UINT64_MAX
                                                      : s.offset + s.size;
    if (end > size) ++c.out_of_range;
    if (s.size == 0) continue;
    if (s.offset < covered_end) ++c.overlapping;
    const uint64_t start = std::min(std::max(s.offset, covered_end), size);
    const uint64_t stop = std::min(end, size);
    if (start > covered_end)
      c.largest_unused = std::max(c.largest_unused, start - covered_end);
    if (stop > start) c.used += stop - start;
    covered_end = std::max(covered_end, std::min(end, size));
  }
  if (size > covered_end)
    c.largest_unused = std::max(c.largest_unused, size - covered_end);
  return c;
}

// The identity a pool's backing gets when the pool is declared: its id and
// size (its contents travel in the dump's pools section).
Identity PoolIdentity(const PoolRecord& record) {
  Identity identity;
  identity.kind = AllocationKind::kPoolBacking;
  identity.attributes.emplace_back(kPoolAttribute, HexId(record.pool));
  identity.attributes.emplace_back(kPoolSizeKey, std::to_string(record.size));
  return identity;
}

// The dumps' pool source: the process's table.
void AppendProcessPools(uint64_t memory_id, std::vector<Pool>* out) {
  Pools().AppendPools(memory_id, out);
}
void AppendProcessPoolIdentities(std::vector<uint32_t>* out) {
  Pools().AppendIdentities(out);
}

// Version 1 dumps: the pools, out of the identities of their backings.
std::vector<PoolRecord> PoolsFromVersion1Identities(const Snapshot& snapshot) {
  std::vector<PoolRecord> out;
  for (const Allocation& a : snapshot.allocations) {
    const Identity* identity = snapshot.FindIdentity(a.identity);
    if (identity == nullptr || identity->kind != AllocationKind::kPoolBacking)
      continue;
    PoolRecord record;
    if (!ParseU64(IdentityAttribute(*identity, kPoolAttribute), &record.pool))
      continue;  // a backing identity that is not ours: no pool id
    record.memory_id = snapshot.memory_id;
    record.backing_instance = a.instance;
    record.offset = a.offset;
    record.size = a.size;
    uint64_t count = 0;
    const bool have_count = ParseU64(IdentityAttribute(*identity, kPoolCountKey), &count);
    bool malformed = false;
    for (absl::string_view item :
         absl::StrSplit(IdentityAttribute(*identity, kPoolListKey), ';', absl::SkipEmpty())) {
      const std::vector<absl::string_view> fields = absl::StrSplit(item, ':');
      PoolSubAllocation sub;
      if (fields.size() != 3 || !ParseU64(fields[0], &sub.instance) ||
          !ParseU64(fields[1], &sub.offset) ||
          !ParseU64(fields[2], &sub.size)) {
        malformed = true;
        continue;
      }
      record.suballocations.push_back(sub);
    }
    record.suballocations_complete =
        have_count && !malformed && count == record.suballocations.size();
    out.push_back(std::move(record));
  }
  return out;
}

// Erases `instance`'s sub-allocation from a pool's list; false when the
// pool holds none.
bool EraseSubAllocation(uint64_t instance,
                        std::vector<PoolSubAllocation>* subs) {
  for (auto it = subs->begin(); it != subs->end(); ++it) {
    if (it->instance == instance) {
      subs->erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace

// ---- PoolTable ------------------------------------------------------------

PoolTable::Entry* PoolTable::FindEntry(uint64_t pool) {
  auto it = std::lower_bound(
      entries_.begin(), entries_.end(), pool,
      [](const Entry& e, uint64_t id) { return e.record.pool < id; });
  return it != entries_.end() && it->record.pool == pool ? &*it : nullptr;
}

bool PoolTable::DeclarePool(realm_shadow_memory* memory, uint64_t pool,
                            uint64_t backing_instance, uint64_t offset,
                            uint64_t size, GcState gc) {
  Entry entry;
  entry.record.pool = pool;
  entry.record.memory_id = memory ? MemoryId(memory) : 0;
  entry.record.backing_instance = backing_instance;
  entry.record.offset = offset;
  entry.record.size = size;
  entry.memory = memory;
  entry.gc = gc;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (FindEntry(pool) != nullptr) return false;
    auto it = std::lower_bound(
        entries_.begin(), entries_.end(), pool,
        [](const Entry& e, uint64_t id) { return e.record.pool < id; });
    entries_.insert(it, entry);
  }
  // Outside the table's mutex: interning takes the tracker's.
  if (memory != nullptr) {
    realm_shadow_reserved(memory, pool, offset, size);
    AttachIdentity(memory, backing_instance,
                   InternIdentity(PoolIdentity(entry.record)), gc);
  }
  return true;
}

bool PoolTable::AddSubAllocation(uint64_t pool, uint64_t instance,
                                 uint64_t offset, uint64_t size,
                                 uint32_t identity) {
  std::lock_guard<std::mutex> lock(mutex_);
  Entry* e = FindEntry(pool);
  if (e == nullptr) return false;
  if (offset > e->record.size || size > e->record.size - offset) return false;
  auto& subs = e->record.suballocations;
  for (const PoolSubAllocation& s : subs)
    if (s.instance == instance) return false;
  PoolSubAllocation sub{instance, offset, size, identity};
  auto it = std::upper_bound(subs.begin(), subs.end(), sub,
                             [](const PoolSubAllocation& a,
                                const PoolSubAllocation& b) {
                               return a.offset < b.offset;
                             });
  subs.insert(it, sub);
  return true;
}

bool PoolTable::RemoveSubAllocation(uint64_t pool, uint64_t instance) {
  std::lock_guard<std::mutex> lock(mutex_);
  Entry* e = FindEntry(pool);
  return e != nullptr && EraseSubAllocation(instance, &e->record.suballocations);
}

bool PoolTable::RemoveSubAllocation(uint64_t instance) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Entry& e : entries_)
    if (EraseSubAllocation(instance, &e.record.suballocations)) return true;
  return false;
}

bool PoolTable::EndPool(uint64_t pool) {
  realm_shadow_memory* memory = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Entry* e = FindEntry(pool);
    if (e == nullptr) return false;
    memory = e->memory;
    entries_.erase(entries_.begin() + (e - entries_.data()));
  }
  if (memory != nullptr) realm_shadow_reservation_ended(memory, pool);
  return true;
}

bool PoolTable::Find(uint64_t pool, PoolRecord* out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Entry* e = const_cast<PoolTable*>(this)->FindEntry(pool);
  if (e == nullptr) return false;
  *out = e->record;
  return true;
}

std::vector<PoolRecord> PoolTable::PoolsIn(uint64_t memory_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<PoolRecord> out;
  for (const Entry& e : entries_)
    if (e.record.memory_id == memory_id) out.push_back(e.record);
  return out;
}

void PoolTable::AppendPools(uint64_t memory_id, std::vector<PoolRecord>* out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& e : entries_)
    if (e.record.memory_id == memory_id) out->push_back(e.record);
}

void PoolTable::AppendIdentities(std::vector<uint32_t>* out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& e : entries_)
    for (const PoolSubAllocation& sub : e.record.suballocations)
      if (sub.identity != 0) out->push_back(sub.identity);
}

void PoolTable::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

PoolTable& Pools() {
  // Never destroyed: hooks may run during static teardown.
  static PoolTable* table = [] {
    auto* t = new PoolTable();
    SetPoolSource(&AppendProcessPools);
    AddIdentityRoots(&AppendProcessPoolIdentities);
    return t;
  }();
  return *table;
}

// ---- reading pools back from a dump -----------------------------------------

std::vector<PoolRecord> PoolsFromDump(const DumpFile& dump, const Snapshot& memory) {
  std::vector<PoolRecord> out;
  if (dump.version < 2) {
    out = PoolsFromVersion1Identities(memory);
  } else {
    for (const Pool& p : dump.pools)
      if (p.memory_id == memory.memory_id || p.memory_id == 0) out.push_back(p);
  }
  std::sort(out.begin(), out.end(), [](const PoolRecord& a, const PoolRecord& b) {
    return a.pool < b.pool;
  });
  return out;
}

// ---- usage ----------------------------------------------------------------

std::vector<PoolUsage> AnalyzePools(const Snapshot& snapshot,
                                    const std::vector<PoolRecord>& pools) {
  std::unordered_map<uint64_t, const Allocation*> live;
  live.reserve(snapshot.allocations.size());
  for (const Allocation& a : snapshot.allocations) live[a.instance] = &a;

  std::vector<PoolUsage> out;
  for (const PoolRecord& record : pools) {
    if (record.memory_id != 0 && record.memory_id != snapshot.memory_id)
      continue;
    PoolUsage u;
    u.pool = record.pool;
    u.backing_instance = record.backing_instance;
    u.offset = record.offset;
    u.size = record.size;
    auto it = live.find(record.backing_instance);
    if (it != live.end()) {
      u.backing_live = true;
      if (u.offset == kNoOffset) u.offset = it->second->offset;
      if (u.size == 0) u.size = it->second->size;
    }
    for (const Reservation& r : snapshot.reservations)
      if (r.id == record.pool) u.reserved = true;
    const Coverage c = Cover(record.suballocations, u.size);
    u.used = c.used;
    u.suballocation_count = record.suballocations.size();
    u.largest_unused = c.largest_unused;
    u.out_of_range = c.out_of_range;
    u.overlapping = c.overlapping;
    if (!record.suballocations_complete) {
      // A dump listed only the first entries: the published totals are the
      // truth, the largest free run is not known.
      for (const Allocation& a : snapshot.allocations) {
        if (a.instance != record.backing_instance) continue;
        const Identity* identity = snapshot.FindIdentity(a.identity);
        uint64_t v = 0;
        if (identity && ParseU64(IdentityAttribute(*identity, kPoolUsedKey), &v))
          u.used = std::min(v, u.size);
        if (identity && ParseU64(IdentityAttribute(*identity, kPoolCountKey), &v))
          u.suballocation_count = v;
        u.largest_unused = 0;
      }
    }
    u.unused = u.size - std::min(u.used, u.size);
    out.push_back(u);
  }
  std::sort(out.begin(), out.end(), [](const PoolUsage& a, const PoolUsage& b) {
    return a.pool < b.pool;
  });
  return out;
}

PoolTotals TotalPools(const std::vector<PoolUsage>& usage) {
  PoolTotals t;
  for (const PoolUsage& u : usage) {
    ++t.pools;
    t.bytes += u.size;
    t.used += u.used;
    t.unused += u.unused;
  }
  return t;
}

std::string FormatPoolUsage(const PoolUsage& u) {
  std::string out = "pool " + HexId(u.pool) + ": " + FormatHumanSize(u.size) +
                    ", " + FormatHumanSize(u.used) + " used in " +
                    std::to_string(u.suballocation_count) + " sub-allocation" +
                    (u.suballocation_count == 1 ? "" : "s") + ", " +
                    FormatHumanSize(u.unused) +
                    " unused (not a hole of the memory)";
  if (!u.backing_live) out += "; backing instance " + HexId(u.backing_instance) +
                              " not live";
  if (u.out_of_range) out += "; " + std::to_string(u.out_of_range) +
                             " past the pool's end";
  if (u.overlapping) out += "; " + std::to_string(u.overlapping) +
                            " overlapping";
  return out;
}

}  // namespace legion
}  // namespace realm_shadow
