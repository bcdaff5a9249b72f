// Names of event types.
#include "realm_shadow/core/event.h"

#include "realm_shadow/core/text.h"

namespace realm_shadow {

const char* EventTypeName(EventType type) {
  static constexpr const char* kNames[] = {"allocated", "deferred",
      "deferred_completed", "deferred_failed", "allocation_failed",
      "release_requested", "released", "redistrict", "redistrict_piece",
      "reserved", "reservation_ended", "attach_identity", "heap_placed",
      "heap_removed", "heap_split", "heap_swapped", "heap_replaced",
      "future_placed", "request_failed", "request_cancelled", "noop",
      "future_reset"};
  return EnumName<kEventTypeCount>(kNames, type, "unknown");
}

}  // namespace realm_shadow
