// tests/browser/make_fixture_dump.cc - makes the dumps and pages the
// browser tests load.
//
//   make_map_fixture --out-dir DIR
//     Registers two memories with the tracker, drives them through the
//     hooks (allocations, a release pending, a pinned one, a deferred
//     request, a reservation, a failure, identities), writes
//     DIR/before.rsd and DIR/after.rsd with WriteDump, reads them back with
//     ReadDump and writes DIR/map.html (the two dumps: a diff),
//     DIR/single.html and DIR/replay.html (single, with a replay table);
//     and DIR/nodes.html, one dump of two nodes whose allocations carry a
//     "task" attribute, coloured by task.  DIR/expected.json says where the
//     test should find what, so the layout is written down once, here.
//   make_map_fixture --perf N --out PAGE.html
//     One framebuffer with N allocations (sizes 256 B to 64 KiB, about one
//     slot in eight left as a hole), through the hooks, a dump and back.
//   make_map_fixture --history DIR
//     A 64 MiB memory whose history (3000 events: fills, releases of
//     random slots, identities, release requests, failures) the page's time
//     strip shows: DIR/history.rsd and DIR/history.html.  The browser test
//     moves the map to moments and compares it with `realm-shadow at`.
//   make_map_fixture --history-perf EVENTS LIVE --out PAGE.html
//     LIVE long-lived allocations, then EVENTS in all of release and
//     allocate pairs on 1024 churned slots beside them, every event kept
//     (REALM_SHADOW_HISTORY at least EVENTS), a dump and back, the page.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "realm_shadow/format/dump.h"
#include "absl/strings/numbers.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/page/html_page.h"
#include "realm_shadow/recorder/recorder.h"
#include "realm_shadow/recorder/identity_table.h"

namespace rs = realm_shadow;

namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kFb = 0x1e00000000000000ull;
constexpr uint64_t kSys = 0x1e00000000000001ull;

uint32_t Intern(rs::AllocationKind kind,
                std::vector<std::pair<std::string, std::string>> attributes) {
  rs::Identity id;
  id.kind = kind;
  id.attributes = std::move(attributes);
  return rs::InternIdentity(id);
}

rs::DumpFile Take(const std::vector<realm_shadow_memory*>& memories) {
  rs::DumpFile dump;
  dump.source = "make_map_fixture";
  dump.created_unix_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::system_clock::now().time_since_epoch()).count());
  for (realm_shadow_memory* m : memories)
    dump.memories.push_back(rs::TakeSnapshot(m));
  return dump;
}

// True when `status` is OK; else says why on stderr.
bool Succeeded(const absl::Status& status) {
  if (!status.ok())
    std::fprintf(stderr, "make_map_fixture: %s\n", std::string(status.message()).c_str());
  return status.ok();
}

bool WriteAndReadBack(const std::string& path, const rs::DumpFile& dump,
                      rs::DumpFile* back) {
  absl::Status status = rs::WriteDump(path, dump);
  if (status.ok()) {
    absl::StatusOr<rs::DumpFile> read = rs::ReadDump(path);
    if (read.ok()) *back = *std::move(read);
    status = read.status();
  }
  return Succeeded(status);
}

rs::DumpFile TwoNodes();

