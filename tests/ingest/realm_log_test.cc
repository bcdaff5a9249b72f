// The Realm-log reader (realm_log.h) against ground truth: the
// realm-frag-deferred log is cut at each of its 12 CHECKPOINT lines and the
// rebuilt state is compared with the truth taken there; the three Legion
// logs are checked against what INDEX.txt says of them; lines that are not
// Realm's are counted, never fatal; and a log is cut at the marker line a
// dump wrote into it (realm_shadow/log_sink.h).
#include "realm_shadow/ingest/realm_log.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/analysis/history_cursor.h"
#include "realm_shadow/format/dump_marker.h"
#include "realm_shadow/render/report.h"
#include "realm_shadow/render/timeline.h"
#include "tests/common/dump_io.h"
#include "tests/common/temp_dir.h"
#include "tests/ingest/log_fixtures.h"

namespace realm_shadow {
namespace {

using testing::OnlyMemory;
using testing::kFixtures;
using testing::kSys;
using testing::Line;
using testing::ReadFile;

// "KEY a=1 b=2" -> {a:1, b:2}
std::map<std::string, std::string> Fields(const std::string& line) {
  std::map<std::string, std::string> out;
  std::istringstream in(line);
  std::string token;
  in >> token;  // the kind
  while (in >> token) {
    const size_t eq = token.find('=');
    if (eq != std::string::npos) out[token.substr(0, eq)] = token.substr(eq + 1);
  }
  return out;
}

uint64_t Hex(const std::string& s) { return std::stoull(s, nullptr, 16); }
uint64_t Dec(const std::string& s) { return std::stoull(s); }

struct TruthMemory {
  uint64_t capacity = 0;
  std::vector<std::map<std::string, std::string>> inst, hole, notalloc;
  std::map<std::string, std::string> summary;
};
using Truth = std::map<std::string, std::map<uint64_t, TruthMemory>>;

Truth ReadTruth() {
  Truth truth;
  std::istringstream in(ReadFile(kFixtures + "/realm-frag-deferred.truth.txt"));
  std::string line;
  while (std::getline(in, line)) {
    const std::string kind = line.substr(0, line.find(' '));
    if (kind != "MEM" && kind != "INST" && kind != "HOLE" &&
        kind != "NOTALLOC" && kind != "SUMMARY")
      continue;
    auto f = Fields(line);
    TruthMemory& m = truth[f["checkpoint"]][Hex(f["mem"])];
    if (kind == "MEM") m.capacity = Dec(f["capacity"]);
    if (kind == "INST") m.inst.push_back(f);
    if (kind == "HOLE") m.hole.push_back(f);
    if (kind == "NOTALLOC") m.notalloc.push_back(f);
    if (kind == "SUMMARY") m.summary = f;
  }
  return truth;
}

bool IdentityHas(const Snapshot& s, uint32_t identity, const char* value) {
  const Identity* id = s.FindIdentity(identity);
  if (id == nullptr) return false;
  for (const auto& [k, v] : id->attributes)
    if (k == kSizeAttribute && v == value) return true;
  return false;
}

// What the log never states, checkpoint by checkpoint: the instances whose
// size is only an upper bound (redistricted pieces), and one state.
const std::map<std::string, std::set<uint64_t>> kBoundedAt = {
    {"S_redistricted", {0x4000000000000002, 0x400000000000000a, 0x400000000000000b}},
    {"S_pending", {0x4000000000000002, 0x400000000000000a, 0x400000000000000b}},
    {"S_after_E1", {0x4000000000000002, 0x400000000000000a, 0x400000000000000b}},
    {"S_after_E2", {0x4000000000000002, 0x400000000000000a, 0x400000000000000b}},
    {"S_pending_redistrict", {0x4000000000000002, 0x400000000000000a, 0x400000000000000b}},
    {"S_after_E3", {0x4000000000000002, 0x400000000000000a, 0x400000000000000b,
                    0x4000000000000004, 0x4000000000000003}},
    {"R_holes", {0x4000000000000002, 0x400000000000000a, 0x400000000000000b,
                 0x4000000000000004, 0x4000000000000003}},
    {"R_pending", {0x4000000000000002, 0x400000000000000a, 0x400000000000000b,
                   0x4000000000000004, 0x4000000000000003}},
    {"R_after_E4", {0x4000000000000002, 0x400000000000000a, 0x400000000000000b,
                    0x4000000000000004, 0x4000000000000003}},
    {"final", {0x4000000000000002, 0x400000000000000a, 0x400000000000000b,
               0x4000000000000004, 0x4000000000000003, 0x4000000000800003,
               0x4000000000800006}},
};
// A redistrict waiting on its precondition logs only its new instances:
// the old one (b0) is pending release in the truth, live in the log.
const std::set<std::pair<std::string, uint64_t>> kStateNotInLog = {
    {"S_pending_redistrict", 0x4000000000000006}};
// The pieces of that redistrict wait with sizes the log never gives, and
// the piece that fails later has none either.
const std::set<std::pair<std::string, uint64_t>> kRequestSizeNotInLog = {
    {"S_pending_redistrict", 0x4000000000000004},
    {"S_pending_redistrict", 0x4000000000000003},
    {"S_pending_redistrict", 0x4000000000000001},
    {"S_after_E3", 0x4000000000000001},
    {"R_holes", 0x4000000000000001},
    {"R_pending", 0x4000000000000001},
    {"R_after_E4", 0x4000000000000001},
    {"final", 0x4000000000000001}};

struct Tally {
  int inst_lines = 0, inst_exact = 0, inst_bounded = 0, inst_state_unknown = 0;
  int notalloc_lines = 0, notalloc_exact = 0;
  int hole_checks_exact = 0, memories_with_bounds = 0;
};

void CompareCheckpoint(const std::string& label, DumpFile& dump,
                       const std::map<uint64_t, TruthMemory>& truth,
                       Tally* tally) {
  SCOPED_TRACE("checkpoint " + label);
  const std::set<uint64_t> expected_bounded =
      kBoundedAt.count(label) ? kBoundedAt.at(label) : std::set<uint64_t>{};
  std::set<uint64_t> bounded_seen;
  for (const auto& [mem, t] : truth) {
    SCOPED_TRACE("memory " + std::to_string(mem));
    const Snapshot* s = nullptr;
    for (const Snapshot& m : dump.memories)
      if (m.memory_id == mem) s = &m;
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(s->capacity_known);
    EXPECT_EQ(s->capacity, t.capacity);
    EXPECT_EQ(s->counters.anomalies, (std::array<uint64_t, kAnomalyKindCount>{}));

    // INST: every live or pending-release allocation, in both directions.
    std::map<uint64_t, const Allocation*> ours;
    for (const Allocation& a : s->allocations) ours[a.instance] = &a;
    EXPECT_EQ(ours.size(), s->allocations.size());
    EXPECT_EQ(s->allocations.size(), t.inst.size());
    bool any_bound = false;
    uint64_t bound_excess = 0;
    for (const auto& f : t.inst) {
      ++tally->inst_lines;
      const uint64_t inst = Hex(f.at("inst"));
      SCOPED_TRACE("instance " + f.at("inst") + " " + f.at("name"));
      auto it = ours.find(inst);
      ASSERT_NE(it, ours.end());
      const Allocation& a = *it->second;
      EXPECT_EQ(a.offset, Dec(f.at("offset")));
      const bool bounded = IdentityHas(*s, a.identity, kSizeUpperBound);
      EXPECT_EQ(bounded, expected_bounded.count(inst) == 1);
      const std::string truth_state = f.at("state");
      const std::string our_state =
          a.state == AllocationState::kLive ? "live" : "pending_destroy";
      const bool state_unknown = kStateNotInLog.count({label, inst}) == 1;
      if (state_unknown) {
        ++tally->inst_state_unknown;
        EXPECT_EQ(our_state, "live");
        EXPECT_EQ(truth_state, "pending_destroy");
      } else {
        EXPECT_EQ(our_state, truth_state);
      }
      if (bounded) {
        bounded_seen.insert(inst);
        any_bound = true;
        ++tally->inst_bounded;
        EXPECT_GE(a.size, Dec(f.at("size")));  // the truth within the bound
        bound_excess += a.size - Dec(f.at("size"));
      } else {
        EXPECT_EQ(a.size, Dec(f.at("size")));
        EXPECT_EQ(a.alignment(), Dec(f.at("align")));
        if (!state_unknown && a.size == Dec(f.at("size")) &&
            a.alignment() == Dec(f.at("align")) &&
            a.offset == Dec(f.at("offset")))
          ++tally->inst_exact;
      }
    }

    // NOTALLOC: deferred requests and failures.
    size_t truth_pending = 0;
    for (const auto& f : t.notalloc) {
      ++tally->notalloc_lines;
      const uint64_t inst = Hex(f.at("inst"));
      SCOPED_TRACE("not allocated " + f.at("inst") + " " + f.at("name"));
      const bool size_unknown = kRequestSizeNotInLog.count({label, inst}) == 1;
      uint64_t our_size = UINT64_MAX;
      if (f.at("state") == "pending_alloc") {
        ++truth_pending;
        for (const PendingRequest& p : s->pending)
          if (p.instance == inst) our_size = p.size;
      } else {
        for (const Failure& fl : s->failures)
          if (fl.instance == inst) our_size = fl.size;
      }
      ASSERT_NE(our_size, UINT64_MAX) << "missing from the rebuilt state";
      if (size_unknown) {
        EXPECT_EQ(our_size, 0u);
      } else {
        EXPECT_EQ(our_size, Dec(f.at("size")));
        ++tally->notalloc_exact;
      }
    }
    EXPECT_EQ(s->pending.size(), truth_pending);

    // HOLE and SUMMARY: exact where no size is bounded; otherwise every
    // hole of ours lies inside one of the truth's, and the free space we
    // lack is exactly what the bounds overstate.
    const std::vector<Hole> holes = FindHoles(*s);
    const FreeSummary sum = SummarizeHoles(*s, holes);
    std::vector<Hole> truth_holes;
    for (const auto& f : t.hole)
      truth_holes.push_back(Hole{Dec(f.at("offset")), Dec(f.at("size"))});
    EXPECT_EQ(sum.allocation_count, Dec(t.summary.at("live")));
    if (!any_bound) {
      ++tally->hole_checks_exact;
      EXPECT_EQ(holes, truth_holes);
      EXPECT_EQ(sum.used, Dec(t.summary.at("used")));
      EXPECT_EQ(sum.total_free, Dec(t.summary.at("free")));
      EXPECT_EQ(sum.largest_hole, Dec(t.summary.at("largest_hole")));
      EXPECT_EQ(sum.hole_count, Dec(t.summary.at("holes")));
    } else {
      ++tally->memories_with_bounds;
      for (const Hole& h : holes) {
        bool inside = false;
        for (const Hole& th : truth_holes)
          inside = inside || (h.offset >= th.offset && h.end() <= th.end());
        EXPECT_TRUE(inside)
            << "hole [" << h.offset << ", " << h.end() << ") not in the truth";
      }
      EXPECT_EQ(sum.total_free + bound_excess, Dec(t.summary.at("free")));
      EXPECT_EQ(sum.used, Dec(t.summary.at("used")) + bound_excess);
      EXPECT_LE(sum.largest_hole, Dec(t.summary.at("largest_hole")));
    }
  }
  EXPECT_EQ(bounded_seen, expected_bounded);
}

TEST(RealmLog, FragDeferredMatchesTruthAtEveryCheckpoint) {
  SKIP_WITHOUT_FIXTURES();
  const Truth truth = ReadTruth();
  ASSERT_EQ(truth.size(), 12u);
  RealmLogReader reader;
  std::istringstream log(ReadFile(kFixtures + "/realm-frag-deferred.log"));
  std::string line;
  std::set<std::string> checked;
  Tally tally;
  while (std::getline(log, line)) {
    reader.FeedLine(line);
    const size_t at = line.find("{3}{app}: CHECKPOINT ");
    if (at == std::string::npos) continue;
    const std::string label = line.substr(at + 21);
    ASSERT_TRUE(truth.count(label)) << label;
    DumpFile dump = reader.Dump();
    EXPECT_EQ(dump.source, "ingest-realm-log");
    CompareCheckpoint(label, dump, truth.at(label), &tally);
    checked.insert(label);
  }
  EXPECT_EQ(checked.size(), 12u);
  EXPECT_EQ(reader.counts().reorderings, 2u);
  EXPECT_EQ(reader.counts().unknown_lines, 0u);
  EXPECT_EQ(reader.counts().redistricts, 3u);
  std::cout << "truth INST lines: " << tally.inst_lines
            << ", exact: " << tally.inst_exact
            << ", size bounded: " << tally.inst_bounded
            << ", state not in log: " << tally.inst_state_unknown
            << "; NOTALLOC lines: " << tally.notalloc_lines
            << ", exact: " << tally.notalloc_exact
            << "; memory pictures with exact holes/summary: "
            << tally.hole_checks_exact
            << ", with bounded sizes: " << tally.memories_with_bounds << "\n";
  EXPECT_EQ(tally.inst_exact + tally.inst_bounded + tally.inst_state_unknown,
            tally.inst_lines);
}

DumpFile IngestFixture(const std::string& name) {
  absl::StatusOr<DumpFile> dump = IngestRealmLogs({kFixtures + "/" + name});
  EXPECT_TRUE(dump.ok()) << dump.status();
  return dump.ok() ? *std::move(dump) : DumpFile();
}

uint64_t AnomalyTotal(const Snapshot& s) {
  uint64_t n = 0;
  for (uint64_t a : s.counters.anomalies) n += a;
  return n;
}

TEST(RealmLog, CircuitNormalEndsEmpty) {
  SKIP_WITHOUT_FIXTURES();
  DumpFile dump = IngestFixture("circuit-normal.log");
  const Snapshot& s = OnlyMemory(dump);
  EXPECT_EQ(s.memory_id, 0x1e00000000000000u);
  EXPECT_EQ(s.capacity, 268435456u);
  EXPECT_EQ(s.kind, MemoryKind::kSystem);
  EXPECT_TRUE(s.allocations.empty());
  EXPECT_TRUE(s.pending.empty());
  EXPECT_TRUE(s.failures.empty());
  EXPECT_EQ(AnomalyTotal(s), 0u);
  EXPECT_EQ(s.counters.by_type[static_cast<int>(EventType::kAllocated)], 60u);
  EXPECT_EQ(s.counters.by_type[static_cast<int>(EventType::kReleased)], 60u);
  EXPECT_GT(s.counters.peak_used, 0u);
}

TEST(RealmLog, CircuitOomIsExhaustion) {
  SKIP_WITHOUT_FIXTURES();
  DumpFile dump = IngestFixture("circuit-oom.log");
  const Snapshot& s = OnlyMemory(dump);
  EXPECT_EQ(s.capacity, 8388608u);
  EXPECT_EQ(s.allocations.size(), 48u);
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].size, 735140u);
  EXPECT_EQ(AnomalyTotal(s), 0u);
  const FreeSummary sum = Summarize(s);
  EXPECT_LT(sum.total_free, 735140u);
  EXPECT_EQ(ClassifyRequest(s, 735140, s.failures[0].alignment),
            FailureCause::kExhaustion);
  const std::string report = FormatMemoryReport(s, ReportOptions{});
  EXPECT_NE(report.find("now: exhaustion"), std::string::npos) << report;
  EXPECT_NE(report.find("735140 B"), std::string::npos);
}

