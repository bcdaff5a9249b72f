// model/internal/allocated_ranges.h - the allocated ranges of one heap,
// found by tag in a dense array instead of a hash table.
//
// What it is for: a heap (range_allocator.h) looks up the range of a tag on
// every release and checks a tag on every placement.  The model memory's
// tags are record keys, a slot index in the low 32 bits and a generation in
// the high ones (model_memory.h), so slots are small and dense: the tag's
// slot indexes an array, and finding a range is one address computation and
// one compare, no hash.  At 100k live allocations that lookup is a cache
// miss either way, but this one can be prefetched from the tag alone and a
// new placement usually reuses a slot the last release freed (the model
// reuses its slots last-freed first), which is still in cache; a hash table
// puts it anywhere.
//
// Any tag works: one whose slot is taken by another tag (a record's old key
// still held by a heap after its slot was reused, model_memory.h
// current_contents()), or whose slot lies far beyond the live count (the
// array grows only to about twice the live count), goes to a small
// overflow table, hashed.  A lookup reads the overflow only while it holds
// something.
//
// Cost: Find/Insert/Erase O(1); iteration and copying O(array length + the
// overflow), the array length being at most about 2 x the most tags held at
// once plus 4096.  A copy of 100k live is a copy of one contiguous array
// (24 B a slot): a whole realm heap of 100k allocations copies in 0.9 ms,
// the same entries as a flat_hash_map alone in 2.4 ms (bench/
// replay_benchmark.cc BM_HeapCopy, BM_HeapCopyHashMapReference).  Not
// thread-safe.
#ifndef REALM_SHADOW_MODEL_INTERNAL_ALLOCATED_RANGES_H_
#define REALM_SHADOW_MODEL_INTERNAL_ALLOCATED_RANGES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/container/flat_hash_map.h"
#include "model/placement.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(model);
namespace model {
namespace internal {

class AllocatedRanges {
 public:
  using Tag = uint64_t;
  // (tag, range), as a map's entry reads.
  using Entry = std::pair<Tag, AddressRange>;

  // The array grows to hold a slot below 2 x the live count + kSlack only.
  static constexpr size_t kSlack = 4096;

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }

  // The tag's range, or null.
  const AddressRange* Find(Tag tag) const {
    const uint32_t slot = static_cast<uint32_t>(tag);
    if (slot < dense_.size()) {
      const Entry& e = dense_[slot];
      if (e.first == tag && e.second.first != kVacant) return &e.second;
    }
    if (overflow_.empty()) return nullptr;
    const auto it = overflow_index_.find(tag);
    return it == overflow_index_.end() ? nullptr : &overflow_[it->second].second;
  }
  AddressRange* Find(Tag tag) {
    return const_cast<AddressRange*>(std::as_const(*this).Find(tag));
  }
  bool Contains(Tag tag) const { return Find(tag) != nullptr; }
  // A hint, no change: brings the tag's entry towards the cache.
  void Prefetch(Tag tag) const {
    const uint32_t slot = static_cast<uint32_t>(tag);
    if (slot < dense_.size()) __builtin_prefetch(&dense_[slot]);
  }

  // False (and no change) when the tag is already held.
  bool Insert(Tag tag, AddressRange range);
  // Insert's and Erase's cases past the array's vacant slot, out of line.
  bool InsertSlow(Tag tag, AddressRange range);
  bool EraseSlow(Tag tag, AddressRange* range);
  // Makes the array hold the slots below `slots` (a heap seeded with tags
  // in any order: none of them goes to the overflow for arriving early).
  void ReserveSlots(size_t slots) {
    if (slots > dense_.size()) dense_.resize(slots, Entry{0, AddressRange{kVacant, kVacant}});
  }
  // The tag's range, taken out; false when it is not held.
  bool Erase(Tag tag, AddressRange* range);
  void Clear();

  // Every entry, the dense array's by slot, then the overflow's.
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = const Entry*;
    using reference = const Entry&;

    reference operator*() const { return ranges_->At(index_); }
    pointer operator->() const { return &ranges_->At(index_); }
    Iterator& operator++() {
      ++index_;
      index_ = ranges_->SkipVacant(index_);
      return *this;
    }
    bool operator==(const Iterator& o) const { return index_ == o.index_; }
    bool operator!=(const Iterator& o) const { return index_ != o.index_; }

