// realm_shadow/analysis/analysis.h - what can be computed from a Snapshot:
// holes, free space, fragmentation, whether a request fits, and which live
// allocations block one that does not.
//
// Layer analysis.  Every function reads one Snapshot and nothing else, is linear in
// its size (top-k: O(n log k)), and allocates only its result.  Every tool
// (report, dump on failure, page, plot) uses these, so the numbers agree
// everywhere.
//
// Conventions
//  - Offsets are relative to the memory's base; alignment is applied to the
//    offset, as Realm's range allocator does.
//  - A hole is a maximal free range [offset, offset + size) of size > 0 not
//    covered by any allocation of size > 0, including the gap before the
//    first allocation and the tail up to capacity (when capacity is known).
//    Zero-byte allocations occupy nothing.  Overlapping allocations (an
//    anomaly) cover their union.
//  - Addressed memories (dynamic framebuffer) have no holes: total_free is
//    capacity - used, largest_hole and fragmentation are not defined (0).
//  - fragmentation = 1 - largest_hole / total_free (0 when nothing is free).
#ifndef REALM_SHADOW_ANALYSIS_ANALYSIS_H_
#define REALM_SHADOW_ANALYSIS_ANALYSIS_H_

#include <array>
#include <cstdint>
#include <vector>

#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(analysis);

struct Hole {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t end() const { return offset + size; }
  bool operator==(const Hole& o) const {
    return offset == o.offset && size == o.size;
  }
};

// Holes in address order.
std::vector<Hole> FindHoles(const Snapshot& snapshot);

struct FreeSummary {
  uint64_t capacity = 0;
  uint64_t used = 0;          // bytes covered by live allocations (union)
  uint64_t total_free = 0;    // sum of holes (addressed: capacity - used)
  uint64_t largest_hole = 0;
  uint64_t hole_count = 0;
  uint64_t allocation_count = 0;
  double fragmentation = 0;   // 1 - largest_hole / total_free
};
FreeSummary Summarize(const Snapshot& snapshot);
FreeSummary SummarizeHoles(const Snapshot& snapshot,
                           const std::vector<Hole>& holes);

// The k largest holes, largest first; equal sizes by ascending offset.
std::vector<Hole> TopHoles(const std::vector<Hole>& holes, size_t k);

// Hole-size histogram: bucket b counts holes with size in [2^b, 2^(b+1)).
using HoleHistogram = std::array<uint64_t, 64>;
HoleHistogram HoleSizeHistogram(const std::vector<Hole>& holes);

// Bytes and counts of live allocations per AllocationKind.
struct KindUsage {
  uint64_t bytes = 0;
  uint64_t count = 0;
};
std::array<KindUsage, kAllocationKindCount> UsageByKind(const Snapshot& s);

// Live instances whose placement the source never gave (PendingRequest with
// kPlacementUnknown: a Realm log without debug-level lines).  While there
// are any, the memory's holes, free space and fragmentation are unknown:
// every function here still computes them from the placed allocations
// alone, and the tools say so instead of printing them.
KindUsage UnplacedUsage(const Snapshot& s);
inline bool PlacementsKnown(const Snapshot& s) {
  return UnplacedUsage(s).count == 0;
}

// Whether a request of `size` bytes at `alignment` fits now, and where
// Realm's first-fit would place it (the lowest hole whose aligned start
// leaves room; zero-byte requests fit at offset 0).
struct FitResult {
  bool fits = false;
  uint64_t offset = 0;
};
FitResult FirstFit(const Snapshot& snapshot, uint64_t size,
                   uint64_t alignment);

enum class BlockerObjective {
  kFewestBytes,        // minimize the bytes that must be released
  kFewestAllocations,  // minimize how many allocations must be released
};

// The cheapest contiguous window of live allocations whose release makes the
// request fit.  Pinned allocations (valid, not collectable) are never chosen.
struct BlockerWindow {
  bool found = false;        // false: no window works (pinned, or too big)
  bool fits_already = false; // the request fits without releasing anything
  uint64_t window_offset = 0;  // the free range after the release
  uint64_t window_end = 0;
  uint64_t placement = 0;      // where first-fit-in-window would place it
  uint64_t bytes_to_free = 0;
  std::vector<Allocation> blockers;  // in address order
};
BlockerWindow FindBlockers(const Snapshot& snapshot, uint64_t size,
                           uint64_t alignment,
                           BlockerObjective objective =
                               BlockerObjective::kFewestBytes);

// Whether a failed request is fragmentation (total free >= size, no hole
// fits) or exhaustion (total free < size), or fits now.
enum class FailureCause { kFits, kFragmentation, kExhaustion };
FailureCause ClassifyRequest(const Snapshot& snapshot, uint64_t size,
                             uint64_t alignment);
const char* FailureCauseName(FailureCause cause);

inline uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  if (alignment <= 1) return value;
  const uint64_t rem = value % alignment;
  return rem ? value + (alignment - rem) : value;
}

}  // namespace realm_shadow

#endif  // REALM_SHADOW_ANALYSIS_ANALYSIS_H_
