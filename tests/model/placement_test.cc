// Tests of the placement policies (model/placement.h): each one, through
// the heap that owns it, against a brute-force reference of its rule on
// random sequences of allocations, releases, splits, copies and swaps.
//
// The reference keeps the free ranges in a sorted vector (merged by a scan)
// and the allocations in a map, and picks each placement by looking at
// every free range; it shares no code with the placements.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "model/internal/free_range_index.h"
#include "model/placement.h"
#include "model/range_allocator.h"

namespace realm_shadow::model {
namespace {

struct RefFree {
  uint64_t first, last;
  uint64_t entered;  // size-classes: when it entered its bin
};

int FloorLog2(uint64_t v) {
  int b = -1;
  while (v) {
    v >>= 1;
    ++b;
  }
  return b;
}

class Reference {
 public:
  Reference(PlacementPolicy policy, uint64_t capacity)
      : policy_(policy), capacity_(capacity) {
    free_.push_back({0, capacity, ++clock_});
  }

  bool Allocate(uint64_t tag, uint64_t size, uint64_t alignment, uint64_t* offset) {
    if (size == 0) {
      live_[tag] = {0, 0};
      *offset = 0;
      return true;
    }
    if (policy_ == PlacementPolicy::kCompacting) alignment = 1;
    int k = Choose(size, alignment, offset);
    if (k < 0 && policy_ == PlacementPolicy::kCompacting && FreeBytes() >= size) {
      Compact();
      k = Choose(size, alignment, offset);
    }
    if (k < 0) return false;
    const RefFree r = free_[k];
    free_.erase(free_.begin() + k);
    if (*offset > r.first) Insert({r.first, *offset, ++clock_});
    if (*offset + size < r.last) Insert({*offset + size, r.last, ++clock_});
    live_[tag] = {*offset, *offset + size};
    rover_ = *offset + size;
    return true;
  }

  void Deallocate(uint64_t tag) {
    auto it = live_.find(tag);
    const auto [first, last] = it->second;
    live_.erase(it);
    Give(first, last);
  }

  // Realm's split_range, whatever the policy.
  size_t Split(uint64_t old_tag, const std::vector<RangeAllocator::Piece>& pieces,
               std::vector<uint64_t>* offsets) {
    const auto [first, last] = live_[old_tag];
    live_.erase(old_tag);
    uint64_t cursor = first;
    size_t placed = 0;
    for (const auto& p : pieces) {
      if (p.size == 0) {
        live_[p.tag] = {0, 0};
        offsets->push_back(0);
        ++placed;
        continue;
      }
      const uint64_t s = AlignUp(cursor, p.alignment);
      if (s >= last || last - s < p.size) break;
      if (s > cursor) Give(cursor, s);
      live_[p.tag] = {s, s + p.size};
      offsets->push_back(s);
      cursor = s + p.size;
      ++placed;
      if (cursor == last) break;
    }
    if (cursor < last) Give(cursor, last);
    return placed;
  }

  std::vector<AddressRange> Free() const {
    std::vector<AddressRange> out;
    for (const RefFree& r : free_) out.push_back({r.first, r.last});
    return out;
  }
  uint64_t Largest() const {
    uint64_t m = 0;
    for (const RefFree& r : free_) m = std::max(m, r.last - r.first);
    return m;
  }
  bool CanAllocate(uint64_t size, uint64_t alignment) const {
    if (size == 0) return true;
    if (policy_ == PlacementPolicy::kCompacting) return FreeBytes() >= size;
    for (const RefFree& r : free_)
      if (Fits(r, size, alignment, nullptr)) return true;
    return false;
  }
  const std::map<uint64_t, std::pair<uint64_t, uint64_t>>& live() const { return live_; }

 private:
  static bool Fits(const RefFree& r, uint64_t size, uint64_t alignment, uint64_t* start) {
    const uint64_t s = AlignUp(r.first, alignment);
    if (s >= r.last || r.last - s < size) return false;
    if (start) *start = s;
    return true;
  }
  uint64_t FreeBytes() const {
    uint64_t t = 0;
    for (const RefFree& r : free_) t += r.last - r.first;
    return t;
  }

