// tests/analysis/waste_test.cc - padding, inflation and unrequested fields
// of live instances, their totals and groups, and whether recovering them
// could make a failed request fit: constructed snapshots of known figures,
// then the fixtures' real runs, with the figures counted by hand from their
// log lines (the arithmetic is in each test).
#include "realm_shadow/analysis/waste.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "realm_shadow/render/report.h"
#include "snapshot_builder.h"
#include "tests/ingest/log_fixtures.h"

namespace realm_shadow {
namespace {

using testing::Alloc;
using testing::MakeSnapshot;

// ---- constructed snapshots -------------------------------------------------

struct Figures {
  uint64_t points, field_bytes, bytes_per_point, region_points, requested;
};

Identity WithFigures(uint32_t id, const Figures& f, const char* task = "") {
  Identity identity;
  identity.id = id;
  identity.kind = AllocationKind::kRegionInstance;
  if (*task) identity.attributes.emplace_back(kTaskAttribute, task);
  identity.attributes.emplace_back(kPointsAttribute, absl::StrCat(f.points));
  identity.attributes.emplace_back(kFieldBytesAttribute,
                                   absl::StrCat(f.field_bytes));
  identity.attributes.emplace_back(kBytesPerPointAttribute,
                                   absl::StrCat(f.bytes_per_point));
  identity.attributes.emplace_back(kRegionPointsAttribute,
                                   absl::StrCat(f.region_points));
  identity.attributes.emplace_back(kRequestedBytesPerPointAttribute,
                                   absl::StrCat(f.requested));
  return identity;
}

Allocation Named(uint64_t offset, uint64_t size, uint64_t instance,
                 uint32_t identity, uint64_t alignment = 1) {
  Allocation a = Alloc(offset, size, instance);
  a.identity = identity;
  a.kind = AllocationKind::kRegionInstance;
  a.alignment_log2 = AlignmentLog2(alignment);
  return a;
}

const AllocationWaste& Of(const MemoryWaste& w, uint64_t instance) {
  for (const AllocationWaste& a : w.allocations)
    if (a.allocation.instance == instance) return a;
  ADD_FAILURE() << "no instance " << instance;
  return w.allocations.front();
}

// An allocation's four figures in one line ("?" unknown), so that a case
// states them at once: "padding 896 inflation 800 unrequested 1800
// useful 600".
std::string Figures(const MemoryWaste& w, uint64_t instance) {
  const AllocationWaste& a = Of(w, instance);
  auto f = [](const WasteBytes& b) {
    return b.known ? absl::StrCat(b.bytes) : std::string("?");
  };
  return absl::StrCat("padding ", f(a.padding), " inflation ", f(a.inflation),
                      " unrequested ", f(a.unrequested), " useful ",
                      f(a.useful));
}

TEST(Waste, FiguresAreReadFromTheIdentity) {
  Identity id = WithFigures(1, {10, 80, 8, 6, 4});
  id.attributes.emplace_back("task", "t");
  WasteFigures f = FiguresOf(id);
  EXPECT_EQ(f.points, 10u);
  EXPECT_EQ(f.field_bytes, 80u);
  EXPECT_EQ(f.bytes_per_point, 8u);
  EXPECT_EQ(f.region_points, 6u);
  EXPECT_EQ(f.requested_bytes_per_point, 4u);
  Identity bad;
  bad.attributes = {{kPointsAttribute, "-1"},
                    {kFieldBytesAttribute, "12x"},
                    {kBytesPerPointAttribute, "99999999999999999999"}};
  f = FiguresOf(bad);
  EXPECT_FALSE(f.points);
  EXPECT_FALSE(f.field_bytes);
  EXPECT_FALSE(f.bytes_per_point);
  EXPECT_FALSE(f.region_points);
}

// One instance of each kind of waste, and one of all three:
//  A: 1024 B holding 120 points x 8 B = 960 B: padding 64; region 120
//     points, every field asked for: no inflation, nothing unrequested.
//  B: 2048 B, 256 points x 8 B; the region has 100 points: inflation
//     156 x 8 = 1248; useful 800.
//  C: 4096 B, 256 points x 16 B; 4 of the 16 asked for: unrequested
//     12 x 256 = 3072; useful 1024.
//  D: 4096 B, 200 points x 16 B = 3200 (padding 896); region 150 points:
//     inflation 50 x 16 = 800; 4 B asked for: unrequested 12 x 150 = 1800;
//     useful 4 x 150 = 600; 896 + 800 + 1800 + 600 = 4096.
TEST(Waste, PaddingInflationUnrequestedOfKnownFigures) {
  Snapshot s = MakeSnapshot(
      1 << 16, {Named(0, 1024, 0xa, 1), Named(1024, 2048, 0xb, 2),
                Named(3072, 4096, 0xc, 3), Named(7168, 4096, 0xd, 4)});
  s.identities = {WithFigures(1, {120, 960, 8, 120, 8}),
                  WithFigures(2, {256, 2048, 8, 100, 8}),
                  WithFigures(3, {256, 4096, 16, 256, 4}),
                  WithFigures(4, {200, 3200, 16, 150, 4})};
  const MemoryWaste w = FindWaste(s);
  ASSERT_EQ(w.allocations.size(), 4u);
  EXPECT_EQ(Figures(w, 0xa),
            "padding 64 inflation 0 unrequested 0 useful 960");
  EXPECT_EQ(Figures(w, 0xb),
            "padding 0 inflation 1248 unrequested 0 useful 800");
  EXPECT_EQ(Figures(w, 0xc),
            "padding 0 inflation 0 unrequested 3072 useful 1024");
  EXPECT_EQ(Figures(w, 0xd),
            "padding 896 inflation 800 unrequested 1800 useful 600");
  EXPECT_EQ(Of(w, 0xd).known_waste(), 3496u);
  EXPECT_EQ(w.totals.allocations, 4u);
  EXPECT_EQ(w.totals.bytes, 11264u);
  EXPECT_EQ(w.totals.padding.bytes, 960u);
  EXPECT_EQ(w.totals.inflation.bytes, 2048u);
  EXPECT_EQ(w.totals.unrequested.bytes, 4872u);
  EXPECT_EQ(w.totals.known_waste(), 7880u);
  EXPECT_EQ(w.totals.padding.known_allocations, 4u);
  EXPECT_EQ(w.totals.padding.unknown_allocations, 0u);
}

TEST(Waste, UnknownWhereAFigureIsMissingOrContradicted) {
  Identity partial;  // the layout's figures only (a Realm-only run)
  partial.id = 1;
  partial.attributes = {{kPointsAttribute, "100"},
                        {kFieldBytesAttribute, "800"},
                        {kBytesPerPointAttribute, "8"}};
  Identity beyond = WithFigures(2, {100, 800, 8, 100, 4});  // 800 > 512
  Identity more_region = WithFigures(3, {100, 800, 8, 120, 8});
  Snapshot s = MakeSnapshot(1 << 16, {Named(0, 1024, 1, 1),
                                      Named(1024, 512, 2, 2),
                                      Named(2048, 1024, 3, 3),
                                      Named(4096, 256, 4, 0),
                                      Named(8192, 0, 5, 0)});
  s.identities = {partial, beyond, more_region};
  const MemoryWaste w = FindWaste(s);
  EXPECT_EQ(Figures(w, 1), "padding 224 inflation ? unrequested ? useful ?");
  // Fields of more bytes than the allocation (100 points x 8 B in 512 B):
  // nothing is kept.
  EXPECT_EQ(Figures(w, 2), "padding ? inflation ? unrequested ? useful ?");
  // A region of more points than the layout: no inflation figure.
  EXPECT_EQ(Figures(w, 3), "padding 224 inflation ? unrequested ? useful ?");
  EXPECT_EQ(Figures(w, 4), "padding ? inflation ? unrequested ? useful ?");
  // Zero bytes waste nothing.
  EXPECT_EQ(Figures(w, 5), "padding 0 inflation 0 unrequested 0 useful 0");
  EXPECT_EQ(w.totals.padding.known_allocations, 3u);
  EXPECT_EQ(w.totals.padding.unknown_allocations, 2u);
  EXPECT_EQ(w.totals.padding.unknown_bytes, 512u + 256u);
  EXPECT_EQ(w.totals.inflation.unknown_allocations, 4u);
}

TEST(Waste, AlignmentGapInFrontIsFreeSpaceReportedApart) {
  // [0, 100); at 128 aligned 64: a 28 B gap only alignment explains; at
  // 512 aligned 64 after [128, 228): a hole of its own, no alignment gap.
  Snapshot s = MakeSnapshot(1 << 12, {Named(0, 100, 1, 1, 1),
                                      Named(128, 100, 2, 1, 64),
                                      Named(512, 100, 3, 1, 64)});
  s.identities = {WithFigures(1, {100, 100, 1, 100, 1})};
  const MemoryWaste w = FindWaste(s);
  EXPECT_EQ(Of(w, 1).alignment_gap_before, 0u);
  EXPECT_EQ(Of(w, 2).alignment_gap_before, 28u);
  EXPECT_EQ(Of(w, 3).alignment_gap_before, 0u);
  EXPECT_EQ(w.totals.alignment_gaps, 28u);
  EXPECT_EQ(w.totals.known_waste(), 0u);  // never counted as waste
}

TEST(Waste, GroupsAsReportByDoes) {
  Snapshot s = MakeSnapshot(
      1 << 16, {Named(0, 2048, 1, 1), Named(2048, 2048, 2, 2),
                Named(4096, 4096, 3, 3), Named(8192, 512, 4, 0)});
  s.identities = {WithFigures(1, {256, 2048, 8, 100, 8}, "stencil"),
                  WithFigures(2, {256, 2048, 8, 256, 8}, "stencil"),
                  WithFigures(3, {256, 4096, 16, 256, 4}, "check")};
  const MemoryWaste w = FindWaste(s);
  const std::vector<WasteGroup> groups =
      GroupWaste(w, [&](const Allocation& a) {
        return AttributeValue(s, a.identity, a.kind, GroupAttribute("task"));
      });
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].value, "check");  // 3072 unrequested
  EXPECT_EQ(groups[0].totals.known_waste(), 3072u);
  EXPECT_EQ(groups[1].value, "stencil");  // 156 x 8 inflation
  EXPECT_EQ(groups[1].totals.allocations, 2u);
  EXPECT_EQ(groups[1].totals.known_waste(), 1248u);
  EXPECT_EQ(groups[2].value, "(unknown)");
  EXPECT_EQ(groups[2].totals.padding.unknown_bytes, 512u);
}

