// Pools on the model memory (model/), Realm's stand-in: a
// bounded pool's backing is one allocation the model places; its
// sub-allocations nest in it without changing the memory's free space.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "legion_glue/pools.h"
#include "realm_shadow/analysis/analysis.h"
#include "model/model_memory.h"
#include "realm_shadow/live/snapshots.h"

namespace realm_shadow {
namespace {

using model::AllocationResult;
using model::CreateResult;
using model::ModelMemory;

constexpr uint64_t kModelMem = 0x1e00000000000000ull;

class ModelPoolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetTrackerForTesting();
    model_ = std::make_unique<ModelMemory>(kModelMem, REALM_SHADOW_MEM_SYSTEM,
                                           1024, "model sysmem");
    ASSERT_NE(model_->shadow_handle(), nullptr);
  }
  void TearDown() override {
    model_.reset();
    legion::Pools().Clear();
    ResetTrackerForTesting();
  }
  CreateResult Create(uint64_t size) { return model_->Create(size, 32); }

  std::unique_ptr<ModelMemory> model_;
};

TEST_F(ModelPoolsTest, PoolBackingFromTheModelNestsItsSubAllocations) {
  const CreateResult backing = Create(512);
  ASSERT_EQ(backing.result, AllocationResult::kInstantSuccess);
  ASSERT_TRUE(legion::Pools().DeclarePool(model_->shadow_handle(),
                                          backing.instance, backing.instance,
                                          backing.offset, 512));
  ASSERT_TRUE(legion::Pools().AddSubAllocation(backing.instance, 77, 0, 100));
  ASSERT_TRUE(legion::Pools().AddSubAllocation(backing.instance, 78, 128, 200));
  const Snapshot s = TakeSnapshot(model_->shadow_handle());
  const auto usage = legion::AnalyzePools(s, legion::Pools().PoolsIn(kModelMem));
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_EQ(usage[0].used, 300u);
  EXPECT_EQ(usage[0].unused, 212u);
  EXPECT_TRUE(usage[0].reserved);
  // The memory's free space is the model's, whatever the pool holds.
  EXPECT_EQ(Summarize(s).total_free, model_->free_bytes());
  EXPECT_EQ(Summarize(s).total_free, 512u);
}

}  // namespace
}  // namespace realm_shadow
