// Every node's replay into one dump (dump_assembly.h): one log per node and
// the ranks kept apart, what the logs could not tell (capacity, debug-level
// lines) and did not agree on (a truncated log, two logs of one rank, a log
// of another run, Legion Spy lines for instances Realm never logged) as
// notes, never a wrong picture, and Legate's report joined to the
// instances it lists.
#include "realm_shadow/ingest/dump_assembly.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/ingest/realm_log.h"
#include "realm_shadow/render/report.h"
#include "tests/ingest/log_fixtures.h"

namespace realm_shadow {
namespace {

using testing::OnlyMemory;
using testing::AnyNote;
using testing::Ingest;
using testing::kFixtures;
using testing::kPlaced64;
using testing::PrintedIdentity;
using testing::kRuns;
using testing::RankLogs;
using testing::SpyRun;
using testing::ReadFile;
using testing::WriteTemp;

TEST(DumpAssembly, SecondLogOfANodeIsLeftOutWithANote) {
  SKIP_WITHOUT_FIXTURES();
  const std::string log = kFixtures + "/circuit-oom.log";
  IngestSummary summary;
  const absl::StatusOr<DumpFile> ingested =
      IngestRealmLogs({log, log}, IngestOptions{}, &summary);
  ASSERT_TRUE(ingested.ok()) << ingested.status();
  const DumpFile& dump = *ingested;
  EXPECT_EQ(summary.duplicate_logs, 1u);
  ASSERT_EQ(summary.warnings.size(), 1u);
  EXPECT_NE(summary.warnings[0].find("a second log of node 0"),
            std::string::npos)
      << summary.warnings[0];
  // The first log is rebuilt as it is alone.
  ASSERT_EQ(dump.memories.size(), 1u);
  EXPECT_EQ(dump.memories[0].allocations.size(), 48u);
}

// A 2-rank run read together equals each rank read alone, node by node.
TEST(DumpAssembly, RanksTogetherEqualRanksAlone) {
  SKIP_WITHOUT_SPY_FIXTURES();
  for (const SpyRun& run : kRuns) {
    if (run.ranks < 2) continue;
    SCOPED_TRACE(run.name);
    const DumpFile together = Ingest(RankLogs(run));
    for (int r = 0; r < run.ranks; ++r) {
      const DumpFile alone = Ingest({RankLogs(run)[r]});
      std::map<uint64_t, size_t> a, t;
      for (const Snapshot& s : alone.memories)
        if (s.node == static_cast<uint32_t>(r))
          a[s.memory_id] = s.allocations.size();
      for (const Snapshot& s : together.memories)
        if (s.node == static_cast<uint32_t>(r))
          t[s.memory_id] = s.allocations.size();
      EXPECT_EQ(a, t) << "rank " << r;
      // Alone, a rank shows no memory of another node (rank 0's machine
      // dump lists them: named in a note, never an empty memory).
      for (const Snapshot& s : alone.memories)
        EXPECT_EQ(s.node, static_cast<uint32_t>(r));
    }
  }
}

TEST(DumpAssembly, CapacityUnknownWithoutMachineLines) {
  RealmLogReader reader;
  reader.FeedText(
      "[0 - 1] 0.1 {2}{inst}: creating new local instance: 4000000000000000\n"
      "[0 - 1] 0.1 {1}{inst}: instance layout: inst=4000000000000000 "
      "layout=Layout(bytes=64, align=32, fields={0=0+0}, lists=[[]])\n"
      "[0 - 1] 0.1 {1}{inst}: allocation completed: inst=4000000000000000 "
      "offset=128\n");
  DumpFile dump = reader.Dump();
  ASSERT_EQ(dump.memories.size(), 1u);
  EXPECT_FALSE(dump.memories[0].capacity_known);
  ASSERT_EQ(dump.memories[0].allocations.size(), 1u);
  EXPECT_EQ(dump.memories[0].allocations[0].offset, 128u);
  EXPECT_EQ(dump.memories[0].allocations[0].size, 64u);
  bool noted = false;
  for (const std::string& n : dump.notes)
    noted = noted || n.find("capacity unknown") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_NE(FormatMemoryReport(dump.memories[0], ReportOptions{})
                .find("unknown (the log never said)"),
            std::string::npos);
}

// ---- bad input ------------------------------------------------------------

TEST(DumpAssemblyBadInput, LogWithoutDebugLinesMarksPlacementsUnknown) {
  ASSERT_TRUE(std::ifstream(kFixtures + "/circuit-oom.log").good()) << kFixtures;
  std::string kept;
  std::istringstream in(ReadFile(kFixtures + "/circuit-oom.log"));
  for (std::string line; std::getline(in, line);)
    if (line.find("] ") == std::string::npos ||
        line.find("{1}{") == std::string::npos)
      kept += line + "\n";
  IngestSummary summary;
  const DumpFile dump = Ingest({WriteTemp("nodebug.log", kept)}, &summary);
  EXPECT_EQ(summary.logs_without_debug_lines, 1u);
  ASSERT_FALSE(summary.warnings.empty());
  EXPECT_NE(summary.warnings[0].find("-DLegion_OUTPUT_LEVEL=DEBUG"),
            std::string::npos);
  EXPECT_NE(summary.warnings[0].find("-level inst=1"), std::string::npos);
  const Snapshot& s = OnlyMemory(dump);
  EXPECT_FALSE(PlacementsKnown(s));
  EXPECT_EQ(UnplacedUsage(s).count, 48u);
  EXPECT_EQ(UnplacedUsage(s).bytes, 8257536u);  // the 48 instances' sizes
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].size, 735140u);  // from "instance created" after
  const std::string r = FormatMemoryReport(s, ReportOptions{});
  EXPECT_NE(r.find("placements          unknown for 48"), std::string::npos)
      << r;
  EXPECT_EQ(r.find("total free"), std::string::npos) << r;
  EXPECT_NE(r.find("deferred requests   0"), std::string::npos) << r;
}

