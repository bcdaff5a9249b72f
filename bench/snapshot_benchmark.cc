// bench/snapshot_benchmark.cc - the consumer side: applying the journal,
// taking a snapshot, writing a dump, and the analysis a report runs, at
// 1k to 1M live allocations.
//
// The floor for a snapshot is a memcpy of the same bytes (32 B per live
// allocation): BM_Memcpy copies that many bytes between two warm buffers.
// BM_Snapshot times TakeSnapshot on a memory whose journal is already
// drained, so the figure is the copy (plus the Snapshot's own allocation);
// BM_Drain times applying a backlog of 8192 events at the same sizes, with
// the history off (REALM_SHADOW_HISTORY=0); BM_DrainWithHistory the same on
// a memory that keeps the default history (65536 events), so that the two
// lines give what history adds to the consumer per event, and its bytes
// per event kept.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/live/dump.h"
#include "bench/skip_on_error.h"

namespace {

using realm_shadow::Allocation;
using realm_shadow::Snapshot;

constexpr uint64_t kSlotBytes = 256;
constexpr uint64_t kMemoryIdBase = 0x1e00000000300000ull;

// A memory holding `live` allocations of 256 B side by side, drained.
struct FilledMemory {
  realm_shadow_memory* memory = nullptr;
  uint64_t id = 0;
  uint32_t live = 0;
  uint64_t generation = 0;  // churn passes made by BM_Drain
  uint32_t next_slot = 0;
};

// history: whether the memory keeps the default history (the figures of
// BM_Snapshot and BM_Dump* use the memory without, as before histories).
FilledMemory& Filled(uint32_t live, bool history = false) {
  static std::map<std::pair<uint32_t, bool>, std::unique_ptr<FilledMemory>> memories;
  auto& f = memories[{live, history}];
  if (!f) {
    f.reset(new FilledMemory);
    f->id = kMemoryIdBase + live + (history ? 0x10000000ull : 0);
    f->live = live;
    f->memory = realm_shadow::RegisterMemory(
        f->id, realm_shadow::MemoryKind::kFramebuffer,
        uint64_t{live} * kSlotBytes * 2, "bench", REALM_SHADOW_SERIALIZED, 0,
        history ? realm_shadow::kHistoryFromOptions : 0);
    for (uint32_t slot = 0; slot < live; ++slot)
      realm_shadow_allocated(f->memory, slot + 1, slot * kSlotBytes,
                             kSlotBytes, 256);
    realm_shadow::DrainAll();
  }
  return *f;
}

void Sizes(benchmark::internal::Benchmark* b) {
  for (int live : {1000, 10000, 100000, 1000000}) b->Arg(live);
}

// The loop both snapshot benchmarks time: take() returns the snapshot it
// took (the reused one, or a fresh one); the rate counts the bytes of the
// allocations copied.
template <typename Take>
void TimeSnapshots(benchmark::State& state, const FilledMemory& f, Take take) {
  for (auto _ : state) {
    const Snapshot& s = take();
    benchmark::DoNotOptimize(s.allocations.data());
    if (s.allocations.size() != f.live) state.SkipWithError("wrong size");
  }
  state.SetBytesProcessed(state.iterations() * f.live * sizeof(Allocation));
  state.counters["live"] = f.live;
}

void BM_Snapshot(benchmark::State& state) {
  FilledMemory& f = Filled(static_cast<uint32_t>(state.range(0)));
  realm_shadow::DrainAll();
  // Untimed first snapshot: the first copy of a size takes fresh pages from
  // the kernel (page faults cost tens of us each on this kind of VM); the
  // figure is the steady state of a process that snapshots repeatedly.
  // The Snapshot is reused (TakeSnapshotInto), as a periodic dumper does;
  // BM_SnapshotFresh below allocates a new one each time.
  Snapshot s;
  realm_shadow::TakeSnapshotInto(f.memory, &s);
  TimeSnapshots(state, f, [&]() -> const Snapshot& {
    realm_shadow::TakeSnapshotInto(f.memory, &s);
    return s;
  });
}
BENCHMARK(BM_Snapshot)->Apply(Sizes)->UseRealTime();

void BM_SnapshotFresh(benchmark::State& state) {
  FilledMemory& f = Filled(static_cast<uint32_t>(state.range(0)));
  realm_shadow::DrainAll();
  benchmark::DoNotOptimize(realm_shadow::TakeSnapshot(f.memory).sequence);
  TimeSnapshots(state, f, [&] { return realm_shadow::TakeSnapshot(f.memory); });
}
BENCHMARK(BM_SnapshotFresh)->Apply(Sizes)->UseRealTime();

void BM_Memcpy(benchmark::State& state) {
  const size_t live = static_cast<size_t>(state.range(0));
  std::vector<Allocation> from(live), to(live);
  for (size_t i = 0; i < live; ++i) from[i].offset = i * kSlotBytes;
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), live * sizeof(Allocation));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * live * sizeof(Allocation));
  state.counters["live"] = static_cast<double>(live);
}
BENCHMARK(BM_Memcpy)->Apply(Sizes)->UseRealTime();

