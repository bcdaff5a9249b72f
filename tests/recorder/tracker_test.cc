// The registry, snapshots' identity fields, the run-time switch, the
// drainer and the failure observer.
#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/recorder/identity_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace realm_shadow {
namespace {

class TrackerTest : public ::testing::Test {
 protected:
  void SetUp() override { ResetTrackerForTesting(); }
  void TearDown() override { ResetTrackerForTesting(); }
};

TEST_F(TrackerTest, RegistrationIsIdempotentAndSnapshotsCarryTheMemory) {
  auto* m = realm_shadow_register_memory(0x1e00000000000000ull,
                                         REALM_SHADOW_MEM_SYSTEM, 1 << 20,
                                         "sysmem", REALM_SHADOW_SERIALIZED);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(realm_shadow_register_memory(0x1e00000000000000ull,
                                         REALM_SHADOW_MEM_SYSTEM, 1 << 20,
                                         "sysmem", 0),
            m);
  EXPECT_EQ(FindMemory(0x1e00000000000000ull), m);
  EXPECT_EQ(FindMemory(0x1e00000000000001ull), nullptr);
  realm_shadow_allocated(m, 0x4000000000000001ull, 4096, 1000, 64);
  Snapshot s;
  ASSERT_TRUE(TakeSnapshot(0x1e00000000000000ull, &s));
  EXPECT_EQ(s.memory_id, 0x1e00000000000000ull);
  EXPECT_EQ(s.kind, MemoryKind::kSystem);
  EXPECT_EQ(s.name, "sysmem");
  EXPECT_EQ(s.capacity, 1u << 20);
  EXPECT_TRUE(s.exact);
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].alignment(), 64u);
  EXPECT_FALSE(TakeSnapshot(42, &s));
  EXPECT_EQ(RegisteredMemoryIds(), std::vector<uint64_t>{0x1e00000000000000ull});
}

TEST_F(TrackerTest, NullHandlesAreIgnoredByEveryHook) {
  realm_shadow_allocated(nullptr, 1, 0, 1, 1);
  realm_shadow_released(nullptr, 1);
  realm_shadow_redistricted(nullptr, 1, 0, nullptr);
  realm_shadow_allocation_failed(nullptr, 1, 1, 1);
  EXPECT_TRUE(RegisteredMemoryIds().empty());
}

TEST_F(TrackerTest, SwitchingTrackingOffMakesSnapshotsSayTheyAreInexact) {
  auto* m = RegisterMemory(1, MemoryKind::kFramebuffer, 1000, "fb", 0);
  realm_shadow_allocated(m, 10, 0, 100, 1);
  realm_shadow_set_enabled(0);
  realm_shadow_allocated(m, 11, 100, 100, 1);  // not recorded
  realm_shadow_set_enabled(1);
  realm_shadow_allocated(m, 12, 200, 100, 1);
  const Snapshot s = TakeSnapshot(m);
  EXPECT_EQ(s.allocations.size(), 2u);
  EXPECT_FALSE(s.exact);
  EXPECT_EQ(s.counters.anomalies[static_cast<int>(AnomalyKind::kTrackingPaused)], 1u);
}

