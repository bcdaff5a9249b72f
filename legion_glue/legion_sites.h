// legion_glue/legion_sites.h - the calls Legion's runtime makes so that every
// allocation the shadow sees carries its Legion identity: what kind of
// instance it is, its regions and fields, the task that made it, its
// provenance, and whether Legion may collect it.
//
// What it is for: Realm's heaps (realm_shadow/realm_sites.h) tell the shadow
// where every instance sits; only Legion knows what it is.  Each function
// here is the whole of one Legion site, so an edit in Legion is one line.
// Where each line goes is one table, legion_glue/sites.py, from which
// scripts/legion-enable-tracking plans its edits; legion_glue/INTEGRATION.md
// says why there.  They are templates over Legion's types: this header
// includes no Legion header and names no Legion type, so it compiles, and is
// tested (tests/legion_glue/legion_sites_test.cc), with stand-ins shaped like
// Legion's objects.  Inside Legion's runtime (legion/runtime.h included
// first) it also pulls in legion/mapper_manager.h, which the creator lookup
// reads.  Every site is declared twice, below: tracking on, and compiled out
// (an empty inline function); tests/scripts/sites_table_test.py checks both
// against the table.
//
// Guarantees and cost
//  - Never on Realm's allocation path, and never under Realm's allocator
//    mutex: Legion calls these from its own threads after Realm answered.
//    The memories are registered REALM_SHADOW_CONCURRENT for that reason
//    (realm_sites.h ObserveManagedMemory).
//  - A creation site builds a few short strings and interns them (one hash
//    lookup under the tracker's identity mutex), then appends one journal
//    record.  A GC site looks the instance's identity up in the glue's
//    table (one mutex, one hash lookup) and appends one record.  Legion
//    makes these calls per instance creation and per valid/collectable
//    change, not per Realm allocator event.
//  - A memory that is not tracked here (another node owns it, or tracking
//    is off: REALM_SHADOW=0) makes every site do nothing after one lookup.
//  - They never block on Legion: field names are read only on the node
//    that owns the field space, with Legion's can_fail / no-wait lookup;
//    elsewhere fields are given by id.
//  - Without REALM_SHADOW_ENABLED=1 every site is an empty inline function.
//
// GC state.  Legion's PhysicalManager is VALID while anything holds a valid
// reference: mapped by a task, acquired by a mapper, or given
// LEGION_GC_NEVER_PRIORITY (which adds a valid reference of its own).  Only
// a COLLECTABLE instance may be collected to make room.  The shadow pins
// valid instances, and the blocker query never proposes a pinned one.
#ifndef REALM_SHADOW_LEGION_GLUE_LEGION_SITES_H_
#define REALM_SHADOW_LEGION_GLUE_LEGION_SITES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "legion_glue/identity.h"
#include "legion_glue/pools.h"
#include "realm_shadow/hooks.h"

