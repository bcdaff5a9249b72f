// tests/recorder/reference_model.h - the plain reference for the shadow map:
// the semantics table of realm_shadow/core/snapshot.h written again with
// std::map and brute force, sharing no code with the recorder.  The
// differential tests and the event fuzzer compare every Snapshot against it
// with CompareSnapshots(..., SnapshotFields::kState) from
// tests/common/snapshot_compare.h.
#ifndef REALM_SHADOW_TESTS_RECORDER_REFERENCE_MODEL_H_
#define REALM_SHADOW_TESTS_RECORDER_REFERENCE_MODEL_H_

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "realm_shadow/core/event.h"
#include "realm_shadow/core/snapshot.h"

namespace realm_shadow::testing {

inline uint8_t ReferenceLog2(uint64_t alignment) {
  uint8_t l = 0;
  while (l < 63 && (uint64_t{1} << l) < alignment) ++l;
  return l;
}

class ReferenceMemory {
 public:
  ReferenceMemory(uint64_t capacity, bool addressed, bool heap_observed = false)
      : capacity_(capacity), addressed_(addressed),
        heap_observed_(heap_observed) {}

  void Apply(const Event& e) {
    const int t = static_cast<int>(e.type);
    if (t < 0 || t >= kEventTypeCount) {
      Note(AnomalyKind::kMalformedEvent, e.instance, e.offset, e.size, 0);
      ++sequence_;
      return;
    }
    ++counters_.by_type[t];
    // Groups: a heap group's records mean what its header says; a
    // redistrict group's are ordinary events.
    if (group_left_ > 0 && group_ != EventType::kRedistrict) {
      --group_left_;
      GroupRecord(e);
      if (group_left_ == 0 && group_ == EventType::kHeapReplaced) Replace();
      ++sequence_;
      return;
    }
    if (group_left_ > 0) --group_left_;
    if (IsGroupHeader(e.type)) {
      group_ = e.type;
      group_left_ = e.aux;
      replacement_.clear();
      if (e.type == EventType::kHeapReplaced && e.aux == 0) Replace();
    }
    switch (e.type) {
      case EventType::kAllocated:
      case EventType::kRedistrictPiece: {
        if (ErasePending(e.instance))
          Note(AnomalyKind::kDuplicateInstance, e.instance, e.offset, e.size, 0);
        Place(e.instance, e.offset, e.size, ReferenceLog2(e.aux),
              e.type == EventType::kRedistrictPiece ? kFromRedistrict : 0, 0,
              AllocationKind::kUnknown);
        break;
      }
      case EventType::kDeferred: {
        bool dup = Remove(e.instance, nullptr);
        dup = pending_.count(e.instance) > 0 || dup;
        if (dup)
          Note(AnomalyKind::kDuplicateInstance, e.instance, e.offset, e.size, 0);
        failed_.erase(e.instance);
        released_.erase(e.instance);
        bits_.erase(e.instance);
        pending_[e.instance] = {
            PendingRequest{e.instance, e.size, e.aux, e.offset, sequence_},
            AllocationKind::kUnknown};
        break;
      }
      case EventType::kDeferredCompleted: {
        auto it = pending_.find(e.instance);
        if (it == pending_.end()) {
          Note(AnomalyKind::kUnknownInstance, e.instance, e.offset, 0, 0);
          break;
        }
        auto [p, kind] = it->second;
        ErasePending(e.instance);
        Place(e.instance, e.offset, p.size, ReferenceLog2(p.alignment),
              static_cast<uint8_t>(kWasDeferred | (p.flags & kPinned)),
              p.identity, kind);
        break;
      }
      case EventType::kDeferredFailed: {
        Failure f;
        f.instance = e.instance;
        f.sequence = sequence_;
        f.eventual = true;
        f.maybe_cancelled = (e.offset & kFailureMaybeCancelled) != 0;
        auto it = pending_.find(e.instance);
        if (it == pending_.end()) {
          Note(AnomalyKind::kUnknownInstance, e.instance, 0, 0, 0);
        } else {
          f.size = it->second.first.size;
          f.alignment = it->second.first.alignment;
          f.identity = it->second.first.identity;
          ErasePending(e.instance);
        }
        AddFailure(f);
        Failed(e.instance);
        break;
      }
      case EventType::kAllocationFailed: {
        Failure f{e.instance, e.size, e.aux, sequence_};
        f.maybe_cancelled = (e.offset & kFailureMaybeCancelled) != 0;
        AddFailure(f);
        Failed(e.instance);
        break;
      }
      case EventType::kReleaseRequested: {
        auto it = offset_of_.find(e.instance);
        if (heap_observed_ && it != offset_of_.end() &&
            live_[{it->second, e.instance}].state != AllocationState::kLive &&
            (failed_.count(e.instance) || pending_.count(e.instance))) {
          ObservedRelease(e);
          break;
        }
        if (heap_observed_ && it == offset_of_.end()) {
          ObservedRelease(e);
          break;
        }
        if (it != offset_of_.end()) {
          AllocationState state = AllocationState::kLive;
          if (e.aux == 0) state = AllocationState::kReleasePending;
          if (e.aux == 1) state = AllocationState::kReleaseReady;
          live_[{it->second, e.instance}].state = state;
        } else if (!pending_.count(e.instance) && !failed_.count(e.instance)) {
          Note(AnomalyKind::kUnknownInstance, e.instance, 0, 0, 0);
        }
        break;
      }
      case EventType::kReleased:
        if (Remove(e.instance, nullptr)) {
          Released(e.instance);
        } else if (ErasePending(e.instance)) {
          ++counters_.cancelled;
          Released(e.instance);
        } else if (failed_.erase(e.instance)) {
        } else if (released_.count(e.instance)) {
          Note(AnomalyKind::kDoubleRelease, e.instance, 0, 0, 0);
        } else {
          Note(AnomalyKind::kUnknownInstance, e.instance, 0, 0, 0);
        }
        break;
      case EventType::kReserved: {
        reservations_[e.instance] =
            Reservation{e.instance, e.offset, e.size, sequence_};
        break;
      }
      case EventType::kReservationEnded:
        if (!reservations_.erase(e.instance))
          Note(AnomalyKind::kUnknownReservation, e.instance, 0, 0, 0);
        break;
      case EventType::kHeapPlaced:
        HeapPlace(e, 0);
        break;
      // A redistrict's or a split's parent gives its range back first.
      case EventType::kRedistrict:
      case EventType::kHeapRemoved:
      case EventType::kHeapSplit:
        if (Remove(e.instance, nullptr))
          Released(e.instance);
        else
          Note(AnomalyKind::kUnknownInstance, e.instance, 0, 0, 0);
        break;
      case EventType::kHeapSwapped:
      case EventType::kHeapReplaced:
      case EventType::kNoop:
        break;
      case EventType::kFuturePlaced: {
        auto it = offset_of_.find(e.instance);
        if (it != offset_of_.end() &&
            live_[{it->second, e.instance}].state == AllocationState::kLive)
          break;
        auto p = pending_.find(e.instance);
        if (p == pending_.end()) {
          PendingRequest r;
          r.instance = e.instance;
          r.sequence = sequence_;
          p = pending_.emplace(e.instance, std::make_pair(r, AllocationKind::kUnknown)).first;
          bits_[e.instance] = TakeEarly(e.instance);
          failed_.erase(e.instance);
          p->second.first.alignment = e.aux;
        } else if (e.aux != 0) {
          p->second.first.alignment = e.aux;
        }
        p->second.first.size = e.size;
        p->second.first.planned_offset =
            (bits_[e.instance] & (kRequested | kReady)) != 0 ? kNoOffset : e.offset;
        if (e.offset != kNoOffset) bits_[e.instance] |= kWasPlanned;
        break;
      }
      case EventType::kFutureReset:
        for (auto& entry : pending_) entry.second.first.planned_offset = kNoOffset;
        break;
      case EventType::kRequestFailed: {
        Failure f{e.instance, e.size, e.aux, sequence_, e.offset != 0};
        if (auto p = pending_.find(e.instance); p != pending_.end()) {
          f.identity = p->second.first.identity;
          ErasePending(e.instance);
        }
        early_.erase(e.instance);
        AddFailure(f);
        Failed(e.instance);
        break;
      }
      case EventType::kRequestCancelled:
        if (pending_.count(e.instance)) {
          ErasePending(e.instance);
          ++counters_.cancelled;
        }
        early_.erase(e.instance);
        Failed(e.instance);
        break;
      case EventType::kAttachIdentity: {
        const auto identity = static_cast<uint32_t>(e.offset);
        const bool pinned = e.size != 0;
        const auto kind = static_cast<AllocationKind>(
            e.aux < static_cast<uint32_t>(kAllocationKindCount) ? e.aux : 0);
        auto it = offset_of_.find(e.instance);
        if (it != offset_of_.end()) {
          Allocation& a = live_[{it->second, e.instance}];
          a.identity = identity;
          a.kind = kind;
          a.flags = static_cast<uint8_t>(pinned ? (a.flags | kPinned)
                                                : (a.flags & ~kPinned));
        } else if (auto p = pending_.find(e.instance); p != pending_.end()) {
          p->second.first.identity = identity;
          p->second.first.flags = pinned ? kPinned : 0;
          p->second.second = kind;
        } else if (!failed_.count(e.instance)) {
          Note(AnomalyKind::kUnknownInstance, e.instance, 0, 0, 0);
        }
        break;
      }
    }
    ++sequence_;
  }

