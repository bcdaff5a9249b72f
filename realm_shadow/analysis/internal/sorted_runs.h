// realm_shadow/analysis/internal/sorted_runs.h - live allocations sorted by
// (offset, instance) in runs of at most 256 records (8 KiB).
//
// Why not absl::btree_map: copying a whole btree_map of 100k entries takes
// an iterator walk (0.93 ms on the reference machine, 4.6x a memcpy of the
// same bytes); a snapshot here must be about one memcpy.  Runs are plain
// arrays, so copying the map is one memcpy per run, while an insert or erase
// costs a binary search over run heads, a binary search in the run and a
// memmove of half a run on average (4 KiB, about 100 ns).
//
// Runs stay full where allocations arrive in address order, as a fresh
// memory fills: a full last run that receives a record past its end starts a
// new run instead of splitting in halves (and likewise before the first
// run), so 100k records filled in order are 391 full runs, not 782 half
// ones, and a copy is half as many memcpys.  Elsewhere a full run splits in
// halves.  An erase that leaves a run below a quarter full merges it with
// the run after it when the two fit in half a run; a sparse run can remain
// next to a fuller one (no occupancy is promised beyond that: a copy is one
// memcpy per run, whatever they hold).
//
// Invariants: every run is sorted and non-empty; runs are in order; heads_[i]
// is the key of runs_[i]'s first record.  Not thread-safe.
#ifndef REALM_SHADOW_ANALYSIS_INTERNAL_SORTED_RUNS_H_
#define REALM_SHADOW_ANALYSIS_INTERNAL_SORTED_RUNS_H_

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(analysis);

class SortedRuns {
 public:
  struct Key {
    uint64_t offset;
    uint64_t instance;
    bool operator<(const Key& o) const {
      return offset != o.offset ? offset < o.offset : instance < o.instance;
    }
    bool operator==(const Key& o) const {
      return offset == o.offset && instance == o.instance;
    }
  };
  static Key KeyOf(const Allocation& a) { return Key{a.offset, a.instance}; }

  static constexpr size_t kRunCapacity = 256;

  size_t size() const { return size_; }
  size_t run_count() const { return runs_.size(); }
  bool empty() const { return size_ == 0; }

  // Where a record sits: run index and position in the run.  Valid until
  // the next Insert or Erase.
  struct Location {
    size_t run = 0;
    size_t pos = 0;
  };

  // Inserts a; returns false (and changes nothing) if the key is present.
  // *where, if given, receives the new record's location, so that a caller
  // can look at its neighbours (Before / After) without a second search.
  bool Insert(const Allocation& a, Location* where = nullptr) {
    const Key k = KeyOf(a);
    if (runs_.empty()) {
      runs_.push_back(std::make_unique<Run>());
      heads_.push_back(k);
    }
    size_t r = RunFor(k);
    Run* run = runs_[r].get();
    size_t pos = LowerBound(*run, k);
    if (pos < run->count && KeyOf(run->items[pos]) == k) return false;
    if (run->count == kRunCapacity) {
      if (pos == kRunCapacity && r + 1 == runs_.size()) {
        // Past the end of the last run: a new run, the full one stays full.
        runs_.push_back(std::make_unique<Run>());
        heads_.push_back(k);
        ++r;
        pos = 0;
      } else if (pos == 0 && r == 0) {
        // Before the first record: a new first run.
        runs_.insert(runs_.begin(), std::make_unique<Run>());
        heads_.insert(heads_.begin(), k);
      } else {
        // Split in halves: the new run takes the upper half.
        auto upper = std::make_unique<Run>();
        const size_t half = kRunCapacity / 2;
        upper->count = kRunCapacity - half;
        std::memcpy(upper->items, run->items + half,
                    upper->count * sizeof(Allocation));
        run->count = half;
        heads_.insert(heads_.begin() + r + 1, KeyOf(upper->items[0]));
        runs_.insert(runs_.begin() + r + 1, std::move(upper));
        if (pos > half) {
          ++r;
          pos -= half;
        }
      }
      run = runs_[r].get();
    }
    std::memmove(run->items + pos + 1, run->items + pos,
                 (run->count - pos) * sizeof(Allocation));
    run->items[pos] = a;
    ++run->count;
    if (pos == 0) heads_[r] = k;
    ++size_;
    if (where != nullptr) *where = Location{r, pos};
    return true;
  }

  // The record just before / after the one at `at` (moving `at` there), or
  // null at either end.
  const Allocation* Before(Location* at) const {
    if (at->pos > 0) return &runs_[at->run]->items[--at->pos];
    if (at->run == 0) return nullptr;
    --at->run;
    at->pos = runs_[at->run]->count - 1;
    return &runs_[at->run]->items[at->pos];
  }
  const Allocation* After(Location* at) const {
    if (at->pos + 1 < runs_[at->run]->count)
      return &runs_[at->run]->items[++at->pos];
    if (at->run + 1 == runs_.size()) return nullptr;
    ++at->run;
    at->pos = 0;
    return &runs_[at->run]->items[0];
  }

