// tests/live/on_failure_test.cc - dump on failure end to end through the
// hooks, the failure report's text, and DumpMemoryState / DumpAllMemories.
#include "realm_shadow/live/on_failure.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/live/snapshots.h"
#include "tests/common/contains_text.h"
#include "tests/common/dump_io.h"
#include "tests/common/temp_dir.h"
#include "realm_shadow/recorder/identity_table.h"
#include "realm_shadow/live/dump.h"
#include "realm_shadow/render/failure_report.h"

namespace realm_shadow {
namespace {

using testing::ContainsText;

namespace fs = std::filesystem;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kFb = 0x1e00000000000000ull;
constexpr uint64_t kSys = 0x1e00000000000001ull;
constexpr uint64_t kInst = 0x4000000000000000ull;

class DumpOnFailureTest : public ::testing::Test {
 protected:
  void SetUp() override { ResetTrackerForTesting(); }
  void TearDown() override {
    SetFailureObserver(nullptr);
    ::unsetenv("REALM_SHADOW_DUMP_DIR");
    ::unsetenv("REALM_SHADOW_DUMP_LIMIT");
    ResetTrackerForTesting();
  }
  // A 1 MiB framebuffer: 64 KiB allocations at 0, 128K, 256K, ... 896K
  // (8 of them, 512 KiB used) leave eight 64 KiB holes.  A 128 KiB request
  // fails by fragmentation; releasing one allocation fixes it.
  realm_shadow_memory* Fragmented() {
    realm_shadow_memory* m = RegisterMemory(kFb, MemoryKind::kFramebuffer,
                                            1024 * kKiB, "GPU0 FB", 0);
    for (uint64_t i = 0; i < 8; ++i) {
      realm_shadow_allocated(m, kInst + i, i * 128 * kKiB, 64 * kKiB, 256);
    }
    Identity id;
    id.kind = AllocationKind::kRegionInstance;
    id.attributes = {{"fields", "density"}, {"provenance", "stencil.py:42"}};
    const uint32_t interned = InternIdentity(id);
    for (uint64_t i = 0; i < 8; ++i) {
      realm_shadow_attach_identity(m, kInst + i, interned, i == 0);
    }
    return m;
  }
  std::string Path(uint64_t memory, int k) const {
    char name[128];
    std::snprintf(name, sizeof name, "/realm-shadow-node%u-mem%llx-%d.rsd",
                  Options().node, static_cast<unsigned long long>(memory), k);
    return dir_ + name;
  }

