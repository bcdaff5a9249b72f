// model/internal/free_range_index.h - the free ranges of one heap in
// address order, with first fit in O(log n) instead of a walk.
//
// What it is for: Realm's first fit walks its free list in address order
// until a range fits (BasicRangeAllocator::allocate), O(free ranges) per
// request.  A replay at 100k live allocations with tens of thousands of
// holes cannot pay that per event, so the address-ordered placements
// (realm, next-fit, compacting) keep their free ranges here, where the
// answer is the same range Realm's walk stops at, found in O(log n).
//
// Layout: the ranges sit in address order in chunks of up to 64 (1 KiB of
// ranges, contiguous), each chunk with the longest length it holds and the
// longest of each group of 16 slots.
//  - By length: a 16-ary max-tree over the chunks' longest (in address
//    order) finds the first chunk with a range at least as long as a
//    request in O(log chunks), and in it only the groups long enough are
//    scanned.  A range longer than the request may still miss it by its
//    alignment pad; the search then goes on to the next candidate, as
//    Realm's walk does.
//  - By address (Give, Containing, a search from an address, Prefetch):
//    buckets cut the address space up to the last range's end into a power
//    of two, at least 2 per chunk, each naming the chunk that held its
//    first address when the buckets were made; the answer is that chunk or
//    a neighbour within 4 steps, else a binary search over the chunks'
//    first addresses.  Each call finds its chunk afresh: nothing is
//    remembered between calls.
// A placement shrinks the range it takes: only when that was its group's
// longest is the group rescanned (16 ranges, where a rescan of the whole
// chunk was a tenth of a replay's instructions).  A chunk that fills
// splits in two, and one that empties goes; either rebuilds the tree
// (O(chunks), at most once per 32 insertions into a chunk) and shifts the
// buckets in place; they are made anew every 16th rebuild, or when the
// chunks outgrow them.
// Numbers: the benchmark's 30k free ranges (100k live) make about 700
// chunks: a tree of 700, 44, 3 and 1 nodes (the root), and 2048 buckets.
//
// The ranges are disjoint, non-empty and maximal (Give merges with free
// neighbours); callers never give a range that overlaps a free one.
// Copying is a copy of a few vectors (O(n), contiguous).  Not thread-safe.
#ifndef REALM_SHADOW_MODEL_INTERNAL_FREE_RANGE_INDEX_H_
#define REALM_SHADOW_MODEL_INTERNAL_FREE_RANGE_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/placement.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(model);
namespace model {
namespace internal {

class FreeRangeIndex {
 public:
  // A range's place in the index; valid until the next change.
  struct Position {
    uint32_t chunk = 0;  // in address order
    uint32_t slot = 0;
  };

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The longest free range's length (0 when none).  O(1).
  uint64_t largest() const { return order_.empty() ? 0 : tree_[level_at_[levels_ - 1]]; }
  const AddressRange& at(Position p) const {
    return pool_[order_[p.chunk]].ranges[p.slot];
  }

  // Makes [first, last) free, merging with the free ranges that touch it.
  void Give(uint64_t first, uint64_t last);
  // Takes [start, start + size) out of the free range at p, which holds
  // it: what is left before and after stays free.
  void Carve(Position p, uint64_t start, uint64_t size);
  // The lowest-address free range starting at or after `from` that takes
  // `size` bytes at an offset aligned to `alignment`, and that offset.
  bool FirstFit(uint64_t size, uint64_t alignment, uint64_t from,
                Position* p, uint64_t* start) const;
  // The free range with first <= address < last, if any.
  bool Containing(uint64_t address, Position* p) const;
  void Clear();
  // A hint, no change: brings the chunk that a Give of a range starting
  // at `address` reads towards the cache (its 17 lines, fetched side by
  // side instead of one by one as Give's binary search would).  Nothing is
  // kept: the Give finds the chunk again from its bucket (ChunkFor), a
  // compare or two.
  void Prefetch(uint64_t address) const;

  // In address order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (uint32_t id : order_) {
      const Chunk& c = pool_[id];
      for (uint32_t i = 0; i < c.count; ++i) fn(c.ranges[i]);
    }
  }

  // Sorted, disjoint, maximal, chunk maxima and the tree consistent.  O(n);
  // for tests.
  bool CheckInvariants() const;

 private:
  static constexpr uint32_t kChunkRanges = 64;
  static constexpr uint32_t kGroupRanges = 16;
  static constexpr uint32_t kGroups = kChunkRanges / kGroupRanges;
  static constexpr size_t kNone = SIZE_MAX;

