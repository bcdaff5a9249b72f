// model/range_allocator.h - the range allocator behind one Realm
// memory heap: Realm's rules for allocated ranges, a placement policy for
// the free ones.
//
// What it is for: the model memory (model_memory.h) keeps three of these per
// memory, as Realm's LocalManagedMemory keeps three BasicRangeAllocator<size_t,
// RegionInstance> heaps (current, future, release).  Every placement decision
// the model makes comes from here; with the default policy (realm) it places
// exactly where Realm would:
//
//  - The heap is [0, capacity) cut into ranges [first, last); the free ones
//    are always maximal (a freed range merges with free neighbours on both
//    sides).
//  - Where a request goes is its Placement's choice (placement.h).  Realm's
//    is first fit over the free ranges in address order.  The alignment
//    applies to the offset: a request of size s aligned to a uses the first
//    free range [f, l) with align_up(f, a) + s <= l.  The pad
//    [f, align_up(f, a)) stays free, a separate free range, and the tail
//    after the allocation stays free too.  Every policy keeps pad and tail.
//  - Zero-byte allocations get offset 0 and occupy nothing; any number of
//    them may exist.
//  - SplitRange (redistrict) cuts one allocated range in place into pieces
//    with their own alignments, placed in order from the range's start
//    (whatever the policy: Realm's split_range); a piece that does not fit
//    fails, and so does every piece after it, as do all pieces after one
//    that ends exactly at the old range's end (zero-byte ones included);
//    whatever of the old range no piece covers is freed.
//  - Compacting (Placement::MovesLiveData): when no free range is long
//    enough but the free bytes hold the request, the heap slides every
//    allocation down, in address order and without padding, and places
//    after them; an observed current heap reports its whole new content.
//
// Observable equivalence, not a transliteration: Realm links every range,
// free or not, in an address-ordered list and keeps a free list through it.
// Here the allocated ranges live in an array indexed by the tag's low 32
// bits (internal/allocated_ranges.h: the model's tags are dense slots) and
// the free ones in the placement's own structure.  The free ranges and every
// placement are the same; what differs is the cost: Realm's first fit walks
// its free list (O(free ranges) per request), the realm placement finds the
// same range in O(log n) (internal/free_range_index.h), so that a replay
// does not pay that walk per event.
//
// Heap observation: like Realm's BasicRangeAllocator, the heap carries a
// HeapObserver (realm_shadow/heap_observer.h) as its last member and reports
// every successful Allocate, Deallocate and SplitRange, and Swap's
// difference, to it; copies are not observed.  Tags are the model's own keys,
// so the observer is told the instance id of a tag through InstanceOf
// (set_instance_of; the tag itself by default).
//
// Not thread-safe (Realm holds allocator_mutex around every call).  Copying
// is O(allocated + free ranges), as Realm's copies of its heaps are (the
// allocated ones: one contiguous array about as long as the most tags
// held at once, allocated_ranges.h).
#ifndef REALM_SHADOW_MODEL_RANGE_ALLOCATOR_H_
#define REALM_SHADOW_MODEL_RANGE_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "model/internal/allocated_ranges.h"
#include "model/placement.h"
#include "realm_shadow/heap_observer.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(model);
namespace model {

class RangeAllocator {
 public:
  using Tag = uint64_t;

  using Range = AddressRange;

  // One piece of a SplitRange request and, on return, where it went.
  struct Piece {
    Tag tag = 0;
    uint64_t size = 0;
    uint64_t alignment = 0;
    uint64_t offset = 0;  // set for the pieces that fit
  };

  // A heap with no range, placing as `policy` does.
  explicit RangeAllocator(PlacementPolicy policy = PlacementPolicy::kRealm);
  // A heap with one free range [0, capacity).
  explicit RangeAllocator(uint64_t capacity,
                          PlacementPolicy policy = PlacementPolicy::kRealm);
  // A copy is not observed; an assigned observed heap reports its new
  // content (heap_observer.h).  The placement is cloned.
  RangeAllocator(const RangeAllocator& other);
  RangeAllocator& operator=(const RangeAllocator& other);

  PlacementPolicy policy() const { return placement_->policy(); }

  // Adds [first, last) as free; false (and no change) if it is empty or
  // overlaps a range already known.
  bool AddRange(uint64_t first, uint64_t last);

  // Makes the heap hold exactly `allocations` (tag, range), the rest of
  // [0, capacity) free: a heap as a snapshot shows it, with no history.
  // The free ranges reach the placement in address order.  False, and no
  // change, when two ranges overlap, one passes the capacity or a tag
  // repeats.  Not observed (the memory has not been reported yet).
  bool Seed(const std::vector<std::pair<Tag, Range>>& allocations);

  // Placement by the policy.  False if no free range fits or the tag is
  // already allocated (the heap is left unchanged).
  bool Allocate(Tag tag, uint64_t size, uint64_t alignment, uint64_t* offset);
  // Would Allocate succeed?  Same search, no change.
  bool CanAllocate(uint64_t size, uint64_t alignment) const;