// Inside Legion's runtime: the mapper call's operation names the creator.
#if defined(__RUNTIME_H__) && defined(__has_include)
#if __has_include("legion/mapper_manager.h")
#include "legion/mapper_manager.h"
#include "realm_shadow/layers.h"
#endif
#endif

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(legion_glue);
namespace legion {
namespace site {

// ---- reading Legion's objects (no Legion type named) ------------------------

// Legion's LEGION_NAME_SEMANTIC_TAG (legion_config.h); checked below when
// Legion's headers are in.
inline constexpr unsigned kNameSemanticTag = 0;

// "(tree,index space,field space)" for each region, space-separated.
template <typename Regions>
std::string DescribeRegions(const Regions& regions) {
  std::string out;
  for (const auto& region : regions) {
    if (!out.empty()) out += ' ';
    out += '(' + std::to_string(region.get_tree_id()) + ',' +
           std::to_string(region.get_index_space().get_id()) + ',' +
           std::to_string(region.get_field_space().get_id()) + ')';
  }
  return out;
}

// A field's name where the node owning the field space has one attached,
// else "fid N".  Never waits: can_fail = true, wait_until = false, and only
// on the owner node (elsewhere Legion would ask the owner and wait).
template <typename FieldSpaceNode, typename FieldId>
std::string FieldName(FieldSpaceNode* node, FieldId fid) {
  if (node != nullptr && node->is_owner()) {
    const void* name = nullptr;
    size_t size = 0;
    if (node->retrieve_semantic_information(fid, kNameSemanticTag, name, size,
                                            true /*can_fail*/,
                                            false /*wait_until*/) &&
        name != nullptr && size > 1) {
      // Legion stores the name with its terminating NUL.
      const char* text = static_cast<const char*>(name);
      return std::string(text, text[size - 1] == '\0' ? size - 1 : size);
    }
  }
  return "fid " + std::to_string(fid);
}

// "velocity, pressure" (names or ids) in the constraint's field order.
template <typename FieldSpaceNode, typename Fields>
std::string DescribeFields(FieldSpaceNode* node, const Fields& fields) {
  std::string out;
  for (const auto& fid : fields) {
    if (!out.empty()) out += ", ";
    out += FieldName(node, fid);
  }
  return out;
}

// "task calc_currents (UID 15)" when the mapper call that made the instance
// is mapping operation `creator_uid` and it is a task; "inline mapping
// (UID 12)" for another operation; "op UID 15" when that operation cannot
// be seen from here (a remote request, a call outside a mapper call).
template <typename CallInfo>
std::string DescribeCreator(CallInfo* call, long long creator_uid,
                            std::string* provenance) {
  if (call != nullptr && call->operation != nullptr &&
      static_cast<long long>(call->operation->get_unique_op_id()) ==
          creator_uid) {
    auto* op = call->operation;
    using Op = std::remove_pointer_t<std::remove_cv_t<decltype(op)>>;
    if (provenance != nullptr) {
      const auto* p = op->get_provenance();
      if (p != nullptr) *provenance = std::string(p->human);
    }
    const char* name = op->get_logging_name();
    const std::string uid = " (UID " + std::to_string(creator_uid) + ")";
    if (op->get_operation_kind() == Op::TASK_OP_KIND)
      return std::string("task ") + (name ? name : "?") + uid;
    return std::string(name ? name : "operation") + uid;
  }
  return "op UID " + std::to_string(creator_uid);
}

// The running task (Legion's implicit_context) when it is the creator.
template <typename Context>
std::string DescribeTaskCreator(Context* context, long long creator_uid) {
  if (context != nullptr &&
      static_cast<long long>(context->get_unique_id()) == creator_uid) {
    const char* name = context->get_task_name();
    return std::string("task ") + (name ? name : "?") + " (UID " +
           std::to_string(creator_uid) + ")";
  }
  return "op UID " + std::to_string(creator_uid);
}

// Attaches `description` to instance in memory; the GC state given.  Does
// nothing when the memory is not tracked in this process.
void AttachDescription(uint64_t memory_id, uint64_t instance,
                       const LegionInstanceDescription& description,
                       GcState gc);

// ---- the sites --------------------------------------------------------------

#if REALM_SHADOW_ENABLED

template <typename Memory, typename Instance, typename Regions,
          typename Constraints, typename FieldSpaceNode, typename CallInfo>
void RegionInstanceCreated(const Memory& memory, const Instance& instance,
                           const Regions& regions,
                           const Constraints& constraints,
                           FieldSpaceNode* field_space_node,
                           long long creator_uid, CallInfo* mapper_call) {
  LegionInstanceDescription d;
  d.kind = AllocationKind::kRegionInstance;
  d.regions = DescribeRegions(regions);
  d.fields = DescribeFields(field_space_node,
                            constraints.field_constraint.get_field_set());
  d.creator = DescribeCreator(mapper_call, creator_uid, &d.provenance);
  // A new PhysicalManager starts COLLECTABLE; the GC site pins it when the
  // mapper's acquire (or GC_NEVER) makes it valid, right after this.
  AttachDescription(static_cast<uint64_t>(memory.id),
                    static_cast<uint64_t>(instance.id), d,
                    GcState::kCollectable);
}

void GcChanged(uint64_t memory_id, uint64_t instance, bool valid);

template <typename Memory, typename Instance>
void GcStateChanged(const Memory& memory, const Instance& instance,
                    bool valid) {
  GcChanged(static_cast<uint64_t>(memory.id),
            static_cast<uint64_t>(instance.id), valid);
}

// An instance that Legion's collector never takes (task-local and future
// instances), described by its kind and creating task.
template <typename Memory, typename Instance, typename Context>
void UncollectedInstanceCreated(const Memory& memory, const Instance& instance,
                                AllocationKind kind, long long creator_uid,
                                Context* context, const char* what) {
  if (!instance.exists()) return;
  LegionInstanceDescription d;
  d.kind = kind;
  d.creator = DescribeTaskCreator(context, creator_uid);
  if (what != nullptr) d.extra.emplace_back("what", what);
  AttachDescription(static_cast<uint64_t>(memory.id),
                    static_cast<uint64_t>(instance.id), d, GcState::kValid);
}

template <typename Memory, typename Instance, typename Context>
void TaskLocalInstanceCreated(const Memory& memory, const Instance& instance,
                              long long creator_uid, Context* context) {
  UncollectedInstanceCreated(memory, instance, AllocationKind::kDeferredBuffer,
                             creator_uid, context,
                             "task-local instance (DeferredBuffer, "
                             "DeferredValue or pool backing)");
}

template <typename Memory, typename Instance, typename Context>
void FutureInstanceCreated(const Memory& memory, const Instance& instance,
                           long long creator_uid, Context* context) {
  UncollectedInstanceCreated(memory, instance, AllocationKind::kFuture,
                             creator_uid, context, nullptr);
}

void PoolBacking(uint64_t memory_id, uint64_t instance, uint64_t size,
                 const std::string& creator);
void PoolSub(uint64_t pool, uint64_t instance, uint64_t offset, uint64_t size,
             const std::string& creator);
void PoolSubFreed(uint64_t instance);
void PoolEnded(uint64_t pool);

template <typename Memory, typename Instance, typename Context>
void PoolCreated(const Memory& memory, const Instance& instance, size_t size,
                 long long creator_uid, Context* context) {
  if (!instance.exists()) return;
  PoolBacking(static_cast<uint64_t>(memory.id),
              static_cast<uint64_t>(instance.id), size,
              DescribeTaskCreator(context, creator_uid));
}

template <typename Instance, typename Context>
void PoolSubAllocated(const Instance& backing, const Instance& instance,
                      size_t offset, size_t size, long long creator_uid,
                      Context* context) {
  PoolSub(static_cast<uint64_t>(backing.id),
          static_cast<uint64_t>(instance.id), offset, size,
          DescribeTaskCreator(context, creator_uid));
}

template <typename Instance>
void PoolSubAllocationFreed(const Instance& instance) {
  PoolSubFreed(static_cast<uint64_t>(instance.id));
}

// ConcretePool::release_pool: the pool's backing instances (a map keyed by
// instance) are about to go; each was declared as a pool of its own id.
template <typename BackingMap>
void PoolReleased(const BackingMap& backing_instances) {
  for (const auto& entry : backing_instances)
    PoolEnded(static_cast<uint64_t>(entry.first.id));
}

#else  // tracking compiled out: every site is nothing

template <typename... Args> inline void RegionInstanceCreated(Args&&...) {}
template <typename... Args> inline void GcStateChanged(Args&&...) {}
template <typename... Args> inline void TaskLocalInstanceCreated(Args&&...) {}
template <typename... Args> inline void FutureInstanceCreated(Args&&...) {}
template <typename... Args> inline void PoolCreated(Args&&...) {}
template <typename... Args> inline void PoolSubAllocated(Args&&...) {}
template <typename... Args> inline void PoolSubAllocationFreed(Args&&...) {}
template <typename... Args> inline void PoolReleased(Args&&...) {}

#endif  // REALM_SHADOW_ENABLED

}  // namespace site
}  // namespace legion
}  // namespace realm_shadow

#if defined(__RUNTIME_H__)
static_assert(LEGION_NAME_SEMANTIC_TAG ==
                  realm_shadow::legion::site::kNameSemanticTag,
              "Legion's name semantic tag moved");
#endif

#endif  // REALM_SHADOW_LEGION_GLUE_LEGION_SITES_H_
