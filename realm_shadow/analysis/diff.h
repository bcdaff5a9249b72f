// realm_shadow/analysis/diff.h - what changed in one memory between two
// Snapshots, at the level of offsets.
//
// Layer analysis.  A diff answers "which allocations came, went or moved, which holes
// opened or closed, and how did free space and fragmentation change" between
// an earlier picture (before) and a later one (after) of the same memory.
//
// Matching.  Realm reuses instance ids after an instance is destroyed, so an id
// alone does not name one allocation across two pictures.  An allocation is
// the triple (instance, offset, size):
//  - a triple present in both is unchanged (listed in `changed` when its
//    state, flags, identity, kind or alignment differ: a release was queued,
//    an identity was attached; `what` says which).  Identities are compared
//    by what they say (kind and attributes), not by id: ids are a process's
//    own, so two dumps may give one identity different ids;
//  - what is left of an instance in before and in after, paired in offset
//    order, has moved: same id, a different range (a destroy and a re-create
//    of the id at a new place, or a redistrict piece reusing the id);
//  - the rest is removed (only in before) or added (only in after).
// Duplicate triples (an anomaly) are matched one for one.
//
// Holes are compared exactly: a hole opened is an (offset, size) of after
// that before does not have, a hole closed the reverse.  A hole that grew
// shows as one closed and one opened.
//
// Cost: O(n log n) in the two sizes (one sort of each by instance), plus the
// hole walks of analysis.h.  Nothing is shared with the inputs.
#ifndef REALM_SHADOW_ANALYSIS_DIFF_H_
#define REALM_SHADOW_ANALYSIS_DIFF_H_

#include <cstdint>
#include <vector>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(analysis);

struct AllocationMove {
  Allocation before;
  Allocation after;
};

// Bits of AllocationChange::what.
enum AllocationChangeBit : uint8_t {
  kStateChanged = 1,
  kIdentityChanged = 2,
  kPinnedChanged = 4,
  kFlagsChanged = 8,  // from_redistrict / was_deferred
  kKindChanged = 16,
  kAlignmentChanged = 32,
};

struct AllocationChange {  // same (instance, offset, size), other attributes
  Allocation before;
  Allocation after;
  uint8_t what = 0;  // AllocationChangeBit: never 0
};

struct SnapshotDiff {
  // False when the two pictures name different memories (memory_id or node);
  // the diff is still computed, offset by offset.
  bool same_memory = true;
  uint64_t before_sequence = 0;
  uint64_t after_sequence = 0;

  // Each list in address order (moves by their offset in after).
  std::vector<Allocation> added;
  std::vector<Allocation> removed;
  std::vector<AllocationMove> moved;
  std::vector<AllocationChange> changed;
  uint64_t unchanged_count = 0;  // triples in both, changed ones included

  std::vector<Hole> holes_opened;
  std::vector<Hole> holes_closed;

  FreeSummary before_summary;
  FreeSummary after_summary;
  // after - before.
  int64_t used_delta = 0;
  int64_t total_free_delta = 0;
  int64_t largest_hole_delta = 0;
  int64_t allocation_count_delta = 0;
  int64_t hole_count_delta = 0;
  double fragmentation_delta = 0;

  bool empty() const {
    return added.empty() && removed.empty() && moved.empty() &&
           changed.empty() && holes_opened.empty() && holes_closed.empty();
  }
};

SnapshotDiff DiffSnapshots(const Snapshot& before, const Snapshot& after);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_ANALYSIS_DIFF_H_