  // Removes the record with key k into *out; false if absent.
  bool Erase(const Key& k, Allocation* out = nullptr) {
    if (runs_.empty()) return false;
    const size_t r = RunFor(k);
    Run* run = runs_[r].get();
    const size_t pos = LowerBound(*run, k);
    if (pos >= run->count || !(KeyOf(run->items[pos]) == k)) return false;
    if (out) *out = run->items[pos];
    std::memmove(run->items + pos, run->items + pos + 1,
                 (run->count - pos - 1) * sizeof(Allocation));
    --run->count;
    --size_;
    if (run->count == 0) {
      runs_.erase(runs_.begin() + r);
      heads_.erase(heads_.begin() + r);
      return true;
    }
    if (pos == 0) heads_[r] = KeyOf(run->items[0]);
    // Merge a sparse run into its successor when both fit in half a run, so
    // that erases do not leave a trail of tiny runs (each costs a memcpy).
    if (r + 1 < runs_.size() && run->count < kRunCapacity / 4 &&
        run->count + runs_[r + 1]->count <= kRunCapacity / 2) {
      Run* next = runs_[r + 1].get();
      std::memcpy(run->items + run->count, next->items,
                  next->count * sizeof(Allocation));
      run->count += next->count;
      runs_.erase(runs_.begin() + r + 1);
      heads_.erase(heads_.begin() + r + 1);
    }
    return true;
  }

  Allocation* Find(const Key& k) {
    if (runs_.empty()) return nullptr;
    Run* run = runs_[RunFor(k)].get();
    const size_t pos = LowerBound(*run, k);
    if (pos < run->count && KeyOf(run->items[pos]) == k)
      return &run->items[pos];
    return nullptr;
  }

  // The last record with key < k, or null.
  const Allocation* Predecessor(const Key& k) const {
    if (runs_.empty()) return nullptr;
    size_t r = RunFor(k);
    const Run* run = runs_[r].get();
    size_t pos = LowerBound(*run, k);
    if (pos > 0) return &run->items[pos - 1];
    if (r == 0) return nullptr;
    const Run* prev = runs_[r - 1].get();
    return &prev->items[prev->count - 1];
  }

  // The first record with key > k, or null.
  const Allocation* Successor(const Key& k) const {
    if (runs_.empty()) return nullptr;
    size_t r = RunFor(k);
    const Run* run = runs_[r].get();
    size_t pos = LowerBound(*run, k);
    if (pos < run->count && KeyOf(run->items[pos]) == k) ++pos;
    if (pos < run->count) return &run->items[pos];
    if (r + 1 < runs_.size()) return &runs_[r + 1]->items[0];
    return nullptr;
  }

  // Appends every record, in order, to *out: one memcpy per run.  reserve
  // then insert, not resize: resize would write every byte twice (zero
  // fill, then copy), which measured 2.6x a memcpy at 100k records.
  void CopyTo(std::vector<Allocation>* out) const {
    out->reserve(out->size() + size_);
    for (const auto& run : runs_)
      out->insert(out->end(), run->items, run->items + run->count);
  }

  template <typename F>
  void ForEach(F&& f) const {
    for (const auto& run : runs_)
      for (size_t i = 0; i < run->count; ++i) f(run->items[i]);
  }

  // Replaces the contents with `sorted` (ascending by key, no duplicate
  // key), packed into full runs: one memcpy per run.  Restoring a
  // checkpoint (history.h) loads a whole map this way.
  void AssignSorted(const std::vector<Allocation>& sorted) {
    Clear();
    for (size_t at = 0; at < sorted.size(); at += kRunCapacity) {
      auto run = std::make_unique<Run>();
      run->count = std::min(kRunCapacity, sorted.size() - at);
      std::memcpy(run->items, sorted.data() + at,
                  run->count * sizeof(Allocation));
      heads_.push_back(KeyOf(run->items[0]));
      runs_.push_back(std::move(run));
    }
    size_ = sorted.size();
  }

  void Clear() {
    runs_.clear();
    heads_.clear();
    size_ = 0;
  }

 private:
  struct Run {
    size_t count = 0;
    Allocation items[kRunCapacity];
  };

  // The run that holds k or would: the last run whose head is <= k.
  size_t RunFor(const Key& k) const {
    auto it = std::upper_bound(heads_.begin(), heads_.end(), k);
    return it == heads_.begin() ? 0 : static_cast<size_t>(it - heads_.begin()) - 1;
  }
  static size_t LowerBound(const Run& run, const Key& k) {
    const Allocation* it = std::lower_bound(
        run.items, run.items + run.count, k,
        [](const Allocation& a, const Key& key) { return KeyOf(a) < key; });
    return static_cast<size_t>(it - run.items);
  }

  std::vector<std::unique_ptr<Run>> runs_;
  std::vector<Key> heads_;
  size_t size_ = 0;
};

}  // namespace realm_shadow

#endif  // REALM_SHADOW_ANALYSIS_INTERNAL_SORTED_RUNS_H_
