// gpu/zero_copy_memory.h - Realm's Z_COPY_MEM on a real
// device: pinned host memory mapped into the device's address space
// (cudaHostAlloc with cudaHostAllocMapped | cudaHostAllocPortable),
// sub-allocated first fit (see BlockMemory), tracked as
// REALM_SHADOW_MEM_ZERO_COPY.
//
// The same offset reaches an instance from both sides: host_base() + offset
// on the CPU and device_base() + offset (cudaHostGetDevicePointer) in a
// kernel.  Offsets are what the shadow records, so one snapshot describes
// both views.
#ifndef REALM_SHADOW_GPU_ZERO_COPY_MEMORY_H_
#define REALM_SHADOW_GPU_ZERO_COPY_MEMORY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "gpu/block_memory.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(gpu);
namespace gpu {

class ZeroCopyMemory : public BlockMemory {
 public:
  // Null with *error set when cudaHostAlloc or cudaHostGetDevicePointer
  // fails.
  static std::unique_ptr<ZeroCopyMemory> Create(
      uint64_t memory_id, uint64_t capacity, const std::string& name,
      bool tracked, std::string* error);
  ~ZeroCopyMemory() override;

 private:
  using BlockMemory::BlockMemory;  // Create's, protected as BlockMemory's
};

}  // namespace gpu
}  // namespace realm_shadow

#endif  // REALM_SHADOW_GPU_ZERO_COPY_MEMORY_H_
