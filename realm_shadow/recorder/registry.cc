// The registry of tracked memories, the options, the consumer seam, and the
// drains every consumer runs.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "realm_shadow/recorder/internal/memory.h"
#include "realm_shadow/recorder/recorder.h"

namespace realm_shadow {
namespace internal {

REALM_SHADOW_INTERNAL_HIDDEN std::atomic<bool> g_enabled{true};
REALM_SHADOW_INTERNAL_HIDDEN std::atomic<uint64_t> g_pauses{0};

}  // namespace internal

namespace {

std::atomic<FailureObserver> g_failure_observer{nullptr};
std::atomic<const JournalConsumer*> g_consumer{nullptr};

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

// A count from the environment variable `name`; unset keeps the default,
// and so does anything but a positive decimal number up to `max` ("16k",
// "-1", "0"), with one line on stderr saying so.
size_t ParseCount(const char* name, size_t fallback, bool zero_ok = false,
                  uint64_t max = SIZE_MAX) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  uint64_t v = 0;
  if (!absl::SimpleAtoi(text, &v) || (v == 0 && !zero_ok) || v > max) {
    std::fprintf(stderr, "realm-shadow: %s=%s is not a %scount; using %zu\n",
                 name, text, zero_ok ? "" : "positive ", fallback);
    return fallback;
  }
  return static_cast<size_t>(v);
}

void OnJournalFull(void* context) {
  auto* memory = static_cast<realm_shadow_memory*>(context);
  std::lock_guard<std::mutex> lock(memory->consumer_mutex);
  memory->DrainLocked();
}

}  // namespace

namespace internal {

void NotifyFailure(realm_shadow_memory* m, uint64_t instance) {
  // Acquire: pairs with SetFailureObserver's release store.
  if (FailureObserver observer =
          g_failure_observer.load(std::memory_order_acquire))
    observer(m, instance);
}

}  // namespace internal

const TrackerOptions& Options() {
  static const TrackerOptions options = [] {
    TrackerOptions o;
    const char* on = std::getenv("REALM_SHADOW");
    o.tracking = !(on != nullptr && std::string(on) == "0");
    o.journal_events = ParseCount("REALM_SHADOW_JOURNAL_EVENTS", o.journal_events);
    o.history_events =
        ParseCount("REALM_SHADOW_HISTORY", o.history_events, /*zero_ok=*/true);
    // A node id is 32 bits: 4294967297 is refused, not taken as node 1.
    o.node = static_cast<uint32_t>(ParseCount("REALM_SHADOW_NODE", 0, true, UINT32_MAX));
    return o;
  }();
  return options;
}

