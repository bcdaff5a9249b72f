// realm_shadow/format/dump.h - dump files: one or more memories' Snapshots
// on disk, and their JSON rendering.
//
// Layer format: files and their bytes only.  Dumps of the memories a
// running program tracks are live/dump.h's; the marker line a dump leaves
// in the host's log is dump_marker.h's.  The binary format is documented in docs/dump-format.md; the JSON
// schema in docs/json-schema.md.
//
// Guarantees
//  - Atomic on disk: a dump is written under a temporary name in the same
//    directory, flushed, then renamed.  A crash or a full disk never leaves a
//    half file under the final name.
//  - Usable at out-of-memory time: writing streams through one fixed 64 KiB
//    buffer; the only heap use is the Snapshot copy itself.
//  - Reading never crashes: a truncated, corrupted (checksum), foreign
//    (magic), wrong-version or wrong-endian file gets a one-line error (the
//    Status's message) that names the file and what is wrong.  Every version
//    since 1 is read.
#ifndef REALM_SHADOW_FORMAT_DUMP_H_
#define REALM_SHADOW_FORMAT_DUMP_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "realm_shadow/core/history.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(format);

// Version 2 added the pools section (pool); version 1 files, with or
// without their optional history sections (hist), are read as they are
// (docs/dump-format.md, Compatibility).
inline constexpr uint32_t kDumpFormatVersion = 2;
inline constexpr uint32_t kOldestDumpFormatVersion = 1;

// A sub-allocator's pool inside one live allocation: what the memory's
// allocator sees as one allocation (the backing), and what the pool's owner
// carved out of it, which the allocator never sees.  Legion's bounded memory
// pools are the case (legion_glue/pools.h); the free space inside a pool is
// not a hole of the memory.
struct PoolSubAllocation {
  uint64_t instance = 0;
  uint64_t offset = 0;  // from the pool's start
  uint64_t size = 0;
  uint32_t identity = 0;  // an identity of the memory's snapshot, or 0
};

struct Pool {
  uint64_t pool = 0;              // the owner's id (Legion: the backing's id)
  uint64_t memory_id = 0;         // the memory it sits in (0: any)
  uint64_t backing_instance = 0;  // the live allocation that holds it
  uint64_t offset = kNoOffset;    // the backing's range; kNoOffset: take it
  uint64_t size = 0;              //   from the backing allocation
  std::vector<PoolSubAllocation> suballocations;  // by ascending offset
  // False when read back from a version 1 dump, which listed only the
  // first entries (legion_glue/pools.h reads those).
  bool suballocations_complete = true;
};

struct DumpFile {
  uint32_t version = kDumpFormatVersion;  // of the file it was read from
  uint32_t node = 0;               // the process (Legion node) it came from
  uint64_t created_unix_ns = 0;
  std::string source;              // "tracker", "ingest-realm-log", ...
  std::vector<std::string> notes;  // what the source could not know, etc.
  std::vector<Snapshot> memories;  // by ascending memory id
  std::vector<Pool> pools;         // by (memory id, pool id)
  // Optional: at most one per memory, matched to it by (node, memory id),
  // ending at the memory's snapshot (the hist section; history.h).
  std::vector<MemoryHistory> histories;
};

// The history of a memory of the dump, or null.
const MemoryHistory* FindHistory(const DumpFile& dump, const Snapshot& memory);

// Writes atomically.
absl::Status WriteDump(const std::string& path, const DumpFile& dump);
// Reads and validates; the error names the file.
absl::StatusOr<DumpFile> ReadDump(const std::string& path);
// Same, from bytes in memory (the fuzz target's entry); the error does not
// name a file.
absl::StatusOr<DumpFile> ParseDump(const uint8_t* data, size_t size);
// The bytes WriteDump writes; empty when the dump cannot be represented (a
// string longer than 4 GiB, ...).
std::string SerializeDump(const DumpFile& dump);

// A dump read for one moment of its histories (`realm-shadow at`).  Open
// maps the file and reads what ReadDump reads except the histories' events
// and checkpoints: of each history it keeps the marks, the lines, the
// identities and where each checkpoint and the events lie (an index built
// by walking the checkpoints' lengths, not stored in the file: the hist
// section is unchanged).  HistoryFor then reads one checkpoint and the
// events from it to the moment.  Cost: the pages of what it reads, so one
// segment (at most L events, history.h) and two checkpoints instead of the
// whole file (10M events are 320 MB).  Checks: every byte it reads gets
// ReadDump's checks (lengths, counts, kinds, padding, CheckHistory on what
// HistoryFor returns) and the trailer must describe the file; the whole-
// file checksum only with verify_checksum, which reads every byte once.
class DumpMoments {
 public:
  // What Open keeps of a history besides where its parts lie.
  struct Outline {
    uint64_t memory_id = 0;
    uint32_t node = 0;
    uint64_t first_sequence = 0, end_sequence = 0;  // the window
    size_t checkpoints = 0;
    std::vector<HistoryMark> marks;
  };

  DumpMoments();
  ~DumpMoments();
  DumpMoments(const DumpMoments&) = delete;
  DumpMoments& operator=(const DumpMoments&) = delete;

  // OK, or the error ReadDump would give (naming the file).
  absl::Status Open(const std::string& path, bool verify_checksum);
  // The same from bytes in memory, which must outlive this (the fuzz
  // target's entry).
  absl::Status Parse(const uint8_t* data, size_t size, bool verify_checksum);
  // The header, notes and memories; histories is empty.
  const DumpFile& dump() const;
  const std::vector<Outline>& histories() const;
  // histories()[i] cut to what the state at moment `sequence` (inside the
  // window) needs: the memory's description from the base, the last
  // checkpoint before the moment (at it for the window's first moment) as
  // the only checkpoint, and the events from it to the moment and one more
  // when there is one (so that the moment's time and line are those of the
  // whole history).  StateAt on it gives what StateAt on the whole gives.
  // OutOfRange for a moment outside the window; DataLoss for bytes that
  // fail the reader's checks.
  absl::StatusOr<MemoryHistory> HistoryFor(size_t i, uint64_t sequence) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The JSON rendering (docs/json-schema.md), with holes and stats computed by
// analysis.h.
std::string DumpToJson(const DumpFile& dump);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_FORMAT_DUMP_H_
