#include "gpu/block_memory.h"

#include <algorithm>
#include <utility>

namespace realm_shadow {
namespace gpu {

BlockMemory::BlockMemory(uint64_t memory_id, realm_shadow_memory_kind kind,
                         uint64_t capacity, std::string name, bool tracked,
                         void* device_base, void* host_base)
    : memory_id_(memory_id),
      capacity_(capacity),
      name_(std::move(name)),
      device_base_(device_base),
      host_base_(host_base),
      shadow_(tracked ? realm_shadow_register_memory(memory_id, kind, capacity,
                                                     name_.c_str(),
                                                     REALM_SHADOW_SERIALIZED)
                      : nullptr),
      allocator_(capacity) {}

bool BlockMemory::Allocate(uint64_t instance, uint64_t size,
                           uint64_t alignment, uint64_t* offset) {
  std::lock_guard<std::mutex> lock(allocator_mutex_);
  if (allocator_.Contains(instance)) return false;
  if (!allocator_.Allocate(instance, size, alignment, offset)) {
    realm_shadow_allocation_failed(shadow_, instance, size, alignment);
    return false;
  }
  live_.insert(instance);
  realm_shadow_allocated(shadow_, instance, *offset, size, alignment);
  return true;
}

bool BlockMemory::RequestRelease(uint64_t instance, bool ready) {
  std::lock_guard<std::mutex> lock(allocator_mutex_);
  if (!allocator_.Contains(instance)) return false;
  realm_shadow_release_requested(shadow_, instance, ready ? 1 : 0);
  return true;
}

bool BlockMemory::Release(uint64_t instance) {
  std::lock_guard<std::mutex> lock(allocator_mutex_);
  if (!allocator_.Deallocate(instance)) return false;
  live_.erase(instance);
  realm_shadow_released(shadow_, instance);
  return true;
}

GpuAllocation BlockMemory::Describe(uint64_t instance, uint64_t offset,
                                    uint64_t size) const {
  GpuAllocation a;
  a.instance = instance;
  a.offset = offset;
  a.size = size;
  a.device_pointer = static_cast<char*>(device_base_) + offset;
  if (host_base_) a.host_pointer = static_cast<char*>(host_base_) + offset;
  return a;
}

bool BlockMemory::Find(uint64_t instance, GpuAllocation* out) const {
  std::lock_guard<std::mutex> lock(allocator_mutex_);
  uint64_t offset, size;
  if (!allocator_.Lookup(instance, &offset, &size)) return false;
  *out = Describe(instance, offset, size);
  return true;
}

std::vector<GpuAllocation> BlockMemory::LiveAllocations() const {
  std::vector<GpuAllocation> live;
  {
    std::lock_guard<std::mutex> lock(allocator_mutex_);
    live.reserve(live_.size());
    for (uint64_t instance : live_) {
      uint64_t offset = 0, size = 0;
      allocator_.Lookup(instance, &offset, &size);
      live.push_back(Describe(instance, offset, size));
    }
  }
  SortByOffset(&live);
  return live;
}

uint64_t BlockMemory::used_bytes() const {
  std::lock_guard<std::mutex> lock(allocator_mutex_);
  return allocator_.capacity() - allocator_.free_bytes();
}

uint64_t BlockMemory::largest_hole() const {
  std::lock_guard<std::mutex> lock(allocator_mutex_);
  return allocator_.largest_free();
}

bool BlockMemory::CapacityRefused(uint64_t capacity, const char* what,
                                  std::string* error) {
  if (capacity > 0) return false;
  if (error) *error = std::string(what) + " capacity must be > 0";
  return true;
}

void BlockMemory::ReleaseAllForShutdown() {
  std::lock_guard<std::mutex> lock(allocator_mutex_);
  std::vector<uint64_t> live(live_.begin(), live_.end());
  std::sort(live.begin(), live.end());
  for (uint64_t instance : live) {
    allocator_.Deallocate(instance);
    realm_shadow_released(shadow_, instance);
  }
  live_.clear();
}

}  // namespace gpu
}  // namespace realm_shadow
