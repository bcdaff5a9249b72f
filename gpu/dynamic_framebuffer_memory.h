// gpu/dynamic_framebuffer_memory.h - Realm's GPU_DYNAMIC_MEM
// (GPUDynamicFBMemory, -cuda:dynfb 1) on a real device: every instance is
// its own cudaMalloc, the "offset" is the device address, and the bytes in
// use are capped (-cuda:dynfb_max).  Tracked as
// REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER with REALM_SHADOW_CONCURRENT |
// REALM_SHADOW_ADDRESSED.
//
// Concurrency, as in Realm: several threads allocate and release at once.
// The memory's own mutex guards only its bookkeeping (bytes charged against
// the cap, instance -> address); cudaMalloc, cudaFree and the hooks run
// outside it, so a slow cudaMalloc on one thread does not hold up another.
//
// Ordering (hooks.h): a release is reported before cudaFree hands the
// address back, and an allocation after cudaMalloc returns it.  So when
// CUDA gives a freed address to another thread at once, that thread's
// `allocated` is behind this thread's `released` in the journal, and the
// shadow never sees two live instances on one address.
//
// Cap: a request is charged against the cap before cudaMalloc and the
// charge is returned after cudaFree, so the bytes CUDA holds for this
// memory never exceed max_bytes, even while threads race.  A request that
// would pass the cap, a cudaMalloc that fails, and an alignment above
// kMaxAlignment are instant failures (realm_shadow_allocation_failed).
//
// Zero-byte instances own no CUDA allocation; they are reported live at
// address 0, where they occupy nothing (snapshot.h).
#ifndef REALM_SHADOW_GPU_DYNAMIC_FRAMEBUFFER_MEMORY_H_
#define REALM_SHADOW_GPU_DYNAMIC_FRAMEBUFFER_MEMORY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "gpu/gpu_allocation.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(gpu);
namespace gpu {

class DynamicFramebufferMemory {
 public:
  // cudaMalloc returns addresses aligned to at least 256 bytes; a request
  // for more cannot be honoured without padding the address, which would
  // make it differ from the pointer Realm records.
  static constexpr uint64_t kMaxAlignment = 256;

  enum class Outcome {
    kAllocated,
    kOverCap,        // bytes in use + size > max_bytes
    kCudaFailed,     // cudaMalloc refused (the device is out of memory)
    kBadAlignment,   // alignment > kMaxAlignment
    kDuplicate,      // the instance is live or being allocated (no hook)
  };
  static const char* OutcomeName(Outcome outcome);

  // Never fails: nothing is allocated until the first request.
  static std::unique_ptr<DynamicFramebufferMemory> Create(
      uint64_t memory_id, uint64_t max_bytes, const std::string& name,
      bool tracked);
  DynamicFramebufferMemory(const DynamicFramebufferMemory&) = delete;
  DynamicFramebufferMemory& operator=(const DynamicFramebufferMemory&) =
      delete;
  // Releases (and reports) every live instance, then the memory.
  ~DynamicFramebufferMemory();

  // Thread-safe.  On kAllocated, *address is the device address (0 for a
  // zero-byte instance).
  Outcome Allocate(uint64_t instance, uint64_t size, uint64_t alignment,
                   uint64_t* address);
  // Thread-safe.  False if the instance is not live.
  bool Release(uint64_t instance);

  bool Find(uint64_t instance, GpuAllocation* out) const;
  // Every live instance, by ascending address then instance.
  std::vector<GpuAllocation> LiveAllocations() const;
  // Bytes charged against the cap (live + being allocated + being freed).
  uint64_t bytes_charged() const;
  uint64_t cuda_failures() const {
    return cuda_failures_.load(std::memory_order_relaxed);
  }

  uint64_t memory_id() const { return memory_id_; }
  uint64_t max_bytes() const { return max_bytes_; }
  realm_shadow_memory* shadow() const { return shadow_; }

 private:
  DynamicFramebufferMemory(uint64_t memory_id, uint64_t max_bytes,
                           const std::string& name, bool tracked);

  struct Entry {
    uint64_t address = 0;
    uint64_t size = 0;
    bool placed = false;  // false while its cudaMalloc is in flight
  };

  const uint64_t memory_id_;
  const uint64_t max_bytes_;
  const std::string name_;
  realm_shadow_memory* const shadow_;
  std::atomic<uint64_t> cuda_failures_{0};

  mutable std::mutex mutex_;  // bookkeeping only; never held across CUDA
  uint64_t bytes_charged_ = 0;                       // guarded by mutex_
  absl::flat_hash_map<uint64_t, Entry> instances_;   // guarded by mutex_
};

}  // namespace gpu
}  // namespace realm_shadow

#endif  // REALM_SHADOW_GPU_DYNAMIC_FRAMEBUFFER_MEMORY_H_
