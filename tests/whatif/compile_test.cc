// Tests of whatif/compile.h: event sequences as each source writes them
// (decision hooks, heap observation, a Realm log), built by hand, turned
// into steps and replayed.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "realm_shadow/ingest/realm_log.h"
#include "whatif/compile.h"
#include "whatif/replay.h"
#include "whatif/report.h"

namespace realm_shadow::whatif {
namespace {

constexpr uint64_t kId = 0x4000000000000000ull;

Event E(EventType t, uint64_t inst, uint64_t offset = 0, uint64_t size = 0, uint32_t aux = 0) {
  return Event{t, kId | inst, offset, size, aux};
}
Event Allocated(uint64_t i, uint64_t o, uint64_t s) { return E(EventType::kAllocated, i, o, s, 1); }
Event Released(uint64_t i) { return E(EventType::kReleased, i); }
Event ReleaseRequested(uint64_t i, uint32_t ready) {
  return E(EventType::kReleaseRequested, i, 0, 0, ready);
}

Snapshot Base(uint64_t capacity) {
  Snapshot s;
  s.memory_id = 0x1e00000000000000ull;
  s.capacity = capacity;
  return s;
}

ReplayScript Compile(const Snapshot& base, const std::vector<Event>& events,
                     bool from_log = false, std::vector<Identity> identities = {}) {
  absl::StatusOr<ReplayScript> s = CompileEvents(base, events, identities, from_log);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : ReplayScript{};
}

ReplayResult Replayed(const ReplayScript& s, PlacementPolicy p) {
  ReplayOptions o;
  o.policy = p;
  absl::StatusOr<ReplayResult> r = RunReplay(s, o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : ReplayResult{};
}

// `s` replayed under realm: no failure, every checkable placement as
// recorded, and (unless kAnyCount) `checked` of them checked.
constexpr uint64_t kAnyCount = ~uint64_t{0};
ReplayResult ExpectReplaysAsRecorded(const ReplayScript& s, uint64_t checked = kAnyCount) {
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_FALSE(r.failed());
  EXPECT_EQ(r.self_check.difference_count, 0u);
  if (checked != kAnyCount) EXPECT_EQ(r.self_check.checked, checked);
  return r;
}

// A log's events, the same.
ReplayResult ExpectLogReplaysAsRecorded(const std::vector<Event>& ev, uint64_t capacity) {
  return ExpectReplaysAsRecorded(Compile(Base(capacity), ev, /*from_log=*/true));
}

TEST(Compile, DecisionHooksInstantPlacementsReleasesAndAFailure) {
  const std::vector<Event> ev = {
      Allocated(1, 0, 100),   Allocated(2, 100, 250), Allocated(3, 350, 150),
      Allocated(4, 500, 150), Allocated(5, 650, 100), Allocated(6, 750, 250),
      Released(2),            Released(4),            Allocated(2, 100, 140),
      E(EventType::kAllocationFailed, 7, 0, 250, 1)};
  const ReplayScript s = Compile(Base(1000), ev);
  ASSERT_EQ(s.lives.size(), 8u);
  ASSERT_EQ(s.steps.size(), 10u);
  EXPECT_EQ(s.steps[6].kind, StepKind::kRelease);
  EXPECT_TRUE(s.steps[6].ready);
  EXPECT_EQ(s.lives[6].instance, kId | 2);  // the id reused: a new life
  EXPECT_EQ(s.lives[7].recorded, RecordedOutcome::kFailed);
  const ReplayResult realm = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(realm.self_check.as_recorded, 7u);
  EXPECT_EQ(realm.self_check.checked, 7u);
  EXPECT_EQ(realm.failures.size(), 1u);
  EXPECT_FALSE(Replayed(s, PlacementPolicy::kBestFit).failed());
}

// A log's failure marked maybe cancelled (event.h kFailureMaybeCancelled
// in the offset) is a request the run may never have asked for; an
// unmarked one is one of the run's failures.
TEST(Compile, ALogsFailureMarkedMaybeCancelledIsSaidSo) {
  const std::vector<Event> ev = {
      Allocated(1, 0, 600),
      E(EventType::kAllocationFailed, 2, kFailureMaybeCancelled, 500, 1),
      E(EventType::kAllocationFailed, 3, 0, 500, 1)};
  const ReplayScript s = Compile(Base(1000), ev, /*from_log=*/true);
  ASSERT_EQ(s.lives.size(), 3u);
  EXPECT_TRUE(s.lives[1].recorded_maybe_cancelled);
  EXPECT_FALSE(s.lives[2].recorded_maybe_cancelled);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.recorded_failures, 1u);
  EXPECT_EQ(r.recorded_maybe_cancelled, 1u);
  EXPECT_EQ(r.failures_of_maybe_cancelled, 1u);
}

TEST(Compile, DeferredRequestAndItsRelease) {
  const std::vector<Event> ev = {
      Allocated(1, 0, 600), Allocated(2, 600, 400), ReleaseRequested(1, 0),
      E(EventType::kDeferred, 3, 0, 500, 1),  // planned at 0
      Released(1), E(EventType::kDeferredCompleted, 3, 0)};
  const ReplayScript s = Compile(Base(1000), ev);
  ASSERT_EQ(s.steps.size(), 5u);
  EXPECT_EQ(s.steps[2].kind, StepKind::kRelease);
  EXPECT_FALSE(s.steps[2].ready);
  EXPECT_EQ(s.steps[3].kind, StepKind::kRequest);
  EXPECT_EQ(s.steps[4].kind, StepKind::kReleaseReady);
  EXPECT_EQ(s.lives[2].recorded_offset, 0u);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.as_recorded, 3u);
  EXPECT_FALSE(r.failed());
}

// The decision hooks' deferred redistrict: release requested, the pieces
// deferred with no plan, then the old released and the pieces completed.
// Read as a split, the first piece lands in the old range; read as plain
// requests it would take the hole before it.
TEST(Compile, DecisionHooksDeferredRedistrictIsASplit) {
  const std::vector<Event> ev = {
      Allocated(1, 0, 100),  Allocated(2, 100, 1000), Allocated(3, 1100, 900),
      Released(1),           ReleaseRequested(2, 0),
      E(EventType::kDeferred, 4, kNoOffset, 50, 1), E(EventType::kDeferred, 5, kNoOffset, 200, 1),
      Released(2), E(EventType::kDeferredCompleted, 4, 100),
      E(EventType::kDeferredCompleted, 5, 150)};
  const ReplayScript s = Compile(Base(2000), ev);
  bool split = false;
  for (const ReplayStep& st : s.steps) {
    EXPECT_NE(st.kind, StepKind::kRequestWaits);
    if (st.kind == StepKind::kRedistrict) {
      split = true;
      EXPECT_EQ(st.piece_count, 2u);
      EXPECT_FALSE(st.ready);
    }
  }
  EXPECT_TRUE(split);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.difference_count, 0u);
  EXPECT_EQ(r.self_check.as_recorded, 5u);
}

