// tests/recorder/event_generator.h - random event sequences that look like
// an allocator's (mostly valid: first-fit-ish placement, releases of live
// instances, deferrals, completions and cancellations) with a share of wrong
// ones (unknown and double releases, also of cancelled requests, overlaps,
// ranges past capacity, duplicate ids) so that every anomaly path runs.
// Deterministic for a seed.
#ifndef REALM_SHADOW_TESTS_RECORDER_EVENT_GENERATOR_H_
#define REALM_SHADOW_TESTS_RECORDER_EVENT_GENERATOR_H_

#include <map>
#include <random>
#include <set>
#include <vector>

#include "realm_shadow/core/event.h"

namespace realm_shadow::testing {

class EventGenerator {
 public:
  EventGenerator(uint64_t seed, uint64_t capacity, uint64_t id_pool,
                 double wrong_share)
      : rng_(seed), capacity_(capacity), id_pool_(id_pool),
        wrong_share_(wrong_share) {}

  // The next event; a redistrict comes as a header followed by its pieces
  // in the queue, so callers must drain Pending() too.
  Event Next() {
    if (!queued_.empty()) {
      Event e = queued_.front();
      queued_.erase(queued_.begin());
      return e;
    }
    if (Chance(wrong_share_)) return Wrong();
    const int pick = Uniform(0, 99);
    if (pick < 30 || live_.empty()) return Allocate();
    if (pick < 53) return Release();
    if (pick < 55 && !pending_.empty()) return Cancel();
    if (pick < 62) return Defer();
    if (pick < 70 && !pending_.empty()) return Complete();
    if (pick < 73 && !pending_.empty()) return FailDeferred();
    if (pick < 76) return FailNow();
    if (pick < 82) return RequestRelease();
    if (pick < 86) return Redistrict();
    if (pick < 91) return Reserve();
    if (pick < 95) return Attach();
    return Allocate();
  }
  bool HasQueued() const { return !queued_.empty(); }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<>(0, 1)(rng_) < p; }
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  uint64_t U64(uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_);
  }
  uint64_t FreshId() {
    for (int tries = 0; tries < 64; ++tries) {
      const uint64_t id = 0x4000000000000000ull | U64(0, id_pool_ - 1);
      if (!live_.count(id) && !pending_.count(id)) return id;
    }
    return 0x4000000000000000ull | (id_pool_ + next_extra_++);
  }
  uint64_t AnyLive() {
    auto it = live_.begin();
    std::advance(it, U64(0, live_.size() - 1));
    return it->first;
  }
  uint64_t Align() { return uint64_t{1} << Uniform(0, 7); }
  // First fit over the generator's own view of live ranges.
  bool Place(uint64_t size, uint64_t align, uint64_t* offset) {
    uint64_t cursor = 0;
    for (const auto& [start, end] : ranges_) {
      uint64_t o = (cursor + align - 1) / align * align;
      if (o + size <= start) { *offset = o; return true; }
      cursor = std::max(cursor, end);
    }
    uint64_t o = (cursor + align - 1) / align * align;
    if (o + size <= capacity_) { *offset = o; return true; }
    return false;
  }
  void Occupy(uint64_t id, uint64_t offset, uint64_t size) {
    live_[id] = {offset, size};
    if (size) ranges_.emplace(offset, offset + size);
  }
  void Vacate(uint64_t id) {
    auto it = live_.find(id);
    if (it == live_.end()) return;
    if (it->second.second) {
      auto r = ranges_.find({it->second.first, it->second.first + it->second.second});
      if (r != ranges_.end()) ranges_.erase(r);
    }
    live_.erase(it);
  }
  static Event Make(EventType t, uint64_t i, uint64_t o, uint64_t s,
                    uint32_t aux) {
    return Event{t, i, o, s, aux};
  }
  Event Allocate() {
    const uint64_t size = Chance(0.05) ? 0 : U64(1, capacity_ / 16);
    const uint64_t align = Align();
    uint64_t offset = 0;
    const uint64_t id = FreshId();
    if (!Place(size, align, &offset)) return FailNow();
    Occupy(id, offset, size);
    return Make(EventType::kAllocated, id, offset, size, static_cast<uint32_t>(align));
  }
  Event Release() {
    const uint64_t id = AnyLive();
    Vacate(id);
    return Make(EventType::kReleased, id, 0, 0, 0);
  }
  // Realm destroys an instance whose deferred allocation has not happened
  // yet; now and then the destroy is repeated (a double release).
  Event Cancel() {
    auto it = pending_.begin();
    std::advance(it, U64(0, pending_.size() - 1));
    const uint64_t id = it->first;
    pending_.erase(it);
    if (Chance(0.3)) queued_.push_back(Make(EventType::kReleased, id, 0, 0, 0));
    return Make(EventType::kReleased, id, 0, 0, 0);
  }
  Event RequestRelease() {
    if (live_.empty()) return Allocate();
    return Make(EventType::kReleaseRequested, AnyLive(), 0, 0, Uniform(0, 2));
  }
  Event Defer() {
    const uint64_t id = FreshId();
    const uint64_t size = U64(1, capacity_ / 8);
    const uint64_t align = Align();
    pending_[id] = {size, align};
    return Make(EventType::kDeferred, id, Chance(0.5) ? kNoOffset : U64(0, capacity_),
                size, static_cast<uint32_t>(align));
  }
  Event Complete() {
    auto it = pending_.begin();
    std::advance(it, U64(0, pending_.size() - 1));
    const uint64_t id = it->first;
    uint64_t offset = 0;
    if (!Place(it->second.first, it->second.second, &offset)) return FailDeferred();
    Occupy(id, offset, it->second.first);
    pending_.erase(it);
    return Make(EventType::kDeferredCompleted, id, offset, 0, 0);
  }
  Event FailDeferred() {
    if (pending_.empty()) return FailNow();
    auto it = pending_.begin();
    std::advance(it, U64(0, pending_.size() - 1));
    const uint64_t id = it->first;
    pending_.erase(it);
    failed_.insert(id);
    return Make(EventType::kDeferredFailed, id, 0, 0, 0);
  }
  Event FailNow() {
    const uint64_t id = FreshId();
    failed_.insert(id);
    return Make(EventType::kAllocationFailed, id, 0, U64(1, capacity_ * 2),
                static_cast<uint32_t>(Align()));
  }
  Event Redistrict() {
    if (live_.empty()) return Allocate();
    const uint64_t old = AnyLive();
    const auto [offset, size] = live_[old];
    Vacate(old);
    const int n = Uniform(0, 3);
    uint64_t cursor = offset;
    for (int i = 0; i < n; ++i) {
      const uint64_t piece = size / 4;
      const uint64_t id = FreshId();
      Occupy(id, cursor, piece);
      queued_.push_back(Make(EventType::kRedistrictPiece, id, cursor, piece, 1));
      cursor += piece;
    }
    return Make(EventType::kRedistrict, old, 0, 0, static_cast<uint32_t>(n));
  }
  Event Reserve() {
    if (!reservations_.empty() && Chance(0.5)) {
      const uint64_t r = *reservations_.begin();
      reservations_.erase(r);
      return Make(EventType::kReservationEnded, r, 0, 0, 0);
    }
    const uint64_t r = U64(1, 16);
    reservations_.insert(r);
    return Make(EventType::kReserved, r, Chance(0.5) ? kNoOffset : U64(0, capacity_),
                U64(1, capacity_ / 4), 0);
  }
  Event Attach() {
    if (live_.empty() && pending_.empty()) return Allocate();
    uint64_t id;
    if (!pending_.empty() && Chance(0.3)) id = pending_.begin()->first;
    else if (!live_.empty()) id = AnyLive();
    else id = pending_.begin()->first;
    return Make(EventType::kAttachIdentity, id, U64(1, 5), Uniform(0, 1),
                static_cast<uint32_t>(Uniform(0, 7)));
  }
  // Events an allocator should never send.
  Event Wrong() {
    switch (Uniform(0, 6)) {
      case 0:  // release of something never seen
        return Make(EventType::kReleased, 0x7000000000000000ull | U64(0, 1000), 0, 0, 0);
      case 1: {  // double release
        if (live_.empty()) return Allocate();
        const uint64_t id = AnyLive();
        Vacate(id);
        queued_.push_back(Make(EventType::kReleased, id, 0, 0, 0));
        return Make(EventType::kReleased, id, 0, 0, 0);
      }
      case 2:  // overlap: a range on top of a live one
        if (!live_.empty()) {
          const uint64_t victim = AnyLive();
          const auto [o, s] = live_[victim];
          const uint64_t id = FreshId();
          live_[id] = {o, s};  // the generator now believes both
          if (s) ranges_.emplace(o, o + s);
          return Make(EventType::kAllocated, id, o, s, 1);
        }
        return Allocate();
      case 3: {  // past capacity
        const uint64_t id = FreshId();
        const uint64_t o = capacity_ - U64(0, 8);
        Occupy(id, o, 64);
        return Make(EventType::kAllocated, id, o, 64, 1);
      }
      case 4:  // completion of something never deferred
        return Make(EventType::kDeferredCompleted, 0x7100000000000000ull | U64(0, 50),
                    U64(0, capacity_), 0, 0);
      case 5:  // end of a reservation never made
        return Make(EventType::kReservationEnded, 1000 + U64(0, 10), 0, 0, 0);
      default: {  // allocation of an id already live
        if (live_.empty()) return Allocate();
        const uint64_t id = AnyLive();
        Vacate(id);
        uint64_t offset = 0;
        if (!Place(8, 1, &offset)) return Release();
        Occupy(id, offset, 8);
        return Make(EventType::kAllocated, id, offset, 8, 1);
      }
    }
  }

  std::mt19937_64 rng_;
  uint64_t capacity_;
  uint64_t id_pool_;
  double wrong_share_;
  uint64_t next_extra_ = 0;
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> live_;  // id -> offset, size
  std::multiset<std::pair<uint64_t, uint64_t>> ranges_;     // [start, end)
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> pending_;  // id -> size, align
  std::set<uint64_t> failed_;
  std::set<uint64_t> reservations_;
  std::vector<Event> queued_;
};