// The log path keeps every event with its line's time and number.  The
// peaks were counted by hand from the logs: used = the sum of the "bytes="
// of each "instance layout" whose instance has an "allocation completed"
// and no "deallocation completed" yet, at its highest (circuit-oom: the
// 48th completion, line 220, 0.268297 s; circuit-normal: line 269,
// 0.329910 s, before the releases at the end).
TEST(RealmLog, FixtureHistoriesPeakWhereTheHandCountSays) {
  SKIP_WITHOUT_FIXTURES();
  struct Peak {
    const char* log;
    uint64_t used, line;
    int64_t time_ns;
  };
  for (const Peak& want : {Peak{"circuit-oom.log", 8257536, 220, 268297000},
                           Peak{"circuit-normal.log", 13436112, 269, 329910000}}) {
    SCOPED_TRACE(want.log);
    DumpFile dump = IngestFixture(want.log);
    const Snapshot& s = OnlyMemory(dump);
    const MemoryHistory* h = FindHistory(dump, s);
    ASSERT_NE(h, nullptr);
    const absl::Status checked = CheckHistory(*h);
    ASSERT_TRUE(checked.ok()) << checked;
    EXPECT_EQ(h->clock, HistoryClock::kLogTime);
    EXPECT_EQ(h->first_sequence(), 0u);
    EXPECT_EQ(h->end_sequence(), s.sequence);
    HistoryCursor replay(*h);
    replay.set_figures(true);
    const absl::Status started = replay.Start(0);
    ASSERT_TRUE(started.ok()) << started;
    uint64_t peak = 0, peak_event = 0;
    while (replay.Step())
      if (replay.figures().used > peak) {
        peak = replay.figures().used;
        peak_event = replay.sequence() - 1;
      }
    EXPECT_EQ(peak, want.used);
    EXPECT_EQ(h->LineOfEvent(peak_event), want.line);
    EXPECT_EQ(h->TimeOfEvent(peak_event), want.time_ns);
    // The end of the history is the dump's picture.
    const absl::StatusOr<Snapshot> end_or = StateAt(*h, h->end_sequence());
    ASSERT_TRUE(end_or.ok()) << end_or.status();
    const Snapshot& end = *end_or;
    ASSERT_EQ(end.allocations.size(), s.allocations.size());
    for (size_t i = 0; i < end.allocations.size(); ++i) {
      EXPECT_EQ(end.allocations[i].instance, s.allocations[i].instance);
      EXPECT_EQ(end.allocations[i].offset, s.allocations[i].offset);
      EXPECT_EQ(end.allocations[i].size, s.allocations[i].size);
    }
    EXPECT_EQ(end.failures.size(), s.failures.size());
    const std::string text = FormatTimeline(s, *h, TimelineOptions());
    EXPECT_NE(text.find("(" + std::to_string(want.used) + " B)"), std::string::npos) << text;
    EXPECT_NE(text.find("line " + std::to_string(want.line) + ")"), std::string::npos) << text;
  }
}