// A request waiting on its creation precondition (decision hooks: deferred
// with no plan, nothing between) enters when it is placed.
TEST(Compile, WaitingRequestEntersAtItsPlacement) {
  const std::vector<Event> ev = {
      Allocated(1, 0, 100), E(EventType::kDeferred, 2, kNoOffset, 100, 1),
      Allocated(3, 100, 100), E(EventType::kDeferredCompleted, 2, 200)};
  const ReplayScript s = Compile(Base(1000), ev);
  ASSERT_EQ(s.steps.size(), 4u);
  EXPECT_EQ(s.steps[1].kind, StepKind::kRequestWaits);
  EXPECT_EQ(s.steps[3].kind, StepKind::kRequestEnters);
  EXPECT_EQ(Replayed(s, PlacementPolicy::kRealm).self_check.as_recorded, 3u);
  // From a log the same: the log names no plan, so the request enters at
  // its outcome (Realm plans none before the precondition fires).
  const ReplayScript log = Compile(Base(1000), ev, /*from_log=*/true);
  EXPECT_EQ(log.steps[1].kind, StepKind::kRequestWaits);
  EXPECT_EQ(log.steps[3].kind, StepKind::kRequestEnters);
}

// A Realm log (the oracle's minimal program of replay.failures and
// replay.self-check, seed 1):
//   event E5 / create S i13 9471 after=E5 / create S i14 22528 align=256
// E5 never fires: Realm never asks its allocator for i13 and puts i14 at
// 0.  Replayed as a request deferred when it was made, i13 took [0, 9471)
// and i14 went to 9472.
TEST(Compile, LogRequestOnAPreconditionEntersAtItsOutcome) {
  const std::vector<Event> ev = {
      E(EventType::kDeferred, 1, kNoOffset, 9471, 1),
      E(EventType::kAllocated, 2, 0, 22528, 256)};
  const ReplayScript s = Compile(Base(4194304), ev, /*from_log=*/true);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.checked, 1u);
  EXPECT_EQ(r.self_check.as_recorded, 1u);
  EXPECT_FALSE(r.failed());  // i13 still waits, as in the run
}

// A destroy requested while the request still waits on its precondition
// (a log: "instance destroyed" before "allocation completed") waits for
// the placement, in Realm as in the replay: not a request the run had
// placed and the replay held back.
TEST(Compile, LogDestroyBeforeThePlacementIsNotAStall) {
  const std::vector<Event> ev = {
      E(EventType::kDeferred, 1, kNoOffset, 1000, 1), ReleaseRequested(1, 0),
      E(EventType::kDeferredCompleted, 1, 0), Released(1),
      E(EventType::kAllocated, 2, 0, 500, 1)};
  const ReplayScript s = Compile(Base(4096), ev, /*from_log=*/true);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.as_recorded, 2u);
  EXPECT_FALSE(r.failed());
}

// Heap observation: the pieces wait, the old release is requested, the
// future heap plans them, the release fires and the current heap splits.
TEST(Compile, HeapObservedRedistrict) {
  const std::vector<Event> ev = {
      E(EventType::kHeapPlaced, 1, 0, 100, 1), E(EventType::kHeapPlaced, 2, 100, 1000, 1),
      E(EventType::kHeapRemoved, 1),
      E(EventType::kFuturePlaced, 4, kNoOffset, 50, 1),
      E(EventType::kFuturePlaced, 5, kNoOffset, 2000, 1),  // does not fit: fails
      ReleaseRequested(2, 0),
      E(EventType::kFuturePlaced, 4, 100, 50, 1), E(EventType::kFuturePlaced, 5, kNoOffset, 2000, 1),
      ReleaseRequested(2, 1),
      E(EventType::kHeapSplit, 2, 0, 0, 1), E(EventType::kRedistrictPiece, 4, 100, 50, 1),
      E(EventType::kRequestFailed, 5, 0, 2000, 1)};
  const ReplayScript s = Compile(Base(2000), ev);
  const ReplayStep* split = nullptr;
  for (const ReplayStep& st : s.steps)
    if (st.kind == StepKind::kRedistrict) split = &st;
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->piece_count, 2u);  // the failed piece too
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.as_recorded, 3u);
  EXPECT_EQ(r.self_check.difference_count, 0u);
  ASSERT_EQ(r.failures.size(), 1u);  // the piece that does not fit
  EXPECT_EQ(s.lives[r.failures[0].life].instance, kId | 5);
}

