// gpu/gpu_allocation.h - what a CUDA-backed memory says about
// one of its live instances: the ground truth the GPU tests compare the
// shadow against.
#ifndef REALM_SHADOW_GPU_GPU_ALLOCATION_H_
#define REALM_SHADOW_GPU_GPU_ALLOCATION_H_

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(gpu);
namespace gpu {

struct GpuAllocation {
  uint64_t instance = 0;
  // What the memory reported to the hooks: an offset from the block's base
  // (framebuffer, zero-copy) or the device address itself (dynamic
  // framebuffer).
  uint64_t offset = 0;
  uint64_t size = 0;
  // Where a kernel reaches the bytes; null for a zero-byte instance of the
  // dynamic framebuffer, which owns no CUDA allocation.
  void* device_pointer = nullptr;
  // Where the host reaches them (zero-copy only; null otherwise).
  void* host_pointer = nullptr;
};

// The order LiveAllocations lists in: ascending offset (or address), then
// instance, so a zero-byte instance sharing an offset sorts the same way in
// every run and the tests can compare lists whole.
inline void SortByOffset(std::vector<GpuAllocation>* live) {
  std::sort(live->begin(), live->end(),
            [](const GpuAllocation& a, const GpuAllocation& b) {
              return std::tie(a.offset, a.instance) <
                     std::tie(b.offset, b.instance);
            });
}

}  // namespace gpu
}  // namespace realm_shadow

#endif  // REALM_SHADOW_GPU_GPU_ALLOCATION_H_
