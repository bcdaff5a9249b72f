// Realm's three GPU memories in a stock log: what a run with -ll:gpu 1
// -cuda:dynfb 1 -level inst=1,machine=1 writes for the framebuffer
// (GPU_FB_MEM), zero-copy (Z_COPY_MEM) and the dynamic framebuffer
// (GPU_DYNAMIC_MEM), read by ingest-realm-log and compared with what the
// tracker records for the same events through the calls Realm's sites make.
//
// The lines are in the formats of Realm master (Legion 25.06 prints the
// same):
//  - the machine dump (runtime_impl.cc, operator<<(Node)): "Memory:<hex id>,
//    <Memory::Kind as its enumerator's name>, capacity: <bytes>" and "IB
//    Memory:" for the framebuffer's internal buffer, continuation lines of
//    one "{1}{machine}: Node 0:" entry;
//  - the "inst" lines (mem_impl.cc, inst_impl.cc): the framebuffer and
//    zero-copy are LocalManagedMemory, the dynamic framebuffer a MemoryImpl
//    whose allocate_storage_immediate reports the address cuMemAlloc
//    returned as the offset ("allocation completed: inst=I offset=<decimal
//    device address>", a size_t) and its refusals through notify_allocation
//    ("allocation failed: inst=I") like every memory;
//  - the dynamic framebuffer's own warnings (cuda_module.cc, logger "gpu"):
//    "dynamic allocation limit reached: mem=M cur_size=C bytes=B limit=L" and
//    "out of memory in cuMemAlloc: bytes=B".  They add no fact the inst lines
//    lack (the cap is the machine dump's capacity, the refused size the
//    layout's), and the dump format has no failure cause to put them in:
//    they are counted as other loggers' lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/ingest/compare.h"
#include "realm_shadow/ingest/realm_log.h"
#include "realm_shadow/realm_sites.h"
#include "tests/common/dump_io.h"
#include "tests/common/temp_dir.h"

namespace realm_shadow {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
// -ll:gpu 1: system memory first, then the CUDA module's framebuffer,
// dynamic framebuffer and zero-copy (CudaModule::create_memories' order).
constexpr uint64_t kSysMem = 0x1e00000000000000ull;
constexpr uint64_t kFb = 0x1e00000000000001ull;
constexpr uint64_t kDynFb = 0x1e00000000000002ull;
constexpr uint64_t kZc = 0x1e00000000000003ull;
// cuMemAlloc's addresses on an H100/H200 under Linux: 2 MiB pages high in
// the 47-bit space.
constexpr uint64_t kDeviceBase = 0x7f3a40000000ull;

// Instance n of memory `memory` on node 0: the memory's index in bits 22-29.
uint64_t Instance(uint64_t memory, uint64_t n) {
  return 0x4000000000000000ull | ((memory & 0xff) << 22) | n;
}

std::string Hex(uint64_t v) {
  char s[24];
  std::snprintf(s, sizeof s, "%llx", static_cast<unsigned long long>(v));
  return s;
}

// Writes the log and, when given memories, makes the tracker's calls for the
// same events in the same order (null handles: no tracking, log only).
class GpuRun {
 public:
  GpuRun() {
    Raw("[0 - 7f0000000001]    0.010000 {1}{machine}: Node 0:");
    Raw("Processor:1d00000000000000, LOC_PROC");
    Raw("Processor:1d00000000000001, TOC_PROC");
    Raw("Memory:1e00000000000000, SYSTEM_MEM, capacity: 536870912");
    Raw("Memory:1e00000000000001, GPU_FB_MEM, capacity: 67108864");
    Raw("Memory:1e00000000000002, GPU_DYNAMIC_MEM, capacity: 67108864");
    Raw("Memory:1e00000000000003, Z_COPY_MEM, capacity: 16777216");
    Raw("IB Memory:1e00000000000004, GPU_FB_MEM, capacity: 8388608");
  }

