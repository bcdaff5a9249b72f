// tests/gpu/gpu_test_util.h - what every GPU test shares: skipping when no
// device is usable, and comparing a snapshot with what a CUDA-backed memory
// says it holds.
#ifndef REALM_SHADOW_TESTS_GPU_GPU_TEST_UTIL_H_
#define REALM_SHADOW_TESTS_GPU_GPU_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/cuda_device.h"
#include "gpu/gpu_allocation.h"
#include "gpu/pattern.h"
#include "realm_shadow/core/snapshot.h"

namespace realm_shadow {
namespace gpu {
namespace testing {

// Asked once per process: cudaGetDeviceCount is slow the first time (it
// loads the driver) and its answer does not change.
inline bool GpuAvailable(std::string* why) {
  static std::string reason;
  static const int count = CudaDeviceCount(&reason);
  if (why) *why = reason;
  return count > 0;
}

}  // namespace testing
}  // namespace gpu
}  // namespace realm_shadow

// Skips the calling test, with the reason, when no CUDA device is usable.
#define REALM_SHADOW_REQUIRE_GPU()                                         \
  do {                                                                     \
    std::string no_gpu_reason;                                             \
    if (!::realm_shadow::gpu::testing::GpuAvailable(&no_gpu_reason)) {     \
      GTEST_SKIP() << "no usable CUDA device (" << no_gpu_reason << ")";   \
    }                                                                      \
  } while (0)

namespace realm_shadow {
namespace gpu {
namespace testing {

// The snapshot's live allocations are exactly `live` (same instances,
// offsets and sizes; both sorted by offset then instance), none overlaps
// another, and the picture has no anomaly.
inline void ExpectSnapshotMatches(const Snapshot& snapshot,
                                  const std::vector<GpuAllocation>& live) {
  ASSERT_EQ(snapshot.allocations.size(), live.size());
  for (size_t i = 0; i < live.size(); ++i) {
    const Allocation& a = snapshot.allocations[i];
    EXPECT_EQ(a.instance, live[i].instance) << "at " << i;
    EXPECT_EQ(a.offset, live[i].offset) << "instance " << live[i].instance;
    EXPECT_EQ(a.size, live[i].size) << "instance " << live[i].instance;
  }
  uint64_t end = 0;
  for (const Allocation& a : snapshot.allocations) {
    if (a.size == 0) continue;
    EXPECT_GE(a.offset, end) << "instance " << a.instance << " overlaps";
    end = a.end();
  }
  EXPECT_TRUE(snapshot.anomalies.empty())
      << snapshot.anomalies.size() << " anomalies, first "
      << AnomalyKindName(snapshot.anomalies.front().kind) << " on instance "
      << snapshot.anomalies.front().instance;
  EXPECT_TRUE(snapshot.exact);
}

// Fills every allocation with its own pattern, then checks every one: a
// shared byte, or a range the device cannot reach, shows as a mismatch.
inline void FillAndVerify(const std::vector<GpuAllocation>& live) {
  std::string error;
  for (const GpuAllocation& a : live) {
    ASSERT_TRUE(FillPattern(a.device_pointer, a.size, a.instance, &error))
        << error;
  }
  for (const GpuAllocation& a : live) {
    uint64_t mismatches = 0;
    ASSERT_TRUE(CountPatternMismatches(a.device_pointer, a.size, a.instance,
                                       &mismatches, &error))
        << error;
    EXPECT_EQ(mismatches, 0u) << "instance " << a.instance << " ("
                              << a.size << " bytes at offset " << a.offset
                              << ")";
  }
}

}  // namespace testing
}  // namespace gpu
}  // namespace realm_shadow

#endif  // REALM_SHADOW_TESTS_GPU_GPU_TEST_UTIL_H_
