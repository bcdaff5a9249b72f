// realm-shadow compare: a tracked dump against the log's picture of the same
// moment.  Every fact the log states must agree; what the log cannot state
// (redistricted pieces' sizes, capacity without machine=1) is named.
#include "realm_shadow/ingest/compare.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "realm_shadow/ingest/realm_log.h"
#include "tests/common/dump_io.h"
#include "tests/common/temp_dir.h"

namespace realm_shadow {
namespace {

constexpr uint64_t kMem = 0x1e00000000000000ull;

Allocation Alloc(uint64_t instance, uint64_t offset, uint64_t size) {
  Allocation a;
  a.instance = instance;
  a.offset = offset;
  a.size = size;
  return a;
}

Snapshot Memory(std::vector<Allocation> allocations, uint64_t capacity = 4096) {
  Snapshot s;
  s.memory_id = kMem;
  s.kind = MemoryKind::kSystem;
  s.capacity = capacity;
  s.allocations = std::move(allocations);
  return s;
}

DumpFile One(Snapshot s) {
  DumpFile d;
  d.memories.push_back(std::move(s));
  return d;
}

// The log's identity for a piece whose size is only bounded.
void MarkBounded(Snapshot* log, size_t index) {
  Identity id;
  id.id = 1;
  id.attributes.emplace_back(kSizeAttribute, kSizeUpperBound);
  log->identities.push_back(id);
  log->allocations[index].identity = 1;
}

TEST(Compare, EqualPicturesAgree) {
  Snapshot s = Memory({Alloc(1, 0, 256), Alloc(2, 512, 256)});
  const auto rows = CompareDumps(One(s), One(s));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].agreement, Agreement::kAgree);
  EXPECT_EQ(rows[0].same_exact, 2u);
  EXPECT_EQ(rows[0].free_shadow, 4096u - 512u);
  EXPECT_EQ(rows[0].hole_shadow, 4096u - 768u);
  EXPECT_TRUE(rows[0].reasons.empty());
}

TEST(Compare, AnOffsetOrSizeTheLogStatesMustMatch) {
  Snapshot shadow = Memory({Alloc(1, 0, 256), Alloc(2, 512, 256)});
  Snapshot log = Memory({Alloc(1, 0, 256), Alloc(2, 768, 256)});
  auto rows = CompareDumps(One(shadow), One(log));
  EXPECT_EQ(rows[0].agreement, Agreement::kDiffer);
  EXPECT_EQ(rows[0].mismatched, 1u);
  log = Memory({Alloc(1, 0, 256), Alloc(2, 512, 128)});
  rows = CompareDumps(One(shadow), One(log));
  EXPECT_EQ(rows[0].agreement, Agreement::kDiffer);
  log = Memory({Alloc(1, 0, 256)});
  rows = CompareDumps(One(shadow), One(log));
  EXPECT_EQ(rows[0].only_shadow, 1u);
  EXPECT_EQ(rows[0].agreement, Agreement::kDiffer);
}

TEST(Compare, ABoundedPieceAgreesWithinItsBoundAndNamesWhy) {
  // Realm redistricted [0, 300) into 100 + 200; the log knows only that the
  // second piece ends at or before 300 (it gives it 200 here, and the first
  // piece 100: the next piece's offset), then a third piece ... use a
  // single bounded piece: the shadow has 100 B, the log's bound is 300 B.
  Snapshot shadow = Memory({Alloc(5, 0, 100), Alloc(6, 1024, 256)});
  Snapshot log = Memory({Alloc(5, 0, 300), Alloc(6, 1024, 256)});
  MarkBounded(&log, 0);
  auto rows = CompareDumps(One(shadow), One(log));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].agreement, Agreement::kAgreeWithinLog);
  EXPECT_EQ(rows[0].same_bounded, 1u);
  EXPECT_TRUE(rows[0].log_lower_bound);
  ASSERT_FALSE(rows[0].reasons.empty());
  EXPECT_NE(rows[0].reasons[0].find("upper bound"), std::string::npos);
  // A shadow size beyond the bound is a real difference.
  shadow.allocations[0].size = 400;
  rows = CompareDumps(One(shadow), One(log));
  EXPECT_EQ(rows[0].agreement, Agreement::kDiffer);
  EXPECT_EQ(rows[0].mismatched, 1u);
  EXPECT_EQ(rows[0].same_bounded, 0u);
}