TEST(RealmLog, MultiplePartitionsOomIsExhaustion) {
  SKIP_WITHOUT_FIXTURES();
  DumpFile dump = IngestFixture("multiple-partitions-oom.log");
  const Snapshot& s = OnlyMemory(dump);
  EXPECT_EQ(s.capacity, 8388608u);
  EXPECT_TRUE(s.allocations.empty());
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].size, 16777216u);
  EXPECT_EQ(AnomalyTotal(s), 0u);
  EXPECT_EQ(ClassifyRequest(s, 16777216, 32), FailureCause::kExhaustion);
}

TEST(RealmLog, FinalFragmentationFailureInSystemMemory) {
  SKIP_WITHOUT_FIXTURES();
  DumpFile dump = IngestFixture("realm-frag-deferred.log");
  ASSERT_EQ(dump.memories.size(), 2u);
  const Snapshot& s = dump.memories[0];
  ASSERT_FALSE(s.failures.empty());
  EXPECT_EQ(s.failures.back().size, 4428672u);
  // Bounds only shrink free space; it still exceeds the request.
  EXPECT_EQ(ClassifyRequest(s, 4428672, 32), FailureCause::kFragmentation);
  // REGDMA: upper bounds leave the cause open, and the report says so.
  const std::string r = FormatMemoryReport(dump.memories[1], ReportOptions{});
  EXPECT_NE(r.find("exhaustion or fragmentation"), std::string::npos) << r;
  bool noted = false;
  for (const std::string& n : dump.notes)
    noted = noted || n.find("upper bounds") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(RealmLog, NodeFromPrefixAndMemoryFromIdBits) {
  // Instance of owner node 3, memory index 2.
  const uint64_t inst = (uint64_t{1} << 62) | (uint64_t{3} << 46) |
                        (uint64_t{3} << 30) | (uint64_t{2} << 22) | 5;
  EXPECT_EQ(RealmMemoryOfInstance(inst), 0x1e00030000000002u);
  char buffer[512];
  std::snprintf(buffer, sizeof buffer,
                "[3 - 7f] 0.1 {2}{inst}: creating new local instance: %llx\n"
                "[3 - 7f] 0.1 {1}{inst}: instance layout: inst=%llx "
                "layout=Layout(bytes=0, align=32)\n"
                "[3 - 7f] 0.1 {1}{inst}: allocation completed: inst=%llx "
                "offset=0\n",
                static_cast<unsigned long long>(inst),
                static_cast<unsigned long long>(inst),
                static_cast<unsigned long long>(inst));
  RealmLogReader reader;
  reader.FeedText(buffer);
  DumpFile dump = reader.Dump();
  EXPECT_EQ(dump.node, 3u);
  ASSERT_EQ(dump.memories.size(), 1u);
  EXPECT_EQ(dump.memories[0].memory_id, 0x1e00030000000002u);
  EXPECT_EQ(dump.memories[0].node, 3u);
}

TEST(RealmLog, GarbageIsCountedNeverFatal) {
  RealmLogReader reader;
  reader.FeedText(
      "hello world\n"
      "[0 - 1] 0.1 {2}{inst}: allocation completed: inst=zz offset=-1\n"
      "[0 - 1] 0.1 {2}{inst}: something new in Realm: inst=40\n"
      "[0 - 1] 0.1 {1}{inst}: instance layout: inst=4000000000000000 "
      "layout=Layout(bytes=99999999999999999999999, align=32)\n"
      "[x - 1] {{{\n"
      "[0 - 1] 0.1 {1}{inst}: deallocation completed: inst=4000000000000007\n"
      "\n");
  // Before any Realm line, garbage is unknown; after one, an unprefixed
  // line may be part of a multi-line entry and is counted as such.
  EXPECT_EQ(reader.counts().unknown_lines, 4u);
  EXPECT_EQ(reader.counts().continuation_lines, 2u);
  DumpFile dump = reader.Dump();
  ASSERT_EQ(dump.memories.size(), 1u);
  // The stray release is the map's anomaly, not a crash.
  EXPECT_EQ(dump.memories[0].counters.anomalies[static_cast<int>(
                AnomalyKind::kUnknownInstance)],
            1u);
}

TEST(RealmLog, IngestRefusesNonLogs) {
  const std::string dir = ::testing::TempDir();
  const std::string empty = dir + "/rs_empty.log";
  std::ofstream(empty).close();
  const absl::Status not_log = IngestRealmLogs({empty}).status();
  EXPECT_TRUE(absl::IsInvalidArgument(not_log)) << not_log;
  EXPECT_NE(not_log.message().find(empty), std::string::npos);
  EXPECT_NE(not_log.message().find("not a Realm log"), std::string::npos);
  const absl::Status missing = IngestRealmLogs({dir + "/rs_missing.log"}).status();
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("cannot open"), std::string::npos) << missing;
}

