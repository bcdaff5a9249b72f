// bench/model_allocator_benchmark.cc - what tracking adds to an allocator:
// the model memory's Create + Destroy (Realm's LocalManagedMemory, first
// fit over three heaps) with tracking compiled out, compiled in but
// switched off, and on.
//
// This file is compiled twice into realm_shadow_bench (bench/CMakeLists.txt):
//  - as is: ModelMemory reports through the real hooks; the benchmarks
//    BM_Model_Tracked (recording) and BM_Model_SwitchedOff
//    (realm_shadow_set_enabled(0): each hook is one branch).
//  - with REALM_SHADOW_ENABLED=0, the namespace renamed to
//    realm_shadow::model_untracked and REALM_SHADOW_BENCH_UNTRACKED=1,
//    together with a second compilation of the model's own sources: the
//    hooks are empty inlines; the benchmark BM_Model_CompiledOut.
// The three run the same events: `live` instances of 256 B side by side;
// each step destroys one (in a fixed random order) and creates a new one,
// which first fit puts in the hole just made.  A step reports three events
// (release_requested, released, allocated).
//
// Timing: batches of 4096 steps (12288 events, within one journal) timed
// with steady_clock; between batches the journal is drained untimed, on
// another core, as the drainer thread does in production (its cost per
// event is BM_Drain).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "realm_shadow/hooks.h"
#include "model/model_memory.h"
#if !REALM_SHADOW_BENCH_UNTRACKED
#include "realm_shadow/live/snapshots.h"
#endif

namespace realm_shadow_bench {
void DrainOnConsumerThread();  // bench_main.cc
// A batch of the compiled-out model, defined in the untracked half.
double TimeCompiledOutBatch(uint32_t live, uint64_t* failures);
}

