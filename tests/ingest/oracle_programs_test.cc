// The oracle's minimal programs (scripts/legion-oracle, docs/oracle.md):
// Realm logs that scripts/trial/realm_random.cc wrote, each reduced to the
// few operations that showed a defect of the log's rebuild or of `at`, with
// what Realm itself held at the checkpoint.  For each: the log cut at the
// checkpoint states only what the truth holds (and marks what the log
// cannot tell), and the whole log's history at that moment (at --event,
// at --time) gives the cut's picture, markings included.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tests/common/log_program.h"
#include "tests/ingest/oracle_log.h"

namespace realm_shadow {
namespace {

using namespace oracle_log;  // NOLINT: the programs' vocabulary

// Each test reads its log (LogProgram) after the prologue, as the program
// wrote it (the instance and event lines, its own "OP" lines); the program
// that wrote each is in tests/data/log_programs/oracle_programs/INDEX.txt.

// The requests of `log` cancelled in `memory`: neither failed nor waiting,
// in the cut and in `at`.
void ExpectCancelledNotFailed(const std::string& log, uint64_t memory) {
  const Rebuilt r = Rebuild(log);
  const Snapshot* cut = Memory(r.cut, memory);
  ASSERT_NE(cut, nullptr);
  EXPECT_TRUE(cut->failures.empty()) << Picture(*cut);
  EXPECT_TRUE(cut->pending.empty()) << Picture(*cut);
  ExpectAtGivesTheCut(r, memory);
}

// `instance` of S live in the cut where Realm held it, its size a fact.
void ExpectLiveAsRealmHoldsIt(const std::string& log, uint64_t instance,
                              uint64_t offset, uint64_t size) {
  const Rebuilt r = Rebuild(log);
  const Allocation* a = LiveInCut(r, instance);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->offset, offset);
  EXPECT_EQ(a->size, size);
  EXPECT_EQ(CutSizeMark(r, *a), "");
  ExpectAtGivesTheCut(r, kS);
}

// at.*.marking: the cut marks i12's size an upper bound (the log never
// gives a piece's size); at showed the same range unmarked, a size stated
// as known.
TEST(OraclePrograms, AtMarksARedistrictedPiecesSizeAsTheCutDoes) {
  const Rebuilt r = Rebuild(LogProgram("oracle_programs/redistricted"));
  const Allocation* piece = LiveInCut(r, 0x4000000000000002ull);
  ASSERT_NE(piece, nullptr);
  EXPECT_EQ(CutSizeMark(r, *piece), kSizeUpperBound);
  ExpectAtGivesTheCut(r, kS);
}

// at.*.pending: a redistrict waiting on its precondition logs only its
// pieces' announces; the cut lists them as waiting (size unknown), at did
// not list them.
TEST(OraclePrograms, AtHoldsThePiecesOfAWaitingRedistrict) {
  const Rebuilt r = Rebuild(LogProgram("oracle_programs/waiting_redistrict"));
  const Snapshot* cut = Memory(r.cut, kS);
  ASSERT_NE(cut, nullptr);
  int unknown = 0;
  for (const PendingRequest& p : cut->pending)
    unknown += SizeMark(*cut, p.identity) == kSizeUnknown;
  EXPECT_EQ(unknown, 3);
  ExpectAtGivesTheCut(r, kS);
}

// at.numbering, at.time.failures, log.cancelled-as-failure: i10 waits on E4
// (it fits: the allocator did not defer it), its redistrict waits on i10;
// E4 is poisoned: Realm cancels both without asking its allocator, and logs
// "allocation failed" for each.  Neither is a failure; the cut showed both
// (i12 with no size), the whole history i10 only and one event fewer.
TEST(OraclePrograms, RequestsCancelledByAPoisonedPreconditionAreNoFailures) {
  ExpectCancelledNotFailed(
      LogProgram("oracle_programs/cancelled_redistrict"), kS);
}

// log.cancelled-as-failure: the same for a plain create on E5, cancelled.
TEST(OraclePrograms, ACancelledCreateIsNoFailure) {
  ExpectCancelledNotFailed(LogProgram("oracle_programs/cancelled_request"), kR);
}

// The other side of the line drawn above: a request waiting on its
// precondition that no longer fits when the precondition fires is refused
// by the allocator: a failure (Realm's truth says "failed").
TEST(OraclePrograms, ARequestThatNoLongerFitsWhenItsPreconditionFiresFails) {
  const Rebuilt r = Rebuild(LogProgram(
      "oracle_programs/"
      "a_request_that_no_longer_fits_when_its_precondition_fires_fails"));
  const Snapshot* cut = Memory(r.cut, kR);
  ASSERT_NE(cut, nullptr);
  ASSERT_EQ(cut->failures.size(), 1u) << Picture(*cut);
  EXPECT_EQ(cut->failures[0].instance, 0x4000000000800001ull);
  EXPECT_EQ(cut->failures[0].size, 54272u);
  ExpectAtGivesTheCut(r, kR);
}

// at.time.allocations: i2 waits on E2 and is destroyed while it waits; E2
// fires: Realm places it and releases it at once.  The placement cleared the
// requested destroy, so the release read as the old instance of i6's
// waiting redistrict: i2 stayed live in the whole history, and the cut
// (which settles the open group) released it with four events more.
TEST(OraclePrograms, AnInstanceDestroyedWhileItWaitedIsReleasedNotRedistricted) {
  const Rebuilt r = Rebuild(
      LogProgram("oracle_programs/destroyed_while_waiting"));
  const Snapshot* cut = Memory(r.cut, kS);
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(Live(*cut, 0x4000000000000001ull), nullptr) << Picture(*cut);
  ExpectAtGivesTheCut(r, kS);
}

// log.external: Realm logs an external instance's address as its
// "allocation completed" offset (here ~1.4e14 in X, of capacity 0).  Its
// allocator holds none of it: no allocation, no anomaly; a note names it.
TEST(OraclePrograms, AnExternalInstanceHoldsNoRange) {
  const Rebuilt r = Rebuild(LogProgram("oracle_programs/external_x"));
  const Snapshot* x = Memory(r.whole, kX);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(Live(*x, 0x4000000000400001ull), nullptr) << Picture(*x);
  EXPECT_TRUE(x->anomalies.empty());
  EXPECT_TRUE(AnyNote(r.whole, "external instances")) << "no note";
  // Nothing happened to X's allocator: no event, no history.
  EXPECT_EQ(History(r.whole, kX), nullptr);
}

// The same in S: the address minus S's base underflows to ~1.8e19.
TEST(OraclePrograms, AnExternalInstanceInAnAllocatorsMemoryHoldsNoRange) {
  const Rebuilt r = Rebuild(LogProgram("oracle_programs/external_s"));
  const Snapshot* s = Memory(r.cut, kS);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Live(*s, 0x4000000000000001ull), nullptr) << Picture(*s);
  EXPECT_TRUE(s->anomalies.empty());
  ExpectAtGivesTheCut(r, kS);
}

