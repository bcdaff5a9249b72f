// bench/history_benchmark.cc - what the history commands cost at scale:
// `realm-shadow at` on a history of 10 million events, and `realm-shadow
// trace` of a history of a million allocation lives.  (What keeping the
// history adds to the consumer is BM_DrainWithHistory beside BM_Drain in
// snapshot_benchmark.cc.)
//
// Both histories are recorded once, through the hooks and the consumer, as
// a tracked program would (REALM_SHADOW_HISTORY large enough to keep every
// event), and written as dumps in REALM_SHADOW_BENCH_DIR (default /tmp):
//  - BM_AtOf10MEvents/<live>: `live` allocations of 256 B, then release +
//    allocate pairs on random slots up to 10^7 events; each iteration is
//    the whole command (ReadDumpAtMoment): map the dump, read its header,
//    memories and the history's outline (marks, checkpoint extents), then
//    the last checkpoint before a random event and the events up to it,
//    replay them and write the state as a dump.  The checkpoints are
//    L = max(65536, live) events apart, so a replay is at most L events.
//  - BM_TraceOf1MLives: 10^6 lives (4096 live at a time, each released
//    then reallocated), read and written as the trace file.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>

#include <benchmark/benchmark.h>

#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/render/timeline.h"
#include "realm_shadow/render/trace.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/live/dump.h"
#include "bench/skip_on_error.h"

namespace {

using realm_shadow_bench::SkipOnError;

std::string BenchDir() {
  const char* dir = std::getenv("REALM_SHADOW_BENCH_DIR");
  return dir != nullptr && *dir ? dir : "/tmp";
}

// Records `events` events on a fresh memory (release + allocate pairs on
// random slots among `live`, after the fill), drained every 4096 events
// like the drainer would, and writes its dump.  Returns the path.  Once per
// name in the process: a repetition of the benchmark reads the same dump
// (recording again on the same memory id would add to its history).
std::string RecordHistory(uint64_t memory_id, uint64_t events, uint32_t live,
                          const std::string& name) {
  static std::map<std::string, std::string> recorded;
  if (auto it = recorded.find(name); it != recorded.end()) return it->second;
  constexpr uint64_t kSlot = 256;
  realm_shadow_memory* m = realm_shadow::RegisterMemory(
      memory_id, realm_shadow::MemoryKind::kFramebuffer, uint64_t{live} * kSlot * 2,
      name, REALM_SHADOW_SERIALIZED, 0, events + 16);
  std::vector<uint64_t> slots(live);
  uint64_t next = 0x4000000000000000ull, done = 0;
  for (uint32_t s = 0; s < live && done < events; ++s, ++done) {
    slots[s] = next++;
    realm_shadow_allocated(m, slots[s], s * kSlot, kSlot, 256);
    if (done % 4096 == 0) realm_shadow::DrainAll();
  }
  std::mt19937_64 rng(11);
  while (done + 2 <= events) {
    const uint32_t s = static_cast<uint32_t>(rng() % live);
    realm_shadow_released(m, slots[s]);
    slots[s] = next++;
    realm_shadow_allocated(m, slots[s], s * kSlot, kSlot, 256);
    done += 2;
    if (done % 4096 < 2) realm_shadow::DrainAll();
  }
  const std::string path = BenchDir() + "/realm_shadow_bench_" + name + ".rsd";
  if (const absl::Status dumped = realm_shadow::DumpMemoryState(memory_id, path);
      !dumped.ok())
    std::fprintf(stderr, "%s\n", std::string(dumped.message()).c_str());
  return recorded[name] = path;
}

void BM_AtOf10MEvents(benchmark::State& state) {
  constexpr uint64_t kEvents = 10000000;
  const uint32_t live = static_cast<uint32_t>(state.range(0));
  realm_shadow::StopDrainer();
  const std::string path =
      RecordHistory(0x1e00000000600000ull + live, kEvents, live,
                    "at10m_" + std::to_string(live));
  realm_shadow::StartDrainer(1000);
  const std::string out = path + ".at.rsd";
  std::mt19937_64 rng(3);
  uint64_t checkpoints = 0, file_bytes = 0;
  for (auto _ : state) {
    realm_shadow::MomentChoice moment;
    moment.event = rng() % (kEvents + 1);
    const absl::StatusOr<realm_shadow::DumpFile> at =
        realm_shadow::ReadDumpAtMoment(path, std::nullopt, moment);
    if (SkipOnError(state, at.status()) ||
        SkipOnError(state, realm_shadow::WriteDump(out, *at)))
      return;
  }
  {
    realm_shadow::DumpMoments in;
    if (in.Open(path, false).ok() && !in.histories().empty())
      checkpoints = in.histories()[0].checkpoints;
  }
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    std::fseek(f, 0, SEEK_END);
    file_bytes = static_cast<uint64_t>(std::ftell(f));
    std::fclose(f);
  }
  state.counters["events"] = kEvents;
  state.counters["live"] = live;
  state.counters["checkpoints"] = static_cast<double>(checkpoints);
  state.counters["dump_MB"] = static_cast<double>(file_bytes) / 1e6;
  std::remove(out.c_str());
}
BENCHMARK(BM_AtOf10MEvents)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)
    ->Iterations(5)->UseRealTime();

void BM_TraceOf1MLives(benchmark::State& state) {
  constexpr uint64_t kLives = 1000000;
  realm_shadow::StopDrainer();
  // 4096 lives filled, then (released, allocated) pairs: one life each.
  const std::string path = RecordHistory(0x1e00000000700000ull,
                                         4096 + 2 * (kLives - 4096), 4096,
                                         "trace1m");
  realm_shadow::StartDrainer(1000);
  absl::StatusOr<realm_shadow::DumpFile> read = realm_shadow::ReadDump(path);
  if (SkipOnError(state, read.status())) return;
  const std::vector<realm_shadow::DumpFile> dumps = {*std::move(read)};
  const std::string out = BenchDir() + "/realm_shadow_bench_trace1m.json";
  realm_shadow::TraceSummary summary;
  for (auto _ : state) {
    const absl::StatusOr<realm_shadow::TraceSummary> traced =
        realm_shadow::WriteTrace(dumps, {path}, out);
    if (SkipOnError(state, traced.status())) return;
    summary = *traced;
  }
  state.counters["lives"] = static_cast<double>(summary.lives);
  state.counters["counter_samples"] = static_cast<double>(summary.counter_samples);
  if (FILE* f = std::fopen(out.c_str(), "rb")) {
    std::fseek(f, 0, SEEK_END);
    state.counters["trace_MB"] = static_cast<double>(std::ftell(f)) / 1e6;
    std::fclose(f);
  }
  std::remove(out.c_str());
}
BENCHMARK(BM_TraceOf1MLives)->Unit(benchmark::kMillisecond)->Iterations(3)
    ->UseRealTime();

}  // namespace
