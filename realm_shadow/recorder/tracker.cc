// The registry of tracked memories, the hooks' bodies, snapshots, the
// drainer thread and identity interning.
#include "realm_shadow/recorder/tracker.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "realm_shadow/recorder/journal.h"
#include "realm_shadow/recorder/shadow_map.h"

// The C handle is the tracked memory itself: the hooks reach the journal
// with one pointer dereference, no lookup.
struct realm_shadow_memory {
  realm_shadow_memory(uint64_t id_, realm_shadow::MemoryKind kind_,
                      uint64_t capacity_, std::string name_, unsigned flags_,
                      size_t journal_events, uint64_t pauses)
      : journal(journal_events, (flags_ & REALM_SHADOW_CONCURRENT) != 0),
        id(id_),
        kind(kind_),
        name(std::move(name_)),
        flags(flags_),
        pauses_at_registration(pauses),
        map(capacity_, (flags_ & REALM_SHADOW_ADDRESSED) != 0) {
    map.set_heap_observed((flags_ & REALM_SHADOW_HEAP_OBSERVED) != 0);
  }

  realm_shadow::MemoryJournal journal;  // first: the hot path's only state
  const uint64_t id;
  const realm_shadow::MemoryKind kind;
  const std::string name;
  const unsigned flags;
  const uint64_t pauses_at_registration;

  std::mutex consumer_mutex;   // serializes consumers of this journal
  realm_shadow::ShadowMap map;  // guarded by consumer_mutex

  // Applies the readable backlog.  Caller holds consumer_mutex.
  void DrainLocked() {
    journal.Consume([this](const realm_shadow::Event& e) { map.Apply(e); });
  }

  // Appends a group, or, when it is larger than the journal could ever hold
  // readable at once, applies it here, in its place in the memory's order
  // (journal.h, ClaimPlaceholder).  The consumer mutex is taken and given
  // back between attempts: a writer claimed ahead of the placeholder may be
  // waiting for room, and only a drain it runs itself gives it that room.
  template <typename RecordAt>
  void AppendGroupOrApply(realm_shadow::EventType header,
                          uint64_t header_instance, uint32_t count,
                          RecordAt record_at) {
    if (uint64_t{count} + 1 <= journal.capacity()) {
      journal.AppendGroup(header, header_instance, count, record_at);
      return;
    }
    const uint64_t position = journal.ClaimPlaceholder();
    for (unsigned attempt = 0;; ++attempt) {
      {
        std::lock_guard<std::mutex> lock(consumer_mutex);
        DrainLocked();
        if (journal.consumed() == position) {
          map.Apply(realm_shadow::Event{header, header_instance, 0, 0, count});
          for (uint32_t i = 0; i < count; ++i) map.Apply(record_at(i));
          journal.PublishPlaceholder(position);
          return;
        }
      }
      if (attempt > 16) std::this_thread::yield();
    }
  }
};

namespace realm_shadow {
namespace {

std::atomic<bool> g_enabled{true};
std::atomic<uint64_t> g_pauses{0};  // times tracking was switched off
std::atomic<FailureObserver> g_failure_observer{nullptr};

struct Registry {
  std::mutex mutex;
  absl::flat_hash_map<uint64_t, std::unique_ptr<realm_shadow_memory>> by_id;
  // Registration order, for the drainer (pointers stay valid: memories are
  // never unregistered).
  std::vector<realm_shadow_memory*> all;
};
Registry& GetRegistry() {
  static Registry* registry = new Registry;  // never destroyed: hooks may
  return *registry;                          // run during static teardown
}

struct IdentityTable {
  std::mutex mutex;
  std::vector<Identity> identities;             // index = id - 1
  absl::flat_hash_map<std::string, uint32_t> by_key;
};
IdentityTable& GetIdentities() {
  static IdentityTable* table = new IdentityTable;
  return *table;
}

struct Drainer {
  std::mutex mutex;
  std::condition_variable wake;
  std::thread thread;
  bool running = false;
};
Drainer& GetDrainer() {
  static Drainer* drainer = new Drainer;
  return *drainer;
}

size_t ParseSize(const char* text, size_t fallback) {
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || v == 0) return fallback;
  return static_cast<size_t>(v);
}

void OnJournalFull(void* context) {
  auto* memory = static_cast<realm_shadow_memory*>(context);
  std::lock_guard<std::mutex> lock(memory->consumer_mutex);
  memory->DrainLocked();
}

void NotifyFailure(realm_shadow_memory* m, uint64_t instance) {
  // Acquire: pairs with SetFailureObserver's release store.
  if (FailureObserver observer =
          g_failure_observer.load(std::memory_order_acquire))
    observer(m, instance);
}

inline bool Recording(const realm_shadow_memory* m) {
  // Relaxed: the switch needs no ordering with the events around it.
  return m != nullptr && g_enabled.load(std::memory_order_relaxed);
}

}  // namespace