// Recovery needs a contiguous range at the request's alignment; the bytes
// recovered in several instances do not add up into one.
TEST(Waste, RecoveryFitsOnlyWhereAContiguousRangeResults) {
  // Capacity 1000, full: A [0, 400) of which 200 useful (its last 200 B
  // recoverable), B [400, 800) of which 200 useful, C [800, 1000) no waste.
  Snapshot s = MakeSnapshot(1000, {Named(0, 400, 0xa, 1),
                                   Named(400, 400, 0xb, 1),
                                   Named(800, 200, 0xc, 2)});
  s.identities = {WithFigures(1, {100, 400, 4, 50, 4}),  // inflation 200
                  WithFigures(2, {50, 200, 4, 50, 4})};
  const MemoryWaste w = FindWaste(s);
  EXPECT_EQ(Of(w, 0xa).inflation.bytes, 200u);

  // 400 B recoverable, but in two ranges of 200: 300 B does not fit.
  RecoveryFit fit = FitAfterRecovery(s, w, 300, 1);
  EXPECT_TRUE(fit.placements_known);
  EXPECT_FALSE(fit.fits_now);
  EXPECT_FALSE(fit.fits_after_recovery);
  EXPECT_EQ(fit.recoverable_bytes, 400u);
  EXPECT_EQ(fit.largest_hole_now, 0u);
  EXPECT_EQ(fit.largest_hole_after, 200u);
  EXPECT_TRUE(fit.recreate.empty());

  // 200 B fits in A's freed tail, at 200; A must be re-created.
  fit = FitAfterRecovery(s, w, 200, 1);
  EXPECT_TRUE(fit.fits_after_recovery);
  EXPECT_EQ(fit.placement, 200u);
  ASSERT_EQ(fit.recreate.size(), 1u);
  EXPECT_EQ(fit.recreate[0].allocation.instance, 0xau);

  // At alignment 256 it does not: [200, 400) holds no 256-aligned 200 B.
  EXPECT_FALSE(FitAfterRecovery(s, w, 200, 256).fits_after_recovery);

  // With B's tail next to a free range: [600, 800) and a hole at [800,
  // 1000) once C is gone: 400 B fits at 600 from B's waste and the hole.
  Snapshot t = MakeSnapshot(1000, {Named(0, 400, 0xa, 1),
                                   Named(400, 400, 0xb, 1)});
  t.identities = s.identities;
  const MemoryWaste wt = FindWaste(t);
  fit = FitAfterRecovery(t, wt, 400, 8);
  EXPECT_FALSE(fit.fits_now);
  EXPECT_TRUE(fit.fits_after_recovery);
  EXPECT_EQ(fit.placement, 600u);
  ASSERT_EQ(fit.recreate.size(), 1u);
  EXPECT_EQ(fit.recreate[0].allocation.instance, 0xbu);

  // A request that fits now needs nothing re-created.
  fit = FitAfterRecovery(t, wt, 100, 1);
  EXPECT_TRUE(fit.fits_now);
  EXPECT_TRUE(fit.fits_after_recovery);
  EXPECT_EQ(fit.placement, 800u);
  EXPECT_TRUE(fit.recreate.empty());

  // Unplaced instances: holes unknown, said so.
  PendingRequest unplaced;
  unplaced.instance = 9;
  unplaced.size = 10;
  unplaced.flags = kPlacementUnknown;
  t.pending.push_back(unplaced);
  EXPECT_FALSE(FitAfterRecovery(t, wt, 100, 1).placements_known);
}

