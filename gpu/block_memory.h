// gpu/block_memory.h - a Realm-style memory made of one CUDA
// block carved up by first fit: the common part of FramebufferMemory
// (cudaMalloc) and ZeroCopyMemory (mapped cudaHostAlloc).
//
// It plays LocalManagedMemory without deferral: every request is an instant
// success or an instant failure, placed by the model's RangeAllocator
// (model/range_allocator.h) exactly where Realm's
// BasicRangeAllocator would put it: first fit in address order, alignment
// applied to the offset, merge on free, zero-byte requests at offset 0.
//
// Guarantees
//  - Ordering: the memory registers as REALM_SHADOW_SERIALIZED and calls
//    every hook while it holds its allocator mutex, as Realm does, so the
//    shadow sees events in the order the allocator made them.
//  - Offsets reported to the hooks are relative to the block's base:
//    device_base() + offset is the instance's device pointer.
//  - Cost: one mutex, the first-fit walk, one hook.  No CUDA call on
//    allocate or release; the block is obtained once at creation.
//  - tracked = false gives a NULL shadow handle: the hooks do nothing, which
//    is the untracked baseline of the benchmark.
//
// Thread-safe.  The block is freed by the destructor; the shadow memory
// stays registered (the tracker never unregisters) and is told every live
// instance was released first.
#ifndef REALM_SHADOW_GPU_BLOCK_MEMORY_H_
#define REALM_SHADOW_GPU_BLOCK_MEMORY_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "gpu/gpu_allocation.h"
#include "realm_shadow/hooks.h"
#include "model/range_allocator.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(gpu);
namespace gpu {

class BlockMemory {
 public:
  BlockMemory(const BlockMemory&) = delete;
  BlockMemory& operator=(const BlockMemory&) = delete;
  virtual ~BlockMemory() = default;

  // Instant success (true, *offset set, realm_shadow_allocated) or instant
  // failure (false, realm_shadow_allocation_failed).  An instance that is
  // already live fails without a hook: Realm never reuses a live id.
  bool Allocate(uint64_t instance, uint64_t size, uint64_t alignment,
                uint64_t* offset);
  // Queues a release (realm_shadow_release_requested); the range stays
  // occupied until Release.  False if the instance is not live.
  bool RequestRelease(uint64_t instance, bool ready);
  // Gives the range back (realm_shadow_released).  False if not live.
  bool Release(uint64_t instance);

  bool Find(uint64_t instance, GpuAllocation* out) const;
  // Every live instance, by ascending offset then instance.
  std::vector<GpuAllocation> LiveAllocations() const;
  uint64_t used_bytes() const;
  uint64_t largest_hole() const;

  uint64_t memory_id() const { return memory_id_; }
  uint64_t capacity() const { return capacity_; }
  const std::string& name() const { return name_; }
  void* device_base() const { return device_base_; }
  void* host_base() const { return host_base_; }  // null unless zero-copy
  realm_shadow_memory* shadow() const { return shadow_; }

 protected:
  // The block must be valid for the object's life; the subclass frees it
  // in its destructor after calling ReleaseAllForShutdown().
  BlockMemory(uint64_t memory_id, realm_shadow_memory_kind kind,
              uint64_t capacity, std::string name, bool tracked,
              void* device_base, void* host_base);
  // Reports a release of every live instance, as Realm's memory does when
  // its instances are destroyed before the block goes away.
  void ReleaseAllForShutdown();
  // A subclass's Create refuses an empty block before any CUDA call: true
  // for capacity 0, with *error (when not null) "<what> capacity must be > 0".
  static bool CapacityRefused(uint64_t capacity, const char* what,
                              std::string* error);

 private:
  GpuAllocation Describe(uint64_t instance, uint64_t offset,
                         uint64_t size) const;

  const uint64_t memory_id_;
  const uint64_t capacity_;
  const std::string name_;
  void* const device_base_;
  void* const host_base_;
  realm_shadow_memory* const shadow_;
  mutable std::mutex allocator_mutex_;
  model::RangeAllocator allocator_;  // guarded by allocator_mutex_
  // The live instances, to list them (the allocator looks up by tag only).
  absl::flat_hash_set<uint64_t> live_;  // guarded by allocator_mutex_
};

}  // namespace gpu
}  // namespace realm_shadow

#endif  // REALM_SHADOW_GPU_BLOCK_MEMORY_H_