const TrackerOptions& Options() {
  static const TrackerOptions options = [] {
    TrackerOptions o;
    const char* on = std::getenv("REALM_SHADOW");
    o.tracking = !(on != nullptr && std::string(on) == "0");
    o.journal_events =
        ParseSize(std::getenv("REALM_SHADOW_JOURNAL_EVENTS"), o.journal_events);
    o.node = static_cast<uint32_t>(ParseSize(std::getenv("REALM_SHADOW_NODE"), 0));
    return o;
  }();
  return options;
}

realm_shadow_memory* RegisterMemory(uint64_t memory_id, MemoryKind kind,
                                    uint64_t capacity, const std::string& name,
                                    unsigned flags, size_t journal_events) {
  if (!Options().tracking) return nullptr;
  if (journal_events == 0) journal_events = Options().journal_events;
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.by_id.find(memory_id);
  if (it != registry.by_id.end()) return it->second.get();
  auto memory = std::make_unique<realm_shadow_memory>(
      memory_id, kind, capacity, name, flags, journal_events,
      g_pauses.load(std::memory_order_relaxed));
  memory->journal.SetOverflowHandler(&OnJournalFull, memory.get());
  realm_shadow_memory* handle = memory.get();
  registry.by_id.emplace(memory_id, std::move(memory));
  registry.all.push_back(handle);
  return handle;
}

realm_shadow_memory* FindMemory(uint64_t memory_id) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.by_id.find(memory_id);
  return it == registry.by_id.end() ? nullptr : it->second.get();
}

std::vector<uint64_t> RegisteredMemoryIds() {
  Registry& registry = GetRegistry();
  std::vector<uint64_t> ids;
  {
    std::lock_guard<std::mutex> lock(registry.mutex);
    for (const auto& entry : registry.by_id) ids.push_back(entry.first);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

uint64_t MemoryId(const realm_shadow_memory* memory) {
  return memory == nullptr ? 0 : memory->id;
}

Snapshot TakeSnapshot(realm_shadow_memory* memory) {
  Snapshot s;
  TakeSnapshotInto(memory, &s);
  return s;
}

void TakeSnapshotInto(realm_shadow_memory* memory, Snapshot* out) {
  if (memory == nullptr) {
    *out = Snapshot();
    return;
  }
  Snapshot& s = *out;
  s.identities.clear();
  s.exact = true;
  std::vector<uint32_t> ids;
  {
    std::lock_guard<std::mutex> lock(memory->consumer_mutex);
    memory->DrainLocked();
    memory->map.CopyTo(&s);
    memory->map.AppendIdentities(&ids);
  }
  s.memory_id = memory->id;
  s.kind = memory->kind;
  s.name = memory->name;
  s.node = Options().node;
  s.counters.journal_overflows = memory->journal.overflow_count();
  if (g_pauses.load(std::memory_order_relaxed) !=
      memory->pauses_at_registration) {
    s.exact = false;
    Anomaly paused;
    paused.kind = AnomalyKind::kTrackingPaused;
    paused.sequence = s.sequence;
    s.anomalies.push_back(paused);
    ++s.counters.anomalies[static_cast<size_t>(AnomalyKind::kTrackingPaused)];
  }
  // Copy every identity the picture refers to, so it stands alone.  The
  // live allocations' identities came from the map's use counts above; a
  // walk of 100k allocations here cost a fifth of the copy.
  for (const PendingRequest& p : s.pending)
    if (p.identity) ids.push_back(p.identity);
  for (const Failure& f : s.failures)
    if (f.identity) ids.push_back(f.identity);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (uint32_t id : ids) {
    Identity identity;
    if (LookupIdentity(id, &identity)) s.identities.push_back(identity);
  }
}

bool TakeSnapshot(uint64_t memory_id, Snapshot* out) {
  realm_shadow_memory* memory = FindMemory(memory_id);
  if (memory == nullptr) return false;
  TakeSnapshotInto(memory, out);
  return true;
}

void DrainAll() {
  std::vector<realm_shadow_memory*> memories;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    memories = registry.all;
  }
  for (realm_shadow_memory* m : memories) {
    std::lock_guard<std::mutex> lock(m->consumer_mutex);
    m->DrainLocked();
  }
}

void StartDrainer(unsigned period_us) {
  Drainer& d = GetDrainer();
  std::lock_guard<std::mutex> lock(d.mutex);
  if (d.running) return;
  d.running = true;
  d.thread = std::thread([period_us] {
    Drainer& drainer = GetDrainer();
    std::unique_lock<std::mutex> guard(drainer.mutex);
    while (drainer.running) {
      guard.unlock();
      DrainAll();
      guard.lock();
      drainer.wake.wait_for(guard, std::chrono::microseconds(period_us),
                            [&] { return !drainer.running; });
    }
  });
}

void StopDrainer() {
  Drainer& d = GetDrainer();
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    if (!d.running) return;
    d.running = false;
    thread = std::move(d.thread);
  }
  d.wake.notify_all();
  thread.join();
}