TEST(DumpAssemblyBadInput, TruncatedRankLogIsNotedAndTheRestRebuilt) {
  SKIP_WITHOUT_SPY_FIXTURES();
  const std::vector<std::string> logs = RankLogs(kRuns[2]);
  const std::string whole = ReadFile(logs[1]);
  const std::string cut = WriteTemp("cut_1.log", whole.substr(0, 700000));
  ASSERT_NE(whole[699999], '\n');  // cut inside a line
  IngestSummary summary;
  const DumpFile dump = Ingest({logs[0], cut}, &summary);
  EXPECT_EQ(summary.truncated_logs, 1u);
  EXPECT_TRUE(AnyNote(dump, "ends in the middle of a line"));
  // Node 0 is rebuilt as with the whole run; node 0's Legion Spy names
  // node 1 instances the cut log never reached.
  const DumpFile full = Ingest(logs);
  EXPECT_EQ(dump.memories[0].allocations.size(),
            full.memories[0].allocations.size());
  EXPECT_GT(summary.spy_remote_unmatched, 0u);
  EXPECT_TRUE(AnyNote(dump, "that node 1's log never names"));
  ASSERT_EQ(dump.memories.size(), 2u);
  EXPECT_GT(dump.memories[1].allocations.size(), 0u);
}

TEST(DumpAssemblyBadInput, LogOfAnotherRunIsNoted) {
  SKIP_WITHOUT_SPY_FIXTURES();
  IngestSummary summary;
  const DumpFile dump =
      Ingest({RankLogs(kRuns[2])[0], RankLogs(kRuns[1])[1]}, &summary);
  EXPECT_GE(summary.run_mismatches, 1u);
  EXPECT_TRUE(AnyNote(dump, "the logs are of different runs"));
  ASSERT_EQ(dump.memories.size(), 2u);  // both still rebuilt
  EXPECT_EQ(dump.memories[1].capacity, 268435456u);  // its own lines
}

TEST(DumpAssemblyBadInput, TwoLogsOfOneRank) {
  SKIP_WITHOUT_SPY_FIXTURES();
  IngestSummary summary;
  const std::vector<std::string> logs = RankLogs(kRuns[2]);
  const DumpFile dump = Ingest({logs[0], logs[1], logs[0]}, &summary);
  EXPECT_EQ(summary.duplicate_logs, 1u);
  EXPECT_TRUE(AnyNote(dump, "a second log of node 0"));
  EXPECT_EQ(dump.memories.size(), 2u);
}