  // The index of the free range the policy takes, or -1.
  int Choose(uint64_t size, uint64_t alignment, uint64_t* offset) const {
    int best = -1;
    uint64_t best_start = 0;
    auto better = [&](int k) {
      if (best < 0) return true;
      const RefFree& a = free_[k];
      const RefFree& b = free_[best];
      const uint64_t la = a.last - a.first, lb = b.last - b.first;
      switch (policy_) {
        case PlacementPolicy::kBestFit:
          return la < lb || (la == lb && a.first < b.first);
        case PlacementPolicy::kWorstFit:
          return la > lb || (la == lb && a.first < b.first);
        case PlacementPolicy::kSizeClasses: {
          const int ba = FloorLog2(la), bb = FloorLog2(lb);
          return ba < bb || (ba == bb && a.entered > b.entered);
        }
        default:
          return a.first < b.first;
      }
    };
    if (policy_ == PlacementPolicy::kNextFit) {
      // Holding the rover, then after it, then from the start.
      for (int pass = 0; pass < 3 && best < 0; ++pass) {
        for (int k = 0; k < static_cast<int>(free_.size()); ++k) {
          const RefFree& r = free_[k];
          const bool in_pass =
              pass == 0 ? (r.first <= rover_ && rover_ < r.last)
                        : pass == 1 ? r.first >= rover_ : true;
          uint64_t s;
          if (in_pass && Fits(r, size, alignment, &s)) {
            best = k;
            best_start = s;
            break;
          }
        }
      }
    } else {
      for (int k = 0; k < static_cast<int>(free_.size()); ++k) {
        uint64_t s;
        if (Fits(free_[k], size, alignment, &s) && better(k)) {
          best = k;
          best_start = s;
        }
      }
    }
    if (best >= 0) *offset = best_start;
    return best;
  }

  void Insert(RefFree r) {
    auto it = std::lower_bound(free_.begin(), free_.end(), r.first,
                               [](const RefFree& f, uint64_t a) { return f.first < a; });
    free_.insert(it, r);
  }

  // Merges with neighbours; a merged range keeps its bin entry while its
  // bin stays the same (size-classes).
  void Give(uint64_t first, uint64_t last) {
    if (first >= last) return;
    int pred = -1, succ = -1;
    for (int k = 0; k < static_cast<int>(free_.size()); ++k) {
      if (free_[k].last == first) pred = k;
      if (free_[k].first == last) succ = k;
    }
    auto regrow = [&](RefFree& r, uint64_t f, uint64_t l) {
      if (FloorLog2(l - f) != FloorLog2(r.last - r.first)) r.entered = ++clock_;
      r.first = f;
      r.last = l;
    };
    if (pred >= 0 && succ >= 0) {
      const uint64_t end = free_[succ].last;
      free_.erase(free_.begin() + succ);
      if (succ < pred) --pred;
      regrow(free_[pred], free_[pred].first, end);
    } else if (pred >= 0) {
      regrow(free_[pred], free_[pred].first, last);
    } else if (succ >= 0) {
      regrow(free_[succ], first, free_[succ].last);
    } else {
      Insert({first, last, ++clock_});
    }
  }

  void Compact() {
    std::vector<std::pair<uint64_t, uint64_t>> order;  // offset, tag
    for (const auto& [tag, r] : live_)
      if (r.second > r.first) order.emplace_back(r.first, tag);
    std::sort(order.begin(), order.end());
    uint64_t cursor = 0;
    for (const auto& [off, tag] : order) {
      (void)off;
      auto& r = live_[tag];
      const uint64_t size = r.second - r.first;
      r = {cursor, cursor + size};
      cursor += size;
    }
    free_.clear();
    if (cursor < capacity_) free_.push_back({cursor, capacity_, ++clock_});
  }

