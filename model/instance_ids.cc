// model/instance_ids.cc - see instance_ids.h.
#include "model/instance_ids.h"

namespace realm_shadow {
namespace model {

uint64_t InstanceIds::MemoryOf(uint64_t instance) {
  return (uint64_t{0x1e} << 56) | (((instance >> 46) & 0xffff) << 40) |
         ((instance >> 22) & 0xff);
}

bool InstanceIds::Acquire(uint32_t* index) {
  if (!free_.empty()) {
    *index = free_.back();
    free_.pop_back();
    return true;
  }
  if (next_ > kIndexMask) return false;
  *index = next_++;
  return true;
}

void InstanceIds::Release(uint64_t instance) {
  free_.push_back(IndexOf(instance));
}

uint64_t InstanceIds::available() const {
  return free_.size() + (uint64_t{kIndexMask} + 1 - next_);
}

}  // namespace model
}  // namespace realm_shadow
