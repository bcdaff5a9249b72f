// realm_shadow/heap_observer.h - the shadow's view into a range allocator:
// one member in Realm's BasicRangeAllocator that reports what the heap did.
//
// What it is for: a Realm managed memory keeps three heaps (`current`,
// `future`, `release`) and a deferral algorithm that decides what goes into
// which (mem_impl.cc).  Hooks at the algorithm's decision points have to
// re-encode that algorithm, and break when it changes (Realm's deferred
// allocation keeps changing: a release-sequence cap on what a deferred request
// may use, id-reuse fixes).  Observing the heaps does not: whatever the
// algorithm decides, `current` ends up holding what is placed and `future`
// holding Realm's plan for the pending requests.  So the shadow watches two
// heaps and four entry points (realm_sites.h), and derives the rest:
//  - `current`: every allocate, deallocate, split_range and swap reports its
//    effect; the shadow's live allocations are exactly this heap's ranges.
//  - `future`: every placement in it is Realm planning a request that is not
//    in `current` yet (a deferred request, or a piece of a queued
//    redistrict), at the offset Realm will give it; a request leaves the
//    plan when `current` places it, or when Realm reports it failed or
//    cancelled (realm_sites.h, notify_allocation).
//  - Copies of a heap (the test heaps of release reordering) do not carry
//    the observer; an observed heap that is assigned keeps it and says so
//    (the current heap with its whole content, the future heap, which Realm
//    rebuilds by assignment from the current one, by voiding every plan
//    before the new ones arrive).  That is what makes the one member enough.
//
// Guarantees
//  - Exact: each report states what the heap holds after the operation, read
//    from the heap itself (split_range's pieces, a swap's difference), never
//    predicted.  A swap or an assignment reports as one group, so no snapshot
//    shows half of it.
//  - Cost on the allocation path: a null test when the heap is not observed
//    (future heaps of memories without pending work are touched rarely, test
//    heaps never); when observed, one journal append per allocate or
//    deallocate (journal.h), no lock, no heap allocation, no virtual call.
//    A swap costs one walk of both heaps' tag maps (Realm has just copied a
//    whole heap to make the one it swaps in); split_range one lookup per
//    piece.
//  - Without REALM_SHADOW_ENABLED=1 every member function is an empty inline
//    function and the member is one pointer and two bytes.
//
// What a heap type must offer (Realm's BasicRangeAllocator<RT, TT> does, as
// is): public `allocated`, a map from tag to range index, ordered by tag;
// public `ranges`, indexable, each with `first` and `last`; a static
// `SENTINEL` index meaning zero bytes at offset 0.  A tag is an integer or has
// an integer `id` (Realm::RegionInstance).  Another heap type specializes
// HeapContents (the model memory does, model/).
//
// C++17, header-only; beyond hooks.h it includes <cstdint>, <type_traits>,
// <utility> and <vector>, which mem_impl.h's own includes bring in anyway.
#ifndef REALM_SHADOW_HEAP_OBSERVER_H_
#define REALM_SHADOW_HEAP_OBSERVER_H_

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "realm_shadow/hooks.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(hooks);

// ---- tags ------------------------------------------------------------------

// The 64-bit id of a heap tag: Realm::RegionInstance's `id`, or the integer.
template <typename Tag>
inline auto TagId(const Tag& tag) -> decltype(static_cast<uint64_t>(tag.id)) {
  return static_cast<uint64_t>(tag.id);
}
template <typename Tag,
          typename std::enable_if<std::is_integral<Tag>::value, int>::type = 0>
inline uint64_t TagId(Tag tag) {
  return static_cast<uint64_t>(tag);
}

// ---- what a heap holds -------------------------------------------------------

// How to read a heap: Begin/End iterate its allocations, Entry decodes one
// (id, first, size), Find looks a tag up.  kOrdered: the iteration visits
// ids in increasing order, so a swap's difference is a merge of two walks
// (O(n)) instead of a lookup per entry (O(n log n) with std::map).  The
// primary template reads Realm's BasicRangeAllocator.
template <typename Heap, typename = void>
struct HeapContents {
  static constexpr bool kOrdered = true;
  using Iterator = decltype(std::declval<const Heap&>().allocated.begin());

