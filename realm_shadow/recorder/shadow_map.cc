// The shadow map: applies events to the picture of one memory.  The
// semantics table is in snapshot.h; every branch below is one row of it.
#include "realm_shadow/recorder/shadow_map.h"

#include <algorithm>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "realm_shadow/recorder/sorted_runs.h"

namespace realm_shadow {

// Released ids are remembered to tell a double release from an unknown one.
// Realm reuses ids, so the set stays small; a workload that never reuses
// them would grow it without bound, so past this many it is cleared (a later
// double release is then reported as an unknown-instance release).
static constexpr size_t kReleasedMemory = size_t{1} << 20;

struct ShadowMap::State {
  State(uint64_t capacity_, bool addressed_, bool capacity_known_)
      : capacity(capacity_), addressed(addressed_),
        capacity_known(capacity_known_) {}

  uint64_t capacity;
  bool addressed;
  bool capacity_known;
  uint64_t sequence = 0;  // events applied so far

  SortedRuns live;
  absl::flat_hash_map<uint64_t, uint64_t> live_offset;  // instance -> offset
  absl::flat_hash_map<uint64_t, PendingRequest> pending;
  absl::flat_hash_set<uint64_t> failed;    // failed, not yet destroyed
  absl::flat_hash_set<uint64_t> released;  // released, not since reused
  absl::btree_map<uint64_t, Reservation> reservations;
  std::deque<Failure> failures;
  std::deque<Anomaly> anomalies;
  EventCounters counters;
  uint64_t used = 0;

  void Note(AnomalyKind kind, uint64_t instance, uint64_t offset = 0,
            uint64_t size = 0, uint64_t other = 0) {
    Anomaly a;
    a.kind = kind;
    a.sequence = sequence;
    a.instance = instance;
    a.offset = offset;
    a.size = size;
    a.other_instance = other;
    NoteAnomaly(a);
  }
  void NoteAnomaly(const Anomaly& a) {
    ++counters.anomalies[static_cast<size_t>(a.kind)];
    anomalies.push_back(a);
    if (anomalies.size() > kRecentAnomalies) anomalies.pop_front();
  }
  void NoteFailure(const Failure& f) {
    ++counters.failures;
    failures.push_back(f);
    if (failures.size() > kRecentFailures) failures.pop_front();
  }
  void Forget(uint64_t instance) {
    failed.erase(instance);
    released.erase(instance);
  }
  void Remember(uint64_t instance) {
    if (released.size() >= kReleasedMemory) released.clear();
    released.insert(instance);
  }

  Allocation* FindLive(uint64_t instance) {
    auto it = live_offset.find(instance);
    if (it == live_offset.end()) return nullptr;
    return live.Find(SortedRuns::Key{it->second, instance});
  }

  bool RemoveLive(uint64_t instance, Allocation* out = nullptr) {
    auto it = live_offset.find(instance);
    if (it == live_offset.end()) return false;
    Allocation removed;
    live.Erase(SortedRuns::Key{it->second, instance}, &removed);
    live_offset.erase(it);
    used -= removed.size;
    if (out) *out = removed;
    return true;
  }

  // Checks a new range against its neighbours; zero-byte ranges occupy
  // nothing and overlap nothing.
  void CheckRange(uint64_t instance, uint64_t offset, uint64_t size) {
    const uint64_t end = offset + size;
    if (!addressed && capacity_known && (end > capacity || end < offset))
      Note(AnomalyKind::kBeyondCapacity, instance, offset, size);
    if (size == 0) return;
    const SortedRuns::Key key{offset, instance};
    const Allocation* before = live.Predecessor(key);
    while (before != nullptr && before->size == 0)
      before = live.Predecessor(SortedRuns::KeyOf(*before));
    if (before != nullptr && before->end() > offset) {
      Note(AnomalyKind::kOverlap, instance, offset, size, before->instance);
      return;
    }
    for (const Allocation* after = live.Successor(key);
         after != nullptr && after->offset < end;
         after = live.Successor(SortedRuns::KeyOf(*after))) {
      if (after->size > 0) {
        Note(AnomalyKind::kOverlap, instance, offset, size, after->instance);
        return;
      }
    }
  }

