// bench/replay_benchmark.cc - what-if replay (whatif/replay.h): events
// replayed per second per policy at 100k live allocations, and the
// smallest-capacity search on a 1M-event history.
//
// The history: a base snapshot of 100k live allocations (sizes log-uniform
// 256 B - 64 KiB, 256-aligned, packed from offset 0), then 1M events in
// pairs: a release of a random live allocation (ready at once) and a new
// request of a random size, so that 100k stay live; the capacity is 1.25x
// the bytes live at the base, so holes of every size come and go and first
// fit walks past many (the case a walk over the free list pays for).  One
// event per step, as the decision hooks record a release and a placement.
// Requests the replay cannot place fail and are replayed as failed; at this
// capacity none does under realm or best-fit.
//
// Figures: BM_Replay/<policy> reports events_per_s in this thread's CPU
// time (one replay of the 1M events, from the base, per iteration: setup
// of the 100k base included, as a replay pays it, and the minor page
// faults it took); BM_ReplaySetup/<policy> that setup alone (no step);
// BM_ReplayHeap/<policy> the same releases and requests on one heap, no
// model memory around it (what placement alone costs);
// BM_MinCapacity/<policy> the seconds of one FindMinCapacity and the
// replays it ran.
// BM_HeapCopy/<live>: one copy of a realm heap holding `live` allocations
// under the model's keys (what the model pays per event while deferred
// requests wait, `future = current`); BM_HeapCopyHashMapReference/<live>
// copies the same entries as a flat_hash_map, the structure the heap's
// allocated ranges were kept in before.
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <time.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "model/range_allocator.h"
#include "whatif/replay.h"
#include "bench/skip_on_error.h"

namespace {

using realm_shadow_bench::SkipOnError;

using realm_shadow::whatif::FindMinCapacity;
using realm_shadow::whatif::MinCapacity;
using realm_shadow::whatif::RecordedOutcome;
using realm_shadow::whatif::ReplayLife;
using realm_shadow::whatif::ReplayOptions;
using realm_shadow::whatif::ReplayResult;
using realm_shadow::whatif::ReplayScript;
using realm_shadow::whatif::ReplayStep;
using realm_shadow::whatif::StepKind;
using realm_shadow::model::PlacementPolicy;

constexpr uint32_t kLive = 100000;
constexpr uint64_t kEvents = 1000000;

// Minor page faults of the process so far (a replay's fresh pages are
// part of its CPU time: the kernel clears each one).
double MinorFaults() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_minflt);
}

// CPU time of this thread: the shared machine's load does not count.
double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

uint64_t RandomSize(std::mt19937_64& rng) {
  // log-uniform in [256, 64 KiB), rounded up to 256
  const double e = 8.0 + 8.0 * static_cast<double>(rng() % 1000000) / 1e6;
  const uint64_t s = static_cast<uint64_t>(std::exp2(e));
  return (s + 255) / 256 * 256;
}

const ReplayScript& History() {
  static const ReplayScript script = [] {
    ReplayScript s;
    std::mt19937_64 rng(42);
    std::vector<uint32_t> live;
    uint64_t offset = 0;
    for (uint32_t i = 0; i < kLive; ++i) {
      ReplayLife l;
      l.instance = 0x4000000000000000ull | i;
      l.size = RandomSize(rng);
      l.alignment = 256;
      l.recorded = RecordedOutcome::kLiveAtBase;
      l.recorded_offset = offset;
      offset += l.size;
      s.lives.push_back(l);
      s.base_lives.push_back(i);
      live.push_back(i);
    }
    s.capacity = offset + offset / 4;
    s.first_sequence = 1;  // the base is a snapshot
    uint64_t seq = 1;
    for (uint64_t e = 0; e < kEvents / 2; ++e) {
      const size_t k = rng() % live.size();
      s.steps.push_back(ReplayStep::Of(StepKind::kRelease, live[k], seq++, /*ready=*/true));
      ReplayLife l;
      l.instance = 0x4000000000000000ull | (kLive + e);
      l.size = RandomSize(rng);
      l.alignment = 256;
      s.lives.push_back(l);
      live[k] = static_cast<uint32_t>(s.lives.size() - 1);
      s.steps.push_back(ReplayStep::Of(StepKind::kRequest, live[k], seq++));
    }
    s.end_sequence = seq;
    return s;
  }();
  return script;
}