TEST_F(TrackerTest, IdentitiesAreInternedOnceAndTravelWithSnapshots) {
  Identity a;
  a.kind = AllocationKind::kRegionInstance;
  a.attributes = {{"fields", "voltage,current"}, {"provenance", "circuit.cc:120"}};
  Identity b = a;
  b.attributes[1].second = "circuit.cc:121";
  const uint32_t ia = InternIdentity(a);
  EXPECT_EQ(InternIdentity(a), ia);
  const uint32_t ib = InternIdentity(b);
  EXPECT_NE(ia, ib);
  auto* m = RegisterMemory(2, MemoryKind::kSystem, 1 << 20, "", 0);
  realm_shadow_allocated(m, 5, 0, 64, 1);
  realm_shadow_attach_identity(m, 5, ib, 1);
  realm_shadow_deferred(m, 6, 64, 1, REALM_SHADOW_NO_OFFSET);
  realm_shadow_attach_identity(m, 6, ia, 0);
  realm_shadow_deferred_completed(m, 6, 64);
  const Snapshot s = TakeSnapshot(m);
  ASSERT_EQ(s.allocations.size(), 2u);
  EXPECT_EQ(s.allocations[0].identity, ib);
  EXPECT_TRUE(s.allocations[0].pinned());
  EXPECT_EQ(s.allocations[0].kind, AllocationKind::kRegionInstance);
  EXPECT_EQ(s.allocations[1].identity, ia);
  EXPECT_FALSE(s.allocations[1].pinned());
  EXPECT_TRUE(s.allocations[1].flags & kWasDeferred);
  ASSERT_NE(s.FindIdentity(ib), nullptr);
  EXPECT_EQ(s.FindIdentity(ib)->attributes[1].second, "circuit.cc:121");
  EXPECT_EQ(s.identities.size(), 2u);
}