// log.missing-live: i16's redistrict runs at once while i2's waits; the
// release of i16 took every waiting piece (i2's three and i23) as its own,
// the group never completed, and i28 (i16's id reused) was lost.
TEST(OraclePrograms, ARedistrictTakesOnlyThePiecesAnnouncedWithIt) {
  ExpectLiveAsRealmHoldsIt(
      LogProgram("oracle_programs/redistrict_beside_a_waiting_one"),
      0x4000000000000005ull, 118784, 1099776);
}

// log.placement: i1's redistrict waits (on i2's ready event) while i7's
// runs; a later create reuses i10's id.  Truth: i23 at 550912.
TEST(OraclePrograms, AReusedIdIsPlacedWhereTheLogSays) {
  ExpectLiveAsRealmHoldsIt(
      LogProgram("oracle_programs/reused_id_after_redistricts"),
      0x4000000000000005ull, 550912, 903168);
}

// log.state-live-shown-release_pending: i15's destroy waits on E8+E9 and
// E8 is cancelled: Realm poisons the merged event, the destroy never
// happens, i15 is live.  Only a destroy waiting on exactly E8 was seen.
TEST(OraclePrograms, ADestroyWaitingOnAMergeOfACancelledEventIsCancelled) {
  const Rebuilt r = Rebuild(
      LogProgram("oracle_programs/destroy_on_a_merged_event"));
  const Allocation* i15 = LiveInCut(r, 0x4000000000000001ull);
  ASSERT_NE(i15, nullptr);
  EXPECT_EQ(i15->state, AllocationState::kLive);
  ExpectAtGivesTheCut(r, kS);
}

