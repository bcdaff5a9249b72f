// The Realm-site helpers of legion_glue/realm_hooks.h: each result code maps
// to the event its site means, and the picture after a site's calls is the
// state Realm's current heap has there.
//
// realm_c.h's memory-kind list, spelled here (names only) so that the
// enum-based mapping is compiled and tested without Realm.
#define REALM_MEMORY_KINDS(__op__)                                        \
  __op__(NO_MEMKIND, "") __op__(GLOBAL_MEM, "") __op__(SYSTEM_MEM, "")    \
  __op__(REGDMA_MEM, "") __op__(SOCKET_MEM, "") __op__(Z_COPY_MEM, "")    \
  __op__(GPU_FB_MEM, "") __op__(DISK_MEM, "") __op__(HDF_MEM, "")         \
  __op__(FILE_MEM, "") __op__(LEVEL3_CACHE, "") __op__(LEVEL2_CACHE, "")  \
  __op__(LEVEL1_CACHE, "") __op__(GPU_MANAGED_MEM, "")                    \
  __op__(GPU_DYNAMIC_MEM, "")
typedef enum realm_memory_kind_t {
#define C_ENUMS(name, desc) name,
  REALM_MEMORY_KINDS(C_ENUMS)
#undef C_ENUMS
} realm_memory_kind_t;

#include "legion_glue/realm_hooks.h"

#include <gtest/gtest.h>

#include "realm_shadow/recorder/tracker.h"

namespace realm_shadow {
namespace {

constexpr uint64_t kSys = 0x1e00000000000000ull;
constexpr uint64_t kFb = 0x1e00000000000003ull;
constexpr uint64_t kInstA = 0x4000000000000000ull;
constexpr uint64_t kInstB = 0x4000000000000001ull;
constexpr uint64_t kInstC = 0x4000000000000002ull;
constexpr uint64_t kInstD = 0x4000000000000003ull;

class RealmHooksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetTrackerForTesting();
    m_ = realm_shadow_site_register_managed_memory(
        kSys, REALM_SHADOW_MEM_SYSTEM, 1024, "sysmem", 0);
    ASSERT_NE(m_, nullptr);
  }
  void TearDown() override { ResetTrackerForTesting(); }
  Snapshot Take() { return TakeSnapshot(m_); }
  realm_shadow_memory* m_ = nullptr;
};

TEST(RealmKindTest, RealmNamesMapToOurKinds) {
  EXPECT_EQ(realm_shadow_kind_from_realm_name("SYSTEM_MEM"), REALM_SHADOW_MEM_SYSTEM);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("REGDMA_MEM"), REALM_SHADOW_MEM_REGDMA);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("SOCKET_MEM"), REALM_SHADOW_MEM_SOCKET);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("GPU_FB_MEM"), REALM_SHADOW_MEM_FRAMEBUFFER);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("Z_COPY_MEM"), REALM_SHADOW_MEM_ZERO_COPY);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("GPU_MANAGED_MEM"), REALM_SHADOW_MEM_MANAGED);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("GPU_DYNAMIC_MEM"),
            REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("DISK_MEM"), REALM_SHADOW_MEM_DISK);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("FILE_MEM"), REALM_SHADOW_MEM_DISK);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("GLOBAL_MEM"), REALM_SHADOW_MEM_GLOBAL);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("LEVEL2_CACHE"), REALM_SHADOW_MEM_OTHER);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("SYSTEM_ME"), REALM_SHADOW_MEM_OTHER);
  EXPECT_EQ(realm_shadow_kind_from_realm_name("SYSTEM_MEMX"), REALM_SHADOW_MEM_OTHER);
  EXPECT_EQ(realm_shadow_kind_from_realm_name(""), REALM_SHADOW_MEM_OTHER);
  EXPECT_EQ(realm_shadow_kind_from_realm_name(nullptr), REALM_SHADOW_MEM_OTHER);
}