// Applying a backlog: 8192 events (released + allocated pairs) appended
// untimed, then one timed DrainAll.  The drainer thread is stopped for the
// run so that it cannot take the backlog first.
void Drain(benchmark::State& state, bool history) {
  FilledMemory& f = Filled(static_cast<uint32_t>(state.range(0)), history);
  constexpr int kPairs = 4096;
  realm_shadow::StopDrainer();
  realm_shadow::DrainAll();
  for (auto _ : state) {
    state.PauseTiming();
    for (int i = 0; i < kPairs; ++i) {
      const uint32_t slot = f.next_slot;
      const uint64_t old_instance = slot + 1 + f.generation * f.live;
      if (++f.next_slot == f.live) {
        f.next_slot = 0;
        ++f.generation;
      }
      const uint64_t new_instance = old_instance + f.live;
      realm_shadow_released(f.memory, old_instance);
      realm_shadow_allocated(f.memory, new_instance, slot * kSlotBytes,
                             kSlotBytes, 256);
    }
    state.ResumeTiming();
    realm_shadow::DrainAll();
  }
  realm_shadow::StartDrainer(1000);
  state.SetItemsProcessed(state.iterations() * kPairs * 2);
  if (history) {
    realm_shadow::MemoryHistory h;
    realm_shadow::TakeHistory(f.memory, &h);
    state.counters["history_events"] = static_cast<double>(h.events.size());
    state.counters["history_bytes"] =
        static_cast<double>(realm_shadow::HistoryBytes(f.memory));
    state.counters["history_bytes_per_event"] =
        static_cast<double>(realm_shadow::HistoryBytes(f.memory)) /
        static_cast<double>(std::max<size_t>(1, h.events.size()));
  }
}
void BM_Drain(benchmark::State& state) { Drain(state, false); }
void BM_DrainWithHistory(benchmark::State& state) { Drain(state, true); }
BENCHMARK(BM_Drain)->Arg(1000)->Arg(100000)->Arg(1000000)->UseRealTime();
BENCHMARK(BM_DrainWithHistory)->Arg(1000)->Arg(100000)->Arg(1000000)->UseRealTime();

std::string BenchDir() {
  const char* dir = std::getenv("REALM_SHADOW_BENCH_DIR");
  return dir != nullptr && *dir ? dir : "/tmp";
}

// Snapshot + write (atomic: temporary file, flush, rename) of one memory.
void BM_DumpMemoryState(benchmark::State& state) {
  FilledMemory& f = Filled(static_cast<uint32_t>(state.range(0)));
  realm_shadow::DrainAll();
  const std::string path =
      BenchDir() + "/realm_shadow_bench_" + std::to_string(f.live) + ".rsd";
  // Untimed first dump (fresh pages, see BM_Snapshot).
  if (realm_shadow_bench::SkipOnError(
          state, realm_shadow::DumpMemoryState(f.id, path)))
    return;
  for (auto _ : state) {
    if (realm_shadow_bench::SkipOnError(
            state, realm_shadow::DumpMemoryState(f.id, path)))
      break;
  }
  std::remove(path.c_str());
  state.SetBytesProcessed(state.iterations() * f.live * sizeof(Allocation));
  state.counters["live"] = f.live;
}
BENCHMARK(BM_DumpMemoryState)->Apply(Sizes)->UseRealTime();