// Heap observation of a redistrict requested while the old instance still
// waits on its creation precondition (Realm's delayed redistrict; oracle
// seed 294: create S i4 43467 after=E1 / redistrict i4 i5 i6 i7
// after=E1+E2 / trigger E2 / trigger E1): the pieces are announced and the
// old release requested before the old is placed; the release joins
// Realm's queue only once the old is placed, and the split comes later.
// The announced pieces are the split's, not requests of their own: a later
// life of a piece's id is a new request.
TEST(Compile, HeapObservedDelayedRedistrict) {
  const std::vector<Event> ev = {
      E(EventType::kFuturePlaced, 1, kNoOffset, 400, 2),
      E(EventType::kFuturePlaced, 2, kNoOffset, 100, 2),
      E(EventType::kFuturePlaced, 3, kNoOffset, 150, 2),
      ReleaseRequested(1, 0),
      E(EventType::kHeapPlaced, 1, 0, 400, 2),
      E(EventType::kHeapPlaced, 5, 400, 100, 2),
      ReleaseRequested(1, 1),
      E(EventType::kHeapSplit, 1, 0, 0, 2), E(EventType::kRedistrictPiece, 2, 0, 100, 2),
      E(EventType::kRedistrictPiece, 3, 100, 150, 2),
      E(EventType::kHeapPlaced, 6, 250, 100, 2),
      ReleaseRequested(3, 1), E(EventType::kHeapRemoved, 3),
      E(EventType::kHeapPlaced, 3, 500, 200, 2)};
  const ReplayScript s = Compile(Base(1000), ev);
  ExpectReplaysAsRecorded(s, 6u);
}

// Heap observation of a redistrict of a request Realm deferred with a plan
// (the oracle's replay-tracked.failures, seed 1 of a master run: create S
// i5 fill after=E2 while the memory is full, so i5 is zero bytes, planned
// at 0 / redistrict i5 i6:286833 i7:0 i8:696727): the pieces are announced
// and the old release requested while the old is pending in the allocator,
// not yet placed.  They are the split's: a zero-byte range splits into no
// piece of any size, and every piece fails with the split.  They replayed
// as requests of their own, placed in the room the replay had, and the
// replay avoided 8 of the run's 9 failures.
TEST(Compile, HeapObservedRedistrictOfADeferredRequest) {
  const std::vector<Event> ev = {
      E(EventType::kHeapPlaced, 1, 0, 4096, 256), ReleaseRequested(1, 0),
      E(EventType::kFutureReset, 0),
      E(EventType::kFuturePlaced, 4, 0, 0, 32),
      E(EventType::kFuturePlaced, 5, kNoOffset, 1000, 32),
      E(EventType::kFuturePlaced, 6, kNoOffset, 0, 4096),
      E(EventType::kFuturePlaced, 7, kNoOffset, 2000, 32),
      ReleaseRequested(4, 0),
      ReleaseRequested(1, 1), E(EventType::kHeapRemoved, 1),
      E(EventType::kHeapSwapped, 0, 0, 0, 1), E(EventType::kHeapPlaced, 4, 0, 0, 0),
      ReleaseRequested(4, 1),
      E(EventType::kHeapSplit, 4, 0, 0, 0),
      E(EventType::kRequestFailed, 5, 1, 1000, 32),
      E(EventType::kRequestFailed, 6, 1, 0, 4096),
      E(EventType::kRequestFailed, 7, 1, 2000, 32)};
  const ReplayScript s = Compile(Base(4096), ev);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.difference_count, 0u);
  EXPECT_EQ(r.self_check.as_recorded, 2u);
  ASSERT_EQ(r.failures.size(), 3u);  // the three pieces, with the split
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(s.lives[r.failures[i].life].instance, kId | (5 + i));
}

// Heap observation of a redistrict of a piece whose own redistrict still
// waits (the oracle's replay-tracked.self-check, seed 8 of a master run:
// create S i15 2106 after=E9 / redistrict i15 i19 i20 i21 / redistrict i20
// i22 i23, Realm's delayed redistricts one inside the other): the piece's
// split queues once the piece is placed by its parent's split, not where
// it was requested.  Replayed where it was requested, it came before the
// parent's split made the piece, and the piece's pieces were placed as
// requests of their own, elsewhere.
TEST(Compile, HeapObservedDelayedRedistrictOfAPieceOfADelayedRedistrict) {
  const std::vector<Event> ev = {
      E(EventType::kFuturePlaced, 1, kNoOffset, 1000, 32),
      E(EventType::kFuturePlaced, 1, 0, 1000, 32),
      E(EventType::kFuturePlaced, 2, kNoOffset, 300, 32),
      E(EventType::kFuturePlaced, 3, kNoOffset, 300, 32),
      E(EventType::kFuturePlaced, 4, kNoOffset, 200, 32),
      ReleaseRequested(1, 0),
      E(EventType::kFuturePlaced, 2, 0, 300, 32), E(EventType::kFuturePlaced, 3, 320, 300, 32),
      E(EventType::kFuturePlaced, 4, 640, 200, 32),
      E(EventType::kFuturePlaced, 5, kNoOffset, 100, 32),
      E(EventType::kFuturePlaced, 6, kNoOffset, 100, 32),
      ReleaseRequested(3, 0),
      E(EventType::kFuturePlaced, 5, 320, 100, 32), E(EventType::kFuturePlaced, 6, 448, 100, 32),
      E(EventType::kHeapPlaced, 1, 0, 1000, 32),
      ReleaseRequested(1, 1),
      E(EventType::kHeapSplit, 1, 0, 0, 3), E(EventType::kRedistrictPiece, 2, 0, 300, 32),
      E(EventType::kRedistrictPiece, 3, 320, 300, 32),
      E(EventType::kRedistrictPiece, 4, 640, 200, 32),
      ReleaseRequested(3, 1),
      E(EventType::kHeapSplit, 3, 0, 0, 2), E(EventType::kRedistrictPiece, 5, 320, 100, 32),
      E(EventType::kRedistrictPiece, 6, 448, 100, 32)};
  ExpectReplaysAsRecorded(Compile(Base(4096), ev), 6u);
}

