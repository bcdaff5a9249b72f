// model/placement_by_length.cc - the placements that choose by length:
// best-fit (the shortest free range that takes the request) and worst-fit
// (the longest); ties go to the lowest address.
//
// Two ordered sets: by address, for the merges of Give, and by length, for
// the choice.  The length key orders equal lengths so that the lowest
// address comes first in the direction of the search: (length, first) for
// best-fit, searched upward; (length, ~first) for worst-fit, searched
// downward.
#include <iterator>
#include <memory>
#include <utility>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "model/internal/placements.h"

namespace realm_shadow {
namespace model {
namespace internal {
namespace {

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
    uint64_t first;
    if (!Find(size, alignment, &first, offset)) return false;
    auto it = by_first_.find(first);
    const uint64_t last = it->second;
    Erase(it);
    if (*offset > first) Insert(first, *offset);
    if (*offset + size < last) Insert(*offset + size, last);
    return true;
  }
  bool CanTake(uint64_t size, uint64_t alignment) const override {
    uint64_t first, start;
    return Find(size, alignment, &first, &start);
  }

  void Give(uint64_t first, uint64_t last) override {
    if (first >= last) return;
    auto next = by_first_.lower_bound(first);
    if (next != by_first_.end() && next->first == last) {
      last = next->second;
      next = Erase(next);
    }
    if (next != by_first_.begin()) {
      auto prev = std::prev(next);
      if (prev->second == first) {
        first = prev->first;
        Erase(prev);
      }
    }
    Insert(first, last);
  }
  void Clear() override {
    by_first_.clear();
    by_length_.clear();
  }

  uint64_t LargestFree() const override {
    return by_length_.empty() ? 0 : std::prev(by_length_.end())->first;
  }
  size_t FreeRangeCount() const override { return by_first_.size(); }
  void ForEachFreeRange(
      absl::FunctionRef<void(const AddressRange&)> fn) const override {
    for (const auto& [first, last] : by_first_) fn(AddressRange{first, last});
  }

 private:
  using Key = std::pair<uint64_t, uint64_t>;  // length, first or ~first
  Key KeyOf(uint64_t first, uint64_t last) const {
    return {last - first, longest_ ? ~first : first};
  }
  uint64_t FirstOf(const Key& k) const { return longest_ ? ~k.second : k.second; }

  void Insert(uint64_t first, uint64_t last) {
    by_first_.emplace(first, last);
    by_length_.insert(KeyOf(first, last));
  }
  absl::btree_map<uint64_t, uint64_t>::iterator Erase(
      absl::btree_map<uint64_t, uint64_t>::iterator it) {
    by_length_.erase(KeyOf(it->first, it->second));
    return by_first_.erase(it);
  }

  // The chosen free range's first address and the aligned start in it.
  bool Find(uint64_t size, uint64_t alignment, uint64_t* first,
            uint64_t* start) const {
    auto fits = [&](const Key& k) {
      const uint64_t f = FirstOf(k);
      const uint64_t last = f + k.first;
      const uint64_t s = AlignUp(f, alignment);
      if (s >= last || last - s < size) return false;
      *first = f;
      *start = s;
      return true;
    };
    if (!longest_) {
      for (auto it = by_length_.lower_bound(Key{size, 0}); it != by_length_.end(); ++it)
        if (fits(*it)) return true;
      return false;
    }
    for (auto it = by_length_.rbegin(); it != by_length_.rend() && it->first >= size; ++it)
      if (fits(*it)) return true;
    return false;
  }

  bool longest_;
  absl::btree_map<uint64_t, uint64_t> by_first_;  // first -> last
  absl::btree_set<Key> by_length_;
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
