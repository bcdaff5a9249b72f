// The oracle's minimal programs (scripts/legion-oracle, docs/oracle.md):
// Realm logs that scripts/trial/realm_random.cc wrote, each reduced to the
// few operations that showed a defect of the log's rebuild or of `at`, with
// what Realm itself held at the checkpoint.  For each: the log cut at the
// checkpoint states only what the truth holds (and marks what the log
// cannot tell), and the whole log's history at that moment (at --event,
// at --time) gives the cut's picture, markings included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "realm_shadow/analysis/history_cursor.h"
#include "realm_shadow/core/identity.h"
#include "realm_shadow/ingest/realm_log.h"
#include "tests/common/log_program.h"

namespace realm_shadow {
namespace {

constexpr uint64_t kS = 0x1e00000000000000ull;  // -ll:csize 4: 4 MiB
constexpr uint64_t kX = 0x1e00000000000001ull;  // capacity 0: external
constexpr uint64_t kR = 0x1e00000000000002ull;  // -ll:rsize 2: 2 MiB

// What every run logs first: the machine dump's memories, the event the
// program cancels at once (its source of poison), and its zero-byte
// instance of S (those of X and R are left out).
const std::string kPrologue = LogProgram("oracle_programs/prologue");

// Each test reads its log (LogProgram) after the prologue, as the program
// wrote it (the instance and event lines, its own "OP" lines); the program
// that wrote each is in tests/data/log_programs/oracle_programs/INDEX.txt.

// The log cut before its CHECKPOINT line, the whole log, and the
// checkpoint's time (the moment `at --time` is asked for).
struct Rebuilt {
  DumpFile cut;
  DumpFile whole;
  int64_t checkpoint_ns = 0;
};

// kPrologue, then `log`.
Rebuilt Rebuild(const std::string& log) {
  Rebuilt out;
  RealmLogReader cut, whole;
  bool before = true;
  std::istringstream lines(std::string(kPrologue) + log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("CHECKPOINT ") != std::string::npos && before) {
      before = false;
      // "[0 - 1] 0.820838 {3}{random}: CHECKPOINT 1"
      const size_t at = line.find("] ") + 2;
      out.checkpoint_ns = std::llround(std::stod(line.substr(at)) * 1e6) * 1000;
    }
    if (before) cut.FeedLine(line);
    whole.FeedLine(line);
  }
  EXPECT_FALSE(before) << "no CHECKPOINT line";
  out.cut = cut.Dump();
  out.whole = whole.Dump();
  return out;
}

const Snapshot* Memory(const DumpFile& dump, uint64_t id) {
  for (const Snapshot& s : dump.memories)
    if (s.memory_id == id) return &s;
  return nullptr;
}

const MemoryHistory* History(const DumpFile& dump, uint64_t id) {
  for (const MemoryHistory& h : dump.histories)
    if (h.memory_id == id) return &h;
  return nullptr;
}

// What a picture says of a size: "upper bound", "unknown", or "".
std::string SizeMark(const Snapshot& s, uint32_t identity) {
  for (const Identity& i : s.identities)
    if (i.id == identity)
      for (const auto& [key, value] : i.attributes)
        if (key == kSizeAttribute) return value;
  return "";
}

// The picture as the oracle compares two of one moment: allocations with
// their state and size marking, waiting requests with theirs, failures.
std::string Picture(const Snapshot& s) {
  std::string out;
  for (const Allocation& a : s.allocations)
    absl::StrAppend(&out, "live ", absl::Hex(a.instance), " [", a.offset, ", +",
                    a.size, ") ", static_cast<int>(a.state), " ",
                    SizeMark(s, a.identity), "\n");
  for (const PendingRequest& p : s.pending)
    absl::StrAppend(&out, "waiting ", absl::Hex(p.instance), " ", p.size, " ",
                    SizeMark(s, p.identity), "\n");
  for (const Failure& f : s.failures)
    absl::StrAppend(&out, "failed ", absl::Hex(f.instance), " ", f.size, "\n");
  return out;
}

// `at --event` (the cut's number of events) and `at --time` (the
// checkpoint's time) on the whole log's history give the cut's picture.
void ExpectAtGivesTheCut(const Rebuilt& r, uint64_t memory) {
  const Snapshot* cut = Memory(r.cut, memory);
  const MemoryHistory* h = History(r.whole, memory);
  ASSERT_NE(cut, nullptr);
  ASSERT_NE(h, nullptr);
  absl::StatusOr<Snapshot> by_event = StateAt(*h, cut->sequence);
  ASSERT_TRUE(by_event.ok()) << by_event.status();
  EXPECT_EQ(Picture(*by_event), Picture(*cut)) << "at --event " << cut->sequence;
  absl::StatusOr<uint64_t> moment = MomentAtTime(*h, r.checkpoint_ns);
  ASSERT_TRUE(moment.ok()) << moment.status();
  EXPECT_EQ(*moment, cut->sequence) << "at --time numbers the moment otherwise";
  absl::StatusOr<Snapshot> by_time = StateAt(*h, *moment);
  ASSERT_TRUE(by_time.ok()) << by_time.status();
  EXPECT_EQ(Picture(*by_time), Picture(*cut)) << "at --time";
}

const Allocation* Live(const Snapshot& s, uint64_t instance) {
  for (const Allocation& a : s.allocations)
    if (a.instance == instance) return &a;
  return nullptr;
}

// The cut's live allocation of `instance` in S; null, with a failure that
// shows the cut, when it holds none.
const Allocation* LiveInCut(const Rebuilt& r, uint64_t instance) {
  const Snapshot* cut = Memory(r.cut, kS);
  if (cut == nullptr) {
    ADD_FAILURE() << "no memory S in the cut";
    return nullptr;
  }
  const Allocation* a = Live(*cut, instance);
  if (a == nullptr)
    ADD_FAILURE() << "no " << std::hex << instance << " in the cut:\n"
                  << Picture(*cut);
  return a;
}

// What the cut says of `a`'s size ("upper bound", "unknown" or "").
std::string CutSizeMark(const Rebuilt& r, const Allocation& a) {
  return SizeMark(*Memory(r.cut, kS), a.identity);
}

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

bool AnyNote(const DumpFile& d, const std::string& part) {
  for (const std::string& n : d.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
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
