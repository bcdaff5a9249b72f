// tests/analysis/diff_test.cc - offset-level diffs: hand-written cases (id
// reuse, moves, attribute changes, holes that grow) and randomized mutations
// whose true effect is known.
#include "realm_shadow/analysis/diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "snapshot_builder.h"

namespace realm_shadow {
namespace {

using testing::Alloc;
using testing::MakeSnapshot;
using testing::RandomSnapshot;
using testing::SortAllocations;

using Triple = std::tuple<uint64_t, uint64_t, uint64_t>;  // instance, offset, size

std::vector<Triple> Triples(const std::vector<Allocation>& allocations) {
  std::vector<Triple> t;
  for (const Allocation& a : allocations) {
    t.emplace_back(a.instance, a.offset, a.size);
  }
  return t;
}

TEST(Diff, IdenticalSnapshotsAreEmpty) {
  const Snapshot s = MakeSnapshot(100, {Alloc(0, 10, 1), Alloc(20, 10, 2)});
  const SnapshotDiff d = DiffSnapshots(s, s);
  EXPECT_TRUE(d.empty());
  EXPECT_TRUE(d.same_memory);
  EXPECT_EQ(d.unchanged_count, 2u);
  EXPECT_EQ(d.used_delta, 0);
  EXPECT_EQ(d.fragmentation_delta, 0.0);
}

TEST(Diff, AddedRemovedAndHoles) {
  const Snapshot before =
      MakeSnapshot(100, {Alloc(0, 10, 1), Alloc(20, 10, 2), Alloc(50, 10, 3)});
  const Snapshot after =
      MakeSnapshot(100, {Alloc(0, 10, 1), Alloc(50, 10, 3), Alloc(60, 40, 4)});
  const SnapshotDiff d = DiffSnapshots(before, after);
  EXPECT_EQ(Triples(d.added), (std::vector<Triple>{{4, 60, 40}}));
  EXPECT_EQ(Triples(d.removed), (std::vector<Triple>{{2, 20, 10}}));
  EXPECT_TRUE(d.moved.empty());
  // before: [10,20) [30,50) [60,100); after: [10,50).
  EXPECT_EQ(d.holes_opened, (std::vector<Hole>{{10, 40}}));
  EXPECT_EQ(d.holes_closed,
            (std::vector<Hole>{{10, 10}, {30, 20}, {60, 40}}));
  EXPECT_EQ(d.before_summary.used, 30u);
  EXPECT_EQ(d.after_summary.used, 60u);
  EXPECT_EQ(d.used_delta, 30);
  EXPECT_EQ(d.total_free_delta, -30);
  EXPECT_EQ(d.largest_hole_delta, 0);
  EXPECT_EQ(d.allocation_count_delta, 0);
  EXPECT_EQ(d.hole_count_delta, -2);
  EXPECT_DOUBLE_EQ(d.fragmentation_delta, 0.0 - (1.0 - 40.0 / 70.0));
}

TEST(Diff, SameInstanceElsewhereIsAMove) {
  const Snapshot before = MakeSnapshot(100, {Alloc(0, 10, 7), Alloc(40, 10, 8)});
  const Snapshot after = MakeSnapshot(100, {Alloc(60, 10, 7), Alloc(40, 20, 8)});
  const SnapshotDiff d = DiffSnapshots(before, after);
  EXPECT_TRUE(d.added.empty());
  EXPECT_TRUE(d.removed.empty());
  ASSERT_EQ(d.moved.size(), 2u);
  // By offset in after: 8 (resized at 40) first, then 7 at 60.
  EXPECT_EQ(d.moved[0].before.instance, 8u);
  EXPECT_EQ(d.moved[0].after.size, 20u);
  EXPECT_EQ(d.moved[1].before.offset, 0u);
  EXPECT_EQ(d.moved[1].after.offset, 60u);
}

TEST(Diff, ReusedIdIsMatchedByRange) {
  // Instance 5 was destroyed at [0,10) and its id reused twice: once at
  // [0,10) again (unchanged, as far as any picture can tell) and once at
  // [30,10).  The extra one is added, not a move of the first.
  const Snapshot before = MakeSnapshot(100, {Alloc(0, 10, 5)});
  const Snapshot after = MakeSnapshot(100, {Alloc(0, 10, 5), Alloc(30, 10, 5)});
  const SnapshotDiff d = DiffSnapshots(before, after);
  EXPECT_EQ(d.unchanged_count, 1u);
  EXPECT_TRUE(d.moved.empty());
  EXPECT_EQ(Triples(d.added), (std::vector<Triple>{{5, 30, 10}}));
}

TEST(Diff, AttributeChangesAreReported) {
  Snapshot before = MakeSnapshot(100, {Alloc(0, 10, 1), Alloc(10, 10, 2)});
  Snapshot after = before;
  after.allocations[1].state = AllocationState::kReleasePending;
  after.allocations[1].identity = 3;
  const SnapshotDiff d = DiffSnapshots(before, after);
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].before.state, AllocationState::kLive);
  EXPECT_EQ(d.changed[0].after.state, AllocationState::kReleasePending);
  EXPECT_EQ(d.unchanged_count, 2u);
  EXPECT_FALSE(d.empty());
}