// Heap observation shows a request waiting on its own precondition right
// before a redistrict's pieces, all of them waiting, before the old
// release (the oracle's replay-tracked.failures, seed 19 of a master run:
// create S i13 1246859 after=E3 / redistrict i4 i12:940 i13:57 i14:274).
// Only the pieces the split places and the ones whose failures follow it
// are the split's; the waiting request is no piece.  Taken for one, it put
// the pieces out of order: the split was replayed as new requests, and the
// piece Realm failed was placed elsewhere.
TEST(Compile, HeapObservedWaitingRequestBeforeASplitsPiecesIsNoPiece) {
  const std::vector<Event> ev = {
      E(EventType::kHeapPlaced, 3, 0, 2048, 32),
      E(EventType::kFuturePlaced, 2, kNoOffset, 500, 32),
      E(EventType::kFuturePlaced, 9, kNoOffset, 100, 32),
      E(EventType::kFuturePlaced, 10, kNoOffset, 3000, 32),
      ReleaseRequested(3, 1),
      E(EventType::kHeapSplit, 3, 0, 0, 1), E(EventType::kRedistrictPiece, 9, 0, 100, 32),
      E(EventType::kRequestFailed, 10, 0, 3000, 32),
      E(EventType::kHeapPlaced, 2, 128, 500, 32)};
  const ReplayScript s = Compile(Base(8192), ev);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.difference_count, 0u);
  EXPECT_EQ(r.self_check.as_recorded, 3u);
  ASSERT_EQ(r.failures.size(), 1u);  // the piece that does not fit
  EXPECT_EQ(s.lives[r.failures[0].life].instance, kId | 10);
}

// Heap observation of a split whose pieces fail before its group (the
// oracle's replay-tracked.failures, seed 38 of a master run: a redistrict
// of a zero-byte instance requested ready while other work is queued):
// Realm plans the split in its future heap at the release and fails the
// pieces that plan cannot place at once; the group comes when the current
// heap catches up.  The failures were replayed as requests of their own,
// placed, and the replay avoided both of the run's failures.
TEST(Compile, HeapObservedSplitWhosePiecesFailBeforeItsGroup) {
  const std::vector<Event> ev = {
      E(EventType::kHeapPlaced, 4, 0, 0, 256),
      E(EventType::kFuturePlaced, 2, kNoOffset, 100, 32),
      E(EventType::kFuturePlaced, 7, kNoOffset, 200, 32),
      ReleaseRequested(4, 1),
      E(EventType::kRequestFailed, 2, 0, 100, 32),
      E(EventType::kRequestFailed, 7, 0, 200, 32),
      E(EventType::kHeapSplit, 4, 0, 0, 0)};
  const ReplayScript s = Compile(Base(4096), ev);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.difference_count, 0u);
  EXPECT_EQ(r.recorded_failures, 2u);
  EXPECT_EQ(r.recorded_failures_avoided, 0u);
  ASSERT_EQ(r.failures.size(), 2u);  // the pieces a zero-byte range cannot hold
}

// Heap observation of a queued split that Realm's release reordering
// applies in the heap it swaps in (the oracle's replay-tracked.self-check,
// seed 40 of a master run: redistrict i22 i27 i28 i29 after=r:i8): the
// swap removes the old range and places the pieces.  That is the split,
// not a release and then requests of their own, which first fit placed
// in the hole below the old range.
TEST(Compile, HeapObservedSplitInASwappedHeap) {
  const std::vector<Event> ev = {
      E(EventType::kHeapPlaced, 1, 0, 400, 32), E(EventType::kHeapPlaced, 7, 416, 1000, 32),
      E(EventType::kHeapRemoved, 1),
      E(EventType::kFuturePlaced, 8, kNoOffset, 300, 32),
      E(EventType::kFuturePlaced, 9, kNoOffset, 200, 32),
      ReleaseRequested(7, 0),
      E(EventType::kFuturePlaced, 8, 416, 300, 32), E(EventType::kFuturePlaced, 9, 736, 200, 32),
      ReleaseRequested(7, 1),
      E(EventType::kHeapSwapped, 0, 0, 0, 3), E(EventType::kHeapRemoved, 7),
      E(EventType::kHeapPlaced, 8, 416, 300, 0), E(EventType::kHeapPlaced, 9, 736, 200, 0)};
  ExpectReplaysAsRecorded(Compile(Base(4096), ev), 4u);
}

