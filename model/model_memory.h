// model/model_memory.h - a Realm managed memory without Realm.
//
// What it is for: tests, benchmarks and the demo need a memory that behaves
// exactly like Realm's LocalManagedMemory (SYSTEM_MEM, REGDMA_MEM, GPU_FB_MEM,
// Z_COPY_MEM ...) and reports to the shadow through realm_shadow/hooks.h at
// the points where a real integration does (see the table in
// shared/context/realm-allocators.md).  It uses nothing of the project but
// the hooks, so it exercises the recorder exactly as Realm would.
//
// What it reproduces, observable for observable:
//  - Placement: three RangeAllocator heaps, `current` (what is placed now),
//    `future` (current plus every pending allocation and release) and
//    `release` (current plus the releases that are ready), maintained as
//    Realm 25.03 maintains them, with pending allocations and releases in
//    queues ordered by a release sequence number.
//  - Deferred allocation (Realm's -ll:defalloc, on by default): a request
//    that does not fit now but fits once the pending releases happen is
//    DEFERRED and placed where the future heap placed it; while any deferred
//    allocation is pending every new request is deferred, even one that fits
//    now.  Pending allocations complete in order as releases are applied
//    (EVENTUAL_SUCCESS), also when ready releases can be reordered ahead of
//    unready ones; they fail (EVENTUAL_FAILURE) when a release they counted
//    on is poisoned and the rewritten future no longer has room for them.
//  - Creation with a precondition: the request enters the allocator only
//    when its precondition triggers (CANCELLED if poisoned).
//  - Destruction with a precondition: the range stays occupied until the
//    precondition triggers; a poisoned precondition cancels the destruction.
//  - Redistrict: one instance's range split in place into new instances
//    (immediate, or deferred until its precondition triggers); pieces that
//    do not fit fail; the rest of the old range is freed.
//  - Instance ids with Realm's bit layout (tag 01, owner node, creator node,
//    memory index, index), the most recently freed index reused first.  An
//    id is freed when its destruction is acknowledged (precondition
//    triggered), as Realm does, even if the heap applies the release later.
//
// Hooks (ModelMemoryOptions::observe_heaps = false): realm_shadow_register_
// memory at construction (SERIALIZED); then
// allocated / deferred (planned offset from the future heap) /
// deferred_completed / deferred_failed / allocation_failed /
// release_requested / released / redistricted / reserved, each called
// after the model's state change it reports,
// except release hooks, which come before the range is handed back.  With
// observe_heaps = true the model reports as realm_sites.h does in Realm
// instead: its current and future heaps carry HeapObservers, and it calls
// the entry-site hooks where Realm's allocate_storage_deferrable,
// release_storage_deferrable, reuse_storage_deferrable,
// release_storage_immediate and notify_allocation begin.  A NULL memory
// handle (tracking off) changes nothing in the model's behaviour.
//
// Cost: Create/Destroy without pending work is the placement's search
// (O(log n) for Realm's first fit, model/placement.h) plus O(1) record
// bookkeeping: records are found by slot index, not hashed (one cache miss
// per record at 100k live; PrefetchInstance/PrefetchRecord hide it).
// With pending work, Realm copies whole heaps (rebuilding `future`,
// reordering releases), and so does this model: O(live instances) per such
// event.
//
// Not thread-safe: one thread drives a memory and its events, which is the
// SERIALIZED promise made to the recorder.
#ifndef REALM_SHADOW_MODEL_MODEL_MEMORY_H_
#define REALM_SHADOW_MODEL_MODEL_MEMORY_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "realm_shadow/hooks.h"
#include "model/event_table.h"
#include "model/instance_ids.h"
#include "model/range_allocator.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(model);
namespace model {

// ---- results and states ---------------------------------------------------

// Realm's MemoryImpl::AllocationResult.
enum class AllocationResult : uint8_t {
  kInstantSuccess,
  kInstantFailure,
  kDeferred,
  kEventualSuccess,
  kEventualFailure,
  kCancelled,
};
const char* AllocationResultName(AllocationResult r);

enum class InstanceState : uint8_t {
  kUnknown,         // not an instance of this memory (never, or destroyed)
  kAwaitingCreate,  // creation precondition not yet triggered
  kPending,         // deferred: in the pending allocation queue
  kPendingPiece,    // a piece of a redistrict that has not happened yet
  kLive,
  kReleasePending,  // destroy requested, precondition not triggered
  kReleaseReady,    // destroy acknowledged, range not yet given back
  kFailed,          // instant or eventual failure, or cancelled; not destroyed
};
const char* InstanceStateName(InstanceState s);

struct CreateResult {
  uint64_t instance = 0;  // 0 only when the instance index space is exhausted
  AllocationResult result = AllocationResult::kInstantFailure;
  uint64_t offset = kNoOffsetValue;  // placed offset, or planned if deferred
  static constexpr uint64_t kNoOffsetValue = UINT64_MAX;
  // Create decided the request's outcome before it returned (its
  // precondition had triggered); false: it waits on the precondition.
  // `outcome` is then what the outcome observer reports: kCancelled for a
  // poisoned precondition, which `result` reads as kInstantFailure.
  bool decided = false;
  AllocationResult outcome = AllocationResult::kInstantFailure;
};

// One piece of a redistrict request.
struct PieceRequest {
  uint64_t size = 0;
  uint64_t alignment = 32;
};

struct RedistrictResult {
  // New instance ids, one per requested piece, in request order.
  std::vector<uint64_t> instances;
  // How many leading pieces were placed; only known once the redistrict has
  // happened (immediately, or when its precondition triggered).
  bool done = false;
  size_t placed = 0;
};

// What a test or a report sees of one instance.
struct InstanceView {
  uint64_t instance = 0;
  InstanceState state = InstanceState::kUnknown;
  uint64_t offset = CreateResult::kNoOffsetValue;  // when it holds a range
  uint64_t size = 0;
  uint64_t alignment = 0;
  bool holds_range = false;  // occupies [offset, offset+size) in `current`
};

struct ModelMemoryOptions {
  // Realm's -ll:defalloc (Config::deferred_instance_allocation).
  bool deferred_allocation = true;
  // The node creating instances (creator field of instance ids).
  uint32_t creator_node = 0;
  // Shared event table; the memory makes its own when null.
  EventTable* events = nullptr;
  unsigned hook_flags = REALM_SHADOW_SERIALIZED;
  // How the memory reports, as a real integration would (realm_sites.h):
  //  false: the decision hooks (allocated, deferred, released, ... at the
  //    points where the algorithm decides);
  //  true: heap observation (the current and future heaps carry observers)
  //    plus the entry sites of Realm's allocate/release/reuse functions and
  //    of notify_allocation.  The memory registers REALM_SHADOW_HEAP_OBSERVED.
  bool observe_heaps = false;
  // Where the heaps place requests (placement.h); Realm's by default.
  PlacementPolicy placement = PlacementPolicy::kRealm;
  // false: the memory does not register with the shadow and reports
  // nothing (a replay's private memory, replay/).
  bool shadowed = true;
  // false: an outcome that Create decides before it returns is in its
  // CreateResult only (decided, outcome), not passed to the outcome
  // observer; every other outcome still is.  A caller that reads the
  // result anyway (the replay) saves the observer's call and its own
  // buffering of the outcome, about 70 instructions a request.
  bool observe_create_outcomes = true;
};

// One allocation a memory starts with (ModelMemory::Seed).
struct SeedAllocation {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t alignment = 0;
};

// Called for every allocation outcome (Realm's notify_allocation), after
// the model's state reflects it.  offset is kNoOffsetValue on failure.
using OutcomeObserver =
    std::function<void(uint64_t instance, AllocationResult result,
                       uint64_t offset)>;

// ---- the memory -------------------------------------------------------------

class ModelMemory {
 public:
  // memory_id: a Realm memory id (tag 0x1e in bits 63-56, owner node in
  // 55-40, memory index in 7-0).  Registers with the shadow.
  ModelMemory(uint64_t memory_id, realm_shadow_memory_kind kind,
              uint64_t capacity, std::string name,
              ModelMemoryOptions options = {});
  ~ModelMemory();
  ModelMemory(const ModelMemory&) = delete;
  ModelMemory& operator=(const ModelMemory&) = delete;

