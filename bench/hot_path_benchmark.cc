// bench/hot_path_benchmark.cc - what one allocator event costs the thread
// that reports it: realm-shadow's hooks against the two usual designs of an
// allocation tracker, on the same event stream.
//
// The event stream (Churn): a memory holds `live` allocations of 256 B in
// slots; each step releases the allocation in one slot and places a new one
// there (a released + allocated pair), visiting the slots in a fixed random
// order.  Every tracker sees exactly these events, so the ratios compare
// designs, not workloads.
//
// Timing: batches of kPairsPerBatch pairs (8192 events, half a journal) are
// timed with steady_clock (manual time).  Between batches, untimed, the
// journal is drained on a thread on the other core: the consumer's work
// (applying events to the shadow map, reported by BM_Drain in
// snapshot_benchmark.cc) runs on the drainer thread in production, never on
// the writer, and this keeps it off the writer here too.  The counter journal_overflows must stay 0: it counts the
// times a writer found its journal full and paid for the consumer itself.
//
// Baselines (noinline, as our hooks are out-of-line calls):
//  - SharedMutexMapTracker: RMM's tracking_resource_adaptor design, an
//    exclusive lock on a std::shared_mutex around a std::map insert/erase
//    keyed by pointer (offset here) on every allocate and free.
//  - MutexBtreeTracker: std::mutex + absl::btree_map, the best a locked
//    ordered map does.
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <shared_mutex>
#include <vector>

#include <benchmark/benchmark.h>

#include "absl/container/btree_map.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/live/snapshots.h"

namespace realm_shadow_bench {
void DrainOnConsumerThread();  // bench_main.cc
}

namespace {

constexpr uint64_t kSlotBytes = 256;
constexpr uint64_t kAlignment = 256;
constexpr int kPairsPerBatch = 4096;  // 8192 events: half the journal

using Clock = std::chrono::steady_clock;

// The released + allocated pairs of one memory, slot order fixed by seed.
class Churn {
 public:
  struct Pair {
    uint64_t old_instance;
    uint64_t new_instance;
    uint64_t offset;
  };
  // Slots [first, first + count).
  Churn(uint32_t first, uint32_t count, uint32_t seed) : order_(count) {
    std::iota(order_.begin(), order_.end(), first);
    std::shuffle(order_.begin(), order_.end(), std::mt19937(seed));
  }
  // The instance in a slot at fill time.
  static uint64_t InitialInstance(uint32_t slot) { return Id(slot, 0); }
  inline Pair Next() {
    const uint32_t slot = order_[position_];
    const Pair p{Id(slot, parity_), Id(slot, parity_ ^ 1), slot * kSlotBytes};
    if (++position_ == order_.size()) {
      position_ = 0;
      parity_ ^= 1;
    }
    return p;
  }

