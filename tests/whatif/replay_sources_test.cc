// `realm-shadow replay` on its two sources, run as a process: a dump the
// tracker writes with its history (the whole run, and a window that has
// wrapped), and every fixture log (ingest-realm-log), whose recorded
// offsets a replay under `realm` must reproduce exactly; the smallest
// capacity of the fixtures' failing runs checked at it and one unit below;
// bad input (no history, a history with a hole in it) refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

#include "testing/workload.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/ingest/realm_log.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/recorder/recorder.h"
#include "whatif/from_dump.h"
#include "whatif/replay.h"
#include "tests/common/dump_io.h"
#include "tests/tools/run_cli.h"
#include "tests/whatif/fragmented_run.h"

namespace realm_shadow {
namespace {

using realm_shadow::testing::FragmentedRun;

using testing::Contains;
using testing::Result;
using testing::RunCli;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMemory = 0x1e00000000000020ull;
constexpr uint64_t kWrapped = 0x1e00000000000021ull;

std::string TestDir() {
  const std::string dir = ::testing::TempDir() + "/realm_shadow_replay_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name();
  EXPECT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
  return dir;
}

class ReplaySources : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TestDir();
    ResetTrackerForTesting();
    FragmentedRun(RegisterMemory(kMemory, MemoryKind::kSystem, 1000, "sys",
                                 REALM_SHADOW_SERIALIZED));
    std::string error;
    ASSERT_TRUE(testing::DumpMemoryStateTo(kMemory, dump_ = dir_ + "/sys.rsd", &error)) << error;
  }
  std::string dir_, dump_;
};

TEST_F(ReplaySources, ATrackerDumpReplaysItsWholeRun) {
  const Result r = RunCli("replay '" + dump_ + "' --min-capacity");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "replayed: events 1 to 10 (the whole run), 8 request(s)"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "self-check: 7/7 placements as recorded")) << r.output;
  // realm fails as the run did; best fit avoids it and needs no more.
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\n  realm +yes +0 of 1 )")))
      << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\n  best-fit +no +all, 1 of 1 .*1000 B)")))
      << r.output;
}

TEST_F(ReplaySources, AWrappedWindowReplaysFromItsBaseAndSaysSo) {
  realm_shadow_memory* w = RegisterMemory(kWrapped, MemoryKind::kSystem, 64 * kKiB, "w",
                                          REALM_SHADOW_SERIALIZED, 0, /*history_events=*/4);
  // A stays at [0, 1K); each of ten requests takes [1K, 2K), first fit,
  // and is released.
  realm_shadow_allocated(w, 0x4000000000000100ull, 0, kKiB, 1);
  for (uint64_t i = 1; i <= 10; ++i) {
    realm_shadow_allocated(w, 0x4000000000000100ull + i, kKiB, kKiB, 1);
    realm_shadow_released(w, 0x4000000000000100ull + i);
  }
  std::string error;
  const std::string path = dir_ + "/wrapped.rsd";
  ASSERT_TRUE(testing::DumpMemoryStateTo(kWrapped, path, &error)) << error;
  const Result r = RunCli("replay '" + path + "' --policy realm");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "(from the base snapshot: the history does not reach back "
                                 "to the start of the run)"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "note: the history starts after event ")) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(self-check: ([1-9]\d*)/\1 placements as recorded \(realm)")))
      << r.output;
}

TEST_F(ReplaySources, ADumpWithoutHistoryIsAClearError) {
  DumpFile d;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(dump_, &d, &error)) << error;
  d.histories.clear();
  const std::string path = dir_ + "/no_history.rsd";
  ASSERT_TRUE(testing::WriteDumpTo(path, d, &error)) << error;
  for (const std::string& extra : {std::string(), std::string(" --memory 1e00000000000020")}) {
    const Result r = RunCli("replay '" + path + "'" + extra);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_TRUE(Contains(r.output, "memory 0x1e00000000000020 of node 0: the dump holds no "
                                   "history of it"))
        << r.output;
  }
}

