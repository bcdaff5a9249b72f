// SortedRuns against std::map under random inserts and erases (splits and
// merges of runs included).
#include "realm_shadow/analysis/internal/sorted_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

namespace realm_shadow {
namespace {

TEST(SortedRuns, MatchesStdMapUnderRandomInsertsAndErases) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    SortedRuns runs;
    std::map<std::pair<uint64_t, uint64_t>, uint64_t> model;
    for (int step = 0; step < 60000; ++step) {
      const uint64_t offset = rng() % 5000;
      const uint64_t instance = rng() % 4;
      const bool insert = (rng() % 100) < (step < 30000 ? 70 : 30);
      if (insert) {
        Allocation a;
        a.offset = offset;
        a.instance = instance;
        a.size = rng() % 100;
        const bool fresh = model.emplace(std::make_pair(offset, instance), a.size).second;
        ASSERT_EQ(runs.Insert(a), fresh);
      } else {
        Allocation out;
        const bool present = model.erase({offset, instance}) > 0;
        ASSERT_EQ(runs.Erase({offset, instance}, &out), present);
      }
      ASSERT_EQ(runs.size(), model.size());
      if (step % 5000 == 0 || step == 59999) {
        std::vector<Allocation> copy;
        runs.CopyTo(&copy);
        ASSERT_EQ(copy.size(), model.size());
        size_t i = 0;
        for (const auto& [key, size] : model) {
          ASSERT_EQ(copy[i].offset, key.first);
          ASSERT_EQ(copy[i].instance, key.second);
          ASSERT_EQ(copy[i].size, size);
          ++i;
        }
      }
    }
  }
}

TEST(SortedRuns, NeighboursAcrossRunBoundaries) {
  SortedRuns runs;
  for (uint64_t i = 0; i < 1000; ++i) {
    Allocation a;
    a.offset = i * 10;
    a.instance = i;
    ASSERT_TRUE(runs.Insert(a));
  }
  for (uint64_t i = 1; i < 999; ++i) {
    const Allocation* before = runs.Predecessor({i * 10, i});
    const Allocation* after = runs.Successor({i * 10, i});
    ASSERT_NE(before, nullptr);
    ASSERT_NE(after, nullptr);
    EXPECT_EQ(before->instance, i - 1);
    EXPECT_EQ(after->instance, i + 1);
  }
  EXPECT_EQ(runs.Predecessor({0, 0}), nullptr);
  EXPECT_EQ(runs.Successor({9990, 999}), nullptr);
  EXPECT_NE(runs.Find({500, 50}), nullptr);
  EXPECT_EQ(runs.Find({501, 50}), nullptr);
}

// A memory filled in address order (either direction) packs its runs full,
// which is what keeps a snapshot to few, long memcpys; random order splits
// in halves.  Before/After from an insert's location walk every record.
TEST(SortedRuns, InOrderFillsKeepRunsFullAndLocationsWalkAllRecords) {
  constexpr uint64_t kCount = 100000;
  const size_t full_runs =
      (kCount + SortedRuns::kRunCapacity - 1) / SortedRuns::kRunCapacity;
  for (const bool ascending : {true, false}) {
    SCOPED_TRACE(ascending ? "ascending" : "descending");
    SortedRuns runs;
    SortedRuns::Location last{};
    for (uint64_t i = 0; i < kCount; ++i) {
      Allocation a;
      a.offset = (ascending ? i : kCount - 1 - i) * 64;
      a.instance = i;
      ASSERT_TRUE(runs.Insert(a, &last));
    }
    EXPECT_EQ(runs.run_count(), full_runs);
    // From the last insert (the end or the start), walk the whole map.
    size_t seen = 1;
    SortedRuns::Location at = last;
    uint64_t previous = ascending ? (kCount - 1) * 64 : 0;
    while (const Allocation* next = ascending ? runs.Before(&at) : runs.After(&at)) {
      ASSERT_TRUE(ascending ? next->offset < previous : next->offset > previous);
      previous = next->offset;
      ++seen;
    }
    EXPECT_EQ(seen, kCount);
  }
  SortedRuns shuffled;
  std::mt19937_64 rng(7);
  std::vector<uint64_t> order(kCount);
  for (uint64_t i = 0; i < kCount; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (uint64_t i : order) {
    Allocation a;
    a.offset = i * 64;
    a.instance = i;
    SortedRuns::Location at;
    ASSERT_TRUE(shuffled.Insert(a, &at));
    // The location names the record just inserted, and its neighbours are
    // the predecessor and successor a search finds.
    SortedRuns::Location back = at, forward = at;
    EXPECT_EQ(shuffled.Before(&back), shuffled.Predecessor({a.offset, i}));
    EXPECT_EQ(shuffled.After(&forward), shuffled.Successor({a.offset, i}));
  }
  EXPECT_GT(shuffled.run_count(), full_runs);
}

}  // namespace
}  // namespace realm_shadow
