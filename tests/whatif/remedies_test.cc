// The remedies of a failure (analysis/remedies.h, whatif/remedies.h) on runs
// the tracker records, where each answer is known: a failure that only more
// capacity fixes (and the replay check of the flag's value), one that the
// size-classes allocator avoids and first fit does not, one that waiting
// for the releases it counted on would have placed, and a dump without
// history (the remedies that need one say what is missing and how to get
// it; the others still print); then `explain` and the end of `report` as
// the user runs them.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/recorder/recorder.h"
#include "tests/common/contains_text.h"
#include "tests/common/dump_io.h"
#include "tests/common/temp_dir.h"
#include "tests/tools/run_cli.h"
#include "tests/whatif/fragmented_run.h"
#include "whatif/explain.h"
#include "whatif/remedies.h"

namespace realm_shadow {
namespace {

// realm_shadow::testing: RunCli and its Result, Contains, ContainsText,
// FragmentedRun.
using namespace testing;

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kMemory = 0x1e00000000000030ull;
constexpr uint64_t kId = 0x4000000000000000ull;

class RemediesOfARun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path();
    ResetTrackerForTesting();
  }
  realm_shadow_memory* Memory(uint64_t capacity) {
    return RegisterMemory(kMemory, MemoryKind::kSystem, capacity, "sys",
                          REALM_SHADOW_SERIALIZED);
  }
  // The dump of the memory, written and read back; every failure explained.
  std::vector<FailureRemedies> Explain(const std::string& name) {
    std::string error;
    path_ = dir_ + "/" + name + ".rsd";
    EXPECT_TRUE(testing::DumpMemoryStateTo(kMemory, path_, &error)) << error;
    EXPECT_TRUE(testing::ReadDumpTo(path_, &dump_, &error)) << error;
    std::vector<FailureRemedies> out;
    if (dump_.memories.size() != 1) return out;
    whatif::ExplainFailures(dump_, dump_.memories[0], whatif::ExplainOptions{},
                            [&](const Snapshot&, const FailureRemedies& r) {
                              out.push_back(r);
                            });
    return out;
  }
  testing::TempDir tmp_{"realm-shadow-remedies"};
  std::string dir_, path_;
  DumpFile dump_;
};

