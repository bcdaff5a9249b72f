// The shadow map's memory of released ids: bounded, the purge that keeps it
// bounded touches nothing live, and no placement can pass for a release.
#include "realm_shadow/analysis/shadow_map.h"

#include <gtest/gtest.h>

namespace realm_shadow {
namespace {

// Alignment 1 for every placement.
Event Allocated(uint64_t instance, uint64_t offset, uint64_t size) {
  return Event{EventType::kAllocated, instance, offset, size, 1};
}
Event Released(uint64_t instance) {
  return Event{EventType::kReleased, instance};
}

uint64_t Anomalies(const ShadowMap& map, AnomalyKind kind) {
  Snapshot s;
  map.CopyTo(&s);
  return s.counters.anomalies[static_cast<size_t>(kind)];
}

// 40000 ids, never reused, are allocated and released one after the other
// beside 8 long-lived allocations: more than the 2^14 releases remembered
// at 8 live, so the oldest are forgotten.  A second release of a recent one
// is a double release, of the first one an unknown instance; the long-lived
// allocations are untouched by the purges and release cleanly.
TEST(ShadowMap, RemembersRecentReleasesAndForgetsOldOnesWithoutLosingLiveOnes) {
  ShadowMap map(1 << 20, false);
  for (uint64_t i = 0; i < 8; ++i)
    map.Apply(Allocated(1000000 + i, 4096 + i * 64, 64));
  constexpr uint64_t kChurn = 40000;
  for (uint64_t i = 0; i < kChurn; ++i) {
    map.Apply(Allocated(i + 1, 0, 64));
    map.Apply(Released(i + 1));
  }
  EXPECT_EQ(map.live_count(), 8u);
  map.Apply(Released(kChurn));  // the latest: remembered
  EXPECT_EQ(Anomalies(map, AnomalyKind::kDoubleRelease), 1u);
  EXPECT_EQ(Anomalies(map, AnomalyKind::kUnknownInstance), 0u);
  map.Apply(Released(1));  // the first: forgotten
  EXPECT_EQ(Anomalies(map, AnomalyKind::kDoubleRelease), 1u);
  EXPECT_EQ(Anomalies(map, AnomalyKind::kUnknownInstance), 1u);
  for (uint64_t i = 0; i < 8; ++i)
    map.Apply(Released(1000000 + i));
  EXPECT_EQ(map.live_count(), 0u);
  EXPECT_EQ(map.used_bytes(), 0u);
  EXPECT_EQ(Anomalies(map, AnomalyKind::kUnknownInstance), 1u);
  // A released id placed again is live again, not a duplicate.
  map.Apply(Allocated(kChurn, 0, 64));
  EXPECT_EQ(Anomalies(map, AnomalyKind::kDuplicateInstance), 0u);
  EXPECT_EQ(map.live_count(), 1u);
}

// kNoOffset is also the index's release mark: a placement there must not
// look like a release.  It is refused as malformed and changes nothing, and
// the instance stays live where it was.
TEST(ShadowMap, APlacementAtNoOffsetIsMalformedAndChangesNothing) {
  ShadowMap map(1 << 20, false);
  map.Apply(Allocated(7, 128, 64));
  map.Apply(Allocated(7, kNoOffset, 0));
  map.Apply(Allocated(8, kNoOffset, 16));
  EXPECT_EQ(Anomalies(map, AnomalyKind::kMalformedEvent), 2u);
  EXPECT_EQ(Anomalies(map, AnomalyKind::kDuplicateInstance), 0u);
  Snapshot s;
  map.CopyTo(&s);
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].instance, 7u);
  EXPECT_EQ(s.allocations[0].offset, 128u);
  map.Apply(Released(7));
  map.Apply(Released(8));  // never placed: unknown
  EXPECT_EQ(map.live_count(), 0u);
  EXPECT_EQ(Anomalies(map, AnomalyKind::kDoubleRelease), 0u);
  EXPECT_EQ(Anomalies(map, AnomalyKind::kUnknownInstance), 1u);
}

// A memory whose integration never reports the destroy of a failed
// instance (the decision hooks of a dynamic framebuffer, the model) used to
// keep every failed id for ever: 100000 failures, none destroyed, leave at
// most kFailedMemory remembered.  The recent ones still release quietly;
// one of the oldest, forgotten, is an unknown-instance release.
TEST(ShadowMap, RemembersAtMostTheRecentFailedInstances) {
  ShadowMap map(1 << 20, false);
  constexpr uint64_t kFailures = 100000;
  for (uint64_t i = 1; i <= kFailures; ++i)
    map.Apply(Event{EventType::kAllocationFailed, i, 0, 4096, 1});
  EXPECT_LE(map.remembered_failed(), kFailedMemory);
  EXPECT_GE(map.remembered_failed(), kFailedMemory / 2);
  map.Apply(Released(kFailures));
  EXPECT_EQ(Anomalies(map, AnomalyKind::kUnknownInstance), 0u);
  map.Apply(Released(1));
  EXPECT_EQ(Anomalies(map, AnomalyKind::kUnknownInstance), 1u);
}

}  // namespace
}  // namespace realm_shadow