TEST(DumpAssemblyBadInput, SpyLinesForInstancesRealmNeverLogged) {
  RealmLogReader reader;
  reader.FeedText(
      kPlaced64 +
      "[0 - 1] 0.2 {3}{legion_spy}: Physical Instance 8000000000000001 "
      "4000000000000000 1e00000000000000 0 1 1 1\n"
      "[0 - 1] 0.2 {3}{legion_spy}: Physical Instance 8000000000000002 "
      "4000000000000007 1e00000000000000 0 1 1 1\n"
      "[0 - 1] 0.2 {3}{legion_spy}: Physical Instance Field 8000000000000009 "
      "3\n"
      "[0 - 1] 0.2 {3}{legion_spy}: A Line Of A Newer Legion 1 2 3\n");
  IngestSummary summary;
  const DumpFile dump = reader.Dump(&summary);
  EXPECT_EQ(summary.spy_instances, 2u);
  EXPECT_EQ(summary.spy_attached, 1u);
  EXPECT_EQ(summary.spy_never_logged, 1u);
  EXPECT_EQ(summary.spy_unknown_lines, 1u);
  EXPECT_TRUE(AnyNote(dump, "Realm's log never shows alive"));
  EXPECT_TRUE(AnyNote(dump, "0x4000000000000007"));
  EXPECT_EQ(reader.counts().spy_malformed_lines, 1u);  // field of no instance
  ASSERT_EQ(dump.memories.size(), 1u);
  ASSERT_EQ(dump.memories[0].allocations.size(), 1u);
  EXPECT_EQ(dump.memories[0].allocations[0].kind,
            AllocationKind::kRegionInstance);
}

// Legate's out-of-memory report as an extra input: lines built from the
// format strings of Legate's BaseMapper (no real Legate run is available),
// naming instances of the circuit-oom fixture.
TEST(DumpAssemblyLegate, AttachesStoresToTheInstancesItLists) {
  ASSERT_TRUE(std::ifstream(kFixtures + "/circuit-oom.log").good()) << kFixtures;
  const std::string p = "[0 - 7f3c] 12.5 {5}{legate.mapper}: ";
  const std::string report = WriteTemp(
      "legate_stderr.txt",
      p + "Failed to allocate 735,140 bytes on memory 1e00000000000000 (of "
          "kind SYSTEM_MEM) for region requirement(s) {0} of Task "
          "app::Stencil[app.py:30] (UID 77)\n" +
      p + "  corresponding to a LogicalStore allocated at app.py:29\n" +
      p + "There is not enough space because Legate is reserving 8,257,536 "
          "of the available 8,388,608 bytes for the following "
          "LogicalStores:\n" +
      p + "LogicalStore allocated at app.py:12:\n" +
      p + "  Instance 4000000000000000 at address 7f5a00000000 of size "
          "49,152 covering elements <0>..<6143> \n" +
      p + "    created for an operation launched at app.py:14\n" +
      p + "  Instance 4000000000000001 of size 49,152 covering elements "
          "<6144>..<12287> \n" +
      p + "LogicalStore allocated at app.py:20:\n" +
      p + "  Instance 4000000000000010 of size 99 covering elements "
          "<0>..<98> \n");  // Realm says 458752: another life, not attached
  IngestSummary summary;
  const DumpFile dump =
      Ingest({kFixtures + "/circuit-oom.log", report}, &summary);
  EXPECT_EQ(summary.legate_instances, 3u);
  EXPECT_EQ(summary.legate_attached, 2u);
  EXPECT_EQ(summary.legate_size_mismatches, 1u);
  EXPECT_EQ(summary.duplicate_logs, 0u);  // stderr is not a second log
  const Snapshot& s = OnlyMemory(dump);
  std::map<uint64_t, const Allocation*> by_id;
  for (const Allocation& a : s.allocations) by_id[a.instance] = &a;
  const Allocation& a0 = *by_id.at(0x4000000000000000);
  EXPECT_EQ(AttributeValue(s, a0.identity, a0.kind, "store"), "app.py:12");
  EXPECT_EQ(AttributeValue(s, a0.identity, a0.kind, "elements"),
            "<0>..<6143>");
  EXPECT_EQ(AttributeValue(s, a0.identity, a0.kind, "provenance"),
            "app.py:14");
  const Allocation& a1 = *by_id.at(0x4000000000000001);
  EXPECT_EQ(AttributeValue(s, a1.identity, a1.kind, "store"), "app.py:12");
  const Allocation& a16 = *by_id.at(0x4000000000000010);
  EXPECT_EQ(PrintedIdentity(s, a16.identity), "");  // figures only
  // The failed request carries the store it was for.
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(AttributeValue(s, s.failures[0].identity, AllocationKind::kUnknown,
                           "store"),
            "app.py:29");
  // The store is the most telling attribute: the default report groups by
  // it, two instances of app.py:12 in one line.
  const std::string r = FormatMemoryReport(s, ReportOptions{});
  EXPECT_NE(r.find("by store"), std::string::npos) << r;
  EXPECT_NE(r.find("2 allocation(s),    largest 48 KiB       app.py:12"),
            std::string::npos)
      << r;
}

}  // namespace
}  // namespace realm_shadow
