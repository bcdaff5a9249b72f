// Pools: the backing is one allocation of the memory and a reservation;
// sub-allocations nest inside it; unused pool space is counted apart from
// the memory's holes; dumps carry the contents in their pools section.
#include "legion_glue/pools.h"

#include <gtest/gtest.h>

#include "legion_glue/mapper.h"
#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/format/dump.h"
#include "tests/common/temp_dir.h"
#include "tests/legion_glue/glue_test.h"
#include "realm_shadow/recorder/identity_table.h"
#include "realm_shadow/live/dump.h"

namespace realm_shadow {
namespace legion {
namespace {

constexpr uint64_t kFb = 0x1e00000000000001ull;
constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kBacking = 0x4000000000400007ull;

class PoolsTest : public testing::GlueTest {
 protected:
  PoolsTest() : GlueTest(kFb, MemoryKind::kFramebuffer, 256 * kMiB, "fb") {}
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(GlueTest::SetUp());
    // [0,32) an array | [32,96) the pool's backing | [96,256) free
    realm_shadow_allocated(m_, 1, 0, 32 * kMiB, 256);
    realm_shadow_allocated(m_, kBacking, 32 * kMiB, 64 * kMiB, 256);
    ASSERT_TRUE(Pools().DeclarePool(m_, kBacking, kBacking, 32 * kMiB,
                                    64 * kMiB));
    // 12 sub-allocations: 10 x 3 MiB then 2 x 5 MiB = 40 MiB.
    uint64_t at = 0;
    for (uint64_t i = 0; i < 12; ++i) {
      const uint64_t size = (i < 10 ? 3 : 5) * kMiB;
      ASSERT_TRUE(Pools().AddSubAllocation(kBacking, 100 + i, at, size));
      at += size;
    }
  }
};

TEST_F(PoolsTest, PoolIsAReservationWithTheBackingsRange) {
  const Snapshot s = TakeSnapshot(m_);
  ASSERT_EQ(s.reservations.size(), 1u);
  EXPECT_EQ(s.reservations[0].id, kBacking);
  EXPECT_EQ(s.reservations[0].offset, 32 * kMiB);
  EXPECT_EQ(s.reservations[0].size, 64 * kMiB);
  ASSERT_EQ(s.allocations.size(), 2u);
  EXPECT_EQ(s.allocations[1].kind, AllocationKind::kPoolBacking);
  EXPECT_TRUE(s.allocations[1].pinned());
}

TEST_F(PoolsTest, UnusedPoolSpaceIsNotAHoleOfTheMemory) {
  const Snapshot s = TakeSnapshot(m_);
  const FreeSummary summary = Summarize(s);
  EXPECT_EQ(summary.total_free, 160 * kMiB);  // only [96,256)
  EXPECT_EQ(summary.hole_count, 1u);

  const std::vector<PoolUsage> usage =
      AnalyzePools(s, Pools().PoolsIn(kFb));
  ASSERT_EQ(usage.size(), 1u);
  const PoolUsage& u = usage[0];
  EXPECT_TRUE(u.backing_live);
  EXPECT_TRUE(u.reserved);
  EXPECT_EQ(u.size, 64 * kMiB);
  EXPECT_EQ(u.used, 40 * kMiB);
  EXPECT_EQ(u.suballocation_count, 12u);
  EXPECT_EQ(u.unused, 24 * kMiB);
  EXPECT_EQ(u.largest_unused, 24 * kMiB);
  EXPECT_EQ(FormatPoolUsage(u),
            "pool 0x4000000000400007: 64 MiB, 40 MiB used in 12 "
            "sub-allocations, 24 MiB unused (not a hole of the memory)");
  const PoolTotals t = TotalPools(usage);
  EXPECT_EQ(t.pools, 1u);
  EXPECT_EQ(t.unused, 24 * kMiB);
}

TEST_F(PoolsTest, FreeingASubAllocationLeavesAHoleInsideThePoolOnly) {
  ASSERT_TRUE(Pools().RemoveSubAllocation(kBacking, 101));  // [3,6) MiB
  EXPECT_FALSE(Pools().RemoveSubAllocation(kBacking, 101));
  const Snapshot s = TakeSnapshot(m_);
  const PoolUsage u = AnalyzePools(s, Pools().PoolsIn(kFb)).at(0);
  EXPECT_EQ(u.used, 37 * kMiB);
  EXPECT_EQ(u.suballocation_count, 11u);
  EXPECT_EQ(u.largest_unused, 24 * kMiB);  // the tail, still
  EXPECT_EQ(Summarize(s).hole_count, 1u);  // the memory did not change
}

TEST_F(PoolsTest, BadSubAllocationsAreRefused) {
  EXPECT_FALSE(Pools().AddSubAllocation(kBacking, 100, 60 * kMiB, kMiB));  // dup
  EXPECT_FALSE(Pools().AddSubAllocation(kBacking, 500, 63 * kMiB, 2 * kMiB));
  EXPECT_FALSE(Pools().AddSubAllocation(kBacking, 501, UINT64_MAX, 2));
  EXPECT_FALSE(Pools().AddSubAllocation(0xdead, 502, 0, 1));  // no such pool
  EXPECT_FALSE(Pools().DeclarePool(m_, kBacking, kBacking, 0, 1));  // twice
  EXPECT_FALSE(Pools().EndPool(0xdead));
  PoolRecord r;
  ASSERT_TRUE(Pools().Find(kBacking, &r));
  EXPECT_EQ(r.suballocations.size(), 12u);
}

TEST_F(PoolsTest, AnalysisCountsOverlapsAndOverrunsFromAForeignTable) {
  PoolRecord r;
  r.pool = 9;
  r.backing_instance = kBacking;  // range from the snapshot
  r.suballocations = {{1, 0, 10 * kMiB, 0},
                      {2, 5 * kMiB, 10 * kMiB, 0},   // overlaps the first
                      {3, 60 * kMiB, 10 * kMiB, 0}}; // past the end
  const PoolUsage u = AnalyzePools(TakeSnapshot(m_), {r}).at(0);
  EXPECT_EQ(u.offset, 32 * kMiB);
  EXPECT_EQ(u.size, 64 * kMiB);
  EXPECT_EQ(u.used, 19 * kMiB);  // [0,15) + [60,64)
  EXPECT_EQ(u.overlapping, 1u);
  EXPECT_EQ(u.out_of_range, 1u);
  EXPECT_EQ(u.largest_unused, 45 * kMiB);
  EXPECT_FALSE(u.reserved);  // reservation id is kBacking, not 9
  EXPECT_NE(FormatPoolUsage(u).find("1 past the pool's end"), std::string::npos);
  // A record of another memory is skipped.
  r.memory_id = 0x1e00000000000005ull;
  EXPECT_TRUE(AnalyzePools(TakeSnapshot(m_), {r}).empty());
}

// A dump of the memory carries its pools, sub-allocations and all, in the
// dump's pools section; reading it back needs no table.
TEST_F(PoolsTest, DumpsCarryThePoolsSection) {
  testing::TempDir dir;
  ASSERT_TRUE(DumpMemoryState(kFb, dir / "a.rsd").ok());
  Pools().Clear();  // the reader must not need the table
  const absl::StatusOr<DumpFile> dump = ReadDump(dir / "a.rsd");
  ASSERT_TRUE(dump.ok()) << dump.status();
  ASSERT_EQ(dump->pools.size(), 1u);
  const Snapshot& s = dump->memories.at(0);
  const std::vector<PoolRecord> read = PoolsFromDump(*dump, s);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].pool, kBacking);
  EXPECT_EQ(read[0].memory_id, kFb);
  EXPECT_EQ(read[0].offset, 32 * kMiB);
  EXPECT_TRUE(read[0].suballocations_complete);
  ASSERT_EQ(read[0].suballocations.size(), 12u);
  EXPECT_EQ(read[0].suballocations[11].instance, 111u);
  EXPECT_EQ(read[0].suballocations[11].size, 5 * kMiB);
  const PoolUsage u = AnalyzePools(s, read).at(0);
  EXPECT_EQ(u.used, 40 * kMiB);
  EXPECT_EQ(u.unused, 24 * kMiB);
}