// A snapshot carries exactly the identities its records refer to: after
// releases, re-attachment and a duplicate placement, none that nothing
// uses any more.
TEST_F(TrackerTest, SnapshotsCarryOnlyTheIdentitiesInUse) {
  uint32_t id[4];
  for (int i = 0; i < 4; ++i) {
    Identity identity;
    identity.kind = AllocationKind::kRegionInstance;
    identity.attributes = {{"provenance", "task" + std::to_string(i)}};
    id[i] = InternIdentity(identity);
  }
  auto* m = RegisterMemory(3, MemoryKind::kSystem, 1 << 20, "", 0);
  auto identities_of = [&] {
    std::vector<uint32_t> ids;
    for (const Identity& identity : TakeSnapshot(m).identities)
      ids.push_back(identity.id);
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  realm_shadow_allocated(m, 1, 0, 64, 1);
  realm_shadow_attach_identity(m, 1, id[0], 0);
  realm_shadow_allocated(m, 2, 64, 64, 1);
  realm_shadow_attach_identity(m, 2, id[0], 0);  // two users of id[0]
  realm_shadow_allocated(m, 3, 128, 64, 1);
  realm_shadow_attach_identity(m, 3, id[1], 0);
  EXPECT_EQ(identities_of(), (std::vector<uint32_t>{id[0], id[1]}));
  realm_shadow_released(m, 1);  // id[0] still used by 2
  EXPECT_EQ(identities_of(), (std::vector<uint32_t>{id[0], id[1]}));
  realm_shadow_attach_identity(m, 2, id[2], 0);  // id[0] unused now
  EXPECT_EQ(identities_of(), (std::vector<uint32_t>{id[1], id[2]}));
  realm_shadow_allocated(m, 3, 256, 64, 1);  // duplicate: 3's id[1] goes
  EXPECT_EQ(identities_of(), (std::vector<uint32_t>{id[2]}));
  realm_shadow_deferred(m, 4, 64, 1, REALM_SHADOW_NO_OFFSET);
  realm_shadow_attach_identity(m, 4, id[3], 0);  // pending requests count
  EXPECT_EQ(identities_of(), (std::vector<uint32_t>{id[2], id[3]}));
  realm_shadow_redistricted(m, 2, 0, nullptr);
  realm_shadow_released(m, 4);  // cancelled
  EXPECT_EQ(identities_of(), std::vector<uint32_t>{});
}

Identity Described(const std::string& creator) {
  Identity identity;
  identity.kind = AllocationKind::kRegionInstance;
  identity.attributes = {{"creator", creator}};
  return identity;
}

// A run that interns one identity per task (Legion's creator "task stencil
// (UID n)") used to keep every one for ever.  The table keeps what a shadow
// map refers to and forgets the rest: 60000 tasks, each with an instance
// made and destroyed, leave a table of thousands, not 60000; the identity
// of the instance still live, and one interned just now, stay.  (No
// history here: a history keeps what its window refers to, next test.)
TEST_F(TrackerTest, TheIdentityTableForgetsWhatNothingRefersTo) {
  auto* m = RegisterMemory(5, MemoryKind::kFramebuffer, 1 << 30, "fb",
                           REALM_SHADOW_SERIALIZED, 0, /*history_events=*/0);
  const uint32_t kept = InternIdentity(Described("the long-lived one"));
  realm_shadow_allocated(m, 1, 0, 64, 1);
  realm_shadow_attach_identity(m, 1, kept, 1);
  for (uint64_t task = 0; task < 60000; ++task) {
    const uint32_t id =
        InternIdentity(Described("task stencil (UID " + std::to_string(task) + ")"));
    ASSERT_NE(id, 0u);
    realm_shadow_allocated(m, 100 + task, 4096, 64, 1);
    realm_shadow_attach_identity(m, 100 + task, id, 0);
    realm_shadow_released(m, 100 + task);
  }
  EXPECT_LT(IdentityCount(), 20000u);
  const uint32_t fresh = InternIdentity(Described("not attached yet"));
  CollectIdentitiesNow();
  Identity got;
  EXPECT_TRUE(LookupIdentity(kept, &got));
  EXPECT_TRUE(LookupIdentity(fresh, &got));  // its first collection spares it
  const Snapshot s = TakeSnapshot(m);
  ASSERT_NE(s.FindIdentity(kept), nullptr);
  EXPECT_EQ(s.FindIdentity(kept)->attributes[0].second, "the long-lived one");
  CollectIdentitiesNow();
  EXPECT_FALSE(LookupIdentity(fresh, &got));  // the second one does not
  EXPECT_TRUE(LookupIdentity(kept, &got));
  // Interning the same description again gives a fresh id, never an old one.
  EXPECT_GT(InternIdentity(Described("not attached yet")), fresh);
}

// A memory's history keeps the identities its window refers to, so that
// its dump names what was attached to a life already over; past the window
// they are forgotten like the others.
TEST_F(TrackerTest, TheIdentityTableKeepsWhatTheHistoryWindowRefersTo) {
  constexpr size_t kWindow = 3000;  // events: 1000 tasks of 3
  auto* m = RegisterMemory(6, MemoryKind::kFramebuffer, 1 << 30, "fb",
                           REALM_SHADOW_SERIALIZED, 0, kWindow);
  uint32_t last = 0;
  for (uint64_t task = 0; task < 60000; ++task) {
    last = InternIdentity(Described("task stencil (UID " + std::to_string(task) + ")"));
    realm_shadow_allocated(m, 100 + task, 4096, 64, 1);
    realm_shadow_attach_identity(m, 100 + task, last, 0);
    realm_shadow_released(m, 100 + task);
  }
  CollectIdentitiesNow();
  CollectIdentitiesNow();
  EXPECT_LT(IdentityCount(), 20000u);  // the window's, not 60000
  Identity got;
  EXPECT_TRUE(LookupIdentity(last, &got));  // its life is over, its event in the window
  MemoryHistory h;
  ASSERT_TRUE(TakeHistory(m, &h));
  const bool carried = std::any_of(h.identities.begin(), h.identities.end(),
                                   [&](const Identity& i) { return i.id == last; });
  EXPECT_TRUE(carried);
}

std::atomic<int> g_failures_seen{0};
std::atomic<uint64_t> g_last_failed{0};

TEST_F(TrackerTest, TheFailureObserverSeesInstantAndEventualFailures) {
  g_failures_seen = 0;
  SetFailureObserver([](realm_shadow_memory* m, uint64_t instance) {
    // The observer may take a snapshot: the failure is already in it.
    const Snapshot s = TakeSnapshot(m);
    if (!s.failures.empty() && s.failures.back().instance == instance)
      g_failures_seen.fetch_add(1);
    g_last_failed = instance;
  });
  auto* m = RegisterMemory(3, MemoryKind::kSystem, 100, "", 0);
  realm_shadow_allocation_failed(m, 77, 1000, 8);
  realm_shadow_deferred(m, 78, 50, 8, REALM_SHADOW_NO_OFFSET);
  realm_shadow_deferred_failed(m, 78);
  EXPECT_EQ(g_failures_seen.load(), 2);
  EXPECT_EQ(g_last_failed.load(), 78u);
  const Snapshot s = TakeSnapshot(m);
  ASSERT_EQ(s.failures.size(), 2u);
  EXPECT_FALSE(s.failures[0].eventual);
  EXPECT_TRUE(s.failures[1].eventual);
  EXPECT_EQ(s.failures[1].size, 50u);
}

TEST_F(TrackerTest, TheDrainerAppliesJournalsInTheBackground) {
  auto* m = RegisterMemory(4, MemoryKind::kSystem, 1 << 30, "", 0, 1024);
  StartDrainer(200);
  StartDrainer(200);  // idempotent
  // Fewer events than the journal holds, so no writer ever drains it
  // itself: only the drainer can consume them.
  for (uint64_t i = 0; i < 500; ++i) {
    realm_shadow_allocated(m, i, i * 16, 16, 1);
    realm_shadow_released(m, i);
  }
  // What the drainer is for: the backlog is applied without anyone asking.
  // Wait (up to 10 s) for its journal to be consumed: without a drainer it
  // never is, and the wait runs out.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool consumed = false;
  while (!consumed && std::chrono::steady_clock::now() < deadline) {
    consumed = DescribeMemory(m).journal_consumed == 1000;
    if (!consumed) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(consumed);
  EXPECT_EQ(DescribeMemory(m).journal_overflows, 0u);
  StopDrainer();
  const Snapshot s = TakeSnapshot(m);
  EXPECT_EQ(s.sequence, 1000u);
  EXPECT_TRUE(s.allocations.empty());
}

// A memory registered while tracking is switched off missed its first
// events: its pictures are not exact, even after tracking is back on (it
// used to say exact, as only switches after registration counted).
TEST_F(TrackerTest, AMemoryRegisteredWhileTrackingIsOffIsNotExact) {
  realm_shadow_set_enabled(0);
  auto* m = RegisterMemory(5, MemoryKind::kSystem, 1 << 20, "", 0);
  realm_shadow_allocated(m, 1, 0, 16, 1);  // dropped
  realm_shadow_set_enabled(1);
  realm_shadow_allocated(m, 2, 64, 16, 1);
  const Snapshot s = TakeSnapshot(m);
  EXPECT_FALSE(s.exact);
  EXPECT_EQ(s.allocations.size(), 1u);
  // A memory registered after that, with tracking on, is exact.
  auto* fresh = RegisterMemory(6, MemoryKind::kSystem, 1 << 20, "", 0);
  realm_shadow_allocated(fresh, 1, 0, 16, 1);
  EXPECT_TRUE(TakeSnapshot(fresh).exact);
}

}  // namespace
}  // namespace realm_shadow

