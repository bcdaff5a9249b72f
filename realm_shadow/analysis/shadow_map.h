// realm_shadow/analysis/shadow_map.h - the consumer side of a journal: the
// shadow interval map of one memory, kept by applying events in order.
//
// The journal (journal.h) is what the allocator pays for; the ShadowMap is
// where the work it did not do happens, on whichever thread consumes.  It
// keeps live allocations sorted by (offset, instance) in 8 KiB runs
// (sorted_runs.h) so that a copy of the whole map is a memcpy per run, and
// the instance -> offset index that releases need.
//
// Not thread-safe: one consumer at a time (recorder/recorder.h serializes them).
// Cost per event at 100k live: one hash operation on the instance index
// (an allocation claims its entry, a release overwrites it with a mark),
// one binary search over run heads, one inside the run and a memmove of
// half a run; the overlap check reads the neighbours where the insert
// landed, without another search.  Memory: 32 B per live allocation plus
// about 16 B of index per live allocation and per released id not yet
// reused (at most max(2^14, live) of those; Realm reuses ids), and 16 B
// per failed instance not yet destroyed (at most kFailedMemory, 2^14).
// Applying a malformed event never throws and never breaks the map: it
// counts an anomaly (snapshot.h lists them).
//
// Tools that rebuild a memory from a log (ingest-realm-log) and the tests'
// replays use a ShadowMap directly, without a journal.
#ifndef REALM_SHADOW_ANALYSIS_SHADOW_MAP_H_
#define REALM_SHADOW_ANALYSIS_SHADOW_MAP_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "realm_shadow/core/history.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/core/event.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(analysis);

// What applying events reports besides the state (ShadowMap::set_observer,
// HistoryCursor): each change to the live allocations, in event order.
// Called from inside the event's application; the receiver must not touch
// the map or the cursor.
class AllocationObserver {
 public:
  virtual ~AllocationObserver() = default;
  virtual void Placed(const Allocation& allocation) = 0;
  virtual void Removed(const Allocation& allocation) = 0;
  // State, identity, kind or pinning changed in place (same range, id).
  virtual void Changed(const Allocation& before, const Allocation& after) = 0;
  virtual void Failed(const Failure& failure) = 0;
};

class ShadowMap {
 public:
  // capacity 0 with capacity_known = false: a memory whose size is unknown.
  ShadowMap(uint64_t capacity, bool addressed, bool capacity_known = true);
  ~ShadowMap();
  ShadowMap(ShadowMap&&) noexcept;
  ShadowMap& operator=(ShadowMap&&) noexcept;

  // Applies one event; the sequence number advances by one.
  void Apply(const Event& event);

  // Copies the state into *out (allocations sorted, pending in deferral
  // order, reservations by id, recent failures and anomalies).  Fills the
  // state fields only; memory identity (id, kind, name, node) is the
  // caller's.
  void CopyTo(Snapshot* out) const;

  // Appends, in no order, each identity that at least one live allocation
  // carries (pending requests and failures are in the copy itself).  Cost:
  // the number of distinct identities, not of allocations.
  void AppendIdentities(std::vector<uint32_t>* out) const;
  // Those, and each identity of a pending request or a recent failure: every
  // identity the map refers to (what keeps it in the identity table).
  void AppendReferencedIdentities(std::vector<uint32_t>* out) const;
  // Failed (or cancelled) instances remembered until Realm destroys them;
  // at most kFailedMemory (snapshot.h).  Tests watch the bound.
  size_t remembered_failed() const;

  uint64_t sequence() const;
  size_t live_count() const;
  uint64_t used_bytes() const;
  uint64_t capacity() const;
  void set_capacity(uint64_t capacity, bool known = true);
  // A memory whose events come from heap observation (heap_observer.h):
  // a release requested for an instance not yet in a heap is kept until it
  // appears instead of being an anomaly (snapshot.h).
  void set_heap_observed(bool observed);
  // Records an anomaly that did not come from an event (a tool's own).
  void NoteAnomaly(const Anomaly& anomaly);

  // The exact state (history.h): the picture and what the map keeps beyond
  // it.  Fills the state fields of checkpoint->state as CopyTo does.  Cost:
  // CopyTo plus a walk of the instance index (live + remembered released
  // ids).
  void SaveCheckpoint(HistoryCheckpoint* checkpoint) const;
  // A map in exactly the state a checkpoint was saved from: applying the
  // same events to both gives the same pictures.
  static ShadowMap FromCheckpoint(const HistoryCheckpoint& checkpoint);

  // Tells `observer` of every change to the live allocations (null: none,
  // the consumer's case; one branch per change).  Replays use it.
  void set_observer(AllocationObserver* observer);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// A picture of a memory some of whose events were not recorded (tracking
// was switched off for a while): exact = false and one kTrackingPaused
// anomaly, as TakeSnapshot and StateAt give it.
void MarkNotExact(Snapshot* snapshot);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_ANALYSIS_SHADOW_MAP_H_
