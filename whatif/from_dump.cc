// whatif/from_dump.cc - see from_dump.h.
#include "whatif/from_dump.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/core/history.h"
#include "whatif/compile.h"
#include "realm_shadow/analysis/history_cursor.h"

namespace realm_shadow {
namespace whatif {

absl::StatusOr<ReplayScript> ScriptOfDumpMemory(const DumpFile& dump,
                                                const Snapshot& memory) {
  const std::string name = "memory " + HexId(memory.memory_id) + " of node " +
                           std::to_string(memory.node);
  const MemoryHistory* h = FindHistory(dump, memory);
  if (h == nullptr)
    return absl::NotFoundError(
        name +
        ": the dump holds no history of it (no hist section): replay "
        "needs the run's events (dump with REALM_SHADOW_HISTORY on, the "
        "default, or ingest-realm-log the run's log)");
  if (absl::Status checked = CheckHistory(*h); !checked.ok())
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", checked.message()));
  if (h->end_sequence() != memory.sequence)
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": its history ends after event ", h->end_sequence(),
        " but the dump's picture is after event ", memory.sequence,
        ": the history has a hole in it (events missing)"));
  // The base: the window's first checkpoint, or, when the window opens
  // inside an event group (its header before the window), the state once
  // that group is applied.
  uint64_t first = h->first_sequence();
  const HistoryCheckpoint& checkpoint = h->checkpoints[0];
  Snapshot base;
  if (checkpoint.group_left > 0) {
    first += checkpoint.group_left;
    absl::StatusOr<Snapshot> after_group =
        first > h->end_sequence() ? absl::OutOfRangeError("") : StateAt(*h, first);
    if (!after_group.ok())
      return absl::InvalidArgumentError(
          name + ": its window opens inside an event group that does not "
                 "end inside it");
    base = *std::move(after_group);
  } else {
    base = checkpoint.state;
  }
  base.memory_id = memory.memory_id;
  base.node = memory.node;
  base.kind = memory.kind;
  base.name = memory.name;
  base.capacity = memory.capacity;
  base.capacity_known = memory.capacity_known;
  base.sequence = first;
  std::vector<Event> events;
  events.reserve(h->end_sequence() - first);
  for (uint64_t s = first; s < h->end_sequence(); ++s) events.push_back(h->EventAt(s));
  const bool from_log = h->clock == HistoryClock::kLogTime;
  absl::StatusOr<ReplayScript> compiled = CompileEvents(base, events, h->identities, from_log);
  if (!compiled.ok())
    return absl::InvalidArgumentError(name + ": " + std::string(compiled.status().message()));
  ReplayScript script = *std::move(compiled);
  for (const HistoryMark& m : h->marks) script.times.push_back({m.sequence, m.time_ns});
  if (first != h->first_sequence())
    script.notes.push_back("the window opens inside an event group: replayed from "
                           "event " + std::to_string(EventNumber(first)) + ", where it ends");
  return script;
}

}  // namespace whatif
}  // namespace realm_shadow
