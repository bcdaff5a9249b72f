// bench/ingest_benchmark.cc - throughput of the Realm-log reader
// (realm_shadow/ingest/realm_log.h), in lines per second.
//
// BM_IngestRealmLog: one synthetic -level inst=1,machine=1 log fed from
// memory (the reader alone): the machine dump, then per instance "creating
// new local instance", "instance layout", "allocation completed", "instance
// created", and, 1024 instances later, "instance destroyed" and
// "deallocation completed" for the instance that held the slot.  About 300k
// lines (35 MB).
//
// BM_IngestRankLogs/threads:T: end to end, as `realm-shadow
// ingest-realm-log run_*.log -o run.rsd` runs: 4 rank logs on disk with the
// line mix of the Legion Spy fixtures (per instance its 4 Realm lines, the
// Physical Instance line and its 5 field, creator, creation-region, 14
// constraint and 5 mapping-decision lines, and 40 index-space point and
// rect lines, which are half of a real -lg:spy log), 250k lines per rank,
// 1M in all (85 MB); read, replayed, assembled and written as a dump.
// threads:0 reads the logs in parallel (one thread per core), threads:1 one
// after the other.  The files are written once, under $TMPDIR.
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/ingest/realm_log.h"
#include "bench/skip_on_error.h"

namespace {

using realm_shadow_bench::SkipOnError;

constexpr int kInstances = 50000;
constexpr int kWindow = 1024;
constexpr uint64_t kBytes = 49152;

struct SyntheticLog {
  std::string text;
  uint64_t lines = 0;
};

// Appends printf-formatted lines, counting them.
class LogWriter {
 public:
  explicit LogWriter(SyntheticLog* log) : log_(log) {}
  template <typename... Args>
  void Line(const char* format, Args... args) {
    const int n = std::snprintf(buffer_, sizeof buffer_, format, args...);
    log_->text.append(buffer_, static_cast<size_t>(n));
    ++log_->lines;
  }

