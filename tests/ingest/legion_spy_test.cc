// What Legion Spy's lines give the instances of real 1- and 2-rank runs
// (legion_spy.h): every rebuilt placement and size equals what Realm's log
// states (checked against a second reading of the log, written here
// without the reader), and every instance Legion Spy names carries its
// identity (regions, fields, creating task), at the end and at each rank's
// peak.  Bad input: dump_assembly_test.cc.
#include "realm_shadow/ingest/legion_spy.h"

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
#include "tests/ingest/log_fixtures.h"

namespace realm_shadow {
namespace {

using testing::AnyNote;
using testing::Ingest;
using testing::kRuns;
using testing::RankLogs;
using testing::SpyRun;
using testing::WriteTemp;

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

std::string Attribute(const Snapshot& s, const Allocation& a,
                      const std::string& key) {
  return AttributeValue(s, a.identity, a.kind, key);
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
      EXPECT_TRUE(AnyNote(stopped, "read up to line " +
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

}  // namespace
}  // namespace realm_shadow