 private:
  // Ids alternate between two values per slot: each pass over the slots
  // replaces every allocation once.
  static uint64_t Id(uint32_t slot, uint32_t parity) {
    return ((uint64_t{slot} << 1) | parity) + 1;
  }
  std::vector<uint32_t> order_;
  size_t position_ = 0;
  uint32_t parity_ = 0;
};

// A registered memory holding `live` allocations, drained.
realm_shadow_memory* FilledMemory(uint64_t id, uint32_t live, unsigned flags) {
  realm_shadow_memory* m = realm_shadow::RegisterMemory(
      id, realm_shadow::MemoryKind::kSystem, uint64_t{live} * kSlotBytes * 2,
      "bench", flags);
  for (uint32_t slot = 0; slot < live; ++slot)
    realm_shadow_allocated(m, Churn::InitialInstance(slot), slot * kSlotBytes,
                           kSlotBytes, kAlignment);
  realm_shadow::DrainAll();
  return m;
}

uint64_t Overflows(realm_shadow_memory* m) {
  return realm_shadow::TakeSnapshot(m).counters.journal_overflows;
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The timed part of every hook benchmark: `pairs` released + allocated
// pairs of `churn` through the hooks of `m`, in seconds.
double HookPairsSeconds(realm_shadow_memory* m, Churn& churn, int pairs) {
  const auto t0 = Clock::now();
  for (int i = 0; i < pairs; ++i) {
    const Churn::Pair p = churn.Next();
    realm_shadow_released(m, p.old_instance);
    realm_shadow_allocated(m, p.new_instance, p.offset, kSlotBytes,
                           kAlignment);
  }
  return Seconds(t0, Clock::now());
}

// ---- realm-shadow, caller-serialized (Realm's allocator mutex held) -------

struct SerializedFixture {
  realm_shadow_memory* memory;
  Churn churn;
};

SerializedFixture& Serialized(uint32_t live) {
  static std::map<uint32_t, std::unique_ptr<SerializedFixture>> fixtures;
  auto& f = fixtures[live];
  if (!f) {
    f.reset(new SerializedFixture{
        FilledMemory(0x1e00000000100000ull + live, live, REALM_SHADOW_SERIALIZED),
        Churn(0, live, 1)});
  }
  return *f;
}

void BM_Hook_Serialized(benchmark::State& state) {
  SerializedFixture& f = Serialized(static_cast<uint32_t>(state.range(0)));
  realm_shadow_memory* const m = f.memory;
  const uint64_t overflows_before = Overflows(m);
  for (auto _ : state) {
    state.SetIterationTime(HookPairsSeconds(m, f.churn, kPairsPerBatch));
    // Untimed: the drainer's work, on another core as in production.
    realm_shadow_bench::DrainOnConsumerThread();
  }
  state.SetItemsProcessed(state.iterations() * kPairsPerBatch * 2);
  state.counters["journal_overflows"] =
      static_cast<double>(Overflows(m) - overflows_before);
  state.counters["writers"] = 1;
}
BENCHMARK(BM_Hook_Serialized)->Arg(1000)->Arg(100000)->UseManualTime();

// The run-time switch off: every hook is one predictable branch.
void BM_Hook_SwitchedOff(benchmark::State& state) {
  SerializedFixture& f = Serialized(static_cast<uint32_t>(state.range(0)));
  realm_shadow_memory* const m = f.memory;
  // A copy of the churn: nothing is recorded, so the memory's own churn
  // must not move on.
  Churn churn = f.churn;
  realm_shadow_set_enabled(0);
  for (auto _ : state)
    state.SetIterationTime(HookPairsSeconds(m, churn, kPairsPerBatch));
  realm_shadow_set_enabled(1);
  state.SetItemsProcessed(state.iterations() * kPairsPerBatch * 2);
  state.counters["writers"] = 1;
}
BENCHMARK(BM_Hook_SwitchedOff)->Arg(100000)->UseManualTime();

// ---- realm-shadow, two unserialized writers on one memory ------------------

struct ConcurrentFixture {
  realm_shadow_memory* memory;
  std::unique_ptr<Churn> churn[2];  // each writer its own half of the slots
};

ConcurrentFixture& Concurrent(uint32_t live) {
  static std::mutex mutex;
  static std::map<uint32_t, std::unique_ptr<ConcurrentFixture>> fixtures;
  std::lock_guard<std::mutex> lock(mutex);
  auto& f = fixtures[live];
  if (!f) {
    f.reset(new ConcurrentFixture);
    f->memory = FilledMemory(0x1e00000000200000ull + live, live,
                             REALM_SHADOW_CONCURRENT);
    f->churn[0].reset(new Churn(0, live / 2, 2));
    f->churn[1].reset(new Churn(live / 2, live - live / 2, 3));
  }
  return *f;
}

void BM_Hook_Concurrent(benchmark::State& state) {
  // Both writers write a batch at the same time, then meet; one drains
  // (untimed) while the other waits, and they meet again.
  static std::barrier<> meet(2);
  ConcurrentFixture& f = Concurrent(static_cast<uint32_t>(state.range(0)));
  realm_shadow_memory* const m = f.memory;
  Churn& churn = *f.churn[state.thread_index()];
  constexpr int kPairs = kPairsPerBatch / 2;  // both writers: 8192 events
  uint64_t overflows_before = 0;
  if (state.thread_index() == 0) overflows_before = Overflows(m);
  meet.arrive_and_wait();
  for (auto _ : state) {
    state.SetIterationTime(HookPairsSeconds(m, churn, kPairs));
    meet.arrive_and_wait();
    if (state.thread_index() == 0) realm_shadow::DrainAll();
    meet.arrive_and_wait();
  }
  state.SetItemsProcessed(state.iterations() * kPairs * 2);
  state.counters["writers"] = 1;  // summed over the threads: 2
  if (state.thread_index() == 0)
    state.counters["journal_overflows"] =
        static_cast<double>(Overflows(m) - overflows_before);
}
BENCHMARK(BM_Hook_Concurrent)
    ->Arg(100000)
    ->Threads(2)
    ->UseManualTime();

// ---- baselines ------------------------------------------------------------

struct Entry {
  uint64_t size;
  uint64_t instance;
};

// The two locked baselines differ only in their lock and their map.
template <typename Mutex, template <typename> class Lock, typename Map>
class LockedTracker {
 public:
  __attribute__((noinline)) void Allocated(uint64_t instance, uint64_t offset,
                                           uint64_t size) {
    Lock<Mutex> lock(mutex_);
    live_.emplace(offset, Entry{size, instance});
  }
  __attribute__((noinline)) void Released(uint64_t offset) {
    Lock<Mutex> lock(mutex_);
    auto it = live_.find(offset);
    if (it != live_.end()) live_.erase(it);
  }

 private:
  Mutex mutex_;
  Map live_;
};

using SharedMutexMapTracker = LockedTracker<std::shared_mutex, std::unique_lock,
                                            std::map<uint64_t, Entry>>;
using MutexBtreeTracker = LockedTracker<std::mutex, std::lock_guard,
                                        absl::btree_map<uint64_t, Entry>>;

template <typename Tracker>
struct BaselineFixture {
  Tracker tracker;
  Churn churn;
};

template <typename Tracker>
BaselineFixture<Tracker>& Baseline(uint32_t live) {
  static std::map<uint32_t, std::unique_ptr<BaselineFixture<Tracker>>> fixtures;
  auto& f = fixtures[live];
  if (!f) {
    f.reset(new BaselineFixture<Tracker>{Tracker(), Churn(0, live, 1)});
    for (uint32_t slot = 0; slot < live; ++slot)
      f->tracker.Allocated(Churn::InitialInstance(slot), slot * kSlotBytes,
                           kSlotBytes);
  }
  return *f;
}

template <typename Tracker>
void BM_Baseline(benchmark::State& state) {
  auto& f = Baseline<Tracker>(static_cast<uint32_t>(state.range(0)));
  for (auto _ : state) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kPairsPerBatch; ++i) {
      const Churn::Pair p = f.churn.Next();
      f.tracker.Released(p.offset);
      f.tracker.Allocated(p.new_instance, p.offset, kSlotBytes);
    }
    state.SetIterationTime(Seconds(t0, Clock::now()));
  }
  state.SetItemsProcessed(state.iterations() * kPairsPerBatch * 2);
  state.counters["writers"] = 1;
}
BENCHMARK_TEMPLATE(BM_Baseline, SharedMutexMapTracker)
    ->Name("BM_Baseline_SharedMutexStdMap")
    ->Arg(1000)
    ->Arg(100000)
    ->UseManualTime();
BENCHMARK_TEMPLATE(BM_Baseline, MutexBtreeTracker)
    ->Name("BM_Baseline_MutexAbslBtree")
    ->Arg(1000)
    ->Arg(100000)
    ->UseManualTime();

// The harness alone (churn arithmetic, loop): subtracted from nothing, shown
// so a reader can see how much of a few-ns figure is the loop.
void BM_Harness(benchmark::State& state) {
  Churn churn(0, 100000, 1);
  for (auto _ : state) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kPairsPerBatch; ++i) {
      Churn::Pair p = churn.Next();
      benchmark::DoNotOptimize(p);
    }
    state.SetIterationTime(Seconds(t0, Clock::now()));
  }
  state.SetItemsProcessed(state.iterations() * kPairsPerBatch * 2);
}
BENCHMARK(BM_Harness)->UseManualTime();

}  // namespace