// Event sequences of a heap-observed memory (heap_observer.h): placements
// and removals in the current heap, splits, swaps and whole-content
// replacements as groups, plans in the future heap and their resets, waits,
// failures and cancellations from notify_allocation, release requests from
// the entry sites (also before an instance appears, and for reused ids), and
// a share of wrong ones.  Groups come as a header followed by its records:
// Next() returns the header and Records() the rest.
class HeapEventGenerator {
 public:
  HeapEventGenerator(uint64_t seed, uint64_t capacity, uint64_t id_pool)
      : rng_(seed), capacity_(capacity), id_pool_(id_pool) {}

  Event Next() {
    records_.clear();
    const int pick = Uniform(0, 99);
    if (pick < 25 || live_.empty()) return Place();
    if (pick < 40) return Remove();
    if (pick < 46) return Split();
    if (pick < 52) return Swap();
    if (pick < 54) return Replace();
    if (pick < 64) return Plan();
    if (pick < 66) return Make(EventType::kFutureReset, 0, 0, 0, 0);
    if (pick < 72) return Fail();
    if (pick < 75) return Cancel();
    if (pick < 90) return Request();
    if (pick < 94) return Make(EventType::kAttachIdentity, AnyId(), U64(1, 5),
                               Uniform(0, 1), 0);
    return Wrong();
  }
  const std::vector<Event>& Records() const { return records_; }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<>(0, 1)(rng_) < p; }
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  uint64_t U64(uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_);
  }
  static Event Make(EventType t, uint64_t i, uint64_t o, uint64_t s, uint32_t aux) {
    return Event{t, i, o, s, aux};
  }
  uint64_t Id() { return 0x4000000000000000ull | U64(0, id_pool_ - 1); }
  uint64_t AnyId() {
    if (!live_.empty() && Chance(0.6)) {
      auto it = live_.begin();
      std::advance(it, U64(0, live_.size() - 1));
      return it->first;
    }
    return Id();
  }
  // First fit over the generator's view of the current heap.
  bool Fit(uint64_t size, uint64_t* at) const {
    uint64_t cursor = 0;
    for (const auto& [first, last] : used_) {
      if (cursor + size <= first) { *at = cursor; return true; }
      cursor = std::max(cursor, last);
    }
    if (cursor + size > capacity_) return false;
    *at = cursor;
    return true;
  }
  void Occupy(uint64_t id, uint64_t at, uint64_t size) {
    Vacate(id);
    live_[id] = {at, size};
    if (size) used_[at] = at + size;
  }
  void Vacate(uint64_t id) {
    auto it = live_.find(id);
    if (it == live_.end()) return;
    if (it->second.second) used_.erase(it->second.first);
    live_.erase(it);
  }
  Event PlacedRecord(EventType type, uint64_t id, uint64_t size) {
    uint64_t at = 0;
    if (!Fit(size, &at)) at = U64(0, capacity_);  // an overlap, or past the end
    Occupy(id, at, size);
    return Make(type, id, at, size, static_cast<uint32_t>(uint64_t{1} << Uniform(0, 6)));
  }
  Event Place() {
    const uint64_t id = Chance(0.7) && !planned_.empty() ? *planned_.begin() : Id();
    planned_.erase(id);
    return PlacedRecord(EventType::kHeapPlaced, id, Chance(0.05) ? 0 : U64(1, capacity_ / 32));
  }
  Event Remove() {
    const uint64_t id = Chance(0.95) ? AnyId() : Id();
    Vacate(id);
    return Make(EventType::kHeapRemoved, id, 0, 0, 0);
  }
  Event Split() {
    const uint64_t old = AnyId();
    auto it = live_.find(old);
    uint64_t at = it != live_.end() ? it->second.first : 0;
    const uint64_t size = it != live_.end() ? it->second.second : 64;
    Vacate(old);
    const uint32_t n = static_cast<uint32_t>(Uniform(0, 4));
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t piece = Id();
      const uint64_t ps = size / (n + 1);
      Occupy(piece, at, ps);
      records_.push_back(Make(EventType::kRedistrictPiece, piece, at, ps, 1));
      planned_.erase(piece);
      at += ps;
    }
    return Make(EventType::kHeapSplit, old, 0, 0, n);
  }
  Event Swap() {
    const uint32_t removals = static_cast<uint32_t>(Uniform(0, 3));
    for (uint32_t i = 0; i < removals && !live_.empty(); ++i) {
      const uint64_t id = AnyId();
      Vacate(id);
      records_.push_back(Make(EventType::kHeapRemoved, id, 0, 0, 0));
    }
    const uint32_t placements = static_cast<uint32_t>(Uniform(0, 3));
    for (uint32_t i = 0; i < placements; ++i) {
      const uint64_t id = !planned_.empty() && Chance(0.7) ? *planned_.begin() : Id();
      planned_.erase(id);
      records_.push_back(PlacedRecord(EventType::kHeapPlaced, id, U64(1, capacity_ / 32)));
    }
    return Make(EventType::kHeapSwapped, 0, 0, 0,
                static_cast<uint32_t>(records_.size()));
  }
  Event Replace() {
    // Keep most, move one, drop some, add one.
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> keep;
    for (const auto& [id, r] : live_)
      if (!Chance(0.2)) keep[id] = r;
    live_.clear();
    used_.clear();
    for (const auto& [id, r] : keep) Occupy(id, r.first, r.second);
    for (const auto& [id, r] : live_)
      records_.push_back(Make(EventType::kHeapPlaced, id, r.first, r.second, 0));
    if (Chance(0.5)) records_.push_back(PlacedRecord(EventType::kHeapPlaced, Id(), 16));
    return Make(EventType::kHeapReplaced, 0, 0, 0,
                static_cast<uint32_t>(records_.size()));
  }
  Event Plan() {
    const uint64_t id = Chance(0.8) ? Id() : AnyId();
    planned_.insert(id);
    return Make(EventType::kFuturePlaced, id,
                Chance(0.3) ? kNoOffset : U64(0, capacity_), U64(1, capacity_ / 32),
                static_cast<uint32_t>(Chance(0.2) ? 0 : 64));
  }
  Event Fail() {
    const uint64_t id = !planned_.empty() && Chance(0.5) ? *planned_.begin() : Id();
    planned_.erase(id);
    return Make(EventType::kRequestFailed, id, Uniform(0, 1), U64(1, capacity_), 64);
  }
  Event Cancel() {
    const uint64_t id = !planned_.empty() && Chance(0.7) ? *planned_.begin() : Id();
    planned_.erase(id);
    return Make(EventType::kRequestCancelled, id, 0, 0, 0);
  }
  Event Request() {
    return Make(EventType::kReleaseRequested, AnyId(), 0, 0,
                static_cast<uint32_t>(Uniform(0, 2)));
  }
  Event Wrong() {
    switch (Uniform(0, 2)) {
      case 0: return Make(EventType::kHeapRemoved, 0x7000000000000000ull | U64(0, 99), 0, 0, 0);
      case 1: return Make(EventType::kHeapPlaced, AnyId(), kNoOffset, 8, 1);
      default: return Make(EventType::kHeapSplit, 0x7100000000000000ull | U64(0, 9), 0, 0, 0);
    }
  }

  std::mt19937_64 rng_;
  uint64_t capacity_;
  uint64_t id_pool_;
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> live_;  // id -> at, size
  std::map<uint64_t, uint64_t> used_;                        // first -> last
  std::set<uint64_t> planned_;
  std::vector<Event> records_;
};

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_RECORDER_EVENT_GENERATOR_H_