  static Iterator Begin(const Heap& heap) { return heap.allocated.begin(); }
  static Iterator End(const Heap& heap) { return heap.allocated.end(); }
  static void Entry(const Heap& heap, Iterator it, uint64_t* id,
                    uint64_t* first, uint64_t* size) {
    *id = TagId(it->first);
    Range(heap, it->second, first, size);
  }
  template <typename Tag>
  static bool Find(const Heap& heap, const Tag& tag, uint64_t* first,
                   uint64_t* size) {
    const auto it = heap.allocated.find(tag);
    if (it == heap.allocated.end()) return false;
    Range(heap, it->second, first, size);
    return true;
  }
  template <typename Tag>
  static uint64_t Id(const Heap&, const Tag& tag) {
    return TagId(tag);
  }

 private:
  template <typename Index>
  static void Range(const Heap& heap, Index index, uint64_t* first,
                    uint64_t* size) {
    if (index == Heap::SENTINEL) {  // a zero-byte allocation: offset 0
      *first = 0;
      *size = 0;
      return;
    }
    const auto& r = heap.ranges[index];
    *first = static_cast<uint64_t>(r.first);
    *size = static_cast<uint64_t>(r.last - r.first);
  }
};

// ---- the member --------------------------------------------------------------

class HeapObserver {
 public:
  HeapObserver() noexcept = default;
  // A copy of a heap is not the memory's heap: it starts unobserved.
  HeapObserver(const HeapObserver&) noexcept {}
  HeapObserver(HeapObserver&&) noexcept {}
  // An observed heap that is assigned stays observed, and reports its whole
  // new content (the other members are assigned before this one, which is
  // declared after them).
  HeapObserver& operator=(const HeapObserver&) noexcept {
    Reassigned();
    return *this;
  }
  HeapObserver& operator=(HeapObserver&&) noexcept {
    Reassigned();
    return *this;
  }

  // Starts reporting `heap_object`'s changes as `memory`'s heap `heap`
  // (REALM_SHADOW_HEAP_CURRENT or _FUTURE).  heap_object is the heap this
  // observer is a member of.  A NULL memory leaves it unobserved.
  template <typename Heap>
  void Attach(realm_shadow_memory* memory, int heap, const Heap& heap_object) {
    memory_ = memory;
    heap_ = static_cast<uint8_t>(heap);
    heap_object_ = &heap_object;
    replaced_ = &ReportContent<Heap>;
  }

  realm_shadow_memory* memory() const { return memory_; }
  int heap() const { return heap_; }
  bool observed() const { return REALM_SHADOW_ENABLED && memory_ != nullptr; }

  // After the heap gave `tag` the range [first, first + size).
  template <typename Tag>
  void Placed(const Tag& tag, uint64_t first, uint64_t size,
              uint64_t alignment) const {
    if (observed() && !quiet_)
      realm_shadow_heap_placed(memory_, heap_, TagId(tag), first, size,
                               alignment);
  }
  // After the heap took `tag`'s range back.
  template <typename Tag>
  void Removed(const Tag& tag) const {
    if (observed() && !quiet_) realm_shadow_heap_removed(memory_, heap_, TagId(tag));
  }

  // Reports its heap's whole content (HeapContents) as a replacement.
  void ReportReplaced() const {
    if (observed() && replaced_ != nullptr) replaced_(heap_object_, *this);
  }

 private:
  template <typename Heap, typename Tag, typename Sizes, typename Alignments>
  friend class HeapSplitScope;

  void Reassigned() noexcept {
    if (!observed()) return;
    // An assigned current heap changes what is placed: its whole content
    // is reported.  The future heap is Realm's working copy, rebuilt by
    // assignment and then replanned: the rebuild voids every plan (one
    // record), and the placements that follow are the new ones.
    if (heap_ == REALM_SHADOW_HEAP_CURRENT)
      ReportReplaced();
    else
      realm_shadow_heap_reset(memory_, heap_);
  }