// ---- the fixtures, counted by hand ------------------------------------------

bool EveryFigureKnown(const WasteTotals& t) {
  return t.padding.unknown_allocations == 0 &&
         t.inflation.unknown_allocations == 0 &&
         t.unrequested.unknown_allocations == 0;
}

using testing::Ingest;
using testing::kSpy;

// The first 1-based line of `path` holding `text` (0: none).
uint64_t FirstLineWith(const std::string& path, const std::string& text) {
  std::ifstream in(path);
  std::string line;
  for (uint64_t n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  return 0;
}

const Snapshot* MemoryOf(const DumpFile& d, uint32_t node, uint64_t memory) {
  for (const Snapshot& s : d.memories)
    if (s.node == node && s.memory_id == memory) return &s;
  return nullptr;
}

// tutorial 08 (multiple_partitions -n 4096 -b 8, DefaultMapper), rank 0
// before its first release (every instance it made still live).
//  inst 4000000000000000: "instance layout: ... Layout(bytes=8192,
//    align=32, fields={0=0+0, 1=0+4096}, lists=[[<0>..<511>->affine(<8>
//    +0)]])": 511 - 0 + 1 = 512 points; "Physical Instance 8000002004300002
//    4000000000000000 1e00000000000000 0 6 2 2": domain expression 6, field
//    space 2; "Field Creation 2 0 8", "Field Creation 2 1 8": 16 B/point,
//    16 x 512 = 8192 field bytes = the 8192 B: padding 0; "Index Space
//    Expression 6 6", "Index Space Rect 6 1 0 511": 512 points: inflation
//    0; creator 38 ("Physical Instance Creator ... 38"): "Logical
//    Requirement 38 0 1 6 2 2 ..." with "Logical Requirement Field 38 0 0"
//    only: 8 B/point asked for; unrequested (16 - 8) x 512 = 4096, useful
//    8 x 512 = 4096.  The DefaultMapper puts every field of the field space
//    in the instance (half of it here).
//  inst 4000000000000005: Layout(bytes=8256, ... lists=[[<510>..<1025>
//    ->affine(<8>-4080)]]): 1025 - 510 + 1 = 516 points x 16 B = 8256:
//    padding 0; expression 24 -> index space 0x18, "Index Space Rect 18 1
//    510 1025": 516: inflation 0; creator 52 asks for field 0 on it:
//    unrequested 8 x 516 = 4128.
//  inst 4000000000000008 (task check, UID 14, both fields): Layout(bytes=
//    65536, ... <0>..<4095>): 4096 x 16 = 65536; region 4096 points; both
//    fields asked for: no waste.
TEST(WasteFixtures, Tutorial08HandCount) {
  SKIP_WITHOUT_SPY_FIXTURES();
  const std::string log = kSpy + "/tutorial08-2rank-normal_0.log";
  IngestOptions options;
  options.stop_before_line = FirstLineWith(log, "{inst}: instance destroyed:");
  ASSERT_GT(options.stop_before_line, 0u);
  const absl::StatusOr<DumpFile> dump = IngestRealmLogs({log}, options);
  ASSERT_TRUE(dump.ok()) << dump.status();
  const Snapshot* s = MemoryOf(*dump, 0, 0x1e00000000000000);
  ASSERT_NE(s, nullptr);
  const MemoryWaste w = FindWaste(*s);
  ASSERT_EQ(w.allocations.size(), 9u);

  EXPECT_EQ(Of(w, 0x4000000000000000).allocation.size, 8192u);
  EXPECT_EQ(Figures(w, 0x4000000000000000),
            "padding 0 inflation 0 unrequested 4096 useful 4096");
  EXPECT_EQ(Of(w, 0x4000000000000005).allocation.size, 8256u);
  EXPECT_EQ(Figures(w, 0x4000000000000005),
            "padding 0 inflation 0 unrequested 4128 useful 4128");
  EXPECT_EQ(Of(w, 0x4000000000000008).allocation.size, 65536u);
  EXPECT_EQ(Figures(w, 0x4000000000000008),
            "padding 0 inflation 0 unrequested 0 useful 65536");

  // Every figure known; half of each of the 8 pieces' instances unasked
  // for: 4 x 4096 (the 512-point pieces) + 4112 + 3 x 4128 (the ghosts of
  // 514 and 516 points).
  EXPECT_TRUE(EveryFigureKnown(w.totals));
  EXPECT_EQ(w.totals.padding.bytes, 0u);
  EXPECT_EQ(w.totals.inflation.bytes, 0u);
  EXPECT_EQ(w.totals.unrequested.bytes, 4u * 4096 + 4112 + 3u * 4128);
  // By task, as report --by task groups.
  const std::vector<WasteGroup> groups =
      GroupWaste(w, [&](const Allocation& a) {
        return AttributeValue(*s, a.identity, a.kind, GroupAttribute("task"));
      });
  ASSERT_FALSE(groups.empty());
  EXPECT_EQ(groups[0].value, "stencil");
  EXPECT_EQ(groups[0].totals.unrequested.bytes, 4112u + 3u * 4128);
}

// circuit, 1 rank, -ll:csize 8 (aborts on a 735252 B request).
//  inst 4000000000000010 (wires of piece 0): "Layout(bytes=458752,
//    align=64, fields={0=0+0, 1=0+32768, 2=1+65536, 3=1+81920, ...,
//    25=1+442368}, lists=[[<0>..<4095>->affine(<8>+0)], [<0>..<4095>->
//    affine(<4>+0)]])": 4096 points; "Field Creation 2 0 8", "2 1 8", "2 2
//    4" ... "2 25 4": 2 x 8 + 24 x 4 = 112 B/point, x 4096 = 458752:
//    padding 0; expression 20 -> index space 0x14, "Index Space Rect 14 1
//    0 4095": 4096: inflation 0; creator 32 ("Logical Requirement 32 0 1 14
//    2 2 ...") asks for fields 0, 1, 4..25: 16 + 22 x 4 = 104 B/point;
//    unrequested (112 - 104) x 4096 = 32768 (fields 2 and 3), useful
//    104 x 4096 = 425984.
//  inst 4000000000000000 (nodes of piece 0): 49152 B = 2048 points x
//    (4 x 4 + 8) B, all 5 asked for, region 2048: no waste.
// 16 wire instances: 16 x 32768 = 524288 B recoverable, in 16 pieces of
// 32 KiB; free is one 131072 B hole: the 735252 B request cannot fit.
TEST(WasteFixtures, Circuit1RankHandCount) {
  SKIP_WITHOUT_SPY_FIXTURES();
  const DumpFile dump = Ingest({kSpy + "/circuit-1rank-spy_0.log"});
  const Snapshot* s = MemoryOf(dump, 0, 0x1e00000000000000);
  ASSERT_NE(s, nullptr);
  const MemoryWaste w = FindWaste(*s);
  ASSERT_EQ(w.allocations.size(), 48u);
  EXPECT_EQ(Figures(w, 0x4000000000000010),
            "padding 0 inflation 0 unrequested 32768 useful 425984");
  EXPECT_EQ(Figures(w, 0x4000000000000000),
            "padding 0 inflation 0 unrequested 0 useful 49152");
  EXPECT_EQ(w.totals.unrequested.bytes, 16u * 32768);
  EXPECT_EQ(w.totals.known_waste(), 16u * 32768);
  EXPECT_EQ(w.totals.inflation.unknown_allocations, 0u);

  ASSERT_FALSE(s->failures.empty());
  const Failure& f = s->failures.back();
  EXPECT_EQ(f.size, 735252u);
  const RecoveryFit fit = FitAfterRecovery(*s, w, f.size, f.alignment);
  EXPECT_FALSE(fit.fits_now);
  EXPECT_FALSE(fit.fits_after_recovery);
  EXPECT_EQ(fit.recoverable_bytes, 524288u);
  EXPECT_EQ(fit.largest_hole_now, 131072u);
}

// circuit, 2 ranks, -ll:csize 8: rank 0 fails a 783252 B request.
//  inst 4000000000000018 (ghost nodes of calc_new_currents, UID 194):
//    "Layout(bytes=735252, align=64, fields={0=1+245056, 1=1+367616,
//    2=1+490176, 3=1+612736, 4=0+0}, lists=[[<2114>..<32742>->affine(<8>
//    -16912)], [<2114>..<32742>->affine(<4>-8456)]])": 32742 - 2114 + 1 =
//    30629 points; "Field Creation 2 0 4" .. "2 3 4", "2 4 8": 24 B/point,
//    x 30629 = 735096: padding 156 (24 B before field 0 at 245056 = 30629
//    x 8 + 24, 44 B before each of fields 1..3: 122516 + 44 = 122560
//    apart); expression 390 -> index space 0x6c: 165 "Index Space Point"
//    lines and one 2-point rect, 167 points from 2114 to 32742: inflation
//    (30629 - 167) x 24 = 731088; "Logical Requirement 194 4 1 6c 2 2 ..."
//    names field 3 only: unrequested (24 - 4) x 167 = 3340; useful 4 x 167
//    = 668; 156 + 731088 + 3340 + 668 = 735252.
TEST(WasteFixtures, Circuit2RankOomHandCountAndRecovery) {
  SKIP_WITHOUT_SPY_FIXTURES();
  const DumpFile dump = Ingest({kSpy + "/circuit-2rank-oom_0.log",
                                kSpy + "/circuit-2rank-oom_1.log"});
  const Snapshot* s = MemoryOf(dump, 0, 0x1e00000000000000);
  ASSERT_NE(s, nullptr);
  const MemoryWaste w = FindWaste(*s);
  EXPECT_EQ(Of(w, 0x4000000000000018).allocation.size, 735252u);
  EXPECT_EQ(Figures(w, 0x4000000000000018),
            "padding 156 inflation 731088 unrequested 3340 useful 668");
  EXPECT_TRUE(EveryFigureKnown(w.totals));

  ASSERT_FALSE(s->failures.empty());
  const Failure& f = s->failures.back();
  EXPECT_EQ(f.size, 783252u);
  // The 8 wire instances hold fields 2 and 3 unasked for (8 x 32768); the
  // 5 ghost instances their bounding boxes: 624 B of padding, 3832032 B of
  // inflation, 262144 + 20160 B unrequested, of 7985616 B live.
  EXPECT_EQ(w.totals.bytes, 7985616u);
  EXPECT_EQ(w.totals.padding.bytes, 624u);
  EXPECT_EQ(w.totals.inflation.bytes, 3832032u);
  EXPECT_EQ(w.totals.unrequested.bytes, 282304u);
  // Free: 402868 B at the end, after the last ghost instance (0x1c at
  // [7202496, 7985740), 783244 B, useful 4 x 235 = 940).  Cut to 940 B it
  // frees [7203436, 7985740), one range with the end: 1185172 B, and the
  // request fits at 7203456 (64-aligned), if 0x1c is re-created (an upper
  // bound: Realm does not shrink an instance).
  const RecoveryFit fit = FitAfterRecovery(*s, w, f.size, f.alignment);
  EXPECT_FALSE(fit.fits_now);
  EXPECT_EQ(fit.largest_hole_now, 402868u);
  EXPECT_EQ(fit.largest_hole_after, 1185172u);
  EXPECT_TRUE(fit.fits_after_recovery);
  EXPECT_EQ(fit.placement, 7203456u);
  ASSERT_EQ(fit.recreate.size(), 1u);
  EXPECT_EQ(fit.recreate[0].allocation.instance, 0x400000000000001cu);
  EXPECT_EQ(fit.recreate[0].useful.bytes, 940u);
  std::cout << "circuit-2rank-oom rank 0: live " << w.totals.bytes
            << " B in " << w.totals.allocations << " instances; padding "
            << w.totals.padding.bytes << ", inflation "
            << w.totals.inflation.bytes << ", unrequested "
            << w.totals.unrequested.bytes << ", alignment gaps (free) "
            << w.totals.alignment_gaps << "; the " << f.size
            << " B request: largest hole " << fit.largest_hole_now
            << " now, " << fit.largest_hole_after
            << " after recovery, fits at " << fit.placement
            << " re-creating " << HexId(fit.recreate[0].allocation.instance)
            << "\n";
}

}  // namespace
}  // namespace realm_shadow