// The format alone, in memory: serializing a dump of one memory.
void BM_SerializeDump(benchmark::State& state) {
  FilledMemory& f = Filled(static_cast<uint32_t>(state.range(0)));
  realm_shadow::DumpFile dump;
  dump.source = "bench";
  dump.memories.push_back(realm_shadow::TakeSnapshot(f.memory));
  for (auto _ : state) {
    std::string bytes = realm_shadow::SerializeDump(dump);
    benchmark::DoNotOptimize(bytes.data());
  }
  state.SetBytesProcessed(state.iterations() * f.live * sizeof(Allocation));
}
BENCHMARK(BM_SerializeDump)->Arg(100000)->UseRealTime();

// ---- analysis on a fragmented memory of 1M live allocations ---------------

// Sizes of 64 B to 4 KiB, a gap of 64 B to 1 KiB before one allocation in
// four (about 250k holes, the largest 1 KiB), one allocation in 1000 pinned.
const Snapshot& Fragmented() {
  static const Snapshot* snapshot = [] {
    auto* s = new Snapshot;
    std::mt19937_64 rng(7);
    uint64_t cursor = 0;
    s->allocations.reserve(1000000);
    for (uint32_t i = 0; i < 1000000; ++i) {
      if (rng() % 4 == 0) cursor += 64 * (1 + rng() % 16);
      Allocation a;
      a.offset = cursor;
      a.size = 64 * (1 + rng() % 64);
      a.instance = i + 1;
      a.alignment_log2 = 6;
      if (i % 1000 == 999) a.flags = realm_shadow::kPinned;
      cursor += a.size;
      s->allocations.push_back(a);
    }
    s->capacity = cursor;
    s->memory_id = kMemoryIdBase + 7;
    return s;
  }();
  return *snapshot;
}

void BM_FindHoles(benchmark::State& state) {
  const Snapshot& s = Fragmented();
  size_t holes = 0;
  for (auto _ : state) {
    std::vector<realm_shadow::Hole> h = realm_shadow::FindHoles(s);
    holes = h.size();
    benchmark::DoNotOptimize(h.data());
  }
  state.counters["holes"] = static_cast<double>(holes);
  state.counters["live"] = static_cast<double>(s.allocations.size());
}
BENCHMARK(BM_FindHoles)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TopHoles(benchmark::State& state) {
  const std::vector<realm_shadow::Hole> holes =
      realm_shadow::FindHoles(Fragmented());
  for (auto _ : state) {
    auto top = realm_shadow::TopHoles(holes, 16);
    benchmark::DoNotOptimize(top.data());
  }
  state.counters["holes"] = static_cast<double>(holes.size());
}
BENCHMARK(BM_TopHoles)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Summarize(benchmark::State& state) {
  const Snapshot& s = Fragmented();
  for (auto _ : state) {
    realm_shadow::FreeSummary summary = realm_shadow::Summarize(s);
    benchmark::DoNotOptimize(summary);
  }
}
BENCHMARK(BM_Summarize)->Unit(benchmark::kMillisecond)->UseRealTime();

// A request of 64 KiB, 4 KiB aligned, sixty-four times the largest hole: it
// does not fit, so the query slides a window over all 1M allocations.
void BM_FindBlockers(benchmark::State& state) {
  const Snapshot& s = Fragmented();
  const uint64_t request = 64 * 1024;
  const auto objective = state.range(0) == 0
                             ? realm_shadow::BlockerObjective::kFewestBytes
                             : realm_shadow::BlockerObjective::kFewestAllocations;
  size_t blockers = 0;
  bool found = false;
  for (auto _ : state) {
    realm_shadow::BlockerWindow w =
        realm_shadow::FindBlockers(s, request, 4096, objective);
    blockers = w.blockers.size();
    found = w.found;
  }
  state.counters["request_bytes"] = static_cast<double>(request);
  state.counters["blockers"] = static_cast<double>(blockers);
  state.counters["found"] = found ? 1 : 0;
}
BENCHMARK(BM_FindBlockers)
    ->ArgName("fewest_allocations")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