int Fixture(const std::string& dir) {
  realm_shadow_memory* fb = rs::RegisterMemory(
      kFb, rs::MemoryKind::kFramebuffer, 1024 * kMiB, "GPU 0 framebuffer",
      REALM_SHADOW_SERIALIZED);
  realm_shadow_memory* sys = rs::RegisterMemory(
      kSys, rs::MemoryKind::kSystem, 64 * kMiB, "node 0 system memory",
      REALM_SHADOW_SERIALIZED);
  if (!fb || !sys) {
    std::fprintf(stderr, "make_map_fixture: tracking is off (REALM_SHADOW=0?)\n");
    return 1;
  }
  const uint64_t a = 0x4000000000000001ull, b = 0x4000000000000002ull,
                 c = 0x4000000000000003ull, d = 0x4000000000000004ull,
                 e = 0x4000000000000005ull, pend = 0x4000000000000100ull,
                 fail = 0x4000000000000200ull;
  const uint32_t id_a = Intern(rs::AllocationKind::kRegionInstance,
                               {{"fields", "velocity_x, velocity_y"},
                                {"regions", "region(3,1,7) 'cells'"},
                                {"provenance", "stencil.py:42"}});
  const uint32_t id_b = Intern(rs::AllocationKind::kDeferredBuffer,
                               {{"task", "compute_flux <1234>"}});
  const uint32_t id_c = Intern(rs::AllocationKind::kFuture,
                               {{"provenance", "reduce.py:7"}});
  const uint32_t id_d = Intern(rs::AllocationKind::kRegionInstance,
                               {{"store", "legate store 17"},
                                {"shape", "(4096, 8192)"},
                                {"partition", "tiling (1024, 8192)"}});
  const uint32_t id_small = Intern(rs::AllocationKind::kPoolSubAllocation,
                                   {{"pool", "leaf-task pool 3"}});

  // GPU 0 framebuffer, 1 GiB:
  //   [0, 256)      A region instance (fields, region, provenance)
  //   [256, 384)    hole (128 MiB: the largest)
  //   [384, 512)    B deferred buffer, release pending
  //   [512, 576)    C future, pinned
  //   [576, 640)    hole (64 MiB); a 32 MiB reservation at 576
  //   [640, 896)    D Legate store
  //   [896, 960)    1024 pool pieces of 64 KiB
  //   [960, 1024)   hole (64 MiB)
  // A request of 200 MiB deferred to 384; one of 192 MiB failed: it fits
  // nowhere (largest hole 128) and the cheapest window is B, 128 MiB.
  realm_shadow_allocated(fb, a, 0, 256 * kMiB, 256);
  realm_shadow_attach_identity(fb, a, id_a, 0);
  realm_shadow_allocated(fb, b, 384 * kMiB, 128 * kMiB, 256);
  realm_shadow_attach_identity(fb, b, id_b, 0);
  realm_shadow_allocated(fb, c, 512 * kMiB, 64 * kMiB, 256);
  realm_shadow_attach_identity(fb, c, id_c, 1);
  realm_shadow_allocated(fb, d, 640 * kMiB, 256 * kMiB, 256);
  realm_shadow_attach_identity(fb, d, id_d, 0);
  for (uint64_t k = 0; k < 1024; ++k) {
    realm_shadow_allocated(fb, 0x5000000000000000ull + k,
                           896 * kMiB + k * 64 * 1024, 64 * 1024, 256);
    realm_shadow_attach_identity(fb, 0x5000000000000000ull + k, id_small, 0);
  }
  realm_shadow_release_requested(fb, b, 0);
  realm_shadow_deferred(fb, pend, 200 * kMiB, 256, 384 * kMiB);
  realm_shadow_reserved(fb, 0x77, 576 * kMiB, 32 * kMiB);
  realm_shadow_allocation_failed(fb, fail, 192 * kMiB, 256);

  realm_shadow_allocated(sys, 0x6000000000000001ull, 0, 8 * kMiB, 64);
  realm_shadow_allocated(sys, 0x6000000000000002ull, 16 * kMiB, 4 * kMiB, 64);

  const rs::DumpFile before = Take({fb, sys});

  // After: A released, E placed at 0 (added), C released and its id
  // reused at 576 (moved), a new allocation in system memory.
  realm_shadow_released(fb, a);
  realm_shadow_allocated(fb, e, 0, 128 * kMiB, 256);
  realm_shadow_released(fb, c);
  realm_shadow_allocated(fb, c, 576 * kMiB, 64 * kMiB, 256);
  realm_shadow_allocated(sys, 0x6000000000000003ull, 32 * kMiB, 2 * kMiB, 64);
  const rs::DumpFile after = Take({fb, sys});

  rs::DumpFile before_back, after_back;
  if (!WriteAndReadBack(dir + "/before.rsd", before, &before_back) ||
      !WriteAndReadBack(dir + "/after.rsd", after, &after_back))
    return 1;
  // The replay table of the framebuffer (as whatif/report.h makes it):
  // realm fails the 192 MiB request; best-fit places it at 256 MiB.
  rs::PageReplay replay;
  replay.node = before_back.memories[0].node;
  replay.memory_id = kFb;
  replay.summary = "self-check: 1029/1029 placements as recorded\nlower bound (peak live bytes): 1 GiB";
  replay.moment = "just before event 1031, the run's first failure";
  auto placed = [](uint64_t instance, uint64_t offset, uint64_t size) {
    rs::Allocation a;
    a.instance = instance;
    a.offset = offset;
    a.size = size;
    return a;
  };
  rs::PageReplayRow realm_row{"realm", true, "event 1031: 192 MiB align 256 for 0x4000000000000200, instant failure",
                              "1.19 GiB (1275068416 B)", "just before event 1031",
                              {placed(a, 0, 256 * kMiB), placed(b, 384 * kMiB, 128 * kMiB)}};
  rs::PageReplayRow best_row{"best-fit", false, "-", "1 GiB (1073741824 B)", "just before event 1031",
                             {placed(a, 0, 256 * kMiB), placed(fail, 256 * kMiB, 192 * kMiB)}};
  replay.rows = {realm_row, best_row};
  absl::Status written = rs::WriteHtmlMap({before_back}, dir + "/single.html");
  if (written.ok())
    written = rs::WriteHtmlMap({before_back}, dir + "/replay.html", rs::HtmlOptions{"kind", {replay}});
  if (written.ok()) written = rs::WriteHtmlMap({before_back, after_back}, dir + "/map.html");
  if (!Succeeded(written)) return 1;
  rs::DumpFile nodes_back;
  rs::HtmlOptions by_task;
  by_task.color_by = "task";
  if (!WriteAndReadBack(dir + "/nodes.rsd", TwoNodes(), &nodes_back)) return 1;
  if (!Succeeded(rs::WriteHtmlMap({nodes_back}, dir + "/nodes.html", by_task)))
    return 1;
  std::ofstream expected(dir + "/expected.json");
  expected << "{\n"
           << "  \"mib\": " << kMiB << ",\n"
           << "  \"fb\": {\"row\": 0, \"capacity\": " << 1024 * kMiB << "},\n"
           << "  \"a\": {\"instance\": \"0x4000000000000001\", \"offset\": 0, \"size\": " << 256 * kMiB << "},\n"
           << "  \"b\": {\"instance\": \"0x4000000000000002\", \"offset\": " << 384 * kMiB << ", \"size\": " << 128 * kMiB << "},\n"
           << "  \"d\": {\"instance\": \"0x4000000000000004\", \"offset\": " << 640 * kMiB << ", \"size\": " << 256 * kMiB << "},\n"
           << "  \"e\": {\"instance\": \"0x4000000000000005\", \"offset\": 0, \"size\": " << 128 * kMiB << "},\n"
           << "  \"small_count\": 1024,\n"
           << "  \"holes_before\": [[" << 256 * kMiB << ", " << 128 * kMiB << "], [" << 576 * kMiB << ", " << 64 * kMiB << "], [" << 960 * kMiB << ", " << 64 * kMiB << "]],\n"
           << "  \"failure\": {\"size\": " << 192 * kMiB << ", \"window\": [" << 256 * kMiB << ", " << 512 * kMiB << "], \"blocker\": \"0x4000000000000002\"},\n"
           << "  \"pending\": {\"offset\": " << 384 * kMiB << ", \"size\": " << 200 * kMiB << "},\n"
           << "  \"nodes\": {\"alpha_bytes\": " << 24 * kMiB << ", \"beta_bytes\": " << 20 * kMiB << ", \"alpha_at\": " << 4 * kMiB << ", \"beta_at\": " << 8 * kMiB << ", \"none_at\": " << 36 * kMiB << "}\n"
           << "}\n";
  return expected.good() ? 0 : 1;
}

