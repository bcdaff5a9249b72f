// realm_shadow/dump/on_failure.cc - the dump-on-failure observer and the
// failure report.
//
// The observer runs on the thread whose allocation failed, possibly while
// Realm holds the memory's allocator mutex, and possibly when the system
// memory is the full one.  So it allocates only the snapshot, the copy of
// the memory's history (at most 2.5 MiB of events and its checkpoints with
// the default REALM_SHADOW_HISTORY) and a few short strings, writes through
// WriteDump's 64 KiB stack buffer, keeps its per-memory counts in a fixed
// table, and never throws.
#include "realm_shadow/dump/on_failure.h"

#include <sys/stat.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "absl/strings/numbers.h"
#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/analysis/snapshots.h"
#include "realm_shadow/dump/dump.h"
#include "realm_shadow/dump/internal/tracked_dump.h"

extern "C" const int realm_shadow_dump_on_failure_anchor = 1;

namespace realm_shadow {
namespace {

constexpr unsigned kDefaultLimit = 4;
// Memories one process tracks: a node has a few dozen at most (system,
// regdma, one framebuffer and zero-copy per GPU, sockets).  Past this many,
// further memories share the last slot's count.
constexpr size_t kMaxCountedMemories = 256;
// Blockers listed in the report; the dump has all of them.
constexpr size_t kReportedBlockers = 16;

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

// One line: control characters (a newline in a name) become '?'.
std::string OneLine(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

std::string Count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string IdentityText(const Snapshot& s, uint32_t id) {
  const Identity* identity = s.FindIdentity(id);
  if (identity == nullptr) return "";
  std::string out;
  for (const auto& kv : identity->attributes) {
    out += ' ';
    out += OneLine(kv.first);
    out += '=';
    out += OneLine(kv.second);
  }
  return out;
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
  std::string report = FormatFailureReport(snapshot, instance);
  if (k == 0) {
    report += "  dump           not written: REALM_SHADOW_DUMP_LIMIT reached\n";
  } else {
    // The last level of the directory is made if missing (a user who sets
    // REALM_SHADOW_DUMP_DIR=/tmp/dumps should not lose the first dump);
    // WriteDump reports whatever still fails.
    ::mkdir(dir.c_str(), 0777);
    if (const absl::Status written = WriteDump(path, dump); written.ok()) {
      report += "  dump           " + path + "\n";
    } else {
      AnnounceDumpNotWritten(path, std::string(written.message()));
      report += "  dump           not written: " +
                OneLine(std::string(written.message())) + "\n";
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

std::string FormatFailureReport(const Snapshot& s, uint64_t instance) {
  const Failure* failure = nullptr;
  for (auto it = s.failures.rbegin(); it != s.failures.rend(); ++it) {
    if (it->instance == instance) {
      failure = &*it;
      break;
    }
  }
  const FreeSummary summary = Summarize(s);

  std::string out = "realm-shadow: allocation failed in memory " +
                    HexId(s.memory_id) + " (" + MemoryKindName(s.kind);
  if (!s.name.empty()) out += " \"" + OneLine(s.name) + "\"";
  out += ", node " + std::to_string(s.node) + ")\n";

  out += "  request        ";
  if (failure == nullptr || failure->size == 0) {
    out += "instance " + HexId(instance) +
           ", size unknown (not among the snapshot's recent failures)\n";
  } else {
    out += FormatSizeExact(failure->size) + ", alignment " +
           std::to_string(failure->alignment) + ", instance " +
           HexId(instance) +
           (failure->eventual ? ", deferred then failed" : ", failed at once") +
           IdentityText(s, failure->identity) + "\n";
  }
  out +=
      "  capacity       " +
      (s.capacity_known ? FormatSizeExact(s.capacity)
                        : std::string("unknown")) +
      "\n";
  out += "  used           " + FormatSizeExact(summary.used) + " in " +
         Count(summary.allocation_count, "allocation") + "\n";
  out += "  total free     " + FormatSizeExact(summary.total_free) + " in " +
         Count(summary.hole_count, "hole") + "\n";
  out += "  largest hole   " + FormatSizeExact(summary.largest_hole) + "\n";
  char frac[32];
  std::snprintf(frac, sizeof frac, "%.3f", summary.fragmentation);
  out += std::string("  fragmentation  ") + frac +
         " (1 - largest hole / total free)\n";
  if (!s.pending.empty()) {
    out += "  pending        " + Count(s.pending.size(), "deferred request") +
           " waiting on releases\n";
  }
  if (failure == nullptr || failure->size == 0) return out;

  const FailureCause cause =
      ClassifyRequest(s, failure->size, failure->alignment);
  out += "  cause          ";
  switch (cause) {
    case FailureCause::kFragmentation:
      out += "fragmentation: " + FormatHumanSize(summary.total_free) +
             " free in total, but no hole holds " +
             FormatHumanSize(failure->size) + " at alignment " +
             std::to_string(failure->alignment) + "\n";
      break;
    case FailureCause::kExhaustion:
      out += "exhaustion: only " + FormatHumanSize(summary.total_free) +
             " free in total for a request of " +
             FormatHumanSize(failure->size) + "\n";
      break;
    case FailureCause::kFits:
      out += "fits now: the memory changed after the failure\n";
      break;
  }
  if (cause == FailureCause::kFits) return out;

  const BlockerWindow window =
      FindBlockers(s, failure->size, failure->alignment);
  if (!window.found) {
    out +=
        "  blockers       none: no window of collectable allocations "
        "makes it fit (pinned allocations, or larger than the memory)\n";
    return out;
  }
  out += "  blockers       release " +
         Count(window.blockers.size(), "allocation") + " (" +
         FormatHumanSize(window.bytes_to_free) + ") in [" +
         std::to_string(window.window_offset) + ", " +
         std::to_string(window.window_end) + ") to place it at offset " +
         std::to_string(window.placement) + ":\n";
  size_t shown = 0;
  for (const Allocation& a : window.blockers) {
    if (shown++ == kReportedBlockers) {
      out += "    ... and " +
             std::to_string(window.blockers.size() - kReportedBlockers) +
             " more (see the dump)\n";
      break;
    }
    out += "    " + HexId(a.instance) + "  offset " + std::to_string(a.offset) +
           "  size " + FormatHumanSize(a.size) + "  " +
           AllocationKindName(a.kind) +
           (a.state != AllocationState::kLive
                ? std::string(" (") + AllocationStateName(a.state) + ")"
                : std::string()) +
           IdentityText(s, a.identity) + "\n";
  }
  return out;
}

}  // namespace realm_shadow
