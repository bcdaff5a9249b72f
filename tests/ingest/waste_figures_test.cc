// The figures of what an instance's bytes hold, from the logs: Realm's
// printed layout read whole (instance_layout.h), Legion Spy's shapes of
// regions and requested fields (legion_spy_shapes.h), and the '#'
// attributes they give each instance (waste_figures.h), on hand-made lines
// and on the fixtures' real runs.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "realm_shadow/core/identity.h"
#include "realm_shadow/ingest/instance_layout.h"
#include "realm_shadow/ingest/legion_spy_shapes.h"
#include "realm_shadow/ingest/waste_figures.h"
#include "tests/ingest/log_fixtures.h"

namespace realm_shadow {
namespace realm_log {
namespace {

using ::realm_shadow::testing::Ingest;
using ::realm_shadow::testing::kFixtures;
using ::realm_shadow::testing::kRuns;
using ::realm_shadow::testing::RankLogs;

// ---- the printed layout ----------------------------------------------------

TEST(InstanceLayout, ReadsRealmsPrintedFormWhole) {
  // circuit's node instance: 5 fields in two lists, 2048 points.
  InstanceLayout l;
  ASSERT_TRUE(ParseInstanceLayout(
      "Layout(bytes=49152, align=64, fields={0=1+16384, 1=1+24576, "
      "2=1+32768, 3=1+40960, 4=0+0}, lists=[[<2048>..<4095>->affine(<8>-16384)"
      "], [<2048>..<4095>->affine(<4>-8192)]])",
      &l));
  EXPECT_FALSE(l.opaque);
  EXPECT_EQ(l.bytes, 49152u);
  EXPECT_EQ(l.alignment, 64u);
  ASSERT_EQ(l.fields.size(), 5u);
  EXPECT_EQ(l.fields[0].list, 1u);
  EXPECT_EQ(l.fields[0].relative_offset, 16384u);
  EXPECT_EQ(l.fields[4].id, 4u);
  ASSERT_EQ(l.lists.size(), 2u);
  ASSERT_EQ(l.lists[0].size(), 1u);
  EXPECT_EQ(l.lists[0][0].dims, 1);
  EXPECT_EQ(l.lists[0][0].lo[0], 2048);
  EXPECT_EQ(l.lists[0][0].hi[0], 4095);
  EXPECT_EQ(l.lists[0][0].strides[0], 8u);
  EXPECT_EQ(l.lists[0][0].offset, -16384);

  // Multi-dimensional bounds and strides, several pieces, an empty list.
  ASSERT_TRUE(ParseInstanceLayout(
      "Layout(bytes=1600, align=32, fields={7=0+0}, lists=[[<0,0>..<9,9>->"
      "affine(<8,80>+0), <10,-3>..<10,-2>->affine(<8,8>+104)], []])",
      &l));
  ASSERT_EQ(l.lists[0].size(), 2u);
  EXPECT_EQ(l.lists[0][1].dims, 2);
  EXPECT_EQ(l.lists[0][1].lo[1], -3);
  EXPECT_EQ(l.lists[0][1].offset, 104);
  EXPECT_TRUE(l.lists[1].empty());

  ASSERT_TRUE(ParseInstanceLayout("OpaqueLayout(bytes=64, align=16)", &l));
  EXPECT_TRUE(l.opaque);
  EXPECT_EQ(l.bytes, 64u);
  ASSERT_TRUE(ParseInstanceLayout(
      "Layout(bytes=0, align=32, fields={0=0+0}, lists=[[]])", &l));

  // Not Realm's form: refused whole.
  for (const char* bad :
       {"Layout(bytes=64, align=32)",  // what a test may write by hand
        "Layout(bytes=64, align=32, fields={0=1+0}, lists=[[]])",  // list 1
        "Layout(bytes=64, align=32, fields={}, lists=[[<0>..<7>->affine(<8>"
        "0)]])",  // the offset's sign is always printed
        "Layout(bytes=64, align=32, fields={}, lists=[[<0>..<7,1>->affine("
        "<8>+0)]])",  // dimensions disagree
        "Layout(bytes=64, align=32, fields={}, lists=[]) trailing",
        "Layout(bytes=64, align=32, fields={}, lists=[[<0>..<7>->hybrid(<8>"
        "+0)]])"})
    EXPECT_FALSE(ParseInstanceLayout(bad, &l)) << bad;
}

TEST(InstanceLayout, PointsAndCellsOfStructOfArrays) {
  // tutorial 08's ghost instance: 516 points, two 8-byte fields one after
  // the other (the second at 516 * 8 = 4128).
  const LayoutShape s = ShapeOfLayout(
      "Layout(bytes=8256, align=32, fields={0=0+0, 1=0+4128}, "
      "lists=[[<510>..<1025>->affine(<8>-4080)]])");
  ASSERT_TRUE(s.read) << s.why;
  EXPECT_TRUE(s.points_known);
  EXPECT_EQ(s.points, 516u);
  ASSERT_EQ(s.fields.size(), 2u);
  EXPECT_EQ(s.fields[0].cell, 8u);
  EXPECT_EQ(s.fields[1].cell, 8u);
  EXPECT_EQ(s.fields[1].points, 516u);

  // circuit's failed ghost request: 4-byte fields aligned to 64, gaps
  // between the blocks; cells 8 and 4 all the same.
  const LayoutShape g = ShapeOfLayout(
      "Layout(bytes=735252, align=64, fields={0=1+245056, 1=1+367616, "
      "2=1+490176, 3=1+612736, 4=0+0}, lists=[[<2114>..<32742>->affine(<8>"
      "-16912)], [<2114>..<32742>->affine(<4>-8456)]])");
  ASSERT_TRUE(g.read);
  EXPECT_EQ(g.points, 30629u);
  EXPECT_EQ(g.fields[0].cell, 4u);
  EXPECT_EQ(g.fields[4].cell, 8u);

  // 2-D, column-major strides chaining densely (8, 8 x 10).
  const LayoutShape d = ShapeOfLayout(
      "Layout(bytes=1600, align=32, fields={0=0+0, 1=0+800}, lists=[[<0,0>.."
      "<9,9>->affine(<80,8>+0)]])");
  ASSERT_TRUE(d.read);
  EXPECT_EQ(d.points, 100u);
  EXPECT_EQ(d.fields[1].cell, 8u);
}

TEST(InstanceLayout, NoCellWhereFieldsInterleaveOrStridesGap) {
  // Array-of-structs: two 4-byte fields in one 8-byte element.
  LayoutShape s = ShapeOfLayout(
      "Layout(bytes=80, align=32, fields={0=0+0, 1=0+4}, lists=[[<0>..<9>->"
      "affine(<8>+0)]])");
  ASSERT_TRUE(s.read);
  EXPECT_EQ(s.points, 10u);
  EXPECT_EQ(s.fields[0].cell, 0u);
  EXPECT_EQ(s.fields[1].cell, 0u);
  EXPECT_NE(s.why.find("interleave"), std::string::npos) << s.why;
  // AOS in two lists (an 8-byte and a 4-byte field, element 16 bytes): each
  // list alone looks SOA, their bytes overlap.
  s = ShapeOfLayout(
      "Layout(bytes=160, align=32, fields={0=0+0, 1=1+8}, lists=[[<0>..<9>->"
      "affine(<16>+0)], [<0>..<9>->affine(<16>+0)]])");
  EXPECT_EQ(s.fields[0].cell, 0u);
  // A gap between rows: not dense.
  s = ShapeOfLayout(
      "Layout(bytes=960, align=32, fields={0=0+0}, lists=[[<0,0>..<9,9>->"
      "affine(<8,96>+0)]])");
  EXPECT_EQ(s.fields[0].cell, 0u);
  EXPECT_NE(s.why.find("chain"), std::string::npos) << s.why;
  // A field past the layout's bytes.
  s = ShapeOfLayout(
      "Layout(bytes=64, align=32, fields={0=0+0, 1=0+64}, lists=[[<0>..<7>->"
      "affine(<8>+0)]])");
  EXPECT_EQ(s.fields[0].cell, 0u);
  // Lists covering different points: no #points.
  s = ShapeOfLayout(
      "Layout(bytes=96, align=32, fields={0=0+0, 1=1+64}, lists=[[<0>..<7>->"
      "affine(<8>+0)], [<0>..<3>->affine(<8>+64)]])");
  EXPECT_FALSE(s.points_known);
  EXPECT_EQ(s.fields[1].points, 4u);
  // Opaque and unreadable layouts.
  s = ShapeOfLayout("OpaqueLayout(bytes=64, align=16)");
  EXPECT_FALSE(s.read);
  EXPECT_EQ(s.bytes, 64u);
  EXPECT_FALSE(ShapeOfLayout("Layout(bytes=64, align=32)").read);
}

// ---- Legion Spy's shapes ----------------------------------------------------

class Shapes {
 public:
  Shapes& Line(const std::string& message) {
    kept_.push_back("[0 - 1] 0.1 {3}{legion_spy}: " + message);
    const LogLine l = ParseLogLine(kept_.back());
    EXPECT_NE(l.kind, LineKind::kMalformed) << message;
    shapes.Add(l);
    return *this;
  }
  uint64_t Points(uint64_t expression) {
    uint64_t points = 0;
    std::string why;
    EXPECT_TRUE(shapes.ExpressionPoints(expression, &points, &why)) << why;
    return points;
  }
  std::string Why(uint64_t expression) {
    uint64_t points = 0;
    std::string why;
    EXPECT_FALSE(shapes.ExpressionPoints(expression, &points, &why));
    return why;
  }
  SpyShapes shapes;

