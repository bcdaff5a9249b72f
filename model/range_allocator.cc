// model/range_allocator.cc - see range_allocator.h.
#include "model/range_allocator.h"

#include <algorithm>
#include <limits>

namespace realm_shadow {
namespace model {

uint64_t AlignUp(uint64_t offset, uint64_t alignment) {
  if (alignment <= 1) return offset;
  const uint64_t rem = offset % alignment;
  if (rem == 0) return offset;
  const uint64_t add = alignment - rem;
  if (offset > std::numeric_limits<uint64_t>::max() - add)
    return std::numeric_limits<uint64_t>::max();
  return offset + add;
}

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

RangeAllocator::RangeAllocator(uint64_t capacity) { AddRange(0, capacity); }

bool RangeAllocator::AddRange(uint64_t first, uint64_t last) {
  if (first >= last) return false;
  // Overlap with a free range?
  auto it = free_.upper_bound(first);
  if (it != free_.end() && it->first < last) return false;
  if (it != free_.begin() && std::prev(it)->second > first) return false;
  for (const auto& [tag, r] : allocated_) {
    (void)tag;
    if (r.first < last && first < r.last) return false;
  }
  InsertFree(first, last);
  capacity_ = std::max(capacity_, last);
  return true;
}

bool RangeAllocator::Allocate(Tag tag, uint64_t size, uint64_t alignment,
                              uint64_t* offset) {
  if (allocated_.contains(tag)) return false;
  if (size == 0) {
    // Realm gives empty requests offset 0 and keeps them out of the ranges.
    allocated_.emplace(tag, Range{0, 0});
    *offset = 0;
    shadow_observer.Placed(InstanceOf(tag), 0, 0, alignment);
    return true;
  }
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uint64_t start;
    if (!FitsIn(it->first, it->second, size, alignment, &start)) continue;
    const uint64_t first = it->first;
    const uint64_t last = it->second;
    const uint64_t end = start + size;
    // The pad before the aligned start stays a free range of its own; the
    // tail after the allocation stays free as well.
    if (start > first) {
      it->second = start;
    } else {
      free_.erase(it);
    }
    if (end < last) free_.emplace(end, last);
    free_bytes_ -= size;
    allocated_.emplace(tag, Range{start, end});
    *offset = start;
    shadow_observer.Placed(InstanceOf(tag), start, size, alignment);
    return true;
  }
  return false;
}

bool RangeAllocator::CanAllocate(uint64_t size, uint64_t alignment) const {
  if (size == 0) return true;
  for (const auto& [first, last] : free_) {
    uint64_t start;
    if (FitsIn(first, last, size, alignment, &start)) return true;
  }
  return false;
}

void RangeAllocator::InsertFree(uint64_t first, uint64_t last) {
  if (first >= last) return;
  free_bytes_ += last - first;
  auto next = free_.lower_bound(first);
  if (next != free_.end() && next->first == last) {
    last = next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->second == first) {
      prev->second = last;
      return;
    }
  }
  free_.emplace_hint(next, first, last);
}

bool RangeAllocator::Deallocate(Tag tag) {
  auto it = allocated_.find(tag);
  if (it == allocated_.end()) return false;
  const Range r = it->second;
  allocated_.erase(it);
  InsertFree(r.first, r.last);
  shadow_observer.Removed(InstanceOf(tag));
  return true;
}

size_t RangeAllocator::SplitRange(Tag old_tag, std::vector<Piece>* pieces,
                                  bool* found) {
  auto it = allocated_.find(old_tag);
  if (found) *found = it != allocated_.end();
  if (it == allocated_.end()) return 0;
  const Range old = it->second;
  allocated_.erase(it);
  free_bytes_ += old.size();  // the pieces take their bytes back below

  uint64_t cursor = old.first;
  size_t placed = 0;
  for (Piece& p : *pieces) {
    if (allocated_.contains(p.tag)) break;
    if (p.size == 0) {
      allocated_.emplace(p.tag, Range{0, 0});
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
    allocated_.emplace(p.tag, Range{start, start + p.size});
    free_bytes_ -= p.size;
    p.offset = start;
    cursor = start + p.size;
    ++placed;
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
  free_.swap(other.free_);
  allocated_.swap(other.allocated_);
  std::swap(instance_of_, other.instance_of_);
  std::swap(instance_context_, other.instance_context_);
  HeapSwapped(*this, other);
}

bool RangeAllocator::Lookup(Tag tag, uint64_t* first, uint64_t* size) const {
  auto it = allocated_.find(tag);
  if (it == allocated_.end()) return false;
  if (first) *first = it->second.first;
  if (size) *size = it->second.size();
  return true;
}

uint64_t RangeAllocator::largest_free() const {
  uint64_t best = 0;
  for (const auto& [first, last] : free_) best = std::max(best, last - first);
  return best;
}

uint64_t RangeAllocator::largest_usable(uint64_t alignment) const {
  uint64_t best = 0;
  for (const auto& [first, last] : free_) {
    const uint64_t s = AlignUp(first, alignment);
    if (s < last) best = std::max(best, last - s);
  }
  return best;
}

std::vector<RangeAllocator::Range> RangeAllocator::FreeRanges() const {
  std::vector<Range> out;
  out.reserve(free_.size());
  for (const auto& [first, last] : free_) out.push_back(Range{first, last});
  return out;
}

bool RangeAllocator::CheckInvariants() const {
  std::vector<Range> all;
  uint64_t free_sum = 0;
  uint64_t prev_last = 0;
  bool first_range = true;
  for (const auto& [first, last] : free_) {
    if (first >= last) return false;
    // Maximal: two free ranges never touch.
    if (!first_range && first <= prev_last) return false;
    prev_last = last;
    first_range = false;
    free_sum += last - first;
    all.push_back(Range{first, last});
  }
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