TEST_F(ReplaySources, AHistoryWithAHoleInItIsAClearError) {
  DumpFile d;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(dump_, &d, &error)) << error;
  ASSERT_EQ(d.histories.size(), 1u);
  // Events lost: the history no longer ends at the dump's picture.
  DumpFile shorter = d;
  shorter.histories[0].events.erase(shorter.histories[0].events.begin() + 3);
  const std::string short_path = dir_ + "/short.rsd";
  ASSERT_TRUE(testing::WriteDumpTo(short_path, shorter, &error)) << error;
  Result r = RunCli("replay '" + short_path + "'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "its history ends after event 9 but the dump's picture is after event 10: "
                                 "the history has a hole in it"))
      << r.output;
  // An allocation's event lost, the count kept: its release names a
  // request that no earlier event made.
  MemoryHistory& h = d.histories[0];
  ASSERT_EQ(static_cast<EventType>(h.events[1].stamp), EventType::kAllocated);
  h.events[1] = HistoryRecordOf(Event{EventType::kNoop, 0, 0, 0, 0});
  const std::string hole_path = dir_ + "/hole.rsd";
  ASSERT_TRUE(testing::WriteDumpTo(hole_path, d, &error)) << error;
  r = RunCli("replay '" + hole_path + "'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "event 7 (released of 0x4000000000000002) concerns a request no "
                                 "earlier event made and the base does not hold: the history "
                                 "has a hole in it"))
      << r.output;
}

// The demo's failure (testing/workload.h): a 192 MiB request deferred behind
// releases that a faulting task poisons.  Replayed from the tracker's dump:
// realm as recorded; live bytes then exceed the capacity, so no policy,
// compacting included, avoids it at the run's capacity, and no policy's
// smallest capacity is below the lower bound.
TEST(ReplayDemo, TheWorkloadsFailureNeedsMoreThanItsLiveBytes) {
  ResetTrackerForTesting();
  model::Workload workload;
  const model::WorkloadResult& result = workload.Run();
  ASSERT_TRUE(result.failed);
  const std::string path = TestDir() + "/failure.rsd";
  std::string error;
  ASSERT_TRUE(testing::DumpMemoryStateTo(result.failed_memory, path, &error)) << error;
  DumpFile dump;
  ASSERT_TRUE(testing::ReadDumpTo(path, &dump, &error)) << error;
  ASSERT_EQ(dump.memories.size(), 1u);
  absl::StatusOr<whatif::ReplayScript> script =
      whatif::ScriptOfDumpMemory(dump, dump.memories[0]);
  ASSERT_TRUE(script.ok()) << script.status();
  const whatif::ReplayScript& s = *script;
  EXPECT_EQ(s.first_sequence, 0u);
  const uint64_t lower = whatif::PeakLiveBytes(s);
  ASSERT_GT(lower, s.capacity);
  for (model::PlacementPolicy p : model::kAllPlacementPolicies) {
    whatif::ReplayOptions o;
    o.policy = p;
    const absl::StatusOr<whatif::ReplayResult> replayed = whatif::RunReplay(s, o);
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    const whatif::ReplayResult& r = *replayed;
    EXPECT_TRUE(r.failed()) << model::PlacementPolicyName(p);
    if (p == model::PlacementPolicy::kRealm) {
      EXPECT_GT(r.self_check.checked, 0u);
      EXPECT_EQ(r.self_check.as_recorded, r.self_check.checked);
    }
    const whatif::MinCapacity m = whatif::FindMinCapacity(s, p);
    ASSERT_TRUE(m.found) << m.method;
    EXPECT_GE(m.capacity, lower) << model::PlacementPolicyName(p);
  }
}

// ---- the fixture logs ---------------------------------------------------

std::vector<std::string> FixtureLogs() {
  std::vector<std::string> logs;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(REALM_SHADOW_FIXTURES_ROOT, ec))
    if (e.path().extension() == ".log") logs.push_back(e.path().string());
  std::sort(logs.begin(), logs.end());
  return logs;
}

// The log's "allocation completed" lines: one per placement it records.
uint64_t PlacementLines(const std::string& log) {
  std::ifstream in(log);
  uint64_t n = 0;
  for (std::string line; std::getline(in, line);)
    n += line.find("{inst}: allocation completed: inst=") != std::string::npos;
  return n;
}