TEST(RealmKindTest, RealmEnumMapsLikeItsName) {
  EXPECT_EQ(realm_shadow_kind_from_realm(SYSTEM_MEM), REALM_SHADOW_MEM_SYSTEM);
  EXPECT_EQ(realm_shadow_kind_from_realm(GPU_FB_MEM), REALM_SHADOW_MEM_FRAMEBUFFER);
  EXPECT_EQ(realm_shadow_kind_from_realm(GPU_DYNAMIC_MEM),
            REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER);
  EXPECT_EQ(realm_shadow_kind_from_realm(Z_COPY_MEM), REALM_SHADOW_MEM_ZERO_COPY);
  EXPECT_EQ(realm_shadow_kind_from_realm(HDF_MEM), REALM_SHADOW_MEM_DISK);
  EXPECT_EQ(realm_shadow_kind_from_realm(LEVEL1_CACHE), REALM_SHADOW_MEM_OTHER);
  EXPECT_EQ(realm_shadow_kind_from_realm(NO_MEMKIND), REALM_SHADOW_MEM_OTHER);
  EXPECT_EQ(realm_shadow_kind_from_realm(999), REALM_SHADOW_MEM_OTHER);
}

TEST_F(RealmHooksTest, AttemptDeferrableAllocationMapsEachResult) {
  EXPECT_EQ(realm_shadow_site_attempt_deferrable_allocation(
                m_, kInstA, 256, 32, REALM_SHADOW_ALLOC_INSTANT_SUCCESS, 64), 1);
  EXPECT_EQ(realm_shadow_site_attempt_deferrable_allocation(
                m_, kInstB, 512, 64, REALM_SHADOW_ALLOC_DEFERRED, 384), 1);
  EXPECT_EQ(realm_shadow_site_attempt_deferrable_allocation(
                m_, kInstC, 4096, 32, REALM_SHADOW_ALLOC_INSTANT_FAILURE, 0), 1);
  // Results this site never produces record nothing.
  EXPECT_EQ(realm_shadow_site_attempt_deferrable_allocation(
                m_, kInstD, 8, 8, REALM_SHADOW_ALLOC_EVENTUAL_SUCCESS, 0), 0);
  EXPECT_EQ(realm_shadow_site_attempt_deferrable_allocation(
                m_, kInstD, 8, 8, REALM_SHADOW_ALLOC_CANCELLED, 0), 0);
  EXPECT_EQ(realm_shadow_site_attempt_deferrable_allocation(
                m_, kInstD, 8, 8, 17, 0), 0);

  const Snapshot s = Take();
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].instance, kInstA);
  EXPECT_EQ(s.allocations[0].offset, 64u);
  EXPECT_EQ(s.allocations[0].size, 256u);
  EXPECT_EQ(s.allocations[0].alignment(), 32u);
  ASSERT_EQ(s.pending.size(), 1u);
  EXPECT_EQ(s.pending[0].instance, kInstB);
  EXPECT_EQ(s.pending[0].planned_offset, 384u);
  EXPECT_EQ(s.pending[0].size, 512u);
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].instance, kInstC);
  EXPECT_EQ(s.failures[0].size, 4096u);
  EXPECT_FALSE(s.failures[0].eventual);
  EXPECT_EQ(s.sequence, 3u);  // exactly three events
}

TEST_F(RealmHooksTest, DeferredCreateWithAWaitingDestroyIsQueuedNotReady) {
  realm_shadow_site_deferred_create_fired(
      m_, kInstA, 128, 32, REALM_SHADOW_ALLOC_INSTANT_SUCCESS, 0, 1);
  // Poisoned creation: nothing placed, and its waiting destroy is not shown.
  realm_shadow_site_deferred_create_fired(
      m_, kInstB, 128, 32, REALM_SHADOW_ALLOC_CANCELLED, 0, 1);
  realm_shadow_site_deferred_create_fired(
      m_, kInstC, 128, 32, REALM_SHADOW_ALLOC_INSTANT_SUCCESS, 128, 0);
  const Snapshot s = Take();
  ASSERT_EQ(s.allocations.size(), 2u);
  EXPECT_EQ(s.allocations[0].instance, kInstA);
  EXPECT_EQ(s.allocations[0].state, AllocationState::kReleasePending);
  EXPECT_EQ(s.allocations[1].instance, kInstC);
  EXPECT_EQ(s.allocations[1].state, AllocationState::kLive);
  EXPECT_TRUE(s.failures.empty());
  EXPECT_TRUE(s.anomalies.empty());
}

