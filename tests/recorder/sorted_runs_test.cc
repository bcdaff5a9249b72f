// SortedRuns against std::map under random inserts and erases (splits and
// merges of runs included).
#include "realm_shadow/recorder/sorted_runs.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

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

}  // namespace
}  // namespace realm_shadow