  template <typename Heap>
  static void ReportContent(const void* heap_object, const HeapObserver& self);

  realm_shadow_memory* memory_ = nullptr;
  const void* heap_object_ = nullptr;
  void (*replaced_)(const void*, const HeapObserver&) = nullptr;
  uint8_t heap_ = 0;
  // Inside split_range: its own deallocate of the old tag is part of the
  // split, which reports as one.
  mutable uint8_t quiet_ = 0;
};

// ---- bulk reports ------------------------------------------------------------

namespace heap_observer_internal {

// Changes collected for one bulk report, handed to the recorder's callback
// in order.  The vector holds the changes only (a swap's difference, a
// split's pieces are few), except for a whole-content report, which happens
// only if a current heap is ever assigned.
struct Changes {
  std::vector<realm_shadow_heap_change> list;
  size_t next = 0;
  static void Next(void* context, uint32_t, realm_shadow_heap_change* out) {
    Changes* self = static_cast<Changes*>(context);
    *out = self->list[self->next++];
  }
  uint32_t count() const { return static_cast<uint32_t>(list.size()); }
};

template <typename Heap>
void CollectContent(const Heap& heap, Changes* out) {
  using C = HeapContents<Heap>;
  for (auto it = C::Begin(heap); it != C::End(heap); ++it) {
    realm_shadow_heap_change c{0, 0, 0, 0, 1};
    C::Entry(heap, it, &c.instance, &c.offset, &c.size);
    out->list.push_back(c);
  }
}

// Entries of `a` that `b` lacks or holds elsewhere, in `a`'s order; each is
// appended with placed = `placed`.
template <typename Heap>
void CollectDifference(const Heap& a, const Heap& b, int placed,
                       Changes* out) {
  using C = HeapContents<Heap>;
  auto ia = C::Begin(a);
  auto ib = C::Begin(b);
  for (; ia != C::End(a); ++ia) {
    realm_shadow_heap_change c{0, 0, 0, 0, placed};
    C::Entry(a, ia, &c.instance, &c.offset, &c.size);
    uint64_t first = 0, size = 0;
    bool same = false;
    if (C::kOrdered) {
      // Merge: advance b to the first id not below a's.
      uint64_t id_b = 0;
      while (ib != C::End(b)) {
        C::Entry(b, ib, &id_b, &first, &size);
        if (id_b >= c.instance) break;
        ++ib;
      }
      same = ib != C::End(b) && id_b == c.instance && first == c.offset &&
             size == c.size;
    } else {
      same = C::Find(b, ia->first, &first, &size) && first == c.offset &&
             size == c.size;
    }
    if (!same) out->list.push_back(c);
  }
}

}  // namespace heap_observer_internal

template <typename Heap>
void HeapObserver::ReportContent(const void* heap_object,
                                 const HeapObserver& self) {
  heap_observer_internal::Changes content;
  heap_observer_internal::CollectContent(*static_cast<const Heap*>(heap_object),
                                         &content);
  realm_shadow_heap_replaced(self.memory_, self.heap_, content.count(),
                             &heap_observer_internal::Changes::Next, &content);
}

// In BasicRangeAllocator::swap, after the members were swapped: each side
// that is observed reports the difference between what it held (now in the
// other) and what it holds, removals first (a moved entry leaves before it
// lands), as one group.
template <typename Heap>
void HeapSwapped(const Heap& self, const Heap& other) {
  auto report = [](const Heap& now, const Heap& before) {
    const HeapObserver& o = now.shadow_observer;
    if (!o.observed()) return;
    heap_observer_internal::Changes diff;
    heap_observer_internal::CollectDifference(before, now, 0, &diff);
    heap_observer_internal::CollectDifference(now, before, 1, &diff);
    if (diff.list.empty()) return;
    realm_shadow_heap_swapped(o.memory(), o.heap(), diff.count(),
                              &heap_observer_internal::Changes::Next, &diff);
  };
  report(self, other);
  report(other, self);
}