// Long lists travel whole (a version 1 dump listed only the first 64).
TEST_F(PoolsTest, LongListsTravelWhole) {
  uint64_t at = 40 * kMiB;
  for (uint64_t i = 0; i < 100; ++i, at += 64 * 1024)
    ASSERT_TRUE(Pools().AddSubAllocation(kBacking, 1000 + i, at, 64 * 1024));
  testing::TempDir dir;
  ASSERT_TRUE(DumpMemoryState(kFb, dir / "a.rsd").ok());
  const absl::StatusOr<DumpFile> dump = ReadDump(dir / "a.rsd");
  ASSERT_TRUE(dump.ok()) << dump.status();
  const std::vector<PoolRecord> read = PoolsFromDump(*dump, dump->memories[0]);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_TRUE(read[0].suballocations_complete);
  EXPECT_EQ(read[0].suballocations.size(), 112u);
  const PoolUsage u = AnalyzePools(dump->memories[0], read).at(0);
  EXPECT_EQ(u.suballocation_count, 112u);
  EXPECT_EQ(u.used, 40 * kMiB + 100 * 64 * 1024);
  EXPECT_EQ(u.largest_unused, 24 * kMiB - 100 * 64 * 1024);
}

// Dumping interns nothing: pools used to publish their contents as a fresh
// identity per pool per dump (one more table entry each time the contents
// had changed), which the identity table kept for ever.
TEST_F(PoolsTest, DumpingInternsNoIdentity) {
  testing::TempDir dir;
  const size_t before = IdentityCount();
  for (uint64_t i = 0; i < 20; ++i) {
    ASSERT_TRUE(Pools().AddSubAllocation(kBacking, 5000 + i, 40 * kMiB + i * 4096, 4096));
    ASSERT_TRUE(DumpMemoryState(kFb, dir / "a.rsd").ok());
    ASSERT_TRUE(legion::dump_memory_state(kFb, (dir / "b.rsd").c_str()));
  }
  EXPECT_EQ(IdentityCount(), before);
}

