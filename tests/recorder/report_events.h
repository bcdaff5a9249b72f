// tests/recorder/report_events.h - the hook calls that journal a given
// Event: what the differential and history tests and the soak
// (tests/recorder/soak.cc) feed the real hooks with (event_generator.h), so
// that the journal, the consumer and the history see exactly the
// generators' events, checked against the reference model.  No GoogleTest
// here: the soak is a plain program.
#ifndef REALM_SHADOW_TESTS_RECORDER_REPORT_EVENTS_H_
#define REALM_SHADOW_TESTS_RECORDER_REPORT_EVENTS_H_

#include <string>
#include <vector>

#include "realm_shadow/heap_observer.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/core/event.h"
#include "realm_shadow/core/identity.h"
#include "realm_shadow/recorder/identity_table.h"

namespace realm_shadow::testing {

// Calls the hook that produces `e` (and, for a redistrict, its pieces).
inline void Report(realm_shadow_memory* m, const Event& e,
            const std::vector<Event>& pieces) {
  switch (e.type) {
    case EventType::kAllocated:
      realm_shadow_allocated(m, e.instance, e.offset, e.size, e.aux);
      break;
    case EventType::kDeferred:
      realm_shadow_deferred(m, e.instance, e.size, e.aux, e.offset);
      break;
    case EventType::kDeferredCompleted:
      realm_shadow_deferred_completed(m, e.instance, e.offset);
      break;
    case EventType::kDeferredFailed:
      realm_shadow_deferred_failed(m, e.instance);
      break;
    case EventType::kAllocationFailed:
      realm_shadow_allocation_failed(m, e.instance, e.size, e.aux);
      break;
    case EventType::kReleaseRequested:
      if (e.aux == 2)
        realm_shadow_release_cancelled(m, e.instance);
      else
        realm_shadow_release_requested(m, e.instance, static_cast<int>(e.aux));
      break;
    case EventType::kReleased:
      realm_shadow_released(m, e.instance);
      break;
    case EventType::kRedistrict: {
      std::vector<realm_shadow_piece> p;
      for (const Event& piece : pieces)
        p.push_back({piece.instance, piece.offset, piece.size, piece.aux});
      realm_shadow_redistricted(m, e.instance, static_cast<uint32_t>(p.size()),
                                p.data());
      break;
    }
    case EventType::kReserved:
      realm_shadow_reserved(m, e.instance, e.offset, e.size);
      break;
    case EventType::kReservationEnded:
      realm_shadow_reservation_ended(m, e.instance);
      break;
    case EventType::kAttachIdentity:
      realm_shadow_attach_identity(m, e.instance,
                                   static_cast<uint32_t>(e.offset),
                                   static_cast<int>(e.size));
      break;
    default:  // pieces come with their header; heap events: ReportHeap
      break;
  }
}

// Reports a heap-observed event (and a group's records) through the hooks
// heap_observer.h calls.
inline void ReportHeap(realm_shadow_memory* m, const Event& e,
                const std::vector<Event>& records) {
  struct Changes {
    const std::vector<Event>* records;
    static void At(void* c, uint32_t i, realm_shadow_heap_change* out) {
      const Event& r = (*static_cast<Changes*>(c)->records)[i];
      *out = realm_shadow_heap_change{r.instance, r.offset, r.size, r.aux,
                                      r.type == EventType::kHeapRemoved ? 0 : 1};
    }
  } changes{&records};
  const uint32_t n = static_cast<uint32_t>(records.size());
  switch (e.type) {
    case EventType::kHeapPlaced:
      realm_shadow_heap_placed(m, REALM_SHADOW_HEAP_CURRENT, e.instance, e.offset,
                               e.size, e.aux);
      break;
    case EventType::kHeapRemoved:
      realm_shadow_heap_removed(m, REALM_SHADOW_HEAP_CURRENT, e.instance);
      break;
    case EventType::kHeapSplit:
      realm_shadow_heap_split(m, REALM_SHADOW_HEAP_CURRENT, e.instance, n,
                              &Changes::At, &changes);
      break;
    case EventType::kHeapSwapped:
      realm_shadow_heap_swapped(m, REALM_SHADOW_HEAP_CURRENT, n, &Changes::At,
                                &changes);
      break;
    case EventType::kHeapReplaced:
      realm_shadow_heap_replaced(m, REALM_SHADOW_HEAP_CURRENT, n, &Changes::At,
                                 &changes);
      break;
    case EventType::kFuturePlaced:
      if (e.offset == kNoOffset)
        realm_shadow_request_waiting(m, e.instance, e.size, e.aux);
      else
        realm_shadow_heap_placed(m, REALM_SHADOW_HEAP_FUTURE, e.instance,
                                 e.offset, e.size, e.aux);
      break;
    case EventType::kFutureReset:
      realm_shadow_heap_reset(m, REALM_SHADOW_HEAP_FUTURE);
      break;
    case EventType::kRequestFailed:
      realm_shadow_request_failed(m, e.instance, e.size, e.aux,
                                  static_cast<int>(e.offset));
      break;
    case EventType::kRequestCancelled:
      realm_shadow_request_cancelled(m, e.instance);
      break;
    default:
      Report(m, e, records);
      break;
  }
}

// Identities 1..5, kind = id, interned in a fresh process: the events the
// generators make attach them, and the hook path looks the kind up itself.
// False when they did not get the ids 1..5 (the table was not fresh).
inline bool InternTestIdentities() {
  bool as_expected = true;
  for (int k = 1; k <= 5; ++k) {
    Identity identity;
    identity.kind = static_cast<AllocationKind>(k);
    identity.attributes = {{"name", "identity" + std::to_string(k)}};
    as_expected = InternIdentity(identity) == static_cast<uint32_t>(k) && as_expected;
  }
  return as_expected;
}

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_RECORDER_REPORT_EVENTS_H_