  Snapshot ToSnapshot() const {
    Snapshot s;
    s.capacity = capacity_;
    s.addressed = addressed_;
    s.sequence = sequence_;
    for (const auto& entry : live_) s.allocations.push_back(entry.second);
    for (const auto& entry : pending_) s.pending.push_back(entry.second.first);
    std::sort(s.pending.begin(), s.pending.end(),
              [](const PendingRequest& a, const PendingRequest& b) {
                return a.sequence < b.sequence;
              });
    for (const auto& entry : reservations_) s.reservations.push_back(entry.second);
    size_t first = failures_.size() > kRecentFailures
                       ? failures_.size() - kRecentFailures : 0;
    s.failures.assign(failures_.begin() + first, failures_.end());
    first = anomalies_.size() > kRecentAnomalies
                ? anomalies_.size() - kRecentAnomalies : 0;
    s.anomalies.assign(anomalies_.begin() + first, anomalies_.end());
    s.counters = counters_;
    return s;
  }

  uint64_t sequence() const { return sequence_; }

 private:
  void Note(AnomalyKind kind, uint64_t instance, uint64_t offset,
            uint64_t size, uint64_t other) {
    anomalies_.push_back(Anomaly{kind, sequence_, instance, offset, size, other});
    ++counters_.anomalies[static_cast<int>(kind)];
    Trim(&anomalies_, kRecentAnomalies);
  }
  void AddFailure(const Failure& f) {
    failures_.push_back(f);
    ++counters_.failures;
    Trim(&failures_, kRecentFailures);
  }
  // Only the recent ones are ever shown: a long run (the soak) keeps no
  // more than a few times that many.
  template <typename T>
  static void Trim(std::vector<T>* v, size_t keep) {
    if (v->size() > 4 * keep) v->erase(v->begin(), v->end() - keep);
  }
  // What the shadow map remembers is bounded (snapshot.h), and the bounds
  // decide how a late release reads, so they are modelled here, by the
  // rules the shadow map's header states: failed instances, the older half
  // forgotten past kFailedMemory; released ids, all forgotten but the
  // newest once more than max(2^14, live) are remembered.
  void Failed(uint64_t instance) {
    failed_[instance] = sequence_;
    if (failed_.size() <= kFailedMemory) return;
    std::vector<uint64_t> when;
    for (const auto& entry : failed_) when.push_back(entry.second);
    std::sort(when.begin(), when.end());
    const uint64_t oldest_kept = when[when.size() / 2];
    for (auto it = failed_.begin(); it != failed_.end();)
      it = it->second < oldest_kept ? failed_.erase(it) : std::next(it);
  }
  void Released(uint64_t instance) {
    released_.insert(instance);
    if (released_.size() <= std::max<size_t>(size_t{1} << 14, live_.size())) return;
    released_.clear();
    released_.insert(instance);
  }

