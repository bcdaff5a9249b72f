// model/internal/boundary_map.h - one end of each free range to its other
// end, for the merges of the placements that choose by length.
//
// What it is for: best-fit and worst-fit (placement_by_length.cc) keep
// their free ranges ordered by length, so the free range that ends where a
// released one starts, and the one that starts where it ends, are found by
// address here: each free range under its first address in one map (to its
// last) and under its last in another (to its first).  A release runs two
// lookups and two to four updates on them, a placement two or three.
//
// Why not absl::flat_hash_map, which this replaces: the ranges come and go
// at every event, and its erasures leave tombstones that later insertions
// probe past and reclaim (prepare_insert), its hash mixes and its probes
// compare groups of control bytes.  At the replay benchmark's 7.6k free
// ranges its lookups, insertions and erasures took ~220 instructions an
// event of best-fit's 1,172 (callgrind, BM_Replay/1); with this table the
// replay takes 1,046 (docs/replay.md, the fifth round).  Keys are
// addresses, so one multiply spreads them (Fibonacci hashing: the
// product's top bits pick the home slot).
//
// Layout and guarantees: open addressing with linear probing in a
// power-of-two array at most half full; an erasure shifts the entries
// after it back into the gap (no tombstones), so a lookup stops at the
// first empty slot and probes stay short however long the churn.  The key
// UINT64_MAX marks an empty slot and is kept beside the array.  Copying
// is a copy of the array, O(capacity).  Pointers from Find stay valid
// until the next Set or Erase.  Not thread-safe.
#ifndef REALM_SHADOW_MODEL_INTERNAL_BOUNDARY_MAP_H_
#define REALM_SHADOW_MODEL_INTERNAL_BOUNDARY_MAP_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(model);
namespace model {
namespace internal {

class BoundaryMap {
 public:
  size_t size() const { return size_ + (has_max_ ? 1 : 0); }
  bool empty() const { return size() == 0; }

  // The value under `key`, or null.
  uint64_t* Find(uint64_t key) {
    if (key == kEmpty) return has_max_ ? &max_value_ : nullptr;
    if (slots_.empty()) return nullptr;
    Slot& s = slots_[Probe(key)];
    return s.key == key ? &s.value : nullptr;
  }
  const uint64_t* Find(uint64_t key) const { return const_cast<BoundaryMap*>(this)->Find(key); }

  // Puts `value` under `key`, in place of the one there if any.
  void Set(uint64_t key, uint64_t value) {
    if (key == kEmpty) {
      has_max_ = true;
      max_value_ = value;
      return;
    }
    if (2 * (size_ + 1) > slots_.size()) Grow();
    Slot& s = slots_[Probe(key)];
    if (s.key == kEmpty) ++size_;
    s = Slot{key, value};
  }

  // Removes `key`; false when it was not there.
  bool Erase(uint64_t key);

  // A hint, no change: brings the home slot of `key` towards the cache.
  void Prefetch(uint64_t key) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[Home(key)]);
  }

  void Clear() {
    slots_.clear();
    mask_ = 0;
    shift_ = 64;
    size_ = 0;
    has_max_ = false;
  }

  // fn(key, value) for every entry, in no particular order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (const Slot& s : slots_)
      if (s.key != kEmpty) fn(s.key, s.value);
    if (has_max_) fn(kEmpty, max_value_);
  }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;
  struct Slot {
    uint64_t key = kEmpty;
    uint64_t value = 0;
  };
  size_t Home(uint64_t key) const {
    return static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_);
  }
  // The slot holding `key`, else the empty slot that ends its run (where
  // it would go).  The array is never full, so the walk ends.
  size_t Probe(uint64_t key) const {
    size_t i = Home(key);
    while (slots_[i].key != key && slots_[i].key != kEmpty) i = (i + 1) & mask_;
    return i;
  }
  // Twice the slots (at least 16), every entry placed anew.
  void Grow();

  std::vector<Slot> slots_;
  size_t mask_ = 0;      // slots_.size() - 1
  unsigned shift_ = 64;  // 64 - log2(slots_.size())
  size_t size_ = 0;      // entries in slots_
  bool has_max_ = false;  // the key kEmpty, kept apart
  uint64_t max_value_ = 0;
};

inline bool BoundaryMap::Erase(uint64_t key) {
  if (key == kEmpty) {
    const bool had = has_max_;
    has_max_ = false;
    return had;
  }
  if (slots_.empty()) return false;
  size_t i = Probe(key);
  if (slots_[i].key == kEmpty) return false;
  // Backward shift: each later entry of the run whose home is not in
  // (i, j] cyclically would be cut off from it by the gap at i, so it
  // moves into the gap, which moves on to j.
  for (size_t j = (i + 1) & mask_; slots_[j].key != kEmpty; j = (j + 1) & mask_) {
    const size_t home = Home(slots_[j].key);
    const bool reachable = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (!reachable) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i].key = kEmpty;
  --size_;
  return true;
}

inline void BoundaryMap::Grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  const size_t capacity = old.empty() ? 16 : 2 * old.size();
  slots_.assign(capacity, Slot{});
  mask_ = capacity - 1;
  shift_ = 64;
  for (size_t c = capacity; c > 1; c /= 2) --shift_;
  for (const Slot& s : old)
    if (s.key != kEmpty) slots_[Probe(s.key)] = s;  // keys are distinct: an empty slot
}

}  // namespace internal
}  // namespace model
}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_INTERNAL_BOUNDARY_MAP_H_
