// FramebufferMemory and ZeroCopyMemory on a real device: the shadow's
// offsets are the device pointers' offsets from the block, every placement
// is the one analysis::FirstFit predicts from the previous snapshot, and
// every range holds its own bytes.
#include "gpu/framebuffer_memory.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/format/dump.h"
#include "tests/common/dump_io.h"
#include "gpu/zero_copy_memory.h"
#include "realm_shadow/live/snapshots.h"

namespace realm_shadow {
namespace gpu {
namespace {

using testing::ExpectSnapshotMatches;
using testing::FillAndVerify;

constexpr uint64_t kMiB = uint64_t{1} << 20;

class FramebufferTest : public ::testing::Test {
 protected:
  void SetUp() override { ResetTrackerForTesting(); }
};

// A mix Realm sees: mostly small instances, a few large ones, some
// zero-byte, alignments from none to a page.
struct Request {
  uint64_t size;
  uint64_t alignment;
};
Request RandomRequest(std::mt19937_64& rng) {
  static const uint64_t kAlignments[] = {1, 16, 128, 256, 4096};
  const uint64_t pick = rng() % 100;
  uint64_t size;
  if (pick < 5) {
    size = 0;
  } else if (pick < 85) {
    size = 1 + rng() % (64 * 1024);
  } else {
    size = kMiB + rng() % (3 * kMiB);
  }
  return Request{size, kAlignments[rng() % 5]};
}

// Runs a seeded mix of allocations and releases on `memory`, checking each
// placement against FirstFit on the snapshot taken just before it.
// Returns the number of instant failures seen.
uint64_t Churn(BlockMemory& memory, int operations, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> live;
  uint64_t next_instance = 1, failures = 0;
  for (int op = 0; op < operations; ++op) {
    if (!live.empty() && rng() % 100 < 35) {
      const size_t victim = rng() % live.size();
      EXPECT_TRUE(memory.Release(live[victim]));
      live[victim] = live.back();
      live.pop_back();
      continue;
    }
    const Request request = RandomRequest(rng);
    const Snapshot before = TakeSnapshot(memory.shadow());
    const FitResult predicted =
        FirstFit(before, request.size, request.alignment);
    const uint64_t instance = next_instance++;
    uint64_t offset = 0;
    const bool placed =
        memory.Allocate(instance, request.size, request.alignment, &offset);
    EXPECT_EQ(placed, predicted.fits)
        << "instance " << instance << " size " << request.size;
    if (placed) {
      EXPECT_EQ(offset, predicted.offset) << "instance " << instance;
      EXPECT_EQ(offset % request.alignment, 0u);
      live.push_back(instance);
    } else {
      ++failures;
    }
  }
  return failures;
}

// A churned memory's shadow snapshot and its own list of live allocations.
struct Churned {
  Snapshot snapshot;
  std::vector<GpuAllocation> live;
};

// Churn, then the shadow against the memory: some allocations live, the
// memory's kind, the failures Churn saw, every allocation where the memory
// has it.
void ChurnAndMatch(BlockMemory& memory, int operations, uint64_t seed,
                   MemoryKind kind, Churned* out) {
  const uint64_t failures = Churn(memory, operations, seed);
  out->snapshot = TakeSnapshot(memory.shadow());
  out->live = memory.LiveAllocations();
  ASSERT_FALSE(out->live.empty());
  EXPECT_EQ(out->snapshot.kind, kind);
  EXPECT_EQ(out->snapshot.counters.failures, failures);
  ExpectSnapshotMatches(out->snapshot, out->live);
}

TEST_F(FramebufferTest, ShadowMatchesDevicePointers) {
  REALM_SHADOW_REQUIRE_GPU();
  std::string error;
  auto fb = FramebufferMemory::Create(0x1e00000000000001, 64 * kMiB,
                                      "fb-gpu0", /*tracked=*/true, &error);
  ASSERT_NE(fb, nullptr) << error;
  ASSERT_NE(fb->shadow(), nullptr);
  // 64 MiB and ~10% requests of 1-4 MiB: the memory fills, fragments and
  // refuses some requests along the way.
  Churned churned;
  ASSERT_NO_FATAL_FAILURE(
      ChurnAndMatch(*fb, 1500, 7, MemoryKind::kFramebuffer, &churned));
  const Snapshot& snapshot = churned.snapshot;
  EXPECT_EQ(snapshot.capacity, 64 * kMiB);
  EXPECT_FALSE(snapshot.addressed);
  const char* base = static_cast<const char*>(fb->device_base());
  for (const Allocation& a : snapshot.allocations) {
    GpuAllocation truth;
    ASSERT_TRUE(fb->Find(a.instance, &truth));
    // The shadow's offset, from the block cudaMalloc returned, is the very
    // pointer the memory hands out.
    EXPECT_EQ(static_cast<const void*>(base + a.offset), truth.device_pointer);
    EXPECT_LE(a.end(), snapshot.capacity);
  }
  EXPECT_EQ(snapshot.used_bytes(), fb->used_bytes());
  EXPECT_EQ(Summarize(snapshot).largest_hole, fb->largest_hole());
  FillAndVerify(churned.live);
}

TEST_F(FramebufferTest, FailureIsRecordedAgainstTheHoles) {
  REALM_SHADOW_REQUIRE_GPU();
  std::string error;
  auto fb = FramebufferMemory::Create(0x1e00000000000002, 16 * kMiB,
                                      "fb-frag", true, &error);
  ASSERT_NE(fb, nullptr) << error;
  // Sixteen 1 MiB instances, every other one released: 8 MiB free in 1 MiB
  // holes, so a 2 MiB request fails by fragmentation, not exhaustion.
  for (uint64_t i = 1; i <= 16; ++i) {
    uint64_t offset;
    ASSERT_TRUE(fb->Allocate(i, kMiB, 256, &offset));
    EXPECT_EQ(offset, (i - 1) * kMiB);
  }
  for (uint64_t i = 1; i <= 16; i += 2) ASSERT_TRUE(fb->Release(i));
  uint64_t offset;
  EXPECT_FALSE(fb->Allocate(100, 2 * kMiB, 256, &offset));

  const Snapshot snapshot = TakeSnapshot(fb->shadow());
  ASSERT_EQ(snapshot.failures.size(), 1u);
  EXPECT_EQ(snapshot.failures[0].instance, 100u);
  EXPECT_EQ(snapshot.failures[0].size, 2 * kMiB);
  EXPECT_FALSE(snapshot.failures[0].eventual);
  const FreeSummary summary = Summarize(snapshot);
  EXPECT_EQ(summary.total_free, 8 * kMiB);
  EXPECT_EQ(summary.largest_hole, kMiB);
  EXPECT_EQ(ClassifyRequest(snapshot, 2 * kMiB, 256),
            FailureCause::kFragmentation);
  // Releasing one live neighbour of a hole makes room for it.
  const BlockerWindow blockers = FindBlockers(snapshot, 2 * kMiB, 256);
  ASSERT_TRUE(blockers.found);
  EXPECT_EQ(blockers.blockers.size(), 1u);
  EXPECT_EQ(blockers.bytes_to_free, kMiB);
  ExpectSnapshotMatches(snapshot, fb->LiveAllocations());
  FillAndVerify(fb->LiveAllocations());
}

TEST_F(FramebufferTest, QueuedReleaseKeepsTheRangeOccupied) {
  REALM_SHADOW_REQUIRE_GPU();
  std::string error;
  auto fb = FramebufferMemory::Create(0x1e00000000000003, 4 * kMiB, "fb-rel",
                                      true, &error);
  ASSERT_NE(fb, nullptr) << error;
  uint64_t offset;
  ASSERT_TRUE(fb->Allocate(1, kMiB, 256, &offset));
  ASSERT_TRUE(fb->RequestRelease(1, /*ready=*/true));
  Snapshot snapshot = TakeSnapshot(fb->shadow());
  ASSERT_EQ(snapshot.allocations.size(), 1u);
  EXPECT_EQ(snapshot.allocations[0].state, AllocationState::kReleaseReady);
  ASSERT_TRUE(fb->Allocate(2, kMiB, 256, &offset));
  EXPECT_EQ(offset, kMiB);  // instance 1 still holds [0, 1 MiB)
  ASSERT_TRUE(fb->Release(1));
  EXPECT_FALSE(fb->Release(1));  // no hook for an unknown instance
  snapshot = TakeSnapshot(fb->shadow());
  ExpectSnapshotMatches(snapshot, fb->LiveAllocations());
  EXPECT_EQ(snapshot.counters.anomalies[static_cast<int>(
                AnomalyKind::kDoubleRelease)],
            0u);
}

TEST_F(FramebufferTest, DumpAndJsonDescribeTheMemory) {
  REALM_SHADOW_REQUIRE_GPU();
  std::string error;
  const uint64_t id = 0x1e00000000000004;
  auto fb = FramebufferMemory::Create(id, 32 * kMiB, "fb-dump", true, &error);
  ASSERT_NE(fb, nullptr) << error;
  Churn(*fb, 300, 11);
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("realm_shadow_gpu_fb_" + std::to_string(::getpid()) + ".rsdump"))
          .string();
  ASSERT_TRUE(realm_shadow::testing::DumpMemoryStateTo(id, path, &error)) << error;
  DumpFile dump;
  ASSERT_TRUE(realm_shadow::testing::ReadDumpTo(path, &dump, &error)) << error;
  std::remove(path.c_str());
  ASSERT_EQ(dump.memories.size(), 1u);
  const Snapshot& dumped = dump.memories[0];
  EXPECT_EQ(dumped.memory_id, id);
  EXPECT_EQ(dumped.kind, MemoryKind::kFramebuffer);
  EXPECT_EQ(dumped.name, "fb-dump");
  ExpectSnapshotMatches(dumped, fb->LiveAllocations());

