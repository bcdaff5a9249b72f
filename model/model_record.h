// model/model_record.h - what the model memory knows of one instance.
// Internal to the model memory (model_memory.cc, model_outcomes.cc).
#ifndef REALM_SHADOW_MODEL_MODEL_RECORD_H_
#define REALM_SHADOW_MODEL_MODEL_RECORD_H_

#include <cstdint>

#include "model/model_memory.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(model);
namespace model {

// One cache line (alignas 64, 64 bytes): a release at 100k live reads a
// random record and resets it, and 88 bytes with a vector inside took two
// lines, two prefetches and a vector move per reset.  A redistrict's piece
// keys live beside the records (ModelMemory::piece_keys_): redistricts are
// rare, releases are not.
struct alignas(64) ModelMemory::Record {
  uint64_t key = 0;
  uint64_t instance = 0;
  uint64_t size = 0;
  uint64_t alignment = 0;
  Event destroy_after = kNoEvent;
  uint64_t first_piece_instance = 0;  // a redistrict's first piece
  InstanceState state = InstanceState::kUnknown;
  bool reported_pending = false;   // the shadow holds it as deferred

  // Destruction.
  bool destroy_requested = false;
  bool destroy_when_placed = false;  // destroyed while still pending
  bool delayed_destroy = false;      // Realm's INSTOFFSET_DELAYEDDESTROY
  bool destroy_fired_early = false;  // destroy event fired before creation
  bool destroy_fired_poisoned = false;
  bool cancelled = false;            // creation cancelled before its event
  bool acknowledged = false;         // id freed (notify_deallocation)
  bool range_released = false;       // heap gave the range back

  // Redistrict: this (old) instance is split into the pieces whose keys
  // ModelMemory::piece_keys_ holds under this record's key.
  bool is_redistrict = false;
};


}  // namespace model
}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_MODEL_RECORD_H_