 private:
  std::deque<std::string> kept_;
};

TEST(SpyShapes, PointsOfSpacesAndExpressions1D) {
  Shapes s;
  s.Line("Index Space Expression 2 2")
      .Line("Index Space Rect 2 1 0 4095 0 0 0 0")
      .Line("Index Space Expression 16 22")
      .Line("Index Space Rect 16 1 0 513 0 0 0 0")
      .Line("Index Space Expression 18 24")
      .Line("Index Space Rect 18 1 510 1025 0 0 0 0")
      // A sparse space, point by point, one point logged twice.
      .Line("Index Space Expression 45 50")
      .Line("Index Space Point 45 1 8 0 0")
      .Line("Index Space Point 45 1 10 0 0")
      .Line("Index Space Point 45 1 9 0 0")
      .Line("Index Space Point 45 1 10 0 0")
      .Line("Index Space Rect 45 1 100 199 0 0 0 0")
      .Line("Index Space Intersection 38 2  22 24")
      .Line("Index Space Difference 52 24 38")
      .Line("Index Space Union 60 3 22 24 50")
      .Line("Index Space Intersection 61 2 50 2")
      .Line("Empty Index Space 3f")
      .Line("Index Space Expression 3f 63")
      .Line("Index Space Union 64 2 63 22")
      .Line("Index Space Intersection 65 2 22 63");
  EXPECT_EQ(s.Points(2), 4096u);
  EXPECT_EQ(s.Points(22), 514u);
  EXPECT_EQ(s.Points(24), 516u);
  EXPECT_EQ(s.Points(50), 103u);  // 8, 9, 10 and 100..199
  EXPECT_EQ(s.Points(38), 4u);    // 510..513
  EXPECT_EQ(s.Points(52), 512u);  // 514..1025
  EXPECT_EQ(s.Points(60), 1026u);  // 0..1025; 8..10, 100..199 inside
  EXPECT_EQ(s.Points(61), 103u);
  EXPECT_EQ(s.Points(63), 0u);
  EXPECT_EQ(s.Points(64), 514u);
  EXPECT_EQ(s.Points(65), 0u);
  uint64_t points = 0;
  std::string why;
  ASSERT_TRUE(s.shapes.IndexSpacePoints(0x45, &points, &why));
  EXPECT_EQ(points, 103u);
  // What the logs do not give.
  EXPECT_NE(s.Why(99).find("expression 99 is not in the logs"),
            std::string::npos);
  s.Line("Index Space Expression 77 70").Line("Index Space Union 71 2 70 2");
  EXPECT_NE(s.Why(71).find("index space 119 has no Rect"), std::string::npos)
      << s.Why(71);
}

TEST(SpyShapes, PointsOfExpressions2D) {
  Shapes s;
  s.Line("Index Space Expression 1 1")
      .Line("Index Space Rect 1 2 0 9 0 9 0 0")  // 10 x 10
      .Line("Index Space Expression 2 2")
      .Line("Index Space Rect 2 2 5 14 5 14 0 0")  // 10 x 10, 25 shared
      .Line("Index Space Union 3 2 1 2")
      .Line("Index Space Intersection 4 2 1 2")
      .Line("Index Space Difference 5 1 2")
      .Line("Index Space Expression 6 6")
      .Line("Index Space Rect 6 2 0 9 0 9 0 0")
      .Line("Index Space Rect 6 2 0 9 0 9 0 0")  // the same rect twice
      .Line("Index Space Expression 7 7")
      .Line("Index Space Rect 7 1 0 9 0 0 0 0")
      .Line("Index Space Union 8 2 1 7");
  EXPECT_EQ(s.Points(3), 175u);
  EXPECT_EQ(s.Points(4), 25u);
  EXPECT_EQ(s.Points(5), 75u);
  EXPECT_EQ(s.Points(6), 100u);
  EXPECT_NE(s.Why(8).find("mixes dimensions"), std::string::npos);
}

TEST(SpyShapes, SizesRequirementsAndMerge) {
  Shapes a, b;
  a.Line("Field Creation 2 0 8 ")
      .Line("Field Creation 2 1 8 ")
      .Line("Logical Requirement 38 0 1 6 2 2 268435463 0 0 2")
      .Line("Logical Requirement Field 38 0 0")
      .Line("Logical Requirement 12 0 0 4 2 2 1 0 0 2")  // a partition
      .Line("Logical Requirement Field 12 0 0")
      .Line("Logical Requirement 16 0 1 2 2 2 7 0 0 2")
      .Line("Logical Requirement Field 16 0 0")
      .Line("Logical Requirement Field 16 0 1")
      .Line("Logical Requirement 16 1 1 2 2 2 7 0 0 2")
      .Line("Logical Requirement Field 16 1 1")
      .Line("Logical Requirement 20 0 1 2 2 2 7 0 0 2");
  b.Line("Field Creation 2 0 4 ")  // disagrees: the first is kept
      .Line("Field Creation 3 0 4 ")
      .Line("Index Space Expression 6 6")
      .Line("Index Space Rect 6 1 0 511 0 0 0 0");
  EXPECT_EQ(a.shapes.Merge(b.shapes), 1u);
  uint64_t size = 0;
  ASSERT_TRUE(a.shapes.FieldSize(2, 0, &size));
  EXPECT_EQ(size, 8u);
  ASSERT_TRUE(a.shapes.FieldSize(3, 0, &size));
  EXPECT_EQ(size, 4u);
  EXPECT_FALSE(a.shapes.FieldSize(3, 1, &size));
  EXPECT_EQ(a.Points(6), 512u);

  std::vector<uint64_t> fields;
  std::string why;
  ASSERT_TRUE(a.shapes.RequestedFields(38, 6, 2, 2, &fields, &why)) << why;
  EXPECT_EQ(fields, std::vector<uint64_t>({0}));
  ASSERT_TRUE(a.shapes.RequestedFields(16, 2, 2, 2, &fields, &why)) << why;
  EXPECT_EQ(fields, std::vector<uint64_t>({0, 1}));  // two requirements
  EXPECT_FALSE(a.shapes.RequestedFields(12, 4, 2, 2, &fields, &why));
  EXPECT_NE(why.find("no requirement of operation 12 names the region"),
            std::string::npos) << why;
  EXPECT_FALSE(a.shapes.RequestedFields(20, 2, 2, 2, &fields, &why));
  EXPECT_NE(why.find("names no field"), std::string::npos) << why;
  EXPECT_FALSE(a.shapes.RequestedFields(99, 2, 2, 2, &fields, &why));
  EXPECT_NE(why.find("logged no requirement"), std::string::npos) << why;
}

TEST(SpyShapes, CyclesAndDeepChainsEndUnknown) {
  Shapes s;
  s.Line("Index Space Expression 1 1")
      .Line("Index Space Rect 1 1 0 9 0 0 0 0")
      .Line("Index Space Union 2 3 1 2 2")  // built from itself
      .Line("Index Space Union 3 2 3 3");
  EXPECT_NE(s.Why(2).find("built from itself"), std::string::npos);
  EXPECT_NE(s.Why(3).find("built from itself"), std::string::npos);
  // 100 unions, each of the one before twice: linear, not 2^100.
  for (int e = 10; e < 110; ++e)
    s.Line("Index Space Union " + std::to_string(e + 1) + " 2 " +
           std::to_string(e == 10 ? 1 : e) + " " +
           std::to_string(e == 10 ? 1 : e));
  EXPECT_EQ(s.Points(11), 10u);
  EXPECT_EQ(s.Points(60), 10u);
  EXPECT_EQ(s.Points(110), 10u);  // asked after its sources: remembered
}

// Mutated layouts never crash the reader, and whatever it reads is
// consistent: a cell only where it read the layout.
TEST(InstanceLayout, MutatedTextIsReadOrRefusedWhole) {
  const std::string base =
      "Layout(bytes=735252, align=64, fields={0=1+245056, 1=1+367616, "
      "2=1+490176, 3=1+612736, 4=0+0}, lists=[[<2114>..<32742>->affine(<8>"
      "-16912)], [<2114,0>..<32742,9>->affine(<4,40>-8456)]])";
  std::mt19937_64 rng(20260101);
  const std::string alphabet = "0123456789<>[]{}(),.+-=x ";
  for (int round = 0; round < 20000; ++round) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: text.erase(at, 1 + rng() % 8); break;
        default: text.insert(at, 1, alphabet[rng() % alphabet.size()]);
      }
      if (text.empty()) text = "L";
    }
    const LayoutShape shape = ShapeOfLayout(text);
    if (!shape.read) {
      EXPECT_TRUE(shape.fields.empty());
      EXPECT_FALSE(shape.why.empty());
    }
  }
}