  struct Chunk {
    uint32_t count = 0;
    uint64_t longest = 0;
    uint64_t group[kGroups] = {};  // longest of slots [16 g, 16 g + 16)
    AddressRange ranges[kChunkRanges];
  };

  Chunk& chunk(size_t i) { return pool_[order_[i]]; }
  const Chunk& chunk(size_t i) const { return pool_[order_[i]]; }
  // The chunk whose range would precede or hold `address` (0 when it lies
  // before every range): from the address's bucket, a step or two, else
  // a binary search.
  size_t ChunkFor(uint64_t address) const;
  void InsertAt(size_t i, uint32_t slot, AddressRange r);
  void EraseAt(size_t i, uint32_t slot);
  // After ranges[slot] of chunk i grew or shrank from `old_length`.
  void Resized(size_t i, uint32_t slot, uint64_t old_length);
  void SetLongest(size_t i, uint64_t longest);
  // Group g's longest, set from its ranges.
  static uint64_t Rescan(Chunk& c, uint32_t g);
  // Every group's longest and the chunk's, set from its ranges (after a
  // split; the tree is rebuilt after).
  void RescanAll(size_t i);
  // The groups' longest after an insertion at `slot` of chunk i, and after
  // the range of length `erased` left it.
  void MovedUp(size_t i, uint32_t slot);
  void MovedDown(size_t i, uint32_t slot, uint64_t erased);
  // Chunk i's longest, set from its groups'.
  void Rescanned(size_t i);
  uint32_t NewChunk();
  void Rebuild();
  // The first chunk at or after i holding a range of at least `need` bytes.
  size_t ChunkWithLength(size_t i, uint64_t need) const;
  // Where a request lands in r, if it fits (inline: the first-fit scan
  // calls it for every range long enough).
  static bool FitsIn(const AddressRange& r, uint64_t size, uint64_t alignment,
                     uint64_t* start) {
    if (r.last - r.first < size) return false;
    const uint64_t s = AlignUp(r.first, alignment);
    if (s >= r.last || r.last - s < size) return false;
    *start = s;
    return true;
  }
  static uint64_t Longest(const Chunk& c);

  std::vector<Chunk> pool_;
  std::vector<uint32_t> spare_;     // unused chunks of pool_
  std::vector<uint32_t> order_;     // chunks in address order
  std::vector<uint64_t> lead_;      // first address of each, in order
  // ChunkFor's start: the address space up to the last range cut in
  // kBucketsPerChunk x chunks buckets (a power of two, address >>
  // bucket_shift_), each with the chunk that held its first address at the
  // last Rebuild.  Chunks keep their order until the next Rebuild, only
  // their first addresses move, so the bucket's chunk is the answer or a
  // neighbour of it: one or two compares where the binary search over
  // ~700 chunks took 10 dependent steps, about 100 instructions, once for
  // each release's prefetch.  Addresses clustered below a far range put
  // many chunks in one bucket: past kBucketWalk steps the binary search
  // takes over, so the cost is never above what it was.
  // A rebuild (a split, an emptied chunk: ~1k a replay of 1M events)
  // shifts the buckets in place, ~2k instructions at 2k buckets, and makes
  // them anew only every kBucketRefresh-th time (~20k), so that the steps
  // a split's moved first addresses add to a walk stay few.
  static constexpr size_t kBucketsPerChunk = 2;
  static constexpr size_t kBucketWalk = 4;
  static constexpr uint32_t kBucketRefresh = 16;
  void RefreshBuckets();
  void ShiftBuckets(size_t p, bool inserted);
  std::vector<uint32_t> bucket_;
  uint32_t bucket_shift_ = 0;
  uint32_t bucket_age_ = 0;  // rebuilds since RefreshBuckets
  // A max-tree over order_ with kFan children a node, its levels side by
  // side in tree_: level 0 the chunks' longest, level L at level_at_[L],
  // the last one the root.  16 children: ~1k chunks are 3 levels (the
  // binary tree's 10), and a search reads 16 neighbours in one or two
  // cache lines where the binary one took a dependent load per level.
  static constexpr size_t kFan = 16;
  static constexpr size_t kMaxLevels = 17;  // 16^16 chunks
  size_t LevelSize(size_t level) const { return level_at_[level + 1] - level_at_[level]; }
  // The longest of a node's children (level >= 1).
  uint64_t ChildrenLongest(size_t level, size_t node) const;
  std::vector<uint64_t> tree_;
  size_t level_at_[kMaxLevels + 1] = {};
  size_t levels_ = 0;
  size_t count_ = 0;
};

}  // namespace internal
}  // namespace model
}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_INTERNAL_FREE_RANGE_INDEX_H_
