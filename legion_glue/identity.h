// legion_glue/identity.h - what an allocation is in Legion's and Legate's
// terms: its kind, regions and fields, creator, provenance, garbage-collection
// state, and for Legate the store it holds.
//
// What it is for: Realm's allocator knows an instance id, an offset and a
// size.  A report that says "blocker: 0x4000000000800003, 12 MiB" leaves the
// user to find out what that was; one that says "region instance of region
// (3,1,1) fields {velocity, pressure}, created by task stencil (UID 812),
// valid" does not.  Legion knows these facts where it creates an instance
// (InstanceBuilder::create_physical_instance, MemoryManager::
// create_task_local_instance, create_future_instance, create_memory_pool),
// and this API carries them into the shadow.
//
// How it works and what it costs
//  - A description is interned once (realm_shadow::InternIdentity,
//    recorder/identity_table.h: one string key built and one hash lookup
//    under the tracker's identity mutex) into a 32-bit id.  Equal
//    descriptions get equal ids, so a thousand instances of one field
//    space share one entry.  Interning allocates; it is off the allocation
//    path and belongs where Legion creates the instance, not where Realm
//    places it.
//  - Attaching is one journal append (realm_shadow_attach_identity), ordered
//    with the memory's other events: attach after Realm has answered the
//    allocation (placed or deferred).  Legion's threads do not hold Realm's
//    allocator_mutex, so a memory that gets identities must be registered
//    REALM_SHADOW_CONCURRENT (INTEGRATION.md).
//  - The GC state maps to the allocation's pinned flag: valid (Legion may not
//    collect it) = pinned, which the blocker query never proposes to release.
//    A change of GC state is a new attach with the same identity id.
//  - Plain strings and integers only: no Legion header, so the glue builds
//    and is tested without Legion.
//
// Attribute keys are realm_shadow/core/identity.h's (kRegionsAttribute,
// kFieldsAttribute, ...), the one set every source writes and every tool
// reads; tools print them in the order given.  Values are free text; empty
// values are left out.
#ifndef REALM_SHADOW_LEGION_GLUE_IDENTITY_H_
#define REALM_SHADOW_LEGION_GLUE_IDENTITY_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "realm_shadow/hooks.h"
#include "realm_shadow/core/identity.h"  // Identity, its attribute keys
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(legion_glue);
namespace legion {

enum class GcState : uint8_t {
  kUnknown = 0,      // not said: not pinned
  kValid = 1,        // Legion holds a valid reference: pinned
  kCollectable = 2,  // the collector may release it: a blocker candidate
};
const char* GcStateName(GcState state);  // "valid", "collectable", "unknown"
inline bool IsPinned(GcState state) { return state == GcState::kValid; }

// What Legion knows of one instance.
struct LegionInstanceDescription {
  AllocationKind kind = AllocationKind::kRegionInstance;
  std::string regions;     // "(3,1,1) (4,1,1)": tree/index/field-space ids
  std::string fields;      // "velocity, pressure" or "fid 101, 102"
  std::string creator;     // "task stencil (UID 812)", "inline mapping", ...
  std::string provenance;  // the application's provenance string
  // Anything else, kept in order after the fields above.
  std::vector<std::pair<std::string, std::string>> extra;
};

// What Legate knows of the store an instance holds.
struct LegateStoreDescription {
  std::string store;       // "Store(14)" or the user's name for it
  std::string shape;       // "(1000, 600)"
  std::string type;        // "float64"
  std::string transform;   // "slice [1:,1:]"
  std::string partition;   // "2x4 tiling in 300x150 tiles"
  std::string provenance;  // "x = np.empty(...) at app.py:12"
};

// Builds the Identity value (not interned); id is left 0.  Useful to compare
// against a snapshot and in tests.
Identity MakeIdentity(const LegionInstanceDescription& description);
// A Legate store held in an instance of `kind` (a region instance unless the
// store lives in a DeferredBuffer, a future, ...).  `legion` adds the Legion
// facts of the same instance (regions, fields, creator) in front.
Identity MakeIdentity(const LegateStoreDescription& store,
                      AllocationKind kind = AllocationKind::kRegionInstance,
                      const LegionInstanceDescription* legion = nullptr);

// Interns a description (off the hot path).  Never 0.
uint32_t InternLegionIdentity(const LegionInstanceDescription& description);
uint32_t InternLegateStore(const LegateStoreDescription& store,
                           AllocationKind kind = AllocationKind::kRegionInstance,
                           const LegionInstanceDescription* legion = nullptr);

// Attaches an interned identity and the GC state to `instance` in `memory`.
// The instance must be live or pending there (Realm answered already).
// A NULL memory does nothing.
void AttachIdentity(realm_shadow_memory* memory, uint64_t instance,
                    uint32_t identity, GcState gc);
// Same, by memory id; false if the memory is not registered.
bool AttachIdentity(uint64_t memory_id, uint64_t instance, uint32_t identity,
                    GcState gc);

// A new GC state for an instance whose identity was attached through this
// glue (the glue remembers the last identity attached to each (memory,
// instance)): re-attaches that identity with the new pinned flag.  An
// instance the glue never described gets no identity (id 0), only the
// flag.  False if the memory is not registered.
bool SetGcState(uint64_t memory_id, uint64_t instance, GcState gc);
// The identity last attached through this glue to (memory, instance), or 0.
uint32_t AttachedIdentity(uint64_t memory_id, uint64_t instance);

// The identity an allocation carries in a snapshot, or nullptr.
const Identity* IdentityOf(const Snapshot& snapshot,
                           const Allocation& allocation);
// "kind key=value key=value" on one line, for reports; "unknown" if none.
std::string DescribeIdentity(const Identity* identity);
// The value of `key`, or "" when absent.
std::string IdentityAttribute(const Identity& identity, const std::string& key);

}  // namespace legion
}  // namespace realm_shadow

#endif  // REALM_SHADOW_LEGION_GLUE_IDENTITY_H_
