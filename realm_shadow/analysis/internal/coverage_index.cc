// The union of live ranges and its holes, kept incrementally
// (coverage_index.h).
#include "realm_shadow/analysis/internal/coverage_index.h"
#include "realm_shadow/analysis/history_cursor.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace realm_shadow {
namespace {

constexpr uint64_t kEndOfMemory = UINT64_MAX;

uint64_t SaturatingEnd(uint64_t offset, uint64_t size) {
  return size > kEndOfMemory - offset ? kEndOfMemory : offset + size;
}

}  // namespace

void CoverageIndex::Reset(uint64_t capacity, bool capacity_known,
                          bool addressed) {
  capacity_ = capacity;
  capacity_known_ = capacity_known;
  addressed_ = addressed;
  segments_.clear();
  holes_.clear();
  used_ = total_free_ = hole_count_ = 0;
  CountGaps(segments_.end(), segments_.end(), +1);  // the empty memory
}

uint64_t CoverageIndex::GapSize(uint64_t from, uint64_t to) const {
  if (addressed_) return 0;
  // Capacity unknown: nothing is known to be free past the highest end,
  // which is the end of the last segment, so a gap with no segment after
  // it is no hole.
  if (!capacity_known_) return to == kEndOfMemory ? 0 : to - from;
  if (from >= capacity_) return 0;
  return std::min(to, capacity_) - from;
}

void CoverageIndex::AddHole(uint64_t size) {
  if (size == 0) return;
  ++holes_[size];
  total_free_ += size;
  ++hole_count_;
}

void CoverageIndex::RemoveHole(uint64_t size) {
  if (size == 0) return;
  auto it = holes_.find(size);
  if (it == holes_.end()) return;  // cannot happen: gaps are counted in pairs
  if (--it->second == 0) holes_.erase(it);
  total_free_ -= size;
  --hole_count_;
}

void CoverageIndex::CountGaps(Segments::iterator before,
                              Segments::iterator after, int sign) {
  uint64_t from = before == segments_.end() ? 0 : before->second.end;
  auto it = before == segments_.end() ? segments_.begin() : std::next(before);
  const auto gap = [&](uint64_t to) {
    const uint64_t size = to > from ? GapSize(from, to) : 0;
    if (sign > 0) AddHole(size);
    else RemoveHole(size);
  };
  for (; it != after && it != segments_.end(); ++it) {
    gap(it->first);
    from = it->second.end;
  }
  gap(after == segments_.end() ? kEndOfMemory : after->first);
}

void CoverageIndex::SplitAt(uint64_t at) {
  auto it = segments_.upper_bound(at);
  if (it == segments_.begin()) return;
  --it;
  if (it->first >= at || it->second.end <= at) return;
  const Segment upper{it->second.end, it->second.count};
  it->second.end = at;
  segments_.emplace(at, upper);
}

CoverageIndex::Segments::iterator CoverageIndex::Before(uint64_t offset) {
  auto it = segments_.lower_bound(offset);  // first starting at or after
  if (it == segments_.begin()) return segments_.end();
  --it;
  if (it->second.end <= offset) return it;
  // It overlaps offset: the one before it ends before its start.
  if (it == segments_.begin()) return segments_.end();
  return std::prev(it);
}

bool CoverageIndex::AddInGap(uint64_t offset, uint64_t end) {
  const auto after = segments_.lower_bound(offset);
  if (after != segments_.end() && after->first < end) return false;
  uint64_t from = 0;  // where the gap begins
  if (after != segments_.begin()) {
    from = std::prev(after)->second.end;
    if (from > offset) return false;
  }
  const uint64_t to = after == segments_.end() ? kEndOfMemory : after->first;
  RemoveHole(GapSize(from, to));  // to >= end > offset >= from
  AddHole(offset > from ? GapSize(from, offset) : 0);
  AddHole(to > end ? GapSize(end, to) : 0);
  segments_.emplace_hint(after, offset, Segment{end, 1});
  used_ += end - offset;
  return true;
}

bool CoverageIndex::RemoveAlone(uint64_t offset, uint64_t end) {
  const auto it = segments_.find(offset);
  if (it == segments_.end() || it->second.end != end || it->second.count != 1)
    return false;
  const uint64_t from =
      it == segments_.begin() ? 0 : std::prev(it)->second.end;
  const auto next = std::next(it);
  const uint64_t to = next == segments_.end() ? kEndOfMemory : next->first;
  RemoveHole(offset > from ? GapSize(from, offset) : 0);
  RemoveHole(to > end ? GapSize(end, to) : 0);
  AddHole(GapSize(from, to));  // to >= end > offset >= from
  segments_.erase(it);
  used_ -= end - offset;
  return true;
}

void CoverageIndex::Change(uint64_t offset, uint64_t size, bool add) {
  if (size == 0) return;  // zero-byte allocations occupy nothing
  const uint64_t end = SaturatingEnd(offset, size);
  if (end > offset && (add ? AddInGap(offset, end) : RemoveAlone(offset, end)))
    return;
  auto before = Before(offset);
  auto after = segments_.lower_bound(end);
  CountGaps(before, after, -1);
  // Their keys survive the changes below (neither segment is touched), the
  // iterators do not.
  const std::optional<uint64_t> before_key =
      before == segments_.end() ? std::nullopt : std::optional(before->first);
  const std::optional<uint64_t> after_key =
      after == segments_.end() ? std::nullopt : std::optional(after->first);

  SplitAt(offset);
  SplitAt(end);
  if (add) {
    uint64_t cursor = offset;
    auto it = segments_.lower_bound(offset);
    while (cursor < end) {
      if (it != segments_.end() && it->first == cursor) {
        ++it->second.count;
        cursor = it->second.end;
        ++it;
        continue;
      }
      const uint64_t next =
          it != segments_.end() && it->first < end ? it->first : end;
      segments_.emplace(cursor, Segment{next, 1});
      used_ += next - cursor;
      cursor = next;
      it = segments_.lower_bound(cursor);
    }
  } else {
    auto it = segments_.lower_bound(offset);
    while (it != segments_.end() && it->first < end) {
      if (--it->second.count == 0) {
        used_ -= it->second.end - it->first;
        it = segments_.erase(it);
      } else {
        ++it;
      }
    }
  }
  CountGaps(before_key ? segments_.find(*before_key) : segments_.end(),
            after_key ? segments_.find(*after_key) : segments_.end(), +1);
}

void CoverageIndex::Add(uint64_t offset, uint64_t size) {
  Change(offset, size, true);
}

void CoverageIndex::Remove(uint64_t offset, uint64_t size) {
  Change(offset, size, false);
}

MemoryFigures CoverageIndex::Figures(uint64_t allocation_count) const {
  MemoryFigures f;
  f.used = used_;
  f.allocation_count = allocation_count;
  if (addressed_) {
    const uint64_t cap = capacity_known_ ? capacity_ : used_;
    f.total_free = cap > used_ ? cap - used_ : 0;
    return f;
  }
  f.total_free = total_free_;
  f.hole_count = hole_count_;
  f.largest_hole = holes_.empty() ? 0 : holes_.rbegin()->first;
  if (f.total_free > 0)
    f.fragmentation = 1.0 - static_cast<double>(f.largest_hole) /
                                static_cast<double>(f.total_free);
  return f;
}

}  // namespace realm_shadow
