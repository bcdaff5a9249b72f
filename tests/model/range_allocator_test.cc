// Tests of RangeAllocator: Realm's first-fit placement, alignment pads,
// merging, zero-byte allocations and split_range.
#include "model/range_allocator.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace realm_shadow::model {
namespace {

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

Ranges FreeOf(const RangeAllocator& a) {
  Ranges out;
  a.ForEachFreeRange([&](const RangeAllocator::Range& r) { out.emplace_back(r.first, r.last); });
  return out;
}

TEST(RangeAllocator, FirstFitInAddressOrder) {
  RangeAllocator a(1000);
  uint64_t off;
  ASSERT_TRUE(a.Allocate(1, 100, 1, &off)); EXPECT_EQ(off, 0u);
  ASSERT_TRUE(a.Allocate(2, 300, 1, &off)); EXPECT_EQ(off, 100u);
  ASSERT_TRUE(a.Allocate(3, 100, 1, &off)); EXPECT_EQ(off, 400u);
  ASSERT_TRUE(a.Allocate(4, 200, 1, &off)); EXPECT_EQ(off, 500u);
  ASSERT_TRUE(a.Deallocate(2));  // hole [100, 400)
  // A 50-byte request takes the first hole, not the tail [700, 1000).
  ASSERT_TRUE(a.Allocate(5, 50, 1, &off)); EXPECT_EQ(off, 100u);
  // 300 bytes no longer fit in [150, 400): first fit moves to the tail.
  ASSERT_TRUE(a.Allocate(6, 300, 1, &off)); EXPECT_EQ(off, 700u);
  EXPECT_FALSE(a.Allocate(7, 251, 1, &off));
  EXPECT_TRUE(a.CanAllocate(250, 1));
  EXPECT_TRUE(a.CheckInvariants());
}

TEST(RangeAllocator, AlignmentPadStaysFreeAsItsOwnRange) {
  RangeAllocator a(1 << 20);
  uint64_t off;
  ASSERT_TRUE(a.Allocate(1, 100, 32, &off)); EXPECT_EQ(off, 0u);
  ASSERT_TRUE(a.Allocate(2, 1000, 4096, &off)); EXPECT_EQ(off, 4096u);
  EXPECT_EQ(FreeOf(a), (Ranges{{100, 4096}, {5096, 1 << 20}}));
  // The pad is usable by a later request that fits it.
  ASSERT_TRUE(a.Allocate(3, 64, 32, &off)); EXPECT_EQ(off, 128u);
  EXPECT_EQ(FreeOf(a), (Ranges{{100, 128}, {192, 4096}, {5096, 1 << 20}}));
  EXPECT_EQ(a.largest_usable(4096), (1u << 20) - 8192);
  EXPECT_TRUE(a.CheckInvariants());
}

TEST(RangeAllocator, FreeMergesWithBothNeighbours) {
  RangeAllocator a(300);
  uint64_t off;
  ASSERT_TRUE(a.Allocate(1, 100, 1, &off));
  ASSERT_TRUE(a.Allocate(2, 100, 1, &off));
  ASSERT_TRUE(a.Allocate(3, 100, 1, &off));
  ASSERT_TRUE(a.Deallocate(1));
  ASSERT_TRUE(a.Deallocate(3));
  EXPECT_EQ(a.free_range_count(), 2u);
  ASSERT_TRUE(a.Deallocate(2));
  EXPECT_EQ(FreeOf(a), (Ranges{{0, 300}}));
  EXPECT_EQ(a.free_bytes(), 300u);
  EXPECT_FALSE(a.Deallocate(2));  // missing: no change
  EXPECT_TRUE(a.CheckInvariants());
}

TEST(RangeAllocator, ZeroByteAllocationsOccupyNothing) {
  RangeAllocator a(64);
  uint64_t off = 99;
  ASSERT_TRUE(a.Allocate(1, 0, 32, &off)); EXPECT_EQ(off, 0u);
  ASSERT_TRUE(a.Allocate(2, 0, 32, &off)); EXPECT_EQ(off, 0u);
  ASSERT_TRUE(a.Allocate(3, 64, 1, &off)); EXPECT_EQ(off, 0u);
  // Even a full heap takes an empty request.
  ASSERT_TRUE(a.Allocate(4, 0, 1, &off)); EXPECT_EQ(off, 0u);
  EXPECT_EQ(a.free_bytes(), 0u);
  EXPECT_TRUE(a.Deallocate(1));
  EXPECT_EQ(a.free_bytes(), 0u);
  EXPECT_FALSE(a.Allocate(2, 0, 1, &off));  // tag 2 is still allocated
  EXPECT_TRUE(a.CheckInvariants());
}

TEST(RangeAllocator, SplitRangePlacesPiecesInOrderAndFreesTheRest) {
  RangeAllocator a(10000);
  uint64_t off;
  ASSERT_TRUE(a.Allocate(1, 100, 1, &off));
  ASSERT_TRUE(a.Allocate(2, 5000, 1, &off));  // [100, 5100)
  std::vector<RangeAllocator::Piece> pieces = {
      {10, 1000, 32, 0}, {11, 1000, 4096, 0}, {12, 10000, 1, 0}, {13, 1, 1, 0}};
  bool found = false;
  EXPECT_EQ(a.SplitRange(2, &pieces, &found), 2u);
  EXPECT_TRUE(found);
  EXPECT_EQ(pieces[0].offset, 128u);   // 100 aligned up to 32
  EXPECT_EQ(pieces[1].offset, 4096u);  // 1128 aligned up to 4096
  EXPECT_FALSE(a.Contains(12));        // does not fit
  EXPECT_FALSE(a.Contains(13));        // after a failure, every piece fails
  EXPECT_FALSE(a.Contains(2));
  EXPECT_EQ(FreeOf(a), (Ranges{{100, 128}, {1128, 4096}, {5096, 10000}}));
  EXPECT_TRUE(a.CheckInvariants());
  EXPECT_EQ(a.SplitRange(99, &pieces, &found), 0u);
  EXPECT_FALSE(found);
}

// Realm's split_range returns as soon as a piece ends at the old range's
// end: what follows, a zero-byte piece too, is not placed.
TEST(RangeAllocator, SplitRangeStopsWhenAPieceFillsTheRange) {
  RangeAllocator a(1000);
  uint64_t off;
  ASSERT_TRUE(a.Allocate(1, 600, 1, &off));
  std::vector<RangeAllocator::Piece> pieces = {
      {10, 200, 1, 0}, {11, 400, 1, 0}, {12, 0, 1, 0}};
  bool found = false;
  EXPECT_EQ(a.SplitRange(1, &pieces, &found), 2u);
  EXPECT_TRUE(a.Contains(11));
  EXPECT_FALSE(a.Contains(12));
  // Zero-byte pieces before the end are placed as usual.
  ASSERT_TRUE(a.Allocate(2, 300, 1, &off));  // [600, 900)
  pieces = {{20, 0, 1, 0}, {21, 100, 1, 0}, {22, 0, 1, 0}};
  EXPECT_EQ(a.SplitRange(2, &pieces, &found), 3u);
  EXPECT_TRUE(a.CheckInvariants());
}

TEST(RangeAllocator, HugeAlignmentDoesNotWrap) {
  RangeAllocator a(1000);
  uint64_t off;
  // Offset 0 is aligned to anything: the first request fits.
  ASSERT_TRUE(a.Allocate(2, 10, UINT64_MAX, &off));
  EXPECT_EQ(off, 0u);
  EXPECT_FALSE(a.Allocate(1, 10, UINT64_MAX, &off));
  EXPECT_FALSE(a.Allocate(3, 10, UINT64_MAX - 1, &off));
  EXPECT_FALSE(a.Allocate(4, UINT64_MAX, 1, &off));
}

// Against a brute-force byte map: the same placements, random sequence.
TEST(RangeAllocator, MatchesBruteForceFirstFit) {
  constexpr uint64_t kCap = 4096;
  RangeAllocator a(kCap);
  std::vector<int> owner(kCap, 0);  // 0: free
  std::mt19937_64 rng(7);
  std::vector<uint64_t> live;
  uint64_t next_tag = 1;
  for (int step = 0; step < 4000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      const uint64_t size = 1 + rng() % 200;
      const uint64_t align = uint64_t{1} << (rng() % 7);
      // Brute force: first free run (in the maximal free ranges) that fits.
      uint64_t expect = UINT64_MAX;
      for (uint64_t f = 0; f < kCap && expect == UINT64_MAX;) {
        if (owner[f]) { ++f; continue; }
        uint64_t l = f;
        while (l < kCap && !owner[l]) ++l;
        const uint64_t s = AlignUp(f, align);
        if (s < l && l - s >= size) expect = s;
        f = l;
      }
      uint64_t off;
      const bool ok = a.Allocate(next_tag, size, align, &off);
      ASSERT_EQ(ok, expect != UINT64_MAX) << "step " << step;
      if (ok) {
        ASSERT_EQ(off, expect) << "step " << step;
        for (uint64_t i = off; i < off + size; ++i) owner[i] = static_cast<int>(next_tag);
        live.push_back(next_tag);
      }
      ++next_tag;
    } else {
      const size_t k = rng() % live.size();
      const uint64_t tag = live[k];
      live.erase(live.begin() + static_cast<long>(k));
      ASSERT_TRUE(a.Deallocate(tag));
      for (auto& o : owner) if (o == static_cast<int>(tag)) o = 0;
    }
  }
  EXPECT_TRUE(a.CheckInvariants());
}

}  // namespace
}  // namespace realm_shadow::model