// log.missing-release_pending-piece: i3, i1's only piece, is bounded by
// i1's end and its destroy waits on E1; i7 lands inside that bound.  The
// release was taken as early (a reordering) and i3 dropped; the bound
// must narrow instead: i3 stays, release pending, ending where i7 begins.
TEST(OraclePrograms, AnAllocationInsideAPieceWithAPendingDestroyNarrowsIt) {
  const Rebuilt r = Rebuild(
      LogProgram("oracle_programs/piece_with_a_pending_destroy"));
  const Allocation* i3 = LiveInCut(r, 0x4000000000000002ull);
  ASSERT_NE(i3, nullptr);
  EXPECT_EQ(i3->state, AllocationState::kReleasePending);
  EXPECT_EQ(i3->size, 241664u);  // the truth, 239036, lies within
  EXPECT_EQ(CutSizeMark(r, *i3), kSizeUpperBound);
  ExpectAtGivesTheCut(r, kS);
}

// log.bound: i8, a zero-byte piece, is placed at i7's offset; i7's bound
// became 0 B (the next piece's offset), below its 286833 B.  Pieces at one
// offset bound nothing of each other: both end at or before i9.
TEST(OraclePrograms, AZeroBytePieceDoesNotBoundThePieceBesideIt) {
  const Rebuilt r = Rebuild(LogProgram("oracle_programs/zero_byte_piece"));
  const Allocation* i7 = LiveInCut(r, 0x4000000000000002ull);
  ASSERT_NE(i7, nullptr);
  EXPECT_EQ(i7->size, 286848u);  // the truth, 286833, lies within
  EXPECT_EQ(CutSizeMark(r, *i7), kSizeUpperBound);
  ExpectAtGivesTheCut(r, kS);
}

// log.missing-live-piece: i2, a zero-byte piece at 0 bounded by i1's end,
// has its destroy waiting on E3+E4; i25 is placed at 0.  The destroy was
// taken as early (a reordering) and i2 dropped; then E3 is cancelled and
// Realm holds i2 live.  A piece at the new allocation's offset narrows to
// 0 B instead.
TEST(OraclePrograms, AnAllocationAtAPiecesOffsetNarrowsItToZero) {
  const Rebuilt r = Rebuild(
      LogProgram("oracle_programs/zero_byte_piece_at_an_allocation"));
  const Allocation* i2 = LiveInCut(r, 0x4000000000000002ull);
  ASSERT_NE(i2, nullptr);
  EXPECT_EQ(i2->size, 0u);
  EXPECT_EQ(i2->state, AllocationState::kLive);
  ExpectAtGivesTheCut(r, kS);
}

// log.extra: i15's redistrict (pieces i19 i20 i21) and i20's (i22 i23) wait
// and run when E8 fires.  Their announces had only the program's lines
// between them and made one run: the first redistrict took all five
// pieces, never completed, and i20 (whose redistrict ran) stayed live.
TEST(OraclePrograms, TwoRedistrictsCalledInTurnKeepTheirOwnPieces) {
  const Rebuilt r = Rebuild(
      LogProgram("oracle_programs/two_redistricts_one_after_the_other"));
  const Snapshot* cut = Memory(r.cut, kS);
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(Live(*cut, 0x4000000000000005ull), nullptr) << Picture(*cut);
  for (uint64_t piece : {0x4000000000000001ull, 0x4000000000000006ull,
                         0x4000000000000007ull, 0x4000000000000008ull}) {
    const Allocation* a = LiveInCut(r, piece);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(CutSizeMark(r, *a), kSizeUpperBound);
  }
  ExpectAtGivesTheCut(r, kS);
}

// A redistrict of a piece of a waiting redistrict, both on E5 (seed 173 of
// the oracle's run): when E5 fires, i5's release is logged after the
// program's own "trigger" line, so i5's pieces are not the run announced
// last (i11's): the first outcome decides.  Taking the last run placed i8
// and i9 outside any group, as allocations of a size stated as 0 B.
TEST(OraclePrograms, APiecesOwnRedistrictDoesNotTakeItsParentsPieces) {
  const Rebuilt r = Rebuild(
      LogProgram("oracle_programs/redistrict_of_a_waiting_piece"));
  const Snapshot* cut = Memory(r.cut, kR);
  ASSERT_NE(cut, nullptr);
  for (const auto& [piece, bound] :
       {std::pair{0x4000000000800002ull, 23232u}, {0x4000000000800003ull, 256u}}) {
    const Allocation* a = Live(*cut, piece);
    ASSERT_NE(a, nullptr) << std::hex << piece << "\n" << Picture(*cut);
    EXPECT_EQ(a->size, bound);  // Realm's 23219 and 225 lie within
    EXPECT_EQ(SizeMark(*cut, a->identity), kSizeUpperBound);
  }
  EXPECT_EQ(Live(*cut, 0x4000000000800004ull), nullptr) << Picture(*cut);
  ExpectAtGivesTheCut(r, kR);
}

}  // namespace
}  // namespace realm_shadow
