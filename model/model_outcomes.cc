// model/model_outcomes.cc - what the model memory reports, and the
// bookkeeping after its algorithms decide: allocation outcomes (Realm's
// notify_allocation), releases applied to the current heap, destroys
// acknowledged (Realm's notify_deallocation).
#include <utility>
#include <vector>

#include "model/model_memory.h"
#include "model/model_record.h"

namespace realm_shadow {
namespace model {

void ModelMemory::OnAllocationOutcome(uint64_t key, AllocationResult result,
                                      uint64_t offset) {
  if (Record* r = FindByKey(key)) OnAllocationOutcome(*r, result, offset);
}

void ModelMemory::OnAllocationOutcome(Record& record, AllocationResult result,
                                      uint64_t offset, bool observe) {
  Record* r = &record;
  const uint64_t key = r->key;
  ++outcomes_[static_cast<int>(result)];
  const uint64_t instance = r->instance;
  switch (result) {
    case AllocationResult::kInstantSuccess:
    case AllocationResult::kEventualSuccess:
      // A destroy queued before the creation fired keeps it release-pending.
      if (r->destroy_requested && !r->destroy_when_placed)
        r->state = InstanceState::kReleasePending;
      else
        r->state = InstanceState::kLive;
      if (r->reported_pending)
        realm_shadow_deferred_completed(decisions_, instance, offset);
      else
        realm_shadow_allocated(decisions_, instance, offset, r->size, r->alignment);
      r->reported_pending = false;
      break;
    case AllocationResult::kDeferred:
      r->state = InstanceState::kPending;
      if (!r->reported_pending) {
        r->reported_pending = true;
        realm_shadow_deferred(decisions_, instance, r->size, r->alignment, offset);
      }
      break;
    case AllocationResult::kInstantFailure:
    case AllocationResult::kEventualFailure:
    case AllocationResult::kCancelled:
      // notify_allocation's site (realm_sites.h AllocationOutcome).
      if (result == AllocationResult::kCancelled)
        realm_shadow_request_cancelled(entries_, instance);
      else
        realm_shadow_request_failed(entries_, instance, r->size, r->alignment,
                                    result == AllocationResult::kEventualFailure);
      r->state = InstanceState::kFailed;
      if (r->reported_pending)
        realm_shadow_deferred_failed(decisions_, instance);
      else
        realm_shadow_allocation_failed(decisions_, instance, r->size, r->alignment);
      r->reported_pending = false;
      offset = CreateResult::kNoOffsetValue;
      break;
  }
  if (observe && observer_) observer_(instance, result, offset);

  // A destroy requested while the allocation was pending goes ahead now
  // (records never move; the observer may have ended this one).
  if (r->key == key && r->destroy_when_placed && result != AllocationResult::kDeferred) {
    r->destroy_when_placed = false;
    r->destroy_requested = false;
    const Event after = r->destroy_after;
    Destroy(instance, after);
  } else if (r->key == key && r->destroy_fired_early && r->destroy_requested &&
             result != AllocationResult::kDeferred) {
    // Its queued release's event fired while it was queued (DestroyTriggered).
    r->destroy_fired_early = false;
    DestroyTriggered(key, r->destroy_fired_poisoned);
  }
}

void ModelMemory::OnReleaseApplied(uint64_t key) {
  if (Record* r = FindByKey(key)) OnReleaseApplied(*r);
}

void ModelMemory::OnReleaseApplied(Record& record) {
  Record* r = &record;
  const uint64_t key = r->key;
  r->range_released = true;
  if (r->is_redistrict) OnRedistrictApplied(*r);
  else realm_shadow_released(decisions_, r->instance);
  // Records never move; the pieces' outcomes may have ended this one.
  if (r->key == key && r->acknowledged) EraseRecord(*r);
}

// Out of OnReleaseApplied, which every release runs: with its vectors and
// loops inside, a plain release ran 30 instructions there, now 20
// (callgrind, the replay benchmark).
void ModelMemory::OnRedistrictApplied(Record& record) {
  Record* r = &record;
  std::vector<realm_shadow_piece> placed;
  std::vector<uint64_t> failed_keys;
  bool any_reported_pending = false;
  for (uint64_t pk : PieceKeys(*r)) {
    Record* p = FindByKey(pk);
    if (!p) continue;
    any_reported_pending |= p->reported_pending;
    uint64_t off, size;
    if (current_.Lookup(pk, &off, &size))
      placed.push_back(realm_shadow_piece{p->instance, off, p->size, p->alignment});
    else
      failed_keys.push_back(pk);
  }
  if (any_reported_pending) {
    // The shadow holds the pieces as deferred: the old range goes, then
    // each piece completes or fails.
    realm_shadow_released(decisions_, r->instance);
  } else {
    realm_shadow_redistricted(decisions_, r->instance,
                              static_cast<uint32_t>(placed.size()),
                              placed.empty() ? nullptr : placed.data());
  }
  auto rd = redistricts_.find(r->first_piece_instance);
  if (rd != redistricts_.end()) {
    rd->second.done = true;
    rd->second.placed = placed.size();
  }
  for (const realm_shadow_piece& pc : placed) {
    Record* p = FindByInstance(pc.instance);
    if (!p) continue;
    if (any_reported_pending) {
      OnAllocationOutcome(p->key, AllocationResult::kEventualSuccess, pc.offset);
    } else {
      p->state = InstanceState::kLive;
      ++outcomes_[static_cast<int>(AllocationResult::kInstantSuccess)];
      if (observer_)
        observer_(p->instance, AllocationResult::kInstantSuccess, pc.offset);
    }
  }
  for (uint64_t pk : failed_keys)
    OnAllocationOutcome(pk, any_reported_pending
                                ? AllocationResult::kEventualFailure
                                : AllocationResult::kInstantFailure, 0);
}

void ModelMemory::OnDestroyAcknowledged(uint64_t key) {
  if (Record* r = FindByKey(key)) OnDestroyAcknowledged(*r);
}

void ModelMemory::OnDestroyAcknowledged(Record& record) {
  Record* r = &record;
  if (r->acknowledged) return;
  r->acknowledged = true;
  // Realm frees the id at notify_deallocation, even if the heap still
  // holds the range behind older pending work.
  const uint32_t index = InstanceIds::IndexOf(r->instance);
  if (index < key_of_index_.size() && key_of_index_[index] == r->key) {
    key_of_index_[index] = 0;
    ids_.Release(r->instance);
  }
  if (r->range_released) EraseRecord(*r);
  else r->state = InstanceState::kReleaseReady;
}

}  // namespace model
}  // namespace realm_shadow