  // Frees the tag's range, merging with free neighbours.  An unknown tag
  // returns false and changes nothing (Realm's missing_ok).
  bool Deallocate(Tag tag);

  // Splits the allocated range of old_tag in place (see the header comment).
  // Returns how many leading pieces were placed (their offsets are set);
  // pieces[returned..] failed.  An unknown old_tag returns 0 and changes
  // nothing; *found says which (may be null).
  size_t SplitRange(Tag old_tag, std::vector<Piece>* pieces, bool* found);

  bool Lookup(Tag tag, uint64_t* first, uint64_t* size) const;
  bool Contains(Tag tag) const { return allocated_.Contains(tag); }
  // Hints, no change: brings the tag's entry towards the cache; then,
  // once that has arrived, the free ranges its Deallocate will read.
  void Prefetch(Tag tag) const { allocated_.Prefetch(tag); }
  void PrefetchDeallocate(Tag tag) const {
    if (const Range* r = allocated_.Find(tag); r && r->size() > 0)
      placement_->PrefetchGive(r->first, r->last);
  }

  // Exchanges the contents of two heaps, as Realm's swap does; each keeps its
  // observer, and an observed side reports the difference.
  void Swap(RangeAllocator& other);

  // Where this heap, and every copy made of it, raises the highest end a
  // placement reached (Allocate and Seed; a split stays inside its old
  // range, a compaction moves down): the model memory keeps one for its
  // heaps and their copies (ModelMemory::highest_end()).  An assignment or
  // a swap keeps each side's own.  Null: none.
  void set_highest_end(uint64_t* highest_end) { highest_end_ = highest_end; }

  // The instance id the observer is told for a tag.
  using InstanceOfFn = uint64_t (*)(const void* context, Tag tag);
  void set_instance_of(InstanceOfFn fn, const void* context) {
    instance_of_ = fn;
    instance_context_ = context;
  }
  uint64_t InstanceOf(Tag tag) const {
    return instance_of_ ? instance_of_(instance_context_, tag) : tag;
  }
  // (tag, range) entries, in no particular order.
  const internal::AllocatedRanges& allocations() const { return allocated_; }

  // ---- figures (O(1) unless noted) ---------------------------------------
  uint64_t capacity() const { return capacity_; }
  uint64_t free_bytes() const { return free_bytes_; }
  size_t free_range_count() const { return placement_->FreeRangeCount(); }
  size_t allocated_count() const { return allocated_.size(); }
  // O(1) for the address-ordered policies and best/worst-fit; a walk of the
  // top bin for size-classes.
  uint64_t largest_free() const { return placement_->LargestFree(); }
  // The most bytes one request aligned to `alignment` could get (a walk).
  uint64_t largest_usable(uint64_t alignment) const;

  // Free ranges in address order (a walk).
  void ForEachFreeRange(absl::FunctionRef<void(const Range&)> fn) const {
    placement_->ForEachFreeRange(fn);
  }
  std::vector<Range> FreeRanges() const;

  // Checks the invariants (free ranges maximal, disjoint from allocations,
  // free_bytes consistent).  O(n log n); for tests.
  bool CheckInvariants() const;

 private:
  // Frees [first, last), merging with neighbours.
  void InsertFree(uint64_t first, uint64_t last);
  // Slides every allocation down to offset 0, in address order, no pads.
  void Compact();

  void ReportSplit(Tag old_tag, const std::vector<Piece>& pieces,
                   size_t placed) const;

  uint64_t capacity_ = 0;
  uint64_t free_bytes_ = 0;
  std::unique_ptr<Placement> placement_;           // the free ranges
  internal::AllocatedRanges allocated_;           // zero-byte: {0, 0}
  InstanceOfFn instance_of_ = nullptr;
  const void* instance_context_ = nullptr;
  uint64_t* highest_end_ = nullptr;

 public:
  // Last, so that an assignment copies the contents before this member
  // reports them (heap_observer.h).
  HeapObserver shadow_observer;
};

}  // namespace model

// How the heap observer reads a model heap: unordered tags, ids through
// InstanceOf.
template <>
struct HeapContents<model::RangeAllocator> {
  using Heap = model::RangeAllocator;
  static constexpr bool kOrdered = false;
  using Iterator = model::internal::AllocatedRanges::Iterator;
  static Iterator Begin(const Heap& heap) { return heap.allocations().begin(); }
  static Iterator End(const Heap& heap) { return heap.allocations().end(); }
  static void Entry(const Heap& heap, Iterator it, uint64_t* id,
                    uint64_t* first, uint64_t* size) {
    *id = heap.InstanceOf(it->first);
    *first = it->second.first;
    *size = it->second.size();
  }
  static bool Find(const Heap& heap, Heap::Tag tag, uint64_t* first,
                   uint64_t* size) {
    return heap.Lookup(tag, first, size);
  }
  static uint64_t Id(const Heap& heap, Heap::Tag tag) {
    return heap.InstanceOf(tag);
  }
};

}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_RANGE_ALLOCATOR_H_