// ---- the figures an instance gets -------------------------------------------

std::map<std::string, std::string> FiguresOfAttributes(
    const std::vector<std::pair<std::string, std::string>>& attrs) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : attrs) {
    EXPECT_TRUE(IsFigureAttribute(k)) << k;
    out[k] = v;
  }
  return out;
}

TEST(WasteFigures, FromLayoutAndLegionSpy) {
  Shapes s;
  s.Line("Field Creation 2 0 8 ")
      .Line("Field Creation 2 1 8 ")
      .Line("Index Space Expression 6 6")
      .Line("Index Space Rect 6 1 0 511 0 0 0 0")
      .Line("Logical Requirement 38 0 1 6 2 2 268435463 0 0 2")
      .Line("Logical Requirement Field 38 0 0");
  const LayoutShape layout = ShapeOfLayout(
      "Layout(bytes=8192, align=32, fields={0=0+0, 1=0+4096}, "
      "lists=[[<0>..<511>->affine(<8>+0)]])");
  SpyInstance spy;
  spy.expression = 6;
  spy.field_space = 2;
  spy.has_creator = true;
  spy.creator = 38;
  spy.creation_regions.emplace_back(6, 2, 2);
  WasteFigureCounts counts;
  auto f = FiguresOfAttributes(
      WasteFigureAttributes(&layout, &spy, s.shapes, &counts));
  EXPECT_EQ(f[kPointsAttribute], "512");
  EXPECT_EQ(f[kFieldBytesAttribute], "8192");
  EXPECT_EQ(f[kBytesPerPointAttribute], "16");
  EXPECT_EQ(f[kFieldSizesFromAttribute], "Legion Spy");
  EXPECT_EQ(f[kRegionPointsAttribute], "512");
  EXPECT_EQ(f[kRequestedBytesPerPointAttribute], "8");
  EXPECT_EQ(f.count(kFiguresUnknownAttribute), 0u);
  EXPECT_EQ(counts.lives, 1u);
  EXPECT_EQ(counts.requested, 1u);

  // No creator, an expression missing (the region's own space serves), a
  // field without Field Creation (its cell serves).
  SpyInstance other = spy;
  other.has_creator = false;
  other.expression = 99;
  other.field_space = 7;
  f = FiguresOfAttributes(
      WasteFigureAttributes(&layout, &other, s.shapes, &counts));
  EXPECT_EQ(f[kBytesPerPointAttribute], "16");
  EXPECT_EQ(f[kFieldSizesFromAttribute], "layout");
  EXPECT_EQ(f[kRegionPointsAttribute], "512");
  EXPECT_EQ(f.count(kRequestedBytesPerPointAttribute), 0u);
  EXPECT_NE(f[kFiguresUnknownAttribute].find(
                "requested_bytes_per_point: no Physical Instance Creator"),
            std::string::npos)
      << f[kFiguresUnknownAttribute];

  // A Field Creation size above the field's cell contradicts the layout.
  s.Line("Field Creation 5 0 16 ").Line("Field Creation 5 1 8 ");
  other.field_space = 5;
  f = FiguresOfAttributes(
      WasteFigureAttributes(&layout, &other, s.shapes, &counts));
  EXPECT_EQ(f.count(kFieldBytesAttribute), 0u);
  EXPECT_NE(f[kFiguresUnknownAttribute].find("exceeds its cell"),
            std::string::npos);

  // Interleaved fields and no Legion Spy: points only.
  const LayoutShape aos = ShapeOfLayout(
      "Layout(bytes=80, align=32, fields={0=0+0, 1=0+4}, lists=[[<0>..<9>->"
      "affine(<8>+0)]])");
  f = FiguresOfAttributes(
      WasteFigureAttributes(&aos, nullptr, s.shapes, &counts));
  EXPECT_EQ(f[kPointsAttribute], "10");
  EXPECT_EQ(f.count(kFieldBytesAttribute), 0u);
  EXPECT_EQ(f.count(kRegionPointsAttribute), 0u);
  // No layout line: nothing at all.
  EXPECT_TRUE(WasteFigureAttributes(nullptr, &spy, s.shapes, &counts).empty());
}