// Two nodes' memories, as ingest-realm-log writes a 2-rank run: node 0
// holds 3 x 8 MiB of task "alpha" at 0, 8, 16 MiB and 4 MiB of "beta" at
// 32 MiB; node 1 holds 16 MiB of "beta" at 0 and 8 MiB of no identity at
// 32 MiB.  By bytes: alpha 24 MiB, beta 20 MiB.
rs::DumpFile TwoNodes() {
  rs::DumpFile dump;
  dump.source = "make_map_fixture";
  rs::Identity alpha, beta;
  alpha.id = 1;
  alpha.kind = rs::AllocationKind::kRegionInstance;
  alpha.attributes = {{"regions", "cells"}, {"task", "alpha"}};
  beta.id = 2;
  beta.kind = rs::AllocationKind::kRegionInstance;
  beta.attributes = {{"regions", "cells"}, {"task", "beta"}};
  auto allocation = [](uint64_t instance, uint64_t offset, uint64_t size,
                       uint32_t identity) {
    rs::Allocation a;
    a.instance = instance;
    a.offset = offset;
    a.size = size;
    a.identity = identity;
    a.kind = identity ? rs::AllocationKind::kRegionInstance
                      : rs::AllocationKind::kUnknown;
    return a;
  };
  for (uint32_t node = 0; node < 2; ++node) {
    rs::Snapshot s;
    s.memory_id = 0x1e00000000000000ull | (uint64_t{node} << 40);
    s.kind = rs::MemoryKind::kSystem;
    s.name = "SYSTEM_MEM";
    s.node = node;
    s.capacity = 64 * kMiB;
    const uint64_t base = uint64_t{node} << 46 | uint64_t{1} << 62;
    if (node == 0) {
      for (uint64_t k = 0; k < 3; ++k)
        s.allocations.push_back(allocation(base + k, k * 8 * kMiB, 8 * kMiB, 1));
      s.allocations.push_back(allocation(base + 3, 32 * kMiB, 4 * kMiB, 2));
      s.identities = {alpha, beta};
    } else {
      s.allocations.push_back(allocation(base, 0, 16 * kMiB, 2));
      s.allocations.push_back(allocation(base + 1, 32 * kMiB, 8 * kMiB, 0));
      s.identities = {beta};
    }
    dump.memories.push_back(std::move(s));
  }
  return dump;
}

