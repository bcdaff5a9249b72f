// legion_glue/legion_sites.cc - the non-template half of the Legion sites
// (legion_sites.h): interning, attaching and the pool table, without Legion.
#include "legion_glue/legion_sites.h"

#include "realm_shadow/live/snapshots.h"

namespace realm_shadow {
namespace legion {
namespace site {

void AttachDescription(uint64_t memory_id, uint64_t instance,
                       const LegionInstanceDescription& description,
                       GcState gc) {
  // The lookup first: on a node that does not own the memory nothing is
  // registered, and interning would be wasted work.
  realm_shadow_memory* memory = FindMemory(memory_id);
  if (memory == nullptr) return;
  AttachIdentity(memory, instance, InternLegionIdentity(description), gc);
}

#if REALM_SHADOW_ENABLED

void GcChanged(uint64_t memory_id, uint64_t instance, bool valid) {
  SetGcState(memory_id, instance,
             valid ? GcState::kValid : GcState::kCollectable);
}

void PoolBacking(uint64_t memory_id, uint64_t instance, uint64_t size,
                 const std::string& creator) {
  realm_shadow_memory* memory = FindMemory(memory_id);
  if (memory == nullptr) return;
  // The pool is known by its backing instance's id.  Its offset comes from
  // the backing allocation in any snapshot (kNoOffset here): Realm placed
  // it already, but Legion does not say where.
  Pools().DeclarePool(memory, instance, instance, kNoOffset, size,
                      GcState::kValid);
  (void)creator;
}

void PoolSub(uint64_t pool, uint64_t instance, uint64_t offset, uint64_t size,
             const std::string& creator) {
  LegionInstanceDescription d;
  d.kind = AllocationKind::kPoolSubAllocation;
  d.creator = creator;
  Pools().AddSubAllocation(pool, instance, offset, size,
                           InternLegionIdentity(d));
}

void PoolSubFreed(uint64_t instance) { Pools().RemoveSubAllocation(instance); }

void PoolEnded(uint64_t pool) { Pools().EndPool(pool); }

#endif  // REALM_SHADOW_ENABLED

}  // namespace site
}  // namespace legion
}  // namespace realm_shadow