// One RunReplay of `s` per iteration under the benchmark's policy (its
// argument), timed in this thread's CPU time; false (the benchmark skipped
// with the error) when a replay fails.
struct TimedReplays {
  double seconds = 0;
  double faults = 0;      // minor page faults, over all iterations
  uint64_t failures = 0;  // of the last replay
};
bool TimeReplays(benchmark::State& state, const ReplayScript& s, TimedReplays* out) {
  ReplayOptions o;
  o.policy = static_cast<PlacementPolicy>(state.range(0));
  state.SetLabel(realm_shadow::model::PlacementPolicyName(o.policy));
  for (auto _ : state) {
    const double f0 = MinorFaults(), t0 = ThreadCpuSeconds();
    const absl::StatusOr<ReplayResult> r = realm_shadow::whatif::RunReplay(s, o);
    out->seconds += ThreadCpuSeconds() - t0;
    out->faults += MinorFaults() - f0;
    if (SkipOnError(state, r.status())) return false;
    out->failures = r->failures.size();
  }
  return true;
}

void BM_Replay(benchmark::State& state) {
  const ReplayScript& s = History();
  TimedReplays t;
  if (!TimeReplays(state, s, &t)) return;
  const double events = static_cast<double>(s.steps.size()) * state.iterations();
  state.counters["events_per_s"] = events / t.seconds;
  state.counters["events"] = events;  // replayed (scripts/check-replay-cost)
  state.counters["failures"] = static_cast<double>(t.failures);
  state.counters["page_faults"] = t.faults / static_cast<double>(state.iterations());
}
BENCHMARK(BM_Replay)->DenseRange(0, 5)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_MinCapacity(benchmark::State& state) {
  const auto policy = static_cast<PlacementPolicy>(state.range(0));
  const ReplayScript& s = History();
  MinCapacity m;
  for (auto _ : state) m = FindMinCapacity(s, policy);
  state.counters["replays"] = m.probes;
  state.counters["min_capacity_mib"] = static_cast<double>(m.capacity) / (1 << 20);
  state.counters["found"] = m.found;
  state.SetLabel(realm_shadow::model::PlacementPolicyName(policy));
}
BENCHMARK(BM_MinCapacity)->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(1);

// What BM_Replay's figure holds besides the steps: the same script with no
// step (the 100k base seeded, the per-life arrays made, the final pass
// over the lives).  The first replay in a process also pays the fresh
// pages of those arrays (BM_Replay's page_faults).
void BM_ReplaySetup(benchmark::State& state) {
  static const ReplayScript s = [] {
    ReplayScript c = History();
    c.steps.clear();
    return c;
  }();
  TimedReplays t;
  if (!TimeReplays(state, s, &t)) return;
  state.counters["cpu_ms"] = 1e3 * t.seconds / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ReplaySetup)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