// The fixtures: every live instance of the Legion Spy runs gets every
// figure (tutorial 08, circuit's two runs that end with live instances),
// a Realm-only run the layout's.
TEST(WasteFiguresFixtures, EveryLiveInstanceOfTheSpyRunsHasEveryFigure) {
  SKIP_WITHOUT_SPY_FIXTURES();
  for (const auto& run : {kRuns[0], kRuns[2]}) {
    IngestSummary summary;
    const DumpFile dump = Ingest(RankLogs(run), &summary);
    EXPECT_EQ(summary.shape_mismatches, 0u) << run.name;
    EXPECT_EQ(summary.waste_figures.field_bytes_unknown, 0u) << run.name;
    uint64_t live = 0;
    for (const Snapshot& s : dump.memories)
      for (const Allocation& a : s.allocations) {
        ++live;
        const Identity* id = s.FindIdentity(a.identity);
        ASSERT_NE(id, nullptr) << run.name;
        std::map<std::string, std::string> f;
        for (const auto& [k, v] : id->attributes) f[k] = v;
        for (const char* key :
             {kPointsAttribute, kFieldBytesAttribute, kBytesPerPointAttribute,
              kRegionPointsAttribute, kRequestedBytesPerPointAttribute})
          EXPECT_EQ(f.count(key), 1u) << run.name << " " << HexId(a.instance)
                                      << " " << key << ": "
                                      << f[kFiguresUnknownAttribute];
        EXPECT_EQ(f[kFieldSizesFromAttribute], "Legion Spy");
        EXPECT_LE(std::stoull(f[kFieldBytesAttribute]), a.size);
      }
    EXPECT_GT(live, 0u) << run.name;
  }
}