void SetFailureObserver(FailureObserver observer) {
  g_failure_observer.store(observer, std::memory_order_release);
}

uint32_t InternIdentity(const Identity& identity) {
  // The key is the kind and every attribute, length-prefixed so that no
  // two different identities share one.
  std::string key = std::to_string(static_cast<int>(identity.kind));
  for (const auto& attribute : identity.attributes) {
    key += '|' + std::to_string(attribute.first.size()) + ':' + attribute.first;
    key += '|' + std::to_string(attribute.second.size()) + ':' + attribute.second;
  }
  IdentityTable& table = GetIdentities();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.by_key.find(key);
  if (it != table.by_key.end()) return it->second;
  Identity stored = identity;
  stored.id = static_cast<uint32_t>(table.identities.size() + 1);
  table.identities.push_back(stored);
  table.by_key.emplace(std::move(key), stored.id);
  return stored.id;
}

bool LookupIdentity(uint32_t id, Identity* out) {
  IdentityTable& table = GetIdentities();
  std::lock_guard<std::mutex> lock(table.mutex);
  if (id == 0 || id > table.identities.size()) return false;
  *out = table.identities[id - 1];
  return true;
}

void ResetTrackerForTesting() {
  StopDrainer();
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    registry.by_id.clear();
    registry.all.clear();
  }
  {
    IdentityTable& table = GetIdentities();
    std::lock_guard<std::mutex> lock(table.mutex);
    table.identities.clear();
    table.by_key.clear();
  }
  g_enabled.store(true);
  g_pauses.store(0);
  g_failure_observer.store(nullptr);
}

}  // namespace realm_shadow

// ---------------------------------------------------------------------------
// The C hooks.  Each is a null/enabled check and one journal append.

using realm_shadow::EventType;
using realm_shadow::NarrowAlignment;

extern "C" {

realm_shadow_memory* realm_shadow_register_memory(
    uint64_t memory_id, realm_shadow_memory_kind kind, uint64_t capacity,
    const char* name, unsigned flags) {
  return realm_shadow::RegisterMemory(
      memory_id, static_cast<realm_shadow::MemoryKind>(kind), capacity,
      name ? name : "", flags);
}

void realm_shadow_set_enabled(int enabled) {
  const bool was = realm_shadow::g_enabled.exchange(enabled != 0);
  if (was && !enabled) realm_shadow::g_pauses.fetch_add(1);
}

void realm_shadow_allocated(realm_shadow_memory* m, uint64_t instance,
                            uint64_t offset, uint64_t size,
                            uint64_t alignment) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kAllocated, instance, offset, size,
                    NarrowAlignment(alignment));
}