// 3 MiB live in 4 MiB, then 5 MiB asked: larger than the memory, so no
// release helps, nothing is pinned, no release was pending.  Only capacity
// does: 8 MiB, -ll:csize 8, which a replay passes and 7 fails.
TEST_F(RemediesOfARun, OnlyCapacityFixesIt) {
  realm_shadow_memory* m = Memory(4 * kMiB);
  realm_shadow_allocated(m, kId + 1, 0, 3 * kMiB, 1);
  realm_shadow_allocation_failed(m, kId + 2, 5 * kMiB, 1);
  const std::vector<FailureRemedies> all = Explain("capacity");
  ASSERT_EQ(all.size(), 1u);
  const FailureRemedies& r = all[0];
  EXPECT_EQ(r.release.verdict, RemedyVerdict::kDoesNotFit);
  EXPECT_EQ(r.release_pinned.verdict, RemedyVerdict::kNotApplicable);
  EXPECT_EQ(r.wait.verdict, RemedyVerdict::kNotApplicable);
  EXPECT_EQ(r.waste.verdict, RemedyVerdict::kUnknown);  // a tracked dump: no figures
  EXPECT_EQ(r.allocator.verdict, RemedyVerdict::kDoesNotFit);
  const CapacityRemedy& c = r.capacity;
  ASSERT_EQ(c.verdict, RemedyVerdict::kFits) << c.reason << c.missing;
  EXPECT_TRUE(c.reproduced);
  EXPECT_EQ(c.min_capacity, 8 * kMiB);
  EXPECT_EQ(c.flag, "-ll:csize");
  EXPECT_EQ(c.legate_flag, "--sysmem");
  EXPECT_EQ(c.flag_value, 8u);
  // The check: a replay at exactly 8 MiB passes, one at 7 MiB fails.
  EXPECT_TRUE(c.checked);
  ASSERT_TRUE(c.at_flag.run);
  EXPECT_EQ(c.at_flag.capacity, 8 * kMiB);
  EXPECT_TRUE(c.at_flag.passes);
  ASSERT_TRUE(c.one_below.run);
  EXPECT_EQ(c.one_below.capacity, 7 * kMiB);
  EXPECT_FALSE(c.one_below.passes);
  EXPECT_EQ(c.values_tried_above, 0);
  ASSERT_FALSE(OrderedRemedies(r).empty());
  EXPECT_EQ(OrderedRemedies(r).front(), RemedyKind::kCapacity);

  const Result out = RunCli("explain '" + path_ + "'");
  ASSERT_EQ(out.status, 0) << out.output;
  EXPECT_TRUE(ContainsText(out.output, "1. capacity        -ll:csize 8 (MiB; Legate: --sysmem 8), "
                                       "from the smallest capacity found past this failure, 8 MiB"));
  EXPECT_TRUE(ContainsText(out.output, "checked: a replay at exactly 8 MiB passes, at one MiB less "
                                       "fails"));
  EXPECT_TRUE(ContainsText(out.output, "what gets past this failure, not what the whole run needs"));
  // report ends with the same section.
  const Result report = RunCli("report '" + path_ + "'");
  ASSERT_EQ(report.status, 0) << report.output;
  EXPECT_TRUE(ContainsText(report.output, "\nremedies: what would make each failure fit"));
  EXPECT_TRUE(ContainsText(report.output, "1. capacity        -ll:csize 8"));
  const Result quick = RunCli("report '" + path_ + "' --no-replay");
  EXPECT_FALSE(ContainsText(quick.output, "-ll:csize 8"));
  // The page: the remedies beside the failure, in its data block.
  const std::string page = dir_ + "/map.html";
  ASSERT_EQ(RunCli("html '" + path_ + "' -o '" + page + "'").status, 0);
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(Contains(html, R"("remedies":[{"instance":"0x4000000000000002")")) << page;
  EXPECT_TRUE(Contains(html, R"({"kind":"capacity","fits":true,"checked":true,"text":"-ll:csize 8 (MiB)"))
      << page;
  const Result json = RunCli("explain '" + path_ + "' --json");
  ASSERT_EQ(json.status, 0) << json.output;
  EXPECT_TRUE(std::regex_search(json.output, std::regex(R"("flag_value": ?8\b)")))
      << json.output;
}

// The fragmented run (fragmented_run.h): first fit fails the 250 B request;
// Realm's size classes place it.
TEST_F(RemediesOfARun, SizeClassesAvoidsWhatFirstFitDoesNot) {
  FragmentedRun(Memory(1000));
  const std::vector<FailureRemedies> all = Explain("sizes");
  ASSERT_EQ(all.size(), 1u);
  const AllocatorRemedy& a = all[0].allocator;
  ASSERT_EQ(a.verdict, RemedyVerdict::kFits) << a.reason << a.missing;
  ASSERT_EQ(a.policies.size(), 2u);
  EXPECT_EQ(a.policies[0].policy, "size-classes");
  EXPECT_TRUE(a.policies[0].avoids);
  EXPECT_TRUE(a.policies[0].min_found);
  EXPECT_LE(a.policies[0].min_capacity, 1000u);
  EXPECT_TRUE(all[0].capacity.reproduced);  // first fit (realm) fails as the run did
  EXPECT_GT(a.realm_min_capacity, 1000u);
  const Result out = RunCli("explain '" + path_ + "'");
  EXPECT_TRUE(ContainsText(out.output, "size-classes avoids it at the run's capacity"));
}

// A deferred request counted on B's release, whose precondition was then
// poisoned: B stays, the request fails.  Had the release completed, it
// would have been placed where Realm planned it, at 600.
TEST_F(RemediesOfARun, WaitingForTheReleasesItCountedOnWouldHavePlacedIt) {
  realm_shadow_memory* m = Memory(1000);
  realm_shadow_allocated(m, kId + 1, 0, 600, 1);
  realm_shadow_allocated(m, kId + 2, 600, 400, 1);
  realm_shadow_release_requested(m, kId + 2, /*ready=*/0);
  realm_shadow_deferred(m, kId + 3, 400, 1, /*planned_offset=*/600);
  realm_shadow_release_cancelled(m, kId + 2);
  realm_shadow_deferred_failed(m, kId + 3);
  const std::vector<FailureRemedies> all = Explain("wait");
  ASSERT_EQ(all.size(), 1u);
  const WaitRemedy& w = all[0].wait;
  ASSERT_EQ(w.verdict, RemedyVerdict::kFits) << w.reason << w.missing;
  EXPECT_TRUE(w.checked);
  EXPECT_TRUE(w.plan_known);
  EXPECT_EQ(w.placement, 600u);
  ASSERT_EQ(w.counted_on.size(), 1u);
  EXPECT_EQ(w.counted_on[0].allocation.instance, kId + 2);
  EXPECT_EQ(w.counted_on[0].fate, ReleaseFate::kCancelled);
  const Result out = RunCli("explain '" + path_ + "'");
  EXPECT_TRUE(ContainsText(out.output, "wait            it counted on 1 release(s), 400 B, under "
                                       "its plan at 600"));
  EXPECT_TRUE(ContainsText(out.output, "cancelled (its precondition was poisoned): "
                                       "0x4000000000000002"));
}

// Bad input: the same dump without its history.  Release still answers;
// wait, capacity and allocator say what is missing and how to get it.
TEST_F(RemediesOfARun, ADumpWithoutHistoryStillGetsWhatNeedsNone) {
  realm_shadow_memory* m = Memory(4 * kMiB);
  realm_shadow_allocated(m, kId + 1, 0, 3 * kMiB, 1);
  realm_shadow_allocated(m, kId + 2, 3 * kMiB, kMiB / 2, 1);
  realm_shadow_allocated(m, kId + 3, 3 * kMiB + kMiB / 2, kMiB / 2, 1);
  realm_shadow_release_requested(m, kId + 3, 0);
  realm_shadow_deferred(m, kId + 4, kMiB, 1, REALM_SHADOW_NO_OFFSET);
  realm_shadow_release_cancelled(m, kId + 3);
  realm_shadow_deferred_failed(m, kId + 4);
  Explain("with_history");
  DumpFile d = dump_;
  d.histories.clear();
  std::string error;
  const std::string path = dir_ + "/no_history.rsd";
  ASSERT_TRUE(testing::WriteDumpTo(path, d, &error)) << error;
  const Result out = RunCli("explain '" + path + "'");
  ASSERT_EQ(out.status, 0) << out.output;
  EXPECT_TRUE(std::regex_search(out.output,
                                std::regex(R"(1\. release +release \d+ collectable allocation)")))
      << out.output;
  for (const char* kind : {"wait", "capacity", "allocator"})
    EXPECT_TRUE(std::regex_search(
        out.output, std::regex(std::string("-  ") + kind +
                               R"( +unknown: needs .*history.*REALM_SHADOW_HISTORY)")))
        << kind << "\n" << out.output;
}

// A stock log's rebuild (the circuit-oom fixture: 48 instances, a 717.91
// KiB request in 8 MiB): the release remedy cannot know which instances are
// collectable and says so, release-pinned cannot be told, and the waste is
// counted from the layout figures the rebuild attached to its final picture
// (every instance's layout holds its field bytes exactly: padding 0), also
// on the state just before the failure that the history rebuilds.
TEST(RemediesOfALog, AStockLogsRebuildSaysGcIsUnknownAndCountsItsWaste) {
  const testing::TempDir tmp("realm-shadow-remedies");
  const std::string dump = tmp.path() + "/circuit-oom.rsd";
  const Result ingest = RunCli("ingest-realm-log '" REALM_SHADOW_FIXTURES_ROOT
                               "/realm-logs/circuit-oom.log' -o '" + dump + "'");
  ASSERT_EQ(ingest.status, 0) << ingest.output;
  const Result out = RunCli("explain '" + dump + "'");
  ASSERT_EQ(out.status, 0) << out.output;
  EXPECT_TRUE(ContainsText(out.output, "judged on the state just before it"));
  EXPECT_TRUE(ContainsText(out.output, "if Legion may collect them (GC state unknown: a stock log "
                                       "cannot tell which are collectable)"));
  EXPECT_TRUE(ContainsText(out.output, "release-pinned  unknown: needs which instances Legion "
                                       "keeps valid"));
  EXPECT_TRUE(ContainsText(out.output, "0 B held unasked in live instances (padding 0 B, inflation "
                                       "unknown, unrequested fields unknown; 48 of 48 instance(s) "
                                       "with figures)"));
  EXPECT_TRUE(ContainsText(out.output, "capacity        -ll:csize 9 (MiB; Legate: --sysmem 9)"));
  const Result blockers = RunCli("blockers '" + dump + "' --size 735140 --align 32");
  EXPECT_TRUE(ContainsText(blockers.output, "GC state unknown"));
}

// The flag of each kind of memory, in MiB; none for a dynamic framebuffer.
TEST(CapacityFlag, EachKindItsFlag) {
  EXPECT_STREQ(whatif::CapacityFlagOf(MemoryKind::kSystem)->realm, "-ll:csize");
  EXPECT_STREQ(whatif::CapacityFlagOf(MemoryKind::kFramebuffer)->realm, "-ll:fsize");
  EXPECT_STREQ(whatif::CapacityFlagOf(MemoryKind::kFramebuffer)->legate, "--fbmem");
  EXPECT_STREQ(whatif::CapacityFlagOf(MemoryKind::kZeroCopy)->realm, "-ll:zsize");
  EXPECT_STREQ(whatif::CapacityFlagOf(MemoryKind::kZeroCopy)->legate, "--zcmem");
  EXPECT_STREQ(whatif::CapacityFlagOf(MemoryKind::kRegdma)->realm, "-ll:rsize");
  EXPECT_STREQ(whatif::CapacityFlagOf(MemoryKind::kRegdma)->legate, "");
  EXPECT_EQ(whatif::CapacityFlagOf(MemoryKind::kSystem)->unit_bytes, kMiB);
  EXPECT_EQ(whatif::CapacityFlagOf(MemoryKind::kDynamicFramebuffer), nullptr);
}

}  // namespace
}  // namespace realm_shadow
