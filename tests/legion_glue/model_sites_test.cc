// The Realm-site helpers against the model memory (realm_shadow/model/), the
// Realm-semantics oracle.  Each test drives a ModelMemory, which reports
// through the raw hooks at Realm's sites, and replays what Realm does at
// each site through the legion_glue helpers into a second tracked memory,
// taking offsets and results from the model.  The two pictures must be the
// same, and both must match the model's own heap.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "legion_glue/pools.h"
#include "legion_glue/realm_hooks.h"
#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/model/model_memory.h"
#include "realm_shadow/recorder/tracker.h"

namespace realm_shadow {
namespace {

using model::AllocationResult;
using model::CreateResult;
using model::ModelMemory;

constexpr uint64_t kModelMem = 0x1e00000000000000ull;
constexpr uint64_t kSiteMem = 0x1e00000000000001ull;

// What must agree between two pictures: every live allocation's instance,
// range and state; every pending request; every failure.
using LiveKey = std::tuple<uint64_t, uint64_t, uint64_t, int>;
std::vector<LiveKey> Live(const Snapshot& s) {
  std::vector<LiveKey> out;
  for (const Allocation& a : s.allocations)
    out.emplace_back(a.instance, a.offset, a.size, static_cast<int>(a.state));
  return out;
}
std::vector<std::pair<uint64_t, uint64_t>> Pending(const Snapshot& s) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const PendingRequest& p : s.pending)
    out.emplace_back(p.instance, p.planned_offset);
  return out;
}
std::vector<std::pair<uint64_t, bool>> Failures(const Snapshot& s) {
  std::vector<std::pair<uint64_t, bool>> out;
  for (const Failure& f : s.failures) out.emplace_back(f.instance, f.eventual);
  return out;
}

class ModelSitesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetTrackerForTesting();
    model_ = std::make_unique<ModelMemory>(kModelMem, REALM_SHADOW_MEM_SYSTEM,
                                           1024, "model sysmem");
    site_ = realm_shadow_site_register_managed_memory(
        kSiteMem, REALM_SHADOW_MEM_SYSTEM, 1024, "site sysmem", 0);
    ASSERT_NE(model_->shadow_handle(), nullptr);
    ASSERT_NE(site_, nullptr);
  }
  void TearDown() override {
    model_.reset();
    legion::Pools().Clear();
    ResetTrackerForTesting();
  }

  // The helper's calls at attempt_deferrable_allocation, fed the model's
  // answer.
  CreateResult Create(uint64_t size) {
    const CreateResult r = model_->Create(size, 32);
    realm_shadow_site_attempt_deferrable_allocation(
        site_, r.instance, size, 32, static_cast<int>(r.result), r.offset);
    return r;
  }

  // Both pictures agree, with each other and with the model's heap.
  void ExpectSamePicture(const char* where) {
    SCOPED_TRACE(where);
    const Snapshot m = TakeSnapshot(model_->shadow_handle());
    const Snapshot s = TakeSnapshot(site_);
    EXPECT_EQ(Live(m), Live(s));
    EXPECT_EQ(Pending(m), Pending(s));
    EXPECT_EQ(Failures(m), Failures(s));
    EXPECT_TRUE(s.anomalies.empty());
    EXPECT_TRUE(m.anomalies.empty());
    for (const Allocation& a : s.allocations) {
      const auto offset = model_->Offset(a.instance);
      ASSERT_TRUE(offset.has_value()) << std::hex << a.instance;
      EXPECT_EQ(*offset, a.offset);
    }
    EXPECT_EQ(Summarize(s).total_free, model_->free_bytes());
    EXPECT_EQ(Summarize(s).largest_hole, model_->largest_free());
  }

  std::unique_ptr<ModelMemory> model_;
  realm_shadow_memory* site_ = nullptr;
};