// ---- cut at a dump's marker -----------------------------------------------

class CutAtDump : public ::testing::Test {
 protected:
  void SetUp() override {
    dump_path_ = dir_ / "shadow.rsd";
    DumpFile dump;
    Snapshot s;
    s.memory_id = kSys;
    s.sequence = 7;
    dump.memories.push_back(s);
    std::string error;
    ASSERT_TRUE(testing::WriteDumpTo(dump_path_, dump, &error)) << error;
  }
  std::string Marker(const std::string& file, uint64_t sequence = 7,
                     uint64_t memory = kSys) {
    DumpMarker m;
    m.memory_id = memory;
    m.sequence = sequence;
    m.reason = "request";
    m.file = file;
    return Line("realm_shadow", DumpMarkerLine(m), 2);
  }
  std::string WriteLog(const std::vector<std::string>& lines) {
    const std::string path = dir_ / "run.log";
    std::ofstream out(path);
    for (const std::string& l : lines) out << l << "\n";
    return path;
  }
  // The log of `lines` cut at this fixture's dump; a refused cut fails the
  // test and gives an empty dump.
  DumpFile CutAt(const std::vector<std::string>& lines) {
    absl::StatusOr<DumpFile> cut = IngestRealmLogAtDump(WriteLog(lines), dump_path_);
    EXPECT_TRUE(cut.ok()) << cut.status();
    return cut.ok() ? *std::move(cut) : DumpFile();
  }
  std::vector<std::string> Allocation(const std::string& inst, int offset) {
    return {Line("inst", "creating new local instance: " + inst, 2),
            Line("inst", "instance layout: inst=" + inst +
                             " layout=Layout(bytes=256, align=32)"),
            Line("inst", "allocation completed: inst=" + inst +
                             " offset=" + std::to_string(offset))};
  }
  testing::TempDir dir_{"realm-shadow-cut"};
  std::string dump_path_;
};