  PlacementPolicy policy_;
  uint64_t capacity_;
  std::vector<RefFree> free_;
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> live_;
  uint64_t clock_ = 0;
  uint64_t rover_ = 0;
};

class PlacementPolicyTest : public ::testing::TestWithParam<PlacementPolicy> {};

std::vector<AddressRange> FreeOf(const RangeAllocator& heap) { return heap.FreeRanges(); }

bool SameRanges(const std::vector<AddressRange>& a, const std::vector<AddressRange>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].first != b[i].first || a[i].last != b[i].last) return false;
  return true;
}

// Random allocations (sizes 1 B - 3 KiB, alignments 1 - 512), releases,
// splits into up to three pieces, and now and then a copy or a swap
// through another heap; every placement, the free ranges, the largest free
// range and CanAllocate agree with the reference after every step.  About
// 500 live allocations and a few hundred free ranges, so the address index
// splits chunks.
TEST_P(PlacementPolicyTest, MatchesBruteForceReference) {
  const PlacementPolicy policy = GetParam();
  for (uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE(testing::Message() << PlacementPolicyName(policy) << " seed " << seed);
    constexpr uint64_t kCap = 1 << 20;
    RangeAllocator heap(kCap, policy);
    Reference ref(policy, kCap);
    std::mt19937_64 rng(seed);
    std::vector<uint64_t> live;
    uint64_t next_tag = 1;
    for (int step = 0; step < 6000; ++step) {
      const uint64_t r = rng() % 100;
      if (live.empty() || r < 55) {
        const uint64_t size = rng() % 16 == 0 ? 0 : 1 + rng() % 3000;
        const uint64_t align = uint64_t{1} << (rng() % 10);
        uint64_t got = 0, want = 0;
        const bool ok = heap.Allocate(next_tag, size, align, &got);
        ASSERT_EQ(ok, ref.Allocate(next_tag, size, align, &want)) << "step " << step;
        if (ok) {
          ASSERT_EQ(got, want) << "step " << step << " size " << size << " align " << align;
          live.push_back(next_tag);
        }
        ++next_tag;
      } else if (r < 93) {
        const size_t k = rng() % live.size();
        ASSERT_TRUE(heap.Deallocate(live[k]));
        ref.Deallocate(live[k]);
        live.erase(live.begin() + static_cast<long>(k));
      } else if (r < 97) {
        const size_t k = rng() % live.size();
        const uint64_t old = live[k];
        live.erase(live.begin() + static_cast<long>(k));
        std::vector<RangeAllocator::Piece> pieces;
        for (uint64_t n = 1 + rng() % 3; n > 0; --n)
          pieces.push_back({next_tag++, rng() % 1500, uint64_t{1} << (rng() % 6), 0});
        std::vector<uint64_t> want;
        const size_t want_placed = ref.Split(old, pieces, &want);
        bool found = false;
        const size_t placed = heap.SplitRange(old, &pieces, &found);
        ASSERT_TRUE(found);
        ASSERT_EQ(placed, want_placed) << "step " << step;
        for (size_t i = 0; i < placed; ++i) {
          ASSERT_EQ(pieces[i].offset, want[i]) << "step " << step << " piece " << i;
          live.push_back(pieces[i].tag);
        }
      } else if (r < 99) {
        RangeAllocator copy(heap);  // the placement is cloned
        heap = RangeAllocator(policy);
        heap = copy;
      } else {
        RangeAllocator other(heap);
        RangeAllocator empty(kCap, policy);
        heap.Swap(empty);
        heap.Swap(other);  // back to the same content
      }
      ASSERT_TRUE(SameRanges(FreeOf(heap), ref.Free())) << "step " << step;
      ASSERT_EQ(heap.largest_free(), ref.Largest()) << "step " << step;
      ASSERT_EQ(heap.free_range_count(), ref.Free().size());
      const uint64_t probe = 1 + rng() % 8000, probe_align = uint64_t{1} << (rng() % 12);
      ASSERT_EQ(heap.CanAllocate(probe, probe_align), ref.CanAllocate(probe, probe_align))
          << "step " << step;
    }
    EXPECT_TRUE(heap.CheckInvariants());
    for (const auto& [tag, range] : ref.live()) {
      uint64_t first = 0, size = 0;
      ASSERT_TRUE(heap.Lookup(tag, &first, &size));
      EXPECT_EQ(first, range.first);
      EXPECT_EQ(size, range.second - range.first);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryPolicy, PlacementPolicyTest, ::testing::ValuesIn(kAllPlacementPolicies),
    [](const ::testing::TestParamInfo<PlacementPolicy>& info) {
      std::string name = PlacementPolicyName(info.param);
      name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
      return name;
    });

TEST(PlacementPolicy, NamesRoundTrip) {
  for (PlacementPolicy p : kAllPlacementPolicies) {
    PlacementPolicy back = PlacementPolicy::kRealm;
    ASSERT_TRUE(ParsePlacementPolicy(PlacementPolicyName(p), &back));
    EXPECT_EQ(back, p);
  }
  PlacementPolicy p;
  EXPECT_FALSE(ParsePlacementPolicy("first-fit", &p));
}

// The rules on small cases a reader can check by hand.
TEST(PlacementPolicy, EachPolicyPicksItsRange) {
  // Free: [0,100) [200,260) [400,1000) after these allocations and frees.
  auto heap_with_holes = [](PlacementPolicy p) {
    RangeAllocator h(1000, p);
    uint64_t off;
    h.Allocate(1, 100, 1, &off);  // [0,100)
    h.Allocate(2, 100, 1, &off);  // [100,200)
    h.Allocate(3, 60, 1, &off);   // [200,260)
    h.Allocate(4, 140, 1, &off);  // [260,400)
    h.Deallocate(1);
    h.Deallocate(3);
    return h;
  };
  auto place = [&](PlacementPolicy p, uint64_t size) {
    RangeAllocator h = heap_with_holes(p);
    uint64_t off = 0;
    EXPECT_TRUE(h.Allocate(9, size, 1, &off));
    return off;
  };
  EXPECT_EQ(place(PlacementPolicy::kRealm, 50), 0u);
  EXPECT_EQ(place(PlacementPolicy::kBestFit, 50), 200u);
  EXPECT_EQ(place(PlacementPolicy::kWorstFit, 50), 400u);
  // The last placement ended at 400: next fit starts there.
  EXPECT_EQ(place(PlacementPolicy::kNextFit, 50), 400u);
  // Bins: [0,100) is bin 6, [200,260) bin 5, [400,1000) bin 9; 50 starts at
  // bin 5.
  EXPECT_EQ(place(PlacementPolicy::kSizeClasses, 50), 200u);
  EXPECT_EQ(place(PlacementPolicy::kCompacting, 50), 0u);
}

TEST(PlacementPolicy, CompactingFailsOnlyPastTheCapacity) {
  RangeAllocator h(1000, PlacementPolicy::kCompacting);
  uint64_t off;
  for (uint64_t t = 1; t <= 10; ++t) ASSERT_TRUE(h.Allocate(t, 100, 64, &off));
  for (uint64_t t = 1; t <= 10; t += 2) h.Deallocate(t);  // five holes of 100
  EXPECT_EQ(h.largest_free(), 100u);
  ASSERT_TRUE(h.Allocate(20, 500, 256, &off));  // compacts: 500 live, then it
  EXPECT_EQ(off, 500u);
  EXPECT_FALSE(h.Allocate(21, 1, 1, &off));  // 1000 live
  EXPECT_TRUE(h.CheckInvariants());
}

TEST(PlacementPolicy, SizeClassesTakesTheRangeThatEnteredItsBinLast) {
  RangeAllocator h(10000, PlacementPolicy::kSizeClasses);
  uint64_t off;
  for (uint64_t t = 1; t <= 6; ++t) h.Allocate(t, 100, 1, &off);  // [0,600)
  h.Deallocate(2);  // [100,200) enters bin 6
  h.Deallocate(4);  // [300,400) enters bin 6 after it
  ASSERT_TRUE(h.Allocate(7, 64, 1, &off));
  EXPECT_EQ(off, 300u);
}

// The address index alone, at a size that splits and empties chunks: many
// small free ranges, first fit from several starting points.
// A release's prefetch and its Give each find the chunk from the address's
// bucket; when chunks split in between (the buckets shifted in place), the
// Give must still land in the chunk that holds it now, not in the one the
// prefetch read.
TEST(FreeRangeIndex, AGiveFindsItsChunkWhenChunksMovedSinceItsPrefetch) {
  internal::FreeRangeIndex index;
  for (uint64_t i = 0; i < 200; ++i) index.Give(i * 100, i * 100 + 10);
  const uint64_t a = 150 * 100 + 50;
  index.Prefetch(a);
  // 300 ranges before it: the chunks before a's split (a chunk holds 64),
  // and a's chunk moves up.
  for (uint64_t i = 0; i < 100; ++i)
    for (uint64_t k : {20, 40, 60}) index.Give(i * 100 + k, i * 100 + k + 10);
  index.Give(a, a + 10);
  ASSERT_TRUE(index.CheckInvariants());
  std::vector<AddressRange> ranges;
  index.ForEach([&](const AddressRange& r) { ranges.push_back(r); });
  ASSERT_EQ(ranges.size(), 501u);
  EXPECT_TRUE(std::is_sorted(ranges.begin(), ranges.end(), [](const AddressRange& x, const AddressRange& y) {
    return x.first < y.first;
  }));
  EXPECT_TRUE(std::any_of(ranges.begin(), ranges.end(),
                          [&](const AddressRange& r) { return r.first == a && r.last == a + 10; }));
}

// A release finds its chunk from the address's bucket, buckets cut over
// the span up to the last range: with every range but one clustered far
// below that one, one bucket holds every chunk, and the search must still
// land each range in address order (CheckInvariants: sorted, maximal).
// Splits and emptied chunks in between shift the buckets in place.
TEST(FreeRangeIndex, GivesLandInOrderWhenRangesClusterFarBelowTheLast) {
  internal::FreeRangeIndex index;
  const uint64_t far = uint64_t{1} << 40;
  index.Give(far, far + 4096);
  std::mt19937_64 rng(5);
  std::vector<uint64_t> slots;
  for (uint64_t s = 0; s < 6000; s += 2) slots.push_back(s);
  std::shuffle(slots.begin(), slots.end(), rng);
  for (size_t k = 0; k < slots.size(); ++k) {
    index.Give(slots[k] * 64, slots[k] * 64 + 32);
    if (k % 500 == 0) ASSERT_TRUE(index.CheckInvariants()) << k;
  }
  ASSERT_TRUE(index.CheckInvariants());
  ASSERT_EQ(index.size(), slots.size() + 1);
  // The gaps filled in random order: ranges merge, chunks empty.
  std::shuffle(slots.begin(), slots.end(), rng);
  for (size_t k = 0; k < slots.size(); ++k) {
    index.Prefetch(slots[k] * 64 + 32);
    index.Give(slots[k] * 64 + 32, slots[k] * 64 + 128);
    if (k % 500 == 0) ASSERT_TRUE(index.CheckInvariants()) << k;
  }
  ASSERT_TRUE(index.CheckInvariants());
  // Slot 5998's gap ends at 6000 x 64, where nothing starts: one range
  // from 0 to there, and the far one.
  std::vector<AddressRange> ranges;
  index.ForEach([&](const AddressRange& r) { ranges.push_back(r); });
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].first, 0u);
  EXPECT_EQ(ranges[0].last, 6000u * 64);
  EXPECT_EQ(ranges[1].first, far);
  internal::FreeRangeIndex::Position p;
  uint64_t start = 0;
  ASSERT_TRUE(index.FirstFit(4096, 1, 0, &p, &start));
  EXPECT_EQ(start, 0u);
  ASSERT_TRUE(index.FirstFit(4096, 1, 64, &p, &start));  // past the first's start
  EXPECT_EQ(start, far);
  EXPECT_FALSE(index.FirstFit(8192, 1, 64, &p, &start));
}

