// legion_glue/pools.h - Legion memory pools: one Realm instance with Legion's
// own sub-allocator inside, shown as a reservation with its sub-allocations
// nested in it.
//
// What it is for: a bounded pool (Legion 25.03 PoolBounds, scope bounded) is
// a single Realm instance.  Realm's allocator, and therefore the shadow's
// picture of the memory, sees one live allocation of the pool's whole size;
// the DeferredBuffers and task-local instances Legion carves out of it are
// external instances Realm never places.  So the free space inside a pool is
// not a hole of the memory (no other request can use it), and a report that
// called it one would send the user after the wrong fix.  This file keeps
// the pool's inside apart:
//  - the pool is recorded as a reservation (realm_shadow_reserved) with the
//    backing instance's range, and the backing gets a kPoolBacking identity;
//  - its sub-allocations live in a glue-side table keyed by pool id (the
//    recorder never sees them, so they cannot overlap the backing there);
//  - PublishPools() copies each pool's current contents into the identity of
//    its backing instance ("pool.used", "pool.suballocations", ...), so a
//    dump carries them; PoolsFromSnapshot() reads them back from any
//    snapshot or dump file, without the table;
//  - AnalyzePools() computes, per pool, bytes used, sub-allocation count and
//    unused bytes, separately from the memory's holes (analysis.h).
//
// Offsets: a pool's offset is relative to the memory's base, like every
// offset in a snapshot; a sub-allocation's offset is relative to the pool's
// start (Legion's sub-allocator hands out offsets into the pool).
//
// Cost: the table takes one mutex per call; pool events are per task, not
// per allocation.  PublishPools interns one identity per pool per call:
// call it when dumping, not on every sub-allocation.
#ifndef REALM_SHADOW_LEGION_GLUE_POOLS_H_
#define REALM_SHADOW_LEGION_GLUE_POOLS_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "legion_glue/identity.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/analysis/snapshot.h"

namespace realm_shadow {
namespace legion {

struct PoolSubAllocation {
  uint64_t instance = 0;
  uint64_t offset = 0;  // from the pool's start
  uint64_t size = 0;
  uint32_t identity = 0;
};

struct PoolRecord {
  uint64_t pool = 0;              // the caller's id; the backing id is a fine one
  uint64_t memory_id = 0;
  uint64_t backing_instance = 0;
  uint64_t offset = kNoOffset;    // the backing's range; kNoOffset: take it
  uint64_t size = 0;              //   from the backing allocation in a snapshot
  std::vector<PoolSubAllocation> suballocations;  // by ascending offset
  bool suballocations_complete = true;  // false: read back from a dump that
                                        // listed only the first entries
};

// The glue-side table of pools.  Thread-safe.  Tests may make their own;
// the integration uses Pools().  Every call with an unknown
// pool, a duplicate instance or a range outside the pool returns false and
// changes nothing: bad input is refused, never a crash.
class PoolTable {
 public:
  // A bounded pool was created: its backing `backing_instance` (already
  // allocated in `memory`) spans [offset, offset + size).  Records the
  // reservation and attaches a kPoolBacking identity with the GC state.
  bool DeclarePool(realm_shadow_memory* memory, uint64_t pool,
                   uint64_t backing_instance, uint64_t offset, uint64_t size,
                   GcState gc = GcState::kValid);
  bool AddSubAllocation(uint64_t pool, uint64_t instance, uint64_t offset,
                        uint64_t size, uint32_t identity = 0);
  bool RemoveSubAllocation(uint64_t pool, uint64_t instance);
  // Same, in whichever pool holds `instance` (Legion's free_instance knows
  // the instance only).
  bool RemoveSubAllocation(uint64_t instance);
  // The pool was released: ends the reservation and forgets its contents.
  bool EndPool(uint64_t pool);

  bool Find(uint64_t pool, PoolRecord* out) const;
  std::vector<PoolRecord> PoolsIn(uint64_t memory_id) const;  // by pool id

  // Attaches to every pool backing of the memory an identity describing the
  // pool's contents now (see the file comment).  Returns how many pools.
  size_t PublishPools(uint64_t memory_id) const;

  void Clear();  // tests

 private:
  struct Entry {
    PoolRecord record;
    realm_shadow_memory* memory = nullptr;
    GcState gc = GcState::kValid;
  };
  Entry* FindEntry(uint64_t pool);  // mutex_ held
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;  // by ascending pool id; pools are few
};

// The process's table.
PoolTable& Pools();

// Sub-allocations listed in a published identity (the rest are counted).
inline constexpr size_t kPublishedSubAllocations = 64;

// The pool backings of a snapshot, read from their published identities.
std::vector<PoolRecord> PoolsFromSnapshot(const Snapshot& snapshot);

struct PoolUsage {
  uint64_t pool = 0;
  uint64_t backing_instance = 0;
  uint64_t offset = kNoOffset;
  uint64_t size = 0;
  bool backing_live = false;   // the backing is a live allocation of the snapshot
  bool reserved = false;       // the snapshot holds the pool's reservation
  uint64_t used = 0;           // bytes covered by sub-allocations (union)
  uint64_t suballocation_count = 0;
  uint64_t unused = 0;         // size - used: free inside the pool only
  uint64_t largest_unused = 0; // largest free run inside the pool
  uint64_t out_of_range = 0;   // sub-allocations past the pool's end
  uint64_t overlapping = 0;    // sub-allocations overlapping an earlier one
};

struct PoolTotals {
  uint64_t pools = 0;
  uint64_t bytes = 0;   // sum of pool sizes
  uint64_t used = 0;
  uint64_t unused = 0;  // never part of the memory's total_free
};

// One entry per pool record that belongs to the snapshot's memory (records
// with memory_id 0 are taken to belong), in pool id order.  A record with
// kNoOffset takes its range from the backing allocation.
std::vector<PoolUsage> AnalyzePools(const Snapshot& snapshot,
                                    const std::vector<PoolRecord>& pools);
PoolTotals TotalPools(const std::vector<PoolUsage>& usage);

// "pool 0x40000000008000a1: 64 MiB, 40 MiB used in 12 sub-allocations,
// 24 MiB unused (not a hole of the memory)"
std::string FormatPoolUsage(const PoolUsage& usage);

}  // namespace legion
}  // namespace realm_shadow

#endif  // REALM_SHADOW_LEGION_GLUE_POOLS_H_
