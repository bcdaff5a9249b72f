// The stock-Legion path on the Legion Spy fixtures (real 1- and 2-rank
// runs): every rebuilt placement and size equals what Realm's log states
// (checked against a second reading of the log, written here without the
// reader), every instance Legion Spy names carries its identity, the ranks
// of a 2-rank run stay apart, and bad input (missing debug lines, a
// truncated log, two logs of one rank, a log of another run, Legion Spy
// lines for instances Realm never logged) is a note, never a wrong picture.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/ingest/realm_log.h"
#include "realm_shadow/render/report.h"

namespace realm_shadow {
namespace {

const std::string kSpy = REALM_SHADOW_SPY_FIXTURES;
const std::string kRealm = REALM_SHADOW_FIXTURES;

bool HaveSpyFixtures() { return std::ifstream(kSpy + "/INDEX.txt").good(); }

#define SKIP_WITHOUT_SPY_FIXTURES() \
  if (!HaveSpyFixtures()) FAIL() << "no fixtures at " << kSpy

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

uint64_t HexAfter(const std::string& line, const std::string& key) {
  const size_t at = line.find(key);
  if (at == std::string::npos) return 0;
  return std::stoull(line.substr(at + key.size()), nullptr, 16);
}
uint64_t DecAfter(const std::string& line, const std::string& key) {
  const size_t at = line.find(key);
  if (at == std::string::npos) return 0;
  return std::stoull(line.substr(at + key.size()));
}

// What a rank's log states, read the simple way: the live instances at the
// end (offset and size from "allocation completed" and its layout line,
// gone at "deallocation completed"), and the instances Legion Spy names
// while they are alive.  The Legion fixtures have no redistricts and no
// deferred allocations, so this is the whole story for them.
struct Stated {
  struct Live {
    uint64_t offset = 0, size = 0;
  };
  std::map<uint64_t, Live> live;       // instance -> placement
  std::map<uint64_t, uint64_t> sizes;  // last layout per instance
  std::set<uint64_t> named_alive;      // spy-named while alive, still live
  uint64_t spy_named = 0;              // spy lines of this rank's instances
  uint64_t created = 0, allocated = 0, failed = 0;
};

// Reads lines before the 1-based line `stop` (0: all).
Stated ReadStated(const std::string& path, uint32_t rank, uint64_t stop = 0) {
  Stated st;
  uint64_t number = 0;
  for (const std::string& line : Lines(path)) {
    if (stop != 0 && ++number >= stop) break;
    if (line.find("{inst}: instance layout: ") != std::string::npos) {
      st.sizes[HexAfter(line, "inst=")] = DecAfter(line, "bytes=");
    } else if (line.find("{inst}: allocation completed: ") != std::string::npos) {
      const uint64_t inst = HexAfter(line, "inst=");
      st.live[inst] = {DecAfter(line, "offset="), st.sizes[inst]};
      st.named_alive.erase(inst);
      ++st.allocated;
    } else if (line.find("{inst}: deallocation completed: ") !=
               std::string::npos) {
      const uint64_t inst = HexAfter(line, "inst=");
      st.live.erase(inst);
      st.named_alive.erase(inst);
    } else if (line.find("{inst}: instance created: ") != std::string::npos) {
      ++st.created;
    } else if (line.find("{inst}: allocation failed: ") != std::string::npos) {
      ++st.failed;
    } else if (line.find("{legion_spy}: Physical Instance ") !=
                   std::string::npos &&
               line.find("Physical Instance Field") == std::string::npos &&
               line.find("Physical Instance Creat") == std::string::npos) {
      std::istringstream words(line.substr(line.find("Instance ") + 9));
      std::string event, inst;
      words >> event >> inst;
      const uint64_t id = std::stoull(inst, nullptr, 16);
      if (((id >> 46) & 0xffff) != rank) continue;
      ++st.spy_named;
      if (st.live.count(id)) st.named_alive.insert(id);
    }
  }
  return st;
}

std::string WriteTemp(const std::string& name, const std::string& text);

bool AnyNoteOf(const DumpFile& d, const std::string& part) {
  for (const std::string& n : d.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

std::string Attribute(const Snapshot& s, const Allocation& a,
                      const std::string& key) {
  return AttributeValue(s, a.identity, a.kind, key);
}

struct SpyRun {
  std::string name;
  int ranks;
};
const SpyRun kRuns[] = {{"circuit-1rank-spy", 1},
                     {"circuit-2rank-normal", 2},
                     {"circuit-2rank-oom", 2},
                     {"tutorial08-2rank-normal", 2}};

std::vector<std::string> RankLogs(const SpyRun& run) {
  std::vector<std::string> out;
  for (int r = 0; r < run.ranks; ++r)
    out.push_back(kSpy + "/" + run.name + "_" + std::to_string(r) + ".log");
  return out;
}

DumpFile Ingest(const std::vector<std::string>& logs,
                IngestSummary* summary = nullptr) {
  absl::StatusOr<DumpFile> dump = IngestRealmLogs(logs, IngestOptions{}, summary);
  EXPECT_TRUE(dump.ok()) << dump.status();
  return dump.ok() ? *std::move(dump) : DumpFile();
}

// Fidelity, run by run: placements and sizes equal the log's, identities on
// every named instance, ranks apart.
TEST(LegionSpyFixtures, EveryRunRebuildsWhatTheLogStatesWithIdentities) {
  SKIP_WITHOUT_SPY_FIXTURES();
  for (const SpyRun& run : kRuns) {
    SCOPED_TRACE(run.name);
    IngestSummary summary;
    const DumpFile dump = Ingest(RankLogs(run), &summary);
    uint64_t named = 0, attached = 0, live_named = 0;
    for (int r = 0; r < run.ranks; ++r) {
      SCOPED_TRACE("rank " + std::to_string(r));
      const Stated st = ReadStated(RankLogs(run)[r], r);
      named += st.spy_named;
      // Every live allocation of this node, and nothing else.
      std::map<uint64_t, Stated::Live> ours;
      std::map<uint64_t, const Snapshot*> where;
      for (const Snapshot& s : dump.memories) {
        if (s.node != static_cast<uint32_t>(r)) continue;
        EXPECT_EQ(s.memory_id >> 40 & 0xffff, static_cast<uint64_t>(r));
        EXPECT_TRUE(s.capacity_known);
        uint64_t anomalies = 0;
        for (uint64_t n : s.counters.anomalies) anomalies += n;
        EXPECT_EQ(anomalies, 0u);
        for (const Allocation& a : s.allocations) {
          ours[a.instance] = {a.offset, a.size};
          where[a.instance] = &s;
          EXPECT_EQ(RealmMemoryOfInstance(a.instance), s.memory_id);
        }
      }
      ASSERT_EQ(ours.size(), st.live.size());
      for (const auto& [inst, want] : st.live) {
        SCOPED_TRACE(HexId(inst));
        ASSERT_TRUE(ours.count(inst));
        EXPECT_EQ(ours[inst].offset, want.offset);
        EXPECT_EQ(ours[inst].size, want.size);
      }
      // Every instance Legion Spy named in its life carries its identity.
      for (uint64_t inst : st.named_alive) {
        SCOPED_TRACE(HexId(inst));
        const Snapshot& s = *where[inst];
        const Allocation* a = nullptr;
        for (const Allocation& x : s.allocations)
          if (x.instance == inst) a = &x;
        ASSERT_NE(a, nullptr);
        EXPECT_EQ(a->kind, AllocationKind::kRegionInstance);
        EXPECT_NE(Attribute(s, *a, "regions"), "(unknown)");
        EXPECT_NE(Attribute(s, *a, "fields"), "(unknown)");
        EXPECT_NE(Attribute(s, *a, "task"), "(unknown)");
        EXPECT_EQ(Attribute(s, *a, "creator").find("not described"),
                  std::string::npos);
        ++live_named;
      }
    }
    attached = summary.spy_attached;
    EXPECT_EQ(summary.spy_instances, named);
    EXPECT_EQ(attached, named);  // every name joined its Realm life
    EXPECT_EQ(summary.spy_never_logged, 0u);
    EXPECT_EQ(summary.spy_remote, summary.spy_remote_joined);
    EXPECT_EQ(summary.live_with_identity, live_named);
    EXPECT_EQ(summary.duplicate_logs, 0u);
    EXPECT_EQ(summary.run_mismatches, 0u);
    EXPECT_TRUE(summary.warnings.empty());
    std::cout << run.name << ": Legion Spy instances named by their owner "
              << named << ", identities attached " << attached
              << ", live at the end with identity " << live_named << " of "
              << summary.live << "; remote copies " << summary.spy_remote
              << ", joined " << summary.spy_remote_joined << "\n";
  }
}

// At each rank's peak (just before its first "instance destroyed": the
// normal runs release everything by the end), every instance Legion Spy
// named is live with its identity.  The ranks' logs are cut there and read
// together (a slice on one rank may belong to an index task logged by
// another); a log cut with stop_before_line, as a dump taken during the run
// is matched with its log, reads the same as the file cut there.
TEST(LegionSpyFixtures, AtThePeakEveryNamedInstanceHasItsIdentity) {
  SKIP_WITHOUT_SPY_FIXTURES();
  for (const SpyRun& run : kRuns) {
    SCOPED_TRACE(run.name);
    std::vector<std::string> cut;
    std::vector<uint64_t> stops;
    for (int r = 0; r < run.ranks; ++r) {
      const std::vector<std::string> lines = Lines(RankLogs(run)[r]);
      uint64_t stop = 0;  // 0: no release at all (rank 1 of the oom run)
      for (size_t i = 0; i < lines.size() && stop == 0; ++i)
        if (lines[i].find("{inst}: instance destroyed: ") != std::string::npos)
          stop = i + 1;
      std::string text;
      for (size_t i = 0; i < lines.size() && (stop == 0 || i + 1 < stop); ++i)
        text += lines[i] + "\n";
      cut.push_back(WriteTemp(run.name + "_peak_" + std::to_string(r) + ".log",
                              text));
      stops.push_back(stop);
    }
    const DumpFile dump = Ingest(cut);
    for (int r = 0; r < run.ranks; ++r) {
      SCOPED_TRACE("rank " + std::to_string(r));
      const Stated st = ReadStated(cut[r], r);
      size_t live = 0, named = 0;
      for (const Snapshot& s : dump.memories) {
        if (s.node != static_cast<uint32_t>(r)) continue;
        for (const Allocation& a : s.allocations) {
          ++live;
          ASSERT_TRUE(st.live.count(a.instance)) << HexId(a.instance);
          EXPECT_EQ(st.live.at(a.instance).offset, a.offset);
          EXPECT_EQ(st.live.at(a.instance).size, a.size);
          if (!st.named_alive.count(a.instance)) continue;
          ++named;
          EXPECT_NE(Attribute(s, a, "task"), "(unknown)") << HexId(a.instance);
          EXPECT_NE(Attribute(s, a, "fields"), "(unknown)");
          EXPECT_NE(Attribute(s, a, "regions"), "(unknown)");
        }
      }
      EXPECT_EQ(live, st.live.size());
      EXPECT_EQ(named, st.named_alive.size());
      EXPECT_GT(named, 0u);
      std::cout << run.name << " rank " << r << " at its peak ("
                << (stops[r] ? "before line " + std::to_string(stops[r])
                             : std::string("the whole log"))
                << "): " << live << " live, " << named
                << " named by Legion Spy, all with regions, fields, task\n";
      if (stops[r] == 0) continue;
      // The same cut through IngestOptions::stop_before_line.
      IngestOptions options;
      options.stop_before_line = stops[r];
      const absl::StatusOr<DumpFile> stopped_or = IngestRealmLogs({RankLogs(run)[r]}, options);
      ASSERT_TRUE(stopped_or.ok()) << stopped_or.status();
      const DumpFile& stopped = *stopped_or;
      EXPECT_TRUE(AnyNoteOf(stopped, "read up to line " +
                                         std::to_string(stops[r])));
      const DumpFile alone = Ingest({cut[r]});
      ASSERT_EQ(stopped.memories.size(), alone.memories.size());
      for (size_t k = 0; k < alone.memories.size(); ++k) {
        const auto& x = stopped.memories[k].allocations;
        const auto& y = alone.memories[k].allocations;
        ASSERT_EQ(x.size(), y.size());
        for (size_t i = 0; i < x.size(); ++i) {
          EXPECT_EQ(x[i].instance, y[i].instance);
          EXPECT_EQ(x[i].offset, y[i].offset);
          EXPECT_EQ(x[i].state, y[i].state);  // the destroy line not read
        }
      }
    }
  }
}

// A 2-rank run read together equals each rank read alone, node by node.
TEST(LegionSpyFixtures, RanksTogetherEqualRanksAlone) {
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

TEST(LegionSpyFixtures, RemoteProxiesNeverAllocate) {
  SKIP_WITHOUT_SPY_FIXTURES();
  const DumpFile dump = Ingest(RankLogs(kRuns[1]));  // 2-rank normal
  for (const Snapshot& s : dump.memories) EXPECT_TRUE(s.allocations.empty());
  bool noted = false;
  for (const std::string& n : dump.notes)
    noted |= n.find("remote proxy line(s)") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(LegionSpyFixtures, IdentityNamesRegionsFieldsAndTasks) {
  SKIP_WITHOUT_SPY_FIXTURES();
  const DumpFile dump = Ingest(RankLogs(kRuns[2]));  // 2-rank oom
  ASSERT_EQ(dump.memories.size(), 2u);
  const Snapshot& s = dump.memories[0];
  ASSERT_EQ(s.node, 0u);
  // 0x400000000000001c: the largest instance, made for a point of
  // calc_new_currents on node 0's only CPU.
  const Allocation* a = nullptr;
  for (const Allocation& x : s.allocations)
    if (x.instance == 0x400000000000001c) a = &x;
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(Attribute(s, *a, "task"), "calc_new_currents");
  EXPECT_NE(Attribute(s, *a, "creator").find("point task calc_new_currents"),
            std::string::npos);
  EXPECT_NE(Attribute(s, *a, "fields").find("node capacitance"),
            std::string::npos);
  EXPECT_NE(Attribute(s, *a, "regions").find("field space node_field_space"),
            std::string::npos);
  // No store, and a region per tile: the report groups by task.
  EXPECT_EQ(MostTellingAttribute(s), "task");
  const std::string r = FormatMemoryReport(s, ReportOptions{});
  EXPECT_NE(r.find("by task"), std::string::npos) << r;
  EXPECT_NE(r.find("calc_new_currents"), std::string::npos);
}

TEST(LegionSpyFixtures, ReportOfSeveralNodesStartsWithTheRunSummary) {
  SKIP_WITHOUT_SPY_FIXTURES();
  const DumpFile dump = Ingest(RankLogs(kRuns[2]));
  const std::string r = FormatReport({dump}, {"oom.rsd"}, ReportOptions{});
  EXPECT_EQ(r.rfind("run summary: 2 node(s)", 0), 0u) << r;
  // The failing memory first.
  const size_t first = r.find("\n  0     0x1e00000000000000");
  const size_t second = r.find("\n  1     0x1e00010000000000");
  ASSERT_NE(first, std::string::npos) << r;
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(first, second);
  ReportOptions one;
  one.node_selected = true;
  one.node = 1;
  const std::string r1 = FormatReport({dump}, {"oom.rsd"}, one);
  EXPECT_EQ(r1.find("node 0 memory"), std::string::npos);
  EXPECT_NE(r1.find("node 1 memory 0x1e00010000000000"), std::string::npos);
}

// ---- bad input ------------------------------------------------------------

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/rs_spy_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool AnyNote(const DumpFile& d, const std::string& part) {
  return AnyNoteOf(d, part);
}

TEST(LegionSpyBadInput, LogWithoutDebugLinesMarksPlacementsUnknown) {
  ASSERT_TRUE(std::ifstream(kRealm + "/circuit-oom.log").good()) << kRealm;
  std::string kept;
  std::istringstream in(Read(kRealm + "/circuit-oom.log"));
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
  ASSERT_EQ(dump.memories.size(), 1u);
  const Snapshot& s = dump.memories[0];
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

TEST(LegionSpyBadInput, TruncatedRankLogIsNotedAndTheRestRebuilt) {
  SKIP_WITHOUT_SPY_FIXTURES();
  const std::vector<std::string> logs = RankLogs(kRuns[2]);
  const std::string whole = Read(logs[1]);
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

TEST(LegionSpyBadInput, LogOfAnotherRunIsNoted) {
  SKIP_WITHOUT_SPY_FIXTURES();
  IngestSummary summary;
  const DumpFile dump =
      Ingest({RankLogs(kRuns[2])[0], RankLogs(kRuns[1])[1]}, &summary);
  EXPECT_GE(summary.run_mismatches, 1u);
  EXPECT_TRUE(AnyNote(dump, "the logs are of different runs"));
  ASSERT_EQ(dump.memories.size(), 2u);  // both still rebuilt
  EXPECT_EQ(dump.memories[1].capacity, 268435456u);  // its own lines
}

TEST(LegionSpyBadInput, TwoLogsOfOneRank) {
  SKIP_WITHOUT_SPY_FIXTURES();
  IngestSummary summary;
  const std::vector<std::string> logs = RankLogs(kRuns[2]);
  const DumpFile dump = Ingest({logs[0], logs[1], logs[0]}, &summary);
  EXPECT_EQ(summary.duplicate_logs, 1u);
  EXPECT_TRUE(AnyNote(dump, "a second log of node 0"));
  EXPECT_EQ(dump.memories.size(), 2u);
}

// Instance 0x4000000000000000 of node 0 placed: 64 bytes at offset 0.
const std::string kPlaced64 =
    "[0 - 1] 0.1 {2}{inst}: creating new local instance: 4000000000000000\n"
    "[0 - 1] 0.1 {1}{inst}: instance layout: inst=4000000000000000 "
    "layout=Layout(bytes=64, align=32)\n"
    "[0 - 1] 0.1 {1}{inst}: allocation completed: inst=4000000000000000 "
    "offset=0\n";

TEST(LegionSpyBadInput, SpyLinesForInstancesRealmNeverLogged) {
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

// Ids are reused: a Legion Spy record belongs to the life it was logged in,
// never to the next life of the same id.
TEST(LegionSpy, IdentityStaysWithItsInstanceLife) {
  RealmLogReader reader;
  reader.FeedText(
      kPlaced64 +
      "[0 - 1] 0.1 {3}{legion_spy}: Task ID Name 3 old_task\n"
      "[0 - 1] 0.1 {3}{legion_spy}: Individual Task 1 3 9 old_task\n"
      "[0 - 1] 0.2 {3}{legion_spy}: Physical Instance 8000000000000001 "
      "4000000000000000 1e00000000000000 0 1 1 1\n"
      "[0 - 1] 0.2 {3}{legion_spy}: Physical Instance Creator 8000000000000001 "
      "9 1d00000000000000\n"
      "[0 - 1] 0.3 {2}{inst}: instance destroyed: inst=4000000000000000 "
      "wait_on=0\n"
      "[0 - 1] 0.3 {1}{inst}: deallocation completed: inst=4000000000000000\n"
      "[0 - 1] 0.4 {2}{inst}: reusing local instance: 4000000000000000\n"
      "[0 - 1] 0.4 {1}{inst}: instance layout: inst=4000000000000000 "
      "layout=Layout(bytes=128, align=32)\n"
      "[0 - 1] 0.4 {1}{inst}: allocation completed: inst=4000000000000000 "
      "offset=64\n");
  DumpFile dump = reader.Dump();
  ASSERT_EQ(dump.memories.size(), 1u);
  const Snapshot& s = dump.memories[0];
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].size, 128u);
  EXPECT_EQ(s.allocations[0].identity, 0u);  // the new life: not named
  // Named again: the new life gets its own identity.
  reader.FeedText(
      "[0 - 1] 0.5 {3}{legion_spy}: Physical Instance 8000000000000002 "
      "4000000000000000 1e00000000000000 0 1 1 1\n"
      "[0 - 1] 0.5 {3}{legion_spy}: Physical Instance Creator 8000000000000002 "
      "9 1d00000000000000\n");
  dump = reader.Dump();
  const Snapshot& t = dump.memories[0];
  ASSERT_EQ(t.allocations.size(), 1u);
  EXPECT_EQ(AttributeValue(t, t.allocations[0].identity, t.allocations[0].kind,
                           "task"),
            "old_task");
}

// Legate's out-of-memory report as an extra input: lines built from the
// format strings of Legate's BaseMapper (no real Legate run is available),
// naming instances of the circuit-oom fixture.
TEST(LegateReport, AttachesStoresToTheInstancesItLists) {
  ASSERT_TRUE(std::ifstream(kRealm + "/circuit-oom.log").good()) << kRealm;
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
      Ingest({kRealm + "/circuit-oom.log", report}, &summary);
  EXPECT_EQ(summary.legate_instances, 3u);
  EXPECT_EQ(summary.legate_attached, 2u);
  EXPECT_EQ(summary.legate_size_mismatches, 1u);
  EXPECT_EQ(summary.duplicate_logs, 0u);  // stderr is not a second log
  ASSERT_EQ(dump.memories.size(), 1u);
  const Snapshot& s = dump.memories[0];
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
  EXPECT_EQ(a16.identity, 0u);
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
