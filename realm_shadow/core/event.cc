// Names of event types.
#include "realm_shadow/core/event.h"

namespace realm_shadow {

const char* EventTypeName(EventType type) {
  switch (type) {
    case EventType::kAllocated: return "allocated";
    case EventType::kDeferred: return "deferred";
    case EventType::kDeferredCompleted: return "deferred_completed";
    case EventType::kDeferredFailed: return "deferred_failed";
    case EventType::kAllocationFailed: return "allocation_failed";
    case EventType::kReleaseRequested: return "release_requested";
    case EventType::kReleased: return "released";
    case EventType::kRedistrict: return "redistrict";
    case EventType::kRedistrictPiece: return "redistrict_piece";
    case EventType::kReserved: return "reserved";
    case EventType::kReservationEnded: return "reservation_ended";
    case EventType::kAttachIdentity: return "attach_identity";
    case EventType::kHeapPlaced: return "heap_placed";
    case EventType::kHeapRemoved: return "heap_removed";
    case EventType::kHeapSplit: return "heap_split";
    case EventType::kHeapSwapped: return "heap_swapped";
    case EventType::kHeapReplaced: return "heap_replaced";
    case EventType::kFuturePlaced: return "future_placed";
    case EventType::kRequestFailed: return "request_failed";
    case EventType::kRequestCancelled: return "request_cancelled";
    case EventType::kNoop: return "noop";
    case EventType::kFutureReset: return "future_reset";
  }
  return "unknown";
}

}  // namespace realm_shadow
