#include "gpu/dynamic_framebuffer_memory.h"

#include <cuda_runtime_api.h>

#include <algorithm>

namespace realm_shadow {
namespace gpu {

const char* DynamicFramebufferMemory::OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kAllocated: return "allocated";
    case Outcome::kOverCap: return "over-cap";
    case Outcome::kCudaFailed: return "cuda-failed";
    case Outcome::kBadAlignment: return "bad-alignment";
    case Outcome::kDuplicate: return "duplicate";
  }
  return "unknown";
}

std::unique_ptr<DynamicFramebufferMemory> DynamicFramebufferMemory::Create(
    uint64_t memory_id, uint64_t max_bytes, const std::string& name,
    bool tracked) {
  return std::unique_ptr<DynamicFramebufferMemory>(
      new DynamicFramebufferMemory(memory_id, max_bytes, name, tracked));
}

DynamicFramebufferMemory::DynamicFramebufferMemory(uint64_t memory_id,
                                                   uint64_t max_bytes,
                                                   const std::string& name,
                                                   bool tracked)
    : memory_id_(memory_id),
      max_bytes_(max_bytes),
      name_(name),
      shadow_(tracked ? realm_shadow_register_memory(
                            memory_id, REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER,
                            max_bytes, name_.c_str(),
                            REALM_SHADOW_CONCURRENT | REALM_SHADOW_ADDRESSED)
                      : nullptr) {}

DynamicFramebufferMemory::~DynamicFramebufferMemory() {
  std::vector<uint64_t> live;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [instance, entry] : instances_) {
      if (entry.placed) live.push_back(instance);
    }
  }
  std::sort(live.begin(), live.end());
  for (uint64_t instance : live) Release(instance);
}

DynamicFramebufferMemory::Outcome DynamicFramebufferMemory::Allocate(
    uint64_t instance, uint64_t size, uint64_t alignment, uint64_t* address) {
  if (alignment > kMaxAlignment) {
    realm_shadow_allocation_failed(shadow_, instance, size, alignment);
    return Outcome::kBadAlignment;
  }
  bool over_cap = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (instances_.contains(instance)) return Outcome::kDuplicate;
    over_cap = size > max_bytes_ - bytes_charged_;
    if (!over_cap) {
      bytes_charged_ += size;
      instances_.emplace(instance, Entry{0, size, false});
    }
  }
  if (over_cap) {  // reported here: hooks never run under the mutex
    realm_shadow_allocation_failed(shadow_, instance, size, alignment);
    return Outcome::kOverCap;
  }
  void* pointer = nullptr;
  if (size > 0) {
    const cudaError_t status = cudaMalloc(&pointer, size);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      cuda_failures_.fetch_add(1, std::memory_order_relaxed);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        bytes_charged_ -= size;
        instances_.erase(instance);
      }
      realm_shadow_allocation_failed(shadow_, instance, size, alignment);
      return Outcome::kCudaFailed;
    }
  }
  const uint64_t placed_at = reinterpret_cast<uintptr_t>(pointer);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Entry& entry = instances_[instance];
    entry.address = placed_at;
    entry.placed = true;
  }
  // After cudaMalloc: the address is ours before the shadow hears of it.
  realm_shadow_allocated(shadow_, instance, placed_at, size, alignment);
  *address = placed_at;
  return Outcome::kAllocated;
}

bool DynamicFramebufferMemory::Release(uint64_t instance) {
  Entry entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = instances_.find(instance);
    if (found == instances_.end() || !found->second.placed) return false;
    entry = found->second;
    instances_.erase(found);
  }
  // Before cudaFree: once the address is handed back another thread may get
  // it, and its `allocated` must come after this `released`.
  realm_shadow_released(shadow_, instance);
  if (entry.size > 0) {
    cudaFree(reinterpret_cast<void*>(static_cast<uintptr_t>(entry.address)));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  bytes_charged_ -= entry.size;
  return true;
}

bool DynamicFramebufferMemory::Find(uint64_t instance,
                                    GpuAllocation* out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = instances_.find(instance);
  if (found == instances_.end() || !found->second.placed) return false;
  out->instance = instance;
  out->offset = found->second.address;
  out->size = found->second.size;
  out->device_pointer =
      reinterpret_cast<void*>(static_cast<uintptr_t>(found->second.address));
  out->host_pointer = nullptr;
  return true;
}

std::vector<GpuAllocation> DynamicFramebufferMemory::LiveAllocations() const {
  std::vector<GpuAllocation> live;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    live.reserve(instances_.size());
    for (const auto& [instance, entry] : instances_) {
      if (!entry.placed) continue;
      GpuAllocation a;
      a.instance = instance;
      a.offset = entry.address;
      a.size = entry.size;
      a.device_pointer =
          reinterpret_cast<void*>(static_cast<uintptr_t>(entry.address));
      live.push_back(a);
    }
  }
  SortByOffset(&live);
  return live;
}

uint64_t DynamicFramebufferMemory::bytes_charged() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_charged_;
}

}  // namespace gpu
}  // namespace realm_shadow