  // ---- heap observation ----------------------------------------------------
  static constexpr uint8_t kRequested = 2, kReady = 4, kWasPlanned = 8;
  static constexpr size_t kEarlyLimit = 4096;

  bool ErasePending(uint64_t instance) {
    bits_.erase(instance);
    return pending_.erase(instance) > 0;
  }
  uint8_t TakeEarly(uint64_t instance) {
    auto it = early_.find(instance);
    if (it == early_.end()) return 0;
    const uint8_t bits = it->second ? kReady : kRequested;
    early_.erase(it);
    return bits;
  }
  static AllocationState StateOf(uint8_t bits) {
    if (bits & kReady) return AllocationState::kReleaseReady;
    if (bits & kRequested) return AllocationState::kReleasePending;
    return AllocationState::kLive;
  }
  void HeapPlace(const Event& e, uint8_t extra) {
    uint8_t release = TakeEarly(e.instance);
    auto p = pending_.find(e.instance);
    if (p != pending_.end()) {
      const PendingRequest r = p->second.first;
      const AllocationKind kind = p->second.second;
      const uint8_t bits = bits_[e.instance];
      ErasePending(e.instance);
      release |= bits & (kRequested | kReady);
      const uint64_t alignment = e.aux ? e.aux : r.alignment;
      Place(e.instance, e.offset, e.size, ReferenceLog2(alignment),
            static_cast<uint8_t>(extra | ((bits & kWasPlanned) ? kWasDeferred : 0) |
                                 (r.flags & kPinned)),
            r.identity, kind);
    } else {
      Place(e.instance, e.offset, e.size, ReferenceLog2(e.aux), extra, 0,
            AllocationKind::kUnknown);
    }
    auto it = offset_of_.find(e.instance);
    if (it != offset_of_.end() && it->second == e.offset && e.offset != kNoOffset)
      live_[{e.offset, e.instance}].state = StateOf(release);
  }
  void ObservedRelease(const Event& e) {
    const uint8_t bits = e.aux == 0 ? kRequested : e.aux == 1 ? kReady : 0;
    if (auto p = pending_.find(e.instance); p != pending_.end()) {
      bits_[e.instance] = static_cast<uint8_t>(
          (bits_[e.instance] & ~(kRequested | kReady)) | bits);
      if (bits != 0) p->second.first.planned_offset = kNoOffset;  // out of the future heap
      return;
    }
    if (failed_.count(e.instance)) {
      if (e.aux == 1) failed_.erase(e.instance);
      return;
    }
    if (e.aux == 2) {
      early_.erase(e.instance);
      return;
    }
    if (early_.size() >= kEarlyLimit && !early_.count(e.instance)) {
      Note(AnomalyKind::kUnknownInstance, e.instance, 0, 0, 0);
      return;
    }
    early_[e.instance] = e.aux == 1;
  }
  void GroupRecord(const Event& e) {
    if (group_ == EventType::kHeapSplit && e.type == EventType::kRedistrictPiece)
      return HeapPlace(e, kFromRedistrict);
    if (group_ == EventType::kHeapSwapped && e.type == EventType::kHeapRemoved) {
      if (Remove(e.instance, nullptr))
        Released(e.instance);
      else
        Note(AnomalyKind::kUnknownInstance, e.instance, 0, 0, 0);
      return;
    }
    if (group_ == EventType::kHeapSwapped && e.type == EventType::kHeapPlaced)
      return HeapPlace(e, 0);
    if (group_ == EventType::kHeapReplaced && e.type == EventType::kHeapPlaced) {
      replacement_.push_back(e);
      return;
    }
    Note(AnomalyKind::kMalformedEvent, e.instance, e.offset, e.size, 0);
  }
  // The current heap holds exactly replacement_: the rest leaves (in address
  // order), then each record stays, moves or arrives (in record order).
  void Replace() {
    std::set<uint64_t> present;
    for (const Event& r : replacement_) present.insert(r.instance);
    std::vector<uint64_t> gone;
    for (const auto& entry : live_)
      if (!present.count(entry.second.instance)) gone.push_back(entry.second.instance);
    for (uint64_t i : gone)
      if (Remove(i, nullptr)) Released(i);
    for (const Event& r : replacement_) {
      auto it = offset_of_.find(r.instance);
      if (it != offset_of_.end()) {
        const Allocation& a = live_[{it->second, r.instance}];
        if (a.offset == r.offset && a.size == r.size) continue;
        if (Remove(r.instance, nullptr)) Released(r.instance);
      }
      HeapPlace(r, 0);
    }
    replacement_.clear();
  }
  bool Remove(uint64_t instance, Allocation* out) {
    auto it = offset_of_.find(instance);
    if (it == offset_of_.end()) return false;
    auto node = live_.find({it->second, instance});
    if (out) *out = node->second;
    used_ -= node->second.size;
    live_.erase(node);
    offset_of_.erase(it);
    return true;
  }
  void Place(uint64_t instance, uint64_t offset, uint64_t size, uint8_t log2,
             uint8_t flags, uint32_t identity, AllocationKind kind) {
    if (offset == kNoOffset) {
      Note(AnomalyKind::kMalformedEvent, instance, offset, size, 0);
      return;
    }
    if (Remove(instance, nullptr))
      Note(AnomalyKind::kDuplicateInstance, instance, offset, size, 0);
    failed_.erase(instance);
    released_.erase(instance);
    const uint64_t end = offset + size;
    if (!addressed_ && (end > capacity_ || end < offset))
      Note(AnomalyKind::kBeyondCapacity, instance, offset, size, 0);
    if (size > 0) {
      // Nearest non-empty neighbours, by brute force over the whole map.
      const std::pair<uint64_t, uint64_t> key{offset, instance};
      const Allocation* before = nullptr;
      const Allocation* after = nullptr;
      for (const auto& entry : live_) {
        if (entry.second.size == 0) continue;
        if (entry.first < key) before = &entry.second;
        else if (key < entry.first && after == nullptr) after = &entry.second;
      }
      if (before != nullptr && before->offset + before->size > offset)
        Note(AnomalyKind::kOverlap, instance, offset, size, before->instance);
      else if (after != nullptr && after->offset < end)
        Note(AnomalyKind::kOverlap, instance, offset, size, after->instance);
    }
    live_[{offset, instance}] = Allocation{
        offset, size, instance, identity, log2, AllocationState::kLive, flags,
        kind};
    offset_of_[instance] = offset;
    used_ += size;
    counters_.peak_used = std::max(counters_.peak_used, used_);
  }

  uint64_t capacity_;
  bool addressed_;
  bool heap_observed_;
  EventType group_ = EventType::kNoop;
  uint32_t group_left_ = 0;
  std::vector<Event> replacement_;
  std::map<uint64_t, bool> early_;       // instance -> ready
  std::map<uint64_t, uint8_t> bits_;     // pending instance -> kRequested...
  uint64_t sequence_ = 0;
  uint64_t used_ = 0;
  std::map<std::pair<uint64_t, uint64_t>, Allocation> live_;
  std::map<uint64_t, uint64_t> offset_of_;
  std::map<uint64_t, std::pair<PendingRequest, AllocationKind>> pending_;
  std::map<uint64_t, uint64_t> failed_;  // instance -> sequence of its failure
  std::set<uint64_t> released_;
  std::map<uint64_t, Reservation> reservations_;
  std::vector<Failure> failures_;
  std::vector<Anomaly> anomalies_;
  EventCounters counters_;
};

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_RECORDER_REFERENCE_MODEL_H_
