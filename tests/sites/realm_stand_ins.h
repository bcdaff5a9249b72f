// tests/sites/realm_stand_ins.h - stand-ins for the Realm types the site
// helpers of realm_shadow/realm_sites.h read, with Realm's member names, so
// that the sites compile and run without Realm: an instance handle, a
// memory handle with Memory::Kind, a RegionInstanceImpl (its handle, its
// memory, its metadata with the layout's size and alignment), an Event, and
// the members of a heap that its HeapObserver reads.
// C++17, like the Realm that includes the sites (sites.compiled_out).
#ifndef REALM_SHADOW_TESTS_SITES_REALM_STAND_INS_H_
#define REALM_SHADOW_TESTS_SITES_REALM_STAND_INS_H_

#include <cstdint>
#include <map>
#include <vector>

#include "realm_shadow/heap_observer.h"

namespace realm_shadow::testing {

struct FakeInstance {  // Realm::RegionInstance: an id, ordered by it
  uint64_t id = 0;
  bool operator<(const FakeInstance& o) const { return id < o.id; }
  bool operator==(const FakeInstance& o) const { return id == o.id; }
};

// Realm::Memory: an id, and Memory::Kind in realm_c.h's order.
struct FakeMemory {
  enum Kind {
    NO_MEMKIND, GLOBAL_MEM, SYSTEM_MEM, REGDMA_MEM, SOCKET_MEM, Z_COPY_MEM,
    GPU_FB_MEM, DISK_MEM, HDF_MEM, FILE_MEM, LEVEL3_CACHE, LEVEL2_CACHE,
    LEVEL1_CACHE, GPU_MANAGED_MEM, GPU_DYNAMIC_MEM
  };
  uint64_t id = 0;
};

struct FakeLayout {  // InstanceLayoutGeneric
  uint64_t bytes_used = 0;
  uint64_t alignment_reqd = 0;
};
struct FakeMetadata {  // RegionInstanceImpl::Metadata
  uint64_t ext_resource = 0;
  FakeLayout* layout = nullptr;
};
struct FakeInstanceImpl {  // RegionInstanceImpl: what the sites read
  FakeInstance me;
  FakeMemory memory;
  FakeMetadata metadata;
};

// The members of Realm's BasicRangeAllocator<size_t, Tag> that a
// HeapObserver reads (heap_observer.h): the map from tag to range index,
// the ranges, the zero-byte SENTINEL, and the observer itself.
template <typename Tag>
struct RealmHeapMembers {
  struct Range {
    uint64_t first, last;
  };
  static const unsigned SENTINEL = 0;
  std::map<Tag, unsigned> allocated;
  std::vector<Range> ranges;
  realm_shadow::HeapObserver shadow_observer;
};

struct FakeEvent {  // Realm::Event
  bool triggered = true;
  bool poisoned = false;
  bool has_triggered_faultaware(bool& p) const {
    p = poisoned;
    return triggered;
  }
};

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_SITES_REALM_STAND_INS_H_