int Perf(uint64_t n, const std::string& out) {
  const uint64_t capacity = uint64_t{80} << 30;  // an 80 GiB framebuffer
  realm_shadow_memory* fb = rs::RegisterMemory(
      kFb, rs::MemoryKind::kFramebuffer, capacity, "GPU 0 framebuffer",
      REALM_SHADOW_SERIALIZED);
  if (!fb) return 1;
  std::mt19937_64 rng(42);
  const uint32_t kinds[3] = {
      Intern(rs::AllocationKind::kRegionInstance, {{"fields", "a, b"}}),
      Intern(rs::AllocationKind::kDeferredBuffer, {{"task", "t"}}),
      Intern(rs::AllocationKind::kFuture, {{"provenance", "f.py:1"}})};
  uint64_t at = 0, placed = 0;
  for (uint64_t k = 0; placed < n && at < capacity; ++k) {
    const uint64_t size = uint64_t{256} << (rng() % 9);  // 256 B .. 64 KiB
    if (rng() % 8 == 0) {  // leave a hole
      at += size;
      continue;
    }
    const uint64_t instance = 0x4000000000000000ull + k;
    realm_shadow_allocated(fb, instance, at, size, 256);
    if (placed % 4 == 0)
      realm_shadow_attach_identity(fb, instance, kinds[placed % 3], 0);
    at += size;
    ++placed;
  }
  rs::DumpFile dump = Take({fb}), back;
  const auto t0 = std::chrono::steady_clock::now();
  if (!WriteAndReadBack(out + ".rsd", dump, &back)) return 1;
  const auto t1 = std::chrono::steady_clock::now();
  if (!Succeeded(rs::WriteHtmlMap({back}, out))) return 1;
  const auto t2 = std::chrono::steady_clock::now();
  std::printf("%llu allocations: dump write+read %.0f ms, page %.0f ms\n",
              static_cast<unsigned long long>(placed),
              std::chrono::duration<double, std::milli>(t1 - t0).count(),
              std::chrono::duration<double, std::milli>(t2 - t1).count());
  return 0;
}

