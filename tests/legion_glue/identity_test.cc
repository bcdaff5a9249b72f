// Legion and Legate identities: interned once, attached in order with the
// memory's events, carried by snapshots, and pinned (valid) allocations are
// never proposed as blockers.
#include "legion_glue/identity.h"

#include <gtest/gtest.h>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/recorder/identity_table.h"
#include "tests/legion_glue/glue_test.h"

namespace realm_shadow {
namespace legion {
namespace {

class IdentityTest : public testing::GlueTest {
 protected:
  IdentityTest() : GlueTest(1024, "sysmem") {}
};

LegionInstanceDescription Velocity() {
  LegionInstanceDescription d;
  d.kind = AllocationKind::kRegionInstance;
  d.regions = "(3,1,1)";
  d.fields = "velocity, pressure";
  d.creator = "task stencil (UID 812)";
  d.provenance = "stencil.cc:88";
  return d;
}

TEST_F(IdentityTest, EqualDescriptionsInternToOneId) {
  const uint32_t a = InternLegionIdentity(Velocity());
  const uint32_t b = InternLegionIdentity(Velocity());
  LegionInstanceDescription other = Velocity();
  other.fields = "density";
  const uint32_t c = InternLegionIdentity(other);
  LegionInstanceDescription buffer = Velocity();
  buffer.kind = AllocationKind::kDeferredBuffer;
  const uint32_t d = InternLegionIdentity(buffer);
  EXPECT_NE(a, 0u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);  // the kind is part of the identity

  Identity back;
  ASSERT_TRUE(LookupIdentity(a, &back));
  EXPECT_EQ(back.kind, AllocationKind::kRegionInstance);
  EXPECT_EQ(IdentityAttribute(back, kFieldsAttribute), "velocity, pressure");
  EXPECT_EQ(IdentityAttribute(back, kCreatorAttribute), "task stencil (UID 812)");
  EXPECT_EQ(IdentityAttribute(back, "absent"), "");
}

TEST_F(IdentityTest, EmptyValuesAreLeftOutAndExtrasFollowInOrder) {
  LegionInstanceDescription d;
  d.kind = AllocationKind::kFuture;
  d.creator = "task f (UID 3)";
  d.extra = {{"size", "16"}, {"empty", ""}, {"node", "0"}};
  const Identity id = MakeIdentity(d);
  ASSERT_EQ(id.attributes.size(), 3u);
  EXPECT_EQ(id.attributes[0].first, kCreatorAttribute);
  EXPECT_EQ(id.attributes[1].first, "size");
  EXPECT_EQ(id.attributes[2].first, "node");
}

TEST_F(IdentityTest, LegateStoreCarriesShapeTransformAndPartition) {
  LegateStoreDescription store;
  store.store = "Store(14)";
  store.shape = "(1000, 600)";
  store.type = "float64";
  store.transform = "slice [1:,1:]";
  store.partition = "2x4 tiling in 300x150 tiles";
  store.provenance = "x = np.empty(...) at app.py:12";
  LegionInstanceDescription legion = Velocity();
  const Identity id =
      MakeIdentity(store, AllocationKind::kRegionInstance, &legion);
  EXPECT_EQ(IdentityAttribute(id, kTransformAttribute), "slice [1:,1:]");
  EXPECT_EQ(IdentityAttribute(id, kPartitionAttribute), "2x4 tiling in 300x150 tiles");
  EXPECT_EQ(IdentityAttribute(id, kFieldsAttribute), "velocity, pressure");
  // One provenance: the user's line, not Legion's.
  int provenances = 0;
  for (const auto& kv : id.attributes) provenances += kv.first == kProvenanceAttribute;
  EXPECT_EQ(provenances, 1);
  EXPECT_EQ(IdentityAttribute(id, kProvenanceAttribute), "x = np.empty(...) at app.py:12");
  EXPECT_EQ(DescribeIdentity(nullptr), "unknown");
  EXPECT_NE(DescribeIdentity(&id).find("transform=\"slice [1:,1:]\""),
            std::string::npos);
  EXPECT_EQ(DescribeIdentity(&id).rfind("region_instance ", 0), 0u);
}

TEST_F(IdentityTest, AttachedIdentityShowsUpInTheSnapshot) {
  realm_shadow_allocated(m_, 11, 0, 256, 32);
  realm_shadow_deferred(m_, 12, 512, 32, 256);
  const uint32_t region = InternLegionIdentity(Velocity());
  LegateStoreDescription store;
  store.store = "Store(2)";
  store.partition = "2x4 tiling in 300x150 tiles";
  const uint32_t buffer =
      InternLegateStore(store, AllocationKind::kDeferredBuffer);
  AttachIdentity(m_, 11, region, GcState::kValid);
  EXPECT_TRUE(AttachIdentity(kSys, 12, buffer, GcState::kCollectable));
  EXPECT_FALSE(AttachIdentity(0x1e000000000000ffull, 12, buffer,
                              GcState::kValid));  // not registered
  AttachIdentity(nullptr, 11, region, GcState::kValid);  // does nothing

  const Snapshot s = TakeSnapshot(m_);
  ASSERT_EQ(s.allocations.size(), 1u);
  const Allocation& a = s.allocations[0];
  EXPECT_EQ(a.identity, region);
  EXPECT_EQ(a.kind, AllocationKind::kRegionInstance);
  EXPECT_TRUE(a.pinned());
  const Identity* id = IdentityOf(s, a);
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(IdentityAttribute(*id, kRegionsAttribute), "(3,1,1)");
  ASSERT_EQ(s.pending.size(), 1u);
  EXPECT_EQ(s.pending[0].identity, buffer);
  EXPECT_NE(s.FindIdentity(buffer), nullptr);

  // The pending request keeps its identity once placed.
  realm_shadow_deferred_completed(m_, 12, 256);
  const Snapshot t = TakeSnapshot(m_);
  ASSERT_EQ(t.allocations.size(), 2u);
  EXPECT_EQ(t.allocations[1].identity, buffer);
  EXPECT_EQ(t.allocations[1].kind, AllocationKind::kDeferredBuffer);
  EXPECT_FALSE(t.allocations[1].pinned());
}

TEST_F(IdentityTest, GcStateChangesByReattaching) {
  realm_shadow_allocated(m_, 11, 0, 256, 32);
  const uint32_t region = InternLegionIdentity(Velocity());
  AttachIdentity(m_, 11, region, GcState::kValid);
  EXPECT_TRUE(TakeSnapshot(m_).allocations[0].pinned());
  AttachIdentity(m_, 11, region, GcState::kCollectable);
  EXPECT_FALSE(TakeSnapshot(m_).allocations[0].pinned());
  EXPECT_EQ(TakeSnapshot(m_).allocations[0].identity, region);
  EXPECT_TRUE(IsPinned(GcState::kValid));
  EXPECT_FALSE(IsPinned(GcState::kCollectable));
  EXPECT_FALSE(IsPinned(GcState::kUnknown));
  EXPECT_STREQ(GcStateName(GcState::kCollectable), "collectable");
}

TEST_F(IdentityTest, BlockersNeverIncludeValidInstances) {
  // [0,256) A valid | [256,512) B collectable | [512,768) C valid |
  // [768,1024) free.  For 512 bytes, releasing B leaves a 256 B hole between
  // two valid instances, and the tail would need C: no window.  Once C is
  // collectable, releasing C alone opens [512,1024).
  realm_shadow_allocated(m_, 1, 0, 256, 32);
  realm_shadow_allocated(m_, 2, 256, 256, 32);
  realm_shadow_allocated(m_, 3, 512, 256, 32);
  const uint32_t id = InternLegionIdentity(Velocity());
  AttachIdentity(m_, 1, id, GcState::kValid);
  AttachIdentity(m_, 2, id, GcState::kCollectable);
  AttachIdentity(m_, 3, id, GcState::kValid);

  Snapshot s = TakeSnapshot(m_);
  BlockerWindow w = FindBlockers(s, 512, 32);
  EXPECT_FALSE(w.fits_already);
  EXPECT_FALSE(w.found);

  AttachIdentity(m_, 3, id, GcState::kCollectable);
  s = TakeSnapshot(m_);
  w = FindBlockers(s, 512, 32);
  ASSERT_TRUE(w.found);
  ASSERT_EQ(w.blockers.size(), 1u);
  EXPECT_EQ(w.blockers[0].instance, 3u);  // 256 B released, not B + C
  EXPECT_EQ(w.bytes_to_free, 256u);
  EXPECT_EQ(w.placement, 512u);
}

}  // namespace
}  // namespace legion
}  // namespace realm_shadow