realm_shadow_memory* RegisterMemory(uint64_t memory_id, MemoryKind kind,
                                    uint64_t capacity, const std::string& name,
                                    unsigned flags, size_t journal_events,
                                    size_t history_events) {
  if (!Options().tracking) return nullptr;
  if (journal_events == 0) journal_events = Options().journal_events;
  if (history_events == kHistoryFromOptions)
    history_events = Options().history_events;
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.by_id.find(memory_id);
  if (it != registry.by_id.end()) return it->second.get();
  auto memory = std::make_unique<realm_shadow_memory>(
      memory_id, kind, capacity, name, flags, journal_events, history_events,
      internal::g_enabled.load(std::memory_order_relaxed),
      internal::g_pauses.load(std::memory_order_relaxed));
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

MemoryDescription DescribeMemory(const realm_shadow_memory* memory) {
  return memory == nullptr ? MemoryDescription() : memory->Describe();
}

// ---- the consumer seam -----------------------------------------------------

void InstallJournalConsumer(const JournalConsumer* consumer) {
  const JournalConsumer* none = nullptr;
  // Release: a drain that acquires the pointer sees the consumer's table.
  g_consumer.compare_exchange_strong(none, consumer, std::memory_order_release);
}

void ReplaceJournalConsumerForTesting(const JournalConsumer* consumer) {
  g_consumer.store(consumer, std::memory_order_release);
}

void VisitConsumerState(realm_shadow_memory* memory,
                        void (*visit)(void* context, void* state),
                        void* context) {
  if (memory == nullptr) return;
  std::lock_guard<std::mutex> lock(memory->consumer_mutex);
  memory->DrainLocked();
  visit(context, memory->consumer_state);
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

namespace internal {

void AppendIdentitiesInUse(std::vector<uint32_t>* out) {
  std::vector<realm_shadow_memory*> memories;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    memories = registry.all;
  }
  // Acquire: pairs with InstallJournalConsumer's release.
  const JournalConsumer* c = g_consumer.load(std::memory_order_acquire);
  for (realm_shadow_memory* m : memories) {
    std::lock_guard<std::mutex> lock(m->consumer_mutex);
    m->DrainLocked();
    if (c != nullptr && c->identities != nullptr && m->consumer_state != nullptr)
      c->identities(m->consumer_state, out);
  }
}

}  // namespace internal

void SetFailureObserver(FailureObserver observer) {
  g_failure_observer.store(observer, std::memory_order_release);
}

void ResetIdentitiesForTesting();  // identity_table.cc

void ResetTrackerForTesting() {
  StopDrainer();
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    registry.by_id.clear();
    registry.all.clear();
  }
  ResetIdentitiesForTesting();
  internal::g_enabled.store(true);
  internal::g_pauses.store(0);
  g_failure_observer.store(nullptr);
}

}  // namespace realm_shadow

// ---- the memory's consumer side ----------------------------------------------

realm_shadow_memory::~realm_shadow_memory() {
  const realm_shadow::JournalConsumer* c =
      realm_shadow::g_consumer.load(std::memory_order_acquire);
  if (c != nullptr && consumer_state != nullptr) c->destroy(consumer_state);
}

realm_shadow::MemoryDescription realm_shadow_memory::Describe() const {
  realm_shadow::MemoryDescription d;
  d.id = id;
  d.kind = kind;
  d.capacity = capacity;
  d.name = name;
  d.flags = flags;
  d.exact = recorded_from_start &&
            realm_shadow::internal::g_pauses.load(std::memory_order_relaxed) ==
                pauses_at_registration;
  d.journal_overflows = journal.overflow_count();
  d.journal_appended = journal.appended();
  d.journal_consumed = journal.consumed_estimate();
  d.history_events = history_events;
  return d;
}

void realm_shadow_memory::ApplyLocked(const realm_shadow::Event* events,
                                      size_t count) {
  // Acquire: pairs with InstallJournalConsumer's release.
  const realm_shadow::JournalConsumer* c =
      realm_shadow::g_consumer.load(std::memory_order_acquire);
  if (c == nullptr) return;  // nobody reads this memory: the records go
  if (consumer_state == nullptr) consumer_state = c->create(Describe());
  c->apply(consumer_state, events, count);
}

void realm_shadow_memory::DrainLocked() {
  if (consumer_state == nullptr) {
    // The first drain makes the consumer's state, records or not: a
    // snapshot of a memory nothing has happened in still has its capacity.
    const realm_shadow::JournalConsumer* c =
        realm_shadow::g_consumer.load(std::memory_order_acquire);
    if (c != nullptr) consumer_state = c->create(Describe());
  }
  // Records go to the consumer in batches, so that its indirect call is paid
  // once per 256 records rather than per record (8 KiB on the stack).
  constexpr size_t kBatch = 256;
  realm_shadow::Event batch[kBatch];
  size_t n = 0;
  journal.Consume([&](const realm_shadow::Event& e) {
    batch[n++] = e;
    if (n == kBatch) {
      ApplyLocked(batch, n);
      n = 0;
    }
  });
  if (n != 0) ApplyLocked(batch, n);
}
