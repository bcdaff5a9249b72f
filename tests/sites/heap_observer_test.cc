// The heap observer on a heap shaped like Realm's (realm_shaped_heap.h),
// and the entry-site helpers of realm_sites.h on stand-ins for Realm's
// instance, event and memory types.  After every operation the shadow must
// hold exactly what the current heap holds, and Realm's plan for what waits.
#include <gtest/gtest.h>

#include <map>
#include <tuple>
#include <vector>

#include "realm_shadow/realm_sites.h"
#include "realm_shadow/live/snapshots.h"
#include "tests/sites/realm_shaped_heap.h"
#include "tests/sites/realm_stand_ins.h"

namespace realm_shadow {
namespace {

using testing::FakeEvent;
using testing::FakeInstance;
using testing::FakeInstanceImpl;
using testing::FakeLayout;
using testing::FakeMemory;
using testing::RealmShapedHeap;

constexpr uint64_t kMem = 0x1e00000000000000ull;

FakeInstance I(uint64_t n) { return FakeInstance{0x4000000000000000ull | n}; }

// (offset, size) by instance, from a heap and from a snapshot.
std::map<uint64_t, std::pair<uint64_t, uint64_t>> Held(const RealmShapedHeap& h) {
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> out;
  for (const auto& [tag, idx] : h.allocated) {
    uint64_t first = 0, size = 0;
    h.lookup(tag, first, size);
    out[tag.id] = {first, size};
  }
  return out;
}
std::map<uint64_t, std::pair<uint64_t, uint64_t>> Held(const Snapshot& s) {
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> out;
  for (const Allocation& a : s.allocations) out[a.instance] = {a.offset, a.size};
  return out;
}

class HeapObserverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetTrackerForTesting();
    m_ = realm_shadow_register_memory(kMem, REALM_SHADOW_MEM_SYSTEM, 4096, "sys",
                                      REALM_SHADOW_CONCURRENT |
                                          REALM_SHADOW_HEAP_OBSERVED);
    ASSERT_NE(m_, nullptr);
    current_.shadow_observer.Attach(m_, REALM_SHADOW_HEAP_CURRENT, current_);
    future_.shadow_observer.Attach(m_, REALM_SHADOW_HEAP_FUTURE, future_);
  }
  void TearDown() override { ResetTrackerForTesting(); }
  Snapshot Take() { return TakeSnapshot(m_); }
  void ExpectMirrorsCurrent(const char* step) {
    const Snapshot s = Take();
    EXPECT_EQ(Held(s), Held(current_)) << step;
    EXPECT_TRUE(s.anomalies.empty()) << step << ": "
                                     << AnomalyKindName(s.anomalies[0].kind);
  }

  realm_shadow_memory* m_ = nullptr;
  RealmShapedHeap current_{4096}, future_{4096};
};

TEST_F(HeapObserverTest, AllocateAndDeallocateAreMirrored) {
  uint64_t at = 0;
  ASSERT_TRUE(current_.allocate(I(1), 100, 64, at));
  ASSERT_TRUE(current_.allocate(I(2), 0, 64, at));  // zero bytes at 0
  ASSERT_TRUE(current_.allocate(I(3), 200, 256, at));
  ExpectMirrorsCurrent("allocated");
  current_.deallocate(I(1));
  current_.deallocate(I(9), true);  // missing: nothing happened, nothing said
  ExpectMirrorsCurrent("deallocated");
  const Snapshot s = Take();
  ASSERT_EQ(s.allocations.size(), 2u);
  EXPECT_EQ(s.allocations[1].alignment(), 256u);
}

TEST_F(HeapObserverTest, CopiesAreNotObserved) {
  uint64_t at = 0;
  ASSERT_TRUE(current_.allocate(I(1), 100, 1, at));
  RealmShapedHeap test = current_;  // Realm's test heap of a reordering
  ASSERT_TRUE(test.allocate(I(2), 100, 1, at));
  test.deallocate(I(1));
  EXPECT_FALSE(test.shadow_observer.observed());
  ExpectMirrorsCurrent("a copy changed");
  EXPECT_EQ(Take().sequence, 1u);
}