  // Creates an instance of `size` bytes aligned to `alignment` (0 or 1:
  // none), once `precondition` has triggered.
  CreateResult Create(uint64_t size, uint64_t alignment = 32,
                      Event precondition = kNoEvent);
  // Destroys it once `after` has triggered.  False for an unknown instance
  // or a second destroy (nothing changes).
  bool Destroy(uint64_t instance, Event after = kNoEvent);
  // Splits a live instance's range into pieces once `after` has triggered.
  // Empty result (no instances) if `old_instance` is not live or not
  // redistributable (pending, already being destroyed).
  RedistrictResult Redistrict(uint64_t old_instance,
                              const std::vector<PieceRequest>& pieces,
                              Event after = kNoEvent);
  // What happened to a redistrict's pieces (done/placed), by its first id.
  std::optional<RedistrictResult> RedistrictOutcome(uint64_t first_piece) const;

  // Starts the memory with these allocations live, at their offsets, as a
  // snapshot shows them (a replay from a base snapshot): no hook reports
  // them and no request made them.  Only before any other call; returns
  // their instance ids in order, or nothing (and no change) when the
  // memory is not new or the ranges overlap or pass the capacity.
  std::vector<uint64_t> Seed(const std::vector<SeedAllocation>& allocations);

  // A pool or upper-bound reservation, reported to the shadow; the heaps do
  // not see it (Realm's allocator never does).  offset may be
  // REALM_SHADOW_NO_OFFSET for an amount.  Returns the reservation id.  It
  // lasts as long as the memory: the model keeps nothing of it.
  uint64_t Reserve(uint64_t offset, uint64_t size);