  // The handles the sites would hold (Track); the log alone without it.
  void Track() {
    fb_ = realm_shadow_register_memory(kFb, REALM_SHADOW_MEM_FRAMEBUFFER,
                                       64 * kMiB, "GPU_FB_MEM",
                                       REALM_SHADOW_SERIALIZED);
    zc_ = realm_shadow_register_memory(kZc, REALM_SHADOW_MEM_ZERO_COPY,
                                       16 * kMiB, "Z_COPY_MEM",
                                       REALM_SHADOW_SERIALIZED);
    dyn_ = realm_shadow_site_register_dynamic_fb(kDynFb, 64 * kMiB,
                                                 "GPU_DYNAMIC_MEM");
  }

  // create_instance placed at once (ready=0).
  void Placed(uint64_t memory, uint64_t inst, uint64_t bytes, uint64_t offset) {
    Announce(inst, bytes);
    Inst(1, "allocation completed: inst=" + Hex(inst) +
                " offset=" + std::to_string(offset));
    Inst(2, "instance created: inst=" + Hex(inst) + " bytes=" +
                std::to_string(bytes) + " ready=0");
    if (memory == kDynFb)
      realm_shadow_site_dynamic_fb_allocated(dyn_, inst, offset, bytes);
    else
      realm_shadow_allocated(Handle(memory), inst, offset, bytes, kAlign);
  }

  // Refused at once; `gpu_warning` is the dynamic framebuffer's own line.
  void Failed(uint64_t memory, uint64_t inst, uint64_t bytes,
              const std::string& gpu_warning = "") {
    Announce(inst, bytes);
    if (!gpu_warning.empty()) Message(3, "gpu", gpu_warning);
    Inst(2, "allocation failed: inst=" + Hex(inst));
    Inst(2, "instance created: inst=" + Hex(inst) + " bytes=" +
                std::to_string(bytes) + " ready=0");
    // AllocationOutcome (notify_allocation's site) with the layout's size.
    realm_shadow_request_failed(Handle(memory), inst, bytes, kAlign, 0);
  }

  // A request waiting on `event`: no outcome yet.  The framebuffer's
  // AllocationRequested site records it; the dynamic framebuffer has none.
  void Deferred(uint64_t memory, uint64_t inst, uint64_t bytes, uint64_t event) {
    Announce(inst, bytes);
    Inst(2, "instance created: inst=" + Hex(inst) + " bytes=" +
                std::to_string(bytes) + " ready=" + Hex(event));
    if (memory != kDynFb)
      realm_shadow_deferred(Handle(memory), inst, bytes, kAlign,
                            REALM_SHADOW_NO_OFFSET);
  }

  // destroy(wait_on): at once when wait_on is 0, else queued.
  void Destroyed(uint64_t memory, uint64_t inst, uint64_t wait_on = 0) {
    Inst(2, "instance destroyed: inst=" + Hex(inst) +
                " wait_on=" + (wait_on ? Hex(wait_on) : "0"));
    if (memory == kDynFb) {
      ASSERT_EQ(wait_on, 0u) << "the dynamic framebuffer's tracker sees no "
                                "queued release";
      Inst(1, "deallocation completed: inst=" + Hex(inst));
      realm_shadow_site_dynamic_fb_released(dyn_, inst);
      return;
    }
    realm_shadow_release_requested(Handle(memory), inst, wait_on == 0);
    if (wait_on == 0) {
      Inst(1, "deallocation completed: inst=" + Hex(inst));
      realm_shadow_released(Handle(memory), inst);
    }
  }

  void Message(int level, const std::string& logger, const std::string& text) {
    char prefix[64];
    std::snprintf(prefix, sizeof prefix, "[0 - 7f0000000002] %10.6f {%d}{",
                  0.2 + 1e-4 * static_cast<double>(++lines_), level);
    Raw(prefix + logger + "}: " + text);
  }

  const std::string& log() const { return log_; }

 private:
  static constexpr uint64_t kAlign = 128;

  void Announce(uint64_t inst, uint64_t bytes) {
    Inst(2, "creating new local instance: " + Hex(inst));
    Inst(1, "instance layout: inst=" + Hex(inst) + " layout=Layout(bytes=" +
                std::to_string(bytes) + ", align=" + std::to_string(kAlign) +
                ", fields={0=0+0}, lists=[[<0>..<" + std::to_string(bytes - 1) +
                ">->affine(<1>+0)]])");
  }
  void Inst(int level, const std::string& text) { Message(level, "inst", text); }
  void Raw(const std::string& line) { log_ += line + "\n"; }
  realm_shadow_memory* Handle(uint64_t memory) const {
    return memory == kFb ? fb_ : memory == kZc ? zc_ : dyn_;
  }