TEST(Compare, FreeSpaceIsNotComparedWithoutTheLogsCapacity) {
  Snapshot shadow = Memory({Alloc(1, 0, 256)});
  Snapshot log = Memory({Alloc(1, 0, 256)});
  log.capacity = 0;
  log.capacity_known = false;
  auto rows = CompareDumps(One(shadow), One(log));
  EXPECT_EQ(rows[0].agreement, Agreement::kAgreeWithinLog);
  EXPECT_FALSE(rows[0].free_compared);
}

TEST(Compare, StatesPendingRequestsAndFailuresAreFacts) {
  Snapshot shadow = Memory({Alloc(1, 0, 256)});
  Snapshot log = shadow;
  log.allocations[0].state = AllocationState::kReleasePending;
  EXPECT_EQ(CompareDumps(One(shadow), One(log))[0].agreement,
            Agreement::kDiffer);
  // Pending and ready are one state for the log.
  shadow.allocations[0].state = AllocationState::kReleaseReady;
  EXPECT_EQ(CompareDumps(One(shadow), One(log))[0].agreement,
            Agreement::kAgree);

  Snapshot a = Memory({});
  Snapshot b = Memory({});
  PendingRequest p;
  p.instance = 9;
  a.pending.push_back(p);
  auto rows = CompareDumps(One(a), One(b));
  EXPECT_EQ(rows[0].agreement, Agreement::kDiffer);
  EXPECT_EQ(rows[0].pending_differs, 1u);
  b.pending.push_back(p);
  EXPECT_EQ(CompareDumps(One(a), One(b))[0].agreement, Agreement::kAgree);

  Failure f;
  f.instance = 4;
  f.size = 735252;
  a.failures.push_back(f);
  EXPECT_EQ(CompareDumps(One(a), One(b))[0].agreement, Agreement::kDiffer);
  Failure g = f;
  g.size = 0;  // a failed redistricted piece: size not in the log
  b.failures.push_back(g);
  EXPECT_EQ(CompareDumps(One(a), One(b))[0].agreement,
            Agreement::kAgreeWithinLog);
  b.failures[0].size = 100;
  EXPECT_EQ(CompareDumps(One(a), One(b))[0].agreement, Agreement::kDiffer);
}

// A redistrict waiting on its precondition: Realm holds the old instance
// release pending; the log names only the pieces (realm_log.h), marked
// waits_on, and shows the old instance live.  Within the log, once per
// marked piece; without the marking it is a difference.
TEST(Compare, AnUnnamedWaitingRedistrictsOldInstanceIsWithinTheLog) {
  Snapshot shadow = Memory({Alloc(1, 0, 256)});
  shadow.allocations[0].state = AllocationState::kReleasePending;
  Snapshot log = Memory({Alloc(1, 0, 256)});
  PendingRequest piece;
  piece.instance = 2;
  shadow.pending.push_back(piece);
  log.pending.push_back(piece);
  EXPECT_EQ(CompareDumps(One(shadow), One(log))[0].agreement,
            Agreement::kDiffer);
  Identity waits;
  waits.id = 1;
  waits.attributes.emplace_back(kWaitsOnAttribute, kWaitsOnUnnamedRedistrict);
  log.identities.push_back(waits);
  log.pending[0].identity = 1;
  const auto rows = CompareDumps(One(shadow), One(log));
  EXPECT_EQ(rows[0].agreement, Agreement::kAgreeWithinLog);
  EXPECT_EQ(rows[0].state_differs, 0u);
  // One piece, one old instance: a second release pending shown live is a
  // difference.
  shadow.allocations.push_back(Alloc(3, 512, 256));
  shadow.allocations[1].state = AllocationState::kReleasePending;
  log.allocations.push_back(Alloc(3, 512, 256));
  EXPECT_EQ(CompareDumps(One(shadow), One(log))[0].agreement,
            Agreement::kDiffer);
}

