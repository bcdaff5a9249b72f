#include "gpu/zero_copy_memory.h"

#include <cuda_runtime_api.h>

#include "gpu/cuda_device.h"

namespace realm_shadow {
namespace gpu {

std::unique_ptr<ZeroCopyMemory> ZeroCopyMemory::Create(
    uint64_t memory_id, uint64_t capacity, const std::string& name,
    bool tracked, std::string* error) {
  if (CapacityRefused(capacity, "zero-copy", error)) return nullptr;
  void* host = nullptr;
  if (CudaCallFailed(cudaHostAlloc(&host, capacity,
                                   cudaHostAllocMapped | cudaHostAllocPortable),
                     "cudaHostAlloc(" + std::to_string(capacity) +
                         ", Mapped|Portable) for zero-copy",
                     error))
    return nullptr;
  void* device = nullptr;
  if (CudaCallFailed(cudaHostGetDevicePointer(&device, host, 0),
                     "cudaHostGetDevicePointer for zero-copy", error)) {
    cudaFreeHost(host);
    return nullptr;
  }
  return std::unique_ptr<ZeroCopyMemory>(
      new ZeroCopyMemory(memory_id, REALM_SHADOW_MEM_ZERO_COPY, capacity, name,
                         tracked, device, host));
}

ZeroCopyMemory::~ZeroCopyMemory() {
  ReleaseAllForShutdown();
  cudaFreeHost(host_base());
}

}  // namespace gpu
}  // namespace realm_shadow
