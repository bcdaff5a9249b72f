// tests/render/failure_report_test.cc - the failure's text
// (render/failure_report.h) on pictures built by hand.
#include "realm_shadow/render/failure_report.h"
#include "realm_shadow/render/report.h"

#include <string>

#include <gtest/gtest.h>

#include "tests/analysis/snapshot_builder.h"
#include "tests/render/text_helpers.h"

namespace realm_shadow {
namespace {

using testing::Alloc;
using testing::ContainsText;
using testing::MakeFailure;
using testing::MakeSnapshot;

// 1 KiB: A [0, 256) pinned, B [384, 512), C [640, 1024), each of task
// "stencil"; holes [256, 384) and [512, 640).  A request of 200 B fails by
// fragmentation (256 B free, no hole of 200); releasing B opens [256, 640).
Snapshot Fragmented() {
  Snapshot s = MakeSnapshot(1024, {Alloc(0, 256, 0xa, /*pinned=*/true),
                                   Alloc(384, 128, 0xb), Alloc(640, 384, 0xc)});
  s.capacity_known = true;
  Identity stencil;
  stencil.id = 1;
  stencil.kind = AllocationKind::kRegionInstance;
  stencil.attributes = {{"task", "stencil"}};
  s.identities = {stencil};
  for (Allocation& a : s.allocations) {
    a.identity = 1;
    a.kind = AllocationKind::kRegionInstance;
  }
  s.failures = {MakeFailure(0x42, 200, 32)};
  s.counters.failures = 1;
  return s;
}

// Capacity 200 in twenty allocations of 10 B: a request of 200 B needs
// them all released.
Snapshot Full() {
  std::vector<Allocation> allocations;
  for (uint64_t i = 0; i < 20; ++i) allocations.push_back(Alloc(i * 10, 10, 0x100 + i));
  Snapshot s = MakeSnapshot(200, std::move(allocations));
  s.capacity_known = true;
  s.failures = {MakeFailure(0x99, 200, 1)};
  return s;
}

// The failure report left out an identity its picture lacked; the report
// named it.  Both name it now.
TEST(FormatFailureReport, NamesAnIdentityThePictureLacks) {
  Snapshot s = MakeSnapshot(1024, {Alloc(0, 512, 0x41), Alloc(768, 256, 0x42)});
  Failure f;
  f.instance = 0x43;
  f.size = 384;
  f.alignment = 1;
  f.identity = 5;
  s.failures.push_back(f);
  const std::string report = FormatFailureReport(s, 0x43);
  EXPECT_TRUE(ContainsText(report, " identity#5\n")) << report;
}

TEST(FormatFailure, RequestCauseAndWindow) {
  const Snapshot s = Fragmented();
  const std::string text = FormatFailure(s, MeasureSpace(s), s.failures[0],
                                         FailureTextOptions{"    ", {}, "task"});
  EXPECT_EQ(text,
            "    instance 0x42 (instant): request 200 B align 32\n"
            "      now: fragmentation (total free 256 B, largest hole 128 B)\n"
            "      blockers (fewest bytes = fewest allocations): release 1 "
            "allocation(s), 128 B; window [256, 640), placed at 256\n"
            "        instance 0xb [384, 512) size 128 B align 1 live "
            "region_instance task=stencil\n");
}

TEST(FormatFailure, UnknownSizeAndUnknownPlacements) {
  Snapshot s = Fragmented();
  Failure unsized = MakeFailure(0x43, 0, 0);
  unsized.eventual = true;
  unsized.identity = 1;
  EXPECT_EQ(FormatFailure(s, MeasureSpace(s), unsized, FailureTextOptions{}),
            "    instance 0x43 (deferred, failed later): request size unknown "
            "(not in the source) task=stencil\n");
  PendingRequest unplaced{0x44, 100};
  unplaced.flags = kPlacementUnknown;
  s.pending = {unplaced};
  EXPECT_EQ(FormatFailure(s, MeasureSpace(s), s.failures[0],
                          FailureTextOptions{"  ", {}, ""}),
            "  instance 0x42 (instant): request 200 B align 32\n"
            "    now: cause unknown (placements unknown; at least 868 B used)\n");
}

// The live report cuts a window at 16 and points at the dump; the report at
// its instances_shown and points at --all.  Nothing else differs.
TEST(FormatFailure, TheCutIsTheCallers) {
  const Snapshot s = Full();
  const std::string live = FormatFailureReport(s, 0x99);
  EXPECT_TRUE(ContainsText(live, "release 20 allocation(s), 200 B; window [0, 200), "
                             "placed at 0\n"))
      << live;
  EXPECT_TRUE(ContainsText(live, "        instance 0x10f [150, 160)")) << live;
  EXPECT_FALSE(ContainsText(live, "instance 0x110 [160, 170)")) << live;
  EXPECT_TRUE(ContainsText(live, "        ... 4 more (see the dump)\n")) << live;
  ReportOptions options;
  options.instances_shown = 3;
  const std::string report =
      FormatFailures(s, MeasureSpace(s), options, MostTellingAttribute(s));
  EXPECT_TRUE(ContainsText(report, "        ... 17 more (--all shows every one)\n"))
      << report;
}

TEST(FailureCauseText, FitsFragmentationExhaustionAndUpperBounds) {
  Snapshot s = Fragmented();
  EXPECT_EQ(FailureCauseText(s, 100, 1), "fits now");
  EXPECT_EQ(FailureCauseText(s, 200, 1), "fragmentation");
  EXPECT_EQ(FailureCauseText(s, 300, 1), "exhaustion");
  // B's size only an upper bound (a log's redistricted piece): without it
  // 384 B are free, so the truth may be fragmentation.
  Identity bounded;
  bounded.id = 2;
  bounded.attributes = {{kSizeAttribute, kSizeUpperBound}};
  s.identities.push_back(bounded);
  s.allocations[1].identity = 2;
  EXPECT_EQ(FailureCauseText(s, 300, 1),
            "exhaustion or fragmentation (128 B are redistricted pieces whose "
            "sizes the log never gave)");
  EXPECT_EQ(FailureCauseText(s, 400, 1), "exhaustion");
}

TEST(FormatBlockerWindow, NoneAndFitsNow) {
  const Snapshot s = Fragmented();
  BlockerWindow none;
  EXPECT_EQ(FormatBlockerWindow(s, none, "blockers", "  ", ListCut{}, ""),
            "  blockers: none (no window of collectable allocations makes it "
            "fit: the request is larger than what pinned ranges leave, or than "
            "the memory)\n");
  BlockerWindow fits;
  fits.found = fits.fits_already = true;
  fits.placement = 512;
  EXPECT_EQ(FormatBlockerWindow(s, fits, "blockers", "  ", ListCut{}, ""),
            "  blockers: fits now at offset 512\n");
}

TEST(FormatBlockerWindow, GroupsAWindowOfSeveral) {
  Snapshot s = Full();
  Identity a, b;
  a.id = 1;
  a.attributes = {{"task", "a"}};
  b.id = 2;
  b.attributes = {{"task", "b"}};
  s.identities = {a, b};
  for (size_t i = 0; i < s.allocations.size(); ++i)
    s.allocations[i].identity = i < 15 ? 1 : 2;
  const BlockerWindow w = FindBlockers(s, 200, 1);
  const std::string text =
      FormatBlockerWindow(s, w, "blockers", "", ListCut{1}, "task");
  EXPECT_TRUE(ContainsText(text, "\n  by task: a 15 (150 B); b 5 (50 B)\n")) << text;
}

// An addressed memory (each instance its own device allocation) has no
// window to place the request in.  The live report printed one anyway
// ("in [0, 0) to place it at offset 0"), the `blockers` command too
// ("window [0, 0), placed at 0"), and the report printed no blockers at all.
// All three now name the allocations to release, and no window.
Snapshot Addressed() {
  Snapshot s = MakeSnapshot(1024, {Alloc(4096, 512, 0xa), Alloc(8192, 256, 0xb)});
  s.addressed = true;
  s.capacity_known = true;
  s.failures = {MakeFailure(0x42, 512, 1)};
  s.counters.failures = 1;
  return s;
}

TEST(AddressedMemory, BlockersWithoutAWindow) {
  const Snapshot s = Addressed();
  const std::string blockers =
      FormatBlockers(s, 512, 1, BlockerObjective::kFewestBytes);
  EXPECT_TRUE(ContainsText(blockers, "blockers (fewest bytes): release 1 "
                                 "allocation(s), 256 B (addressed memory: no "
                                 "window, the bytes released make room)\n"))
      << blockers;
  EXPECT_FALSE(ContainsText(blockers, "window [")) << blockers;
  const std::string report = FormatMemoryReport(s, ReportOptions{});
  EXPECT_TRUE(ContainsText(report, "      blockers (fewest bytes): release 1 "
                               "allocation(s), 256 B (addressed memory"))
      << report;
  EXPECT_TRUE(ContainsText(report, "        instance 0xb [8192, 8448)")) << report;
  const std::string live = FormatFailureReport(s, 0x42);
  EXPECT_FALSE(ContainsText(live, "window [")) << live;
  EXPECT_FALSE(ContainsText(live, "offset 0")) << live;
}

// The live report: its first line, the memory's figures as the report's
// sections print them, and the failure as the report lists it, but for the
// window of fewest allocations, which the failing thread does without; then
// the remedies that need no replay.
TEST(FormatFailureReport, IsTheReportsSectionsAndFailure) {
  Snapshot s = Fragmented();
  s.name = "GPU0\nFB";
  s.counters.peak_used = 768;
  const MemorySpace space = MeasureSpace(s);
  EXPECT_EQ(FormatFailureReport(s, 0x42),
            "realm-shadow: allocation failed in memory 0x1 (system \"GPU0?FB\", "
            "node 0)\n" +
                FormatCapacityAndUse(s, space) + FormatFreeSpace(s, space) +
                "  failure\n" +
                FormatFailure(s, space, s.failures[0],
                              FailureTextOptions{
                                  "    ", ListCut{16, "see the dump"}, "task",
                                  /*fewest_allocations_too=*/false}) +
                FormatRemedies(s, FindRemedies(s, s.failures[0], nullptr), "    "));
  EXPECT_TRUE(ContainsText(FormatFailureReport(s, 0x42),
                       "    remedies (what would make it fit, least asked of you first"));
  // The report lists the same lines for it.
  ReportOptions options;
  options.instances_shown = 16;
  EXPECT_TRUE(ContainsText(FormatMemoryReport(s, options),
                       FormatFailure(s, space, s.failures[0],
                                     FailureTextOptions{"    ", {16}, "task"})));
}

TEST(FormatFailureReport, DeferredRequestsWhenAnyWait) {
  Snapshot s = Fragmented();
  EXPECT_FALSE(ContainsText(FormatFailureReport(s, 0x42), "deferred requests"));
  PendingRequest p;
  p.instance = 0x50;
  p.size = 64;
  p.alignment = 8;
  s.pending = {p};
  EXPECT_TRUE(ContainsText(FormatFailureReport(s, 0x42),
                       "  deferred requests   1\n"
                       "    instance 0x50 size 64 B align 8\n"));
}

TEST(FormatFailureReport, AnInstanceNotAmongTheFailures) {
  const std::string report = FormatFailureReport(Fragmented(), 77);
  EXPECT_TRUE(ContainsText(report, "  failure\n    instance 0x4d: not among the "
                               "picture's recent failures (size unknown)\n"))
      << report;
  EXPECT_FALSE(ContainsText(report, "now:")) << report;
}

TEST(FormatDumpPointer, AlignedWithTheFigures) {
  EXPECT_EQ(FormatDumpPointer("/tmp/d.rsd"), "  dump                /tmp/d.rsd\n");
}

}  // namespace
}  // namespace realm_shadow