// The history workload: `live` 4 KiB slots filled (allocation sizes 1 B to
// 4 KiB), then release + allocate of random slots among the first `churn`
// (all of them when churn is 0) until `events`; every 7th placement gets an
// identity, every 13th a release request first, every 500th event a failed
// request.  Drained every 256 events, so batches (and drain times) differ
// (DrainAll, not a snapshot: a snapshot of a million allocations every 256
// events would be most of the run).
rs::DumpFile HistoryWorkload(uint64_t events, uint64_t live, uint64_t churn) {
  realm_shadow_memory* m = rs::RegisterMemory(
      kFb, rs::MemoryKind::kFramebuffer, std::max<uint64_t>(live * 4096 * 2, 64 * kMiB),
      "GPU 0 framebuffer", REALM_SHADOW_SERIALIZED, 0, events + 16);
  const uint32_t ident = Intern(rs::AllocationKind::kRegionInstance, {{"fields", "x"}});
  std::mt19937_64 rng(7);
  std::vector<uint64_t> slot_instance(live, 0);
  uint64_t next = 0x4000000000000000ull, done = 0;
  const auto step = [&](auto&& hook) {
    hook();
    if (++done % 256 == 0) rs::DrainAll();
  };
  const auto place = [&](uint64_t slot) {
    const uint64_t instance = next++;
    slot_instance[slot] = instance;
    step([&] { realm_shadow_allocated(m, instance, slot * 4096, 1 + rng() % 4096, 64); });
    if (instance % 7 == 0 && done < events)
      step([&] { realm_shadow_attach_identity(m, instance, ident, 0); });
  };
  for (uint64_t slot = 0; slot < live && done < events; ++slot) place(slot);
  const uint64_t churned = churn == 0 ? live : std::min(churn, live);
  while (done + 2 <= events) {
    const uint64_t slot = rng() % churned;
    const uint64_t old = slot_instance[slot];
    if (old % 13 == 0) step([&] { realm_shadow_release_requested(m, old, 1); });
    step([&] { realm_shadow_released(m, old); });
    if (done % 500 < 2) step([&] { realm_shadow_allocation_failed(m, next++, 1 << 30, 64); });
    if (done < events) place(slot);
  }
  rs::DumpFile dump;
  dump.source = "make_map_fixture";
  dump.memories.emplace_back();
  rs::MemoryHistory history;
  rs::TakeSnapshotAndHistory(m, &dump.memories.back(), &history);
  dump.histories.push_back(std::move(history));
  return dump;
}

int History(const std::string& dir) {
  rs::DumpFile back;
  if (!WriteAndReadBack(dir + "/history.rsd", HistoryWorkload(3000, 2000, 0), &back))
    return 1;
  if (!Succeeded(rs::WriteHtmlMap({back}, dir + "/history.html"))) return 1;
  return 0;
}

int HistoryPerf(uint64_t events, uint64_t live, const std::string& out) {
  const auto t0 = std::chrono::steady_clock::now();
  rs::DumpFile dump = HistoryWorkload(events, live, 1024), back;
  const auto t1 = std::chrono::steady_clock::now();
  if (!WriteAndReadBack(out + ".rsd", dump, &back)) return 1;
  const auto t2 = std::chrono::steady_clock::now();
  if (!Succeeded(rs::WriteHtmlMap({back}, out))) return 1;
  const auto t3 = std::chrono::steady_clock::now();
  const auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("history of %zu events, %zu live at the end: recorded %.0f ms, dump write+read %.0f ms, page %.0f ms\n",
              back.histories[0].events.size(), back.memories[0].allocations.size(),
              ms(t0, t1), ms(t1, t2), ms(t2, t3));
  return 0;
}

int Usage() {
  std::fprintf(stderr, "usage: make_map_fixture --out-dir DIR | --perf N --out PAGE.html | "
                       "--history DIR | --history-perf EVENTS LIVE --out PAGE.html\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, out, history_dir;
  uint64_t perf = 0, history_events = 0, history_live = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out-dir" && i + 1 < argc) dir = argv[++i];
    else if (arg == "--history" && i + 1 < argc) history_dir = argv[++i];
    else if (arg == "--history-perf" && i + 2 < argc &&
             absl::SimpleAtoi(argv[i + 1], &history_events) &&
             absl::SimpleAtoi(argv[i + 2], &history_live)) i += 2;
    else if (arg == "--out" && i + 1 < argc) out = argv[++i];
    else if (arg == "--perf" && i + 1 < argc && absl::SimpleAtoi(argv[++i], &perf)) continue;
    else return Usage();
  }
  if (perf && !out.empty()) return Perf(perf, out);
  if (!history_dir.empty()) return History(history_dir);
  if (history_events && !out.empty()) return HistoryPerf(history_events, history_live, out);
  if (!dir.empty()) return Fixture(dir);
  return Usage();
}
