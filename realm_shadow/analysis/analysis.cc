// realm_shadow/analysis/analysis.cc - holes, free space, first-fit and the
// blocker query over one Snapshot.
//
// Every query walks the allocations once in offset order.  The recorder hands
// them over sorted by (offset, instance); a snapshot read back from a damaged
// file may not be, so each entry point checks the order (one O(n) pass) and
// sorts a private copy only when it is broken.  Ranges are computed with a
// saturating end so that an allocation whose offset + size wraps past 2^64 (bad
// input) is clipped instead of wrapping to a small number.
#include "realm_shadow/analysis/analysis.h"

#include <algorithm>
#include <limits>

#include "realm_shadow/core/text.h"

namespace realm_shadow {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// Window byte sums: sizes of overlapping anomalies can add past 2^64, and the
// sweep both adds and subtracts, so saturation would not undo cleanly.
__extension__ typedef unsigned __int128 WideBytes;

uint64_t SaturatingEnd(const Allocation& a) {
  return a.size > kMax - a.offset ? kMax : a.offset + a.size;
}

uint64_t SaturatingAdd(uint64_t x, uint64_t y) {
  return y > kMax - x ? kMax : x + y;
}

bool ByOffset(const Allocation& x, const Allocation& y) {
  return x.offset < y.offset;
}

// The allocations in offset order without copying in the common case.
class OffsetOrder {
 public:
  explicit OffsetOrder(const std::vector<Allocation>& allocations) {
    if (std::is_sorted(allocations.begin(), allocations.end(), ByOffset)) {
      view_ = &allocations;
    } else {
      copy_ = allocations;
      std::stable_sort(copy_.begin(), copy_.end(), ByOffset);
      view_ = &copy_;
    }
  }
  const std::vector<Allocation>& get() const { return *view_; }