TEST(Diff, GrownHoleIsClosedAndOpened) {
  const Snapshot before = MakeSnapshot(40, {Alloc(0, 10, 1), Alloc(20, 10, 2)});
  const Snapshot after = MakeSnapshot(40, {Alloc(0, 10, 1), Alloc(25, 5, 2)});
  const SnapshotDiff d = DiffSnapshots(before, after);
  EXPECT_EQ(d.holes_closed, (std::vector<Hole>{{10, 10}}));
  EXPECT_EQ(d.holes_opened, (std::vector<Hole>{{10, 15}}));
  EXPECT_EQ(d.moved.size(), 1u);
}

TEST(Diff, DifferentMemoriesAreFlagged) {
  Snapshot before = MakeSnapshot(100, {});
  Snapshot after = MakeSnapshot(100, {});
  after.memory_id = 2;
  EXPECT_FALSE(DiffSnapshots(before, after).same_memory);
}

// Random before pictures with unique ids, mutated by removals, moves and
// additions of fresh ids: the diff must name exactly those, and its holes
// must be the set differences of the two hole lists.
TEST(Diff, RandomMutationsAreRecovered) {
  const int rounds = testing::Rounds(2000);
  testing::ForEachSeed(rounds, [&](uint64_t seed, std::mt19937_64& rng) {
    Snapshot before = RandomSnapshot(rng, 300, seed % 2 == 1);
    for (size_t k = 0; k < before.allocations.size(); ++k) {
      before.allocations[k].instance = 1000 + k;  // unique
    }
    Snapshot after = before;
    std::set<Triple> removed, added;
    std::set<uint64_t> moved;
    std::vector<Allocation> next;
    for (const Allocation& a : before.allocations) {
      switch (rng() % 4) {
        case 0:
          removed.insert({a.instance, a.offset, a.size});
          break;
        case 1: {
          Allocation m = a;
          m.offset += 1 + rng() % 5;
          moved.insert(a.instance);
          next.push_back(m);
          break;
        }
        default:
          next.push_back(a);
      }
    }
    for (int k = rng() % 4; k > 0; --k) {
      const Allocation a = Alloc(rng() % 300, rng() % 20, 5000 + k);
      added.insert({a.instance, a.offset, a.size});
      next.push_back(a);
    }
    SortAllocations(next);
    after.allocations = next;
    after.sequence = before.sequence + 10;

    const SnapshotDiff d = DiffSnapshots(before, after);
    const auto got_removed = Triples(d.removed);
    const auto got_added = Triples(d.added);
    EXPECT_EQ(std::set<Triple>(got_removed.begin(), got_removed.end()), removed);
    EXPECT_EQ(std::set<Triple>(got_added.begin(), got_added.end()), added);
    std::set<uint64_t> got_moved;
    for (const AllocationMove& m : d.moved) {
      EXPECT_EQ(m.before.instance, m.after.instance);
      got_moved.insert(m.after.instance);
    }
    EXPECT_EQ(got_moved, moved);
    EXPECT_EQ(d.unchanged_count + d.moved.size() + d.removed.size(),
              before.allocations.size());
    EXPECT_EQ(d.unchanged_count + d.moved.size() + d.added.size(),
              after.allocations.size());
    EXPECT_TRUE(std::is_sorted(d.added.begin(), d.added.end(),
                               [](const Allocation& x, const Allocation& y) {
                                 return x.offset < y.offset;
                               }));

    const std::vector<Hole> hb = FindHoles(before), ha = FindHoles(after);
    std::vector<Hole> opened, closed;
    for (const Hole& h : ha) {
      if (std::find(hb.begin(), hb.end(), h) == hb.end()) opened.push_back(h);
    }
    for (const Hole& h : hb) {
      if (std::find(ha.begin(), ha.end(), h) == ha.end()) closed.push_back(h);
    }
    EXPECT_EQ(d.holes_opened, opened);
    EXPECT_EQ(d.holes_closed, closed);
    const FreeSummary s0 = Summarize(before), s1 = Summarize(after);
    EXPECT_EQ(d.used_delta, int64_t(s1.used) - int64_t(s0.used));
    EXPECT_EQ(d.total_free_delta, int64_t(s1.total_free) - int64_t(s0.total_free));
    EXPECT_EQ(d.largest_hole_delta,
              int64_t(s1.largest_hole) - int64_t(s0.largest_hole));
    EXPECT_EQ(d.allocation_count_delta,
              int64_t(after.allocations.size()) - int64_t(before.allocations.size()));
    EXPECT_DOUBLE_EQ(d.fragmentation_delta, s1.fragmentation - s0.fragmentation);
    EXPECT_EQ(d.after_sequence - d.before_sequence, 10u);
  });
}

}  // namespace
}  // namespace realm_shadow
