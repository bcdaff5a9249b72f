// The Realm-log reader's additions for the tracked-build trial: Realm's
// fatal out-of-memory line fails the pending request, and a log can be cut
// at the marker line a dump wrote into it (realm_shadow/log_sink.h).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/ingest/realm_log.h"
#include "tests/common/dump_io.h"
#include "tests/common/temp_dir.h"
#include "realm_shadow/format/dump_marker.h"

namespace realm_shadow {
namespace {

constexpr uint64_t kSys = 0x1e00000000000000ull;

std::string Line(const std::string& logger, const std::string& message,
                 int level = 1) {
  return "[0 - 7f0000000001]    0.100000 {" + std::to_string(level) + "}{" +
         logger + "}: " + message;
}

const Snapshot* MemoryOf(const DumpFile& dump, uint64_t id) {
  for (const Snapshot& s : dump.memories)
    if (s.memory_id == id) return &s;
  return nullptr;
}

// Realm's fatal line for a memory (-level inst=6 prints it at level 6).
std::string OutOfMemoryLine(const std::string& memory = "1e00000000000000") {
  return Line("inst", "instance allocation failed - out of memory in mem " + memory, 6);
}

// creating -> layout -> (no outcome) for instance `inst` of `bytes`.
void Request(RealmLogReader& r, const std::string& inst, int bytes) {
  r.FeedLine(Line("inst", "creating new local instance: " + inst, 2));
  r.FeedLine(Line("inst", "instance layout: inst=" + inst +
                              " layout=Layout(bytes=" + std::to_string(bytes) +
                              ", align=64, fields=[])"));
}

TEST(RealmLogFatal, OutOfMemoryLineFailsTheRequestWithItsSize) {
  RealmLogReader r;
  r.FeedLine("Memory:1e00000000000000, SYSTEM_MEM, capacity: 1048576");
  Request(r, "4000000000000000", 4096);
  r.FeedLine(Line("inst", "allocation completed: inst=4000000000000000 offset=0"));
  Request(r, "4000000000000001", 2000000);
  r.FeedLine(OutOfMemoryLine());
  EXPECT_EQ(r.counts().unknown_lines, 0u);
  DumpFile dump = r.Dump();
  const Snapshot* s = MemoryOf(dump, kSys);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->failures.size(), 1u);
  EXPECT_EQ(s->failures[0].instance, 0x4000000000000001ull);
  EXPECT_EQ(s->failures[0].size, 2000000u);
  EXPECT_EQ(s->failures[0].alignment, 64u);
  EXPECT_FALSE(s->failures[0].eventual);
  EXPECT_EQ(s->allocations.size(), 1u);
  // The request no longer shows as "requested, outcome not in the log".
  for (const std::string& note : dump.notes)
    EXPECT_EQ(note.find("outcome not in the log"), std::string::npos) << note;
}

TEST(RealmLogFatal, FailsTheNewestRequestOfThatMemoryOnly) {
  RealmLogReader r;
  // A request in another memory (index 2: REGDMA) must stay untouched.
  Request(r, "4000000000800000", 100);
  Request(r, "4000000000000005", 300);
  Request(r, "4000000000000006", 500);
  r.FeedLine(Line("inst", "allocation completed: inst=4000000000000005 offset=0"));
  r.FeedLine(OutOfMemoryLine());
  DumpFile dump = r.Dump();
  const Snapshot* s = MemoryOf(dump, kSys);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->failures.size(), 1u);
  EXPECT_EQ(s->failures[0].instance, 0x4000000000000006ull);
  const Snapshot* regdma = MemoryOf(dump, 0x1e00000000000002ull);
  ASSERT_NE(regdma, nullptr);
  EXPECT_TRUE(regdma->failures.empty());
}

TEST(RealmLogFatal, DeferredRequestFailsEventually) {
  RealmLogReader r;
  Request(r, "4000000000000007", 4096);
  // Created with no outcome yet: deferred.
  r.FeedLine(Line("inst", "instance created: inst=4000000000000007 bytes=4096 "
                          "ready=8000000000000001", 2));
  r.FeedLine(OutOfMemoryLine());
  DumpFile dump = r.Dump();
  const Snapshot* s = MemoryOf(dump, kSys);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->failures.size(), 1u);
  EXPECT_TRUE(s->failures[0].eventual);
  EXPECT_TRUE(s->pending.empty());
}