 private:
  const std::vector<Allocation>* view_ = nullptr;
  std::vector<Allocation> copy_;
};

uint64_t MaxEnd(const std::vector<Allocation>& sorted) {
  uint64_t end = 0;
  for (const Allocation& a : sorted) {
    if (a.size != 0) end = std::max(end, SaturatingEnd(a));
  }
  return end;
}

// Where free space ends.  With the capacity unknown (a memory rebuilt from a
// log that never gave it) nothing is known past the last allocation, so the
// extent stops at the highest end seen: no tail hole is invented.
uint64_t Extent(const Snapshot& s, const std::vector<Allocation>& sorted) {
  return s.capacity_known ? s.capacity : MaxEnd(sorted);
}

// Calls visit(offset, size) for each hole in address order until it returns
// false.  Holes are clipped to [0, extent): the gaps between anomalous
// allocations past the capacity are not memory.
template <typename Visit>
void ForEachHole(const Snapshot& s, const std::vector<Allocation>& sorted,
                 Visit visit) {
  if (s.addressed) return;
  const uint64_t extent = Extent(s, sorted);
  uint64_t cursor = 0;  // end of the covered prefix
  for (const Allocation& a : sorted) {
    if (a.size == 0) continue;
    if (cursor >= extent) return;
    if (a.offset > cursor) {
      const uint64_t end = std::min(a.offset, extent);
      if (!visit(cursor, end - cursor)) return;
    }
    cursor = std::max(cursor, SaturatingEnd(a));
  }
  if (cursor < extent) visit(cursor, extent - cursor);
}

// Bytes covered by the union of the non-empty allocations.
uint64_t CoveredBytes(const std::vector<Allocation>& sorted) {
  uint64_t used = 0;
  uint64_t run_start = 0, run_end = 0;
  bool open = false;
  for (const Allocation& a : sorted) {
    if (a.size == 0) continue;
    const uint64_t end = SaturatingEnd(a);
    if (open && a.offset <= run_end) {
      run_end = std::max(run_end, end);
      continue;
    }
    if (open) used = SaturatingAdd(used, run_end - run_start);
    run_start = a.offset;
    run_end = end;
    open = true;
  }
  if (open) used = SaturatingAdd(used, run_end - run_start);
  return used;
}

// Where a request lands in the free range [start, end) when the offset is
// aligned as Realm's BasicRangeAllocator does (offset % alignment, any
// alignment; 0 and 1 mean none).  False when it does not fit.
bool FitsIn(uint64_t start, uint64_t end, uint64_t size, uint64_t alignment,
            uint64_t* placement) {
  if (start >= end) return false;
  uint64_t at = start;
  if (alignment > 1) {
    const uint64_t rem = start % alignment;
    if (rem != 0) {
      const uint64_t pad = alignment - rem;
      if (pad > end - start) return false;
      at = start + pad;
    }
  }
  if (end - at < size) return false;
  *placement = at;
  return true;
}

FreeSummary SummarizeSorted(const Snapshot& s,
                            const std::vector<Allocation>& sorted,
                            const std::vector<Hole>* holes) {
  FreeSummary f;
  f.used = CoveredBytes(sorted);
  f.allocation_count = s.allocations.size();
  if (s.addressed) {
    // No offsets to speak of: free space is what the size cap leaves.  An
    // unknown cap is taken to be what is in use (nothing known to be free).
    f.capacity = s.capacity_known ? s.capacity : f.used;
    f.total_free = f.capacity > f.used ? f.capacity - f.used : 0;
    return f;
  }
  f.capacity = Extent(s, sorted);
  auto add = [&f](uint64_t size) {
    if (size == 0) return;
    f.total_free = SaturatingAdd(f.total_free, size);
    f.largest_hole = std::max(f.largest_hole, size);
    ++f.hole_count;
  };
  if (holes != nullptr) {
    for (const Hole& h : *holes) add(h.size);
  } else {
    ForEachHole(s, sorted, [&](uint64_t, uint64_t size) {
      add(size);
      return true;
    });
  }
  if (f.total_free > 0) {
    f.fragmentation = 1.0 - static_cast<double>(f.largest_hole) /
                                static_cast<double>(f.total_free);
  }
  return f;
}

struct Placement {
  bool fits = false;
  uint64_t offset = 0;
  Hole hole;  // the hole it lands in
};

Placement FirstFitSorted(const Snapshot& s,
                         const std::vector<Allocation>& sorted, uint64_t size,
                         uint64_t alignment) {
  Placement p;
  // Realm answers a zero-byte request with offset 0 without looking at the
  // free list, even in a full memory.
  if (size == 0) {
    p.fits = true;
    return p;
  }
  if (s.addressed) {
    // Every instance is its own device allocation; only the cap matters.
    const FreeSummary f = SummarizeSorted(s, sorted, nullptr);
    p.fits = f.total_free >= size;
    return p;
  }
  ForEachHole(s, sorted, [&](uint64_t offset, uint64_t hole_size) {
    uint64_t at = 0;
    if (!FitsIn(offset, offset + hole_size, size, alignment, &at)) return true;
    p.fits = true;
    p.offset = at;
    p.hole = Hole{offset, hole_size};
    return false;
  });
  return p;
}

// Addressed memories release instances independently: any set of releases
// whose bytes cover the shortfall makes room, so there is no window.  Fewest
// allocations is exact (largest first).  Fewest bytes is subset sum in
// general; the answer is the smallest single allocation that covers the
// shortfall when one exists, else the largest-first set.  O(n log n), a sort
// of the candidates.
BlockerWindow AddressedBlockers(const Snapshot& s,
                                const std::vector<Allocation>& sorted,
                                uint64_t size, BlockerObjective objective) {
  BlockerWindow w;
  const FreeSummary f = SummarizeSorted(s, sorted, nullptr);
  const uint64_t shortfall = size - f.total_free;  // size > total_free here
  std::vector<Allocation> candidates;
  for (const Allocation& a : sorted) {
    if (a.size != 0 && !a.pinned()) candidates.push_back(a);
  }
  if (objective == BlockerObjective::kFewestBytes) {
    const Allocation* single = nullptr;
    for (const Allocation& a : candidates) {
      if (a.size >= shortfall && (single == nullptr || a.size < single->size)) {
        single = &a;
      }
    }
    if (single != nullptr) {
      w.found = true;
      w.bytes_to_free = single->size;
      w.blockers.push_back(*single);
      return w;
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Allocation& x, const Allocation& y) {
                     return x.size > y.size;
                   });
  uint64_t freed = 0;
  for (const Allocation& a : candidates) {
    if (freed >= shortfall) break;
    freed = SaturatingAdd(freed, a.size);
    w.blockers.push_back(a);
  }
  if (freed < shortfall) {
    w.blockers.clear();
    return w;
  }
  w.found = true;
  w.bytes_to_free = freed;
  std::sort(w.blockers.begin(), w.blockers.end(), ByOffset);
  return w;
}

}  // namespace

