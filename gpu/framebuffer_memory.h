// gpu/framebuffer_memory.h - Realm's GPU_FB_MEM on a real
// device: one cudaMalloc block, sub-allocated first fit (see BlockMemory),
// tracked as REALM_SHADOW_MEM_FRAMEBUFFER.
//
// Realm reserves the framebuffer once at start-up (-ll:fsize) with
// cuMemAlloc and never returns it to CUDA while it runs; this does the same
// with cudaMalloc, on the device current at Create.  The block is at least
// 256-byte aligned (cudaMalloc's guarantee), so an alignment up to 256 on an
// offset is the same alignment on the device pointer.
#ifndef REALM_SHADOW_GPU_FRAMEBUFFER_MEMORY_H_
#define REALM_SHADOW_GPU_FRAMEBUFFER_MEMORY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "gpu/block_memory.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(gpu);
namespace gpu {

class FramebufferMemory : public BlockMemory {
 public:
  // Null with *error set when cudaMalloc fails (no device, out of memory).
  static std::unique_ptr<FramebufferMemory> Create(
      uint64_t memory_id, uint64_t capacity, const std::string& name,
      bool tracked, std::string* error);
  ~FramebufferMemory() override;

 private:
  using BlockMemory::BlockMemory;  // Create's, protected as BlockMemory's
};

}  // namespace gpu
}  // namespace realm_shadow

#endif  // REALM_SHADOW_GPU_FRAMEBUFFER_MEMORY_H_
