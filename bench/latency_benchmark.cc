// bench/latency_benchmark.cc - the writer's latency per hook call, alone and
// while another thread takes snapshots of the same memory in a loop.
//
// A snapshot holds the memory's consumer mutex while it drains and copies;
// the hook never takes that mutex unless the journal is full, so the
// claim to check is that the writer's tail does not move.
//
// Clock: rdtsc between lfences, converted to ns with a calibration against
// steady_clock (x86-64; elsewhere steady_clock).  Its own cost, the same
// fenced pair around nothing, is reported as clock_overhead_ns and is
// included in every percentile (it is not subtracted).
//
// Pacing: one event every kPeriodNs, as an allocator that does some work per
// event would; a writer issuing events back to back would outrun any
// consumer and measure the consumer instead.  200k events per run, 100k
// live allocations in the memory (a 3.2 MB copy per snapshot).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "realm_shadow/hooks.h"
#include "realm_shadow/live/snapshots.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kLive = 100000;
constexpr uint64_t kSlotBytes = 256;
constexpr int kEvents = 200000;
constexpr double kPeriodNs = 1000;

inline uint64_t Ticks() {
#if defined(__x86_64__)
  _mm_lfence();
  const uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
#else
  return static_cast<uint64_t>(Clock::now().time_since_epoch().count());
#endif
}

// Ticks per ns, measured once over 50 ms.
double TicksPerNs() {
  static const double ratio = [] {
#if defined(__x86_64__)
    const auto c0 = Clock::now();
    const uint64_t t0 = Ticks();
    while (Clock::now() - c0 < std::chrono::milliseconds(50)) {
    }
    const uint64_t t1 = Ticks();
    const double ns =
        std::chrono::duration<double, std::nano>(Clock::now() - c0).count();
    return static_cast<double>(t1 - t0) / ns;
#else
    return 1.0;
#endif
  }();
  return ratio;
}

realm_shadow_memory* LatencyMemory() {
  static realm_shadow_memory* memory = [] {
    realm_shadow_memory* m = realm_shadow::RegisterMemory(
        0x1e00000000400000ull, realm_shadow::MemoryKind::kFramebuffer,
        uint64_t{kLive} * kSlotBytes * 2, "bench-latency",
        REALM_SHADOW_SERIALIZED);
    for (uint32_t slot = 0; slot < kLive; ++slot)
      realm_shadow_allocated(m, slot + 1, slot * kSlotBytes, kSlotBytes, 256);
    realm_shadow::DrainAll();
    return m;
  }();
  return memory;
}

void BM_WriterLatency(benchmark::State& state) {
  const bool with_snapshots = state.range(0) != 0;
  realm_shadow_memory* const m = LatencyMemory();
  const double ticks_per_ns = TicksPerNs();
  static uint64_t generation = 0;  // instance ids stay consistent across runs

  std::vector<uint32_t> latency(kEvents);
  std::vector<uint32_t> overhead(10000);
  uint64_t snapshots = 0;
  const uint64_t overflows_before =
      realm_shadow::TakeSnapshot(m).counters.journal_overflows;
  for (auto _ : state) {
    for (auto& o : overhead) {
      const uint64_t t0 = Ticks();
      const uint64_t t1 = Ticks();
      o = static_cast<uint32_t>(t1 - t0);
    }
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> taken{0};
    std::thread snapshotter;
    if (with_snapshots) {
      snapshotter = std::thread([&] {
        while (!stop.load(std::memory_order_relaxed)) {
          realm_shadow::Snapshot s = realm_shadow::TakeSnapshot(m);
          benchmark::DoNotOptimize(s.allocations.data());
          taken.fetch_add(1, std::memory_order_relaxed);
        }
      });
      while (taken.load() == 0) std::this_thread::yield();
    }
    const uint64_t taken_before = taken.load();
    const uint64_t period = static_cast<uint64_t>(kPeriodNs * ticks_per_ns);
    uint64_t next = Ticks();
    const auto c0 = Clock::now();
    for (int i = 0; i < kEvents; i += 2) {
      const uint32_t slot = static_cast<uint32_t>((i / 2) % kLive);
      const uint64_t old_instance = slot + 1 + generation * kLive;
      const uint64_t new_instance = old_instance + kLive;
      if (slot == kLive - 1) ++generation;
      while (Ticks() < next) {
      }
      uint64_t t0 = Ticks();
      realm_shadow_released(m, old_instance);
      uint64_t t1 = Ticks();
      latency[i] = static_cast<uint32_t>(std::min<uint64_t>(t1 - t0, UINT32_MAX));
      next += period;
      while (Ticks() < next) {
      }
      t0 = Ticks();
      realm_shadow_allocated(m, new_instance, slot * kSlotBytes, kSlotBytes,
                             256);
      t1 = Ticks();
      latency[i + 1] =
          static_cast<uint32_t>(std::min<uint64_t>(t1 - t0, UINT32_MAX));
      next += period;
    }
    state.SetIterationTime(
        std::chrono::duration<double>(Clock::now() - c0).count());
    snapshots = taken.load() - taken_before;
    stop.store(true);
    if (snapshotter.joinable()) snapshotter.join();
  }
  std::sort(latency.begin(), latency.end());
  std::sort(overhead.begin(), overhead.end());
  auto at = [&](double q) {
    return latency[static_cast<size_t>(q * (latency.size() - 1))] /
           ticks_per_ns;
  };
  state.counters["p50_ns"] = at(0.50);
  state.counters["p99_ns"] = at(0.99);
  state.counters["p999_ns"] = at(0.999);
  state.counters["max_ns"] = latency.back() / ticks_per_ns;
  state.counters["clock_overhead_ns"] =
      overhead[overhead.size() / 2] / ticks_per_ns;
  state.counters["snapshots"] = static_cast<double>(snapshots);
  state.counters["journal_overflows"] = static_cast<double>(
      realm_shadow::TakeSnapshot(m).counters.journal_overflows -
      overflows_before);
  state.SetItemsProcessed(state.iterations() * kEvents);
}
BENCHMARK(BM_WriterLatency)
    ->ArgName("snapshots")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->UseManualTime();

}  // namespace
