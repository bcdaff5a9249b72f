// realm_shadow/dump/dump.h - dump files: one or more memories' Snapshots
// on disk, and their JSON rendering.
//
// Layer 4.  The binary format is documented in docs/dump-format.md; the JSON
// schema in docs/json-schema.md.
//
// Guarantees
//  - Atomic on disk: a dump is written under a temporary name in the same
//    directory, flushed, then renamed.  A crash or a full disk never leaves a
//    half file under the final name.
//  - Usable at out-of-memory time: writing streams through one fixed 64 KiB
//    buffer; the only heap use is the Snapshot copy itself.
//  - Reading never crashes: a truncated, corrupted (checksum), foreign
//    (magic), wrong-version or wrong-endian file gets a one-line error that
//    names the file and what is wrong.
#ifndef REALM_SHADOW_DUMP_DUMP_H_
#define REALM_SHADOW_DUMP_DUMP_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "realm_shadow/analysis/history.h"
#include "realm_shadow/analysis/snapshot.h"

namespace realm_shadow {

inline constexpr uint32_t kDumpFormatVersion = 1;

struct DumpFile {
  uint32_t version = kDumpFormatVersion;
  uint32_t node = 0;               // the process (Legion node) it came from
  uint64_t created_unix_ns = 0;
  std::string source;              // "tracker", "ingest-realm-log", ...
  std::vector<std::string> notes;  // what the source could not know, etc.
  std::vector<Snapshot> memories;  // by ascending memory id
  // Optional: at most one per memory, matched to it by (node, memory id),
  // ending at the memory's snapshot (the hist section; history.h).
  std::vector<MemoryHistory> histories;
};

// The history of a memory of the dump, or null.
const MemoryHistory* FindHistory(const DumpFile& dump, const Snapshot& memory);

// Writes atomically; false with *error set on failure.
bool WriteDump(const std::string& path, const DumpFile& dump,
               std::string* error);
// Reads and validates; false with a one-line *error naming the file.
bool ReadDump(const std::string& path, DumpFile* out, std::string* error);
// Same, from bytes in memory (the fuzz target's entry).
bool ParseDump(const uint8_t* data, size_t size, DumpFile* out,
               std::string* error);
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

  bool Open(const std::string& path, bool verify_checksum, std::string* error);
  // The same from bytes in memory, which must outlive this (the fuzz
  // target's entry).
  bool Parse(const uint8_t* data, size_t size, bool verify_checksum,
             std::string* error);
  // The header, notes and memories; histories is empty.
  const DumpFile& dump() const;
  const std::vector<Outline>& histories() const;
  // histories()[i] cut to what the state at moment `sequence` (inside the
  // window) needs: the memory's description from the base, the last
  // checkpoint before the moment (at it for the window's first moment) as
  // the only checkpoint, and the events from it to the moment and one more
  // when there is one (so that the moment's time and line are those of the
  // whole history).  StateAt on it gives what StateAt on the whole gives.
  bool HistoryFor(size_t i, uint64_t sequence, MemoryHistory* out,
                  std::string* error) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The JSON rendering (docs/json-schema.md), with holes and stats computed by
// analysis.h.
std::string DumpToJson(const DumpFile& dump);

// Snapshots the tracked memory, with its history when it keeps one, and
// writes it; false with *error on failure.  Announces the dump through the
// log sink (log_sink.h), reason "request".
bool DumpMemoryState(uint64_t memory_id, const std::string& path,
                     std::string* error);
// Every registered memory in one file (one announcement per memory).
bool DumpAllMemories(const std::string& path, std::string* error);
// The given memories (ids not registered are skipped) in one file, each
// announced with `reason` right after its snapshot.
bool DumpMemories(const std::vector<uint64_t>& memory_ids,
                  const std::string& path, const char* reason,
                  std::string* error);

// ---- the dump marker (log_sink.h) ------------------------------------------

// What the marker line says: "dump memory=0x.. sequence=N node=K
// reason=R file=PATH".
struct DumpMarker {
  uint64_t memory_id = 0;
  uint64_t sequence = 0;
  uint32_t node = 0;
  std::string reason;  // request | failure | periodic
  std::string file;    // absolute path, as written
};
std::string DumpMarkerLine(const DumpMarker& marker);
// Parses a log message (the text after "{level}{logger}: "); false when it
// is not a marker line.
bool ParseDumpMarker(std::string_view message, DumpMarker* out);
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
std::string DumpBeginLine(const DumpMarker& marker);  // sequence not used
bool ParseDumpBegin(std::string_view message, DumpMarker* out);

}  // namespace realm_shadow

extern "C" {
// C spelling for Realm and mappers: 0 on success, -1 on failure (the reason
// is printed to stderr).
int realm_shadow_dump_memory_state(uint64_t memory_id, const char* filename);
int realm_shadow_dump_all_memories(const char* filename);
}

#endif  // REALM_SHADOW_DUMP_DUMP_H_
