// The mapper side without Legion: dump_memory_state writes a dump that reads
// back with the memory's allocations, pools and identities; the failure
// report names the blockers and the pools.
#include "legion_glue/mapper.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "legion_glue/identity.h"
#include "legion_glue/pools.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/live/snapshots.h"
#include "tests/common/contains_text.h"
#include "tests/common/dump_io.h"
#include "tests/common/temp_dir.h"
#include "tests/legion_glue/glue_test.h"

namespace realm_shadow {
namespace legion {
namespace {

using testing::ContainsText;

constexpr uint64_t kRegdma = 0x1e00000000000002ull;
constexpr uint64_t kA = 0x4000000000000001ull;
constexpr uint64_t kB = 0x4000000000000002ull;
constexpr uint64_t kC = 0x4000000000000003ull;

class MapperTest : public testing::GlueTest {
 protected:
  // [0,256) A valid | [256,384) B collectable | [384,512) free |
  // [512,768) C collectable | [768,1024) free: 384 B free, largest 256.
  MapperTest()
      : GlueTest(1024, "sysmem",
                 {{kA, 0, 256, 32}, {kB, 256, 128, 32}, {kC, 512, 256, 32}}) {}
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(GlueTest::SetUp());
    LegionInstanceDescription d;
    d.fields = "velocity";
    d.creator = "task stencil (UID 812)";
    const uint32_t id = InternLegionIdentity(d);
    AttachIdentity(m_, kA, id, GcState::kValid);
    AttachIdentity(m_, kB, id, GcState::kCollectable);
    AttachIdentity(m_, kC, id, GcState::kCollectable);
  }
  void TearDown() override {
    GlueTest::TearDown();
    unsetenv("REALM_SHADOW_DUMP_DIR");
  }
  realm_shadow::testing::TempDir temp_{"legion_glue_mapper"};
  std::string dir_ = temp_.path();
};

TEST_F(MapperTest, DumpMemoryStateWritesWhatTheMemoryHolds) {
  realm_shadow_allocated(m_, 9, 384, 128, 32);
  ASSERT_TRUE(Pools().DeclarePool(m_, 9, 9, 384, 128));
  ASSERT_TRUE(Pools().AddSubAllocation(9, 90, 0, 100));
  const std::string path = dir_ + "/one.rsd";
  ASSERT_TRUE(dump_memory_state(kSys, path.c_str()));
  DumpFile file;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(path, &file, &error)) << error;
  ASSERT_EQ(file.memories.size(), 1u);
  const Snapshot& s = file.memories[0];
  EXPECT_EQ(s.memory_id, kSys);
  ASSERT_EQ(s.allocations.size(), 4u);
  EXPECT_TRUE(s.allocations[0].pinned());
  EXPECT_FALSE(s.allocations[1].pinned());
  EXPECT_EQ(s.allocations[2].instance, 9u);  // the pool backing at 384
  EXPECT_EQ(s.allocations[2].kind, AllocationKind::kPoolBacking);
  // The pool's contents are in the dump's pools section.
  const std::vector<PoolRecord> pools = PoolsFromDump(file, s);
  ASSERT_EQ(pools.size(), 1u);
  ASSERT_EQ(pools[0].suballocations.size(), 1u);
  EXPECT_EQ(pools[0].suballocations[0].size, 100u);
}

TEST_F(MapperTest, DumpAllMemoriesWritesEveryMemory) {
  RegisterMemory(kRegdma, MemoryKind::kRegdma, 4096, "regdma",
                 REALM_SHADOW_SERIALIZED);
  const std::string path = dir_ + "/all.rsd";
  ASSERT_TRUE(dump_all_memories(path.c_str()));
  DumpFile file;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(path, &file, &error)) << error;
  ASSERT_EQ(file.memories.size(), 2u);
  EXPECT_EQ(file.memories[0].memory_id, kSys);
  EXPECT_EQ(file.memories[1].memory_id, kRegdma);
}

TEST_F(MapperTest, BadArgumentsFailWithoutAborting) {
  EXPECT_FALSE(dump_memory_state(0x1e000000000000ffull,
                                 (dir_ + "/x.rsd").c_str()));
  EXPECT_FALSE(dump_memory_state(kSys, ""));
  EXPECT_FALSE(dump_memory_state(kSys, nullptr));
  EXPECT_FALSE(dump_memory_state(kSys, "/nonexistent-dir/x/y.rsd"));
  EXPECT_FALSE(dump_all_memories(nullptr));
  EXPECT_TRUE(
      ContainsText(failure_report(0x1e000000000000ffull), "not tracked"));
}

TEST_F(MapperTest, FailureReportNamesTheRecordedFailureAndItsBlocker) {
  // 300 B: 384 B free in total, no hole holds it.  Releasing B opens only
  // [256,512); releasing C opens [384,1024).  A is valid.
  realm_shadow_allocation_failed(m_, 0x4000000000000042ull, 300, 32);
  const std::string report = failure_report(kSys);
  EXPECT_TRUE(ContainsText(report, "instance 0x4000000000000042"));
  EXPECT_TRUE(ContainsText(report, "now: fragmentation"));
  EXPECT_TRUE(ContainsText(report, "instance 0x4000000000000003 [512, "));
  EXPECT_EQ(report.find("instance 0x4000000000000001 ["), std::string::npos)
      << report;  // valid: never a blocker
  EXPECT_TRUE(ContainsText(report, "creator=task stencil (UID 812)"));
}

TEST_F(MapperTest, FailureReportJudgesAFootprintWhenNoFailureWasSeen) {
  const std::string report = failure_report(kSys, 300, 32);
  EXPECT_TRUE(ContainsText(report, "request 300 B align 32"));
  EXPECT_TRUE(ContainsText(report, "now: fragmentation"));
  const std::string too_big = failure_report(kSys, 4096, 32);
  EXPECT_TRUE(ContainsText(too_big, "now: exhaustion"));
}

TEST_F(MapperTest, ReportingAFailedCreationDumpsIntoTheDumpDir) {
  setenv("REALM_SHADOW_DUMP_DIR", dir_.c_str(), 1);
  realm_shadow_allocated(m_, 9, 384, 128, 32);
  ASSERT_TRUE(Pools().DeclarePool(m_, 9, 9, 384, 128));
  ASSERT_TRUE(Pools().AddSubAllocation(9, 90, 0, 100));
  ::testing::internal::CaptureStderr();
  const std::string path = report_failed_instance_creation(
      kSys, 300, "my mapper: region requirement 0 of task t (UID 1)");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path.rfind(dir_ + "/realm-shadow-node", 0), 0u) << path;
  EXPECT_TRUE(ContainsText(err, "my mapper: region requirement 0"));
  EXPECT_TRUE(ContainsText(err, path));
  EXPECT_TRUE(
      ContainsText(err,
                   "pool 0x9: 128 B, 100 B used in 1 sub-allocation, 28 B "
                   "unused (not a hole of the memory)"));
  DumpFile file;
  std::string error;
  EXPECT_TRUE(testing::ReadDumpTo(path, &file, &error)) << error;
}

}  // namespace
}  // namespace legion
}  // namespace realm_shadow
