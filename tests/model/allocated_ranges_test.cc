// Tests of internal::AllocatedRanges: the dense array by slot, and the
// overflow that takes a tag whose slot another tag holds or whose slot lies
// far beyond the live count, checked against a map of the same operations.
#include "model/internal/allocated_ranges.h"

#include <cstdint>
#include <map>
#include <random>

#include "gtest/gtest.h"

namespace realm_shadow::model::internal {
namespace {

using Reference = std::map<uint64_t, AddressRange>;

void ExpectSame(const AllocatedRanges& a, const Reference& ref) {
  ASSERT_EQ(a.size(), ref.size());
  Reference seen;
  for (const auto& [tag, r] : a) {
    EXPECT_TRUE(seen.emplace(tag, r).second) << "tag " << tag << " twice";
  }
  ASSERT_EQ(seen.size(), ref.size());
  for (const auto& [tag, r] : ref) {
    const AddressRange* found = a.Find(tag);
    ASSERT_NE(found, nullptr) << tag;
    EXPECT_EQ(found->first, r.first) << tag;
    EXPECT_EQ(found->last, r.last) << tag;
    EXPECT_EQ(seen[tag].first, r.first) << tag;
  }
}

TEST(AllocatedRanges, ASlotHeldByAnotherTagGoesToTheOverflow) {
  AllocatedRanges a;
  const uint64_t old_key = (uint64_t{1} << 32) | 7;  // slot 7, generation 1
  const uint64_t new_key = (uint64_t{2} << 32) | 7;  // slot 7, generation 2
  ASSERT_TRUE(a.Insert(old_key, {100, 200}));
  ASSERT_TRUE(a.Insert(new_key, {300, 400}));
  EXPECT_FALSE(a.Insert(old_key, {0, 1}));
  EXPECT_FALSE(a.Insert(new_key, {0, 1}));
  ASSERT_NE(a.Find(old_key), nullptr);
  EXPECT_EQ(a.Find(old_key)->first, 100u);
  ASSERT_NE(a.Find(new_key), nullptr);
  EXPECT_EQ(a.Find(new_key)->first, 300u);
  EXPECT_EQ(a.Find((uint64_t{3} << 32) | 7), nullptr);
  AddressRange r;
  ASSERT_TRUE(a.Erase(old_key, &r));
  EXPECT_EQ(r.first, 100u);
  // The slot is free in the array while the new key still sits in the
  // overflow: it is found, and not inserted twice.
  EXPECT_FALSE(a.Insert(new_key, {0, 1}));
  ASSERT_NE(a.Find(new_key), nullptr);
  EXPECT_EQ(a.Find(new_key)->last, 400u);
  ASSERT_TRUE(a.Erase(new_key, &r));
  EXPECT_EQ(r.last, 400u);
  EXPECT_FALSE(a.Erase(new_key, &r));
  EXPECT_TRUE(a.empty());
}

TEST(AllocatedRanges, ZeroByteRangesAndFarSlots) {
  AllocatedRanges a;
  ASSERT_TRUE(a.Insert(0, {0, 0}));
  ASSERT_TRUE(a.Insert(0xffffffffull, {5, 6}));  // far beyond the live count
  ASSERT_TRUE(a.Insert(0x4000000000000000ull | 3, {0, 0}));
  Reference ref{{0, {0, 0}}, {0xffffffffull, {5, 6}}, {0x4000000000000000ull | 3, {0, 0}}};
  ExpectSame(a, ref);
  const AllocatedRanges copy = a;
  ExpectSame(copy, ref);
}

// Random inserts and erases of tags with few slots and many generations
// (as the model's keys are), checked against a map after every step.
TEST(AllocatedRanges, RandomOperationsMatchAMap) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    AllocatedRanges a;
    Reference ref;
    for (int op = 0; op < 2000; ++op) {
      const uint64_t slot = rng() % (round % 2 ? 50 : 20000);
      const uint64_t tag = ((rng() % 3 + 1) << 32) | slot;
      if (rng() % 3 == 0 && !ref.empty()) {
        auto it = ref.lower_bound(rng() % ((uint64_t{4} << 32)));
        if (it == ref.end()) it = ref.begin();
        AddressRange r;
        ASSERT_TRUE(a.Erase(it->first, &r));
        EXPECT_EQ(r.first, it->second.first);
        ref.erase(it);
      } else {
        const uint64_t first = rng() % 1000000;
        const AddressRange r{first, first + rng() % 100};
        EXPECT_EQ(a.Insert(tag, r), ref.emplace(tag, r).second) << tag;
      }
      if (op % 97 == 0) ExpectSame(a, ref);
    }
    ExpectSame(a, ref);
    AllocatedRanges copy;
    copy = a;
    ExpectSame(copy, ref);
  }
}

}  // namespace
}  // namespace realm_shadow::model::internal
