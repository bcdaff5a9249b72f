// tests/analysis/snapshot_builder.h - small Snapshots written by hand or drawn
// at random, for the analysis and diff tests.
#ifndef REALM_SHADOW_TESTS_ANALYSIS_SNAPSHOT_BUILDER_H_
#define REALM_SHADOW_TESTS_ANALYSIS_SNAPSHOT_BUILDER_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/numbers.h"
#include "realm_shadow/core/snapshot.h"

namespace realm_shadow::testing {

// Randomized tests start from BaseSeed() and use seed base + round for each
// round, printing it on failure.  REALM_SHADOW_SEED=<printed seed> replays a
// failure as round 0; REALM_SHADOW_ROUND_SCALE=<k> runs k times the rounds
// (a longer soak).
inline uint64_t BaseSeed() {
  if (const char* seed = std::getenv("REALM_SHADOW_SEED")) {
    uint64_t value = 0;
    if (absl::SimpleAtoi(seed, &value)) return value;
    std::fprintf(stderr, "REALM_SHADOW_SEED=%s is not a number; a random seed instead\n", seed);
  }
  return std::random_device{}();
}

inline int Rounds(int rounds) {
  if (const char* scale = std::getenv("REALM_SHADOW_ROUND_SCALE")) {
    int k = 0;
    if (absl::SimpleAtoi(scale, &k) && k > 0) return rounds * k;
    std::fprintf(stderr, "REALM_SHADOW_ROUND_SCALE=%s is not a positive count; 1\n", scale);
  }
  return rounds;
}

// Runs round(seed, rng) for `rounds` seeds from BaseSeed(), each with its
// generator and a SCOPED_TRACE naming the seed, and stops after the first
// round that fails: the seed printed is the one to replay.
template <typename Round>
void ForEachSeed(int rounds, Round round) {
  const uint64_t base_seed = BaseSeed();
  for (int r = 0; r < rounds; ++r) {
    const uint64_t seed = base_seed + r;
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    round(seed, rng);
    if (::testing::Test::HasFailure()) return;
  }
}

inline Allocation Alloc(uint64_t offset, uint64_t size, uint64_t instance,
                        bool pinned = false) {
  Allocation a{offset, size, instance};
  if (pinned) a.flags |= kPinned;
  return a;
}

inline void SortAllocations(std::vector<Allocation>& allocations) {
  std::sort(allocations.begin(), allocations.end(),
            [](const Allocation& x, const Allocation& y) {
              return std::tie(x.offset, x.instance) <
                     std::tie(y.offset, y.instance);
            });
}

inline Snapshot MakeSnapshot(uint64_t capacity,
                             std::vector<Allocation> allocations) {
  Snapshot s;
  s.memory_id = 1;
  s.kind = MemoryKind::kSystem;
  s.capacity = capacity;
  SortAllocations(allocations);
  s.allocations = std::move(allocations);
  return s;
}

// A random memory of at most `max_capacity` bytes.  Mode 0 places
// allocations left to right without overlap; mode 1 throws them anywhere,
// overlapping and past the capacity (anomalies).  Some are zero-byte, some
// pinned; instance ids are drawn from a small range so that they repeat.
inline Snapshot RandomSnapshot(std::mt19937_64& rng, uint64_t max_capacity,
                               bool allow_overlap) {
  auto pick = [&rng](uint64_t lo, uint64_t hi) {  // inclusive
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  const uint64_t capacity = pick(0, max_capacity);
  const size_t count = pick(0, 24);
  std::vector<Allocation> allocations;
  uint64_t cursor = 0;
  for (size_t k = 0; k < count; ++k) {
    const bool empty = pick(0, 9) == 0;
    const uint64_t instance = pick(1, 40);
    const bool pinned = pick(0, 4) == 0;
    uint64_t offset, size;
    if (allow_overlap) {
      offset = pick(0, capacity + 8);
      size = empty ? 0 : pick(1, std::max<uint64_t>(1, capacity / 3));
    } else {
      const uint64_t gap = pick(0, 3) == 0 ? pick(0, 12) : 0;
      offset = cursor + gap;
      size = empty ? 0 : pick(1, std::max<uint64_t>(1, capacity / 6));
      if (offset + size > capacity) break;
      cursor = offset + size;
    }
    Allocation a = Alloc(offset, size, instance, pinned);
    a.kind = static_cast<AllocationKind>(pick(0, kAllocationKindCount - 1));
    allocations.push_back(a);
  }
  Snapshot s = MakeSnapshot(capacity, std::move(allocations));
  s.capacity_known = pick(0, 5) != 0;
  if (!s.capacity_known) s.capacity = 0;
  return s;
}

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_ANALYSIS_SNAPSHOT_BUILDER_H_