TEST_F(HeapObserverTest, SplitReportsWhatThePiecesGotOnEveryPath) {
  uint64_t at = 0;
  ASSERT_TRUE(current_.allocate(I(1), 300, 1, at));
  ASSERT_TRUE(current_.allocate(I(2), 0, 1, at));
  std::vector<uint64_t> firsts(3);
  // All placed, one of them zero bytes.
  EXPECT_EQ(current_.split_range(I(1), {I(10), I(11), I(12)}, {100, 0, 150},
                                 {1, 1, 64}, firsts),
            3u);
  ExpectMirrorsCurrent("split placed all");
  // The last piece does not fit: an early return.
  EXPECT_EQ(current_.split_range(I(12), {I(20), I(21)}, {100, 100}, {1, 1}, firsts),
            1u);
  ExpectMirrorsCurrent("split placed one");
  // A zero-byte old range into a sized piece: another early return.
  EXPECT_EQ(current_.split_range(I(2), {I(30)}, {8}, {1}, firsts), 0u);
  ExpectMirrorsCurrent("zero-byte split");
  // Unknown old tag: nothing changed, nothing said.
  const uint64_t before = Take().sequence;
  EXPECT_EQ(current_.split_range(I(99), {I(40)}, {8}, {1}, firsts), 0u);
  EXPECT_EQ(Take().sequence, before);
  const Snapshot s = Take();
  for (const Allocation& a : s.allocations)
    EXPECT_TRUE(a.flags & kFromRedistrict) << std::hex << a.instance;
}

TEST_F(HeapObserverTest, SwapReportsTheDifferenceAsOneGroup) {
  uint64_t at = 0;
  for (uint64_t n = 1; n <= 5; ++n) ASSERT_TRUE(current_.allocate(I(n), 100, 1, at));
  RealmShapedHeap test = current_;  // the reordering's test heap
  test.deallocate(I(2));            // ready releases applied
  test.deallocate(I(4));
  ASSERT_TRUE(test.allocate(I(6), 150, 1, at));  // a pending request placed
  current_.swap(test);
  ExpectMirrorsCurrent("swapped");
  const Snapshot s = Take();
  EXPECT_EQ(s.counters.by_type[static_cast<int>(EventType::kHeapSwapped)], 1u);
  EXPECT_EQ(s.counters.by_type[static_cast<int>(EventType::kHeapRemoved)], 2u);
  // A swap that changes nothing says nothing.
  RealmShapedHeap same = current_;
  current_.swap(same);
  EXPECT_EQ(Take().sequence, s.sequence);
}

TEST_F(HeapObserverTest, AnAssignedCurrentHeapReportsItsContent) {
  uint64_t at = 0;
  ASSERT_TRUE(current_.allocate(I(1), 100, 1, at));
  ASSERT_TRUE(current_.allocate(I(2), 100, 1, at));
  RealmShapedHeap other(4096);
  ASSERT_TRUE(other.allocate(I(2), 100, 1, at));  // elsewhere: moved
  ASSERT_TRUE(other.allocate(I(3), 50, 1, at));
  current_ = other;
  EXPECT_TRUE(current_.shadow_observer.observed());
  ExpectMirrorsCurrent("assigned");
}

