// Tests of internal::BoundaryMap: random lookups, settings and erasures
// checked against a std::map of the same operations, on keys that crowd a
// few home slots (so that runs wrap around the array's end and erasures
// shift entries back) and on the key that marks an empty slot.
#include "model/internal/boundary_map.h"

#include <cstdint>
#include <map>
#include <random>

#include "gtest/gtest.h"

namespace realm_shadow::model::internal {
namespace {

void ExpectSame(const BoundaryMap& m, const std::map<uint64_t, uint64_t>& ref) {
  ASSERT_EQ(m.size(), ref.size());
  for (const auto& [key, value] : ref) {
    const uint64_t* found = m.Find(key);
    ASSERT_NE(found, nullptr) << key;
    EXPECT_EQ(*found, value) << key;
  }
  std::map<uint64_t, uint64_t> seen;
  m.ForEach([&](uint64_t key, uint64_t value) {
    EXPECT_TRUE(seen.emplace(key, value).second) << "key " << key << " twice";
  });
  EXPECT_EQ(seen, ref);
}

TEST(BoundaryMap, MatchesAMapUnderRandomChurn) {
  // Three key spaces: addresses as the placements see them (multiples of
  // 256), a handful of keys (long runs of one home slot once the array is
  // small), and the extremes, UINT64_MAX (the empty marker) and 0.
  for (const int space : {0, 1, 2}) {
    std::mt19937_64 rng(7 + space);
    BoundaryMap m;
    std::map<uint64_t, uint64_t> ref;
    auto key = [&]() -> uint64_t {
      switch (space) {
        case 0: return (rng() % 4096) * 256;
        case 1: return rng() % 40;
        default: {
          const uint64_t k[] = {0, 1, UINT64_MAX, UINT64_MAX - 1, uint64_t{1} << 63};
          return k[rng() % 5];
        }
      }
    };
    for (int op = 0; op < 200000; ++op) {
      const uint64_t k = key();
      switch (rng() % 3) {
        case 0: {
          const uint64_t v = rng();
          m.Set(k, v);
          ref[k] = v;
          break;
        }
        case 1:
          EXPECT_EQ(m.Erase(k), ref.erase(k) == 1) << k;
          break;
        default: {
          const uint64_t* found = m.Find(k);
          const auto it = ref.find(k);
          ASSERT_EQ(found != nullptr, it != ref.end()) << k;
          if (found) EXPECT_EQ(*found, it->second) << k;
        }
      }
      if (op % 20000 == 0) ExpectSame(m, ref);
    }
    ExpectSame(m, ref);
    // Emptied by erasures alone, every key is gone.
    for (const auto& [k, v] : std::map<uint64_t, uint64_t>(ref)) EXPECT_TRUE(m.Erase(k));
    EXPECT_TRUE(m.empty());
    EXPECT_EQ(m.Find(0), nullptr);
    EXPECT_EQ(m.Find(UINT64_MAX), nullptr);
  }
}

TEST(BoundaryMap, SetReplacesInPlaceAndCopiesAreIndependent) {
  BoundaryMap m;
  m.Set(256, 512);
  m.Set(256, 1024);
  EXPECT_EQ(m.size(), 1u);
  ASSERT_NE(m.Find(256), nullptr);
  EXPECT_EQ(*m.Find(256), 1024u);
  BoundaryMap copy = m;
  copy.Erase(256);
  copy.Set(768, 1);
  EXPECT_EQ(*m.Find(256), 1024u);
  EXPECT_EQ(m.Find(768), nullptr);
  m.Clear();
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.Find(256), nullptr);
  m.Set(256, 2);  // usable after Clear
  EXPECT_EQ(*m.Find(256), 2u);
}

}  // namespace
}  // namespace realm_shadow::model::internal