// Heap observation of a destroy of a piece requested while the redistrict
// that makes it still waits (the oracle's replay-tracked.self-check, seed
// 254 of a master run: create S i1 fill after=E1 / redistrict i1 i2 i3 i4 /
// destroy i3 after its ready event): the destroy joins the queue once the
// split has made the piece.  At its request the replay had no piece to
// release, held it to the end, and placed a later request elsewhere.
TEST(Compile, HeapObservedDestroyOfAPieceBeforeItsSplitIsQueuedAfterIt) {
  const std::vector<Event> ev = {
      E(EventType::kFuturePlaced, 1, kNoOffset, 1000, 32),
      E(EventType::kFuturePlaced, 2, kNoOffset, 300, 32),
      E(EventType::kFuturePlaced, 3, kNoOffset, 300, 32),
      ReleaseRequested(1, 0), ReleaseRequested(3, 0),
      E(EventType::kHeapPlaced, 1, 0, 1000, 32), ReleaseRequested(1, 1),
      E(EventType::kHeapSplit, 1, 0, 0, 2), E(EventType::kRedistrictPiece, 2, 0, 300, 32),
      E(EventType::kRedistrictPiece, 3, 320, 300, 32),
      ReleaseRequested(3, 1), E(EventType::kHeapRemoved, 3),
      E(EventType::kHeapPlaced, 4, 320, 600, 32)};
  ExpectReplaysAsRecorded(Compile(Base(4096), ev), 4u);
}

// Heap observation of a request waiting on its own precondition shown
// right before a destroy of a live instance waiting on an event, the order
// a delayed redistrict's announcement has (oracle seeds 289, 303, 350, 398
// of a master run): the request is placed while that instance is still
// live, which a split's piece never is, so it is no piece; the release
// that reordering applies later is a release, not a split into it.
TEST(Compile, HeapObservedRequestPlacedWhileItsSupposedOldIsLiveIsNoPiece) {
  const std::vector<Event> ev = {
      E(EventType::kHeapPlaced, 5, 0, 500, 32),
      E(EventType::kFuturePlaced, 6, kNoOffset, 200, 32),
      ReleaseRequested(5, 0),
      E(EventType::kHeapPlaced, 6, 512, 200, 32),
      ReleaseRequested(5, 1),
      E(EventType::kHeapSwapped, 0, 0, 0, 1), E(EventType::kHeapRemoved, 5),
      E(EventType::kHeapPlaced, 7, 0, 100, 32)};
  ExpectReplaysAsRecorded(Compile(Base(4096), ev), 3u);
}

// Heap observation: a request waiting on its own precondition shown right
// before a destroy (taken for a piece of that destroy's split), which is
// then redistricted itself while it waits (the oracle's replay-tracked.
// failures, seed 259 of a master run).  The destroy turns out a plain
// release, which unlinks its supposed pieces: the request is placed as
// itself, and its own split fails the piece that does not fit.  Still
// linked, it was replayed as a new request and its pieces as requests of
// their own, placed where Realm failed them.
TEST(Compile, HeapObservedPlainReleaseUnlinksItsSupposedPieces) {
  const std::vector<Event> ev = {
      E(EventType::kHeapPlaced, 1, 0, 1000, 32),
      E(EventType::kFuturePlaced, 2, kNoOffset, 500, 32),
      ReleaseRequested(1, 0),
      E(EventType::kFuturePlaced, 3, kNoOffset, 100, 32),
      E(EventType::kFuturePlaced, 4, kNoOffset, 600, 32),
      ReleaseRequested(2, 0),
      ReleaseRequested(1, 1), E(EventType::kHeapRemoved, 1),
      E(EventType::kHeapPlaced, 2, 0, 500, 32), ReleaseRequested(2, 1),
      E(EventType::kHeapSplit, 2, 0, 0, 1), E(EventType::kRedistrictPiece, 3, 0, 100, 32),
      E(EventType::kRequestFailed, 4, 1, 600, 32)};
  const ReplayScript s = Compile(Base(4096), ev);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.difference_count, 0u);
  EXPECT_EQ(r.self_check.as_recorded, 3u);
  EXPECT_EQ(r.recorded_failures_avoided, 0u);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(s.lives[r.failures[0].life].instance, kId | 4);
}

// Heap observation of a ready release request, then its split, with no
// piece announced before it (the oracle's replay-tracked.self-check, seed
// 334 of a master run, where the piece's announcement went to an older
// waiting request of the same id): the release was the split.  Replayed as
// the release and then a split of a range already given back, the piece
// was a request of its own, placed in the hole below.
TEST(Compile, HeapObservedReadyReleaseThenItsSplitIsTheSplit) {
  const std::vector<Event> ev = {
      E(EventType::kHeapPlaced, 5, 0, 200, 32), E(EventType::kHeapPlaced, 1, 224, 1000, 32),
      E(EventType::kHeapRemoved, 5),
      ReleaseRequested(1, 1),
      E(EventType::kHeapSplit, 1, 0, 0, 1), E(EventType::kRedistrictPiece, 2, 224, 150, 32)};
  ExpectReplaysAsRecorded(Compile(Base(4096), ev), 3u);
}

