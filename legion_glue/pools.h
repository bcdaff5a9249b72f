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
//  - every dump of a tracked memory (dump_memory_state, dump on failure)
//    carries the memory's pools, sub-allocations included, in the dump's
//    typed pools section (docs/dump-format.md): Pools() installs itself as
//    the dump layer's pool source (dump.h SetPoolSource) at its first use.
//    PoolsFromDump() reads them back from any dump file, without the table
//    (from a version 1 dump, out of the identity strings those carried);
//  - AnalyzePools() computes, per pool, bytes used, sub-allocation count and
//    unused bytes, separately from the memory's holes (analysis.h).
//
// Offsets: a pool's offset is relative to the memory's base, like every
// offset in a snapshot; a sub-allocation's offset is relative to the pool's
// start (Legion's sub-allocator hands out offsets into the pool).
//
// Cost: the table takes one mutex per call; pool events are per task, not
// per allocation.  A pool interns one identity, when it is declared; a
// dump interns nothing (it copies the table under its mutex).
#ifndef REALM_SHADOW_LEGION_GLUE_POOLS_H_
#define REALM_SHADOW_LEGION_GLUE_POOLS_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "legion_glue/identity.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(legion_glue);
namespace legion {

// A pool and its sub-allocations are the dump layer's types (dump.h): what
// the table holds is what a dump carries.
using PoolSubAllocation = realm_shadow::PoolSubAllocation;
using PoolRecord = realm_shadow::Pool;

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

  // Appends the memory's pools as they are now (what a dump carries).
  void AppendPools(uint64_t memory_id, std::vector<PoolRecord>* out) const;
  // Appends the identity of every sub-allocation in the table (kept alive
  // by the identity table, recorder/identity_table.h AddIdentityRoots).
  void AppendIdentities(std::vector<uint32_t>* out) const;

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

// The process's table; the first call installs it as the dumps' pool
// source.
PoolTable& Pools();

// The pools of one memory of a dump, by pool id: the dump's pools section,
// or, in a version 1 dump, the identities of the memory's pool backings,
// which then held the pool's totals and its first 64 sub-allocations as
// strings (suballocations_complete is false when there were more).
std::vector<PoolRecord> PoolsFromDump(const DumpFile& dump,
                                      const Snapshot& memory);

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