  void Place(uint64_t instance, uint64_t offset, uint64_t size,
             uint8_t alignment_log2, uint8_t flags, uint32_t identity,
             AllocationKind kind) {
    if (RemoveLive(instance))
      Note(AnomalyKind::kDuplicateInstance, instance, offset, size);
    Forget(instance);
    CheckRange(instance, offset, size);
    Allocation a;
    a.offset = offset;
    a.size = size;
    a.instance = instance;
    a.identity = identity;
    a.alignment_log2 = alignment_log2;
    a.flags = flags;
    a.kind = kind;
    live.Insert(a);
    live_offset[instance] = offset;
    used += size;
    counters.peak_used = std::max(counters.peak_used, used);
  }

  void Apply(const Event& e) {
    const auto type_index = static_cast<size_t>(e.type);
    if (type_index >= static_cast<size_t>(kEventTypeCount)) {
      Note(AnomalyKind::kMalformedEvent, e.instance, e.offset, e.size);
      ++sequence;
      return;
    }
    ++counters.by_type[type_index];
    switch (e.type) {
      case EventType::kAllocated:
        if (pending.erase(e.instance))
          Note(AnomalyKind::kDuplicateInstance, e.instance, e.offset, e.size);
        Place(e.instance, e.offset, e.size, AlignmentLog2(e.aux), 0, 0,
              AllocationKind::kUnknown);
        break;
      case EventType::kRedistrictPiece:
        if (pending.erase(e.instance))
          Note(AnomalyKind::kDuplicateInstance, e.instance, e.offset, e.size);
        Place(e.instance, e.offset, e.size, AlignmentLog2(e.aux),
              kFromRedistrict, 0, AllocationKind::kUnknown);
        break;
      case EventType::kDeferred: {
        if (RemoveLive(e.instance) || pending.count(e.instance))
          Note(AnomalyKind::kDuplicateInstance, e.instance, e.offset, e.size);
        Forget(e.instance);
        PendingRequest p;
        p.instance = e.instance;
        p.size = e.size;
        p.alignment = e.aux;
        p.planned_offset = e.offset;
        p.sequence = sequence;
        pending[e.instance] = p;
        break;
      }
      case EventType::kDeferredCompleted: {
        auto it = pending.find(e.instance);
        if (it == pending.end()) {
          Note(AnomalyKind::kUnknownInstance, e.instance, e.offset);
          break;
        }
        const PendingRequest p = it->second;
        pending.erase(it);
        Place(e.instance, e.offset, p.size, AlignmentLog2(p.alignment),
              static_cast<uint8_t>(kWasDeferred | (p.flags & kPinned)),
              p.identity, static_cast<AllocationKind>(p.flags >> 4));
        break;
      }
      case EventType::kDeferredFailed: {
        Failure f;
        f.instance = e.instance;
        f.sequence = sequence;
        f.eventual = true;
        auto it = pending.find(e.instance);
        if (it == pending.end()) {
          Note(AnomalyKind::kUnknownInstance, e.instance);
        } else {
          f.size = it->second.size;
          f.alignment = it->second.alignment;
          f.identity = it->second.identity;
          pending.erase(it);
        }
        NoteFailure(f);
        failed.insert(e.instance);
        break;
      }
      case EventType::kAllocationFailed: {
        Failure f;
        f.instance = e.instance;
        f.size = e.size;
        f.alignment = e.aux;
        f.sequence = sequence;
        NoteFailure(f);
        failed.insert(e.instance);
        break;
      }
      case EventType::kReleaseRequested: {
        if (Allocation* a = FindLive(e.instance)) {
          a->state = e.aux == 0   ? AllocationState::kReleasePending
                     : e.aux == 1 ? AllocationState::kReleaseReady
                                  : AllocationState::kLive;  // cancelled
        } else if (!pending.count(e.instance) && !failed.count(e.instance)) {
          Note(AnomalyKind::kUnknownInstance, e.instance);
        }
        break;
      }
      case EventType::kReleased:
        if (RemoveLive(e.instance)) {
          Remember(e.instance);
        } else if (pending.erase(e.instance)) {
          ++counters.cancelled;
          Remember(e.instance);
        } else if (failed.erase(e.instance)) {
          // Realm destroys failed instances too: nothing to give back.
        } else if (released.count(e.instance)) {
          Note(AnomalyKind::kDoubleRelease, e.instance);
        } else {
          Note(AnomalyKind::kUnknownInstance, e.instance);
        }
        break;
      case EventType::kRedistrict:
        // The pieces follow as kRedistrictPiece events; the parent's range
        // is given back here, so pieces never overlap it.
        if (RemoveLive(e.instance)) {
          Remember(e.instance);
        } else {
          Note(AnomalyKind::kUnknownInstance, e.instance);
        }
        break;
      case EventType::kReserved: {
        Reservation r;
        r.id = e.instance;
        r.offset = e.offset;
        r.size = e.size;
        r.sequence = sequence;
        reservations[e.instance] = r;
        break;
      }
      case EventType::kReservationEnded:
        if (!reservations.erase(e.instance))
          Note(AnomalyKind::kUnknownReservation, e.instance);
        break;
      case EventType::kAttachIdentity: {
        const uint32_t identity = static_cast<uint32_t>(e.offset);
        const bool pinned = e.size != 0;
        const auto kind = static_cast<AllocationKind>(
            e.aux < static_cast<uint32_t>(kAllocationKindCount) ? e.aux : 0);
        if (Allocation* a = FindLive(e.instance)) {
          a->identity = identity;
          a->kind = kind;
          a->flags = static_cast<uint8_t>(pinned ? (a->flags | kPinned)
                                                 : (a->flags & ~kPinned));
        } else if (auto it = pending.find(e.instance); it != pending.end()) {
          // Pending flags: bit 0 pinned, kind in the high nibble.
          it->second.identity = identity;
          it->second.flags = static_cast<uint8_t>(
              (pinned ? kPinned : 0) | (static_cast<uint8_t>(kind) << 4));
        } else if (!failed.count(e.instance)) {
          Note(AnomalyKind::kUnknownInstance, e.instance);
        }
        break;
      }
    }
    ++sequence;
  }
};

ShadowMap::ShadowMap(uint64_t capacity, bool addressed, bool capacity_known)
    : state_(new State(capacity, addressed, capacity_known)) {}
ShadowMap::~ShadowMap() = default;
ShadowMap::ShadowMap(ShadowMap&&) noexcept = default;
ShadowMap& ShadowMap::operator=(ShadowMap&&) noexcept = default;

void ShadowMap::Apply(const Event& event) { state_->Apply(event); }

void ShadowMap::CopyTo(Snapshot* out) const {
  const State& s = *state_;
  out->capacity = s.capacity;
  out->capacity_known = s.capacity_known;
  out->addressed = s.addressed;
  out->sequence = s.sequence;
  out->allocations.clear();
  s.live.CopyTo(&out->allocations);
  out->pending.clear();
  out->pending.reserve(s.pending.size());
  for (const auto& entry : s.pending) {
    PendingRequest p = entry.second;
    p.flags &= kPinned;  // the kind nibble is internal
    out->pending.push_back(p);
  }
  std::sort(out->pending.begin(), out->pending.end(),
            [](const PendingRequest& a, const PendingRequest& b) {
              return a.sequence < b.sequence;
            });
  out->reservations.clear();
  for (const auto& entry : s.reservations)
    out->reservations.push_back(entry.second);
  out->failures.assign(s.failures.begin(), s.failures.end());
  out->anomalies.assign(s.anomalies.begin(), s.anomalies.end());
  out->counters = s.counters;
}

uint64_t ShadowMap::sequence() const { return state_->sequence; }
size_t ShadowMap::live_count() const { return state_->live.size(); }
uint64_t ShadowMap::used_bytes() const { return state_->used; }
uint64_t ShadowMap::capacity() const { return state_->capacity; }
void ShadowMap::set_capacity(uint64_t capacity, bool known) {
  state_->capacity = capacity;
  state_->capacity_known = known;
}
void ShadowMap::NoteAnomaly(const Anomaly& anomaly) {
  state_->NoteAnomaly(anomaly);
}

}  // namespace realm_shadow