// In BasicRangeAllocator::split_range, as its first statement (it has
// several returns): the old tag's range is cut into the new tags'.  On the
// way out, whatever path, reports the old range gone and the pieces the
// heap placed, read back from the heap; the heap's own deallocate of the old
// tag inside says nothing.  In the future heap, a piece the split could not
// place is reported too, as a request without a plan: Realm's queued
// redistrict still holds it, and it fails only when the split reaches the
// current heap.
template <typename Heap, typename Tag, typename Sizes, typename Alignments>
class HeapSplitScope {
 public:
  HeapSplitScope(const Heap& heap, const Tag& old_tag,
                 const std::vector<Tag>& new_tags, const Sizes& sizes,
                 const Alignments& alignments)
      : heap_(heap), old_tag_(old_tag), new_tags_(new_tags), sizes_(sizes),
        alignments_(alignments) {
    const HeapObserver& o = heap_.shadow_observer;
    uint64_t first = 0, size = 0;
    active_ = o.observed() && !o.quiet_ &&
              HeapContents<Heap>::Find(heap_, old_tag_, &first, &size);
    if (active_) o.quiet_ = 1;
  }
  HeapSplitScope(const HeapSplitScope&) = delete;
  HeapSplitScope& operator=(const HeapSplitScope&) = delete;

  ~HeapSplitScope() {
    if (!active_) return;
    const HeapObserver& o = heap_.shadow_observer;
    o.quiet_ = 0;
    all_ = o.heap() == REALM_SHADOW_HEAP_FUTURE;
    // Two passes over the new tags (count, then report), so nothing is
    // allocated: one lookup each per pass.
    uint32_t count = 0;
    for (const Tag& t : new_tags_) {
      uint64_t f, s;
      if (all_ || HeapContents<Heap>::Find(heap_, t, &f, &s)) ++count;
    }
    next_ = 0;
    realm_shadow_heap_split(o.memory(), o.heap(),
                            HeapContents<Heap>::Id(heap_, old_tag_), count,
                            &NextPiece, this);
  }

 private:
  static void NextPiece(void* context, uint32_t,
                        realm_shadow_heap_change* out) {
    auto* self = static_cast<HeapSplitScope*>(context);
    while (self->next_ < self->new_tags_.size()) {
      const size_t i = self->next_++;
      uint64_t first = 0, size = 0;
      const bool placed =
          HeapContents<Heap>::Find(self->heap_, self->new_tags_[i], &first, &size);
      if (!placed && !self->all_) continue;
      if (!placed) size = i < self->sizes_.size() ? uint64_t(self->sizes_[i]) : 0;
      const uint64_t alignment =
          i < self->alignments_.size() ? uint64_t(self->alignments_[i]) : 0;
      *out = realm_shadow_heap_change{
          HeapContents<Heap>::Id(self->heap_, self->new_tags_[i]), first,
          size, alignment, placed ? 1 : 0};
      return;
    }
    *out = realm_shadow_heap_change{0, 0, 0, 0, 0};
  }

  const Heap& heap_;
  const Tag& old_tag_;
  const std::vector<Tag>& new_tags_;
  const Sizes& sizes_;
  const Alignments& alignments_;
  bool active_ = false;
  bool all_ = false;
  size_t next_ = 0;
};

// `auto shadow_split = realm_shadow::HeapSplit(*this, old_tag, new_tags,
// sizes, alignments);` as the first statement of split_range.
template <typename Heap, typename Tag, typename Sizes, typename Alignments>
HeapSplitScope<Heap, Tag, Sizes, Alignments> HeapSplit(
    const Heap& heap, const Tag& old_tag, const std::vector<Tag>& new_tags,
    const Sizes& sizes, const Alignments& alignments) {
  return HeapSplitScope<Heap, Tag, Sizes, Alignments>(heap, old_tag, new_tags,
                                                      sizes, alignments);
}

}  // namespace realm_shadow

#endif  // REALM_SHADOW_HEAP_OBSERVER_H_