TEST_F(RealmHooksTest, QueuedReadyAndAppliedReleases) {
  realm_shadow_site_attempt_deferrable_allocation(
      m_, kInstA, 256, 32, REALM_SHADOW_ALLOC_INSTANT_SUCCESS, 0);
  realm_shadow_site_attempt_deferrable_allocation(
      m_, kInstB, 256, 32, REALM_SHADOW_ALLOC_INSTANT_SUCCESS, 256);
  realm_shadow_site_release_queued(m_, kInstA, 0);
  realm_shadow_site_release_queued(m_, kInstB, 7);  // any non-zero is ready
  Snapshot s = Take();
  ASSERT_EQ(s.allocations.size(), 2u);
  EXPECT_EQ(s.allocations[0].state, AllocationState::kReleasePending);
  EXPECT_EQ(s.allocations[1].state, AllocationState::kReleaseReady);
  realm_shadow_site_release_ready(m_, kInstA);
  s = Take();
  EXPECT_EQ(s.allocations[0].state, AllocationState::kReleaseReady);
  realm_shadow_site_release_applied(m_, kInstA);
  realm_shadow_site_reordered_release(m_, kInstB);
  s = Take();
  EXPECT_TRUE(s.allocations.empty());
  EXPECT_TRUE(s.anomalies.empty());
}

TEST_F(RealmHooksTest, PlacedAndFailedDeferredRequests) {
  realm_shadow_site_attempt_deferrable_allocation(
      m_, kInstA, 256, 32, REALM_SHADOW_ALLOC_DEFERRED, 0);
  realm_shadow_site_attempt_deferrable_allocation(
      m_, kInstB, 256, 32, REALM_SHADOW_ALLOC_DEFERRED, 256);
  realm_shadow_site_attempt_deferrable_allocation(
      m_, kInstC, 64, 32, REALM_SHADOW_ALLOC_DEFERRED, 768);
  realm_shadow_site_deferred_placed(m_, kInstA, 512);
  realm_shadow_site_eventual_failure(m_, kInstB);
  realm_shadow_site_deferred_cancelled(m_, kInstC);
  const Snapshot s = Take();
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].instance, kInstA);
  EXPECT_EQ(s.allocations[0].offset, 512u);  // where it went, not planned
  EXPECT_TRUE(s.allocations[0].flags & kWasDeferred);
  EXPECT_TRUE(s.pending.empty());
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].instance, kInstB);
  EXPECT_TRUE(s.failures[0].eventual);
  EXPECT_EQ(s.counters.cancelled, 1u);  // C left the queue, not a failure
}

TEST_F(RealmHooksTest, RedistrictReportsPlacedPiecesAndFailsTheRest) {
  realm_shadow_site_attempt_deferrable_allocation(
      m_, kInstA, 512, 32, REALM_SHADOW_ALLOC_INSTANT_SUCCESS, 0);
  const realm_shadow_piece pieces[3] = {
      {kInstB, 0, 128, 32}, {kInstC, 128, 256, 32}, {kInstD, 0, 400, 32}};
  realm_shadow_site_redistrict_applied(m_, kInstA, 3, 2, pieces);
  const Snapshot s = Take();
  ASSERT_EQ(s.allocations.size(), 2u);
  EXPECT_EQ(s.allocations[0].instance, kInstB);
  EXPECT_EQ(s.allocations[1].instance, kInstC);
  EXPECT_EQ(s.allocations[1].offset, 128u);
  EXPECT_TRUE(s.allocations[1].flags & kFromRedistrict);
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].instance, kInstD);
  EXPECT_EQ(s.failures[0].size, 400u);
  // A placed count beyond the pieces is clamped, never read past the array.
  const realm_shadow_piece one = {kInstD, 0, 64, 32};
  realm_shadow_site_redistrict_applied(m_, kInstB, 1, 5, &one);
  const Snapshot after = Take();
  ASSERT_EQ(after.allocations.size(), 2u);  // B replaced by D at offset 0
  EXPECT_EQ(after.allocations[0].instance, kInstD);
  EXPECT_EQ(after.allocations[0].size, 64u);
  EXPECT_TRUE(after.anomalies.empty());
}