TEST_F(HeapObserverTest, TheFutureHeapIsThePlan) {
  uint64_t at = 0;
  ASSERT_TRUE(current_.allocate(I(1), 1000, 1, at));
  future_ = current_;  // Realm rebuilds the plan from the current heap
  future_.deallocate(I(1));  // a pending release, planned
  ASSERT_TRUE(future_.allocate(I(2), 800, 1, at));  // a deferred request
  Snapshot s = Take();
  ASSERT_EQ(s.pending.size(), 1u);
  EXPECT_EQ(s.pending[0].instance, I(2).id);
  EXPECT_EQ(s.pending[0].planned_offset, 0u);
  ASSERT_EQ(s.allocations.size(), 1u);  // the plan moves nothing
  // A rebuild voids the plan until Realm plans again.
  future_ = current_;
  EXPECT_EQ(Take().pending[0].planned_offset, kNoOffset);
  future_.deallocate(I(1));
  ASSERT_TRUE(future_.allocate(I(2), 800, 1, at));
  EXPECT_EQ(Take().pending[0].planned_offset, 0u);
  // A planned split that cannot place a piece keeps it waiting, unplanned.
  ASSERT_TRUE(future_.allocate(I(3), 100, 1, at));
  std::vector<uint64_t> firsts(2);
  future_.split_range(I(3), {I(4), I(5)}, {60, 60}, {1, 1}, firsts);
  s = Take();
  std::map<uint64_t, uint64_t> plans;
  for (const PendingRequest& p : s.pending) plans[p.instance] = p.planned_offset;
  EXPECT_EQ(plans.count(I(4).id), 1u);
  EXPECT_NE(plans[I(4).id], kNoOffset);
  ASSERT_EQ(plans.count(I(5).id), 1u);
  EXPECT_EQ(plans[I(5).id], kNoOffset);
  // Placing it in the current heap completes it, as a deferred one.
  current_.deallocate(I(1));
  ASSERT_TRUE(current_.allocate(I(2), 800, 1, at));
  s = Take();
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_TRUE(s.allocations[0].flags & kWasDeferred);
}

// ---- the entry sites ---------------------------------------------------------

constexpr FakeEvent kTriggered{true, false}, kWaiting{false, false},
    kPoisoned{true, true};

class SitesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetTrackerForTesting();
    site::ObserveManagedMemory(FakeMemory{kMem}, 2 /* SYSTEM_MEM */, 4096,
                               current_, future_);
    ASSERT_TRUE(current_.shadow_observer.observed());
    ASSERT_TRUE(future_.shadow_observer.observed());
  }
  void TearDown() override { ResetTrackerForTesting(); }
  FakeInstanceImpl Inst(uint64_t n, uint64_t bytes) {
    layouts_.push_back(std::make_unique<FakeLayout>(FakeLayout{bytes, 64}));
    return FakeInstanceImpl{I(n), {kMem}, {0, layouts_.back().get()}};
  }
  Snapshot Take() { return TakeSnapshot(current_.shadow_observer.memory()); }

  RealmShapedHeap current_{4096}, future_{4096};
  std::vector<std::unique_ptr<FakeLayout>> layouts_;
};

TEST_F(SitesTest, RegistrationNamesTheMemoryAsRealmDoes) {
  const Snapshot s = Take();
  EXPECT_EQ(s.memory_id, kMem);
  EXPECT_EQ(s.kind, MemoryKind::kSystem);
  EXPECT_EQ(s.name, "SYSTEM_MEM");
  EXPECT_EQ(s.capacity, 4096u);
}

TEST_F(SitesTest, ReleasesRequestedFiredAndCancelled) {
  FakeInstanceImpl a = Inst(1, 100), b = Inst(2, 100), c = Inst(3, 100);
  uint64_t at = 0;
  for (FakeInstanceImpl* x : {&a, &b, &c})
    ASSERT_TRUE(current_.allocate(x->me, 100, 64, at));
  site::ReleaseRequested(current_.shadow_observer, &a, kWaiting);
  site::ReleaseRequested(current_.shadow_observer, &b, kTriggered);
  site::ReleaseRequested(current_.shadow_observer, &c, kPoisoned);  // Realm drops it
  Snapshot s = Take();
  std::map<uint64_t, AllocationState> state;
  for (const Allocation& x : s.allocations) state[x.instance] = x.state;
  EXPECT_EQ(state[a.me.id], AllocationState::kReleasePending);
  EXPECT_EQ(state[b.me.id], AllocationState::kReleaseReady);
  EXPECT_EQ(state[c.me.id], AllocationState::kLive);
  site::ReleaseFired(current_.shadow_observer, &a, /*poisoned=*/true);
  s = Take();
  for (const Allocation& x : s.allocations)
    if (x.instance == a.me.id) EXPECT_EQ(x.state, AllocationState::kLive);
  // External instances never reach a heap and are not reported.
  FakeInstanceImpl ext = Inst(4, 100);
  ext.metadata.ext_resource = 1;
  const uint64_t seq = Take().sequence;
  site::ReleaseRequested(current_.shadow_observer, &ext, kWaiting);
  site::ReleaseFired(current_.shadow_observer, &ext, false);
  site::AllocationRequested(current_.shadow_observer, &ext, kWaiting);
  EXPECT_EQ(Take().sequence, seq);
}