TEST(Compare, InstancesInFlightDuringTheSnapshotAreExplainedNotDifferences) {
  Snapshot shadow = Memory({Alloc(1, 0, 256)});
  Snapshot log = Memory({Alloc(1, 0, 256), Alloc(2, 256, 256)});
  DumpFile log_dump = One(log);
  log_dump.notes.push_back("0x1e00000000000000: " + std::string(kInFlightNote) +
                           " (log lines 5-7, between ...): 0x2");
  auto rows = CompareDumps(One(shadow), log_dump);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].agreement, Agreement::kAgreeWithinLog);
  EXPECT_EQ(rows[0].in_flight, 1u);
  EXPECT_EQ(rows[0].only_log, 0u);
  // Another memory's note, or another instance: a real difference.
  log_dump.notes.back() = "0x1e00000000000001: " + std::string(kInFlightNote) +
                          " (...): 0x2";
  EXPECT_EQ(CompareDumps(One(shadow), log_dump)[0].agreement,
            Agreement::kDiffer);
  log_dump.notes.back() = "0x1e00000000000000: " + std::string(kInFlightNote) +
                          " (...): 0x3";
  EXPECT_EQ(CompareDumps(One(shadow), log_dump)[0].agreement,
            Agreement::kDiffer);
}

TEST(Compare, AMemoryInOneDumpOnlyIsMissing) {
  DumpFile shadow = One(Memory({Alloc(1, 0, 256)}));
  DumpFile log;
  auto rows = CompareDumps(shadow, log);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].agreement, Agreement::kMissing);
  rows = CompareDumps(log, shadow);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].agreement, Agreement::kMissing);
}

TEST(Compare, TableAndTsvCarryEveryColumn) {
  Snapshot s = Memory({Alloc(1, 0, 256)});
  const auto rows = CompareDumps(One(s), One(s));
  const std::string table = FormatComparisonTable(rows, "circuit", "d1.rsd");
  EXPECT_NE(table.find("live shadow/log"), std::string::npos) << table;
  EXPECT_NE(table.find("circuit"), std::string::npos);
  EXPECT_NE(table.find("0x1e00000000000000"), std::string::npos);
  EXPECT_NE(table.find("agree"), std::string::npos);
  const std::string tsv = FormatComparisonTsv(rows, "circuit", "d1.rsd");
  size_t tabs = 0;
  for (char c : tsv) tabs += c == '\t';
  EXPECT_EQ(tabs, 10u) << tsv;
  const std::string header = ComparisonTsvHeader();
  EXPECT_EQ(std::count(header.begin(), header.end(), '\t'), 10);
}

// ---- as a process: exit status 0 when they agree, 3 when they differ ------

int RunCommand(const std::string& args, std::string* output) {
  const std::string command = "'" REALM_SHADOW_CLI "' " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    output->append(buffer, n);
  const int raw = pclose(pipe);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128;
}

TEST(CompareCli, ExitStatusSaysWhetherTheyAgree) {
  testing::TempDir dir("realm-shadow-compare");
  std::string error;
  const std::string a = dir / "a.rsd", b = dir / "b.rsd";
  ASSERT_TRUE(testing::WriteDumpTo(a, One(Memory({Alloc(1, 0, 256)})), &error));
  ASSERT_TRUE(testing::WriteDumpTo(b, One(Memory({Alloc(1, 256, 256)})), &error));
  std::string out;
  EXPECT_EQ(RunCommand("compare '" + a + "' '" + a + "' --run r --dump d", &out), 0)
      << out;
  EXPECT_NE(out.find("agree"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(RunCommand("compare '" + a + "' '" + b + "' --tsv", &out), 3) << out;
  EXPECT_NE(out.find("DIFFER"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(RunCommand("compare '" + a + "'", &out), 2) << out;
  out.clear();
  EXPECT_EQ(RunCommand("compare '" + a + "' '" + (dir / "none.rsd") + "'", &out), 1)
      << out;
  EXPECT_NE(out.find("none.rsd"), std::string::npos) << out;
}

TEST(CompareCli, IngestCutAtDumpNeedsOneLog) {
  testing::TempDir dir("realm-shadow-compare");
  std::string error;
  const std::string a = dir / "a.rsd";
  ASSERT_TRUE(testing::WriteDumpTo(a, One(Memory({})), &error));
  std::string out;
  EXPECT_EQ(RunCommand("ingest-realm-log x.log y.log --cut-at-dump '" + a +
                    "' -o '" + (dir / "o.rsd") + "'",
                &out),
            2)
      << out;
}

}  // namespace
}  // namespace realm_shadow