TEST(WasteFiguresFixtures, RealmOnlyRunGetsTheLayoutsFigures) {
  SKIP_WITHOUT_FIXTURES();
  IngestSummary summary;
  const DumpFile dump =
      Ingest({kFixtures + "/realm-frag-deferred.log"}, &summary);
  // Its live instances with a layout: every one a 1-byte field (Realm's
  // own layout: the cell), no Legion Spy.
  EXPECT_GT(summary.waste_figures.lives, 0u);
  EXPECT_EQ(summary.waste_figures.region_points, 0u);
  uint64_t with_bytes = 0;
  for (const Snapshot& s : dump.memories)
    for (const Allocation& a : s.allocations) {
      const Identity* id = a.identity ? s.FindIdentity(a.identity) : nullptr;
      if (id == nullptr) continue;
      for (const auto& [k, v] : id->attributes)
        if (k == kFieldBytesAttribute) {
          ++with_bytes;
          EXPECT_EQ(v, std::to_string(a.size));
        }
      EXPECT_EQ(IdentityText(*id).find('#'), std::string::npos);
    }
  // 6 in system memory, 3 in regdma (the zero-byte instances have no
  // cell; the redistricted pieces no layout line).
  EXPECT_EQ(with_bytes, 9u);
}

}  // namespace
}  // namespace realm_log
}  // namespace realm_shadow
