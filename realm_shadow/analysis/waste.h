// realm_shadow/analysis/waste.h - the bytes live instances hold that no
// one asked for: alignment padding, bounding-box inflation and fields
// beyond those requested; per allocation, per group, per memory; and
// whether recovering them could make a failed request fit.
//
// Layer analysis.  Reads one Snapshot (the figures its identities carry,
// core/identity.h) and nothing else.  Cost: O(n log n) in the snapshot's
// allocations (a sort by offset, a hash of the identities), allocating only
// the result; FitAfterRecovery adds a copy of the snapshot, two first-fits
// and two hole summaries.
//
// What each figure is (every one known or unknown, never guessed; a figure
// an identity lacks is unknown; figures that put field data past the
// allocation's size, or add up past it, contradict it, and none of that
// allocation's is kept):
//   padding      allocation size - #field_bytes: the live bytes of the
//                allocation that hold no field data (alignment of field
//                blocks and of the instance's end, element padding);
//   inflation    (#points - #region_points) * #bytes_per_point: the points
//                of the layout beyond the region the instance was made for
//                (a bounding box over a sparse region, padding), all the
//                fields it holds;
//   unrequested  (#bytes_per_point - #requested_bytes_per_point) *
//                #region_points: fields held beyond those its creator asked
//                for, over the region's points;
//   useful       what is left: #requested_bytes_per_point * #region_points.
// The four are disjoint and, when all are known, add up to the allocation's
// size.  A zero-byte allocation wastes nothing.
//
// The alignment gap in front of an allocation (the free bytes between the
// end of the allocation before it and its offset, when aligning that end up
// to its alignment gives its offset) is free space, not live bytes: it is
// reported apart, never added to the waste, and it is already counted in the
// memory's holes.
//
// Recovery (FitAfterRecovery) is an upper bound: the recovered bytes lie
// inside live instances, and Realm cannot shrink an instance in place.  The
// request fits only if shrinking the wasteful instances leaves a contiguous
// free range for it; the answer recomputes the holes with every allocation
// whose waste is known cut to its size minus that waste at its own offset,
// and says which of them the request's range would use.  Each of those would
// have to be re-created at its useful size (a new instance, its data
// copied, both alive during the copy; the new one has padding of its own),
// which is why the answer can only say that it might fit, never that it
// will.  Dropping instances whole is what FindBlockers (analysis.h) answers.
#ifndef REALM_SHADOW_ANALYSIS_WASTE_H_
#define REALM_SHADOW_ANALYSIS_WASTE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(analysis);

// The figures an identity carries (core/identity.h); nullopt when absent
// or not an unsigned decimal.
struct WasteFigures {
  std::optional<uint64_t> points;
  std::optional<uint64_t> field_bytes;
  std::optional<uint64_t> bytes_per_point;
  std::optional<uint64_t> region_points;
  std::optional<uint64_t> requested_bytes_per_point;
};
WasteFigures FiguresOf(const Identity& identity);

// Bytes that are known, or not.
struct WasteBytes {
  bool known = false;
  uint64_t bytes = 0;  // 0 when unknown
};

struct AllocationWaste {
  Allocation allocation;  // as in the snapshot (identity, kind, offset, ...)
  WasteBytes padding;
  WasteBytes inflation;
  WasteBytes unrequested;
  WasteBytes useful;  // known only when the three above are
  // The alignment gap in front (free, not live; see above).
  uint64_t alignment_gap_before = 0;

  // The sum of the known figures: what recovery can count on.
  uint64_t known_waste() const {
    return padding.bytes + inflation.bytes + unrequested.bytes;
  }
};

// One figure summed over allocations.
struct WasteSum {
  uint64_t bytes = 0;               // over the allocations that know it
  uint64_t known_allocations = 0;
  uint64_t unknown_allocations = 0;
  uint64_t unknown_bytes = 0;       // the sizes of those that do not
};

struct WasteTotals {
  uint64_t allocations = 0;
  uint64_t bytes = 0;  // their sizes
  WasteSum padding;
  WasteSum inflation;
  WasteSum unrequested;
  uint64_t alignment_gaps = 0;  // free, not live: never in known_waste()

  uint64_t known_waste() const {
    return padding.bytes + inflation.bytes + unrequested.bytes;
  }
  void Add(const AllocationWaste& waste);
  WasteTotals& operator+=(const WasteTotals& other);
};

// Every live allocation of a memory (Snapshot::allocations; instances of
// unknown placement hold no figures and are not listed), in address order.
struct MemoryWaste {
  std::vector<AllocationWaste> allocations;
  WasteTotals totals;
};
MemoryWaste FindWaste(const Snapshot& snapshot);

// Totals per group: the value `group_of` gives each allocation.  To group
// as `report --by NAME` does, pass (render/report.h)
//   [&](const Allocation& a) { return AttributeValue(snapshot, a.identity,
//                                  a.kind, GroupAttribute(NAME)); }
// Largest known waste first, then by value.
struct WasteGroup {
  std::string value;
  WasteTotals totals;
};
std::vector<WasteGroup> GroupWaste(
    const MemoryWaste& waste,
    const std::function<std::string(const Allocation&)>& group_of);

// Whether a request of `size` bytes at `alignment` could fit if the known
// waste of live instances were recovered (see above).
struct RecoveryFit {
  // False when the memory has instances of unknown placement: its holes
  // are unknown, and nothing below is claimed.
  bool placements_known = true;
  bool fits_now = false;  // no recovery needed
  // With every allocation cut to its size minus its known waste, in place:
  // whether first-fit finds room, and where (when it fits now: true, and
  // where it fits now).
  bool fits_after_recovery = false;
  uint64_t placement = 0;
  uint64_t largest_hole_now = 0;
  uint64_t largest_hole_after = 0;
  uint64_t recoverable_bytes = 0;  // the known waste of every allocation
  // The allocations the request's range [placement, placement + size)
  // would take bytes from: each would have to be re-created at its useful
  // size, which makes fits_after_recovery an upper bound.  Empty when it
  // fits now or not at all.
  std::vector<AllocationWaste> recreate;
  uint64_t pinned_in_recreate = 0;  // of those, valid (not collectable)
};
RecoveryFit FitAfterRecovery(const Snapshot& snapshot,
                             const MemoryWaste& waste, uint64_t size,
                             uint64_t alignment);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_ANALYSIS_WASTE_H_
