// realm_shadow/live/dump.h - dump files of the memories this process tracks,
// on request (the mapper, a debugger, Realm), and the marker each leaves in
// the host's log.
//
// Layer live: off the allocation path.  Each dump takes a consistent
// snapshot of the memory (live/snapshots.h), announces it through the log
// sink (log_sink.h) right after the snapshot and before the file is
// written, and writes the file atomically (format/dump.h).  Safe at
// out-of-memory time: the only heap use is the snapshot's copy.
#ifndef REALM_SHADOW_LIVE_DUMP_H_
#define REALM_SHADOW_LIVE_DUMP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(live);

// Snapshots the tracked memory and writes it, with its pools and its
// history when it keeps one.  Announces the dump through the log sink
// (log_sink.h), reason "request".
absl::Status DumpMemoryState(uint64_t memory_id, const std::string& path);
// Every registered memory in one file (one announcement per memory).
absl::Status DumpAllMemories(const std::string& path);
// The given memories (ids not registered are skipped) in one file, each
// announced with `reason` right after its snapshot.
absl::Status DumpMemories(const std::vector<uint64_t>& memory_ids,
                          const std::string& path, const char* reason);

// Where the dumps of tracked memories (the two above, and dump on failure)
// get their pools: a function that appends the pools of one memory.  The
// recorder never sees pools (their insides are not the allocator's), so
// their owner installs this: legion_glue's pool table does, at its first
// use.  One per process; nullptr: dumps carry no pools.  The function runs
// on the dumping thread, which may be the one whose allocation failed.
using PoolSource = void (*)(uint64_t memory_id, std::vector<Pool>* out);
void SetPoolSource(PoolSource source);

// ---- the marker in the host's log (log_sink.h, format/dump_marker.h) -------

// Hands the marker of `snapshot` dumped to `path` to the installed sink (no
// sink: nothing); the path is made absolute.
void AnnounceDump(const std::string& path, const Snapshot& snapshot,
                  const char* reason);
// "dump not written file=PATH error=..." after an announced dump failed.
void AnnounceDumpNotWritten(const std::string& path, const std::string& error);
// "dump begin memory=0x.. node=K reason=R file=PATH", right before the
// memory's snapshot is taken: the host's log lines between it and the
// marker may or may not be in the snapshot (in flight while it was taken).
void AnnounceDumpBegin(const std::string& path, uint64_t memory_id,
                       uint32_t node, const char* reason);

}  // namespace realm_shadow

extern "C" {
// C spelling for Realm and mappers: 0 on success, -1 on failure (the reason
// is printed to stderr).
int realm_shadow_dump_memory_state(uint64_t memory_id, const char* filename);
int realm_shadow_dump_all_memories(const char* filename);
}


#endif  // REALM_SHADOW_LIVE_DUMP_H_
