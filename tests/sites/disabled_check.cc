// Without REALM_SHADOW_ENABLED every helper, the heap observer and the entry
// sites are empty inline code: this program links without the library
// (nothing to resolve) and records nothing.
#include "realm_shadow/realm_sites.h"

#include <cstdio>

#include "tests/sites/realm_shaped_heap.h"
#include "tests/sites/realm_stand_ins.h"

using realm_shadow::testing::FakeEvent;
using realm_shadow::testing::FakeInstanceImpl;
using realm_shadow::testing::FakeLayout;
using realm_shadow::testing::FakeMemory;

constexpr FakeMemory kSystem{0x1e00000000000000ull};

int main() {
  static_assert(REALM_SHADOW_ENABLED == 0, "this check builds without tracking");
  realm_shadow::testing::RealmShapedHeap current(1 << 20), future(1 << 20);
  realm_shadow::site::ObserveManagedMemory(kSystem, 2, 1 << 20, current,
                                           future);
  if (current.shadow_observer.observed()) {
    std::puts("a heap is observed with tracking compiled out");
    return 1;
  }
  uint64_t at = 0;
  current.allocate(realm_shadow::testing::FakeInstance{1}, 64, 32, at);
  FakeLayout layout{64, 32};
  FakeInstanceImpl inst{{0x4000000000000001ull}, kSystem, {0, &layout}};
  realm_shadow::site::ReleaseRequested(current.shadow_observer, &inst, FakeEvent{});
  realm_shadow::site::AllocationOutcome(inst, REALM_SHADOW_ALLOC_INSTANT_FAILURE);
  realm_shadow_memory* m = realm_shadow_site_register_dynamic_fb(
      0x1e00000000000003ull, 1 << 20, "dynfb");
  if (m != nullptr) {
    std::puts("registration returned a handle with tracking compiled out");
    return 1;
  }
  realm_shadow_site_dynamic_fb_allocated(m, 2, 0x7f0000000000ull, 256);
  // The dynamic framebuffer's sites, as Realm's CUDA module calls them.
  realm_shadow::site::DynamicFramebufferShadow dynfb;
  realm_shadow::site::ObserveDynamicFramebuffer(dynfb, kSystem, 1 << 20);
  if (dynfb.memory != nullptr) {
    std::puts("a dynamic framebuffer is tracked with tracking compiled out");
    return 1;
  }
  realm_shadow::site::DynamicFramebufferAllocated(dynfb, &inst,
                                                  0x7f0000000000ull, 64);
  realm_shadow::site::DynamicFramebufferReleased(dynfb, &inst);
  // The kind mapping is plain C and works either way.
  return realm_shadow_kind_from_realm_name("GPU_FB_MEM") ==
                 REALM_SHADOW_MEM_FRAMEBUFFER
             ? 0
             : 1;
}
