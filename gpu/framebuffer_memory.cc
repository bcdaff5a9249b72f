#include "gpu/framebuffer_memory.h"

#include <cuda_runtime_api.h>

#include "gpu/cuda_device.h"

namespace realm_shadow {
namespace gpu {

std::unique_ptr<FramebufferMemory> FramebufferMemory::Create(
    uint64_t memory_id, uint64_t capacity, const std::string& name,
    bool tracked, std::string* error) {
  if (CapacityRefused(capacity, "framebuffer", error)) return nullptr;
  void* block = nullptr;
  if (CudaCallFailed(cudaMalloc(&block, capacity),
                     "cudaMalloc(" + std::to_string(capacity) +
                         ") for the framebuffer",
                     error))
    return nullptr;
  return std::unique_ptr<FramebufferMemory>(
      new FramebufferMemory(memory_id, REALM_SHADOW_MEM_FRAMEBUFFER, capacity,
                            name, tracked, block, /*host_base=*/nullptr));
}

FramebufferMemory::~FramebufferMemory() {
  ReleaseAllForShutdown();
  cudaFree(device_base());
}

}  // namespace gpu
}  // namespace realm_shadow
