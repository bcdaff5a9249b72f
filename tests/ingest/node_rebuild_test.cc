// One node's replay (node_rebuild.h): what each "inst" line does to an
// instance's life and its memory's map (Realm's fatal out-of-memory line,
// a cancelled user event), that every applied event is observed, that a
// Legion Spy record stays with the life it was logged in, and that another
// node's instances never allocate here.
#include "realm_shadow/ingest/node_rebuild.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/ingest/realm_log.h"
#include "realm_shadow/render/report.h"
#include "tests/ingest/log_fixtures.h"

namespace realm_shadow {
namespace {

using testing::OnlyMemory;
using testing::Ingest;
using testing::kPlaced64;
using testing::PrintedIdentity;
using testing::kRuns;
using testing::kSys;
using testing::Line;
using testing::RankLogs;

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

TEST(NodeRebuildFatal, OutOfMemoryLineFailsTheRequestWithItsSize) {
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

TEST(NodeRebuildFatal, FailsTheNewestRequestOfThatMemoryOnly) {
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

TEST(NodeRebuildFatal, DeferredRequestFailsEventually) {
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

TEST(NodeRebuildFatal, NoRequestIsCountedAndNoted) {
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

// Realm's fatal line when nobody asked for the allocation result names the
// memory: the newest request there without an outcome fails.
TEST(NodeRebuildFatal, FatalOutOfMemoryLineFailsTheNewestRequest) {
  RealmLogReader reader;
  reader.FeedText(
      "[0 - 1] 0.1 {2}{inst}: creating new local instance: 4000000000000000\n"
      "[0 - 1] 0.1 {1}{inst}: instance layout: inst=4000000000000000 "
      "layout=Layout(bytes=64, align=32)\n"
      "[0 - 1] 0.1 {1}{inst}: allocation completed: inst=4000000000000000 "
      "offset=0\n"
      "[0 - 1] 0.2 {2}{inst}: creating new local instance: 4000000000000001\n"
      "[0 - 1] 0.2 {1}{inst}: instance layout: inst=4000000000000001 "
      "layout=Layout(bytes=4096, align=64)\n"
      "[0 - 1] 0.2 {6}{inst}: instance allocation failed - out of memory in "
      "mem 1e00000000000000\n"
      "[0 - 1] 0.3 {6}{inst}: instance allocation failed - out of memory in "
      "mem 1e00000000000000\n");
  DumpFile dump = reader.Dump();
  const Snapshot& s = OnlyMemory(dump);
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].instance, 0x4000000000000001u);
  EXPECT_EQ(s.failures[0].size, 4096u);
  EXPECT_EQ(s.failures[0].alignment, 64u);
  EXPECT_EQ(s.allocations.size(), 1u);
  // The second fatal line finds no request left: counted.
  EXPECT_EQ(reader.counts().fatal_without_request, 1u);
  EXPECT_EQ(reader.counts().unknown_lines, 0u);
}

TEST(NodeRebuild, ACancelledUserEventCancelsTheDestroyWaitingOnIt) {
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

// Every applied event is seen, in order, with its line and the log's time:
// what a timeline of the run is built from.
TEST(NodeRebuild, ObserverSeesEveryEventWithItsLineAndTime) {
  std::vector<realm_log::AppliedEvent> seen;
  realm_log::RebuildOptions options;
  options.observer = [&](const realm_log::AppliedEvent& e) { seen.push_back(e); };
  RealmLogReader reader(&options);
  reader.FeedText(
      "[2 - 1] 1.5 {2}{inst}: creating new local instance: 4000800080000000\n"
      "[2 - 1] 1.5 {1}{inst}: instance layout: inst=4000800080000000 "
      "layout=Layout(bytes=64, align=32)\n"
      "[2 - 1]    2.000250 {1}{inst}: allocation completed: "
      "inst=4000800080000000 offset=128\n"
      "[2 - 1] 3.25 {2}{inst}: instance destroyed: inst=4000800080000000 "
      "wait_on=0\n"
      "[2 - 1] 4 {1}{inst}: deallocation completed: inst=4000800080000000\n");
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].event.type, EventType::kAllocated);
  EXPECT_EQ(seen[0].line, 3u);
  EXPECT_EQ(seen[0].time_us, 2000250u);
  EXPECT_EQ(seen[0].node, 2u);
  EXPECT_EQ(seen[0].memory, 0x1e00020000000000u);
  EXPECT_EQ(seen[1].event.type, EventType::kReleaseRequested);
  EXPECT_EQ(seen[1].time_us, 3250000u);
  EXPECT_EQ(seen[2].event.type, EventType::kReleased);
  EXPECT_EQ(seen[2].line, 5u);
  EXPECT_EQ(seen[2].time_us, 4000000u);
}

// Ids are reused: a Legion Spy record belongs to the life it was logged in,
// never to the next life of the same id.
TEST(NodeRebuild, IdentityStaysWithItsInstanceLife) {
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
  const Snapshot& s = OnlyMemory(dump);
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].size, 128u);
  // The new life: not named (its layout's figures only).
  EXPECT_EQ(PrintedIdentity(s, s.allocations[0].identity), "");
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

TEST(NodeRebuild, RemoteProxiesNeverAllocate) {
  SKIP_WITHOUT_SPY_FIXTURES();
  const DumpFile dump = Ingest(RankLogs(kRuns[1]));  // 2-rank normal
  for (const Snapshot& s : dump.memories) EXPECT_TRUE(s.allocations.empty());
  bool noted = false;
  for (const std::string& n : dump.notes)
    noted |= n.find("remote proxy line(s)") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace realm_shadow