 private:
  SyntheticLog* log_;
  char buffer_[512];
};

const SyntheticLog& Log() {
  static const SyntheticLog* log = [] {
    auto* l = new SyntheticLog;
    LogWriter w(l);
    w.Line("[0 - 7fa76ae40c00]    0.000636 {1}{machine}: Node 0:\n");
    w.Line("Memory:1e00000000000000, SYSTEM_MEM, capacity: %" PRIu64 "\n",
           kBytes * kWindow * 2);
    double t = 0.1;
    for (int i = 0; i < kInstances; ++i) {
      const uint64_t inst = 0x4000000000000000ull + static_cast<uint64_t>(i);
      const uint64_t offset = (i % kWindow) * kBytes;
      if (i >= kWindow) {
        const uint64_t old = inst - kWindow;
        w.Line("[0 - 7fa76ae3cc00] %11.6f {2}{inst}: instance destroyed: "
               "inst=%" PRIx64 " wait_on=0\n", t += 1e-6, old);
        w.Line("[0 - 7fa76ae3cc00] %11.6f {1}{inst}: deallocation completed: "
               "inst=%" PRIx64 "\n", t += 1e-6, old);
      }
      w.Line("[0 - 7fa76ae3cc00] %11.6f {2}{inst}: creating new local "
             "instance: %" PRIx64 "\n", t += 1e-6, inst);
      w.Line("[0 - 7fa76ae3cc00] %11.6f {1}{inst}: instance layout: inst=%" PRIx64
             " layout=Layout(bytes=%" PRIu64 ", align=32, fields={0=1+16384, "
             "1=1+24576, 2=1+32768}, lists=[[<0>..<2047>->affine(<8>+0)], "
             "[<0>..<2047>->affine(<4>+0)]])\n", t += 1e-6, inst, kBytes);
      w.Line("[0 - 7fa76ae3cc00] %11.6f {1}{inst}: allocation completed: "
             "inst=%" PRIx64 " offset=%" PRIu64 "\n", t += 1e-6, inst, offset);
      w.Line("[0 - 7fa76ae3cc00] %11.6f {2}{inst}: instance created: inst=%" PRIx64
             " bytes=%" PRIu64 " ready=0\n", t += 1e-6, inst, kBytes);
    }
    return l;
  }();
  return *log;
}

void BM_IngestRealmLog(benchmark::State& state) {
  const SyntheticLog& log = Log();
  uint64_t live = 0, unknown = 0;
  for (auto _ : state) {
    realm_shadow::RealmLogReader reader;
    reader.FeedText(log.text);
    realm_shadow::DumpFile dump = reader.Dump();
    live = dump.memories.empty() ? 0 : dump.memories[0].allocations.size();
    unknown = reader.counts().unknown_lines;
  }
  state.SetItemsProcessed(state.iterations() * log.lines);
  state.SetBytesProcessed(state.iterations() * log.text.size());
  state.counters["lines"] = static_cast<double>(log.lines);
  state.counters["live"] = static_cast<double>(live);
  state.counters["unknown_lines"] = static_cast<double>(unknown);
  if (live != kWindow) state.SkipWithError("the reader lost allocations");
}
BENCHMARK(BM_IngestRealmLog)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- several rank logs with Legion Spy lines, end to end --------------------

constexpr int kRanks = 4;
constexpr uint64_t kLinesPerRank = 250000;
constexpr int kRankWindow = 512;  // live instances per rank

struct RankLogs {
  std::vector<std::string> paths;
  uint64_t lines = 0;
  uint64_t bytes = 0;
  uint64_t spy_instances = 0;
};

SyntheticLog RankLog(uint32_t rank, uint64_t* spy_instances) {
  SyntheticLog l;
  LogWriter w(&l);
  const uint64_t node = rank;
  const uint64_t memory = (uint64_t{0x1e} << 56) | (node << 40);
  double t = 0.01;
  if (rank == 0) {
    w.Line("[0 - 7fa76ae40c00] %11.6f {1}{machine}: Node 0:\n", t);
    for (uint64_t n = 0; n < kRanks; ++n)
      w.Line("Memory:%" PRIx64 ", SYSTEM_MEM, capacity: %" PRIu64 "\n",
             (uint64_t{0x1e} << 56) | (n << 40), kBytes * kRankWindow * 2);
  }
  const char* p = "[%u - 7f21e044ec40] %11.6f {3}{legion_spy}: ";
  auto spy = [&](const char* rest, auto... args) {
    std::string format = p;
    format += rest;
    w.Line(format.c_str(), rank, t += 1e-6, args...);
  };
  spy("Memory %" PRIx64 " %" PRIu64 " 2\n", memory, kBytes * kRankWindow * 2);
  for (int task = 0; task < 8; ++task)
    spy("Task ID Name %d task_%d\n", task, task);
  for (int f = 0; f < 5; ++f) spy("Field Name 2 %d field_%d\n", f, f);
  spy("Field Space Name 2 node_field_space\n");
  spy("Logical Region Name 2 2 2 all_nodes\n");
  spy("Index Task 6 3 12 task_3\n");
  spy("Index Slice 12 24\n");
  uint64_t uid = 1000 + rank;
  for (uint64_t i = 0; l.lines < kLinesPerRank; ++i) {
    const uint64_t index = i % (1 << 22);
    const uint64_t inst = (uint64_t{1} << 62) | (node << 46) | (node << 30) |
                          index;
    const uint64_t event = (uint64_t{1} << 63) | (node << 47) | (i + 1);
    const uint64_t offset = (i % kRankWindow) * kBytes;
    if (i >= kRankWindow) {
      const uint64_t old = inst - kRankWindow;
      w.Line("[%u - 7fa76ae3cc00] %11.6f {2}{inst}: instance destroyed: "
             "inst=%" PRIx64 " wait_on=0\n", rank, t += 1e-6, old);
      w.Line("[%u - 7fa76ae3cc00] %11.6f {1}{inst}: deallocation completed: "
             "inst=%" PRIx64 "\n", rank, t += 1e-6, old);
    }
    w.Line("[%u - 7fa76ae3cc00] %11.6f {2}{inst}: creating new local "
           "instance: %" PRIx64 "\n", rank, t += 1e-6, inst);
    w.Line("[%u - 7fa76ae3cc00] %11.6f {1}{inst}: instance layout: inst=%" PRIx64
           " layout=Layout(bytes=%" PRIu64 ", align=64, fields={0=1+16384, "
           "1=1+24576, 2=1+32768, 3=1+40960, 4=0+0}, lists=[[<0>..<2047>->"
           "affine(<8>+0)], [<0>..<2047>->affine(<4>+0)]])\n",
           rank, t += 1e-6, inst, kBytes);
    w.Line("[%u - 7fa76ae3cc00] %11.6f {1}{inst}: allocation completed: "
           "inst=%" PRIx64 " offset=%" PRIu64 "\n", rank, t += 1e-6, inst, offset);
    w.Line("[%u - 7fa76ae3cc00] %11.6f {2}{inst}: instance created: inst=%" PRIx64
           " bytes=%" PRIu64 " ready=0\n", rank, t += 1e-6, inst, kBytes);
    ++uid;
    spy("Slice Point 24 %" PRIu64 " 1 %" PRIu64 " 0 0\n", uid, i);
    spy("Physical Instance %" PRIx64 " %" PRIx64 " %" PRIx64 " 0 6 2 2\n",
        event, inst, memory);
    for (int f = 0; f < 5; ++f)
      spy("Physical Instance Field %" PRIx64 " %d\n", event, f);
    spy("Physical Instance Creator %" PRIx64 " %" PRIu64 " 1d%02x000000000001\n",
        event, uid, rank);
    spy("Physical Instance Creation Region %" PRIx64 " 2 2 2\n", event);
    spy("Instance Specialized Constraint %" PRIx64 " 1 0\n", event);
    spy("Instance Memory Constraint %" PRIx64 " 2\n", event);
    spy("Instance Field Constraint %" PRIx64 " 1 1 5\n", event);
    for (int f = 0; f < 5; ++f)
      spy("Instance Field Constraint Field %" PRIx64 " %d\n", event, f);
    for (int f = 0; f < 5; ++f)
      spy("Instance Alignment Constraint %" PRIx64 " %d 4 64\n", event, f);
    spy("Instance Ordering Constraint %" PRIx64 " 1 2\n", event);
    for (int f = 0; f < 5; ++f)
      spy("Mapping Decision %" PRIu64 " 0 %d %" PRIx64 "\n", uid, f, event);
    for (int k = 0; k < 20; ++k) {
      spy("Index Space Point %" PRIx64 " 1 %d\n", index + 100, k);
      spy("Index Space Rect %" PRIx64 " 1 %d %d\n", index + 100, k * 64,
          k * 64 + 63);
    }
    ++*spy_instances;
  }
  return l;
}

const RankLogs& Ranks() {
  static const RankLogs* ranks = [] {
    auto* r = new RankLogs;
    const char* tmp = std::getenv("TMPDIR");
    const std::string dir = tmp && *tmp ? tmp : "/tmp";
    for (uint32_t rank = 0; rank < kRanks; ++rank) {
      const SyntheticLog log = RankLog(rank, &r->spy_instances);
      const std::string path = dir + "/realm_shadow_bench_rank_" +
                               std::to_string(getpid()) + "_" +
                               std::to_string(rank) + ".log";
      FILE* f = std::fopen(path.c_str(), "wb");
      if (f == nullptr ||
          std::fwrite(log.text.data(), 1, log.text.size(), f) !=
              log.text.size() ||
          std::fclose(f) != 0)
        std::abort();
      r->paths.push_back(path);
      r->lines += log.lines;
      r->bytes += log.text.size();
    }
    std::atexit([] {
      for (const std::string& p : Ranks().paths) std::remove(p.c_str());
    });
    return r;
  }();
  return *ranks;
}

void BM_IngestRankLogs(benchmark::State& state) {
  const RankLogs& ranks = Ranks();
  realm_shadow::IngestOptions options;
  options.threads = static_cast<unsigned>(state.range(0));
  const std::string out = ranks.paths[0] + ".rsd";
  uint64_t live = 0, attached = 0, nodes = 0;
  for (auto _ : state) {
    realm_shadow::IngestSummary summary;
    const absl::StatusOr<realm_shadow::DumpFile> dump =
        realm_shadow::IngestRealmLogs(ranks.paths, options, &summary);
    if (SkipOnError(state, dump.status()) ||
        SkipOnError(state, realm_shadow::WriteDump(out, *dump)))
      return;
    live = summary.live;
    attached = summary.spy_attached;
    nodes = dump->memories.size();
  }
  std::remove(out.c_str());
  state.SetItemsProcessed(state.iterations() * ranks.lines);
  state.SetBytesProcessed(state.iterations() * ranks.bytes);
  state.counters["lines"] = static_cast<double>(ranks.lines);
  state.counters["ranks"] = kRanks;
  state.counters["live"] = static_cast<double>(live);
  state.counters["spy_attached"] = static_cast<double>(attached);
  if (nodes != kRanks || live != uint64_t{kRanks} * kRankWindow ||
      attached != ranks.spy_instances)
    state.SkipWithError("the reader lost allocations or identities");
}
BENCHMARK(BM_IngestRankLogs)
    ->ArgName("threads")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