  std::string log_;
  int lines_ = 0;
  realm_shadow_memory* fb_ = nullptr;
  realm_shadow_memory* zc_ = nullptr;
  realm_shadow_memory* dyn_ = nullptr;
};

// What scripts/trial/realm_gpu_trial.cc does, at the moment of its third
// framebuffer dump and last zero-copy and dynamic-framebuffer dumps (less
// the dynamic framebuffer's deferred request: see DeferredDynamicRequest).
void PlayTrial(GpuRun& run) {
  // Framebuffer, 64 MiB: 12 MiB until the sixth fails; two released; 20 MiB
  // fails on fragmentation; a release waits on an event and 20 MiB waits.
  for (uint64_t n = 0; n < 5; ++n)
    run.Placed(kFb, Instance(kFb, n), 12 * kMiB, n * 12 * kMiB);
  run.Failed(kFb, Instance(kFb, 5), 12 * kMiB);
  run.Destroyed(kFb, Instance(kFb, 1));
  run.Destroyed(kFb, Instance(kFb, 3));
  run.Failed(kFb, Instance(kFb, 6), 20 * kMiB);
  run.Destroyed(kFb, Instance(kFb, 2), 0x8000000000100001ull);
  run.Deferred(kFb, Instance(kFb, 7), 20 * kMiB, 0x8000000000100002ull);
  // Zero-copy, 16 MiB: four of 3 MiB, the second released.
  for (uint64_t n = 0; n < 4; ++n)
    run.Placed(kZc, Instance(kZc, n), 3 * kMiB, n * 3 * kMiB);
  run.Destroyed(kZc, Instance(kZc, 1));
  // Dynamic framebuffer, cap 64 MiB: each 8 MiB instance its own cuMemAlloc
  // until the cap refuses the ninth; three released; one more placed at an
  // address cuMemFree gave back.
  for (uint64_t n = 0; n < 8; ++n)
    run.Placed(kDynFb, Instance(kDynFb, n), 8 * kMiB,
               kDeviceBase + n * 8 * kMiB);
  run.Failed(kDynFb, Instance(kDynFb, 8), 8 * kMiB,
             "dynamic allocation limit reached: mem=" + Hex(kDynFb) +
                 " cur_size=67108864 bytes=8388608 limit=67108864");
  for (uint64_t n : {0, 2, 3}) run.Destroyed(kDynFb, Instance(kDynFb, n));
  run.Placed(kDynFb, Instance(kDynFb, 9), 8 * kMiB, kDeviceBase + 2 * 8 * kMiB);
}

DumpFile IngestText(const std::string& log, IngestSummary* summary = nullptr,
                    realm_log::RebuildCounts* counts = nullptr) {
  RealmLogReader reader;
  reader.FeedText(log);
  if (counts != nullptr) *counts = reader.counts();
  return reader.Dump(summary);
}

const Snapshot* Find(const DumpFile& d, uint64_t memory) {
  for (const Snapshot& s : d.memories)
    if (s.memory_id == memory) return &s;
  return nullptr;
}

TEST(GpuLog, MemoriesHaveTheirKindsNamesAndCapacities) {
  GpuRun run;
  PlayTrial(run);
  const DumpFile d = IngestText(run.log());
  struct {
    uint64_t id;
    MemoryKind kind;
    const char* name;
    uint64_t capacity;
  } const expected[] = {
      {kFb, MemoryKind::kFramebuffer, "GPU_FB_MEM", 64 * kMiB},
      {kZc, MemoryKind::kZeroCopy, "Z_COPY_MEM", 16 * kMiB},
      {kDynFb, MemoryKind::kDynamicFramebuffer, "GPU_DYNAMIC_MEM", 64 * kMiB}};
  for (const auto& e : expected) {
    const Snapshot* s = Find(d, e.id);
    ASSERT_NE(s, nullptr) << e.name;
    EXPECT_EQ(s->kind, e.kind) << e.name;
    EXPECT_EQ(s->name, e.name);
    EXPECT_EQ(s->capacity, e.capacity) << e.name;
    EXPECT_TRUE(s->capacity_known) << e.name;
    EXPECT_EQ(s->addressed, e.kind == MemoryKind::kDynamicFramebuffer) << e.name;
    EXPECT_TRUE(s->anomalies.empty()) << e.name;
  }
  // The framebuffer's internal buffer (IB Memory) is not a memory of the dump.
  EXPECT_EQ(Find(d, 0x1e00000000000004ull), nullptr);
  EXPECT_NE(Find(d, kSysMem), nullptr);
}

TEST(GpuLog, FramebufferAndZeroCopyAreRebuiltLikeAnyHeap) {
  GpuRun run;
  PlayTrial(run);
  const DumpFile d = IngestText(run.log());
  const Snapshot& fb = *Find(d, kFb);
  ASSERT_EQ(fb.allocations.size(), 3u);
  EXPECT_EQ(fb.allocations[0].offset, 0u);
  EXPECT_EQ(fb.allocations[1].instance, Instance(kFb, 2));
  EXPECT_EQ(fb.allocations[1].offset, 24 * kMiB);
  EXPECT_EQ(fb.allocations[2].offset, 48 * kMiB);
  ASSERT_EQ(fb.pending.size(), 1u);
  EXPECT_EQ(fb.pending[0].instance, Instance(kFb, 7));
  EXPECT_EQ(fb.pending[0].size, 20 * kMiB);
  ASSERT_EQ(fb.failures.size(), 2u);
  EXPECT_EQ(fb.failures[1].size, 20 * kMiB);
  const FreeSummary fb_free = Summarize(fb);
  EXPECT_EQ(fb_free.total_free, 64 * kMiB - 36 * kMiB);
  EXPECT_EQ(fb_free.largest_hole, 12 * kMiB);  // 20 MiB fails: fragmentation

  const Snapshot& zc = *Find(d, kZc);
  ASSERT_EQ(zc.allocations.size(), 3u);
  const FreeSummary zc_free = Summarize(zc);
  EXPECT_EQ(zc_free.total_free, 7 * kMiB);
  EXPECT_EQ(zc_free.largest_hole, 4 * kMiB);
}

TEST(GpuLog, DynamicFramebufferOffsetsAreDeviceAddresses) {
  GpuRun run;
  PlayTrial(run);
  realm_log::RebuildCounts counts;
  const DumpFile d = IngestText(run.log(), nullptr, &counts);
  const Snapshot& dyn = *Find(d, kDynFb);
  ASSERT_EQ(dyn.allocations.size(), 6u);
  for (const Allocation& a : dyn.allocations) {
    EXPECT_GE(a.offset, kDeviceBase);
    EXPECT_EQ(a.size, 8 * kMiB);
  }
  // The reused address: instance 9 where instance 2 was.
  EXPECT_EQ(dyn.allocations[0].offset, kDeviceBase + 8 * kMiB);
  EXPECT_EQ(dyn.allocations[1].instance, Instance(kDynFb, 9));
  EXPECT_EQ(dyn.allocations[1].offset, kDeviceBase + 16 * kMiB);
  // Not one beyond_capacity anomaly although every address is past the cap.
  EXPECT_TRUE(dyn.anomalies.empty());
  const FreeSummary free = Summarize(dyn);
  EXPECT_EQ(free.total_free, 64 * kMiB - 48 * kMiB);  // cap - used
  ASSERT_EQ(dyn.failures.size(), 1u);
  EXPECT_EQ(dyn.failures[0].instance, Instance(kDynFb, 8));
  EXPECT_EQ(dyn.failures[0].size, 8 * kMiB);
  // The {gpu} warning is read as another logger's line, never as garbage
  // (the other: the machine dump's "Node 0:").
  EXPECT_EQ(counts.other_logger_lines, 2u);
  EXPECT_EQ(counts.unknown_lines, 0u);
}

TEST(GpuLog, DynamicFramebufferListedAfterItsFirstInstanceIsStillAddressed) {
  // A log whose machine dump comes late (a second rank's, or Legion Spy's
  // Memory line): the map already holds an instance when the kind is known.
  const std::string inst = Hex(Instance(kDynFb, 0));
  const std::string log =
      "[0 - 1] 0.1 {2}{inst}: creating new local instance: " + inst + "\n" +
      "[0 - 1] 0.1 {1}{inst}: instance layout: inst=" + inst +
      " layout=Layout(bytes=4096, align=128, fields={0=0+0}, lists=[])\n" +
      "[0 - 1] 0.1 {1}{inst}: allocation completed: inst=" + inst +
      " offset=" + std::to_string(kDeviceBase) + "\n" +
      "[0 - 1] 0.2 {1}{machine}: Node 0:\n"
      "Memory:1e00000000000002, GPU_DYNAMIC_MEM, capacity: 1048576\n";
  const DumpFile d = IngestText(log);
  const Snapshot* dyn = Find(d, kDynFb);
  ASSERT_NE(dyn, nullptr);
  EXPECT_TRUE(dyn->addressed);
  EXPECT_EQ(dyn->capacity, 1048576u);
  ASSERT_EQ(dyn->allocations.size(), 1u);
  EXPECT_EQ(dyn->allocations[0].offset, kDeviceBase);
  EXPECT_TRUE(dyn->anomalies.empty());
}

// The tracker's dump of the same events agrees with the log's picture in
// every memory: what ingest-realm-log --cut-at-dump and compare check on the
// device for each dump of realm_gpu_trial.
TEST(GpuLog, TrackedDumpsAgreeWithTheLog) {
  GpuRun run;
  run.Track();
  PlayTrial(run);
  testing::TempDir dir("gpu-log-test");
  DumpFile tracked;
  for (uint64_t memory : {kFb, kZc, kDynFb}) {
    const std::string path = dir / (Hex(memory) + ".rsd");
    std::string error;
    ASSERT_TRUE(testing::DumpMemoryStateTo(memory, path, &error)) << error;
    DumpFile one;
    ASSERT_TRUE(testing::ReadDumpTo(path, &one, &error)) << error;
    ASSERT_EQ(one.memories.size(), 1u);
    tracked.memories.push_back(one.memories[0]);
  }
  DumpFile log = IngestText(run.log());
  log.memories.erase(std::remove_if(log.memories.begin(), log.memories.end(),
                                    [](const Snapshot& s) {
                                      return s.memory_id == kSysMem;
                                    }),
                     log.memories.end());
  const std::vector<MemoryComparison> rows = CompareDumps(tracked, log);
  ASSERT_EQ(rows.size(), 3u) << FormatComparisonTable(rows, "gpu", "trial");
  for (const MemoryComparison& r : rows) {
    EXPECT_EQ(r.agreement, Agreement::kAgree)
        << FormatComparisonTable(rows, "gpu", "trial");
    EXPECT_TRUE(r.free_compared) << Hex(r.memory_id);
    EXPECT_EQ(r.only_shadow + r.only_log + r.mismatched, 0u) << Hex(r.memory_id);
  }
  EXPECT_EQ(rows[0].pending_log, 1u);   // the framebuffer's deferred 20 MiB
  EXPECT_EQ(rows[2].failures_log, 1u);  // the dynamic framebuffer's cap
}

// A request on the dynamic framebuffer waiting on an event: the log states
// it (instance created, no outcome yet); the tracker cannot, since Realm's
// deferral of a MemoryImpl that is no LocalManagedMemory has no site, so a
// dump taken while it waits lacks it and compare names the difference.
TEST(GpuLog, DeferredDynamicRequestIsPendingInTheLog) {
  GpuRun run;
  PlayTrial(run);
  run.Deferred(kDynFb, Instance(kDynFb, 10), 8 * kMiB, 0x8000000000100003ull);
  const DumpFile d = IngestText(run.log());
  const Snapshot& dyn = *Find(d, kDynFb);
  ASSERT_EQ(dyn.pending.size(), 1u);
  EXPECT_EQ(dyn.pending[0].instance, Instance(kDynFb, 10));
  EXPECT_EQ(dyn.pending[0].size, 8 * kMiB);
  EXPECT_TRUE(dyn.anomalies.empty());
}

}  // namespace
}  // namespace realm_shadow