TEST(RealmLogFatal, NoRequestIsCountedAndNoted) {
  RealmLogReader r;
  r.FeedLine(OutOfMemoryLine());
  r.FeedLine(OutOfMemoryLine("zz"));
  EXPECT_EQ(r.counts().fatal_without_request, 1u);
  EXPECT_EQ(r.counts().unknown_lines, 1u);  // the unparsable memory id
  bool noted = false;
  for (const std::string& note : r.Dump().notes)
    noted = noted || note.find("fatal out-of-memory") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(RealmLogEvents, ACancelledUserEventCancelsTheDestroyWaitingOnIt) {
  RealmLogReader r;
  Request(r, "4000000000000000", 256);
  r.FeedLine(Line("inst", "allocation completed: inst=4000000000000000 offset=0"));
  Request(r, "4000000000000001", 256);
  r.FeedLine(Line("inst", "allocation completed: inst=4000000000000001 offset=256"));
  r.FeedLine(Line("inst", "instance destroyed: inst=4000000000000000 "
                          "wait_on=8000000000100003", 2));
  r.FeedLine(Line("inst", "instance destroyed: inst=4000000000000001 "
                          "wait_on=8000000000100004", 2));
  // Another event: nothing changes; the destroy's own event: live again.
  r.FeedLine(Line("event", "user event cancelled: event=8000000000100009", 2));
  r.FeedLine(Line("event", "user event cancelled: event=8000000000100003", 2));
  r.FeedLine(Line("event", "user event trigger: event=8000000000100004 "
                           "wait_on=0", 2));
  EXPECT_EQ(r.counts().cancelled_releases, 1u);
  DumpFile dump = r.Dump();
  const Snapshot* s = MemoryOf(dump, kSys);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->allocations.size(), 2u);
  EXPECT_EQ(s->allocations[0].state, AllocationState::kLive);
  EXPECT_EQ(s->allocations[1].state, AllocationState::kReleasePending);
  EXPECT_EQ(r.counts().unknown_lines, 0u);
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

TEST(DumpMarker, LineRoundTripsAndBadLinesAreRefused) {
  DumpMarker m;
  m.memory_id = 0x1e00010000000002ull;
  m.sequence = 812;
  m.node = 1;
  m.reason = "periodic";
  m.file = "/tmp/a dir/x.rsd";
  const std::string line = DumpMarkerLine(m);
  EXPECT_EQ(line,
            "dump memory=0x1e00010000000002 sequence=812 node=1 "
            "reason=periodic file=/tmp/a dir/x.rsd");
  DumpMarker back;
  ASSERT_TRUE(ParseDumpMarker(line, &back));
  EXPECT_EQ(back.memory_id, m.memory_id);
  EXPECT_EQ(back.sequence, 812u);
  EXPECT_EQ(back.node, 1u);
  EXPECT_EQ(back.reason, "periodic");
  EXPECT_EQ(back.file, m.file);
  for (const char* bad :
       {"", "dump", "dump memory=0x1 sequence=x node=0 reason=r file=/f",
        "dump memory=zz sequence=1 node=0 reason=r file=/f",
        "dump memory=0x1 sequence=1 node=0 reason=r file=",
        "dump memory=0x1 sequence=1 node=0 file=/f",
        "dump not written file=/f error=e",
        "dump begin memory=0x1 node=0 reason=r file=/f"})
    EXPECT_FALSE(ParseDumpMarker(bad, &back)) << bad;
  const std::string begin = DumpBeginLine(m);
  EXPECT_EQ(begin,
            "dump begin memory=0x1e00010000000002 node=1 reason=periodic "
            "file=/tmp/a dir/x.rsd");
  ASSERT_TRUE(ParseDumpBegin(begin, &back));
  EXPECT_EQ(back.file, m.file);
  EXPECT_EQ(back.node, 1u);
  EXPECT_FALSE(ParseDumpBegin(line, &back));
}

}  // namespace
}  // namespace realm_shadow