// Every log of every fixture folder: ingested, replayed under realm at the
// run's capacity, every recorded placement where the log put it, and every
// placement line of the log counted (checked, or not checkable: a size the
// log does not give).
TEST(ReplayFixtures, RealmReproducesEveryRecordedOffset) {
  const std::vector<std::string> logs = FixtureLogs();
  if (logs.empty()) FAIL() << "no fixture logs under " << REALM_SHADOW_FIXTURES_ROOT;
  const std::string dir = TestDir();
  const std::regex check(
      R"(self-check: (\d+)/(\d+) placements as recorded(; (\d+) not checkable: sizes unknown)?[^\n]*)");
  for (const std::string& log : logs) {
    const std::string dump = dir + "/" + std::filesystem::path(log).stem().string() + ".rsd";
    Result r = RunCli("ingest-realm-log '" + log + "' -o '" + dump + "'");
    ASSERT_EQ(r.status, 0) << log << ": " << r.output;
    r = RunCli("replay '" + dump + "' --policy realm");
    ASSERT_EQ(r.status, 0) << log << ": " << r.output;
    int memories = 0;
    uint64_t placements = 0;
    for (std::sregex_iterator m(r.output.begin(), r.output.end(), check), end; m != end; ++m) {
      ++memories;
      std::cout << std::filesystem::path(log).filename().string() << ": " << (*m)[0] << "\n";
      EXPECT_EQ((*m)[1], (*m)[2]) << log << "\n" << r.output;
      EXPECT_FALSE(Contains((*m)[0], "differ")) << log << "\n" << r.output;
      placements += std::stoull((*m)[2]) + ((*m)[4].matched ? std::stoull((*m)[4]) : 0);
    }
    EXPECT_GE(memories, 1) << log << "\n" << r.output;
    EXPECT_EQ(placements, PlacementLines(log)) << log << "\n" << r.output;
  }
}

// The replay and the timeline number events alike: every first failure the
// replay finds under realm is a failure the timeline lists, under the same
// event number (a failure that the replay cannot redo, a redistrict piece
// of unknown size, is listed but not replayed).
TEST(ReplayFixtures, TheFirstFailureIsTheTimelinesEvent) {
  const std::string dir = TestDir();
  int failing = 0;
  const std::regex replayed(R"(\n    realm +event (\d+) \()");
  const std::regex listed(R"(\n    event (\d+) \([^)]*\): instance )");
  for (const std::string& log : FixtureLogs()) {
    const std::string dump = dir + "/" + std::filesystem::path(log).stem().string() + "_n.rsd";
    Result r = RunCli("ingest-realm-log '" + log + "' -o '" + dump + "'");
    ASSERT_EQ(r.status, 0) << log << ": " << r.output;
    const Result replay = RunCli("replay '" + dump + "' --policy realm");
    ASSERT_EQ(replay.status, 0) << log << ": " << replay.output;
    const Result timeline = RunCli("timeline '" + dump + "'");
    ASSERT_EQ(timeline.status, 0) << log << ": " << timeline.output;
    std::vector<std::string> failures;
    for (std::sregex_iterator m(timeline.output.begin(), timeline.output.end(), listed), end;
         m != end; ++m)
      failures.push_back((*m)[1]);
    for (std::sregex_iterator m(replay.output.begin(), replay.output.end(), replayed), end;
         m != end; ++m) {
      ++failing;
      EXPECT_NE(std::find(failures.begin(), failures.end(), (*m)[1].str()), failures.end())
          << log << ": the replay's first failure at event " << (*m)[1] << "\n"
          << replay.output << timeline.output;
    }
  }
  if (failing == 0) FAIL() << "no failing fixture run";
}

// The smallest capacity of each failing fixture run, per policy: no failure
// at it, a failure one alignment unit below.
TEST(ReplayFixtures, MinCapacityIsVerifiedAtItAndOneUnitBelow) {
  int failing = 0;
  for (const std::string& log : FixtureLogs()) {
    const absl::StatusOr<DumpFile> ingested = IngestRealmLogs({log});
    ASSERT_TRUE(ingested.ok()) << ingested.status();
    const DumpFile& dump = *ingested;
    std::string error;
    for (const Snapshot& memory : dump.memories) {
      if (memory.failures.empty()) continue;
      ++failing;
      absl::StatusOr<whatif::ReplayScript> script = whatif::ScriptOfDumpMemory(dump, memory);
      ASSERT_TRUE(script.ok()) << log << ": " << script.status();
      const whatif::ReplayScript& s = *script;
      for (model::PlacementPolicy p : model::kAllPlacementPolicies) {
        const whatif::MinCapacity m = whatif::FindMinCapacity(s, p);
        ASSERT_TRUE(m.found) << log << " " << model::PlacementPolicyName(p) << ": " << m.method;
        for (uint64_t capacity : {m.capacity, m.capacity - m.unit}) {
          whatif::ReplayOptions o;
          o.policy = p;
          o.capacity = capacity;
          const absl::StatusOr<whatif::ReplayResult> r = whatif::RunReplay(s, o);
          ASSERT_TRUE(r.ok()) << r.status();
          EXPECT_EQ(r->failed(), capacity < m.capacity)
              << log << " " << model::PlacementPolicyName(p) << " at " << capacity;
        }
      }
    }
  }
  if (failing == 0) FAIL() << "no failing fixture run";
}

}  // namespace
}  // namespace realm_shadow
