// realm_shadow/analysis/diff.cc - offset-level diff of two Snapshots.
#include "realm_shadow/analysis/diff.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <tuple>

namespace realm_shadow {
namespace {

auto Key(const Allocation& a) {
  return std::make_tuple(a.instance, a.offset, a.size);
}

bool ByKey(const Allocation& x, const Allocation& y) {
  return Key(x) < Key(y);
}

bool ByOffset(const Allocation& x, const Allocation& y) {
  return std::make_tuple(x.offset, x.size, x.instance) <
         std::make_tuple(y.offset, y.size, y.instance);
}

// Whether two identity ids, each of its own picture, say the same thing.
bool SameIdentity(const Snapshot& before, uint32_t x, const Snapshot& after,
                  uint32_t y) {
  const Identity* a = before.FindIdentity(x);
  const Identity* b = after.FindIdentity(y);
  if (a == nullptr || b == nullptr) return a == b && x == y;
  return a->kind == b->kind && a->attributes == b->attributes;
}

// What differs between two records of one (instance, offset, size).
uint8_t Changes(const Snapshot& before, const Allocation& x,
                const Snapshot& after, const Allocation& y) {
  uint8_t what = 0;
  if (x.state != y.state) what |= kStateChanged;
  if (!SameIdentity(before, x.identity, after, y.identity)) what |= kIdentityChanged;
  if ((x.flags & kPinned) != (y.flags & kPinned)) what |= kPinnedChanged;
  if ((x.flags & ~kPinned) != (y.flags & ~kPinned)) what |= kFlagsChanged;
  if (x.kind != y.kind) what |= kKindChanged;
  if (x.alignment_log2 != y.alignment_log2) what |= kAlignmentChanged;
  return what;
}

// after - before, saturated to the int64 range (counters are far below 2^63
// in any real memory; bad input must still not wrap).
int64_t Delta(uint64_t before, uint64_t after) {
  constexpr uint64_t kLimit = std::numeric_limits<int64_t>::max();
  if (after >= before) {
    const uint64_t d = after - before;
    return d > kLimit ? std::numeric_limits<int64_t>::max()
                      : static_cast<int64_t>(d);
  }
  const uint64_t d = before - after;
  return d > kLimit ? std::numeric_limits<int64_t>::min()
                    : -static_cast<int64_t>(d);
}

}  // namespace

SnapshotDiff DiffSnapshots(const Snapshot& before, const Snapshot& after) {
  SnapshotDiff diff;
  diff.same_memory =
      before.memory_id == after.memory_id && before.node == after.node;
  diff.before_sequence = before.sequence;
  diff.after_sequence = after.sequence;

  std::vector<Allocation> b = before.allocations;
  std::vector<Allocation> a = after.allocations;
  std::sort(b.begin(), b.end(), ByKey);
  std::sort(a.begin(), a.end(), ByKey);

  // Walk both one instance id at a time: exact triples first, then pair the
  // leftovers of the same id as moves.
  std::vector<Allocation> left_b, left_a;  // one id's unmatched entries
  size_t ib = 0, ia = 0;
  while (ib < b.size() || ia < a.size()) {
    uint64_t id;
    if (ib == b.size()) {
      id = a[ia].instance;
    } else if (ia == a.size()) {
      id = b[ib].instance;
    } else {
      id = std::min(b[ib].instance, a[ia].instance);
    }
    const size_t eb = std::find_if(b.begin() + ib, b.end(),
                                   [id](const Allocation& x) {
                                     return x.instance != id;
                                   }) - b.begin();
    const size_t ea = std::find_if(a.begin() + ia, a.end(),
                                   [id](const Allocation& x) {
                                     return x.instance != id;
                                   }) - a.begin();
    left_b.clear();
    left_a.clear();
    while (ib < eb || ia < ea) {
      if (ia == ea || (ib < eb && ByKey(b[ib], a[ia]))) {
        left_b.push_back(b[ib++]);
      } else if (ib == eb || ByKey(a[ia], b[ib])) {
        left_a.push_back(a[ia++]);
      } else {
        ++diff.unchanged_count;
        if (const uint8_t what = Changes(before, b[ib], after, a[ia]))
          diff.changed.push_back(AllocationChange{b[ib], a[ia], what});
        ++ib;
        ++ia;
      }
    }
    // Both lists are in offset order (the key sorts by offset within an id).
    const size_t pairs = std::min(left_b.size(), left_a.size());
    for (size_t k = 0; k < pairs; ++k) {
      diff.moved.push_back(AllocationMove{left_b[k], left_a[k]});
    }
    diff.removed.insert(diff.removed.end(), left_b.begin() + pairs,
                        left_b.end());
    diff.added.insert(diff.added.end(), left_a.begin() + pairs, left_a.end());
  }
  std::sort(diff.added.begin(), diff.added.end(), ByOffset);
  std::sort(diff.removed.begin(), diff.removed.end(), ByOffset);
  std::sort(diff.moved.begin(), diff.moved.end(),
            [](const AllocationMove& x, const AllocationMove& y) {
              return ByOffset(x.after, y.after);
            });
  std::sort(diff.changed.begin(), diff.changed.end(),
            [](const AllocationChange& x, const AllocationChange& y) {
              return ByOffset(x.after, y.after);
            });

  // Holes are disjoint and in address order on each side: one merge.
  const std::vector<Hole> hb = FindHoles(before);
  const std::vector<Hole> ha = FindHoles(after);
  auto hole_less = [](const Hole& x, const Hole& y) {
    return x.offset != y.offset ? x.offset < y.offset : x.size < y.size;
  };
  std::set_difference(ha.begin(), ha.end(), hb.begin(), hb.end(),
                      std::back_inserter(diff.holes_opened), hole_less);
  std::set_difference(hb.begin(), hb.end(), ha.begin(), ha.end(),
                      std::back_inserter(diff.holes_closed), hole_less);

  diff.before_summary = SummarizeHoles(before, hb);
  diff.after_summary = SummarizeHoles(after, ha);
  const FreeSummary& s0 = diff.before_summary;
  const FreeSummary& s1 = diff.after_summary;
  diff.used_delta = Delta(s0.used, s1.used);
  diff.total_free_delta = Delta(s0.total_free, s1.total_free);
  diff.largest_hole_delta = Delta(s0.largest_hole, s1.largest_hole);
  diff.allocation_count_delta = Delta(s0.allocation_count, s1.allocation_count);
  diff.hole_count_delta = Delta(s0.hole_count, s1.hole_count);
  diff.fragmentation_delta = s1.fragmentation - s0.fragmentation;
  return diff;
}

}  // namespace realm_shadow
