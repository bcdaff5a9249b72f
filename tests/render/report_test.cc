// tests/render/report_test.cc - the report's texts (render/report.h) on
// pictures built by hand.
#include "realm_shadow/render/report.h"

#include <string>

#include <gtest/gtest.h>

#include "tests/analysis/snapshot_builder.h"
#include "tests/render/text_helpers.h"

namespace realm_shadow {
namespace {

using testing::Alloc;
using testing::ContainsText;
using testing::MakeIdentity;
using testing::MakeSnapshot;

// ---- identities -------------------------------------------------------------

TEST(IdentityText, FindsByIdInASortedTable) {
  const std::vector<Identity> table = {
      MakeIdentity(3, AllocationKind::kFuture, {{"task", "a"}}),
      MakeIdentity(8, AllocationKind::kRegionInstance, {{"task", "b"}})};
  EXPECT_EQ(FindIdentityById(table, 8), &table[1]);
  EXPECT_EQ(FindIdentityById(table, 3), &table[0]);
  EXPECT_EQ(FindIdentityById(table, 5), nullptr);
  EXPECT_EQ(FindIdentityById(table, 0), nullptr);  // "none"
  EXPECT_EQ(FindIdentityById({}, 3), nullptr);
}

TEST(IdentityText, NoneMissingAndKnown) {
  const std::vector<Identity> table = {MakeIdentity(
      3, AllocationKind::kRegionInstance,
      {{"task", "stencil"}, {"why", "long prose"}, {"fields", "a,b"}})};
  EXPECT_EQ(IdentityText(table, 0), "");
  EXPECT_EQ(IdentityText(table, 9), " identity#9");
  EXPECT_EQ(IdentityText(table, 9, /*with_kind=*/true), " identity#9");
  EXPECT_EQ(IdentityText(table, 3), " task=stencil fields=a,b");
  EXPECT_EQ(IdentityText(table, 3, /*with_kind=*/true),
            " region_instance task=stencil fields=a,b");
}

// An allocation line is one line whatever its identity's names hold: the
// report wrote keys and values as they came, newlines included, where the
// failure report already wrote '?'.
TEST(FormatAllocationLine, IdentityOnOneLineWithoutWhy) {
  Snapshot s = MakeSnapshot(1024, {Alloc(0, 256, 0x40)});
  s.allocations[0].identity = 3;
  s.allocations[0].kind = AllocationKind::kRegionInstance;
  s.identities = {MakeIdentity(3, AllocationKind::kRegionInstance,
                               {{"provenance", "solver.py:12\nx = y"},
                                {"why", "prose the notes carry"}})};
  const std::string line = FormatAllocationLine(s, s.allocations[0]);
  EXPECT_EQ(line,
            "instance 0x40 [0, 256) size 256 B align 1 live region_instance "
            "provenance=solver.py:12?x = y");
}

TEST(FormatAllocationLine, MissingIdentityIsNamed) {
  Snapshot s = MakeSnapshot(1024, {Alloc(0, 256, 0x40)});
  s.allocations[0].identity = 5;
  EXPECT_TRUE(ContainsText(FormatAllocationLine(s, s.allocations[0]),
                       "live unknown identity#5"));
}

// ---- who holds the memory --------------------------------------------------

// The store when two allocations share one, else the region, else the task;
// failing all, the first present; "(unknown)" and a missing identity group
// nothing.
TEST(MostTellingAttribute, FirstThatPutsTwoTogether) {
  Snapshot s = MakeSnapshot(
      4096, {Alloc(0, 10, 1), Alloc(100, 10, 2), Alloc(200, 10, 3)});
  EXPECT_EQ(MostTellingAttribute(s), "");  // no identities
  s.identities = {
      MakeIdentity(1, AllocationKind::kRegionInstance,
                   {{"store", "Store(1)"}, {"regions", "r"}, {"task", "t"}}),
      MakeIdentity(2, AllocationKind::kRegionInstance,
                   {{"store", "Store(2)"}, {"regions", "r"}, {"task", "t"}}),
      MakeIdentity(3, AllocationKind::kRegionInstance,
                   {{"store", "(unknown)"}, {"task", "u"}})};
  s.allocations[0].identity = 1;
  s.allocations[1].identity = 2;
  s.allocations[2].identity = 3;
  EXPECT_EQ(MostTellingAttribute(s), "regions");  // stores are one each
  s.allocations[2].identity = 1;                  // a second Store(1)
  EXPECT_EQ(MostTellingAttribute(s), "store");
  // Nothing shared: the first present.
  s.allocations[2].identity = 3;
  s.identities[1].attributes = {{"store", "Store(2)"}, {"regions", "q"},
                                {"task", "v"}};
  EXPECT_EQ(MostTellingAttribute(s), "store");
  // An id the table lacks is "(unknown)" too: it groups nothing.
  s.identities[2].attributes = {{"store", "(unknown)"}, {"task", "t"}};
  s.allocations[1].identity = 9;
  EXPECT_EQ(MostTellingAttribute(s), "task");
  // An instance of unknown placement counts.
  s.allocations[2].identity = 0;
  PendingRequest unplaced;
  unplaced.instance = 4;
  unplaced.size = 10;
  unplaced.identity = 1;
  unplaced.flags = kPlacementUnknown;
  s.pending = {unplaced};
  EXPECT_EQ(MostTellingAttribute(s), "store");
}

// ---- the memory report, section by section --------------------------------

// 1 KiB: A [0, 256) region instance of task "stencil", B [512, 768) a
// future of the same task whose release is pending, C a deferred request,
// and a failure of 600 B; holes [256, 512) and [768, 1024).
Snapshot TwoAllocations() {
  Snapshot s = MakeSnapshot(1024, {Alloc(0, 256, 0xa), Alloc(512, 256, 0xb)});
  s.capacity_known = true;
  s.allocations[0].kind = AllocationKind::kRegionInstance;
  s.allocations[0].identity = 1;
  s.allocations[1].kind = AllocationKind::kFuture;
  s.allocations[1].identity = 1;
  s.allocations[1].state = AllocationState::kReleasePending;
  s.identities = {MakeIdentity(1, AllocationKind::kRegionInstance,
                               {{"task", "stencil"}})};
  s.counters.peak_used = 768;
  return s;
}

PendingRequest Deferred(uint64_t instance, uint64_t size) {
  PendingRequest p;
  p.instance = instance;
  p.size = size;
  p.alignment = 8;
  return p;
}

TEST(MemorySections, MeasureSpace) {
  const MemorySpace space = MeasureSpace(TwoAllocations());
  ASSERT_EQ(space.holes.size(), 2u);
  EXPECT_EQ(space.holes[0].offset, 256u);
  EXPECT_EQ(space.summary.total_free, 512u);
  EXPECT_EQ(space.summary.largest_hole, 256u);
  EXPECT_EQ(space.bounded, 0u);
  EXPECT_TRUE(space.placed());
}

TEST(MemorySections, CapacityAndUse) {
  Snapshot s = TwoAllocations();
  EXPECT_EQ(FormatCapacityAndUse(s, MeasureSpace(s)),
            "  capacity            1 KiB (1024 B)\n"
            "  used                512 B in 2 allocation(s); peak 768 B\n");
  // A log without placements: "at least", and what is unplaced.
  s.capacity_known = false;
  s.capacity = 0;
  PendingRequest unplaced = Deferred(0xc, 100);
  unplaced.flags = kPlacementUnknown;
  s.pending = {unplaced};
  EXPECT_EQ(FormatCapacityAndUse(s, MeasureSpace(s)),
            "  capacity            unknown (the log never said)\n"
            "  used                at least 612 B in 3 instance(s), of which 1 "
            "(100 B) of unknown placement\n");
}

TEST(MemorySections, UpperBoundsAreCounted) {
  Snapshot s = TwoAllocations();
  s.identities[0].attributes.push_back({kSizeAttribute, kSizeUpperBound});
  const MemorySpace space = MeasureSpace(s);
  EXPECT_EQ(space.bounded, 512u);
  EXPECT_TRUE(ContainsText(FormatCapacityAndUse(s, space),
                       "of which 512 B are upper bounds"));
  EXPECT_TRUE(ContainsText(FormatFreeSpace(s, space), "(a lower bound)"));
}

TEST(MemorySections, UseByKind) {
  EXPECT_EQ(FormatUseByKind(TwoAllocations()),
            "  use by kind         region_instance: 1 (256 B); future: 1 "
            "(256 B)\n");
  EXPECT_EQ(FormatUseByKind(MakeSnapshot(1024, {})),
            "  use by kind         none\n");
}

TEST(MemorySections, Holders) {
  const Snapshot s = TwoAllocations();
  EXPECT_EQ(FormatHolders(s, "", 10), "");
  EXPECT_EQ(FormatHolders(s, "task", 10),
            "  by task  (1 group(s), largest first: bytes, share of capacity, "
            "count, largest)\n"
            "    512 B       50.0%  2 allocation(s),    largest 256 B        "
            "stencil\n");
  const std::string by_kind = FormatHolders(s, "kind", 1);
  EXPECT_TRUE(ContainsText(by_kind, "(2 group(s)")) << by_kind;
  EXPECT_TRUE(ContainsText(by_kind, "    ... 1 more group(s) (--all shows every one)\n"))
      << by_kind;
}

TEST(MemorySections, FreeSpace) {
  Snapshot s = TwoAllocations();
  EXPECT_EQ(FormatFreeSpace(s, MeasureSpace(s)),
            "  total free          512 B\n"
            "  largest hole        256 B\n"
            "  holes               2; fragmentation 50.0% (1 - largest hole / "
            "total free)\n");
  s.addressed = true;
  EXPECT_EQ(FormatFreeSpace(s, MeasureSpace(s)),
            "  total free          512 B (addressed memory: one allocation per "
            "range, no holes)\n");
  EXPECT_EQ(FormatLargestHoles(s, MeasureSpace(s), 10), "");
}

TEST(MemorySections, LargestHoles) {
  const Snapshot s = TwoAllocations();
  EXPECT_EQ(FormatLargestHoles(s, MeasureSpace(s), 1),
            "  largest holes (top 1, largest first)\n"
            "    [256, 512)  256 B\n"
            "  hole histogram (by size)\n"
            "    [256 B, 512 B)  2\n");
  EXPECT_EQ(FormatLargestHoles(MakeSnapshot(0, {}),
                               MeasureSpace(MakeSnapshot(0, {})), 10),
            "");
}

TEST(MemorySections, DeferredRequestsAreCut) {
  Snapshot s = TwoAllocations();
  s.pending = {Deferred(0xc, 100), Deferred(0xd, 200), Deferred(0xe, 300)};
  s.pending[0].planned_offset = 256;
  s.pending[1].identity = 1;
  EXPECT_EQ(FormatDeferredRequests(s, ListCut{2, "see the dump"}),
            "  deferred requests   3\n"
            "    instance 0xc size 100 B align 8 planned at 256\n"
            "    instance 0xd size 200 B align 8 task=stencil\n"
            "    ... 1 more (see the dump)\n");
  EXPECT_TRUE(ContainsText(FormatDeferredRequests(s, ListCut{0}),
                       "instance 0xe size 300 B align 8\n"));
}

TEST(MemorySections, PendingReleases) {
  EXPECT_EQ(FormatPendingReleases(TwoAllocations(), ListCut{}),
            "  pending releases    1\n"
            "    instance 0xb [512, 768) size 256 B align 1 release_pending "
            "future task=stencil\n");
}

TEST(MemorySections, AnomaliesAndExactness) {
  Snapshot s = TwoAllocations();
  EXPECT_EQ(FormatAnomalies(s, ReportOptions{}), "  anomalies           0\n");
  s.anomalies = {Anomaly{.kind = AnomalyKind::kOverlap, .sequence = 12,
                         .instance = 0xf, .offset = 100, .size = 50,
                         .other_instance = 0xa}};
  s.counters.anomalies[static_cast<int>(AnomalyKind::kOverlap)] = 3;
  EXPECT_EQ(FormatAnomalies(s, ReportOptions{}),
            "  anomalies           3; overlap: 3\n"
            "    event 12: overlap instance 0xf [100, 150) with 0xa\n");
  EXPECT_EQ(FormatExactness(s), "");
  s.exact = false;
  EXPECT_EQ(FormatExactness(s), "  NOT EXACT: tracking was off for some events\n");
}

TEST(MemorySections, FailuresListTheMostRecent) {
  Snapshot s = TwoAllocations();
  for (uint64_t k = 1; k <= 3; ++k) {
    Failure f;
    f.instance = 0x100 + k;
    f.size = 600;
    f.alignment = 8;
    s.failures.push_back(f);
  }
  s.counters.failures = 5;
  ReportOptions options;
  options.failures_shown = 2;
  const std::string text = FormatFailures(s, MeasureSpace(s), options, "task");
  EXPECT_EQ(text.rfind("  failures            5 in all; most recent last\n"
                       "    (1 earlier not shown)\n"
                       "    instance 0x102 (instant): request 600 B align 8\n",
                       0),
            0u)
      << text;
  EXPECT_FALSE(ContainsText(text, "0x101")) << text;
  EXPECT_TRUE(ContainsText(text, "    instance 0x103 (instant)")) << text;
  EXPECT_EQ(FormatFailures(MakeSnapshot(8, {}), MeasureSpace(MakeSnapshot(8, {})),
                           options, ""),
            "  failures            0 in all\n");
}

// The report is its sections, in order, under the memory's title.
TEST(MemorySections, TheReportIsItsSections) {
  Snapshot s = TwoAllocations();
  s.pending = {Deferred(0xc, 100)};
  Failure f;
  f.instance = 0x101;
  f.size = 600;
  f.alignment = 8;
  s.failures = {f};
  s.counters.failures = 1;
  const ReportOptions options;
  const MemorySpace space = MeasureSpace(s);
  const ListCut cut{options.instances_shown};
  EXPECT_EQ(FormatMemoryReport(s, options),
            MemoryTitle(s) + "\n" + FormatCapacityAndUse(s, space) +
                FormatUseByKind(s) + FormatHolders(s, "task", 10) +
                FormatFreeSpace(s, space) + FormatLargestHoles(s, space, 10) +
                FormatDeferredRequests(s, cut) + FormatPendingReleases(s, cut) +
                FormatFailures(s, space, options, "task") +
                FormatAnomalies(s, options) + FormatExactness(s));
}

}  // namespace
}  // namespace realm_shadow
