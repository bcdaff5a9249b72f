// `timeline`, `at` and `trace` run as processes on a dump this test makes
// with the tracker itself: a 1 MiB memory whose every figure is known by
// hand (the comments below count them), and one whose 4-event window has
// wrapped.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/hooks.h"
#include "tests/common/dump_io.h"
#include "tests/common/temp_dir.h"
#include "tests/tools/run_cli.h"
#include "realm_shadow/live/dump.h"

namespace realm_shadow {
namespace {

using testing::ContainsText;
using testing::Result;
using testing::RunCli;

constexpr uint64_t kKiB = 1024;

class HistoryCli : public ::testing::Test {
 protected:
  // The hand-counted memory, and the one whose window wrapped.
  static constexpr uint64_t kMemory = 0x1e00000000000010ull;
  static constexpr uint64_t kWrapped = 0x1e00000000000011ull;

  void SetUp() override {
    ResetTrackerForTesting();
    realm_shadow_memory* m = RegisterMemory(kMemory, MemoryKind::kSystem,
                                            1024 * kKiB, "sys", REALM_SHADOW_SERIALIZED);
    // Figures after each event (used; largest hole), counted by hand:
    //  1 A [0, 256K)        256K; 768K
    //  2 B [256K, 512K)     512K; 512K
    //  3 C [512K, 768K)     768K; 256K   <- peak used
    //  4 B release ready    768K; 256K
    //  5 B released         512K; 256K (two holes of 256K)
    //  6 D [256K, 384K)     640K; 256K (and a 128K hole)
    //  7 E fails, 300K      fragmentation: 384K free, largest 256K
    // Each event drained on its own (a snapshot after it), so that each has
    // its own drain time and the trace spans them.
    realm_shadow_allocated(m, 0x4000000000000001ull, 0, 256 * kKiB, 64);
    TakeSnapshot(m);
    realm_shadow_allocated(m, 0x4000000000000002ull, 256 * kKiB, 256 * kKiB, 64);
    TakeSnapshot(m);
    realm_shadow_allocated(m, 0x4000000000000003ull, 512 * kKiB, 256 * kKiB, 64);
    TakeSnapshot(m);
    realm_shadow_release_requested(m, 0x4000000000000002ull, 1);
    TakeSnapshot(m);
    realm_shadow_released(m, 0x4000000000000002ull);
    TakeSnapshot(m);
    realm_shadow_allocated(m, 0x4000000000000004ull, 256 * kKiB, 128 * kKiB, 64);
    TakeSnapshot(m);
    realm_shadow_allocation_failed(m, 0x4000000000000005ull, 300 * kKiB, 64);
    std::string error;
    ASSERT_TRUE(testing::DumpMemoryStateTo(kMemory, dump_ = dir_ + "/sys.rsd", &error)) << error;

    realm_shadow_memory* w = RegisterMemory(kWrapped, MemoryKind::kFramebuffer,
                                            1024 * kKiB, "fb", REALM_SHADOW_SERIALIZED,
                                            0, /*history_events=*/4);
    for (uint64_t i = 0; i < 10; ++i) {
      realm_shadow_allocated(w, 0x4000000000000100ull + i, i * kKiB, kKiB, 1);
      realm_shadow_released(w, 0x4000000000000100ull + i);
    }
    ASSERT_TRUE(testing::Succeeded(DumpAllMemories(all_ = dir_ + "/all.rsd"), &error)) << error;
  }
  testing::TempDir temp_{"realm_shadow_history_cli"};
  const std::string dir_ = temp_.path();
  std::string dump_, all_;
};

TEST_F(HistoryCli, TimelineOfAHandCountedRun) {
  Result r = RunCli("timeline '" + dump_ + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "7 event(s), moments 0 to 7 (the whole run)")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "peak used         768 KiB (786432 B) of 1 MiB (75.0%), first at event 3"))
      << r.output;
  EXPECT_TRUE(ContainsText(r.output, "largest hole      1 MiB at the start, 256 KiB at the end; smallest 256 KiB (262144 B), first at event 3"))
      << r.output;
  // Three drops of 256 KiB, by the three first allocations, in event order.
  const size_t drop1 = r.output.find("event 1 (");
  const size_t drop2 = r.output.find("event 2 (");
  EXPECT_NE(drop1, std::string::npos);
  EXPECT_LT(drop1, drop2);
  EXPECT_TRUE(ContainsText(r.output, "1 MiB -> 768 KiB (-256 KiB) by allocated 0x4000000000000001 [0, 262144)"))
      << r.output;
  // A lives longest (6 events, still live); B lived 3.
  EXPECT_TRUE(ContainsText(r.output, "0x4000000000000001 [0, 262144) 256 KiB: from event 1")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "to the end (still live), 6 events")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "failures          1 in the window")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "instance 0x4000000000000005 (instant) request 300 KiB (307200 B) align 64"))
      << r.output;
  EXPECT_TRUE(ContainsText(r.output, "then used 640 KiB, total free 384 KiB, largest hole 256 KiB"))
      << r.output;
  EXPECT_TRUE(ContainsText(r.output, "the 6 event(s) before it:")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "released 0x4000000000000002")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "drain time")) << r.output;
}