TEST_F(ModelSitesTest, DeferredAllocationIsPlacedWhenItsReleaseHappens) {
  const CreateResult a = Create(512);
  const CreateResult b = Create(512);
  ASSERT_EQ(a.result, AllocationResult::kInstantSuccess);
  ASSERT_EQ(b.result, AllocationResult::kInstantSuccess);
  const model::Event e = model_->NewEvent();
  ASSERT_TRUE(model_->Destroy(a.instance, e));
  realm_shadow_site_release_queued(site_, a.instance, 0);
  const CreateResult c = Create(256);
  ASSERT_EQ(c.result, AllocationResult::kDeferred);
  EXPECT_EQ(c.offset, 0u);  // planned in the future heap, where A was
  ExpectSamePicture("deferred");

  // release_storage_immediate: A is the oldest pending release, so the
  // catch-up loop applies it and places C.
  ASSERT_TRUE(model_->Trigger(e));
  realm_shadow_site_release_applied(site_, a.instance);
  realm_shadow_site_deferred_placed(site_, c.instance, *model_->Offset(c.instance));
  ExpectSamePicture("placed");
  EXPECT_EQ(model_->outcome_count(AllocationResult::kEventualSuccess), 1u);
}

TEST_F(ModelSitesTest, PoisonedReleaseFailsTheRequestThatCountedOnIt) {
  const CreateResult a = Create(512);
  Create(512);
  const model::Event e = model_->NewEvent();
  ASSERT_TRUE(model_->Destroy(a.instance, e));
  realm_shadow_site_release_queued(site_, a.instance, 0);
  const CreateResult c = Create(512);
  ASSERT_EQ(c.result, AllocationResult::kDeferred);
  ASSERT_TRUE(model_->Poison(e));
  // remove_pending_release rewrote the future without A's release: C no
  // longer fits and fails (ALLOC_EVENTUAL_FAILURE).
  realm_shadow_site_eventual_failure(site_, c.instance);
  // ... and A's release will not happen: A is live again.
  realm_shadow_site_release_cancelled(site_, a.instance);
  EXPECT_EQ(model_->outcome_count(AllocationResult::kEventualFailure), 1u);
  ExpectSamePicture("eventual failure");
  const Snapshot s = TakeSnapshot(site_);
  EXPECT_EQ(s.allocations.at(0).state, AllocationState::kLive);
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_TRUE(s.failures[0].eventual);
  EXPECT_EQ(s.failures[0].size, 512u);
}

TEST_F(ModelSitesTest, ReadyReleaseIsReorderedAheadOfAnOlderOne) {
  const CreateResult a = Create(256);
  const CreateResult b = Create(256);
  Create(512);
  const model::Event e1 = model_->NewEvent();
  const model::Event e2 = model_->NewEvent();
  ASSERT_TRUE(model_->Destroy(a.instance, e1));
  realm_shadow_site_release_queued(site_, a.instance, 0);
  ASSERT_TRUE(model_->Destroy(b.instance, e2));
  realm_shadow_site_release_queued(site_, b.instance, 0);
  const CreateResult c = Create(256);
  ASSERT_EQ(c.result, AllocationResult::kDeferred);
  EXPECT_EQ(c.offset, 0u);
  ExpectSamePicture("two releases pending");

  // B's release is ready but A's is older: release_storage_immediate marks
  // B ready, and attempt_release_reordering finds C fits in the release
  // heap, swaps it in, and places C where B was, not where it was planned.
  ASSERT_TRUE(model_->Trigger(e2));
  realm_shadow_site_release_ready(site_, b.instance);
  realm_shadow_site_reordered_release(site_, b.instance);
  const auto placed = model_->Offset(c.instance);
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(*placed, 256u);
  realm_shadow_site_deferred_placed(site_, c.instance, *placed);
  ExpectSamePicture("reordered");

  ASSERT_TRUE(model_->Trigger(e1));
  realm_shadow_site_release_applied(site_, a.instance);
  ExpectSamePicture("older release applied");
}

TEST_F(ModelSitesTest, ImmediateRedistrictPlacesWhatFitsAndFailsTheRest) {
  const CreateResult a = Create(512);
  Create(512);
  const model::RedistrictResult r =
      model_->Redistrict(a.instance, {{256, 32}, {128, 32}, {256, 32}});
  ASSERT_TRUE(r.done);
  ASSERT_EQ(r.instances.size(), 3u);
  EXPECT_EQ(r.placed, 2u);
  std::vector<realm_shadow_piece> pieces;
  const uint64_t sizes[3] = {256, 128, 256};
  for (size_t i = 0; i < 3; ++i) {
    const auto off = model_->Offset(r.instances[i]);
    pieces.push_back({r.instances[i], off ? *off : 0, sizes[i], 32});
  }
  realm_shadow_site_redistrict_applied(site_, a.instance, 3,
                                       static_cast<uint32_t>(r.placed),
                                       pieces.data());
  ExpectSamePicture("redistricted");
  EXPECT_EQ(TakeSnapshot(site_).failures.size(), 1u);
}

