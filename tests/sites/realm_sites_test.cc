// The C part of realm_shadow/realm_sites.h: memory kinds (names, Realm's
// enum), the dynamic framebuffer's sites.
//
// realm_c.h's memory-kind list first, as Realm has it, so that the
// enum-based mapping is compiled and tested without Realm.
#include "tests/common/realm_c_memory_kinds.h"

#include "realm_shadow/realm_sites.h"

#include <gtest/gtest.h>

#include "realm_shadow/live/snapshots.h"

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
    m_ = realm_shadow_register_memory(kSys, REALM_SHADOW_MEM_SYSTEM, 1024,
                                      "sysmem", REALM_SHADOW_SERIALIZED);
    ASSERT_NE(m_, nullptr);
  }
  void TearDown() override { ResetTrackerForTesting(); }
  Snapshot Take() { return TakeSnapshot(m_); }
  realm_shadow_memory* m_ = nullptr;
};

// Every Realm kind in realm_c.h, by its enum value and by its name.
struct RealmKindCase {
  int realm;
  const char* name;
  realm_shadow_memory_kind ours;
};
constexpr RealmKindCase kRealmKinds[] = {
    {NO_MEMKIND, "NO_MEMKIND", REALM_SHADOW_MEM_OTHER},
    {GLOBAL_MEM, "GLOBAL_MEM", REALM_SHADOW_MEM_GLOBAL},
    {SYSTEM_MEM, "SYSTEM_MEM", REALM_SHADOW_MEM_SYSTEM},
    {REGDMA_MEM, "REGDMA_MEM", REALM_SHADOW_MEM_REGDMA},
    {SOCKET_MEM, "SOCKET_MEM", REALM_SHADOW_MEM_SOCKET},
    {Z_COPY_MEM, "Z_COPY_MEM", REALM_SHADOW_MEM_ZERO_COPY},
    {GPU_FB_MEM, "GPU_FB_MEM", REALM_SHADOW_MEM_FRAMEBUFFER},
    {DISK_MEM, "DISK_MEM", REALM_SHADOW_MEM_DISK},
    {HDF_MEM, "HDF_MEM", REALM_SHADOW_MEM_DISK},
    {FILE_MEM, "FILE_MEM", REALM_SHADOW_MEM_DISK},
    {LEVEL3_CACHE, "LEVEL3_CACHE", REALM_SHADOW_MEM_OTHER},
    {LEVEL2_CACHE, "LEVEL2_CACHE", REALM_SHADOW_MEM_OTHER},
    {LEVEL1_CACHE, "LEVEL1_CACHE", REALM_SHADOW_MEM_OTHER},
    {GPU_MANAGED_MEM, "GPU_MANAGED_MEM", REALM_SHADOW_MEM_MANAGED},
    {GPU_DYNAMIC_MEM, "GPU_DYNAMIC_MEM", REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER},
};

TEST(RealmKindTest, RealmNameAndEnumMapToTheSameKind) {
  for (const RealmKindCase& c : kRealmKinds) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(realm_shadow_kind_from_realm_name(c.name), c.ours);
    EXPECT_EQ(realm_shadow_kind_from_realm(c.realm), c.ours);
  }
}

TEST(RealmKindTest, WhatIsNoRealmKindIsOther) {
  for (const char* name : {"SYSTEM_ME", "SYSTEM_MEMX", "system_mem", ""})
    EXPECT_EQ(realm_shadow_kind_from_realm_name(name), REALM_SHADOW_MEM_OTHER)
        << name;
  EXPECT_EQ(realm_shadow_kind_from_realm_name(nullptr), REALM_SHADOW_MEM_OTHER);
  EXPECT_EQ(realm_shadow_kind_from_realm(999), REALM_SHADOW_MEM_OTHER);
  EXPECT_EQ(realm_shadow_kind_from_realm(-1), REALM_SHADOW_MEM_OTHER);
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
  realm_shadow_site_dynamic_fb_allocated(none, kInstA, 0x7f0000200000ull, 1);
  realm_shadow_site_dynamic_fb_failed(none, kInstB, 1);
  realm_shadow_site_dynamic_fb_released(none, kInstA);
  EXPECT_EQ(Take().sequence, 0u);
}

// Realm's names by Memory::Kind value are realm_c.h's order: each name maps
// back to the enumerator with that value.
TEST(RealmKindTest, KindNamesFollowRealmsEnumOrder) {
#define CHECK_NAME(name, desc) \
  EXPECT_STREQ(realm_shadow_realm_kind_name(name), #name);
  REALM_MEMORY_KINDS(CHECK_NAME)
#undef CHECK_NAME
  EXPECT_EQ(realm_shadow_realm_kind_name(-1), nullptr);
  EXPECT_EQ(realm_shadow_realm_kind_name(GPU_DYNAMIC_MEM + 1), nullptr);
}

}  // namespace
}  // namespace realm_shadow
