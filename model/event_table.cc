// model/event_table.cc - see event_table.h.
#include "model/event_table.h"

#include <utility>

namespace realm_shadow {
namespace model {

Event EventTable::NewEvent() {
  const Event e = (uint64_t{1} << 63) | next_++;
  events_.emplace(e, Entry{});
  return e;
}

bool EventTable::Fire(Event e, bool poisoned) {
  auto it = events_.find(e);
  if (it == events_.end() || it->second.state != State::kPending) return false;
  it->second.state = poisoned ? State::kPoisoned : State::kTriggered;
  // Waiters may add waiters or fire other events: run from a local copy.
  std::vector<Waiter> waiters = std::move(it->second.waiters);
  it->second.waiters.clear();
  for (Waiter& w : waiters) w(poisoned);
  return true;
}

bool EventTable::Trigger(Event e) { return Fire(e, false); }
bool EventTable::Poison(Event e) { return Fire(e, true); }

EventTable::State EventTable::Query(Event e) const {
  if (e == kNoEvent) return State::kTriggered;
  auto it = events_.find(e);
  return it == events_.end() ? State::kUnknown : it->second.state;
}

bool EventTable::HasFired(Event e, bool* poisoned) const {
  *poisoned = false;
  switch (Query(e)) {
    case State::kPending:
      return false;
    case State::kPoisoned:
      *poisoned = true;
      return true;
    case State::kUnknown:
      ++unknown_events_;
      return true;
    case State::kTriggered:
      return true;
  }
  return true;
}

void EventTable::AddWaiter(Event e, Waiter fn) {
  bool poisoned;
  if (HasTriggered(e, &poisoned)) {
    fn(poisoned);
    return;
  }
  events_[e].waiters.push_back(std::move(fn));
}

}  // namespace model
}  // namespace realm_shadow
