// model/placement_by_length.cc - the placements that choose by length:
// best-fit (the shortest free range that takes the request) and worst-fit
// (the longest); ties go to the lowest address.
//
// Two structures, one per question:
//  - by address, for the merges of Give: each free range under its first
//    and under its last address in two hash tables
//    (internal/boundary_map.h), so that the free range ending where a
//    released one starts, and the one starting where it ends, are a lookup
//    each (boundary tags).  Nothing here needs the ranges in address order
//    except ForEachFreeRange, which sorts them (dumps and checks, not
//    placements).
//  - by length, for the choice: the ranges in length classes as TLSF
//    (Masmano et al., 2004) makes them (16 classes per power of two, one
//    per length below 16), a bit per class that holds any, and in each
//    class its ranges in an ordered set by key.  The key orders equal lengths so that
//    the lowest address comes first in the direction of the search:
//    (length, first) for best-fit, searched upward; (length, ~first) for
//    worst-fit, searched downward.  Every length of a class is above every
//    length of the classes below it, so the search reads the request's own
//    class from its length on and then whole classes, the next found with
//    a count of trailing zeros.  A class's set is small (the replay
//    benchmark's 7.6k free ranges sit in about 130 classes, but lengths
//    repeat: thousands of holes of one length can share a class, hence a
//    btree and not a sorted vector), so its operations are shallow.
//
// Measured on bench/replay_benchmark.cc (BM_Replay/1, best-fit at 100k
// live): the two ordered btrees this replaces (by end and by length) took
// eight to ten btree operations per release and placement, about 40% of
// the replay's samples under perf; with this, one replay of the 1M events
// takes 319-333 ms CPU where it took 380-428 (the fastest two of six runs
// each, side by side, load average 1.5-3).  The choice is the same range:
// the placement tests compare every pick with a brute-force reference.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/numeric/bits.h"
#include "model/internal/boundary_map.h"
#include "model/internal/placements.h"

namespace realm_shadow {
namespace model {
namespace internal {
namespace {

// Length classes: one per length 1-15, then 16 per power of two.
constexpr uint32_t kSubBits = 4;
constexpr uint32_t kSub = 1u << kSubBits;
constexpr uint32_t kClasses = kSub + (64 - kSubBits) * kSub;  // 976
constexpr uint32_t kWords = (kClasses + 63) / 64;

uint32_t ClassOf(uint64_t length) {
  if (length < kSub) return static_cast<uint32_t>(length);
  const uint32_t e = 63 - static_cast<uint32_t>(absl::countl_zero(length));  // >= kSubBits
  const uint32_t sub = static_cast<uint32_t>(length >> (e - kSubBits)) & (kSub - 1);
  return kSub + (e - kSubBits) * kSub + sub;
}

class ByLength final : public Placement {
 public:
  explicit ByLength(bool longest) : longest_(longest) {}

  PlacementPolicy policy() const override {
    return longest_ ? PlacementPolicy::kWorstFit : PlacementPolicy::kBestFit;
  }
  std::unique_ptr<Placement> Clone() const override {
    return std::make_unique<ByLength>(*this);
  }

  bool Take(uint64_t size, uint64_t alignment, uint64_t* offset) override {
    Choice c;
    if (!Find(size, alignment, &c)) return false;
    *offset = c.start;
    const uint64_t first = c.first, last = c.first + c.length, end = c.start + size;
    Erase(c.cls, c.entry);
    // The pad keeps the range's first address, the rest its last.
    if (c.start > first) {
      end_of_.Set(first, c.start);
      first_of_.Set(c.start, first);
      Insert(first, c.start);
    } else {
      end_of_.Erase(first);
    }
    if (end < last) {
      end_of_.Set(end, last);
      first_of_.Set(last, end);
      Insert(end, last);
    } else {
      first_of_.Erase(last);
    }
    return true;
  }
  bool CanTake(uint64_t size, uint64_t alignment) const override {
    Choice c;
    return Find(size, alignment, &c);
  }

  void Give(uint64_t first, uint64_t last) override {
    if (first >= last) return;
    uint64_t merged_first = first, merged_last = last;
    // The free range ending where this one starts, and the one starting
    // where it ends.
    if (const uint64_t* prev = first_of_.Find(first)) {
      merged_first = *prev;
      EraseKey(merged_first, first);
      first_of_.Erase(first);
    }
    if (const uint64_t* next = end_of_.Find(last)) {
      merged_last = *next;
      EraseKey(last, merged_last);
      end_of_.Erase(last);
    }
    end_of_.Set(merged_first, merged_last);    // in place when merged with prev
    first_of_.Set(merged_last, merged_first);  // in place when merged with next
    Insert(merged_first, merged_last);
  }
  void PrefetchGive(uint64_t first, uint64_t last) const override {
    first_of_.Prefetch(first);
    end_of_.Prefetch(last);
  }
  void Clear() override {
    end_of_.Clear();
    first_of_.Clear();
    for (absl::btree_set<Key>& k : classes_) k.clear();
    occupied_.fill(0);
  }

