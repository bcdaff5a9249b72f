// bench/ingest_benchmark.cc - throughput of the Realm-log reader
// (realm_shadow/faces/realm_log.h) on a large synthetic log, in lines per
// second.
//
// The log has the shape of a real -level inst=1,machine=1 log (see
// shared fixtures): the machine dump, then per instance "creating new local
// instance", "instance layout", "allocation completed", "instance created",
// and, 1024 instances later, "instance destroyed" and "deallocation
// completed" for the instance that held the slot.  About 300k lines
// (45 MB), built once and fed with FeedText, as `realm-shadow
// ingest-realm-log` feeds a file.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

#include <benchmark/benchmark.h>

#include "realm_shadow/faces/realm_log.h"

namespace {

constexpr int kInstances = 50000;
constexpr int kWindow = 1024;
constexpr uint64_t kBytes = 49152;

struct SyntheticLog {
  std::string text;
  uint64_t lines = 0;
};

const SyntheticLog& Log() {
  static const SyntheticLog* log = [] {
    auto* l = new SyntheticLog;
    char line[512];
    auto add = [&](int n) {
      l->text.append(line, static_cast<size_t>(n));
      ++l->lines;
    };
    add(std::snprintf(line, sizeof line,
                      "[0 - 7fa76ae40c00]    0.000636 {1}{machine}: Node 0:\n"));
    add(std::snprintf(line, sizeof line,
                      "Memory:1e00000000000000, SYSTEM_MEM, capacity: %" PRIu64
                      "\n",
                      kBytes * kWindow * 2));
    double t = 0.1;
    for (int i = 0; i < kInstances; ++i) {
      const uint64_t inst = 0x4000000000000000ull + static_cast<uint64_t>(i);
      const uint64_t offset = (i % kWindow) * kBytes;
      if (i >= kWindow) {
        const uint64_t old = inst - kWindow;
        add(std::snprintf(line, sizeof line,
                          "[0 - 7fa76ae3cc00] %11.6f {2}{inst}: instance "
                          "destroyed: inst=%" PRIx64 " wait_on=0\n",
                          t += 1e-6, old));
        add(std::snprintf(line, sizeof line,
                          "[0 - 7fa76ae3cc00] %11.6f {1}{inst}: deallocation "
                          "completed: inst=%" PRIx64 "\n",
                          t += 1e-6, old));
      }
      add(std::snprintf(line, sizeof line,
                        "[0 - 7fa76ae3cc00] %11.6f {2}{inst}: creating new "
                        "local instance: %" PRIx64 "\n",
                        t += 1e-6, inst));
      add(std::snprintf(
          line, sizeof line,
          "[0 - 7fa76ae3cc00] %11.6f {1}{inst}: instance layout: inst=%" PRIx64
          " layout=Layout(bytes=%" PRIu64
          ", align=32, fields={0=1+16384, 1=1+24576, 2=1+32768}, "
          "lists=[[<0>..<2047>->affine(<8>+0)], [<0>..<2047>->affine(<4>+0)]])\n",
          t += 1e-6, inst, kBytes));
      add(std::snprintf(line, sizeof line,
                        "[0 - 7fa76ae3cc00] %11.6f {1}{inst}: allocation "
                        "completed: inst=%" PRIx64 " offset=%" PRIu64 "\n",
                        t += 1e-6, inst, offset));
      add(std::snprintf(line, sizeof line,
                        "[0 - 7fa76ae3cc00] %11.6f {2}{inst}: instance "
                        "created: inst=%" PRIx64 " bytes=%" PRIu64
                        " ready=0\n",
                        t += 1e-6, inst, kBytes));
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

}  // namespace