std::vector<Hole> FindHoles(const Snapshot& snapshot) {
  const OffsetOrder order(snapshot.allocations);
  std::vector<Hole> holes;
  ForEachHole(snapshot, order.get(), [&](uint64_t offset, uint64_t size) {
    holes.push_back(Hole{offset, size});
    return true;
  });
  return holes;
}

FreeSummary Summarize(const Snapshot& snapshot) {
  const OffsetOrder order(snapshot.allocations);
  return SummarizeSorted(snapshot, order.get(), nullptr);
}

FreeSummary SummarizeHoles(const Snapshot& snapshot,
                           const std::vector<Hole>& holes) {
  const OffsetOrder order(snapshot.allocations);
  return SummarizeSorted(snapshot, order.get(), &holes);
}

std::vector<Hole> TopHoles(const std::vector<Hole>& holes, size_t k) {
  std::vector<Hole> top(std::min(k, holes.size()));
  std::partial_sort_copy(holes.begin(), holes.end(), top.begin(), top.end(),
                         [](const Hole& x, const Hole& y) {
                           if (x.size != y.size) return x.size > y.size;
                           return x.offset < y.offset;
                         });
  return top;
}

HoleHistogram HoleSizeHistogram(const std::vector<Hole>& holes) {
  HoleHistogram histogram{};
  for (const Hole& h : holes) {
    if (h.size == 0) continue;
    int bucket = 63;
    while ((h.size >> bucket) == 0) --bucket;  // floor(log2(size))
    ++histogram[bucket];
  }
  return histogram;
}

std::array<KindUsage, kAllocationKindCount> UsageByKind(const Snapshot& s) {
  std::array<KindUsage, kAllocationKindCount> usage{};
  for (const Allocation& a : s.allocations) {
    size_t kind = static_cast<size_t>(a.kind);
    // A kind from a newer dump than this build knows counts as unknown.
    if (kind >= usage.size()) kind = 0;
    usage[kind].bytes = SaturatingAdd(usage[kind].bytes, a.size);
    ++usage[kind].count;
  }
  return usage;
}

KindUsage UnplacedUsage(const Snapshot& s) {
  KindUsage usage;
  for (const PendingRequest& p : s.pending) {
    if (!p.placement_unknown()) continue;
    usage.bytes = SaturatingAdd(usage.bytes, p.size);
    ++usage.count;
  }
  return usage;
}

FitResult FirstFit(const Snapshot& snapshot, uint64_t size,
                   uint64_t alignment) {
  const OffsetOrder order(snapshot.allocations);
  const Placement p = FirstFitSorted(snapshot, order.get(), size, alignment);
  return FitResult{p.fits, p.offset};
}

