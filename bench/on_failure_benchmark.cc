// bench/on_failure_benchmark.cc - the stall dump on failure puts on the
// thread whose allocation failed (realm_shadow/live/on_failure.h says why it
// runs there).
//
// BM_DumpOnFailure times realm_shadow_allocation_failed on a memory of N
// live allocations with REALM_SHADOW_DUMP_DIR set: the hook's append, then,
// on the same thread, the snapshot, the failure report (holes, cause,
// blockers) and the dump's write with its fsync and rename, in
// REALM_SHADOW_BENCH_DIR (default /tmp).  BM_FailureReport times the report
// alone on the same picture, so the two give the analysis' share; the rest
// is the snapshot (BM_Snapshot) and the file (BM_DumpMemoryState).
//
// The memory: N allocations of 256 B, one every 512 B, so N holes of 256 B;
// the failing request is 1 KiB, which no hole holds: fragmentation, and a
// blocker window of two allocations to find.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include <benchmark/benchmark.h>

#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/live/on_failure.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/render/failure_report.h"

namespace {

constexpr uint64_t kMemoryIdBase = 0x1e00000000400000ull;
constexpr uint64_t kRequest = 1024;

realm_shadow_memory* Fragmented(uint32_t live) {
  static std::map<uint32_t, realm_shadow_memory*> memories;
  realm_shadow_memory*& m = memories[live];
  if (m == nullptr) {
    m = realm_shadow::RegisterMemory(kMemoryIdBase + live,
                                     realm_shadow::MemoryKind::kFramebuffer,
                                     uint64_t{live} * 512, "on failure",
                                     REALM_SHADOW_SERIALIZED);
    for (uint32_t i = 0; i < live; ++i)
      realm_shadow_allocated(m, i + 1, uint64_t{i} * 512, 256, 256);
    realm_shadow::DrainAll();
  }
  return m;
}

std::string DumpDir() {
  const char* dir = std::getenv("REALM_SHADOW_BENCH_DIR");
  return std::string(dir != nullptr && *dir ? dir : "/tmp") + "/realm_shadow_bench_on_failure";
}

void RemoveDumps(const std::string& dir) {
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ::unlink((dir + "/" + e->d_name).c_str());
    ::closedir(d);
  }
}

void BM_DumpOnFailure(benchmark::State& state) {
  const uint32_t live = static_cast<uint32_t>(state.range(0));
  realm_shadow_memory* m = Fragmented(live);
  const std::string dir = DumpDir();
  ::setenv("REALM_SHADOW_DUMP_DIR", dir.c_str(), 1);
  ::setenv("REALM_SHADOW_DUMP_LIMIT", "1000000", 1);
  if (!realm_shadow::InstallDumpOnFailure()) {
    state.SkipWithError("dump on failure did not install");
    return;
  }
  // The report goes to stderr on every failure: /dev/null while timing.
  std::fflush(stderr);
  const int saved_stderr = ::dup(2);
  const int null = ::open("/dev/null", O_WRONLY);
  ::dup2(null, 2);
  uint64_t instance = uint64_t{1} << 40;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    realm_shadow_allocation_failed(m, ++instance, kRequest, 256);
    const auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    RemoveDumps(dir);
  }
  std::fflush(stderr);
  ::dup2(saved_stderr, 2);
  ::close(saved_stderr);
  ::close(null);
  ::unsetenv("REALM_SHADOW_DUMP_DIR");
  realm_shadow::InstallDumpOnFailure();  // off again for the benchmarks after
  realm_shadow::SetFailureObserver(nullptr);
  ::rmdir(dir.c_str());
  state.counters["live"] = live;
}
BENCHMARK(BM_DumpOnFailure)->Arg(1000)->Arg(100000)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_FailureReport(benchmark::State& state) {
  const uint32_t live = static_cast<uint32_t>(state.range(0));
  realm_shadow_memory* m = Fragmented(live);
  realm_shadow_allocation_failed(m, uint64_t{1} << 41, kRequest, 256);
  const realm_shadow::Snapshot s = realm_shadow::TakeSnapshot(m);
  for (auto _ : state) {
    std::string report = realm_shadow::FormatFailureReport(s, uint64_t{1} << 41);
    benchmark::DoNotOptimize(report.data());
  }
  state.counters["live"] = live;
}
BENCHMARK(BM_FailureReport)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