namespace realm_shadow {
namespace {

TEST_F(TrackerTest, ACancelledReleaseLeavesTheInstanceLive) {
  auto* m = RegisterMemory(5, MemoryKind::kSystem, 1000, "", 0);
  realm_shadow_allocated(m, 9, 0, 100, 1);
  realm_shadow_release_requested(m, 9, 0);
  EXPECT_EQ(TakeSnapshot(m).allocations.at(0).state,
            AllocationState::kReleasePending);
  realm_shadow_release_cancelled(m, 9);
  const Snapshot s = TakeSnapshot(m);
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].state, AllocationState::kLive);
  EXPECT_TRUE(s.anomalies.empty());
  realm_shadow_release_cancelled(m, 10);  // never seen: an anomaly
  EXPECT_EQ(TakeSnapshot(m).counters.anomalies[static_cast<int>(
                AnomalyKind::kUnknownInstance)],
            1u);
}

}  // namespace
}  // namespace realm_shadow

namespace realm_shadow {
namespace {

TEST_F(TrackerTest, SnapshotIntoAReusedSnapshotEqualsAFreshOne) {
  auto* big = RegisterMemory(6, MemoryKind::kSystem, 1 << 20, "big", 0);
  auto* small = RegisterMemory(7, MemoryKind::kZeroCopy, 1 << 10, "small", 0);
  for (uint64_t i = 0; i < 500; ++i) realm_shadow_allocated(big, i, i * 64, 64, 1);
  realm_shadow_allocated(small, 1, 0, 10, 1);
  realm_shadow_deferred(big, 900, 64, 1, REALM_SHADOW_NO_OFFSET);
  realm_shadow_allocation_failed(big, 901, 1 << 21, 1);
  Snapshot reused;
  TakeSnapshotInto(big, &reused);
  TakeSnapshotInto(small, &reused);  // smaller: nothing of `big` may remain
  const Snapshot fresh = TakeSnapshot(small);
  EXPECT_EQ(reused.memory_id, fresh.memory_id);
  EXPECT_EQ(reused.kind, MemoryKind::kZeroCopy);
  ASSERT_EQ(reused.allocations.size(), 1u);
  EXPECT_TRUE(reused.pending.empty());
  EXPECT_TRUE(reused.failures.empty());
  EXPECT_EQ(reused.sequence, fresh.sequence);
  EXPECT_EQ(reused.capacity, 1u << 10);
}

}  // namespace
}  // namespace realm_shadow