TEST_F(CutAtDump, ReplaysOnlyTheLinesBeforeTheMarker) {
  std::vector<std::string> lines = {
      "Memory:1e00000000000000, SYSTEM_MEM, capacity: 4096"};
  for (auto& l : Allocation("4000000000000000", 0)) lines.push_back(l);
  lines.push_back(Marker(dump_path_));
  for (auto& l : Allocation("4000000000000001", 256)) lines.push_back(l);
  DumpFile cut = CutAt(lines);
  ASSERT_EQ(cut.memories.size(), 1u);
  EXPECT_EQ(cut.memories[0].allocations.size(), 1u);
  EXPECT_EQ(cut.memories[0].allocations[0].instance, 0x4000000000000000ull);
  EXPECT_TRUE(cut.memories[0].capacity_known);
  bool named = false;
  for (const std::string& n : cut.notes)
    named = named || n.find("log cut before line 5") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST_F(CutAtDump, PrefersTheMarkerWithTheDumpsSequence) {
  std::vector<std::string> lines;
  for (auto& l : Allocation("4000000000000000", 0)) lines.push_back(l);
  lines.push_back(Marker(dump_path_, 7));
  for (auto& l : Allocation("4000000000000001", 256)) lines.push_back(l);
  lines.push_back(Marker(dump_path_, 9));  // the file written again later
  DumpFile cut = CutAt(lines);
  ASSERT_EQ(cut.memories.size(), 1u);
  EXPECT_EQ(cut.memories[0].allocations.size(), 1u);
}

TEST_F(CutAtDump, MatchesByFileNameWhenTheDumpMoved) {
  std::vector<std::string> lines;
  for (auto& l : Allocation("4000000000000000", 0)) lines.push_back(l);
  lines.push_back(Marker("/elsewhere/shadow.rsd"));
  DumpFile cut = CutAt(lines);
  bool by_name = false;
  for (const std::string& n : cut.notes)
    by_name = by_name || n.find("matched by file name only") != std::string::npos;
  EXPECT_TRUE(by_name);
}

TEST_F(CutAtDump, RefusesALogWithoutTheDumpsMarker) {
  std::vector<std::string> lines = Allocation("4000000000000000", 0);
  lines.push_back(Marker("/elsewhere/other.rsd"));
  const absl::Status unmarked = IngestRealmLogAtDump(WriteLog(lines), dump_path_).status();
  EXPECT_TRUE(absl::IsNotFound(unmarked)) << unmarked;
  EXPECT_NE(unmarked.message().find("no dump marker names"), std::string::npos) << unmarked;
  const absl::Status no_log = IngestRealmLogAtDump(dir_ / "missing.log", dump_path_).status();
  EXPECT_NE(no_log.message().find("cannot open"), std::string::npos) << no_log;
  EXPECT_FALSE(IngestRealmLogAtDump(WriteLog(lines), dir_ / "missing.rsd").ok());
}

TEST_F(CutAtDump, AFailureDumpTakesTheFailureLineLoggedAfterIt) {
  // The tracker writes a failure dump inside Realm's notify_allocation,
  // before Realm logs "allocation failed": that one later line counts.
  DumpFile dump;
  Snapshot s;
  s.memory_id = kSys;
  s.sequence = 3;
  Failure f;
  f.instance = 0x4000000000000001ull;
  f.size = 9000;
  s.failures.push_back(f);
  dump.memories.push_back(s);
  std::string error;
  ASSERT_TRUE(testing::WriteDumpTo(dump_path_, dump, &error)) << error;
  DumpMarker m;
  m.memory_id = kSys;
  m.sequence = 3;
  m.reason = "failure";
  m.file = dump_path_;
  std::vector<std::string> lines = {
      "Memory:1e00000000000000, SYSTEM_MEM, capacity: 4096",
      Line("inst", "creating new local instance: 4000000000000001", 2),
      Line("inst", "instance layout: inst=4000000000000001 "
                   "layout=Layout(bytes=9000, align=32)"),
      Line("realm_shadow", DumpMarkerLine(m), 2)};
  for (auto& l : Allocation("4000000000000002", 0)) lines.push_back(l);
  lines.push_back(Line("inst", "allocation failed: inst=4000000000000001", 2));
  DumpFile cut = CutAt(lines);
  ASSERT_EQ(cut.memories.size(), 1u);
  ASSERT_EQ(cut.memories[0].failures.size(), 1u);
  EXPECT_EQ(cut.memories[0].failures[0].size, 9000u);
  // Nothing else after the marker: the later allocation is not there.
  EXPECT_TRUE(cut.memories[0].allocations.empty());
  // A request dump at the same place does not take the later line.
  m.reason = "request";
  lines[3] = Line("realm_shadow", DumpMarkerLine(m), 2);
  cut = CutAt(lines);
  ASSERT_EQ(cut.memories.size(), 1u);
  EXPECT_TRUE(cut.memories[0].failures.empty());
}

TEST_F(CutAtDump, InstancesLoggedBetweenBeginAndMarkerAreInFlight) {
  DumpMarker begin;
  begin.memory_id = kSys;
  begin.reason = "periodic";
  begin.file = dump_path_;
  std::vector<std::string> lines;
  for (auto& l : Allocation("4000000000000000", 0)) lines.push_back(l);
  lines.push_back(Line("realm_shadow", DumpBeginLine(begin), 2));
  for (auto& l : Allocation("4000000000000001", 256)) lines.push_back(l);
  lines.push_back(Marker(dump_path_));
  for (auto& l : Allocation("4000000000000002", 512)) lines.push_back(l);
  DumpFile cut = CutAt(lines);
  std::string note;
  for (const std::string& n : cut.notes)
    if (n.find(kInFlightNote) != std::string::npos) note = n;
  EXPECT_NE(note.find("0x4000000000000001"), std::string::npos) << note;
  EXPECT_EQ(note.find("0x4000000000000000"), std::string::npos) << note;
  EXPECT_EQ(note.find("0x4000000000000002"), std::string::npos) << note;
  EXPECT_NE(note.find("lines 5-7"), std::string::npos) << note;
}

}  // namespace
}  // namespace realm_shadow
