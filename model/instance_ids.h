// model/instance_ids.h - instance ids with Realm's bit layout, and Realm's
// reuse of them.
//
// An instance id is tag 01 in bits 63-62, the owner node in 61-46, the
// creator node in 45-30, the memory's index in 29-22 and the instance's
// index in 21-0 (shared/fixtures INDEX.txt).  Indices are reused the way
// Realm's free list does: the most recently freed first, fresh ones in
// increasing order after them.
#ifndef REALM_SHADOW_MODEL_INSTANCE_IDS_H_
#define REALM_SHADOW_MODEL_INSTANCE_IDS_H_

#include <cstdint>
#include <vector>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(model);
namespace model {

class InstanceIds {
 public:
  // memory_id: the memory's Realm id (its owner node and index go into
  // every instance id); creator_node: the node that creates the instances.
  InstanceIds(uint64_t memory_id, uint32_t creator_node)
      : base_((uint64_t{1} << 62) | (((memory_id >> 40) & 0xffff) << 46) |
              (uint64_t{creator_node & 0xffff} << 30) | ((memory_id & 0xff) << 22)) {}

  // The index is an id's low 22 bits.
  static constexpr uint32_t kIndexMask = (1u << 22) - 1;  // 0x3fffff
  static uint32_t IndexOf(uint64_t instance) {
    return static_cast<uint32_t>(instance & kIndexMask);
  }

  // The id of index `index` in this memory (inline, from the bits every id
  // of the memory shares: the model makes or checks one for every create
  // and destroy).
  uint64_t Make(uint32_t index) const { return base_ | (index & kIndexMask); }
  // A free index (the most recently released first); false when all 2^22
  // are in use (Realm's INSTANCE_COUNT_EXCEEDED).
  bool Acquire(uint32_t* index);
  // Makes the instance's index free again.
  void Release(uint64_t instance);
  // How many indices can still be acquired.
  uint64_t available() const;
  // The memory an instance id belongs to (INDEX.txt's formula).
  static uint64_t MemoryOf(uint64_t instance);

 private:
  uint64_t base_;  // tag, owner, creator and memory index: Make(0)
  std::vector<uint32_t> free_;  // most recently freed at the back
  uint32_t next_ = 0;
};

}  // namespace model
}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_INSTANCE_IDS_H_