// A Realm log: a split's pieces have upper-bound sizes (not checkable),
// a later allocation tightens one (replayed, not counted), and a failed
// piece of unknown size is left out.
// The oracle's replay-tracked.self-check, seed 9 of a Legion 25.06 run
// (heap observation): i4 waits on its precondition, deferred with no plan
// right after the release of i3 was requested, as a split's pieces are;
// i3 is then released whole, so i4 was a request all the same.  Its
// placement, a record of a swapped heap (no alignment), replayed as a new
// request of alignment 0 and went to 1001, not 1024.
TEST(Compile, HeapObservedRequestAfterAReleaseRequestIsNoPieceOnceItIsReleased) {
  const std::vector<Event> ev = {
      E(EventType::kHeapPlaced, 2, 0, 1001, 32), E(EventType::kHeapPlaced, 3, 1024, 1000, 32),
      ReleaseRequested(3, 0), E(EventType::kFuturePlaced, 4, kNoOffset, 500, 64),
      ReleaseRequested(3, 1), E(EventType::kHeapRemoved, 3),
      E(EventType::kHeapSwapped, 0, 0, 0, 1), E(EventType::kHeapPlaced, 4, 1024, 500, 0)};
  const ReplayScript s = Compile(Base(4096), ev);
  ExpectReplaysAsRecorded(s, 3u);
}

TEST(Compile, LogPiecesOfUnknownSizeAreCountedApart) {
  Identity bound;
  bound.id = 7;
  bound.attributes = {{kSizeAttribute, kSizeUpperBound}};
  const std::vector<Event> ev = {
      Allocated(1, 0, 1000), Allocated(2, 1000, 1000),
      E(EventType::kRedistrict, 1, 0, 0, 2), E(EventType::kRedistrictPiece, 3, 0, 400, 1),
      E(EventType::kAttachIdentity, 3, 7), E(EventType::kRedistrictPiece, 4, 400, 600, 1),
      E(EventType::kAttachIdentity, 4, 7), E(EventType::kAllocationFailed, 5, 0, 0, 0),
      // piece 4 was shorter: 300 B of its bound are free after all
      E(EventType::kRedistrict, 4, 0, 0, 1), E(EventType::kRedistrictPiece, 4, 400, 300, 1),
      E(EventType::kAttachIdentity, 4, 7), Allocated(6, 700, 300)};
  const ReplayScript s = Compile(Base(2000), ev, /*from_log=*/true, {bound});
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.checked, 3u);  // 1, 2, 6
  EXPECT_EQ(r.self_check.as_recorded, 3u);
  EXPECT_EQ(r.self_check.not_checkable, 2u);  // pieces 3 and 4
  EXPECT_EQ(r.recorded_failures, 0u);         // the unknown piece is not replayed
  bool noted = false;
  for (const std::string& n : s.notes) noted |= n.find("unknown size") != std::string::npos;
  EXPECT_TRUE(noted);
}

// A Realm log (oracle seed 43, reduced to 8 lines:
//   event E2 / create S i2 1139255 align=32 after=E2 / event E3
//   create S i6 fill align=32 after=E1+E3 / destroy i2 after=r:i4
//   checkpoint / redistrict i6 i7:174239:32 i8:315444:32 i9:245117:32
//   trigger E2)
// i2 is destroyed after its own ready event (the log's wait_on); the log
// rebuild writes that release as a redistrict with no piece.  A split into
// nothing while the release is queued is that release made ready (it
// crashed the compiler: RewriteAsSplit took the first of no pieces).
TEST(Compile, LogRedistrictWithNoPieceIsTheRelease) {
  const std::vector<Event> ev = {
      E(EventType::kAllocated, 0, 0, 0, 32),
      E(EventType::kDeferred, 1, kNoOffset, 1139255, 32),
      ReleaseRequested(1, 0),
      E(EventType::kDeferredCompleted, 1, 0),
      E(EventType::kRedistrict, 1, 0, 0, 0)};
  const ReplayScript s = Compile(Base(4194304), ev, /*from_log=*/true);
  ASSERT_FALSE(s.steps.empty());
  EXPECT_EQ(s.steps.back().kind, StepKind::kReleaseReady);
  EXPECT_EQ(ExpectReplaysAsRecorded(s).self_check.as_recorded, 2u);
}

// A Realm log (the oracle's minimal program of replay.history-hole, seed 1):
//   create S i1 fill align=256 / create S i5 fill align=32 after=E2
//   checkpoint / redistrict i5 i6:286833:32 i7:0:4096 i8:696727:32
//   destroy i8
// i5 is 0 B (the memory is full), every piece fails, and Realm destroys
// the failed i8 too ("deallocation completed").  A failed piece of unknown
// size is not replayed; its release is no hole in the history.
TEST(Compile, LogReleaseOfAFailedPieceIsNoHole) {
  const std::vector<Event> ev = {
      E(EventType::kAllocated, 0, 0, 0, 32), E(EventType::kAllocated, 1, 0, 4194304, 256),
      E(EventType::kAllocated, 2, 0, 0, 32), E(EventType::kRedistrict, 2, 0, 0, 0),
      E(EventType::kAllocationFailed, 3), E(EventType::kAllocationFailed, 4),
      E(EventType::kAllocationFailed, 5), ReleaseRequested(5, 1), Released(5)};
  const ReplayScript s = Compile(Base(4194304), ev, /*from_log=*/true);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.as_recorded, 3u);
  EXPECT_EQ(r.recorded_failures, 0u);  // the pieces are not replayed
  // A released id the history never made is still a hole.
  const std::vector<Event> hole = {E(EventType::kAllocationFailed, 3), Released(4)};
  EXPECT_FALSE(CompileEvents(Base(1000), hole, {}, /*from_log=*/true).ok());
}