TEST_F(SitesTest, OutcomesRecordFailuresAndCancellationsOnly) {
  FakeInstanceImpl a = Inst(1, 5000), b = Inst(2, 100), c = Inst(3, 100);
  site::AllocationOutcome(a, REALM_SHADOW_ALLOC_INSTANT_FAILURE);
  site::AllocationOutcome(b, REALM_SHADOW_ALLOC_INSTANT_SUCCESS);  // the heap's
  site::AllocationRequested(current_.shadow_observer, &c, kWaiting);
  EXPECT_EQ(Take().pending.size(), 1u);
  site::AllocationOutcome(c, REALM_SHADOW_ALLOC_CANCELLED);
  // Another node's memory: not registered here, nothing recorded.
  FakeInstanceImpl remote = Inst(5, 100);
  remote.memory.id = 0x1e00010000000000ull;
  site::AllocationOutcome(remote, REALM_SHADOW_ALLOC_EVENTUAL_FAILURE);
  const Snapshot s = Take();
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].instance, a.me.id);
  EXPECT_EQ(s.failures[0].size, 5000u);
  EXPECT_EQ(s.failures[0].alignment, 64u);
  EXPECT_FALSE(s.failures[0].eventual);
  EXPECT_TRUE(s.pending.empty());
  EXPECT_EQ(s.counters.cancelled, 1u);
  EXPECT_TRUE(s.anomalies.empty());
}

TEST_F(SitesTest, RedistrictPiecesWaitUntilAHeapTakesThem) {
  FakeInstanceImpl old = Inst(1, 300), p1 = Inst(2, 100), p2 = Inst(3, 100);
  uint64_t at = 0;
  ASSERT_TRUE(current_.allocate(old.me, 300, 1, at));
  const std::vector<FakeInstanceImpl*> pieces = {&p1, &p2};
  site::RedistrictRequested(current_.shadow_observer, &old, pieces, kWaiting);
  Snapshot s = Take();
  EXPECT_EQ(s.pending.size(), 2u);
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].state, AllocationState::kReleasePending);
  site::ReleaseFired(current_.shadow_observer, &old, false);
  std::vector<uint64_t> firsts(2);
  current_.split_range(old.me, {p1.me, p2.me}, {100, 100}, {1, 1}, firsts);
  s = Take();
  EXPECT_TRUE(s.pending.empty());
  ASSERT_EQ(s.allocations.size(), 2u);
  for (const Allocation& x : s.allocations) {
    EXPECT_EQ(x.state, AllocationState::kLive);
    EXPECT_FALSE(x.flags & kWasDeferred);  // waited, never planned
  }
  EXPECT_TRUE(s.anomalies.empty());
}

TEST_F(SitesTest, ADestroyBeforeTheHeapSawTheInstanceAppliesWhenItAppears) {
  FakeInstanceImpl a = Inst(1, 100);
  site::ReleaseRequested(current_.shadow_observer, &a, kWaiting);
  EXPECT_TRUE(Take().anomalies.empty());
  uint64_t at = 0;
  ASSERT_TRUE(current_.allocate(a.me, 100, 1, at));
  const Snapshot s = Take();
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].state, AllocationState::kReleasePending);
}

TEST_F(SitesTest, ANullMemoryObservesNothing) {
  ResetTrackerForTesting();
  RealmShapedHeap heap(100);
  heap.shadow_observer.Attach(nullptr, REALM_SHADOW_HEAP_CURRENT, heap);
  EXPECT_FALSE(heap.shadow_observer.observed());
  uint64_t at = 0;
  ASSERT_TRUE(heap.allocate(I(1), 10, 1, at));
  FakeInstanceImpl a = Inst(1, 10);
  site::ReleaseRequested(heap.shadow_observer, &a, kWaiting);
  EXPECT_TRUE(RegisteredMemoryIds().empty());
}

}  // namespace
}  // namespace realm_shadow
