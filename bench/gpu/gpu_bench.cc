// gpu_bench: what tracking costs inside real CUDA-backed allocation.
//
//  BM_FramebufferChurn/<mode>    one sub-allocation and one release in a
//      256 MiB cudaMalloc block (first fit over ~256 live instances, under
//      the allocator mutex, as Realm does): 2 hook events per iteration.
//  BM_DynamicFramebufferChurn/<mode>    one cudaMalloc and one cudaFree of
//      64 KiB-1 MiB per iteration: 2 hook events next to two driver calls.
//  BM_DynamicFramebuffer8Threads/<mode>/threads:8    the same from eight
//      threads at once on one memory (REALM_SHADOW_CONCURRENT journal).
//  BM_HookPair    the two hooks alone, no allocator: the floor.
//
// <mode>: 0 untracked (NULL shadow handle: each hook is one branch),
//         1 tracked, 2 tracked but switched off (realm_shadow_set_enabled(0)).
// The drainer runs, as in a long Realm program, so writers never find a
// journal full.  The cost of tracking per event is
// (time(tracked) - time(untracked)) / 2; scripts/gpu-check prints it.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpu/cuda_device.h"
#include "gpu/dynamic_framebuffer_memory.h"
#include "gpu/framebuffer_memory.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/live/snapshots.h"

