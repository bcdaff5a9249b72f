// realm_shadow/live/on_failure.cc - the dump-on-failure observer: the dump,
// and the failure report (render/failure_report.h) on stderr.
//
// The observer runs on the thread whose allocation failed, possibly while
// Realm holds the memory's allocator mutex, and possibly when the system
// memory is the full one.  So it allocates only the snapshot, the copy of
// the memory's history (at most 2.5 MiB of events and its checkpoints with
// the default REALM_SHADOW_HISTORY) and a few short strings, writes through
// WriteDump's 64 KiB stack buffer, keeps its per-memory counts in a fixed
// table, and never throws.
#include "realm_shadow/live/on_failure.h"

#include <sys/stat.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "absl/strings/numbers.h"
#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/core/text.h"
#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/live/internal/tracked_dump.h"
#include "realm_shadow/live/dump.h"
#include "realm_shadow/render/failure_report.h"

extern "C" const int realm_shadow_live_on_failure_anchor = 1;

namespace realm_shadow {
namespace {

constexpr unsigned kDefaultLimit = 4;
// Memories one process tracks: a node has a few dozen at most (system,
// regdma, one framebuffer and zero-copy per GPU, sockets).  Past this many,
// further memories share the last slot's count.
constexpr size_t kMaxCountedMemories = 256;

struct Config {
  std::mutex mutex;
  std::string dir;
  unsigned limit = kDefaultLimit;
  struct Count {
    uint64_t memory_id = 0;
    unsigned dumps = 0;
    bool used = false;
  };
  Count counts[kMaxCountedMemories];
};

Config& GetConfig() {
  static Config* config = new Config();  // never destroyed: observers may
                                         // run during static destruction
  return *config;
}

// Claims the next dump number of a memory: 1, 2, ...; 0 past the limit.
unsigned ClaimDump(Config& config, uint64_t memory_id) {
  std::lock_guard<std::mutex> lock(config.mutex);
  Config::Count* slot = &config.counts[kMaxCountedMemories - 1];
  for (Config::Count& c : config.counts) {
    if (c.used && c.memory_id == memory_id) {
      slot = &c;
      break;
    }
    if (!c.used) {
      c.used = true;
      c.memory_id = memory_id;
      slot = &c;
      break;
    }
  }
  if (slot->dumps >= config.limit) return 0;
  return ++slot->dumps;
}

thread_local bool t_in_observer = false;

void OnFailure(realm_shadow_memory* memory, uint64_t instance) {
  if (t_in_observer) return;  // a failure caused by the dump itself
  t_in_observer = true;
  Config& config = GetConfig();
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(config.mutex);
    dir = config.dir;
  }
  if (dir.empty()) {
    t_in_observer = false;
    return;
  }
  DumpFile dump = NewTrackerDump();
  dump.notes.push_back("written at the failure of instance " + HexId(instance));
  const unsigned k = ClaimDump(config, MemoryId(memory));
  char name[96];
  std::snprintf(name, sizeof name,
                "/realm-shadow-node%" PRIu32 "-mem%" PRIx64 "-%u.rsd",
                dump.node, MemoryId(memory), k);
  const std::string path = dir + name;
  if (k != 0) AnnounceDumpBegin(path, MemoryId(memory), dump.node, "failure");
  AddTrackedMemory(memory, &dump);
  const Snapshot& snapshot = dump.memories.back();

  // The marker right after the snapshot; the report is formatted after it.
  if (k != 0) AnnounceDump(path, snapshot, "failure");
  std::string report = FormatFailureReport(snapshot, instance, FindHistory(dump, snapshot));
  if (k == 0) {
    report += FormatDumpPointer("not written: REALM_SHADOW_DUMP_LIMIT reached");
  } else {
    // The last level of the directory is made if missing (a user who sets
    // REALM_SHADOW_DUMP_DIR=/tmp/dumps should not lose the first dump);
    // WriteDump reports whatever still fails.
    ::mkdir(dir.c_str(), 0777);
    if (const absl::Status written = WriteDump(path, dump); written.ok()) {
      report += FormatDumpPointer(path);
      report += FormatExplainPointer(path);
    } else {
      AnnounceDumpNotWritten(path, std::string(written.message()));
      report += FormatDumpPointer("not written: " +
                                  OneLine(std::string(written.message())));
    }
  }
  std::fputs(report.c_str(), stderr);
  std::fflush(stderr);
  t_in_observer = false;
}

// Installs the observer when the library is loaded (see on_failure.h on
// keeping this object in a static link).
struct AutoInstall {
  AutoInstall() { InstallDumpOnFailure(); }
};
AutoInstall g_auto_install;

}  // namespace

bool InstallDumpOnFailure() {
  const char* dir = std::getenv("REALM_SHADOW_DUMP_DIR");
  const char* limit_text = std::getenv("REALM_SHADOW_DUMP_LIMIT");
  unsigned limit = kDefaultLimit;
  if (limit_text != nullptr && *limit_text != '\0') {
    // A decimal count, as REALM_SHADOW_JOURNAL_EVENTS: "-1" is not one
    // (strtoul read it as 2^64 - 1, that is a million dumps).
    uint64_t v = 0;
    if (absl::SimpleAtoi(limit_text, &v)) {
      limit = v > 1000000 ? 1000000u : static_cast<unsigned>(v);
    } else {
      std::fprintf(stderr,
                   "realm-shadow: REALM_SHADOW_DUMP_LIMIT=%s is not a number;"
                   " using %u\n",
                   limit_text, kDefaultLimit);
    }
  }
  Config& config = GetConfig();
  const bool on = dir != nullptr && *dir != '\0';
  {
    std::lock_guard<std::mutex> lock(config.mutex);
    config.dir = on ? dir : "";
    config.limit = limit;
  }
  // Off leaves any other observer in place: only an explicit request takes
  // the process's single observer slot.
  if (on) SetFailureObserver(&OnFailure);
  const char* every = std::getenv("REALM_SHADOW_DUMP_EVERY_MS");
  if (every != nullptr && *every != '\0') {
    char* end = nullptr;
    const unsigned long ms = std::strtoul(every, &end, 10);
    if (end == every || *end != '\0' || ms == 0 || ms > 86400000ul) {
      std::fprintf(stderr,
                   "realm-shadow: REALM_SHADOW_DUMP_EVERY_MS=%s is not a "
                   "period in ms (1..86400000); no periodic dumps\n",
                   every);
    } else if (!on) {
      std::fprintf(stderr,
                   "realm-shadow: REALM_SHADOW_DUMP_EVERY_MS is set but "
                   "REALM_SHADOW_DUMP_DIR is not; no periodic dumps\n");
    } else {
      StartPeriodicDumps(dir, static_cast<unsigned>(ms));
    }
  }
  return on;
}

}  // namespace realm_shadow
