// model/event_table.h - Realm-style events for the model memory: created
// untriggered, then triggered or poisoned exactly once, with waiters.
#ifndef REALM_SHADOW_MODEL_EVENT_TABLE_H_
#define REALM_SHADOW_MODEL_EVENT_TABLE_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(model);
namespace model {

// Realm-style user events: created untriggered, then triggered or poisoned
// exactly once.  Waiters run in the order they were added, at the moment of
// Trigger/Poison.  One table may serve several memories (an event may gate
// work in more than one).  Event 0 is "no event": always triggered.
using Event = uint64_t;
inline constexpr Event kNoEvent = 0;

class EventTable {
 public:
  enum class State : uint8_t { kUnknown, kPending, kTriggered, kPoisoned };
  using Waiter = std::function<void(bool poisoned)>;

  // A new untriggered event; ids have bit 63 set, as Realm's do.
  Event NewEvent();
  // False if the event is unknown or already triggered/poisoned.
  bool Trigger(Event e);
  bool Poison(Event e);
  State Query(Event e) const;
  // kNoEvent and triggered events count as triggered; an unknown event
  // counts as triggered too (the caller gets what it asked for, never a
  // hang) and is counted in unknown_events().
  // Inline for kNoEvent, which is what most calls ask about.
  bool HasTriggered(Event e, bool* poisoned) const {
    if (e == kNoEvent) {
      *poisoned = false;
      return true;
    }
    return HasFired(e, poisoned);
  }
  // Runs fn now if e has fired, else when it does.
  void AddWaiter(Event e, Waiter fn);
  uint64_t unknown_events() const { return unknown_events_; }

 private:
  bool Fire(Event e, bool poisoned);
  bool HasFired(Event e, bool* poisoned) const;  // HasTriggered of a real event
  struct Entry {
    State state = State::kPending;
    std::vector<Waiter> waiters;
  };
  uint64_t next_ = 1;
  mutable uint64_t unknown_events_ = 0;
  absl::flat_hash_map<Event, Entry> events_;
};

}  // namespace model
}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_EVENT_TABLE_H_