namespace {

using realm_shadow::model::ModelMemory;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kBytes = 256;
constexpr int kStepsPerBatch = 4096;

struct ModelFixture {
  std::unique_ptr<ModelMemory> memory;
  std::vector<uint64_t> instance_in_slot;
  std::vector<uint32_t> order;
  size_t position = 0;
};

// How the model reports (ModelMemoryOptions): the decision hooks on a
// serialized journal, the same on a concurrent one, or heap observation on
// a concurrent one, as realm_sites.h registers a Realm memory.
enum class Reporting { kDecisionsSerialized = 0, kDecisionsConcurrent = 1,
                       kHeapObserved = 2 };

ModelFixture& Fixture(uint32_t live, uint32_t memory_index,
                      Reporting reporting = Reporting::kDecisionsSerialized) {
  static std::map<uint32_t, std::unique_ptr<ModelFixture>> fixtures;
  auto& f = fixtures[memory_index];
  if (!f) {
    f.reset(new ModelFixture);
    realm_shadow::model::ModelMemoryOptions options;
    options.hook_flags = reporting == Reporting::kDecisionsSerialized
                             ? REALM_SHADOW_SERIALIZED
                             : REALM_SHADOW_CONCURRENT;
    options.observe_heaps = reporting == Reporting::kHeapObserved;
    f->memory.reset(new ModelMemory(0x1e00000000000000ull | memory_index,
                                    REALM_SHADOW_MEM_SYSTEM,
                                    uint64_t{live} * kBytes * 2, "bench-model",
                                    options));
    for (uint32_t slot = 0; slot < live; ++slot)
      f->instance_in_slot.push_back(f->memory->Create(kBytes, kBytes).instance);
    f->order.resize(live);
    std::iota(f->order.begin(), f->order.end(), 0u);
    std::shuffle(f->order.begin(), f->order.end(), std::mt19937(5));
  }
  return *f;
}

// One timed batch of kStepsPerBatch Destroy + Create steps; the drain that
// follows is untimed (on another core, as in production; the untracked
// build waits for the consumer thread too, with nothing to apply, so both
// pay the same hand-off).  Returns seconds; counts creates that failed.
double TimeBatch(ModelFixture& f, uint64_t* failures) {
  ModelMemory& memory = *f.memory;
  const auto t0 = Clock::now();
  for (int i = 0; i < kStepsPerBatch; ++i) {
    const uint32_t slot = f.order[f.position];
    if (++f.position == f.order.size()) f.position = 0;
    memory.Destroy(f.instance_in_slot[slot]);
    const auto created = memory.Create(kBytes, kBytes);
    *failures += created.result !=
                 realm_shadow::model::AllocationResult::kInstantSuccess;
    f.instance_in_slot[slot] = created.instance;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  realm_shadow_bench::DrainOnConsumerThread();
  return seconds;
}

void Run(benchmark::State& state, uint32_t memory_index) {
  const uint32_t live = static_cast<uint32_t>(state.range(0));
  ModelFixture& f = Fixture(live, memory_index);
  uint64_t failures = 0;
  for (auto _ : state) state.SetIterationTime(TimeBatch(f, &failures));
  if (failures) state.SkipWithError("a create did not succeed at once");
  if (f.memory->live_count() != live) state.SkipWithError("live count drifted");
  state.SetItemsProcessed(state.iterations() * kStepsPerBatch);
  state.counters["events_per_step"] = 3;
}

#if REALM_SHADOW_BENCH_UNTRACKED

void BM_Model_CompiledOut(benchmark::State& state) {
  Run(state, state.range(0) == 1000 ? 0x14 : 0x15);
}
BENCHMARK(BM_Model_CompiledOut)->Arg(1000)->Arg(100000)->UseManualTime();

}  // namespace

namespace realm_shadow_bench {
// For BM_Model_Paired in the tracked half: one batch on this half's own
// fixture (0x16 / 0x17).
double TimeCompiledOutBatch(uint32_t live, uint64_t* failures) {
  return TimeBatch(Fixture(live, live == 1000 ? 0x16 : 0x17), failures);
}
}  // namespace realm_shadow_bench

namespace {

#else

void BM_Model_Tracked(benchmark::State& state) {
  const uint32_t index = state.range(0) == 1000 ? 0x10 : 0x11;
  realm_shadow_memory* handle = Fixture(
      static_cast<uint32_t>(state.range(0)), index).memory->shadow_handle();
  const uint64_t overflows_before =
      realm_shadow::TakeSnapshot(handle).counters.journal_overflows;
  Run(state, index);
  const realm_shadow::Snapshot after = realm_shadow::TakeSnapshot(handle);
  state.counters["journal_overflows"] =
      static_cast<double>(after.counters.journal_overflows - overflows_before);
  state.counters["shadow_live"] = static_cast<double>(after.allocations.size());
}
BENCHMARK(BM_Model_Tracked)->Arg(1000)->Arg(100000)->UseManualTime();

void BM_Model_SwitchedOff(benchmark::State& state) {
  realm_shadow_set_enabled(0);
  Run(state, state.range(0) == 1000 ? 0x12 : 0x13);
  realm_shadow_set_enabled(1);
}
BENCHMARK(BM_Model_SwitchedOff)->Arg(1000)->Arg(100000)->UseManualTime();

// The overhead figure: batches of the compiled-out and the tracked model
// alternate (the order flips every iteration), and the counter is the
// median of the per-pair ratios.  Separate benchmarks, minutes apart, see
// this VM's speed drift by 30% or more; a pair taken back to back sees the
// same machine, so the ratio of a pair is the cleaner estimate.  The second
// argument is how the tracked model reports (Reporting): 0 the decision
// hooks, serialized (the first round's figure); 1 the same, concurrent;
// 2 heap observation, concurrent, as a Realm memory is registered.
void BM_Model_Paired(benchmark::State& state) {
  const uint32_t live = static_cast<uint32_t>(state.range(0));
  const auto reporting = static_cast<Reporting>(state.range(1));
  const uint32_t index = (live == 1000 ? 0x18 : 0x19) + 2 * state.range(1);
  ModelFixture& tracked = Fixture(live, index, reporting);
  uint64_t failures = 0;
  std::vector<double> ratios, compiled_out, tracked_times;
  bool tracked_first = false;
  for (auto _ : state) {
    double t_out, t_on;
    if (tracked_first) {
      t_on = TimeBatch(tracked, &failures);
      t_out = realm_shadow_bench::TimeCompiledOutBatch(live, &failures);
    } else {
      t_out = realm_shadow_bench::TimeCompiledOutBatch(live, &failures);
      t_on = TimeBatch(tracked, &failures);
    }
    tracked_first = !tracked_first;
    state.SetIterationTime(t_out + t_on);
    ratios.push_back(t_on / t_out);
    compiled_out.push_back(t_out);
    tracked_times.push_back(t_on);
  }
  if (failures) state.SkipWithError("a create did not succeed at once");
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  state.counters["tracked_over_compiled_out"] = median(ratios);
  state.counters["compiled_out_ns_per_step"] =
      median(compiled_out) * 1e9 / kStepsPerBatch;
  state.counters["tracked_ns_per_step"] =
      median(tracked_times) * 1e9 / kStepsPerBatch;
  state.counters["pairs"] = static_cast<double>(ratios.size());
}
BENCHMARK(BM_Model_Paired)
    ->Args({1000, 0})->Args({100000, 0})
    ->Args({1000, 1})->Args({100000, 1})
    ->Args({1000, 2})->Args({100000, 2})
    ->UseManualTime()->MinTime(0.5);

#endif

}  // namespace
