// model/model_memory.cc - see model_memory.h.
//
// The allocator algorithms below follow Realm 25.03's LocalManagedMemory
// (mem_impl.cc): attempt_deferrable_allocation, release_storage_deferrable,
// release_storage_immediate, allocate_storage_immediate and
// attempt_release_reordering.  Where Realm asserts on a sequence a correct
// program never produces (destroying a deferred instance before it is
// placed, a destroy precondition firing before the creation precondition),
// the model picks the behaviour a program would expect and keeps going.
#include "model/model_memory.h"

#include "model/model_record.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace realm_shadow {
namespace model {

// ---- names ------------------------------------------------------------------

// A table in each enum's order, as core's EnumName reads them (the model
// sees only the hooks, not core).
const char* AllocationResultName(AllocationResult r) {
  static constexpr const char* kNames[] = {"INSTANT_SUCCESS", "INSTANT_FAILURE",
      "DEFERRED", "EVENTUAL_SUCCESS", "EVENTUAL_FAILURE", "CANCELLED"};
  static_assert(std::size(kNames) == size_t(AllocationResult::kCancelled) + 1,
                "a name for each AllocationResult");
  return size_t(r) < std::size(kNames) ? kNames[size_t(r)] : "?";
}

const char* InstanceStateName(InstanceState s) {
  static constexpr const char* kNames[] = {"unknown", "awaiting_create",
      "pending_alloc", "pending_piece", "live", "release_pending",
      "release_ready", "failed"};
  static_assert(std::size(kNames) == size_t(InstanceState::kFailed) + 1,
                "a name for each InstanceState");
  return size_t(s) < std::size(kNames) ? kNames[size_t(s)] : "?";
}

// ---- construction -----------------------------------------------------------

ModelMemory::ModelMemory(uint64_t memory_id, realm_shadow_memory_kind kind,
                         uint64_t capacity, std::string name,
                         ModelMemoryOptions options)
    : memory_id_(memory_id),
      kind_(kind),
      capacity_(capacity),
      name_(std::move(name)),
      options_(options),
      current_(capacity, options_.placement),
      future_(capacity, options_.placement),
      release_(capacity, options_.placement),
      ids_(memory_id, options_.creator_node) {
  for (RangeAllocator* heap : {&current_, &future_, &release_})
    heap->set_highest_end(&highest_end_);
  if (options_.events) {
    events_ = options_.events;
  } else {
    own_events_ = std::make_unique<EventTable>();
    events_ = own_events_.get();
  }
  const unsigned flags =
      options_.hook_flags |
      (options_.observe_heaps ? unsigned{REALM_SHADOW_HEAP_OBSERVED} : 0u);
  if (options_.shadowed)
    handle_ = realm_shadow_register_memory(memory_id_, kind_, capacity_,
                                           name_.c_str(), flags);
  if (options_.observe_heaps) {
    entries_ = handle_;
    for (RangeAllocator* heap : {&current_, &future_, &release_})
      heap->set_instance_of(&ModelMemory::InstanceOfKey, this);
    current_.shadow_observer.Attach(handle_, REALM_SHADOW_HEAP_CURRENT, current_);
    future_.shadow_observer.Attach(handle_, REALM_SHADOW_HEAP_FUTURE, future_);
  } else {
    decisions_ = handle_;
  }
}

uint64_t ModelMemory::InstanceOfKey(const void* memory, uint64_t key) {
  const auto* self = static_cast<const ModelMemory*>(memory);
  if (const Record* r = self->FindByKey(key)) return r->instance;
  auto retired = self->retired_keys_.find(key);
  // Every other tag in a heap has its record; a missing one is a model bug,
  // and the shadow will say so (an unknown instance).
  return retired == self->retired_keys_.end() ? (uint64_t{1} << 63) | key
                                              : retired->second;
}

ModelMemory::Record& ModelMemory::NewRecord(uint32_t index, uint64_t size,
                                            uint64_t alignment, InstanceState state) {
  static_assert(sizeof(Record) == 64, "a record is one cache line (model_record.h)");
  uint64_t key;
  if (!free_keys_.empty()) {
    key = free_keys_.back() + (uint64_t{1} << 32);  // the slot's next generation
    free_keys_.pop_back();
  } else {
    key = (uint64_t{1} << 32) | record_slots_;
    if (record_slots_ % kRecordChunk == 0)
      records_.push_back(std::make_unique<Record[]>(kRecordChunk));
    ++record_slots_;
  }
  const uint32_t slot = static_cast<uint32_t>(key);
  Record& r = records_[slot >> kRecordChunkBits][slot % kRecordChunk];
  r.key = key;
  r.instance = MakeInstanceId(index);
  r.size = size;
  r.alignment = alignment;
  r.state = state;
  KeyOfIndex(index) = key;
  ++record_count_;
  return r;
}

void ModelMemory::GrowKeyOfIndex(uint32_t index) { key_of_index_.resize(index + 1, 0); }

void ModelMemory::EraseRecord(uint64_t key) {
  if (Record* r = FindByKey(key)) EraseRecord(*r);
}

void ModelMemory::EraseRecord(Record& record) {
  Record* r = &record;
  const uint64_t key = r->key;
  // Realm's own bookkeeping can end an instance whose range a heap still
  // holds (see current_contents()); the heaps' tag must still name it.
  // With no allocation pending the future heap is not read again before it
  // is rebuilt from the current one (AttemptDeferrableAllocation), unless an
  // observer reads its old content: then what it holds does not matter.
  const bool future_read = options_.observe_heaps || !pending_allocs_.empty();
  if (current_.Contains(key) || (future_read && future_.Contains(key)))
    retired_keys_[key] = r->instance;
  if (r->is_redistrict) piece_keys_.erase(key);
  *r = Record{};  // key 0: the slot is free
  free_keys_.push_back(key);
  --record_count_;
}

std::vector<InstanceView> ModelMemory::current_contents() const {
  std::vector<InstanceView> out;
  out.reserve(current_.allocated_count());
  for (const auto& [key, range] : current_.allocations()) {
    InstanceView v;
    v.instance = InstanceOfKey(this, key);
    v.offset = range.first;
    v.size = range.size();
    v.holds_range = true;
    if (const Record* rec = FindByKey(key)) {
      v.state = rec->state;
      v.alignment = rec->alignment;
    } else {
      // Held, and nothing in Realm's queues will release it.
      v.state = InstanceState::kLive;
    }
    out.push_back(v);
  }
  return out;
}

ModelMemory::~ModelMemory() { *alive_ = false; }

const std::vector<uint64_t>& ModelMemory::PieceKeys(const Record& r) const {
  static const std::vector<uint64_t> kNoPieces;
  if (!r.is_redistrict) return kNoPieces;
  auto it = piece_keys_.find(r.key);
  return it == piece_keys_.end() ? kNoPieces : it->second;
}

// ---- ids --------------------------------------------------------------------

uint64_t ModelMemory::MemoryOfInstance(uint64_t instance) {
  return InstanceIds::MemoryOf(instance);
}

ModelMemory::Record* ModelMemory::FindByInstance(uint64_t instance) {
  return const_cast<Record*>(std::as_const(*this).FindByInstance(instance));
}

const ModelMemory::Record* ModelMemory::FindByInstance(uint64_t instance) const {
  const uint64_t key = KeyOfInstanceIndex(instance);
  if (key == 0 || ids_.Make(InstanceIds::IndexOf(instance)) != instance)
    return nullptr;
  return FindByKey(key);
}

void ModelMemory::PrefetchRecord(uint64_t instance) const {
  const uint64_t key = KeyOfInstanceIndex(instance);
  if (key == 0) return;
  const uint32_t slot = static_cast<uint32_t>(key);
  // A record is one cache line (model_record.h).
  if (slot < record_slots_) __builtin_prefetch(&records_[slot >> kRecordChunkBits][slot % kRecordChunk]);
  current_.Prefetch(key);
}

void ModelMemory::PrefetchRelease(uint64_t instance) const {
  if (const uint64_t key = KeyOfInstanceIndex(instance); key != 0)
    current_.PrefetchDeallocate(key);
}

ModelMemory::Record* ModelMemory::FindByKey(uint64_t key) {
  return const_cast<Record*>(std::as_const(*this).FindByKey(key));
}

const ModelMemory::Record* ModelMemory::FindByKey(uint64_t key) const {
  const uint32_t slot = static_cast<uint32_t>(key);
  if (slot >= record_slots_) return nullptr;
  const Record* r = &records_[slot >> kRecordChunkBits][slot % kRecordChunk];
  return r->key == key && key != 0 ? r : nullptr;
}

// ---- Realm's algorithms -------------------------------------------------------

void ModelMemory::ApplyRelease(RangeAllocator& heap, uint64_t key,
                               bool missing_ok) {
  (void)missing_ok;  // an unknown tag changes nothing either way
  ApplyRelease(heap, FindByKey(key), key);
}

void ModelMemory::ApplyRelease(RangeAllocator& heap, const Record* r, uint64_t key) {
  if (r && r->is_redistrict) {
    std::vector<RangeAllocator::Piece> pieces;
    const std::vector<uint64_t>& piece_keys = PieceKeys(*r);
    pieces.reserve(piece_keys.size());
    for (uint64_t pk : piece_keys) {
      const Record* p = FindByKey(pk);
      pieces.push_back({pk, p ? p->size : 0, p ? p->alignment : 0, 0});
    }
    heap.SplitRange(key, &pieces, nullptr);
  } else {
    heap.Deallocate(key);
  }
}

AllocationResult ModelMemory::AttemptDeferrableAllocation(Record& r,
                                                          uint64_t* offset) {
  // As long as nothing is pending, the current state decides.
  if (pending_allocs_.empty()) {
    if (current_.Allocate(r.key, r.size, r.alignment, offset))
      return AllocationResult::kInstantSuccess;
    if (pending_releases_.empty() || !options_.deferred_allocation)
      return AllocationResult::kInstantFailure;
    // Build the future from the pending releases and try again.
    future_ = current_;
    for (const PendingRelease& pr : pending_releases_)
      ApplyRelease(future_, pr.key, /*missing_ok=*/true);
    if (future_.Allocate(r.key, r.size, r.alignment, offset)) {
      pending_allocs_.push_back(
          PendingAlloc{r.key, r.size, r.alignment, cur_release_seqid_});
      // With pending allocations, the release heap must be valid.
      release_ = current_;
      return AllocationResult::kDeferred;
    }
    return AllocationResult::kInstantFailure;
  }
  // Others are pending: only the future state can take it, even if it
  // would fit now.
  if (future_.Allocate(r.key, r.size, r.alignment, offset)) {
    pending_allocs_.push_back(
        PendingAlloc{r.key, r.size, r.alignment, cur_release_seqid_});
    return AllocationResult::kDeferred;
  }
  return AllocationResult::kInstantFailure;
}

bool ModelMemory::AttemptReleaseReordering(SuccessList* successes) {
  const PendingAlloc& oldest = pending_allocs_.front();
  if (!release_.CanAllocate(oldest.bytes, oldest.alignment)) return false;

  const size_t orig_successes = successes->size();
  RangeAllocator test = release_;
  auto a_now = pending_allocs_.begin();
  while (a_now != pending_allocs_.end()) {
    uint64_t offset = 0;
    if (!test.Allocate(a_now->key, a_now->bytes, a_now->alignment, &offset))
      break;
    successes->emplace_back(a_now->key, offset);
    ++a_now;
  }

  if (a_now == pending_allocs_.end()) {
    current_.Swap(test);
    pending_allocs_.clear();
    for (uint64_t k : TakeReadyReleases()) OnReleaseApplied(k);
    return true;
  }

  // Can the remaining allocations still be satisfied in the future?
  RangeAllocator test_future = test;
  auto a_future = a_now;
  auto it3 = pending_releases_.begin();
  while (a_future != pending_allocs_.end()) {
    while (it3 != pending_releases_.end() &&
           it3->seqid <= a_future->last_release_seqid) {
      if (!it3->ready) ApplyRelease(test_future, it3->key, true);
      ++it3;
    }
    uint64_t offset;
    if (!test_future.Allocate(a_future->key, a_future->bytes,
                              a_future->alignment, &offset))
      break;
    ++a_future;
  }
  if (a_future != pending_allocs_.end()) {
    successes->resize(orig_successes);
    return false;
  }
  for (; it3 != pending_releases_.end(); ++it3)
    if (!it3->ready) ApplyRelease(test_future, it3->key, true);
  const std::vector<uint64_t> applied = TakeReadyReleases();
  pending_allocs_.erase(pending_allocs_.begin(), a_now);
  current_.Swap(test);
  future_.Swap(test_future);
  release_ = current_;
  for (uint64_t k : applied) OnReleaseApplied(k);
  return true;
}

std::vector<uint64_t> ModelMemory::TakeReadyReleases() {
  std::vector<uint64_t> applied;
  for (auto it = pending_releases_.begin(); it != pending_releases_.end();) {
    if (it->ready) {
      applied.push_back(it->key);
      it = pending_releases_.erase(it);
    } else {
      ++it;
    }
  }
  return applied;
}

void ModelMemory::ReleaseStorageDeferrable(uint64_t key, bool triggered) {
  if (Record* r = FindByKey(key)) ReleaseStorageDeferrable(*r, triggered);
}

void ModelMemory::ReleaseStorageDeferrable(Record& record, bool triggered) {
  // The record at hand, not found again below: most destroys come here
  // with nothing pending, where the range goes back at once.
  Record* r = &record;
  const uint64_t key = r->key;
  SuccessList successes;
  const bool failed = r->state == InstanceState::kFailed;

  if (r->state == InstanceState::kAwaitingCreate) {
    // Not in any heap yet: the release joins the history when the creation
    // precondition fires.
    r->delayed_destroy = true;
    return;
  }
  if (pending_allocs_.empty()) {
    if (triggered) {
      if (!failed) {
        ApplyRelease(current_, r, key);
        OnReleaseApplied(*r);
      }
    } else {
      pending_releases_.push_back(PendingRelease{key, false, ++cur_release_seqid_});
    }
  } else if (triggered) {
    if (!failed) {
      // Older pending work exists: the current state cannot change yet.
      ApplyRelease(release_, key, false);
      ApplyRelease(future_, key, false);
      if (AttemptReleaseReordering(&successes)) {
        OnReleaseApplied(key);
      } else {
        pending_releases_.push_back(PendingRelease{key, true, ++cur_release_seqid_});
        r->state = InstanceState::kReleaseReady;
        realm_shadow_release_requested(decisions_, r->instance, 1);
        for (uint64_t pk : PieceKeys(*r)) {
          Record* p = FindByKey(pk);
          if (p && !p->reported_pending) {
            p->reported_pending = true;
            realm_shadow_deferred(decisions_, p->instance, p->size, p->alignment,
                                  REALM_SHADOW_NO_OFFSET);
          }
        }
      }
    }
  } else {
    if (!failed) ApplyRelease(future_, key, true);
    pending_releases_.push_back(PendingRelease{key, false, ++cur_release_seqid_});
  }
  for (const auto& [k, offset] : successes)
    OnAllocationOutcome(k, AllocationResult::kEventualSuccess, offset);
}

void ModelMemory::ReleaseStorageImmediate(uint64_t key, bool poisoned) {
  SuccessList successes;
  std::vector<uint64_t> failures;

  auto it = pending_releases_.begin();
  while (it != pending_releases_.end() && it->key != key) ++it;
  if (it == pending_releases_.end()) return;  // not queued: nothing to do

  if (!poisoned) {
    if (it == pending_releases_.begin()) {
      // The oldest release: unclog things in the planned order.
      if (!pending_allocs_.empty()) ApplyRelease(release_, key, false);
      std::vector<uint64_t> applied;
      do {
        ApplyRelease(current_, it->key, false);
        applied.push_back(it->key);
        auto it2 = pending_allocs_.begin();
        while (it2 != pending_allocs_.end()) {
          // An allocation that counts on later releases must wait.
          auto next_rel = std::next(it);
          if (next_rel != pending_releases_.end() &&
              it2->last_release_seqid >= next_rel->seqid)
            break;
          uint64_t offset = 0;
          if (current_.Allocate(it2->key, it2->bytes, it2->alignment, &offset))
            successes.emplace_back(it2->key, offset);
          else
            failures.push_back(it2->key);  // Realm asserts this cannot happen
          ++it2;
        }
        pending_allocs_.erase(pending_allocs_.begin(), it2);
        ++it;
      } while (it != pending_releases_.end() && it->ready);
      pending_releases_.erase(pending_releases_.begin(), it);
      // Outcomes only after the queue is settled: reporting a redistrict's
      // pieces can run a destroy that was waiting on their placement, and
      // that destroy queues a release of its own.
      for (uint64_t k : applied) OnReleaseApplied(k);

      if (!successes.empty() && !pending_allocs_.empty()) {
        release_ = current_;
        for (const PendingRelease& pr : pending_releases_)
          if (pr.ready) ApplyRelease(release_, pr.key, false);
      }
    } else {
      it->ready = true;
      if (Record* r = FindByKey(key)) {
        r->state = InstanceState::kReleaseReady;
      }
      if (pending_allocs_.empty()) {
        ApplyRelease(current_, key, false);
        pending_releases_.erase(it);
        OnReleaseApplied(key);
      } else {
        ApplyRelease(release_, key, false);
        if (Record* r = FindByKey(key))
          realm_shadow_release_requested(decisions_, r->instance, 1);
      }
    }
    if (!pending_allocs_.empty()) AttemptReleaseReordering(&successes);
  } else {
    // A poisoned precondition cancels the release: the instance stays.
    if (Record* r = FindByKey(key)) {
      if (r->state == InstanceState::kReleasePending ||
          r->state == InstanceState::kReleaseReady)
        realm_shadow_release_cancelled(decisions_, r->instance);
      // (An allocation still queued stays queued, and is planned again
      // below.)
      if (r->state != InstanceState::kPending) r->state = InstanceState::kLive;
      r->destroy_requested = false;
      if (r->is_redistrict) {
        r->is_redistrict = false;
        std::vector<uint64_t> pieces;
        if (auto node = piece_keys_.extract(key)) pieces = std::move(node.mapped());
        for (uint64_t pk : pieces)
          OnAllocationOutcome(pk, AllocationResult::kCancelled, 0);
      }
    }
    if (pending_allocs_.empty()) {
      pending_releases_.erase(it);
    } else {
      // Rewrite the future without this release.  As Realm does, the
      // release heap restarts from the current one and the ready releases
      // are not applied to it again (current_contents() says what follows).
      for (const PendingRelease& pr : pending_releases_)
        if (pr.ready && pr.key != key) {
          ++ready_releases_dropped_;
          break;
        }
      future_ = current_;
      release_ = current_;
      auto it2 = pending_allocs_.begin();
      bool found = false;
      it = pending_releases_.begin();
      while (it != pending_releases_.end()) {
        const unsigned seqid = it->seqid;
        if (it->key == key && !found) {
          found = true;
          it = pending_releases_.erase(it);
        } else {
          ApplyRelease(future_, it->key, true);
          ++it;
        }
        while (it2 != pending_allocs_.end() && it2->last_release_seqid <= seqid) {
          uint64_t offset;
          if (future_.Allocate(it2->key, it2->bytes, it2->alignment, &offset)) {
            ++it2;
          } else {
            failures.push_back(it2->key);
            it2 = pending_allocs_.erase(it2);
          }
        }
      }
    }
  }
  for (const auto& [k, offset] : successes)
    OnAllocationOutcome(k, AllocationResult::kEventualSuccess, offset);
  for (uint64_t k : failures)
    OnAllocationOutcome(k, AllocationResult::kEventualFailure, 0);
}

void ModelMemory::AllocateStorageImmediate(uint64_t key, bool poisoned) {
  Record* r = FindByKey(key);
  if (!r) return;
  if (r->cancelled) {
    EraseRecord(key);
    return;
  }
  const bool deferred_destroy_exists = r->delayed_destroy;
  r->delayed_destroy = false;
  AllocationResult result;
  uint64_t offset = 0;
  if (poisoned) {
    result = AllocationResult::kCancelled;
  } else {
    result = AttemptDeferrableAllocation(*r, &offset);
  }
  if (deferred_destroy_exists) {
    if ((result == AllocationResult::kInstantSuccess ||
         result == AllocationResult::kDeferred) &&
        !pending_allocs_.empty())
      ApplyRelease(future_, key, true);
    pending_releases_.push_back(PendingRelease{key, false, ++cur_release_seqid_});
  }
  const bool fired_early = r->destroy_fired_early;
  const bool fired_poisoned = r->destroy_fired_poisoned;
  r->destroy_fired_early = false;  // run below, not by OnAllocationOutcome
  OnAllocationOutcome(key, result, offset);
  if (deferred_destroy_exists && fired_early) {
    if (FindByKey(key)) DestroyTriggered(key, fired_poisoned);
  }
}

void ModelMemory::DestroyTriggered(uint64_t key, bool poisoned) {
  Record* r = FindByKey(key);
  if (!r) return;
  // Also while the allocation is still queued: Realm asserts there (its
  // release heap does not hold the range, and the allocation, once served,
  // must find its release not ready); the model runs the destroy once the
  // allocation is decided (OnAllocationOutcome).
  if (r->state == InstanceState::kAwaitingCreate || r->state == InstanceState::kPending ||
      r->state == InstanceState::kPendingPiece) {
    r->destroy_fired_early = true;
    r->destroy_fired_poisoned = poisoned;
    return;
  }
  // release_storage_immediate's entry site (realm_sites.h ReleaseFired).
  if (poisoned)
    realm_shadow_release_cancelled(entries_, r->instance);
  else
    realm_shadow_release_requested(entries_, r->instance, 1);
  ReleaseStorageImmediate(key, poisoned);
  if (!poisoned) OnDestroyAcknowledged(key);
}

// ---- public operations ------------------------------------------------------------

CreateResult ModelMemory::Create(uint64_t size, uint64_t alignment,
                                 Event precondition) {
  CreateResult out;
  uint32_t index;
  if (!ids_.Acquire(&index)) {
    ++outcomes_[static_cast<int>(AllocationResult::kInstantFailure)];
    return out;
  }
  Record& r = NewRecord(index, size, alignment, InstanceState::kAwaitingCreate);
  const uint64_t key = r.key;
  out.instance = r.instance;

  bool poisoned;
  if (events_->HasTriggered(precondition, &poisoned)) {
    uint64_t offset = 0;
    AllocationResult result = poisoned ? AllocationResult::kCancelled
                                       : AttemptDeferrableAllocation(r, &offset);
    OnAllocationOutcome(r, result, offset, options_.observe_create_outcomes);
    out.decided = true;
    out.outcome = result;
    out.result = result == AllocationResult::kCancelled
                     ? AllocationResult::kInstantFailure
                     : result;
    if (result == AllocationResult::kInstantSuccess ||
        result == AllocationResult::kDeferred)
      out.offset = offset;
    return out;
  }
  // The request enters the allocator when its precondition fires.
  r.reported_pending = true;
  realm_shadow_deferred(decisions_, r.instance, size, alignment,
                        REALM_SHADOW_NO_OFFSET);
  // allocate_storage_deferrable's entry site (realm_sites.h
  // AllocationRequested): a request that no heap has seen yet.
  realm_shadow_request_waiting(entries_, r.instance, size, alignment);
  std::weak_ptr<bool> alive = alive_;
  events_->AddWaiter(precondition, [this, alive, key](bool p) {
    if (auto a = alive.lock(); a && *a) AllocateStorageImmediate(key, p);
  });
  out.result = AllocationResult::kDeferred;
  return out;
}

bool ModelMemory::Destroy(uint64_t instance, Event after) {
  Record* r = FindByInstance(instance);
  if (!r || r->destroy_requested) return false;
  const uint64_t key = r->key;
  bool poisoned;
  const bool triggered = events_->HasTriggered(after, &poisoned);
  // Only a destroy that waits needs the memory's liveness (copying the
  // weak pointer is two atomic operations per event otherwise).

  switch (r->state) {
    case InstanceState::kFailed:
      // Realm destroys failed instances too; they hold no range.
      r->destroy_requested = true;
      if (triggered) {
        if (poisoned) { r->destroy_requested = false; return true; }
        realm_shadow_release_requested(entries_, instance, 1);
        realm_shadow_released(decisions_, instance);
        r->range_released = true;
        OnDestroyAcknowledged(key);
      } else {
        realm_shadow_release_requested(entries_, instance, 0);
        events_->AddWaiter(after, [this, alive = std::weak_ptr<bool>(alive_), key](bool p) {
          if (auto a = alive.lock(); !a || !*a) return;
          Record* rr = FindByKey(key);
          if (!rr) return;
          if (p) {
            realm_shadow_release_cancelled(entries_, rr->instance);
            rr->destroy_requested = false;
            return;
          }
          realm_shadow_release_requested(entries_, rr->instance, 1);
          realm_shadow_released(decisions_, rr->instance);
          rr->range_released = true;
          OnDestroyAcknowledged(key);
        });
      }
      return true;

    case InstanceState::kPending:
    case InstanceState::kPendingPiece:
      if (!triggered) {
        // Realm's release_storage_deferrable with the allocation (or the
        // redistrict that makes this piece) still queued: the planned range
        // leaves the future heap now (later requests are planned into it),
        // and the release queues behind it; the record turns
        // release-pending once it is placed (OnAllocationOutcome).
        r->destroy_requested = true;
        realm_shadow_release_requested(entries_, instance, 0);
        realm_shadow_release_requested(decisions_, instance, 0);
        ReleaseStorageDeferrable(key, false);
        events_->AddWaiter(after, [this, alive = std::weak_ptr<bool>(alive_), key](bool p) {
          if (auto a = alive.lock(); a && *a) DestroyTriggered(key, p);
        });
        return true;
      }
      // A ready destroy of a queued allocation: Realm asserts (its release
      // heap does not hold the range); programs destroy after the ready
      // event.  The destroy waits until the allocation is decided.
      r->destroy_requested = true;
      r->destroy_when_placed = true;
      r->destroy_after = after;
      realm_shadow_release_requested(decisions_, instance, 0);
      return true;

    case InstanceState::kAwaitingCreate:
      r->destroy_requested = true;
      if (triggered && poisoned) { r->destroy_requested = false; return true; }
      if (triggered) {
        // Destroyed before it was ever requested from the allocator.
        r->cancelled = true;
        realm_shadow_released(decisions_, instance);
        realm_shadow_request_cancelled(entries_, instance);
        ++outcomes_[static_cast<int>(AllocationResult::kCancelled)];
        if (observer_) observer_(instance, AllocationResult::kCancelled,
                                 CreateResult::kNoOffsetValue);
        key_of_index_[InstanceIds::IndexOf(instance)] = 0;
        ids_.Release(instance);
        return true;
      }
      realm_shadow_release_requested(decisions_, instance, 0);
      realm_shadow_release_requested(entries_, instance, 0);
      ReleaseStorageDeferrable(key, false);
      events_->AddWaiter(after, [this, alive = std::weak_ptr<bool>(alive_), key](bool p) {
        if (auto a = alive.lock(); a && *a) DestroyTriggered(key, p);
      });
      return true;

    case InstanceState::kLive:
      if (triggered && poisoned) return true;  // silently cancelled
      r->destroy_requested = true;
      // release_storage_deferrable's entry site (realm_sites.h
      // ReleaseRequested).
      realm_shadow_release_requested(entries_, instance, triggered ? 1 : 0);
      if (triggered) {
        ReleaseStorageDeferrable(*r, true);
        // Records never move; the release's outcomes may have ended it.
        if (r->key == key) OnDestroyAcknowledged(*r);
        return true;
      }
      r->state = InstanceState::kReleasePending;
      realm_shadow_release_requested(decisions_, instance, 0);
      ReleaseStorageDeferrable(key, false);
      events_->AddWaiter(after, [this, alive = std::weak_ptr<bool>(alive_), key](bool p) {
        if (auto a = alive.lock(); a && *a) DestroyTriggered(key, p);
      });
      return true;

    default:
      return false;
  }
}

RedistrictResult ModelMemory::Redistrict(uint64_t old_instance,
                                         const std::vector<PieceRequest>& pieces,
                                         Event after) {
  RedistrictResult out;
  Record* r = FindByInstance(old_instance);
  if (!r || r->state != InstanceState::kLive || r->destroy_requested ||
      pieces.empty())
    return out;
  const uint64_t old_key = r->key;
  // Every piece needs an instance index; check first so that a refusal
  // changes nothing.
  if (ids_.available() < pieces.size())
    return out;
  std::vector<uint64_t> piece_keys;
  for (const PieceRequest& pr : pieces) {
    uint32_t index = 0;
    ids_.Acquire(&index);
    const Record& rec =
        NewRecord(index, pr.size, pr.alignment, InstanceState::kPendingPiece);
    piece_keys.push_back(rec.key);
    out.instances.push_back(rec.instance);
  }
  r = FindByKey(old_key);
  r->is_redistrict = true;
  piece_keys_[old_key] = piece_keys;
  r->first_piece_instance = out.instances.front();
  r->destroy_requested = true;
  redistricts_[out.instances.front()] = out;

  bool poisoned;
  const bool triggered = events_->HasTriggered(after, &poisoned);
  if (triggered && poisoned) {
    r->is_redistrict = false;
    r->destroy_requested = false;
    piece_keys_.erase(old_key);
    for (uint64_t pk : piece_keys)
      OnAllocationOutcome(pk, AllocationResult::kCancelled, 0);
    redistricts_[out.instances.front()].done = true;
    out.done = true;
    return out;
  }
  // reuse_storage_deferrable's entry site (realm_sites.h
  // RedistrictRequested): pieces that wait, and the old range's release.
  for (uint64_t pk : piece_keys) {
    const Record* p = FindByKey(pk);
    realm_shadow_request_waiting(entries_, p->instance, p->size, p->alignment);
  }
  realm_shadow_release_requested(entries_, old_instance, triggered ? 1 : 0);
  if (triggered) {
    ReleaseStorageDeferrable(old_key, true);
    OnDestroyAcknowledged(old_key);
  } else {
    r->state = InstanceState::kReleasePending;
    realm_shadow_release_requested(decisions_, old_instance, 0);
    for (uint64_t pk : piece_keys) {
      Record* p = FindByKey(pk);
      p->reported_pending = true;
      realm_shadow_deferred(decisions_, p->instance, p->size, p->alignment,
                            REALM_SHADOW_NO_OFFSET);
    }
    ReleaseStorageDeferrable(old_key, false);
    std::weak_ptr<bool> alive = alive_;
    events_->AddWaiter(after, [this, alive, old_key](bool p) {
      if (auto a = alive.lock(); a && *a) DestroyTriggered(old_key, p);
    });
  }
  return redistricts_[out.instances.front()];
}

std::optional<RedistrictResult> ModelMemory::RedistrictOutcome(
    uint64_t first_piece) const {
  auto it = redistricts_.find(first_piece);
  if (it == redistricts_.end()) return std::nullopt;
  return it->second;
}

std::vector<uint64_t> ModelMemory::Seed(
    const std::vector<SeedAllocation>& allocations) {
  if (!records_.empty() || ids_.available() < allocations.size())
    return {};
  // A new memory's records take slots 0, 1, ... in order, generation 1.
  std::vector<std::pair<uint64_t, RangeAllocator::Range>> ranges;
  ranges.reserve(allocations.size());
  for (size_t i = 0; i < allocations.size(); ++i)
    ranges.emplace_back((uint64_t{1} << 32) | i,
                        RangeAllocator::Range{allocations[i].offset,
                                              allocations[i].offset + allocations[i].size});
  if (!current_.Seed(ranges)) return {};
  // The future and release heaps are read only while allocations are
  // pending, and rebuilt from the current one when the first one is
  // deferred; an observer reads the future heap's content, so it gets it.
  if (options_.observe_heaps) {
    future_ = current_;
    release_ = current_;
  }
  records_.reserve(allocations.size() / kRecordChunk + 1);
  std::vector<uint64_t> out;
  out.reserve(allocations.size());
  for (const SeedAllocation& a : allocations) {
    uint32_t index = 0;
    ids_.Acquire(&index);
    out.push_back(NewRecord(index, a.size, a.alignment, InstanceState::kLive).instance);
  }
  return out;
}

uint64_t ModelMemory::Reserve(uint64_t offset, uint64_t size) {
  const uint64_t id = next_reservation_++;
  realm_shadow_reserved(handle_, id, offset, size);
  return id;
}

// ---- queries --------------------------------------------------------------------

InstanceView ModelMemory::ViewOf(const Record& r) const {
  InstanceView v;
  v.instance = r.instance;
  v.state = r.state;
  v.size = r.size;
  v.alignment = r.alignment;
  uint64_t off, size;
  if (current_.Lookup(r.key, &off, &size)) {
    v.offset = off;
    v.holds_range = true;
  }
  return v;
}

InstanceState ModelMemory::State(uint64_t instance) const {
  const Record* r = FindByInstance(instance);
  if (!r || r->cancelled) return InstanceState::kUnknown;
  return r->state;
}

std::optional<uint64_t> ModelMemory::Offset(uint64_t instance) const {
  const Record* r = FindByInstance(instance);
  if (!r) return std::nullopt;
  uint64_t off, size;
  if (!current_.Lookup(r->key, &off, &size)) return std::nullopt;
  return off;
}

std::optional<InstanceView> ModelMemory::View(uint64_t instance) const {
  const Record* r = FindByInstance(instance);
  if (!r || r->cancelled) return std::nullopt;
  return ViewOf(*r);
}

std::vector<InstanceView> ModelMemory::Instances() const {
  std::vector<InstanceView> out;
  out.reserve(record_count_);
  for (uint32_t slot = 0; slot < record_slots_; ++slot) {
    const Record& rec = records_[slot >> kRecordChunkBits][slot % kRecordChunk];
    if (rec.key == 0 || rec.cancelled) continue;
    out.push_back(ViewOf(rec));
  }
  return out;
}

size_t ModelMemory::live_count() const { return current_.allocated_count(); }

std::optional<uint64_t> ModelMemory::PlannedOffset(uint64_t instance) const {
  const Record* r = FindByInstance(instance);
  if (!r) return std::nullopt;
  uint64_t off, size;
  if (current_.Lookup(r->key, &off, &size)) return std::nullopt;  // placed
  if (!future_.Lookup(r->key, &off, &size)) return std::nullopt;
  return off;
}

}  // namespace model
}  // namespace realm_shadow