// A Realm log (the oracle's minimal program of replay.self-check, seed 4):
//   external S i10 53582 / checkpoint / create S i14 1246859 align=64
// Realm's "offset" of an external instance is its address minus the
// memory's base (here it underflows); it holds nothing of the allocator.
// Replayed as an allocation it took [0, 53582) and i14 went to 53632.
TEST(Compile, LogExternalInstancesAreNotReplayed) {
  const std::vector<Event> ev = {
      E(EventType::kAllocated, 1, 18446744073384644608ull, 53582, 32),
      E(EventType::kAllocated, 2, 0, 1246859, 64), ReleaseRequested(1, 1), Released(1)};
  const ReplayScript s = Compile(Base(4194304), ev, /*from_log=*/true);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.checked, 1u);
  EXPECT_EQ(r.self_check.as_recorded, 1u);
  bool noted = false;
  for (const std::string& n : s.notes) noted |= n.find("external instance") != std::string::npos;
  EXPECT_TRUE(noted);
}

// The capacity-0 system memory Realm keeps for external instances (every
// log with machine=1 names it; the oracle's minimal program of
// replay.capacity-unknown is one checkpoint): a known capacity of 0, not
// an unknown one, and the replay of what it holds (a 0-byte instance, an
// external one) passes, as does its minimum capacity.
TEST(Compile, CapacityZeroMemoryReplays) {
  const std::vector<Event> ev = {E(EventType::kAllocated, 0, 0, 0, 32),
                                 E(EventType::kAllocated, 1, 140490702888960ull, 63712, 32)};
  Snapshot base = Base(0);
  base.capacity_known = true;
  ReplayQuestion q;
  q.policies = {PlacementPolicy::kRealm};
  q.min_capacity = true;
  absl::StatusOr<MemoryAnswer> a = ReplayMemory(Compile(base, ev, /*from_log=*/true), q);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->capacity, 0u);  // the run's, not the external's end
  EXPECT_TRUE(a->self_checked);
  EXPECT_EQ(a->self_check.self_check.as_recorded, 1u);
  ASSERT_EQ(a->policies.size(), 1u);
  EXPECT_FALSE(a->policies[0].result.failed());
  EXPECT_TRUE(a->policies[0].min.found);
  // With nothing but the 0-byte instance (no placement shows a size).
  EXPECT_TRUE(ReplayMemory(Compile(base, {ev[0]}, /*from_log=*/true), q).ok());
}

// A Realm log (kept oracle seed 18): a redistrict's pieces have only
// their starts, so the rebuild bounds each by the next start; a zero-byte
// piece (Realm puts those at 0) sits at the start of a sized one.  A later
// placement inside a piece's bound shows where the piece ends: replayed
// at its bound, the piece pushed those placements elsewhere.
TEST(Compile, LogPlacementInsideAPieceBoundNarrowsIt) {
  const std::vector<Event> ev = {
      Allocated(1, 0, 1000), E(EventType::kRedistrict, 1, 0, 0, 2),
      E(EventType::kRedistrictPiece, 2, 0, 500, 1), E(EventType::kRedistrictPiece, 3, 500, 500, 1),
      E(EventType::kDeferred, 4, kNoOffset, 100, 1), E(EventType::kDeferredCompleted, 4, 0),
      Allocated(5, 600, 450)};
  const ReplayScript s = Compile(Base(4096), ev, /*from_log=*/true);
  ExpectReplaysAsRecorded(s, 3u);  // 1, 4, 5
}

// A Realm log (oracle seed 3): a redistrict of a redistricted piece
// [3712, 10240) into a zero-byte piece, which Realm logs at offset 0, and
// one at 3712.  Bounded by the next start, the zero-byte piece took 3712 B
// of the old range and the second piece failed.
TEST(Compile, LogPieceOutsideTheOldRangeIsZeroBytes) {
  const std::vector<Event> ev = {
      E(EventType::kAllocated, 1, 0, 10240, 32), E(EventType::kRedistrict, 1, 0, 0, 2),
      E(EventType::kRedistrictPiece, 2, 0, 3712, 1), E(EventType::kRedistrictPiece, 3, 3712, 6528, 1),
      E(EventType::kRedistrict, 3, 0, 0, 2), E(EventType::kRedistrictPiece, 1, 0, 3712, 1),
      E(EventType::kRedistrictPiece, 4, 3712, 6528, 1)};
  ExpectLogReplaysAsRecorded(ev, 2097152);
}

// The oracle's replay.failures, seed 141: i3 [388096, 4194304) is
// redistricted into i9 of 0 bytes (Realm puts it at 0, outside the old
// range), and the rebuild then bounds i9 by the next allocation at
// 388096.  That tighter bound is looser than what the replay holds: the
// piece stays zero bytes (split into 388096 bytes it failed).
TEST(Compile, LogTighterBoundOfAZeroBytePieceStaysZero) {
  const std::vector<Event> ev = {
      E(EventType::kAllocated, 1, 0, 388096, 64), E(EventType::kAllocated, 3, 388096, 3806208, 256),
      E(EventType::kRedistrict, 3, 0, 0, 1), E(EventType::kRedistrictPiece, 4, 0, 4194304, 1),
      E(EventType::kRedistrict, 4, 0, 0, 1), E(EventType::kRedistrictPiece, 4, 0, 388096, 1),
      E(EventType::kAllocated, 5, 388096, 396288, 32)};
  EXPECT_EQ(ExpectLogReplaysAsRecorded(ev, 4194304).self_check.as_recorded, 3u);
}

