// realm_shadow/analysis/internal/coverage_index.h - the union of a memory's
// live ranges and its holes, kept as ranges come and go, so that a replay
// knows used, total free and the largest hole after every event without a
// walk of the allocations.
//
// Layer analysis, internal.  Exactly the numbers of Summarize (analysis.h) for the
// same allocations: used is the union of the non-empty ranges (overlaps
// count once), holes are the gaps of that union clipped to the capacity (or,
// capacity unknown, below the highest end), addressed memories have no holes
// and total_free = capacity - used.  tests/analysis/history_cursor_test.cc checks
// the figures against Summarize at every k-th moment of random histories.
//
// How: the union is a B-tree of disjoint segments, each with how many live
// ranges cover it (a range is split at its ends where it overlaps others,
// never merged back: at most two segments per live range), and the holes'
// sizes are a B-tree multiset.  A change rewrites only the gaps between the
// segments just before and after the range: O(log n + k) for a range that
// meets k segments.  Without overlaps (k <= 1) a change is one B-tree
// search, one insert or erase and three hole updates.  Not thread-safe.
#ifndef REALM_SHADOW_ANALYSIS_INTERNAL_COVERAGE_INDEX_H_
#define REALM_SHADOW_ANALYSIS_INTERNAL_COVERAGE_INDEX_H_

#include <cstdint>

#include "absl/container/btree_map.h"
#include "realm_shadow/core/history.h"
#include "realm_shadow/layers.h"
#include "realm_shadow/analysis/history_cursor.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(analysis);

class CoverageIndex {
 public:
  // Empties the index for a memory of this shape.
  void Reset(uint64_t capacity, bool capacity_known, bool addressed);
  // A live range [offset, offset + size) appears / goes (size 0: nothing).
  void Add(uint64_t offset, uint64_t size);
  void Remove(uint64_t offset, uint64_t size);
  // allocation_count is the caller's (zero-byte allocations count there).
  MemoryFigures Figures(uint64_t allocation_count) const;

 private:
  struct Segment {
    uint64_t end;
    uint64_t count;  // live ranges covering it, >= 1
  };
  using Segments = absl::btree_map<uint64_t, Segment>;

  // The hole between a segment ending at `from` and one starting at `to`
  // (UINT64_MAX: no segment after), clipped to the extent; 0 if none.
  uint64_t GapSize(uint64_t from, uint64_t to) const;
  // Adds (sign +1) or removes (-1) the holes between `before` (end() for
  // the start of memory) and `after` (end() for the end of memory).
  void CountGaps(Segments::iterator before, Segments::iterator after, int sign);
  void AddHole(uint64_t size);
  void RemoveHole(uint64_t size);
  // Splits the segment containing `at` (if any) so that one starts there.
  void SplitAt(uint64_t at);
  // The segments that ranges ending at or before `offset` leave untouched:
  // the last one ending at or before it (end() if none), and the first one
  // starting at or after `end`.
  Segments::iterator Before(uint64_t offset);
  // The two changes nearly every event makes, each in one search and at
  // most three hole updates: a range that meets no live range splits the
  // gap it lies in (AddInGap), and the only range over one whole segment
  // goes and the gaps either side merge (RemoveAlone).  False, nothing
  // changed, when the range is not that case: Change then takes the
  // general path.
  bool AddInGap(uint64_t offset, uint64_t end);
  bool RemoveAlone(uint64_t offset, uint64_t end);
  void Change(uint64_t offset, uint64_t size, bool add);

  uint64_t capacity_ = 0;
  bool capacity_known_ = true;
  bool addressed_ = false;
  Segments segments_;
  absl::btree_map<uint64_t, uint64_t> holes_;  // size -> how many
  uint64_t used_ = 0;
  uint64_t total_free_ = 0;
  uint64_t hole_count_ = 0;
};

}  // namespace realm_shadow

#endif  // REALM_SHADOW_ANALYSIS_INTERNAL_COVERAGE_INDEX_H_