namespace realm_shadow {
namespace gpu {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = kKiB * kKiB;

bool NoGpu(benchmark::State& state) {
  static std::string why;
  static const int count = CudaDeviceCount(&why);
  if (count > 0) return false;
  state.SkipWithError(("no usable CUDA device: " + why).c_str());
  return true;
}

// Sizes drawn once so every mode replays the same requests.
std::vector<uint64_t> Sizes(size_t count, uint64_t low, uint64_t high,
                            uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> sizes(count);
  for (uint64_t& s : sizes) s = low + rng() % (high - low);
  return sizes;
}

// Sets mode 2's switch for the life of one benchmark run.
struct TrackingSwitch {
  explicit TrackingSwitch(int mode) : off(mode == 2) {
    if (off) realm_shadow_set_enabled(0);
  }
  ~TrackingSwitch() {
    if (off) realm_shadow_set_enabled(1);
  }
  bool off;
};

// The churn both framebuffers are timed on: `window` instances live, first
// in first out.  After the window is filled (untimed), each iteration
// releases the oldest and allocates the next, 256-byte aligned, its size
// cycling through `sizes`: two events an iteration.  `allocate(instance,
// size)` gives why a timed allocation ends the run, or null to go on.
template <typename Memory, typename Allocate>
void ChurnWindow(benchmark::State& state, Memory& memory, size_t window,
                 const std::vector<uint64_t>& sizes, Allocate allocate) {
  uint64_t next = 1;
  for (; next <= window; ++next) allocate(next, sizes[next % sizes.size()]);
  for (auto _ : state) {
    memory.Release(next - window);
    if (const char* why = allocate(next, sizes[next % sizes.size()])) {
      state.SkipWithError(why);
      break;
    }
    ++next;
  }
  state.counters["events_per_iteration"] = 2;
  state.SetItemsProcessed(state.iterations());
}

void BM_FramebufferChurn(benchmark::State& state) {
  if (NoGpu(state)) return;
  const int mode = static_cast<int>(state.range(0));
  std::string error;
  auto fb = FramebufferMemory::Create(0x1e000000000000b0 + mode, 256 * kMiB,
                                      "bench-fb", mode != 0, &error);
  if (!fb) {
    state.SkipWithError(error.c_str());
    return;
  }
  TrackingSwitch tracking(mode);
  // A failed placement is part of the churn (the memory is full), not the
  // end of it.
  uint64_t offset = 0;
  ChurnWindow(state, *fb, 256, Sizes(4096, 4 * kKiB, 256 * kKiB, 5),
              [&](uint64_t instance, uint64_t size) -> const char* {
                const bool placed = fb->Allocate(instance, size, 256, &offset);
                benchmark::DoNotOptimize(placed);
                return nullptr;
              });
}
BENCHMARK(BM_FramebufferChurn)->ArgName("mode")->Arg(0)->Arg(1)->Arg(2);

void BM_DynamicFramebufferChurn(benchmark::State& state) {
  if (NoGpu(state)) return;
  const int mode = static_cast<int>(state.range(0));
  auto dynfb = DynamicFramebufferMemory::Create(
      0x1f000000000000b0 + mode, 8ull << 30, "bench-dynfb", mode != 0);
  TrackingSwitch tracking(mode);
  uint64_t address = 0;
  ChurnWindow(state, *dynfb, 64, Sizes(4096, 64 * kKiB, kMiB, 9),
              [&](uint64_t instance, uint64_t size) -> const char* {
                const auto outcome =
                    dynfb->Allocate(instance, size, 256, &address);
                return outcome == DynamicFramebufferMemory::Outcome::kAllocated
                           ? nullptr
                           : DynamicFramebufferMemory::OutcomeName(outcome);
              });
}
BENCHMARK(BM_DynamicFramebufferChurn)->ArgName("mode")->Arg(0)->Arg(1);

std::unique_ptr<DynamicFramebufferMemory> shared_dynfb;

void BM_DynamicFramebuffer8Threads(benchmark::State& state) {
  if (NoGpu(state)) return;
  const int mode = static_cast<int>(state.range(0));
  // Thread 0 sets up before the loop and tears down after it; the library
  // starts and ends every thread's loop together.
  if (state.thread_index() == 0) {
    shared_dynfb = DynamicFramebufferMemory::Create(
        0x1f000000000000c0 + mode, 16ull << 30, "bench-dynfb-8", mode != 0);
  }
  const std::vector<uint64_t> sizes =
      Sizes(1024, 64 * kKiB, kMiB, 100 + state.thread_index());
  const uint64_t thread_bits = uint64_t(state.thread_index() + 1) << 40;
  constexpr uint64_t kWindow = 16;
  uint64_t next = 1, address = 0, failures = 0;
  for (auto _ : state) {
    if (next > kWindow) shared_dynfb->Release(thread_bits | (next - kWindow));
    failures += shared_dynfb->Allocate(thread_bits | next,
                                       sizes[next % sizes.size()], 256,
                                       &address) !=
                DynamicFramebufferMemory::Outcome::kAllocated;
    ++next;
  }
  state.counters["failures"] =
      benchmark::Counter(static_cast<double>(failures),
                         benchmark::Counter::kAvgThreads);
  state.counters["events_per_iteration"] = 2;
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    // The loops have ended (the library waits for every thread), so the
    // destructor's releases race with no one.
    shared_dynfb.reset();
  }
}
BENCHMARK(BM_DynamicFramebuffer8Threads)
    ->ArgName("mode")
    ->Arg(0)
    ->Arg(1)
    ->Threads(8)
    ->UseRealTime();

void BM_HookPair(benchmark::State& state) {
  realm_shadow_memory* memory = realm_shadow_register_memory(
      0x1e000000000000d0, REALM_SHADOW_MEM_FRAMEBUFFER, 1ull << 40,
      "bench-hooks", REALM_SHADOW_SERIALIZED);
  uint64_t instance = 1;
  for (auto _ : state) {
    realm_shadow_allocated(memory, instance, instance * 256, 256, 256);
    realm_shadow_released(memory, instance);
    ++instance;
  }
  state.counters["events_per_iteration"] = 2;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HookPair);

}  // namespace
}  // namespace gpu
}  // namespace realm_shadow

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::string why;
  if (realm_shadow::gpu::CudaDeviceCount(&why) > 0) {
    benchmark::AddCustomContext("cuda_device",
                                realm_shadow::gpu::CudaDeviceDescription());
  } else {
    benchmark::AddCustomContext("cuda_device", "none: " + why);
  }
  realm_shadow::StartDrainer(1000);
  benchmark::RunSpecifiedBenchmarks();
  realm_shadow::StopDrainer();
  benchmark::Shutdown();
  return 0;
}
