// model/model_record.h - what the model memory knows of one instance.
// Internal to the model memory (model_memory.cc, model_outcomes.cc).
#ifndef REALM_SHADOW_MODEL_MODEL_RECORD_H_
#define REALM_SHADOW_MODEL_MODEL_RECORD_H_

#include <cstdint>
#include <vector>

#include "model/model_memory.h"

namespace realm_shadow {
namespace model {

struct ModelMemory::Record {
  uint64_t key = 0;
  uint64_t instance = 0;
  uint64_t size = 0;
  uint64_t alignment = 0;
  InstanceState state = InstanceState::kUnknown;
  bool reported_pending = false;   // the shadow holds it as deferred

  // Destruction.
  bool destroy_requested = false;
  Event destroy_after = kNoEvent;
  bool destroy_when_placed = false;  // destroyed while still pending
  bool delayed_destroy = false;      // Realm's INSTOFFSET_DELAYEDDESTROY
  bool destroy_fired_early = false;  // destroy event fired before creation
  bool destroy_fired_poisoned = false;
  bool cancelled = false;            // creation cancelled before its event
  bool acknowledged = false;         // id freed (notify_deallocation)
  bool range_released = false;       // heap gave the range back

  // Redistrict: this (old) instance is split into these pieces' records.
  bool is_redistrict = false;
  std::vector<uint64_t> piece_keys;
  uint64_t first_piece_instance = 0;
};

}  // namespace model
}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_MODEL_RECORD_H_