  uint64_t LargestFree() const override {
    for (uint32_t w = kWords; w-- > 0;)
      if (occupied_[w] != 0) {
        const uint32_t cls = 64 * w + 63 - static_cast<uint32_t>(absl::countl_zero(occupied_[w]));
        return std::prev(classes_[cls].end())->first;
      }
    return 0;
  }
  size_t FreeRangeCount() const override { return end_of_.size(); }
  void ForEachFreeRange(
      absl::FunctionRef<void(const AddressRange&)> fn) const override {
    std::vector<AddressRange> ranges;
    ranges.reserve(end_of_.size());
    end_of_.ForEach([&](uint64_t first, uint64_t last) { ranges.push_back({first, last}); });
    std::sort(ranges.begin(), ranges.end(),
              [](const AddressRange& a, const AddressRange& b) { return a.first < b.first; });
    for (const AddressRange& r : ranges) fn(r);
  }

 private:
  using Key = std::pair<uint64_t, uint64_t>;  // length, first or ~first
  using Set = absl::btree_set<Key>;
  struct Choice {
    uint32_t cls = 0;
    Set::const_iterator entry;  // in classes_[cls]
    uint64_t first = 0, length = 0, start = 0;
  };

  Key KeyOf(uint64_t first, uint64_t last) const {
    return {last - first, longest_ ? ~first : first};
  }
  uint64_t FirstOf(const Key& k) const { return longest_ ? ~k.second : k.second; }

  void Insert(uint64_t first, uint64_t last) {
    const Key k = KeyOf(first, last);
    const uint32_t cls = ClassOf(k.first);
    classes_[cls].insert(k);
    occupied_[cls / 64] |= uint64_t{1} << (cls % 64);
  }
  void Erase(uint32_t cls, Set::const_iterator entry) {
    Set& v = classes_[cls];
    v.erase(entry);
    if (v.empty()) occupied_[cls / 64] &= ~(uint64_t{1} << (cls % 64));
  }
  void EraseKey(uint64_t first, uint64_t last) {
    const Key k = KeyOf(first, last);
    const uint32_t cls = ClassOf(k.first);
    Erase(cls, classes_[cls].find(k));
  }

  // The occupied class after (best-fit) or before (worst-fit) `cls`, or
  // kClasses when none.
  uint32_t NextOccupied(uint32_t cls) const {
    if (cls + 1 >= kClasses) return kClasses;
    uint32_t w = (cls + 1) / 64;
    uint64_t bits = occupied_[w] & (~uint64_t{0} << ((cls + 1) % 64));
    while (bits == 0) {
      if (++w == kWords) return kClasses;
      bits = occupied_[w];
    }
    return 64 * w + static_cast<uint32_t>(absl::countr_zero(bits));
  }
  uint32_t PrevOccupied(uint32_t cls) const {
    if (cls == 0) return kClasses;
    uint32_t w = (cls - 1) / 64;
    const uint32_t top = (cls - 1) % 64;
    uint64_t bits = occupied_[w] & (top == 63 ? ~uint64_t{0} : (uint64_t{2} << top) - 1);
    while (bits == 0) {
      if (w-- == 0) return kClasses;
      bits = occupied_[w];
    }
    return 64 * w + 63 - static_cast<uint32_t>(absl::countl_zero(bits));
  }

  // The range the request goes to, in the policy's order.
  bool Find(uint64_t size, uint64_t alignment, Choice* c) const {
    auto fits = [&](uint32_t cls, Set::const_iterator it) {
      const uint64_t f = FirstOf(*it);
      const uint64_t last = f + it->first;
      const uint64_t s = AlignUp(f, alignment);
      if (s >= last || last - s < size) return false;
      *c = Choice{cls, it, f, it->first, s};
      return true;
    };
    if (!longest_) {
      // The request's class from its length on, then whole classes upward.
      uint32_t cls = ClassOf(size);
      const Set& own = classes_[cls];
      for (auto it = own.lower_bound(Key{size, 0}); it != own.end(); ++it)
        if (fits(cls, it)) return true;
      for (cls = NextOccupied(cls); cls < kClasses; cls = NextOccupied(cls))
        for (auto it = classes_[cls].begin(); it != classes_[cls].end(); ++it)
          if (fits(cls, it)) return true;
      return false;
    }
    // Worst-fit: from the longest down, until they are too short.
    for (uint32_t cls = PrevOccupied(kClasses); cls < kClasses; cls = PrevOccupied(cls)) {
      const Set& v = classes_[cls];
      for (auto it = v.end(); it != v.begin();) {
        --it;
        if (it->first < size) return false;
        if (fits(cls, it)) return true;
      }
    }
    return false;
  }

  bool longest_;
  BoundaryMap end_of_;    // first -> last
  BoundaryMap first_of_;  // last -> first
  std::array<Set, kClasses> classes_;
  std::array<uint64_t, kWords> occupied_{};
};

}  // namespace

std::unique_ptr<Placement> MakeBestFitPlacement() {
  return std::make_unique<ByLength>(false);
}
std::unique_ptr<Placement> MakeWorstFitPlacement() {
  return std::make_unique<ByLength>(true);
}

}  // namespace internal
}  // namespace model
}  // namespace realm_shadow