TEST_F(RealmHooksTest, OutcomeSitesRecordPlacementsAndFailuresOnly) {
  EXPECT_EQ(realm_shadow_site_notify_allocation(
                m_, kInstA, REALM_SHADOW_ALLOC_INSTANT_SUCCESS, 0, 256, 32), 1);
  EXPECT_EQ(realm_shadow_site_notify_allocation(
                m_, kInstB, REALM_SHADOW_ALLOC_DEFERRED, 0, 256, 32), 0);
  EXPECT_EQ(realm_shadow_site_notify_allocation(
                m_, kInstB, REALM_SHADOW_ALLOC_EVENTUAL_SUCCESS, 256, 256, 32), 1);
  EXPECT_EQ(realm_shadow_site_notify_allocation(
                m_, kInstC, REALM_SHADOW_ALLOC_EVENTUAL_FAILURE, 0, 900, 32), 1);
  EXPECT_EQ(realm_shadow_site_notify_allocation(
                m_, kInstD, REALM_SHADOW_ALLOC_CANCELLED, 0, 64, 32), 0);
  realm_shadow_site_notify_deallocation(m_, kInstA);
  const Snapshot s = Take();
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].instance, kInstB);
  EXPECT_EQ(s.allocations[0].offset, 256u);
  EXPECT_TRUE(s.pending.empty());
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].size, 900u);
  EXPECT_TRUE(s.anomalies.empty());
}

TEST_F(RealmHooksTest, DynamicFramebufferIsAddressedAndConcurrent) {
  realm_shadow_memory* fb = realm_shadow_site_register_dynamic_fb(
      kFb, uint64_t{1} << 30, "dynfb");
  ASSERT_NE(fb, nullptr);
  realm_shadow_site_dynamic_fb_allocated(fb, kInstA, 0x7f0000200000ull, 4096);
  realm_shadow_site_dynamic_fb_allocated(fb, kInstB, 0x7f0000100000ull, 8192);
  realm_shadow_site_dynamic_fb_failed(fb, kInstC, uint64_t{2} << 30);
  realm_shadow_site_dynamic_fb_released(fb, kInstA);
  const Snapshot s = TakeSnapshot(fb);
  EXPECT_TRUE(s.addressed);
  EXPECT_EQ(s.kind, MemoryKind::kDynamicFramebuffer);
  EXPECT_EQ(s.capacity, uint64_t{1} << 30);
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].offset, 0x7f0000100000ull);
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].size, uint64_t{2} << 30);
}

TEST_F(RealmHooksTest, NullHandleDoesNothing) {
  realm_shadow_memory* none = nullptr;
  realm_shadow_site_attempt_deferrable_allocation(
      none, kInstA, 1, 1, REALM_SHADOW_ALLOC_INSTANT_SUCCESS, 0);
  realm_shadow_site_release_applied(none, kInstA);
  const realm_shadow_piece piece = {kInstB, 0, 1, 1};
  realm_shadow_site_redistrict_applied(none, kInstA, 1, 1, &piece);
  realm_shadow_site_dynamic_fb_released(none, kInstA);
  EXPECT_EQ(Take().sequence, 0u);
}

}  // namespace
}  // namespace realm_shadow