void realm_shadow_deferred(realm_shadow_memory* m, uint64_t instance,
                           uint64_t size, uint64_t alignment,
                           uint64_t planned_offset) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kDeferred, instance, planned_offset, size,
                    NarrowAlignment(alignment));
}

void realm_shadow_deferred_completed(realm_shadow_memory* m, uint64_t instance,
                                     uint64_t offset) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kDeferredCompleted, instance, offset, 0, 0);
}

void realm_shadow_deferred_failed(realm_shadow_memory* m, uint64_t instance) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kDeferredFailed, instance, 0, 0, 0);
  realm_shadow::NotifyFailure(m, instance);
}

void realm_shadow_allocation_failed(realm_shadow_memory* m, uint64_t instance,
                                    uint64_t size, uint64_t alignment) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kAllocationFailed, instance, 0, size,
                    NarrowAlignment(alignment));
  realm_shadow::NotifyFailure(m, instance);
}

void realm_shadow_release_requested(realm_shadow_memory* m, uint64_t instance,
                                    int ready) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kReleaseRequested, instance, 0, 0,
                    ready ? 1u : 0u);
}

void realm_shadow_release_cancelled(realm_shadow_memory* m,
                                    uint64_t instance) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kReleaseRequested, instance, 0, 0, 2u);
}

void realm_shadow_released(realm_shadow_memory* m, uint64_t instance) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kReleased, instance, 0, 0, 0);
}

void realm_shadow_redistricted(realm_shadow_memory* m, uint64_t old_instance,
                               uint32_t count,
                               const realm_shadow_piece* pieces) {
  if (!realm_shadow::Recording(m)) return;
  if (pieces == nullptr) count = 0;
  m->AppendGroupOrApply(EventType::kRedistrict, old_instance, count,
                        [pieces](uint32_t i) {
                          return realm_shadow::Event{
                              EventType::kRedistrictPiece, pieces[i].instance,
                              pieces[i].offset, pieces[i].size,
                              NarrowAlignment(pieces[i].alignment)};
                        });
}

void realm_shadow_reserved(realm_shadow_memory* m, uint64_t reservation,
                           uint64_t offset, uint64_t size) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kReserved, reservation, offset, size, 0);
}

void realm_shadow_reservation_ended(realm_shadow_memory* m,
                                    uint64_t reservation) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kReservationEnded, reservation, 0, 0, 0);
}

void realm_shadow_attach_identity(realm_shadow_memory* m, uint64_t instance,
                                  uint32_t identity, int pinned) {
  if (!realm_shadow::Recording(m)) return;
  // Off the hot path: the identity's kind travels in the record so the
  // shadow map needs no table lookup.
  realm_shadow::Identity found;
  uint32_t kind = 0;
  if (realm_shadow::LookupIdentity(identity, &found))
    kind = static_cast<uint32_t>(found.kind);
  m->journal.Append(EventType::kAttachIdentity, instance, identity,
                    pinned ? 1u : 0u, kind);
}

// ---- heap observation ---------------------------------------------------

void realm_shadow_heap_placed(realm_shadow_memory* m, int heap,
                              uint64_t instance, uint64_t offset,
                              uint64_t size, uint64_t alignment) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(heap == REALM_SHADOW_HEAP_FUTURE ? EventType::kFuturePlaced
                                                     : EventType::kHeapPlaced,
                    instance, offset, size, NarrowAlignment(alignment));
}

void realm_shadow_heap_removed(realm_shadow_memory* m, int heap,
                               uint64_t instance) {
  // A removal from the future heap is a planned release: the release site
  // already said so, and the current heap will say when it happens.
  if (!realm_shadow::Recording(m) || heap != REALM_SHADOW_HEAP_CURRENT) return;
  m->journal.Append(EventType::kHeapRemoved, instance, 0, 0, 0);
}