  // Events (the memory's table, shared or its own).
  EventTable& events() { return *events_; }
  Event NewEvent() { return events_->NewEvent(); }
  bool Trigger(Event e) { return events_->Trigger(e); }
  bool Poison(Event e) { return events_->Poison(e); }

  void set_outcome_observer(OutcomeObserver fn) { observer_ = std::move(fn); }

  // ---- queries -----------------------------------------------------------
  uint64_t memory_id() const { return memory_id_; }
  realm_shadow_memory_kind kind() const { return kind_; }
  uint64_t capacity() const { return capacity_; }
  PlacementPolicy placement() const { return options_.placement; }
  const std::string& name() const { return name_; }
  realm_shadow_memory* shadow_handle() const { return handle_; }

  InstanceState State(uint64_t instance) const;
  std::optional<uint64_t> Offset(uint64_t instance) const;  // placed only
  std::optional<InstanceView> View(uint64_t instance) const;
  // Every instance id in use plus every range still held after its id was
  // freed, in no particular order.
  std::vector<InstanceView> Instances() const;

  // The `current` heap: what is placed now.
  const RangeAllocator& current_heap() const { return current_; }
  // Every range the current heap holds, with its instance and state.  Unlike
  // Instances(), this includes ranges whose instance Realm's bookkeeping has
  // already ended.  Realm 25.06's remove_pending_release (a poisoned release
  // while allocations are pending) resets the release heap to the current
  // heap as it is then, without the ready releases; a later reordering swaps
  // a heap built from that one in as `current`, which brings back ranges the
  // current heap had given back since and drops placements made since, and
  // erases the ready releases, so the ranges they held stay in `current`
  // with nothing left to release them.  The model does what Realm does; such
  // a range shows as kLive (held, with no release pending).
  std::vector<InstanceView> current_contents() const;
  // How often a poisoned release reset the release heap while ready
  // releases were queued (the start of the behaviour described above; from
  // then on Realm's heap, keyed by instance id, and the model's, keyed by a
  // private key, may hold different things).
  uint64_t ready_releases_dropped() const { return ready_releases_dropped_; }
  // Where the future heap plans a request that is not placed yet (pending,
  // or a piece of a queued redistrict); nullopt when it has no plan there.
  std::optional<uint64_t> PlannedOffset(uint64_t instance) const;
  // The highest end any placement of any heap reached (current, future,
  // release, and the heaps a reordering tries), the seeded ranges
  // included.  Under first fit by address (PlacementPolicy::kRealm) a
  // memory of any capacity from it up to this one's, given the same calls,
  // decides every one of them the same: only the last free range differs,
  // and every request placed in it ended at or below this.
  uint64_t highest_end() const { return highest_end_; }
  uint64_t free_bytes() const { return current_.free_bytes(); }
  uint64_t largest_free() const { return current_.largest_free(); }
  size_t live_count() const;  // instances holding a range (incl. zero-byte)
  size_t pending_allocation_count() const { return pending_allocs_.size(); }
  size_t pending_release_count() const { return pending_releases_.size(); }