// The same history on one heap alone (range_allocator.h), no model memory
// around it, with the replay's prefetches: what placement costs, of what a
// replay pays per event.  The tags are the model's kind (slot,
// generation), one slot per base life.
void BM_ReplayHeap(benchmark::State& state) {
  const auto policy = static_cast<PlacementPolicy>(state.range(0));
  const ReplayScript& s = History();
  double seconds = 0;
  uint64_t failures = 0, free_ranges = 0;
  for (auto _ : state) {
    const double t0 = ThreadCpuSeconds();
    realm_shadow::model::RangeAllocator heap(s.capacity, policy);
    std::vector<std::pair<uint64_t, realm_shadow::model::AddressRange>> seeds;
    std::vector<uint64_t> tag_of_life(s.lives.size());
    for (uint32_t life : s.base_lives) {
      const ReplayLife& l = s.lives[life];
      tag_of_life[life] = (uint64_t{1} << 32) | life;
      seeds.push_back({tag_of_life[life], {l.recorded_offset, l.recorded_offset + l.size}});
    }
    heap.Seed(seeds);
    // A request takes the slot its step's release freed (both name it).
    // The releases ahead are fetched in stages, as the replay does.
    uint64_t freed = 0, offset;
    failures = 0;
    const std::vector<ReplayStep>& steps = s.steps;
    for (size_t i = 0; i < steps.size(); ++i) {
      const ReplayStep& step = steps[i];
      if (i + 16 < steps.size()) __builtin_prefetch(&tag_of_life[steps[i + 16].life]);
      if (i + 4 < steps.size() && steps[i + 4].kind == StepKind::kRelease)
        heap.Prefetch(tag_of_life[steps[i + 4].life]);
      if (i + 2 < steps.size() && steps[i + 2].kind == StepKind::kRelease)
        heap.PrefetchDeallocate(tag_of_life[steps[i + 2].life]);
      if (step.kind == StepKind::kRelease) {
        freed = tag_of_life[step.life];
        heap.Deallocate(freed);
      } else {
        const ReplayLife& l = s.lives[step.life];
        tag_of_life[step.life] = freed + (uint64_t{1} << 32);
        if (!heap.Allocate(tag_of_life[step.life], l.size, l.alignment, &offset)) ++failures;
      }
    }
    seconds += ThreadCpuSeconds() - t0;
    free_ranges = 0;
    heap.ForEachFreeRange([&](const realm_shadow::model::AddressRange&) { ++free_ranges; });
  }
  state.counters["events_per_s"] = static_cast<double>(s.steps.size()) * state.iterations() / seconds;
  state.counters["failures"] = static_cast<double>(failures);
  state.counters["free_ranges"] = static_cast<double>(free_ranges);
  state.SetLabel(realm_shadow::model::PlacementPolicyName(policy));
}
BENCHMARK(BM_ReplayHeap)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

// A realm heap with `live` allocations of 256-64 KiB (the history's sizes)
// packed from 0, every other one freed, under keys as the model makes them
// (slot, generation 1).
realm_shadow::model::RangeAllocator HeapOf(uint32_t live) {
  std::mt19937_64 rng(7);
  uint64_t capacity = 0;
  std::vector<uint64_t> sizes;
  for (uint32_t i = 0; i < 2 * live; ++i) capacity += sizes.emplace_back(RandomSize(rng));
  realm_shadow::model::RangeAllocator heap(capacity);
  uint64_t offset;
  for (uint32_t i = 0; i < 2 * live; ++i)
    heap.Allocate((uint64_t{1} << 32) | i, sizes[i], 256, &offset);
  for (uint32_t i = 0; i < 2 * live; i += 2) heap.Deallocate((uint64_t{1} << 32) | i);
  return heap;
}

void BM_HeapCopy(benchmark::State& state) {
  const realm_shadow::model::RangeAllocator heap = HeapOf(static_cast<uint32_t>(state.range(0)));
  realm_shadow::model::RangeAllocator copy;
  for (auto _ : state) {
    copy = heap;
    benchmark::DoNotOptimize(copy.allocated_count());
  }
}
BENCHMARK(BM_HeapCopy)->Arg(1000)->Arg(100000)->Unit(benchmark::kMicrosecond);

void BM_HeapCopyHashMapReference(benchmark::State& state) {
  const realm_shadow::model::RangeAllocator heap = HeapOf(static_cast<uint32_t>(state.range(0)));
  absl::flat_hash_map<uint64_t, realm_shadow::model::AddressRange> map;
  for (const auto& [tag, range] : heap.allocations()) map.emplace(tag, range);
  absl::flat_hash_map<uint64_t, realm_shadow::model::AddressRange> copy;
  for (auto _ : state) {
    copy = map;
    benchmark::DoNotOptimize(copy.size());
  }
}
BENCHMARK(BM_HeapCopyHashMapReference)->Arg(1000)->Arg(100000)->Unit(benchmark::kMicrosecond);

}  // namespace