   private:
    friend class AllocatedRanges;
    Iterator(const AllocatedRanges* ranges, size_t index)
        : ranges_(ranges), index_(index) {}
    const AllocatedRanges* ranges_;
    size_t index_;
  };
  Iterator begin() const { return Iterator(this, SkipVacant(0)); }
  Iterator end() const { return Iterator(this, dense_.size() + overflow_.size()); }

  // Calls fn(tag, range&) for every entry; fn may change the range (not
  // its emptiness: a zero-byte range stays {0, 0}).
  template <typename Fn>
  void ForEachMutable(Fn&& fn) {
    for (Entry& e : dense_)
      if (e.second.first != kVacant) fn(e.first, e.second);
    for (Entry& e : overflow_) fn(e.first, e.second);
  }

 private:
  // A vacant dense slot's first address (no range starts there: a range
  // that does ends at UINT64_MAX + its size).
  static constexpr uint64_t kVacant = UINT64_MAX;

  const Entry& At(size_t index) const {
    return index < dense_.size() ? dense_[index] : overflow_[index - dense_.size()];
  }
  size_t SkipVacant(size_t index) const {
    while (index < dense_.size() && dense_[index].second.first == kVacant) ++index;
    return index;
  }

  std::vector<Entry> dense_;     // by slot; second.first == kVacant: none
  std::vector<Entry> overflow_;  // the tags the array cannot take
  absl::flat_hash_map<Tag, uint32_t> overflow_index_;  // tag -> overflow_ index
  size_t count_ = 0;
};

inline bool AllocatedRanges::Insert(Tag tag, AddressRange range) {
  // The common case inline (a vacant slot in the array, nothing in the
  // overflow), the rest out of line: a placement pays a few instructions
  // for it, where the whole function, uninlined, cost 48.
  const uint32_t slot = static_cast<uint32_t>(tag);
  if (overflow_.empty() && slot < dense_.size() && dense_[slot].second.first == kVacant) {
    dense_[slot] = Entry{tag, range};
    ++count_;
    return true;
  }
  return InsertSlow(tag, range);
}

ABSL_ATTRIBUTE_NOINLINE inline bool AllocatedRanges::InsertSlow(Tag tag, AddressRange range) {
  if (!overflow_.empty() && overflow_index_.contains(tag)) return false;
  const uint32_t slot = static_cast<uint32_t>(tag);
  if (slot >= dense_.size() && slot < 2 * count_ + kSlack)
    ReserveSlots(std::max<size_t>(size_t{slot} + 1, dense_.size() * 3 / 2));
  if (slot < dense_.size()) {
    Entry& e = dense_[slot];
    if (e.second.first == kVacant) {
      e = Entry{tag, range};
      ++count_;
      return true;
    }
    if (e.first == tag) return false;
  }
  overflow_index_.emplace(tag, static_cast<uint32_t>(overflow_.size()));
  overflow_.push_back(Entry{tag, range});
  ++count_;
  return true;
}

inline bool AllocatedRanges::Erase(Tag tag, AddressRange* range) {
  const uint32_t slot = static_cast<uint32_t>(tag);
  if (slot < dense_.size()) {
    Entry& e = dense_[slot];
    if (e.first == tag && e.second.first != kVacant) {
      *range = e.second;
      e.second = AddressRange{kVacant, kVacant};
      --count_;
      return true;
    }
  }
  if (overflow_.empty()) return false;
  return EraseSlow(tag, range);
}

ABSL_ATTRIBUTE_NOINLINE inline bool AllocatedRanges::EraseSlow(Tag tag, AddressRange* range) {
  const auto it = overflow_index_.find(tag);
  if (it == overflow_index_.end()) return false;
  const uint32_t index = it->second;
  overflow_index_.erase(it);
  *range = overflow_[index].second;
  if (index + 1 != overflow_.size()) {
    overflow_[index] = overflow_.back();
    overflow_index_[overflow_[index].first] = index;
  }
  overflow_.pop_back();
  --count_;
  return true;
}

inline void AllocatedRanges::Clear() {
  dense_.clear();
  overflow_.clear();
  overflow_index_.clear();
  count_ = 0;
}

}  // namespace internal
}  // namespace model
}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_INTERNAL_ALLOCATED_RANGES_H_