TEST_F(ModelSitesTest, DeferredRedistrictWaitsThenLandsInPlace) {
  const CreateResult a = Create(512);
  Create(512);
  const model::Event e = model_->NewEvent();
  const model::RedistrictResult r =
      model_->Redistrict(a.instance, {{128, 32}, {128, 32}}, e);
  ASSERT_FALSE(r.done);
  std::vector<realm_shadow_piece> pieces = {{r.instances[0], 0, 128, 32},
                                            {r.instances[1], 0, 128, 32}};
  realm_shadow_site_redistrict_queued(site_, a.instance, 2, pieces.data(), 0);
  ExpectSamePicture("redistrict queued");

  ASSERT_TRUE(model_->Trigger(e));
  for (realm_shadow_piece& p : pieces) p.offset = *model_->Offset(p.instance);
  realm_shadow_site_queued_redistrict_applied(site_, a.instance, 2, 2,
                                              pieces.data());
  ExpectSamePicture("redistrict applied");
  EXPECT_EQ(TakeSnapshot(site_).allocations.size(), 3u);
}

TEST_F(ModelSitesTest, ReusedInstanceIdsAreNewAllocations) {
  const CreateResult a = Create(256);
  ASSERT_TRUE(model_->Destroy(a.instance));
  realm_shadow_site_release_applied(site_, a.instance);
  Create(128);  // takes [0,128)
  const CreateResult again = Create(256);
  EXPECT_EQ(model_->MakeInstanceId(0), a.instance);
  // Realm reuses the most recently freed index first.
  const Snapshot s = TakeSnapshot(site_);
  EXPECT_EQ(s.allocations.size(), 2u);
  EXPECT_TRUE(s.anomalies.empty());
  EXPECT_NE(again.instance, 0u);
  ExpectSamePicture("reused ids");
}

// The outcome sites (notify_allocation / notify_deallocation) against the
// model's outcome observer, over a seeded random workload with no deferred
// work: the picture equals the heap sites'.
TEST_F(ModelSitesTest, OutcomeSitesAgreeWithoutDeferredWork) {
  uint64_t next_size = 0;
  std::map<uint64_t, uint64_t> size_of;
  model_->set_outcome_observer([&](uint64_t instance, AllocationResult result,
                                   uint64_t offset) {
    realm_shadow_site_notify_allocation(site_, instance,
                                        static_cast<int>(result), offset,
                                        next_size, 32);
    if (result == AllocationResult::kInstantSuccess) size_of[instance] = next_size;
  });
  uint64_t state = 12345;
  auto next = [&state]() {  // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::vector<uint64_t> live;
  uint64_t failures = 0;
  for (int step = 0; step < 400; ++step) {
    if (live.empty() || next() % 3 != 0) {
      next_size = 32 * (1 + next() % 6);
      const CreateResult r = model_->Create(next_size, 32);
      if (r.result == AllocationResult::kInstantSuccess) live.push_back(r.instance);
      else ++failures;
    } else {
      const size_t i = next() % live.size();
      ASSERT_TRUE(model_->Destroy(live[i]));
      realm_shadow_site_notify_deallocation(site_, live[i]);
      live.erase(live.begin() + i);
    }
  }
  EXPECT_GT(failures, 0u);  // the memory filled: failures were exercised
  const Snapshot m = TakeSnapshot(model_->shadow_handle());
  const Snapshot s = TakeSnapshot(site_);
  EXPECT_EQ(Live(m), Live(s));
  EXPECT_EQ(s.counters.failures, failures);
  EXPECT_EQ(m.counters.failures, failures);
  EXPECT_TRUE(s.anomalies.empty());
}

TEST_F(ModelSitesTest, PoolBackingFromTheModelNestsItsSubAllocations) {
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