// The oracle's replay.self-check, seed 4: i2 [0, 1496064) is redistricted
// into i3 of 0 bytes and i4, which fails; the rebuild bounds i3 by the old
// range's end.  i3's destroy waits on E1; then i7 is placed at 0 and the
// rebuild narrows i3 to 0 bytes.  A piece's size never changes: the last
// piece of a split whose release is queued replays at the tighter size
// from its placement on (a split of it left the bound's room held).
TEST(Compile, LogLastPieceReplaysAtItsTighterBoundFromItsPlacement) {
  const std::vector<Event> ev = {
      E(EventType::kAllocated, 1, 0, 1496064, 16), E(EventType::kRedistrict, 1, 0, 0, 1),
      E(EventType::kRedistrictPiece, 2, 0, 1496064, 1), ReleaseRequested(2, 0),
      E(EventType::kRedistrict, 2, 0, 0, 1), E(EventType::kRedistrictPiece, 2, 0, 0, 1),
      ReleaseRequested(2, 0), E(EventType::kAllocated, 7, 0, 1246859, 64)};
  EXPECT_EQ(ExpectLogReplaysAsRecorded(ev, 4194304).self_check.checked, 2u);
}

// The oracle's replay.failures, seed 20 (R, 2 MiB): i3 [0, 2097152) is
// redistricted into i4 of 234138 bytes, i5 of 0 bytes and i6; Realm logs
// i4 and i5 both at 0 (a zero-byte piece goes to 0), and the rebuild
// bounds both by i6's start.  Replayed both at that bound, i6 no longer
// fit the split and failed.  The later of two pieces at one start is the
// zero-byte one.
TEST(Compile, LogTwoPiecesAtOneStartOneIsZeroBytes) {
  const std::vector<Event> ev = {
      E(EventType::kAllocated, 1, 0, 2097152, 32), E(EventType::kRedistrict, 1, 0, 0, 3),
      E(EventType::kRedistrictPiece, 2, 0, 234144, 1), E(EventType::kRedistrictPiece, 3, 0, 234144, 1),
      E(EventType::kRedistrictPiece, 4, 234144, 1863008, 1)};
  EXPECT_EQ(ExpectLogReplaysAsRecorded(ev, 2097152).self_check.not_checkable, 3u);
}

// The oracle's replay.failures, seed 409: i1 [0, 4 MiB) is redistricted
// into i5 (bounded to 459088 by the next placement), whose destroy waits
// on E3.  i10 waits in Realm's allocator for that release; when E3 fires
// Realm places i10 at 0 and then logs i5's "deallocation completed".  The
// rebuild reads the placement first, as a tighter bound: i5 of 0 bytes.
// That is the release's order, not a bound (the release follows the
// placements it served): i10 replays after it, and i5 keeps its bound
// (narrowed to 0 from its placement on, i5's room was free and i2 went
// to 0).
TEST(Compile, LogBoundThatIsTheOrderOfAQueuedReleaseIsNone) {
  const std::vector<Event> ev = {
      E(EventType::kAllocated, 1, 0, 4194304, 32), E(EventType::kRedistrict, 1, 0, 0, 1),
      E(EventType::kRedistrictPiece, 5, 0, 4194304, 1), E(EventType::kRedistrict, 5, 0, 0, 1),
      E(EventType::kRedistrictPiece, 5, 0, 459088, 1), E(EventType::kAllocated, 2, 459088, 187392, 16),
      ReleaseRequested(5, 0), E(EventType::kDeferred, 10, kNoOffset, 459053, 65536),
      E(EventType::kRedistrict, 5, 0, 0, 1), E(EventType::kRedistrictPiece, 5, 0, 0, 1),
      ReleaseRequested(5, 0), E(EventType::kDeferredCompleted, 10, 0), Released(5)};
  EXPECT_EQ(ExpectLogReplaysAsRecorded(ev, 4194304).self_check.checked, 3u);
}

TEST(Compile, StartsFromTheBaseAndSaysSo) {
  Snapshot base = Base(1000);
  base.sequence = 500;
  Allocation a;
  a.offset = 200;
  a.size = 100;
  a.instance = kId | 1;
  a.state = AllocationState::kReleasePending;
  base.allocations.push_back(a);
  const std::vector<Event> ev = {Allocated(2, 0, 200), Released(1), Allocated(3, 200, 300)};
  const ReplayScript s = Compile(base, ev);
  EXPECT_EQ(s.first_sequence, 500u);
  EXPECT_EQ(s.end_sequence, 503u);
  ASSERT_EQ(s.base_lives.size(), 1u);
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes[0].find("not at the start of the run"), std::string::npos);
  EXPECT_EQ(s.steps[0].kind, StepKind::kRelease);  // queued at the base
  EXPECT_FALSE(s.steps[0].ready);
  const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.as_recorded, 2u);
}

TEST(Compile, AHoleInTheHistoryIsAnError) {
  const std::vector<Event> ev = {Allocated(1, 0, 100), E(EventType::kDeferredCompleted, 9, 100)};
  const absl::Status hole = CompileEvents(Base(1000), ev, {}, false).status();
  EXPECT_TRUE(absl::IsInvalidArgument(hole)) << hole;
  EXPECT_NE(hole.message().find("hole"), std::string::npos) << hole;
  EXPECT_NE(hole.message().find("event 2 ("), std::string::npos) << hole;  // the second
  const std::vector<Event> release = {Released(4)};
  EXPECT_FALSE(CompileEvents(Base(1000), release, {}, false).ok());
}

}  // namespace
}  // namespace realm_shadow::whatif
