// The remedies that need no replay (analysis/remedies.h) on pictures built
// by hand, where each answer is known: release of collectable blockers,
// release of pinned ones with why they are pinned, a stock log's picture
// (no GC state), and the waste of instances whose padding and inflation
// are of known sizes; and their texts (render/failure_report.h).
#include "realm_shadow/analysis/remedies.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "realm_shadow/core/identity.h"
#include "realm_shadow/render/failure_report.h"
#include "realm_shadow/render/report.h"
#include "tests/analysis/snapshot_builder.h"

namespace realm_shadow {
namespace {

using testing::Alloc;
using testing::MakeSnapshot;

constexpr uint64_t kA = 0x4000000000000001ull;
constexpr uint64_t kB = 0x4000000000000002ull;
constexpr uint64_t kC = 0x4000000000000003ull;
constexpr uint64_t kD = 0x4000000000000004ull;
constexpr uint64_t kRequest = 0x4000000000000009ull;

Failure InstantFailure(uint64_t size, uint64_t sequence = 10) {
  Failure f;
  f.instance = kRequest;
  f.size = size;
  f.alignment = 1;
  f.sequence = sequence;
  return f;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// [A 400 | B 200 | free 100 | C 300] of 1000: 300 B do not fit (largest hole
// 100); releasing B (collectable) opens [400, 700).
TEST(Remedies, ReleaseNamesTheCollectableWindowAndChecksItByFirstFit) {
  Snapshot s = MakeSnapshot(1000, {Alloc(0, 400, kA, true), Alloc(400, 200, kB),
                                   Alloc(700, 300, kC, true)});
  s.sequence = 11;
  const FailureRemedies r = FindRemedies(s, InstantFailure(300), nullptr);
  EXPECT_EQ(r.release.verdict, RemedyVerdict::kFits);
  EXPECT_TRUE(r.release.checked);
  EXPECT_EQ(r.release.placement, 400u);
  ASSERT_EQ(r.release.window.blockers.size(), 1u);
  EXPECT_EQ(r.release.window.blockers[0].instance, kB);
  EXPECT_EQ(r.release_pinned.verdict, RemedyVerdict::kNotApplicable);
  // Instant: no release was counted on; no history: no replay remedies.
  EXPECT_EQ(r.wait.verdict, RemedyVerdict::kNotApplicable);
  EXPECT_EQ(r.capacity.verdict, RemedyVerdict::kNotComputed);
  EXPECT_EQ(OrderedRemedies(r).front(), RemedyKind::kRelease);
  const std::string text = FormatRemedies(s, r, "");
  EXPECT_TRUE(Contains(text, "1. release         release 1 collectable allocation(s), 200 B"))
      << text;
  EXPECT_TRUE(Contains(text, "checked: first fit without them places it at 400")) << text;
}

// Only pinned instances block: release does not fit, release-pinned names
// them with what the tracked side recorded of why Legion keeps them.
TEST(Remedies, WhereOnlyPinnedOnesBlockTheyAreNamedWithWhy) {
  Snapshot s = MakeSnapshot(1000, {Alloc(0, 400, kA, true), Alloc(400, 200, kB, true),
                                   Alloc(700, 300, kC, true)});
  s.allocations[1].identity = 1;
  Identity why;
  why.id = 1;
  why.kind = AllocationKind::kRegionInstance;
  why.attributes = {{"region", "r7"},
                    {kGcReasonAttribute, "a valid reference: mapped by a task"},
                    {kGcPriorityAttribute, "0"}};
  s.identities.push_back(why);
  s.sequence = 11;
  const FailureRemedies r = FindRemedies(s, InstantFailure(300), nullptr);
  EXPECT_EQ(r.release.verdict, RemedyVerdict::kDoesNotFit);
  ASSERT_EQ(r.release_pinned.verdict, RemedyVerdict::kFits);
  EXPECT_TRUE(r.release_pinned.checked);
  ASSERT_EQ(r.release_pinned.pinned.size(), 1u);
  EXPECT_EQ(r.release_pinned.pinned[0].allocation.instance, kB);
  EXPECT_EQ(r.release_pinned.pinned[0].reason, "a valid reference: mapped by a task");
  EXPECT_EQ(r.release_pinned.pinned_bytes, 200u);
  const std::string text = FormatRemedies(s, r, "");
  EXPECT_TRUE(Contains(text, "make 1 pinned allocation(s) collectable (200 B)")) << text;
  EXPECT_TRUE(Contains(text, "instance 0x4000000000000002 200 B: a valid reference: mapped "
                             "by a task; gc_priority 0"))
      << text;
}

// A stock log's picture: nothing is pinned because nothing is known.  The
// release remedy says so, and release-pinned is unknown, saying why.
TEST(Remedies, AStockLogsPictureCannotTellWhichAreCollectable) {
  Snapshot s = MakeSnapshot(1000, {Alloc(0, 400, kA), Alloc(400, 200, kB),
                                   Alloc(700, 300, kC)});
  s.gc_state_known = false;
  const FailureRemedies r = FindRemedies(s, InstantFailure(300), nullptr);
  EXPECT_EQ(r.release.verdict, RemedyVerdict::kFits);
  EXPECT_FALSE(r.release.gc_state_known);
  EXPECT_EQ(r.release_pinned.verdict, RemedyVerdict::kUnknown);
  const std::string text = FormatRemedies(s, r, "");
  EXPECT_TRUE(Contains(text, "if Legion may collect them (GC state unknown: a stock log "
                             "cannot tell which are collectable)"))
      << text;
  EXPECT_TRUE(Contains(FormatBlockerWindow(s, r.release.window, "blockers", "", ListCut{}, ""),
                       "GC state unknown"));
}

Identity WithFigures(uint32_t id, const char* store, uint64_t field_bytes, uint64_t points,
                     uint64_t region_points, uint64_t bytes_per_point,
                     uint64_t requested_bytes_per_point) {
  Identity i;
  i.id = id;
  i.kind = AllocationKind::kRegionInstance;
  i.attributes = {{"store", store},
                  {kPointsAttribute, std::to_string(points)},
                  {kFieldBytesAttribute, std::to_string(field_bytes)},
                  {kBytesPerPointAttribute, std::to_string(bytes_per_point)},
                  {kRegionPointsAttribute, std::to_string(region_points)},
                  {kRequestedBytesPerPointAttribute, std::to_string(requested_bytes_per_point)}};
  return i;
}

// Padding and inflation of known sizes.  [A 400 | B 300 | free 100 | C 200]
// of 1000, every instance pinned:
//   A: 100 points of 3 B (field bytes 300) in 400 B: padding 100; the
//      region has 60 points: inflation 40 * 3 = 120; fields all asked for.
//   B: 50 points of 4 B (200) in 300 B: padding 100; region 50 points;
//      2 of its 4 B asked for: unrequested 2 * 50 = 100.
//   C: no figures (unknown).
// Cut in place, A keeps [0, 180) and B [400, 500): the hole [180, 400) of
// 220 B and [500, 800) of 300 B.  A request of 250 B fits at 500, inside
// B; one of 350 B does not.
TEST(Remedies, WasteOfKnownPaddingAndInflationAndWhetherRecoveringItFits) {
  Snapshot s = MakeSnapshot(1000, {Alloc(0, 400, kA, true), Alloc(400, 300, kB, true),
                                   Alloc(800, 200, kC, true)});
  s.allocations[0].identity = 1;
  s.allocations[1].identity = 2;
  s.identities = {WithFigures(1, "x", 300, 100, 60, 3, 3),
                  WithFigures(2, "y", 200, 50, 50, 4, 2)};
  const FailureRemedies fits = FindRemedies(s, InstantFailure(250), nullptr);
  const WasteRemedy& w = fits.waste;
  ASSERT_EQ(w.verdict, RemedyVerdict::kFits);
  EXPECT_FALSE(w.checked);  // an upper bound: instances must be made again
  EXPECT_EQ(w.waste.totals.padding.bytes, 200u);
  EXPECT_EQ(w.waste.totals.inflation.bytes, 120u);
  EXPECT_EQ(w.waste.totals.unrequested.bytes, 100u);
  EXPECT_EQ(w.waste.totals.known_waste(), 420u);
  EXPECT_EQ(w.waste.totals.padding.unknown_allocations, 1u);  // C
  EXPECT_EQ(w.recovery.placement, 500u);
  ASSERT_EQ(w.recovery.recreate.size(), 1u);
  EXPECT_EQ(w.recovery.recreate[0].allocation.instance, kB);
  EXPECT_EQ(fits.release.verdict, RemedyVerdict::kDoesNotFit);
  const std::string text = FormatRemedies(s, fits, "", "store");
  EXPECT_TRUE(Contains(text, "waste           420 B held unasked in live instances (padding "
                             "200 B, inflation 120 B, unrequested fields 100 B; 2 of 3 "
                             "instance(s) with figures)"))
      << text;
  EXPECT_TRUE(Contains(text, "first fit finds room at 500, inside 1 instance(s) (1 pinned)"))
      << text;
  EXPECT_TRUE(Contains(text, "by store: x 220 B of 400 B (padding 100 B, inflation 120 B, "
                             "unrequested fields 0 B); y 200 B of 300 B"))
      << text;
  EXPECT_TRUE(Contains(text, "instance 0x4000000000000001 220 B of 400 B: padding 100 B, "
                             "inflation 120 B, unrequested 0 B store=x"))
      << text;

  // The memory's report says the same, failure or not.
  EXPECT_TRUE(Contains(FormatWaste(s, "store"),
                       "  waste               420 B held unasked in live instances"))
      << FormatWaste(s, "store");
  EXPECT_EQ(FormatWaste(MakeSnapshot(1000, {Alloc(0, 400, kA)}), "store"), "");

  const FailureRemedies too_large = FindRemedies(s, InstantFailure(350), nullptr);
  EXPECT_EQ(too_large.waste.verdict, RemedyVerdict::kDoesNotFit);
  EXPECT_EQ(too_large.waste.waste.totals.known_waste(), 420u);
}

// Without figures (a tracked dump) the waste remedy says what is missing
// and how to get it; a request of unknown size gets no remedy but that.
TEST(Remedies, WasteWithoutFiguresSaysWhatIsMissing) {
  Snapshot s = MakeSnapshot(1000, {Alloc(0, 900, kA, true)});
  const FailureRemedies r = FindRemedies(s, InstantFailure(300), nullptr);
  EXPECT_EQ(r.waste.verdict, RemedyVerdict::kUnknown);
  EXPECT_TRUE(Contains(r.waste.missing, "instance layout")) << r.waste.missing;
  const FailureRemedies unknown = FindRemedies(s, InstantFailure(0), nullptr);
  EXPECT_EQ(unknown.release.verdict, RemedyVerdict::kUnknown);
  EXPECT_EQ(unknown.waste.verdict, RemedyVerdict::kUnknown);
}

// A deferred failure with no history: wait cannot be told, and says how to
// get what it needs; release still answers.
TEST(Remedies, WaitWithoutHistorySaysHowToGetOne) {
  Snapshot s = MakeSnapshot(1000, {Alloc(0, 400, kA), Alloc(400, 600, kB, true)});
  Failure f = InstantFailure(500);
  f.eventual = true;
  const FailureRemedies r = FindRemedies(s, f, nullptr);
  EXPECT_EQ(r.wait.verdict, RemedyVerdict::kUnknown);
  EXPECT_TRUE(Contains(r.wait.missing, "REALM_SHADOW_HISTORY")) << r.wait.missing;
  EXPECT_EQ(r.release.verdict, RemedyVerdict::kDoesNotFit);
  (void)kD;
}

}  // namespace
}  // namespace realm_shadow
