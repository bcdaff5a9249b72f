// replay/from_dump.cc - see from_dump.h.
#include "replay/from_dump.h"

#include "replay/compile.h"

namespace realm_shadow {
namespace replay {

bool ScriptOfDumpMemory(const DumpFile& dump, const Snapshot& memory,
                        ReplayScript* out, std::string* error) {
  (void)dump;
  (void)out;
  *error = "memory " + HexId(memory.memory_id) + " of node " +
           std::to_string(memory.node) +
           ": the dump holds no history of it (no HIST section): replay needs "
           "the run's events";
  return false;
}

}  // namespace replay
}  // namespace realm_shadow