  testing::TempDir temp_{"realm-shadow-onfail"};
  std::string dir_ = temp_.path();
};

TEST_F(DumpOnFailureTest, OffWithoutTheEnvironment) {
  ::unsetenv("REALM_SHADOW_DUMP_DIR");
  EXPECT_FALSE(InstallDumpOnFailure());
  realm_shadow_memory* m = Fragmented();
  ::testing::internal::CaptureStderr();
  realm_shadow_allocation_failed(m, kInst + 100, 128 * kKiB, 256);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(fs::is_empty(dir_));
}

// The limit is a decimal count or nothing: "-1" used to pass as 2^64 - 1
// (strtoul), that is no limit; "16k" and "" keep the default too.
TEST_F(DumpOnFailureTest, ALimitThatIsNotACountKeepsTheDefault) {
  ASSERT_EQ(::setenv("REALM_SHADOW_DUMP_DIR", dir_.c_str(), 1), 0);
  for (const char* bad : {"-1", "16k", "4 dumps"}) {
    ASSERT_EQ(::setenv("REALM_SHADOW_DUMP_LIMIT", bad, 1), 0);
    ::testing::internal::CaptureStderr();
    ASSERT_TRUE(InstallDumpOnFailure());
    EXPECT_EQ(::testing::internal::GetCapturedStderr(),
              std::string("realm-shadow: REALM_SHADOW_DUMP_LIMIT=") + bad +
                  " is not a number; using 4\n");
  }
  ASSERT_EQ(::setenv("REALM_SHADOW_DUMP_LIMIT", "7", 1), 0);
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(InstallDumpOnFailure());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST_F(DumpOnFailureTest, FragmentationWritesADumpAndAReport) {
  ASSERT_EQ(::setenv("REALM_SHADOW_DUMP_DIR", dir_.c_str(), 1), 0);
  ASSERT_EQ(::setenv("REALM_SHADOW_DUMP_LIMIT", "2", 1), 0);
  ASSERT_TRUE(InstallDumpOnFailure());
  realm_shadow_memory* m = Fragmented();

  ::testing::internal::CaptureStderr();
  realm_shadow_allocation_failed(m, kInst + 100, 128 * kKiB, 256);
  const std::string report = ::testing::internal::GetCapturedStderr();

  const std::string path = Path(kFb, 1);
  ASSERT_TRUE(fs::exists(path)) << report;
  EXPECT_TRUE(ContainsText(report,
                           "allocation failed in memory 0x1e00000000000000 "
                           "(framebuffer \"GPU0 FB\""));
  // The memory's figures as the report prints them (render/report.h), then
  // the failure as the report lists it (render/failure_report.h).
  EXPECT_TRUE(ContainsText(report,
                           "\n  capacity            1 MiB (1048576 B)\n"
                           "  used                512 KiB (524288 B) in 8 "
                           "allocation(s); peak 512 KiB (524288 B)\n"
                           "  total free          512 KiB (524288 B)\n"
                           "  largest hole        64 KiB (65536 B)\n"
                           "  holes               8; fragmentation 87.5% (1 - "
                           "largest hole / total free)\n"));
  EXPECT_TRUE(
      ContainsText(report,
                   "  failure\n    instance 0x4000000000000064 (instant): "
                   "request 128 KiB (131072 B) align 256\n"));
  EXPECT_TRUE(
      ContainsText(report, "\n      now: fragmentation (total free 512 KiB"));
  // The first allocation is pinned, so the cheapest window is a later one:
  // one 64 KiB allocation between two holes.
  EXPECT_TRUE(
      ContainsText(report,
                   "blockers (fewest bytes): release 1 allocation(s), "
                   "64 KiB (65536 B); window [65536, 262144), placed at "
                   "65536\n"));
  EXPECT_TRUE(
      ContainsText(report,
                   "        instance 0x4000000000000001 [131072, 196608) "
                   "size 64 KiB (65536 B) align 256 live region_instance "
                   "fields=density provenance=stencil.py:42\n"));
  EXPECT_EQ(report.find("instance 0x4000000000000000 [0, "), std::string::npos)
      << "the pinned allocation is not a blocker:\n"
      << report;
  EXPECT_TRUE(ContainsText(report, "\n  dump                " + path + "\n"));
  // The remedies that need no replay, judged on the history the live side
  // holds, and the one command that gives the rest.
  EXPECT_TRUE(ContainsText(report,
                           "\n      1. release         release 1 collectable allocation(s), "
                           "64 KiB (65536 B), window [65536, 262144)"));
  EXPECT_TRUE(ContainsText(report, "\n  more remedies       realm-shadow explain " + path +
                                       " (capacity, allocator: a replay of the history)\n"));

  DumpFile dump;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(path, &dump, &error)) << error;
  EXPECT_EQ(dump.source, "tracker");
  ASSERT_EQ(dump.memories.size(), 1u);
  const Snapshot& s = dump.memories[0];
  EXPECT_EQ(s.memory_id, kFb);
  EXPECT_EQ(s.allocations.size(), 8u);
  ASSERT_FALSE(s.failures.empty());
  EXPECT_EQ(s.failures.back().instance, kInst + 100);
  EXPECT_EQ(s.failures.back().size, 128 * kKiB);
  ASSERT_EQ(s.identities.size(), 1u);
  EXPECT_EQ(s.identities[0].attributes[1].second, "stencil.py:42");

  // The limit: a second dump, then reports without dumps.
  ::testing::internal::CaptureStderr();
  realm_shadow_allocation_failed(m, kInst + 101, 128 * kKiB, 256);
  realm_shadow_allocation_failed(m, kInst + 102, 128 * kKiB, 256);
  const std::string more = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(fs::exists(Path(kFb, 2)));
  EXPECT_FALSE(fs::exists(Path(kFb, 3)));
  EXPECT_TRUE(
      ContainsText(more, "not written: REALM_SHADOW_DUMP_LIMIT reached"));
  // Nothing but the dumps in the directory: no temporaries.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 2u);
}

TEST_F(DumpOnFailureTest, ExhaustionAndEventualFailure) {
  ASSERT_EQ(::setenv("REALM_SHADOW_DUMP_DIR", dir_.c_str(), 1), 0);
  ASSERT_TRUE(InstallDumpOnFailure());
  realm_shadow_memory* m =
      RegisterMemory(kSys, MemoryKind::kSystem, 256 * kKiB, "sysmem", 0);
  realm_shadow_allocated(m, kInst + 1, 0, 200 * kKiB, 64);
  realm_shadow_deferred(m, kInst + 2, 100 * kKiB, 64, REALM_SHADOW_NO_OFFSET);
  ::testing::internal::CaptureStderr();
  realm_shadow_deferred_failed(m, kInst + 2);
  const std::string report = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(ContainsText(report,
                           "instance 0x4000000000000002 (deferred, failed "
                           "later): request 100 KiB (102400 B) align 64\n"));
  EXPECT_TRUE(
      ContainsText(report, "now: exhaustion (total free 56 KiB (57344 B)"));
  EXPECT_TRUE(
      ContainsText(report, "release 1 allocation(s), 200 KiB (204800 B)"));
  EXPECT_TRUE(fs::exists(Path(kSys, 1))) << report;
}

TEST_F(DumpOnFailureTest, MissingDirectoryIsReportedNotFatal) {
  const std::string missing = dir_ + "/no/such";
  ASSERT_EQ(::setenv("REALM_SHADOW_DUMP_DIR", missing.c_str(), 1), 0);
  ASSERT_TRUE(InstallDumpOnFailure());
  realm_shadow_memory* m = Fragmented();
  ::testing::internal::CaptureStderr();
  realm_shadow_allocation_failed(m, kInst + 100, 128 * kKiB, 256);
  const std::string report = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(ContainsText(report, "now: fragmentation"));
  EXPECT_TRUE(ContainsText(report, "\n  dump                not written: "));
}

TEST_F(DumpOnFailureTest, ReportForAnUnknownInstance) {
  Snapshot s;
  s.memory_id = kFb;
  s.kind = MemoryKind::kFramebuffer;
  s.capacity = 1024;
  const std::string report = FormatFailureReport(s, 77);
  EXPECT_TRUE(ContainsText(report,
                           "  failure\n    instance 0x4d: not among the "
                           "picture's recent failures (size unknown)\n"));
  EXPECT_EQ(report.find("now:"), std::string::npos) << report;
}

TEST_F(DumpOnFailureTest, DumpMemoryStateAndAllMemories) {
  realm_shadow_memory* fb = Fragmented();
  realm_shadow_memory* sys =
      RegisterMemory(kSys, MemoryKind::kSystem, 256 * kKiB, "sysmem", 0);
  realm_shadow_allocated(sys, kInst + 50, 4096, 100, 8);
  (void)fb;

  std::string error;
  const std::string one = dir_ + "/one.rsd";
  ASSERT_TRUE(testing::DumpMemoryStateTo(kSys, one, &error)) << error;
  DumpFile dump;
  ASSERT_TRUE(testing::ReadDumpTo(one, &dump, &error)) << error;
  EXPECT_EQ(dump.source, "tracker");
  EXPECT_EQ(dump.node, Options().node);
  EXPECT_GT(dump.created_unix_ns, 1600000000ull * 1000000000ull);
  ASSERT_EQ(dump.memories.size(), 1u);
  EXPECT_EQ(dump.memories[0].name, "sysmem");
  ASSERT_EQ(dump.memories[0].allocations.size(), 1u);
  EXPECT_EQ(dump.memories[0].allocations[0].offset, 4096u);
  EXPECT_EQ(dump.memories[0].allocations[0].size, 100u);

  EXPECT_FALSE(testing::DumpMemoryStateTo(0x1234, dir_ + "/none.rsd", &error));
  EXPECT_TRUE(ContainsText(error, "memory 0x1234 is not registered"));
  EXPECT_FALSE(fs::exists(dir_ + "/none.rsd"));

  const std::string all = dir_ + "/all.rsd";
  ASSERT_EQ(realm_shadow_dump_all_memories(all.c_str()), 0);
  ASSERT_TRUE(testing::ReadDumpTo(all, &dump, &error)) << error;
  ASSERT_EQ(dump.memories.size(), 2u);
  EXPECT_EQ(dump.memories[0].memory_id, kFb);
  EXPECT_EQ(dump.memories[1].memory_id, kSys);
  EXPECT_EQ(dump.memories[0].allocations.size(), 8u);

  EXPECT_EQ(realm_shadow_dump_memory_state(kFb, (dir_ + "/fb.rsd").c_str()), 0);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(realm_shadow_dump_memory_state(kFb, "/nonexistent-dir/x.rsd"), -1);
  EXPECT_EQ(realm_shadow_dump_memory_state(kFb, nullptr), -1);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(ContainsText(err, "/nonexistent-dir/x.rsd"));
}

}  // namespace
}  // namespace realm_shadow