namespace realm_shadow {
namespace {

// A redistrict with more pieces than the journal holds at once is applied
// whole, in its place among the memory's events (it used to be cut to the
// journal's capacity less one).  Serialized and concurrent journals alike,
// with events before and after it still journaled.
TEST_F(TrackerTest, GroupsLargerThanTheJournalArriveWhole) {
  for (unsigned flags : {unsigned{REALM_SHADOW_SERIALIZED},
                         unsigned{REALM_SHADOW_CONCURRENT}}) {
    ResetTrackerForTesting();
    realm_shadow_memory* m = RegisterMemory(
        0x1e00000000000000ull, MemoryKind::kSystem, 1 << 20, "sysmem", flags,
        /*journal_events=*/64);
    ASSERT_NE(m, nullptr);
    constexpr uint32_t kPieces = 500;
    realm_shadow_allocated(m, 1, 0, kPieces * 16, 16);
    realm_shadow_allocated(m, 2, kPieces * 16, 16, 16);
    std::vector<realm_shadow_piece> pieces;
    for (uint32_t i = 0; i < kPieces; ++i)
      pieces.push_back({100 + i, i * 16, 16, 16});
    realm_shadow_redistricted(m, 1, kPieces, pieces.data());
    realm_shadow_released(m, 2);
    const Snapshot s = TakeSnapshot(m);
    ASSERT_EQ(s.allocations.size(), kPieces) << flags;
    EXPECT_EQ(s.allocations.front().instance, 100u);
    EXPECT_EQ(s.allocations.back().instance, 100u + kPieces - 1);
    EXPECT_TRUE(s.anomalies.empty());
    // Every event counted once: two allocations, the header, the pieces,
    // the placeholder the group left in the journal, the release.
    EXPECT_EQ(s.counters.by_type[static_cast<int>(EventType::kRedistrictPiece)],
              kPieces);
    EXPECT_EQ(s.counters.by_type[static_cast<int>(EventType::kNoop)], 1u);
    EXPECT_EQ(s.sequence, 2u + 1 + kPieces + 1 + 1);
  }
}

}  // namespace
}  // namespace realm_shadow