  const std::string json = DumpToJson(dump);
  EXPECT_NE(json.find("fb-dump"), std::string::npos);
  EXPECT_NE(json.find(MemoryKindName(MemoryKind::kFramebuffer)),
            std::string::npos);
  // Every live instance appears in the rendering.
  for (const Allocation& a : dumped.allocations) {
    EXPECT_NE(json.find(std::to_string(a.instance)), std::string::npos)
        << "instance " << a.instance;
  }
}

TEST_F(FramebufferTest, CreateWithoutDeviceFailsWithTheReason) {
  std::string why;
  if (testing::GpuAvailable(&why)) {
    GTEST_SKIP() << "a CUDA device is present; this checks the no-device path";
  }
  std::string error;
  auto fb = FramebufferMemory::Create(0x1e00000000000005, 4 * kMiB, "fb-none",
                                      true, &error);
  EXPECT_EQ(fb, nullptr);
  EXPECT_NE(error.find("cudaMalloc"), std::string::npos) << error;
  auto zc = ZeroCopyMemory::Create(0x1e00000000000006, 4 * kMiB, "zc-none",
                                   true, &error);
  EXPECT_EQ(zc, nullptr);
  EXPECT_NE(error.find("cudaHostAlloc"), std::string::npos) << error;
}

// ---- zero-copy ----------------------------------------------------------

TEST_F(FramebufferTest, ZeroCopyHostAndDeviceViewsAgreeWithTheShadow) {
  REALM_SHADOW_REQUIRE_GPU();
  std::string error;
  auto zc = ZeroCopyMemory::Create(0x1e00000000000007, 32 * kMiB, "zc-gpu0",
                                   true, &error);
  ASSERT_NE(zc, nullptr) << error;
  ASSERT_NE(zc->host_base(), nullptr);
  Churned churned;
  ASSERT_NO_FATAL_FAILURE(
      ChurnAndMatch(*zc, 600, 13, MemoryKind::kZeroCopy, &churned));
  const Snapshot& snapshot = churned.snapshot;
  const std::vector<GpuAllocation>& live = churned.live;
  const char* device_base = static_cast<const char*>(zc->device_base());
  const char* host_base = static_cast<const char*>(zc->host_base());
  for (size_t i = 0; i < live.size(); ++i) {
    const Allocation& a = snapshot.allocations[i];
    EXPECT_EQ(static_cast<const void*>(device_base + a.offset),
              live[i].device_pointer);
    EXPECT_EQ(static_cast<const void*>(host_base + a.offset),
              live[i].host_pointer);
  }
  // The kernel writes through the device view; the host reads every byte
  // back through the host view at the shadow's offsets.
  FillAndVerify(live);
  uint64_t host_mismatches = 0;
  for (const Allocation& a : snapshot.allocations) {
    const uint8_t* bytes =
        reinterpret_cast<const uint8_t*>(host_base + a.offset);
    for (uint64_t b = 0; b < a.size; ++b) {
      host_mismatches += bytes[b] != PatternByte(a.instance, b);
    }
  }
  EXPECT_EQ(host_mismatches, 0u);
}

}  // namespace
}  // namespace gpu
}  // namespace realm_shadow
