// replay/from_dump.h - the replay script of a memory of a dump, from the
// history the dump carries (its HIST section), or a clear error.
#ifndef REALM_SHADOW_REPLAY_FROM_DUMP_H_
#define REALM_SHADOW_REPLAY_FROM_DUMP_H_

#include <string>

#include "realm_shadow/dump/dump.h"
#include "replay/replay.h"

namespace realm_shadow {
namespace replay {

// False with *error (naming the memory, saying what is missing and how to
// get it) when the dump holds no history of `memory`, or one that cannot
// be replayed (compile.h).
bool ScriptOfDumpMemory(const DumpFile& dump, const Snapshot& memory,
                        ReplayScript* out, std::string* error);

}  // namespace replay
}  // namespace realm_shadow

#endif  // REALM_SHADOW_REPLAY_FROM_DUMP_H_