TEST(FreeRangeIndex, FirstFitMatchesAScanAtThousandsOfRanges) {
  internal::FreeRangeIndex index;
  std::vector<AddressRange> ref;
  std::mt19937_64 rng(11);
  auto give = [&](uint64_t f, uint64_t l) {
    index.Give(f, l);
    ref.push_back({f, l});
    std::sort(ref.begin(), ref.end(),
              [](const AddressRange& a, const AddressRange& b) { return a.first < b.first; });
    std::vector<AddressRange> merged;
    for (const AddressRange& r : ref) {
      if (!merged.empty() && merged.back().last == r.first) merged.back().last = r.last;
      else merged.push_back(r);
    }
    ref = merged;
  };
  // Every other 100-byte slot of 400k bytes, in random order: 2000 ranges.
  std::vector<uint64_t> slots;
  for (uint64_t s = 0; s < 4000; s += 2) slots.push_back(s);
  std::shuffle(slots.begin(), slots.end(), rng);
  for (uint64_t s : slots) give(s * 100, s * 100 + 10 + s % 90);
  ASSERT_TRUE(index.CheckInvariants());
  std::vector<AddressRange> taken;  // carved out, given back at random
  for (int q = 0; q < 3000; ++q) {
    const uint64_t size = 1 + rng() % 100, align = uint64_t{1} << (rng() % 5);
    const uint64_t from = rng() % 420000;
    uint64_t want = UINT64_MAX;
    for (const AddressRange& r : ref) {
      const uint64_t s = AlignUp(r.first, align);
      if (r.first >= from && s < r.last && r.last - s >= size) {
        want = s;
        break;
      }
    }
    internal::FreeRangeIndex::Position p;
    uint64_t got = UINT64_MAX;
    const bool ok = index.FirstFit(size, align, from, &p, &got);
    ASSERT_EQ(ok, want != UINT64_MAX) << q;
    // The longest is exact after every placement and release.
    uint64_t longest = 0;
    for (const AddressRange& r : ref) longest = std::max(longest, r.size());
    ASSERT_EQ(index.largest(), longest) << q;
    ASSERT_EQ(got, ok ? want : UINT64_MAX) << q;
    if (ok && q % 2 == 0) {  // take it, as a placement would
      index.Carve(p, got, size);
      taken.push_back({got, got + size});
      // A release's prefetch, made now, for a Give that comes many changes
      // later: the chunks it found have often moved by then.
      index.Prefetch(got);
      for (size_t k = 0; k < ref.size(); ++k) {
        if (ref[k].first <= got && got < ref[k].last) {
          const AddressRange r = ref[k];
          ref.erase(ref.begin() + static_cast<long>(k));
          if (got > r.first) ref.push_back({r.first, got});
          if (got + size < r.last) ref.push_back({got + size, r.last});
          std::sort(ref.begin(), ref.end(), [](const AddressRange& a, const AddressRange& b) {
            return a.first < b.first;
          });
          break;
        }
      }
    }
    if (q % 7 == 3 && !taken.empty()) {  // give one back, as a release would
      const size_t k = rng() % taken.size();
      give(taken[k].first, taken[k].last);
      taken.erase(taken.begin() + static_cast<long>(k));
    }
    if (q % 100 == 0) ASSERT_TRUE(index.CheckInvariants()) << q;
  }
  ASSERT_TRUE(index.CheckInvariants());
  ASSERT_EQ(index.size(), ref.size());
}

}  // namespace
}  // namespace realm_shadow::model
