// Tests of the Legate-like workload: it runs into a failure, and the same
// seed gives the same run.
#include "realm_shadow/model/workload.h"

#include <cstdio>

#include "gtest/gtest.h"
#include "realm_shadow/recorder/tracker.h"

namespace realm_shadow::model {
namespace {

TEST(Workload, RunsUntilAnAllocationFailsDeterministically) {
  ResetTrackerForTesting();
  WorkloadOptions o;
  o.seed = 42;
  const WorkloadResult a = RunWorkload(o);
  ResetTrackerForTesting();
  const WorkloadResult b = RunWorkload(o);
  std::printf("seed 42: steps=%llu creates=%llu deferred=%llu redistricts=%llu "
              "failure=%s size=%llu largest_free=%llu free=%llu\n",
              (unsigned long long)a.steps, (unsigned long long)a.creates,
              (unsigned long long)a.deferred, (unsigned long long)a.redistricts,
              AllocationResultName(a.failure), (unsigned long long)a.failed_size,
              (unsigned long long)a.largest_free_at_failure,
              (unsigned long long)a.free_at_failure);
  EXPECT_TRUE(a.failed);
  EXPECT_GT(a.steps, 10u);
  EXPECT_LT(a.steps, o.max_steps);
  EXPECT_GT(a.failed_size, 0u);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.failed_instance, b.failed_instance);
  EXPECT_EQ(a.failed_size, b.failed_size);
  EXPECT_EQ(a.creates, b.creates);
  EXPECT_GT(a.deferred, 0u);
  EXPECT_GT(a.redistricts, 0u);
  ResetTrackerForTesting();
  o.seed = 43;
  const WorkloadResult c = RunWorkload(o);
  EXPECT_TRUE(c.steps != a.steps || c.failed_size != a.failed_size);
  ResetTrackerForTesting();
}

TEST(Workload, StopsAtMaxSteps) {
  ResetTrackerForTesting();
  WorkloadOptions o;
  o.max_steps = 5;
  Workload w(o);
  const WorkloadResult& r = w.Run();
  EXPECT_EQ(r.steps, 5u);
  EXPECT_FALSE(r.failed);
  // The framebuffer's shadow holds the pool reservation.
  const Snapshot s = TakeSnapshot(w.framebuffer().shadow_handle());
  EXPECT_EQ(s.reservations.size(), 1u);
  ResetTrackerForTesting();
}

}  // namespace
}  // namespace realm_shadow::model
