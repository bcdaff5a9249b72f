// tests/sites/realm_shaped_heap.h - a heap with the shape of Realm's
// BasicRangeAllocator<size_t, RegionInstance> (public `allocated` map from
// tag to range index, public `ranges`, SENTINEL for zero bytes, a tag with
// an `id`), calling its HeapObserver exactly where scripts/legion-enable-
// tracking puts the calls in Realm: after each `allocated[tag] = ...` of
// allocate(), after `allocated.erase(it)` of deallocate(tag), a HeapSplit
// scope first in split_range() (which has several returns), HeapSwapped
// last in swap().  Placement is plain first fit; what matters here is that
// the observer sees every change the way Realm's code makes it.
#ifndef REALM_SHADOW_TESTS_SITES_REALM_SHAPED_HEAP_H_
#define REALM_SHADOW_TESTS_SITES_REALM_SHAPED_HEAP_H_

#include <cstdint>
#include <map>
#include <vector>

#include "realm_shadow/heap_observer.h"
#include "tests/sites/realm_stand_ins.h"

namespace realm_shadow::testing {

class RealmShapedHeap : public RealmHeapMembers<FakeInstance> {
 public:
  explicit RealmShapedHeap(uint64_t capacity = 0) : capacity_(capacity) {
    ranges.push_back({0, 0});  // the sentinel
  }

  bool allocate(FakeInstance tag, uint64_t size, uint64_t alignment,
                uint64_t& alloc_first) {
    if (size == 0) {
      allocated[tag] = SENTINEL;
      shadow_observer.Placed(tag, 0, 0, alignment);
      return true;
    }
    uint64_t at = 0;
    if (!FirstFit(size, alignment, &at)) return false;
    alloc_first = at;
    const unsigned idx = static_cast<unsigned>(ranges.size());
    ranges.push_back({at, at + size});
    allocated[tag] = idx;
    shadow_observer.Placed(tag, alloc_first, size, alignment);
    return true;
  }

  void deallocate(FakeInstance tag, bool missing_ok = false) {
    (void)missing_ok;
    auto it = allocated.find(tag);
    if (it == allocated.end()) return;
    allocated.erase(it);
    shadow_observer.Removed(tag);
  }

  // Realm's contract: pieces are placed in order from the old range's start,
  // each aligned; the first that does not fit ends the split; the old tag is
  // deallocated on every path.  Returns how many were placed.
  size_t split_range(FakeInstance old_tag, const std::vector<FakeInstance>& new_tags,
                     const std::vector<uint64_t>& sizes,
                     const std::vector<uint64_t>& alignments,
                     std::vector<uint64_t>& allocs_first) {
    auto shadow_split =
        realm_shadow::HeapSplit(*this, old_tag, new_tags, sizes, alignments);
    auto it = allocated.find(old_tag);
    if (it == allocated.end()) return 0;  // first early return
    const unsigned idx = it->second;
    if (idx == SENTINEL) {  // zero-byte old range: only zero-byte pieces
      for (size_t i = 0; i < new_tags.size(); ++i) {
        if (sizes[i]) {
          deallocate(old_tag);
          return i;  // second early return
        }
        allocated[new_tags[i]] = SENTINEL;
        allocs_first[i] = 0;
      }
      deallocate(old_tag);
      return new_tags.size();
    }
    uint64_t cursor = ranges[idx].first;
    const uint64_t last = ranges[idx].last;
    deallocate(old_tag);
    for (size_t i = 0; i < new_tags.size(); ++i) {
      if (sizes[i] == 0) {
        allocated[new_tags[i]] = SENTINEL;
        allocs_first[i] = 0;
        continue;
      }
      const uint64_t a = alignments[i] ? alignments[i] : 1;
      const uint64_t start = (cursor + a - 1) / a * a;
      if (start + sizes[i] > last) return i;  // third early return
      allocs_first[i] = start;
      allocated[new_tags[i]] = static_cast<unsigned>(ranges.size());
      ranges.push_back({start, start + sizes[i]});
      cursor = start + sizes[i];
    }
    return new_tags.size();
  }

  void swap(RealmShapedHeap& swap_with) {
    allocated.swap(swap_with.allocated);
    ranges.swap(swap_with.ranges);
    std::swap(capacity_, swap_with.capacity_);
    realm_shadow::HeapSwapped(*this, swap_with);
  }

  bool lookup(FakeInstance tag, uint64_t& first, uint64_t& size) const {
    auto it = allocated.find(tag);
    if (it == allocated.end()) return false;
    first = it->second == SENTINEL ? 0 : ranges[it->second].first;
    size = it->second == SENTINEL ? 0 : ranges[it->second].last - first;
    return true;
  }

 private:
  bool FirstFit(uint64_t size, uint64_t alignment, uint64_t* at) const {
    std::map<uint64_t, uint64_t> used;  // first -> last
    for (const auto& [tag, idx] : allocated)
      if (idx != SENTINEL) used[ranges[idx].first] = ranges[idx].last;
    const uint64_t a = alignment ? alignment : 1;
    uint64_t cursor = 0;
    for (const auto& [first, last] : used) {
      const uint64_t start = (cursor + a - 1) / a * a;
      if (start + size <= first) {
        *at = start;
        return true;
      }
      cursor = std::max(cursor, last);
    }
    const uint64_t start = (cursor + a - 1) / a * a;
    if (start + size > capacity_) return false;
    *at = start;
    return true;
  }
  uint64_t capacity_;
};

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_SITES_REALM_SHAPED_HEAP_H_
