// model/range_allocator.cc - see range_allocator.h.
#include "model/range_allocator.h"

#include <algorithm>
#include <limits>

namespace realm_shadow {
namespace model {

namespace {
// Where a request lands inside [first, last), or false.
bool FitsIn(uint64_t first, uint64_t last, uint64_t size, uint64_t alignment,
            uint64_t* start) {
  const uint64_t s = AlignUp(first, alignment);
  if (s >= last || last - s < size) return false;
  *start = s;
  return true;
}
}  // namespace

RangeAllocator::RangeAllocator(PlacementPolicy policy)
    : placement_(MakePlacement(policy)) {}

RangeAllocator::RangeAllocator(uint64_t capacity, PlacementPolicy policy)
    : placement_(MakePlacement(policy)) {
  AddRange(0, capacity);
}

RangeAllocator::RangeAllocator(const RangeAllocator& other)
    : capacity_(other.capacity_),
      free_bytes_(other.free_bytes_),
      placement_(other.placement_->Clone()),
      allocated_(other.allocated_),
      instance_of_(other.instance_of_),
      instance_context_(other.instance_context_),
      highest_end_(other.highest_end_) {}

RangeAllocator& RangeAllocator::operator=(const RangeAllocator& other) {
  if (this == &other) return *this;
  capacity_ = other.capacity_;
  free_bytes_ = other.free_bytes_;
  placement_ = other.placement_->Clone();
  allocated_ = other.allocated_;
  instance_of_ = other.instance_of_;
  instance_context_ = other.instance_context_;
  // Last: an observed heap reports the content it now holds.
  shadow_observer = other.shadow_observer;
  return *this;
}

bool RangeAllocator::AddRange(uint64_t first, uint64_t last) {
  if (first >= last) return false;
  // Overlap with a free range?
  bool overlaps = false;
  placement_->ForEachFreeRange([&](const Range& r) {
    overlaps |= r.first < last && first < r.last;
  });
  if (overlaps) return false;
  for (const auto& [tag, r] : allocated_) {
    (void)tag;
    if (r.first < last && first < r.last) return false;
  }
  InsertFree(first, last);
  capacity_ = std::max(capacity_, last);
  return true;
}

bool RangeAllocator::Seed(const std::vector<std::pair<Tag, Range>>& allocations) {
  std::vector<std::pair<Tag, Range>> sorted = allocations;
  const auto by_first = [](const auto& a, const auto& b) { return a.second.first < b.second.first; };
  // A snapshot lists its allocations by offset already: a pass, not a sort
  // (a replay from a 100k base paid 53M instructions for the sort).
  if (!std::is_sorted(sorted.begin(), sorted.end(), by_first))
    std::sort(sorted.begin(), sorted.end(), by_first);
  internal::AllocatedRanges placed;
  size_t slots = 0;
  for (const auto& [tag, r] : sorted)
    slots = std::max<size_t>(slots, size_t{static_cast<uint32_t>(tag)} + 1);
  if (slots <= 2 * sorted.size() + internal::AllocatedRanges::kSlack)
    placed.ReserveSlots(slots);
  uint64_t cursor = 0, used = 0;
  for (const auto& [tag, r] : sorted) {
    if (r.last < r.first || !placed.Insert(tag, r.size() == 0 ? Range{0, 0} : r))
      return false;
    if (r.size() == 0) continue;
    if (r.first < cursor || r.last > capacity_) return false;
    cursor = r.last;
    used += r.size();
  }
  allocated_ = std::move(placed);
  if (highest_end_ && cursor > *highest_end_) *highest_end_ = cursor;
  placement_->Clear();
  free_bytes_ = capacity_ - used;
  cursor = 0;
  for (const auto& [tag, r] : sorted) {
    (void)tag;
    if (r.size() == 0) continue;
    placement_->Give(cursor, r.first);
    cursor = r.last;
  }
  placement_->Give(cursor, capacity_);
  return true;
}

bool RangeAllocator::Allocate(Tag tag, uint64_t size, uint64_t alignment,
                              uint64_t* offset) {
  if (allocated_.Contains(tag)) return false;
  if (size == 0) {
    // Realm gives empty requests offset 0 and keeps them out of the ranges.
    allocated_.Insert(tag, Range{0, 0});
    *offset = 0;
    if (shadow_observer.observed()) shadow_observer.Placed(InstanceOf(tag), 0, 0, alignment);
    return true;
  }
  uint64_t start;
  if (!placement_->Take(size, alignment, &start)) {
    // Only a placement that moves live data gets a second chance.
    if (!placement_->MovesLiveData() || free_bytes_ < size) return false;
    Compact();
    if (!placement_->Take(size, alignment, &start)) return false;
  }
  free_bytes_ -= size;
  allocated_.Insert(tag, Range{start, start + size});
  if (highest_end_ && start + size > *highest_end_) *highest_end_ = start + size;
  *offset = start;
  // The id only when someone reads it: InstanceOf is a call through a
  // pointer (the model's key to instance), 3 instructions an event of the
  // replay benchmark, whose heaps nobody observes.
  if (shadow_observer.observed()) shadow_observer.Placed(InstanceOf(tag), start, size, alignment);
  return true;
}

bool RangeAllocator::CanAllocate(uint64_t size, uint64_t alignment) const {
  if (size == 0) return true;
  return placement_->CanTake(size, alignment);
}

void RangeAllocator::Compact() {
  std::vector<std::pair<uint64_t, Range*>> by_offset;
  by_offset.reserve(allocated_.size());
  allocated_.ForEachMutable([&](Tag, Range& r) {
    if (r.size() > 0) by_offset.emplace_back(r.first, &r);
  });
  std::sort(by_offset.begin(), by_offset.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  uint64_t cursor = 0;
  for (const auto& [first, r] : by_offset) {
    (void)first;
    const uint64_t size = r->size();
    *r = Range{cursor, cursor + size};
    cursor += size;
  }
  placement_->Clear();
  placement_->Give(cursor, capacity_);
  // What is placed moved: the current heap says what it holds now; a
  // future heap's plans moved with it and are void.
  if (shadow_observer.observed()) {
    if (shadow_observer.heap() == REALM_SHADOW_HEAP_CURRENT)
      shadow_observer.ReportReplaced();
    else
      realm_shadow_heap_reset(shadow_observer.memory(), shadow_observer.heap());
  }
}

void RangeAllocator::InsertFree(uint64_t first, uint64_t last) {
  if (first >= last) return;
  free_bytes_ += last - first;
  placement_->Give(first, last);
}

bool RangeAllocator::Deallocate(Tag tag) {
  Range r;
  if (!allocated_.Erase(tag, &r)) return false;
  InsertFree(r.first, r.last);
  if (shadow_observer.observed()) shadow_observer.Removed(InstanceOf(tag));
  return true;
}

size_t RangeAllocator::SplitRange(Tag old_tag, std::vector<Piece>* pieces,
                                  bool* found) {
  Range old;
  const bool held = allocated_.Erase(old_tag, &old);
  if (found) *found = held;
  if (!held) return 0;
  free_bytes_ += old.size();  // the pieces take their bytes back below

  uint64_t cursor = old.first;
  size_t placed = 0;
  for (Piece& p : *pieces) {
    if (allocated_.Contains(p.tag)) break;
    if (p.size == 0) {
      allocated_.Insert(p.tag, Range{0, 0});
      p.offset = 0;
      ++placed;
      continue;
    }
    uint64_t start;
    if (!FitsIn(cursor, old.last, p.size, p.alignment, &start)) break;
    if (start > cursor) {
      free_bytes_ -= start - cursor;  // InsertFree adds it back
      InsertFree(cursor, start);
    }
    allocated_.Insert(p.tag, Range{start, start + p.size});
    free_bytes_ -= p.size;
    p.offset = start;
    cursor = start + p.size;
    ++placed;
    // Realm's split_range stops once a piece ends exactly at the old
    // range's end: the pieces after it, zero-byte ones too, fail.
    if (cursor == old.last) break;
  }
  if (cursor < old.last) {
    free_bytes_ -= old.last - cursor;
    InsertFree(cursor, old.last);
  }
  ReportSplit(old_tag, *pieces, placed);
  return placed;
}

void RangeAllocator::ReportSplit(Tag old_tag, const std::vector<Piece>& pieces,
                                 size_t placed) const {
  if (!shadow_observer.observed()) return;
  // As HeapSplitScope does for Realm: the placed pieces, and in the future
  // heap also the ones it could not place.
  const bool all = shadow_observer.heap() == REALM_SHADOW_HEAP_FUTURE;
  struct Context {
    const RangeAllocator* heap;
    const std::vector<Piece>* pieces;
    size_t placed;
  } context{this, &pieces, placed};
  realm_shadow_heap_split(
      shadow_observer.memory(), shadow_observer.heap(), InstanceOf(old_tag),
      static_cast<uint32_t>(all ? pieces.size() : placed),
      [](void* c, uint32_t i, realm_shadow_heap_change* out) {
        const auto* ctx = static_cast<const Context*>(c);
        const Piece& p = (*ctx->pieces)[i];
        const bool fits = i < ctx->placed;
        *out = realm_shadow_heap_change{ctx->heap->InstanceOf(p.tag),
                                        fits ? p.offset : 0, p.size,
                                        p.alignment, fits ? 1 : 0};
      },
      &context);
}

void RangeAllocator::Swap(RangeAllocator& other) {
  std::swap(capacity_, other.capacity_);
  std::swap(free_bytes_, other.free_bytes_);
  placement_.swap(other.placement_);
  std::swap(allocated_, other.allocated_);
  std::swap(instance_of_, other.instance_of_);
  std::swap(instance_context_, other.instance_context_);
  HeapSwapped(*this, other);
}

bool RangeAllocator::Lookup(Tag tag, uint64_t* first, uint64_t* size) const {
  const Range* r = allocated_.Find(tag);
  if (r == nullptr) return false;
  if (first) *first = r->first;
  if (size) *size = r->size();
  return true;
}

uint64_t RangeAllocator::largest_usable(uint64_t alignment) const {
  uint64_t best = 0;
  placement_->ForEachFreeRange([&](const Range& r) {
    const uint64_t s = AlignUp(r.first, alignment);
    if (s < r.last) best = std::max(best, r.last - s);
  });
  return best;
}

std::vector<RangeAllocator::Range> RangeAllocator::FreeRanges() const {
  std::vector<Range> out;
  out.reserve(placement_->FreeRangeCount());
  placement_->ForEachFreeRange([&](const Range& r) { out.push_back(r); });
  return out;
}

bool RangeAllocator::CheckInvariants() const {
  std::vector<Range> all;
  uint64_t free_sum = 0;
  uint64_t prev_last = 0;
  bool first_range = true;
  bool ok = true;
  size_t count = 0;
  placement_->ForEachFreeRange([&](const Range& r) {
    ++count;
    if (r.first >= r.last) ok = false;
    // Maximal: two free ranges never touch.
    if (!first_range && r.first <= prev_last) ok = false;
    prev_last = r.last;
    first_range = false;
    free_sum += r.size();
    all.push_back(r);
  });
  if (!ok || count != placement_->FreeRangeCount()) return false;
  if (free_sum != free_bytes_) return false;
  for (const auto& [tag, r] : allocated_) {
    (void)tag;
    if (r.size() > 0) all.push_back(r);
  }
  std::sort(all.begin(), all.end(),
            [](const Range& a, const Range& b) { return a.first < b.first; });
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i].first < all[i - 1].last) return false;
  return true;
}

}  // namespace model
}  // namespace realm_shadow