namespace {

realm_shadow::Event ChangeRecord(realm_shadow_heap_change_fn change,
                                 void* context, uint32_t i,
                                 EventType placed_type) {
  realm_shadow_heap_change c{};
  change(context, i, &c);
  if (!c.placed)
    return realm_shadow::Event{EventType::kHeapRemoved, c.instance, 0, 0, 0};
  return realm_shadow::Event{placed_type, c.instance, c.offset, c.size,
                             NarrowAlignment(c.alignment)};
}

// The future heap's bulk reports: every placement is a plan on its own; in a
// split, a piece the future heap could not place is a request with no plan
// (kNoOffset), and a removal elsewhere says nothing.
void AppendFuturePlacements(realm_shadow_memory* m, bool split, uint32_t count,
                            realm_shadow_heap_change_fn change,
                            void* context) {
  for (uint32_t i = 0; i < count; ++i) {
    realm_shadow_heap_change c{};
    change(context, i, &c);
    if (c.placed || split)
      m->journal.Append(EventType::kFuturePlaced, c.instance,
                        c.placed ? c.offset : realm_shadow::kNoOffset, c.size,
                        NarrowAlignment(c.alignment));
  }
}

void AppendHeapGroup(realm_shadow_memory* m, int heap, EventType header,
                     uint64_t header_instance, EventType placed_type,
                     uint32_t count, realm_shadow_heap_change_fn change,
                     void* context) {
  if (!realm_shadow::Recording(m) || change == nullptr) return;
  if (heap == REALM_SHADOW_HEAP_FUTURE) {
    AppendFuturePlacements(m, header == EventType::kHeapSplit, count, change,
                           context);
    return;
  }
  m->AppendGroupOrApply(header, header_instance, count, [&](uint32_t i) {
    return ChangeRecord(change, context, i, placed_type);
  });
}

}  // namespace

void realm_shadow_heap_split(realm_shadow_memory* m, int heap,
                             uint64_t old_instance, uint32_t count,
                             realm_shadow_heap_change_fn change,
                             void* context) {
  AppendHeapGroup(m, heap, EventType::kHeapSplit, old_instance,
                  EventType::kRedistrictPiece, count, change, context);
}

void realm_shadow_heap_swapped(realm_shadow_memory* m, int heap,
                               uint32_t count,
                               realm_shadow_heap_change_fn change,
                               void* context) {
  AppendHeapGroup(m, heap, EventType::kHeapSwapped, 0, EventType::kHeapPlaced,
                  count, change, context);
}

void realm_shadow_heap_replaced(realm_shadow_memory* m, int heap,
                                uint32_t count,
                                realm_shadow_heap_change_fn change,
                                void* context) {
  AppendHeapGroup(m, heap, EventType::kHeapReplaced, 0, EventType::kHeapPlaced,
                  count, change, context);
}

void realm_shadow_request_failed(realm_shadow_memory* m, uint64_t instance,
                                 uint64_t size, uint64_t alignment,
                                 int eventual) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kRequestFailed, instance, eventual ? 1 : 0, size,
                    NarrowAlignment(alignment));
  realm_shadow::NotifyFailure(m, instance);
}

void realm_shadow_heap_reset(realm_shadow_memory* m, int heap) {
  // Only the future heap's plans can be voided; a current heap that is
  // rebuilt reports its content (realm_shadow_heap_replaced).
  if (!realm_shadow::Recording(m) || heap != REALM_SHADOW_HEAP_FUTURE) return;
  m->journal.Append(EventType::kFutureReset, 0, 0, 0, 0);
}

void realm_shadow_request_waiting(realm_shadow_memory* m, uint64_t instance,
                                  uint64_t size, uint64_t alignment) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kFuturePlaced, instance, realm_shadow::kNoOffset,
                    size, NarrowAlignment(alignment));
}

void realm_shadow_request_cancelled(realm_shadow_memory* m,
                                    uint64_t instance) {
  if (!realm_shadow::Recording(m)) return;
  m->journal.Append(EventType::kRequestCancelled, instance, 0, 0, 0);
}

realm_shadow_memory* realm_shadow_find_memory(uint64_t memory_id) {
  return realm_shadow::FindMemory(memory_id);
}

}  // extern "C"