TEST_F(PoolsTest, EndingThePoolEndsTheReservation) {
  ASSERT_TRUE(Pools().EndPool(kBacking));
  EXPECT_TRUE(TakeSnapshot(m_).reservations.empty());
  EXPECT_TRUE(Pools().PoolsIn(kFb).empty());
  EXPECT_EQ(TakeSnapshot(m_).counters.anomalies[static_cast<int>(
                AnomalyKind::kUnknownReservation)], 0u);
}

// A version 1 dump carried a pool's contents as its backing's identity
// strings: they still read, a malformed entry marks the list incomplete, and
// a number is the whole text or nothing ("-1" once read as 2^64 - 1, "16k"
// as 16).
TEST(PoolsFromDumpTest, Version1IdentityStringsStillRead) {
  DumpFile dump;
  dump.version = 1;
  dump.memories.emplace_back();
  Snapshot& s = dump.memories.back();
  s.memory_id = kFb;
  Allocation a;
  a.instance = 5;
  a.offset = 0;
  a.size = 1024;
  a.identity = 1;
  a.kind = AllocationKind::kPoolBacking;
  s.allocations.push_back(a);
  Identity id;
  id.id = 1;
  id.kind = AllocationKind::kPoolBacking;
  id.attributes = {{"pool", "0x5"}, {"pool.suballocations", "2"},
                   {"pool.list", "0x9:0:100;0xa:200:50"}};
  s.identities.push_back(id);
  std::vector<PoolRecord> read = PoolsFromDump(dump, s);
  ASSERT_EQ(read.size(), 1u);
  ASSERT_EQ(read[0].suballocations.size(), 2u);
  EXPECT_EQ(read[0].suballocations[1].offset, 200u);
  EXPECT_TRUE(read[0].suballocations_complete);
  for (const char* list : {"0x9:0:100;garbage", "0x9:0:100;0xa:-1:50",
                           "0x9:0:100;0xa:16k:50", "0x9:0:100;0xa:1:2:3"}) {
    s.identities[0].attributes[2].second = list;
    read = PoolsFromDump(dump, s);
    ASSERT_EQ(read.size(), 1u) << list;
    EXPECT_EQ(read[0].suballocations.size(), 1u) << list;
    EXPECT_FALSE(read[0].suballocations_complete) << list;
  }
  // An identity without a pool id is not a pool of ours.
  s.identities[0].attributes = {{"pool", "zz"}};
  EXPECT_TRUE(PoolsFromDump(dump, s).empty());
  // A version 2 dump's pools come from its section, not from identities.
  s.identities[0].attributes = id.attributes;
  dump.version = 2;
  EXPECT_TRUE(PoolsFromDump(dump, s).empty());
}

}  // namespace
}  // namespace legion
}  // namespace realm_shadow
