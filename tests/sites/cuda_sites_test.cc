// Realm's CUDA memories through the site helpers, on stand-ins shaped like
// Realm's types: the framebuffer, zero-copy and managed memories register
// through LocalManagedMemory's constructor site with their own kinds and
// Realm's names, and their heaps are observed like any managed memory's; the
// dynamic framebuffer has its own three sites (registration with its cap,
// allocation at the device pointer, release), and its failures are recorded
// once, by notify_allocation's site.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/realm_sites.h"
#include "tests/sites/realm_shaped_heap.h"
#include "tests/sites/realm_stand_ins.h"

namespace realm_shadow {
namespace {

using testing::FakeInstance;
using testing::FakeInstanceImpl;
using testing::FakeLayout;
using testing::FakeMemory;
using testing::RealmShapedHeap;

// A Memory::Kind is checked against Realm's order where a site passes one;
// a plain integer (the tests' SYSTEM_MEM elsewhere) is not.
static_assert(site::RealmKindOrder<FakeMemory::Kind>::kChecked, "");
static_assert(!site::RealmKindOrder<int>::kChecked, "");

constexpr uint64_t kFb = 0x1e00000000000001ull;
constexpr uint64_t kZc = 0x1e00000000000002ull;
constexpr uint64_t kUvm = 0x1e00000000000003ull;
constexpr uint64_t kDynFb = 0x1e00000000000004ull;
constexpr uint64_t kMiB = uint64_t{1} << 20;

FakeInstance I(uint64_t n) { return FakeInstance{0x4000000000000000ull + n}; }

class CudaSitesTest : public ::testing::Test {
 protected:
  void SetUp() override { ResetTrackerForTesting(); }
  void TearDown() override { ResetTrackerForTesting(); }
  FakeInstanceImpl Inst(uint64_t n, uint64_t memory, uint64_t bytes,
                        uint64_t alignment) {
    layouts_.push_back(
        std::make_unique<FakeLayout>(FakeLayout{bytes, alignment}));
    FakeInstanceImpl inst;
    inst.me = I(n);
    inst.memory.id = memory;
    inst.metadata.layout = layouts_.back().get();
    return inst;
  }
  std::vector<std::unique_ptr<FakeLayout>> layouts_;
};

TEST_F(CudaSitesTest, GpuManagedMemoriesRegisterWithTheirKindsAndNames) {
  // GPUFBMemory and GPUZCMemory call LocalManagedMemory's constructor with
  // GPU_FB_MEM, Z_COPY_MEM or GPU_MANAGED_MEM; its site does the rest.
  struct Case {
    uint64_t id;
    FakeMemory::Kind kind;
    MemoryKind expected;
    const char* name;
  };
  const Case cases[] = {
      {kFb, FakeMemory::GPU_FB_MEM, MemoryKind::kFramebuffer, "GPU_FB_MEM"},
      {kZc, FakeMemory::Z_COPY_MEM, MemoryKind::kZeroCopy, "Z_COPY_MEM"},
      {kUvm, FakeMemory::GPU_MANAGED_MEM, MemoryKind::kManaged,
       "GPU_MANAGED_MEM"}};
  for (const Case& c : cases) {
    RealmShapedHeap current(64 * kMiB), future(64 * kMiB);
    site::ObserveManagedMemory(FakeMemory{c.id}, c.kind, 64 * kMiB, current,
                               future);
    ASSERT_TRUE(current.shadow_observer.observed()) << c.name;
    // A framebuffer's offsets are from its block's base, as Realm's heap
    // gives them (alignment 512 for GPUFBMemory, 256 for GPUZCMemory).
    uint64_t at = 0;
    ASSERT_TRUE(current.allocate(I(1), 3 * kMiB, 512, at));
    ASSERT_TRUE(current.allocate(I(2), kMiB, 512, at));
    current.deallocate(I(1));
    const Snapshot s = TakeSnapshot(current.shadow_observer.memory());
    EXPECT_EQ(s.memory_id, c.id);
    EXPECT_EQ(s.kind, c.expected) << c.name;
    EXPECT_EQ(s.name, c.name);
    EXPECT_EQ(s.capacity, 64 * kMiB);
    EXPECT_FALSE(s.addressed);
    ASSERT_EQ(s.allocations.size(), 1u) << c.name;
    EXPECT_EQ(s.allocations[0].instance, I(2).id);
    EXPECT_EQ(s.allocations[0].offset, 3 * kMiB);
    EXPECT_TRUE(s.anomalies.empty()) << c.name;
  }
}

TEST_F(CudaSitesTest, DynamicFramebufferRegistersWithItsCap) {
  site::DynamicFramebufferShadow shadow;
  site::ObserveDynamicFramebuffer(shadow, FakeMemory{kDynFb}, 96 * kMiB);
  ASSERT_NE(shadow.memory, nullptr);
  const Snapshot s = TakeSnapshot(shadow.memory);
  EXPECT_EQ(s.memory_id, kDynFb);
  EXPECT_EQ(s.kind, MemoryKind::kDynamicFramebuffer);
  EXPECT_EQ(s.name, "GPU_DYNAMIC_MEM");
  EXPECT_EQ(s.capacity, 96 * kMiB);
  EXPECT_TRUE(s.addressed);
}

TEST_F(CudaSitesTest, DynamicFramebufferAllocationsSitAtTheirDevicePointers) {
  site::DynamicFramebufferShadow shadow;
  site::ObserveDynamicFramebuffer(shadow, FakeMemory{kDynFb}, 96 * kMiB);
  FakeInstanceImpl a = Inst(1, kDynFb, 40 * kMiB, 128);
  FakeInstanceImpl b = Inst(2, kDynFb, 20 * kMiB, 256);
  FakeInstanceImpl c = Inst(3, kDynFb, 0, 16);  // zero bytes: pointer 0
  const uint64_t pa = 0x7f3a00000000ull, pb = 0x7f3a02800000ull;
  site::DynamicFramebufferAllocated(shadow, &a, pa, a.metadata.layout->bytes_used);
  site::DynamicFramebufferAllocated(shadow, &b, pb, b.metadata.layout->bytes_used);
  site::DynamicFramebufferAllocated(shadow, &c, uint64_t{0}, size_t{0});
  Snapshot s = TakeSnapshot(shadow.memory);
  ASSERT_EQ(s.allocations.size(), 3u);
  for (const Allocation& x : s.allocations) {
    if (x.instance == a.me.id) {
      EXPECT_EQ(x.offset, pa);
      EXPECT_EQ(x.size, 40 * kMiB);
    } else if (x.instance == b.me.id) {
      EXPECT_EQ(x.offset, pb);
    } else {
      EXPECT_EQ(x.instance, c.me.id);
      EXPECT_EQ(x.size, 0u);
    }
  }
  EXPECT_EQ(Summarize(s).total_free, 36 * kMiB);  // the cap less what is used
  // Released before cuMemFree: CUDA may give the pointer to the next one.
  site::DynamicFramebufferReleased(shadow, &a);
  FakeInstanceImpl d = Inst(4, kDynFb, 30 * kMiB, 128);
  site::DynamicFramebufferAllocated(shadow, &d, pa, d.metadata.layout->bytes_used);
  s = TakeSnapshot(shadow.memory);
  EXPECT_EQ(s.allocations.size(), 3u);
  EXPECT_TRUE(s.anomalies.empty());
  EXPECT_EQ(Summarize(s).total_free, 46 * kMiB);
}

TEST_F(CudaSitesTest, DynamicFramebufferFailureIsRecordedOnceWithItsSize) {
  // Over the cap: Realm answers notify_allocation(ALLOC_INSTANT_FAILURE),
  // whose site records the failure; the memory has no failure site.
  site::DynamicFramebufferShadow shadow;
  site::ObserveDynamicFramebuffer(shadow, FakeMemory{kDynFb}, 64 * kMiB);
  FakeInstanceImpl a = Inst(1, kDynFb, 48 * kMiB, 128);
  FakeInstanceImpl b = Inst(2, kDynFb, 32 * kMiB, 128);
  site::DynamicFramebufferAllocated(shadow, &a, uint64_t{0x7f0000000000ull},
                                    a.metadata.layout->bytes_used);
  site::AllocationOutcome(b, REALM_SHADOW_ALLOC_INSTANT_FAILURE);
  const Snapshot s = TakeSnapshot(shadow.memory);
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].instance, b.me.id);
  EXPECT_EQ(s.failures[0].size, 32 * kMiB);
  EXPECT_EQ(ClassifyRequest(s, 32 * kMiB, 128), FailureCause::kExhaustion);
  // Releasing the one allocation is what would make room.
  const BlockerWindow w = FindBlockers(s, 32 * kMiB, 128);
  ASSERT_TRUE(w.found);
  ASSERT_EQ(w.blockers.size(), 1u);
  EXPECT_EQ(w.blockers[0].instance, a.me.id);
}

TEST_F(CudaSitesTest, UntrackedDynamicFramebufferDoesNothing) {
  site::DynamicFramebufferShadow shadow;  // never registered (REALM_SHADOW=0)
  FakeInstanceImpl a = Inst(1, kDynFb, kMiB, 128);
  site::DynamicFramebufferAllocated(shadow, &a, uint64_t{0x7f0000000000ull},
                                    size_t{kMiB});
  site::DynamicFramebufferReleased(shadow, &a);
  site::DynamicFramebufferAllocated(shadow, static_cast<FakeInstanceImpl*>(nullptr),
                                    uint64_t{1}, size_t{1});
  EXPECT_EQ(realm_shadow_find_memory(kDynFb), nullptr);
}

}  // namespace
}  // namespace realm_shadow