TEST_F(HistoryCli, AtGivesTheExactStateAsADumpOtherCommandsRead) {
  const std::string at3 = dir_ + "/at3.rsd", at5 = dir_ + "/at5.rsd";
  ASSERT_EQ(RunCli("at '" + dump_ + "' --event 3 -o '" + at3 + "'").status, 0);
  ASSERT_EQ(RunCli("at '" + dump_ + "' --event 5 --with-history -o '" + at5 + "'").status, 0);
  Result r = RunCli("report '" + at3 + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "768 KiB (786432 B) in 3 allocation(s)")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "the state after event 3")) << r.output;
  r = RunCli("diff '" + at3 + "' '" + at5 + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "events 3 -> 5")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "removed 1")) << r.output;
  r = RunCli("holes '" + at5 + "'");
  EXPECT_TRUE(ContainsText(r.output, "offset 262144  end 524288")) << r.output;
  r = RunCli("timeline '" + at5 + "'");  // the history travels, cut there
  EXPECT_TRUE(ContainsText(r.output, "5 event(s), moments 0 to 5")) << r.output;
  // By time: far ahead is the end; an event number per memory needs one.
  const std::string late = dir_ + "/late.rsd";
  r = RunCli("at '" + dump_ + "' --time 1000000 -o '" + late + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "after 7 event(s)")) << r.output;
  r = RunCli("at '" + all_ + "' --event 2 -o '" + late + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(ContainsText(r.output, "give --memory ID")) << r.output;
  EXPECT_EQ(RunCli("at '" + dump_ + "' -o x").status, 2);
  EXPECT_EQ(RunCli("at '" + dump_ + "' --event 1 --time 1 -o x").status, 2);
  EXPECT_EQ(RunCli("at '" + dump_ + "' --time 12x -o x").status, 2);
  // The last nanosecond the clock holds (2^63 - 1) is a time; one more, or
  // twelve digits of seconds, is refused rather than wrapped.
  r = RunCli("at '" + dump_ + "' --time 9223372036.854775807 -o '" + late + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  r = RunCli("at '" + dump_ + "' --time 9223372036.854775808 -o x");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "past the clock's range")) << r.output;
  EXPECT_EQ(RunCli("at '" + dump_ + "' --time 999999999999 -o x").status, 2);
  EXPECT_EQ(RunCli("at '" + dump_ + "' --event 3").status, 2);
}