  // Hints that change nothing: a caller that knows which instance it will
  // destroy a few calls ahead (a replay) fetches what Destroy reads, which
  // at 100k live instances is a cache miss each.  PrefetchInstance first
  // (the instance's key), PrefetchRecord some calls later (its record and
  // its entry in the current heap, found through that key), then
  // PrefetchRelease (the free ranges about the range the release gives
  // back, found through that entry).
  void PrefetchInstance(uint64_t instance) const {
    const uint32_t index = InstanceIds::IndexOf(instance);
    if (index < key_of_index_.size()) __builtin_prefetch(&key_of_index_[index]);
  }
  void PrefetchRecord(uint64_t instance) const;
  void PrefetchRelease(uint64_t instance) const;

  // Instance id of index `index` in this memory, with Realm's layout.
  uint64_t MakeInstanceId(uint32_t index) const { return ids_.Make(index); }
  // The memory an instance id belongs to (INDEX.txt's formula).
  static uint64_t MemoryOfInstance(uint64_t instance);

  // Counts of outcomes since construction, by AllocationResult.
  uint64_t outcome_count(AllocationResult r) const {
    return outcomes_[static_cast<int>(r)];
  }

 private:
  struct Record;
  struct PendingAlloc {
    uint64_t key;
    uint64_t bytes;
    uint64_t alignment;
    unsigned last_release_seqid;
  };
  struct PendingRelease {
    uint64_t key;
    bool ready;
    unsigned seqid;
  };
  using SuccessList = std::vector<std::pair<uint64_t, uint64_t>>;  // key, offset

  // Realm's algorithms (names follow LocalManagedMemory's).
  AllocationResult AttemptDeferrableAllocation(Record& r, uint64_t* offset);
  void ReleaseStorageDeferrable(uint64_t key, bool triggered);
  void ReleaseStorageDeferrable(Record& r, bool triggered);
  void ReleaseStorageImmediate(uint64_t key, bool poisoned);
  void AllocateStorageImmediate(uint64_t key, bool poisoned);
  bool AttemptReleaseReordering(SuccessList* successes);
  // Drops the ready releases from the queue (a reordering's heap already
  // holds their effect) and returns their keys in queue order.
  std::vector<uint64_t> TakeReadyReleases();
  // Applies a release (plain or redistrict) of `key` to one heap.
  void ApplyRelease(RangeAllocator& heap, uint64_t key, bool missing_ok);
  void ApplyRelease(RangeAllocator& heap, const Record* r, uint64_t key);

  // Bookkeeping and hooks after the algorithms.
  // Each of these also on the record at hand (found by key otherwise).
  void OnReleaseApplied(uint64_t key);
  void OnReleaseApplied(Record& r);
  void OnRedistrictApplied(Record& r);  // OnReleaseApplied of a redistrict
  void OnAllocationOutcome(uint64_t key, AllocationResult result,
                           uint64_t offset);
  void OnAllocationOutcome(Record& r, AllocationResult result, uint64_t offset,
                           bool observe = true);
  void OnDestroyAcknowledged(uint64_t key);
  void OnDestroyAcknowledged(Record& r);
  void DestroyTriggered(uint64_t key, bool poisoned);

