// model/internal/free_range_index.cc - see free_range_index.h.
#include "model/internal/free_range_index.h"

#include <algorithm>
#include <cstring>

namespace realm_shadow {
namespace model {
namespace internal {

namespace {

// One branch-free binary search (a conditional move per step) for the
// chunks' first addresses and a chunk's ranges: the ranges a release looks
// for are spread over the address space, so a branch per step is a coin
// flip, and mispredicted steps were a third of Give's cost.
// Of items[0, n) (n > 0), sorted by address_of: the last at or before
// `address`, or the first when none is.
template <typename T, typename AddressOf>
inline const T* LastAtOrBefore(const T* items, size_t n, uint64_t address, AddressOf address_of) {
  const T* base = items;
  while (n > 1) {
    const size_t half = n / 2;
    base = address_of(base[half]) <= address ? base + half : base;
    n -= half;
  }
  return base;
}

// How many of a chunk's ranges (n > 0) start at or before `address`: the
// slot of the first that starts after.
inline uint32_t StartingAtOrBefore(const AddressRange* ranges, uint32_t n, uint64_t address) {
  const AddressRange* last =
      LastAtOrBefore(ranges, n, address, [](const AddressRange& r) { return r.first; });
  return static_cast<uint32_t>(last - ranges) + (last->first <= address ? 1 : 0);
}
// How many of them start before `address`.
inline uint32_t StartingBefore(const AddressRange* ranges, uint32_t n, uint64_t address) {
  return address == 0 ? 0 : StartingAtOrBefore(ranges, n, address - 1);
}

// The largest of length(0) .. length(n - 1), n a multiple of 4 known at
// compile time: four running maxima side by side, which the compiler
// unrolls, so the compares form four chains of n / 4 instead of one of n.
template <size_t n, typename Length>
inline uint64_t LongestOf(Length length) {
  static_assert(n % 4 == 0, "four maxima side by side");
  uint64_t m[4] = {};
  for (size_t k = 0; k < n; k += 4)
    for (size_t j = 0; j < 4; ++j) m[j] = length(k + j) > m[j] ? length(k + j) : m[j];
  return std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
}

// Moves n ranges from `from` to `to` (overlapping, one place up or down
// within a chunk).  The moves average ~30 ranges at 100k live: a loop of
// 16-byte copies took 165 instructions an exact-fit placement's erase
// (callgrind, BM_Replay/0), memmove's vector copies take a fraction; a
// loop still serves the short moves, where the call costs more than it
// saves.
inline void MoveRanges(AddressRange* to, const AddressRange* from, uint32_t n) {
  if (n > 4) {
    std::memmove(static_cast<void*>(to), from, n * sizeof(AddressRange));
  } else if (to > from) {
    for (uint32_t k = n; k-- > 0;) to[k] = from[k];
  } else {
    for (uint32_t k = 0; k < n; ++k) to[k] = from[k];
  }
}

}  // namespace

void FreeRangeIndex::Clear() {
  pool_.clear();
  spare_.clear();
  order_.clear();
  lead_.clear();
  bucket_.clear();
  bucket_age_ = 0;
  tree_.clear();
  levels_ = 0;
  count_ = 0;
}

uint32_t FreeRangeIndex::NewChunk() {
  if (!spare_.empty()) {
    const uint32_t id = spare_.back();
    spare_.pop_back();
    pool_[id].count = 0;
    pool_[id].longest = 0;
    std::fill(std::begin(pool_[id].group), std::end(pool_[id].group), 0);
    return id;
  }
  pool_.emplace_back();
  return static_cast<uint32_t>(pool_.size() - 1);
}

void FreeRangeIndex::Rebuild() {
  const size_t n = order_.size();
  lead_.resize(n);
  // The levels' sizes: n chunks, then one node per kFan of the level
  // below, up to a single root.
  levels_ = 0;
  size_t total = 0;
  for (size_t size = n;; size = (size + kFan - 1) / kFan) {
    level_at_[levels_++] = total;
    total += size;
    if (size <= 1) break;
  }
  level_at_[levels_] = total;
  tree_.assign(total, 0);
  for (size_t i = 0; i < n; ++i) {
    const Chunk& c = chunk(i);
    lead_[i] = c.ranges[0].first;
    tree_[i] = c.longest;
  }
  for (size_t level = 1; level < levels_; ++level)
    for (size_t node = 0; node < LevelSize(level); ++node)
      tree_[level_at_[level] + node] = ChildrenLongest(level, node);
  // The buckets: shifted in place after a split or an emptied chunk
  // (ShiftBuckets), made anew every kBucketRefresh rebuilds, or when the
  // chunks outgrew them.
  if (++bucket_age_ >= kBucketRefresh || bucket_.size() < kBucketsPerChunk * n ||
      bucket_.size() > 4 * kBucketsPerChunk * n)
    RefreshBuckets();
}

void FreeRangeIndex::RefreshBuckets() {
  bucket_age_ = 0;
  const size_t n = order_.size();
  if (n == 0) {
    bucket_.clear();
    return;
  }
  // Enough shift that the last range's end falls in the last bucket.
  const Chunk& top = chunk(n - 1);
  const uint64_t end = top.ranges[top.count - 1].last;
  size_t buckets = 1;
  while (buckets < kBucketsPerChunk * n) buckets *= 2;
  bucket_shift_ = 0;
  while (bucket_shift_ < 63 && (end >> bucket_shift_) >= buckets) ++bucket_shift_;
  bucket_.resize(buckets);
  // Chunk j takes the buckets that start before the next chunk's first
  // address (and after the ones before it took theirs): one short fill a
  // chunk, ~20k instructions at 700 chunks.
  size_t b = 0;
  for (uint32_t j = 0; j < n; ++j) {
    size_t end_b = buckets;
    if (j + 1 < n) {
      const uint64_t next = lead_[j + 1];  // > 0: chunk j's ranges are below it
      end_b = std::min<size_t>(buckets, ((next - 1) >> bucket_shift_) + 1);
    }
    if (end_b > b) {
      std::fill(bucket_.begin() + static_cast<long>(b), bucket_.begin() + static_cast<long>(end_b), j);
      b = end_b;
    }
  }
}

uint64_t FreeRangeIndex::ChildrenLongest(size_t level, size_t node) const {
  const uint64_t* below = &tree_[level_at_[level - 1]];
  const size_t lo = node * kFan, hi = std::min(LevelSize(level - 1), lo + kFan);
  if (hi - lo == kFan) return LongestOf<kFan>([&](size_t k) { return below[lo + k]; });
  uint64_t longest = 0;
  for (size_t k = lo; k < hi; ++k) longest = below[k] > longest ? below[k] : longest;
  return longest;
}

void FreeRangeIndex::SetLongest(size_t i, uint64_t longest) {
  chunk(i).longest = longest;
  // Up the levels while the node's longest changes: a parent takes a
  // child that grew past it, and rescans its 16 children only when the
  // child that shrank was its longest.
  uint64_t old = tree_[i], now = longest;
  tree_[i] = longest;
  size_t node = i;
  for (size_t level = 1; level < levels_; ++level) {
    node /= kFan;
    uint64_t& parent = tree_[level_at_[level] + node];
    const uint64_t was = parent;
    if (now >= was) parent = now;
    else if (old == was) parent = ChildrenLongest(level, node);
    if (parent == was) return;  // nothing above changes either
    old = was;
    now = parent;
  }
}

uint64_t FreeRangeIndex::Rescan(Chunk& c, uint32_t g) {
  const uint32_t lo = g * kGroupRanges, hi = std::min(c.count, lo + kGroupRanges);
  uint64_t longest = 0;
  if (hi - lo == kGroupRanges) {  // a full group, the common case
    longest = LongestOf<kGroupRanges>([&](size_t k) { return c.ranges[lo + k].size(); });
  } else {
    for (uint32_t k = lo; k < hi; ++k) {
      const uint64_t length = c.ranges[k].last - c.ranges[k].first;
      longest = length > longest ? length : longest;
    }
  }
  c.group[g] = longest;
  return longest;
}

uint64_t FreeRangeIndex::Longest(const Chunk& c) {
  uint64_t longest = 0;
  for (uint64_t g : c.group) longest = g > longest ? g : longest;
  return longest;
}

void FreeRangeIndex::Rescanned(size_t i) {
  const uint64_t longest = Longest(chunk(i));
  if (longest != chunk(i).longest) SetLongest(i, longest);
}

void FreeRangeIndex::Resized(size_t i, uint32_t slot, uint64_t old_length) {
  Chunk& c = chunk(i);
  const uint64_t length = c.ranges[slot].size();
  const uint32_t g = slot / kGroupRanges;
  if (length >= c.group[g]) {
    c.group[g] = length;
    if (length > c.longest) SetLongest(i, length);
  } else if (old_length == c.group[g]) {
    // The group's longest shrank: another may be longest now, in the
    // group (16 ranges) and in the chunk (4 groups).
    Rescan(c, g);
    if (old_length == c.longest) Rescanned(i);
  }
}

void FreeRangeIndex::RescanAll(size_t i) {
  Chunk& c = chunk(i);
  for (uint32_t g = 0; g < kGroups; ++g) Rescan(c, g);
  c.longest = Longest(c);
}

// After an insertion at `slot` (the ranges after it moved up one), each
// group from slot's on took one range and gave its last to the next: its
// longest is the larger of the old and the one taken, unless the one given
// away was the longest (one time in 16 or so), which rescans the group.
void FreeRangeIndex::MovedUp(size_t i, uint32_t slot) {
  Chunk& c = chunk(i);
  for (uint32_t g = slot / kGroupRanges; g * kGroupRanges < c.count; ++g) {
    const uint32_t next = (g + 1) * kGroupRanges;  // now holds what g gave
    const uint64_t taken = c.ranges[g == slot / kGroupRanges ? slot : g * kGroupRanges].size();
    if (next < c.count && c.ranges[next].size() == c.group[g]) Rescan(c, g);
    else if (taken > c.group[g]) c.group[g] = taken;
  }
}

// After the range of length `erased` left `slot` (the ranges after it
// moved down one), each group from slot's on gave up one range and took
// the first of the next group.
void FreeRangeIndex::MovedDown(size_t i, uint32_t slot, uint64_t erased) {
  Chunk& c = chunk(i);
  for (uint32_t g = slot / kGroupRanges; g < kGroups; ++g) {
    const uint32_t lo = g * kGroupRanges, last = lo + kGroupRanges - 1;
    const uint64_t given = g == slot / kGroupRanges ? erased : c.ranges[lo - 1].size();
    if (lo >= c.count) {  // empty now
      c.group[g] = 0;
      if (lo > c.count) break;
      continue;
    }
    if (given == c.group[g]) Rescan(c, g);
    else if (last < c.count && c.ranges[last].size() > c.group[g]) c.group[g] = c.ranges[last].size();
  }
}

void FreeRangeIndex::ShiftBuckets(size_t p, bool inserted) {
  // Chunks from p on moved one place up (or down): so do the buckets that
  // name them, a compare and an add a bucket (vectorized), where making
  // them anew walks every chunk.  A bucket that named the chunk split or
  // erased at p now names its neighbour, one step from the answer.
  const uint32_t at = static_cast<uint32_t>(p);
  if (inserted) {
    for (uint32_t& b : bucket_) b += b >= at ? 1 : 0;
  } else {
    for (uint32_t& b : bucket_) b -= b > at ? 1 : 0;
  }
}

size_t FreeRangeIndex::ChunkFor(uint64_t address) const {
  const size_t n = lead_.size();
  if (n <= 1) return 0;  // the common small heap: one chunk
  // The last chunk whose first range starts at or before `address`: the
  // bucket's, or a few steps from it.
  const uint64_t b = address >> bucket_shift_;
  size_t j = std::min<size_t>(bucket_[b < bucket_.size() ? b : bucket_.size() - 1], n - 1);
  if (lead_[j] <= address) {
    for (size_t step = 0; step < kBucketWalk; ++step, ++j)
      if (j + 1 == n || lead_[j + 1] > address) return j;
  } else {
    for (size_t step = 0; step < kBucketWalk && j > 0; ++step)
      if (--j == 0 || lead_[j] <= address) return j;
    if (j == 0) return 0;
  }
  return static_cast<size_t>(
      LastAtOrBefore(lead_.data(), lead_.size(), address, [](uint64_t a) { return a; }) -
      lead_.data());
}

void FreeRangeIndex::Prefetch(uint64_t address) const {
  if (order_.empty()) return;
  const char* c = reinterpret_cast<const char*>(&chunk(ChunkFor(address)));
  for (size_t line = 0; line < sizeof(Chunk); line += 64) __builtin_prefetch(c + line);
}

void FreeRangeIndex::InsertAt(size_t i, uint32_t slot, AddressRange r) {
  ++count_;
  if (order_.empty()) {
    const uint32_t id = NewChunk();
    pool_[id].ranges[0] = r;
    pool_[id].count = 1;
    pool_[id].longest = r.size();
    pool_[id].group[0] = r.size();
    order_.push_back(id);
    Rebuild();
    return;
  }
  bool rebuild = false;
  if (chunk(i).count == kChunkRanges) {
    // Split in halves; the new chunk takes the upper half.
    const uint32_t id = NewChunk();  // may move pool_
    Chunk& lower = chunk(i);
    Chunk& upper = pool_[id];
    constexpr uint32_t kHalf = kChunkRanges / 2;
    std::memcpy(upper.ranges, lower.ranges + kHalf, kHalf * sizeof(AddressRange));
    upper.count = kHalf;
    lower.count = kHalf;
    order_.insert(order_.begin() + static_cast<long>(i) + 1, id);
    ShiftBuckets(i + 1, /*inserted=*/true);
    if (slot > kHalf) {
      ++i;
      slot -= kHalf;
    }
    rebuild = true;
  }
  Chunk& c = chunk(i);
  MoveRanges(c.ranges + slot + 1, c.ranges + slot, c.count - slot);
  c.ranges[slot] = r;
  ++c.count;
  if (rebuild) {
    for (size_t k : {i, i + 1 < order_.size() ? i + 1 : i, i > 0 ? i - 1 : i}) RescanAll(k);
    Rebuild();
    return;
  }
  if (slot == 0) lead_[i] = r.first;
  MovedUp(i, slot);
  if (r.size() > c.longest) SetLongest(i, r.size());
}

void FreeRangeIndex::EraseAt(size_t i, uint32_t slot) {
  --count_;
  Chunk& c = chunk(i);
  const uint64_t length = c.ranges[slot].size();
  MoveRanges(c.ranges + slot, c.ranges + slot + 1, c.count - slot - 1);
  --c.count;
  if (c.count == 0) {
    spare_.push_back(order_[i]);
    order_.erase(order_.begin() + static_cast<long>(i));
    ShiftBuckets(i, /*inserted=*/false);
    if (order_.empty()) {
      lead_.clear();
      bucket_.clear();
      tree_.clear();
      levels_ = 0;
    } else {
      Rebuild();
    }
    return;
  }
  if (slot == 0) lead_[i] = c.ranges[0].first;
  MovedDown(i, slot, length);
  if (length == c.longest) Rescanned(i);
}

void FreeRangeIndex::Give(uint64_t first, uint64_t last) {
  if (first >= last) return;
  if (order_.empty()) {
    InsertAt(0, 0, AddressRange{first, last});
    return;
  }
  // The successor: the first range starting after `first`.
  size_t i = ChunkFor(first);
  const Chunk& c = chunk(i);
  const uint32_t s = StartingAtOrBefore(c.ranges, c.count, first);
  Position pred{}, succ{};
  bool has_pred = false, has_succ = false;
  if (s > 0) {
    pred = {static_cast<uint32_t>(i), s - 1};
    has_pred = true;
  } else if (i > 0) {
    pred = {static_cast<uint32_t>(i - 1), chunk(i - 1).count - 1};
    has_pred = true;
  }
  if (s < c.count) {
    succ = {static_cast<uint32_t>(i), s};
    has_succ = true;
  } else if (i + 1 < order_.size()) {
    succ = {static_cast<uint32_t>(i + 1), 0};
    has_succ = true;
  }
  const bool merge_prev = has_pred && at(pred).last == first;
  const bool merge_next = has_succ && at(succ).first == last;
  if (merge_prev) {
    AddressRange& p = chunk(pred.chunk).ranges[pred.slot];
    const uint64_t old_length = p.size();
    p.last = merge_next ? at(succ).last : last;
    Resized(pred.chunk, pred.slot, old_length);
    if (merge_next) EraseAt(succ.chunk, succ.slot);
    return;
  }
  if (merge_next) {
    AddressRange& n = chunk(succ.chunk).ranges[succ.slot];
    const uint64_t old_length = n.size();
    n.first = first;
    if (succ.slot == 0) lead_[succ.chunk] = first;
    Resized(succ.chunk, succ.slot, old_length);
    return;
  }
  InsertAt(i, s, AddressRange{first, last});
}

void FreeRangeIndex::Carve(Position p, uint64_t start, uint64_t size) {
  AddressRange& r = chunk(p.chunk).ranges[p.slot];
  const uint64_t end = start + size;
  const bool pad = start > r.first;
  const bool tail = end < r.last;
  const uint64_t old_length = r.size();
  if (pad && tail) {
    const AddressRange after{end, r.last};
    r.last = start;
    Resized(p.chunk, p.slot, old_length);
    InsertAt(p.chunk, p.slot + 1, after);
  } else if (pad) {
    r.last = start;
    Resized(p.chunk, p.slot, old_length);
  } else if (tail) {
    r.first = end;
    if (p.slot == 0) lead_[p.chunk] = end;
    Resized(p.chunk, p.slot, old_length);
  } else {
    EraseAt(p.chunk, p.slot);
  }
}

size_t FreeRangeIndex::ChunkWithLength(size_t i, uint64_t need) const {
  if (i >= order_.size()) return kNone;
  size_t level, node;
  if (i == 0) {
    // From the root (a request from address 0, realm's every search).
    level = levels_ - 1;
    node = 0;
    if (tree_[level_at_[level]] < need) return kNone;
  } else {
    // Up: the rest of each block of kFan at each level, then the blocks
    // after it through their parent, until a node holds `need`.
    level = 0;
    node = i;
    for (;;) {
      const uint64_t* v = &tree_[level_at_[level]];
      const size_t end = std::min(LevelSize(level), (node / kFan + 1) * kFan);
      while (node < end && v[node] < need) ++node;
      if (node < end) break;
      if (level + 1 == levels_) return kNone;
      node = (end - 1) / kFan + 1;  // the parent of the next block
      ++level;
    }
  }
  // Down: the first child that holds it, at each level.
  while (level > 0) {
    --level;
    const uint64_t* v = &tree_[level_at_[level]];
    node *= kFan;
    while (v[node] < need) ++node;
  }
  return node;
}

bool FreeRangeIndex::FirstFit(uint64_t size, uint64_t alignment, uint64_t from,
                              Position* p, uint64_t* start) const {
  if (order_.empty() || largest() < size) return false;
  size_t i;
  uint32_t s = 0;
  if (from == 0) {
    i = ChunkWithLength(0, size);  // realm's every search: from the root
  } else {
    i = ChunkFor(from);
    const Chunk& c = chunk(i);
    s = StartingBefore(c.ranges, c.count, from);
  }
  for (;;) {
    const Chunk& h = chunk(i);
    if (h.longest >= size) {
      for (uint32_t g = s / kGroupRanges; g < kGroups; ++g) {
        if (h.group[g] < size) continue;  // 16 ranges, none long enough
        const uint32_t hi = std::min(h.count, (g + 1) * kGroupRanges);
        for (uint32_t k = std::max(s, g * kGroupRanges); k < hi; ++k) {
          // Most ranges of the group are too short: the length alone says so.
          const AddressRange& r = h.ranges[k];
          if (r.last - r.first >= size && FitsIn(r, size, alignment, start)) {
            *p = {static_cast<uint32_t>(i), k};
            return true;
          }
        }
      }
    }
    i = ChunkWithLength(i + 1, size);
    if (i == kNone) return false;
    s = 0;
  }
}

bool FreeRangeIndex::Containing(uint64_t address, Position* p) const {
  if (order_.empty() || address < lead_[0]) return false;
  const size_t i = ChunkFor(address);
  const Chunk& c = chunk(i);
  const uint32_t s = StartingAtOrBefore(c.ranges, c.count, address);
  if (s == 0 || c.ranges[s - 1].last <= address) return false;
  *p = {static_cast<uint32_t>(i), s - 1};
  return true;
}

bool FreeRangeIndex::CheckInvariants() const {
  size_t n = 0;
  bool any = false;
  uint64_t prev_last = 0;
  if (lead_.size() != order_.size()) return false;
  for (size_t i = 0; i < order_.size(); ++i) {
    const Chunk& c = chunk(i);
    if (c.count == 0 || c.count > kChunkRanges) return false;
    if (lead_[i] != c.ranges[0].first) return false;
    uint64_t longest = 0, group[kGroups] = {};
    for (uint32_t k = 0; k < c.count; ++k) {
      const AddressRange& r = c.ranges[k];
      if (r.first >= r.last) return false;
      if (any && r.first <= prev_last) return false;  // sorted, never touching
      any = true;
      prev_last = r.last;
      longest = std::max(longest, r.size());
      group[k / kGroupRanges] = std::max(group[k / kGroupRanges], r.size());
      ++n;
    }
    if (longest != c.longest || tree_[i] != longest) return false;
    if (!std::equal(std::begin(group), std::end(group), std::begin(c.group))) return false;
  }
  for (size_t level = 1; level < levels_; ++level)
    for (size_t node = 0; node < LevelSize(level); ++node)
      if (tree_[level_at_[level] + node] != ChildrenLongest(level, node)) return false;
  return n == count_;
}

}  // namespace internal
}  // namespace model
}  // namespace realm_shadow