TEST_F(HistoryCli, MomentsOutsideTheWindowAreAnErrorThatNamesIt) {
  // 20 events through a 4-event window: the last 4 (at least) are kept.
  Result r = RunCli("at '" + all_ + "' --memory 0x1e00000000000011 --event 2 -o '" +
                    dir_ + "/x.rsd'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "moment 2 is outside the history of memory 0x1e00000000000011"))
      << r.output;
  EXPECT_TRUE(ContainsText(r.output, "events before were dropped: the window keeps the last 4 events"))
      << r.output;
  r = RunCli("at '" + all_ + "' --memory 0x1e00000000000011 --event 20 -o '" +
             dir_ + "/x.rsd'");
  EXPECT_EQ(r.status, 0) << r.output;
  r = RunCli("at '" + all_ + "' --memory 0x1e00000000000011 --event 21 -o '" +
             dir_ + "/x.rsd'");
  EXPECT_EQ(r.status, 1) << r.output;
  r = RunCli("timeline '" + all_ + "' --memory 0x1e00000000000011");
  EXPECT_TRUE(ContainsText(r.output, "events before were dropped")) << r.output;
}

TEST_F(HistoryCli, TraceFollowsTheTraceEventFormat) {
  const std::string trace = dir_ + "/trace.json";
  Result r = RunCli("trace '" + dump_ + "' -o '" + trace + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "4 allocation lives")) << r.output;
  // The span in microseconds is the history's first to last event.
  DumpFile dump;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(dump_, &dump, &error)) << error;
  const MemoryHistory& h = dump.histories.at(0);
  const double span_us =
      (h.TimeOfEvent(h.end_sequence() - 1) - h.TimeOfEvent(0)) / 1000.0;
  ASSERT_GT(span_us, 0.0);
  const std::string check = std::string(REALM_SHADOW_PYTHON) + " '" +
                            REALM_SHADOW_CHECK_TRACE + "' '" + trace + "'";
  char range[96];
  std::snprintf(range, sizeof range, " --span-us %.3f %.3f", span_us - 0.0015,
                span_us + 0.0015);
  EXPECT_EQ(std::system((check + range + " --lives 4 --failures 1").c_str()), 0);
  // Two nodes' worth: the all-memories dump too, one process, two threads.
  r = RunCli("trace '" + all_ + "' '" + dump_ + "' -o '" + trace + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(std::system(check.c_str()), 0);
  // The checker itself refuses a broken file: an "e" with no "b".
  {
    std::ofstream bad(dir_ + "/bad.json");
    bad << R"({"traceEvents":[{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"n"}},)"
        << R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}},)"
        << R"({"ph":"e","cat":"allocation","name":"m","id":"x","pid":1,"tid":1,"ts":1}]})";
  }
  EXPECT_NE(std::system((std::string(REALM_SHADOW_PYTHON) + " '" +
                         REALM_SHADOW_CHECK_TRACE + "' '" + dir_ + "/bad.json' >/dev/null")
                            .c_str()),
            0);
}

TEST_F(HistoryCli, TraceKeepsTheLivesOfAReusedInstanceApart) {
  // One instance id placed three times (Realm reuses ids), another once in
  // between: four slices, the reused id's numbered 1, 2 and 3.
  constexpr uint64_t kReused = 0x1e00000000000012ull;
  constexpr uint64_t kX = 0x4000000000000021ull, kY = 0x4000000000000022ull;
  realm_shadow_memory* m = RegisterMemory(kReused, MemoryKind::kSystem,
                                          1024 * kKiB, "reuse", REALM_SHADOW_SERIALIZED);
  realm_shadow_allocated(m, kX, 0, 4 * kKiB, 64);
  TakeSnapshot(m);
  realm_shadow_released(m, kX);
  realm_shadow_allocated(m, kY, 0, 4 * kKiB, 64);
  TakeSnapshot(m);
  realm_shadow_allocated(m, kX, 8 * kKiB, 4 * kKiB, 64);
  realm_shadow_released(m, kX);
  TakeSnapshot(m);
  realm_shadow_allocated(m, kX, 16 * kKiB, 4 * kKiB, 64);
  std::string error;
  const std::string dump = dir_ + "/reuse.rsd", trace = dir_ + "/reuse.json";
  ASSERT_TRUE(testing::DumpMemoryStateTo(kReused, dump, &error)) << error;
  Result r = RunCli("trace '" + dump + "' -o '" + trace + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(trace);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  for (const char* id : {"/0x4000000000000021/1\"", "/0x4000000000000021/2\"",
                         "/0x4000000000000021/3\"", "/0x4000000000000022/1\""})
    EXPECT_TRUE(ContainsText(text, id)) << id;
  EXPECT_FALSE(ContainsText(text, "/0x4000000000000021/4\""));
  EXPECT_FALSE(ContainsText(text, "/0x4000000000000022/2\""));
  EXPECT_EQ(std::system((std::string(REALM_SHADOW_PYTHON) + " '" +
                         REALM_SHADOW_CHECK_TRACE + "' '" + trace + "' --lives 4")
                            .c_str()),
            0);
}

TEST_F(HistoryCli, DumpsWithoutHistoryAreSaidSo) {
  const std::string plain = dir_ + "/plain.rsd";
  DumpFile dump;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(dump_, &dump, &error)) << error;
  dump.histories.clear();
  ASSERT_TRUE(testing::WriteDumpTo(plain, dump, &error)) << error;
  Result r = RunCli("timeline '" + plain + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(ContainsText(r.output, "no history in")) << r.output;
  r = RunCli("at '" + plain + "' --event 1 -o '" + dir_ + "/x.rsd'");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(ContainsText(r.output, "no memory has a history")) << r.output;
  r = RunCli("trace '" + plain + "' -o '" + dir_ + "/t.json'");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(ContainsText(r.output, "has a history")) << r.output;
}

}  // namespace
}  // namespace realm_shadow
