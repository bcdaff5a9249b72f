// model/placement_size_classes.cc - power-of-two bins with lists in entry
// order: the design of Realm's SizedRangeAllocator (placement.h).
//
// Ranges are nodes of one pool; each bin is a doubly linked list through
// them, its head the range that entered the bin last.  An address-ordered
// map finds the neighbours a freed range merges with.  A request walks
// bins and lists as Realm's class does (can_allocate, allocate), so its
// cost is the number of ranges it looks at, not O(log n).
#include <iterator>
#include <memory>
#include <vector>

#include "absl/container/btree_map.h"
#include "model/internal/placements.h"

namespace realm_shadow {
namespace model {
namespace internal {
namespace {

constexpr uint32_t kNil = UINT32_MAX;
constexpr int kBins = 64;

int BinOf(uint64_t length) { return 63 - __builtin_clzll(length); }

class SizeClasses final : public Placement {
 public:
  SizeClasses() { heads_.assign(kBins, kNil); }

  PlacementPolicy policy() const override { return PlacementPolicy::kSizeClasses; }
  std::unique_ptr<Placement> Clone() const override {
    return std::make_unique<SizeClasses>(*this);
  }

  bool Take(uint64_t size, uint64_t alignment, uint64_t* offset) override {
    const uint32_t n = Find(size, alignment, offset);
    if (n == kNil) return false;
    const uint64_t first = nodes_[n].first, last = nodes_[n].last;
    Unlink(n);
    by_first_.erase(first);
    spare_.push_back(n);
    // Pad first, then the tail: both enter their bins' heads.
    if (*offset > first) Add(first, *offset);
    if (*offset + size < last) Add(*offset + size, last);
    return true;
  }
  bool CanTake(uint64_t size, uint64_t alignment) const override {
    uint64_t start;
    return Find(size, alignment, &start) != kNil;
  }

  void Give(uint64_t first, uint64_t last) override {
    if (first >= last) return;
    auto next = by_first_.lower_bound(first);
    uint32_t succ = kNil, pred = kNil;
    if (next != by_first_.end() && next->first == last) succ = next->second;
    if (next != by_first_.begin()) {
      const uint32_t p = std::prev(next)->second;
      if (nodes_[p].last == first) pred = p;
    }
    if (pred == kNil && succ == kNil) {
      Add(first, last);
    } else if (succ == kNil) {
      Grow(pred, nodes_[pred].first, last);
    } else if (pred == kNil) {
      by_first_.erase(next);
      by_first_.emplace(first, succ);
      Grow(succ, first, nodes_[succ].last);
    } else {
      const uint64_t end = nodes_[succ].last;
      Unlink(succ);
      by_first_.erase(next);
      spare_.push_back(succ);
      Grow(pred, nodes_[pred].first, end);
    }
  }
  void Clear() override {
    nodes_.clear();
    spare_.clear();
    heads_.assign(kBins, kNil);
    by_first_.clear();
  }

  uint64_t LargestFree() const override {
    for (int b = kBins - 1; b >= 0; --b) {
      uint64_t best = 0;
      for (uint32_t n = heads_[b]; n != kNil; n = nodes_[n].next)
        if (nodes_[n].last - nodes_[n].first > best) best = nodes_[n].last - nodes_[n].first;
      if (best) return best;
    }
    return 0;
  }
  size_t FreeRangeCount() const override { return by_first_.size(); }
  void ForEachFreeRange(
      absl::FunctionRef<void(const AddressRange&)> fn) const override {
    for (const auto& [first, n] : by_first_) fn(AddressRange{first, nodes_[n].last});
  }

 private:
  struct Node {
    uint64_t first = 0;
    uint64_t last = 0;
    uint32_t prev = kNil;
    uint32_t next = kNil;
  };

  uint32_t Find(uint64_t size, uint64_t alignment, uint64_t* start) const {
    for (int b = BinOf(size); b < kBins; ++b) {
      for (uint32_t n = heads_[b]; n != kNil; n = nodes_[n].next) {
        const Node& r = nodes_[n];
        const uint64_t s = AlignUp(r.first, alignment);
        if (s < r.last && r.last - s >= size) {
          *start = s;
          return n;
        }
      }
    }
    return kNil;
  }

  void Add(uint64_t first, uint64_t last) {
    uint32_t n;
    if (!spare_.empty()) {
      n = spare_.back();
      spare_.pop_back();
    } else {
      n = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    nodes_[n].first = first;
    nodes_[n].last = last;
    by_first_.emplace(first, n);
    PushFront(n);
  }
  // Realm's grow_hole: the same bin keeps the list position.
  void Grow(uint32_t n, uint64_t first, uint64_t last) {
    const int old_bin = BinOf(nodes_[n].last - nodes_[n].first);
    if (BinOf(last - first) != old_bin) {
      Unlink(n);
      nodes_[n].first = first;
      nodes_[n].last = last;
      PushFront(n);
    } else {
      nodes_[n].first = first;
      nodes_[n].last = last;
    }
  }
  void PushFront(uint32_t n) {
    const int b = BinOf(nodes_[n].last - nodes_[n].first);
    nodes_[n].prev = kNil;
    nodes_[n].next = heads_[b];
    if (heads_[b] != kNil) nodes_[heads_[b]].prev = n;
    heads_[b] = n;
  }
  void Unlink(uint32_t n) {
    Node& r = nodes_[n];
    if (r.prev != kNil) nodes_[r.prev].next = r.next;
    else heads_[BinOf(r.last - r.first)] = r.next;
    if (r.next != kNil) nodes_[r.next].prev = r.prev;
    r.prev = r.next = kNil;
  }

  std::vector<Node> nodes_;
  std::vector<uint32_t> spare_;
  std::vector<uint32_t> heads_;  // per bin
  absl::btree_map<uint64_t, uint32_t> by_first_;
};

}  // namespace

std::unique_ptr<Placement> MakeSizeClassesPlacement() {
  return std::make_unique<SizeClasses>();
}

}  // namespace internal
}  // namespace model
}  // namespace realm_shadow