// The window search.  Number the non-empty allocations a[0..n) by offset and
// let pm(i) be the highest end among a[0..i) and E(j) = a[j].offset (capacity
// for j = n), both clipped to the extent.  Releasing a[i..j) frees exactly
// [pm(i), E(j)).  pm grows with i and E with j, so for each j the largest i
// that still fits, i*(j), never decreases as j grows: one pointer sweep finds
// it for every j in O(n).  Any smaller i for the same j releases strictly more
// allocations and bytes (sizes are > 0), so i*(j) is the best window ending at
// j under both objectives; the answer is the best of these n + 1 candidates.
// A window is valid when no pinned allocation lies inside it.
BlockerWindow FindBlockers(const Snapshot& snapshot, uint64_t size,
                           uint64_t alignment, BlockerObjective objective) {
  const OffsetOrder order(snapshot.allocations);
  const std::vector<Allocation>& a = order.get();
  BlockerWindow w;
  const Placement now = FirstFitSorted(snapshot, a, size, alignment);
  if (now.fits) {
    w.found = true;
    w.fits_already = true;
    w.window_offset = now.hole.offset;
    w.window_end = now.hole.end();
    w.placement = now.offset;
    return w;
  }
  if (snapshot.addressed) return AddressedBlockers(snapshot, a, size, objective);

  const size_t n = a.size();
  auto skip_empty = [&](size_t k) {
    while (k < n && a[k].size == 0) ++k;
    return k;
  };
  const uint64_t extent = Extent(snapshot, a);
  auto range_end = [&](size_t j) {
    return j < n ? std::min(a[j].offset, extent) : extent;
  };
  auto fits = [&](uint64_t start, uint64_t end) {
    uint64_t at = 0;
    return FitsIn(start, end, size, alignment, &at);
  };

  struct Candidate {
    size_t i = 0, j = 0;
    uint64_t start = 0;
    WideBytes bytes = 0;
    size_t count = 0;
  };
  bool have_best = false;
  Candidate best;
  // Objective first, then the other measure, then the lower window, then the
  // lower first blocker; candidates differ in i when all of those tie.
  auto better = [&](const Candidate& x, const Candidate& y) {
    if (objective == BlockerObjective::kFewestBytes) {
      if (x.bytes != y.bytes) return x.bytes < y.bytes;
      if (x.count != y.count) return x.count < y.count;
    } else {
      if (x.count != y.count) return x.count < y.count;
      if (x.bytes != y.bytes) return x.bytes < y.bytes;
    }
    if (x.start != y.start) return x.start < y.start;
    if (a[x.i].offset != a[y.i].offset) return a[x.i].offset < a[y.i].offset;
    return x.i < y.i;
  };

  const size_t first = skip_empty(0);
  size_t i = first;
  size_t lowest_valid_i = first;  // just past the last pinned one before j
  uint64_t pm = 0;                // pm(i)
  WideBytes bytes = 0;    // sizes of a[i..j)
  size_t count = 0;               // non-empty allocations in a[i..j)
  for (size_t j = first;; j = skip_empty(j + 1)) {
    const uint64_t end = range_end(j);
    while (i < j) {
      const uint64_t next_pm = std::min(std::max(pm, SaturatingEnd(a[i])), extent);
      if (!fits(next_pm, end)) break;
      pm = next_pm;
      bytes -= a[i].size;
      --count;
      i = skip_empty(i + 1);
    }
    // count == 0 is an existing hole, which first-fit has already refused.
    if (count > 0 && i >= lowest_valid_i && fits(pm, end)) {
      const Candidate c{i, j, pm, bytes, count};
      if (!have_best || better(c, best)) {
        best = c;
        have_best = true;
      }
    }
    if (j >= n) break;
    bytes += a[j].size;
    ++count;
    if (a[j].pinned()) lowest_valid_i = skip_empty(j + 1);
  }
  if (!have_best) return w;

  w.found = true;
  w.window_offset = best.start;
  w.window_end = range_end(best.j);
  w.placement = AlignUp(best.start, alignment);
  w.bytes_to_free = best.bytes > kMax ? kMax : static_cast<uint64_t>(best.bytes);
  w.blockers.reserve(best.count);
  for (size_t k = best.i; k < best.j; k = skip_empty(k + 1)) {
    w.blockers.push_back(a[k]);
  }
  return w;
}

FailureCause ClassifyRequest(const Snapshot& snapshot, uint64_t size,
                             uint64_t alignment) {
  const OffsetOrder order(snapshot.allocations);
  if (FirstFitSorted(snapshot, order.get(), size, alignment).fits) {
    return FailureCause::kFits;
  }
  const FreeSummary f = SummarizeSorted(snapshot, order.get(), nullptr);
  return f.total_free >= size ? FailureCause::kFragmentation
                              : FailureCause::kExhaustion;
}

const char* FailureCauseName(FailureCause cause) {
  static constexpr const char* kNames[] = {"fits", "fragmentation",
                                           "exhaustion"};
  return EnumName<size_t(FailureCause::kExhaustion) + 1>(kNames, cause,
                                                         "unknown");
}

}  // namespace realm_shadow