  // A new record with a fresh key for the instance of `index`, which the
  // instance index map then names.
  Record& NewRecord(uint32_t index, uint64_t size, uint64_t alignment,
                    InstanceState state);
  // The key the index of `instance` (its low 22 bits) maps to, 0: none;
  // the id itself is not checked (FindByInstance does).
  uint64_t KeyOfInstanceIndex(uint64_t instance) const {
    const uint32_t index = InstanceIds::IndexOf(instance);
    return index < key_of_index_.size() ? key_of_index_[index] : 0;
  }
  // Where the index of `instance` maps (0: nowhere); makes room for it
  // (inline: every create writes one; the growth is out of line).
  uint64_t& KeyOfIndex(uint32_t index) {
    if (index >= key_of_index_.size()) GrowKeyOfIndex(index);
    return key_of_index_[index];
  }
  void GrowKeyOfIndex(uint32_t index);
  Record* FindByInstance(uint64_t instance);
  const Record* FindByInstance(uint64_t instance) const;
  Record* FindByKey(uint64_t key);
  const Record* FindByKey(uint64_t key) const;
  InstanceView ViewOf(const Record& r) const;

  const uint64_t memory_id_;
  const realm_shadow_memory_kind kind_;
  const uint64_t capacity_;
  const std::string name_;
  const ModelMemoryOptions options_;
  realm_shadow_memory* handle_ = nullptr;
  // The handle the decision hooks report to (NULL when observing heaps) and
  // the one the entry-site hooks report to (NULL when not).
  realm_shadow_memory* decisions_ = nullptr;
  realm_shadow_memory* entries_ = nullptr;
  static uint64_t InstanceOfKey(const void* memory, uint64_t key);
  void EraseRecord(uint64_t key);
  void EraseRecord(Record& r);
  // Instances of keys whose record is gone while a heap still holds them.
  absl::flat_hash_map<uint64_t, uint64_t> retired_keys_;
  uint64_t ready_releases_dropped_ = 0;

  // Waiters outlive nothing: a shared table may fire after this memory is
  // gone, and then they find this flag false and return.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::unique_ptr<EventTable> own_events_;
  EventTable* events_ = nullptr;
  OutcomeObserver observer_;

  RangeAllocator current_, future_, release_;
  uint64_t highest_end_ = 0;  // highest_end(); every heap raises it
  std::deque<PendingAlloc> pending_allocs_;
  std::deque<PendingRelease> pending_releases_;
  unsigned cur_release_seqid_ = 0;

  // Records are keyed by an internal key, never reused, which is also the
  // heaps' tag: an instance id can be reused while its old range is still
  // waiting to be given back, and the two must not collide.  A key is a
  // record slot (low 32 bits) and that slot's generation (high 32, from 1),
  // so that finding a record is an index and a compare, not a hash lookup
  // (a replay at 100k live does several per event); a slot freed by
  // EraseRecord is reused with the next generation.  Slots sit in chunks of
  // kRecordChunk, each allocated once: a record does not move while the
  // memory lives, and finding one costs one cache miss.
  static constexpr uint32_t kRecordChunkBits = 10;
  static constexpr uint32_t kRecordChunk = 1u << kRecordChunkBits;
  std::vector<std::unique_ptr<Record[]>> records_;
  uint32_t record_slots_ = 0;  // slots made
  std::vector<uint64_t> free_keys_;  // erased slots' last keys
  size_t record_count_ = 0;
  // Instance index (low 22 bits of the id) -> key of the record holding
  // it, 0: none.  Every id this memory makes is ids_.Make(its index).
  std::vector<uint64_t> key_of_index_;

  InstanceIds ids_;

  absl::flat_hash_map<uint64_t, RedistrictResult> redistricts_;  // first piece
  // The pieces of each record with is_redistrict, by its key, in request
  // order (a node map: a reference to one stays valid while others come
  // and go, as outcomes reported over the pieces may add or erase some).
  absl::node_hash_map<uint64_t, std::vector<uint64_t>> piece_keys_;
  // Those of `r` (none unless r.is_redistrict).
  const std::vector<uint64_t>& PieceKeys(const Record& r) const;
  uint64_t next_reservation_ = 1;

  uint64_t outcomes_[6] = {};
};

}  // namespace model
}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_MODEL_MEMORY_H_
