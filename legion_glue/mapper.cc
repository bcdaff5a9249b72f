// legion_glue/mapper.cc - dump_memory_state and the failure report, without
// Legion.
#include "legion_glue/mapper.h"

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "legion_glue/pools.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/live/on_failure.h"
#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/live/dump.h"
#include "realm_shadow/render/failure_report.h"

namespace realm_shadow {
namespace legion {
namespace {

std::string PoolLines(const Snapshot& snapshot) {
  const std::vector<PoolRecord> pools = Pools().PoolsIn(snapshot.memory_id);
  std::string out;
  const std::vector<PoolUsage> usage = AnalyzePools(snapshot, pools);
  for (const PoolUsage& u : usage) out += "  " + FormatPoolUsage(u) + "\n";
  if (usage.size() > 1) {
    const PoolTotals t = TotalPools(usage);
    out += "  pools in total: " + FormatHumanSize(t.bytes) + ", " +
           FormatHumanSize(t.unused) + " unused inside pools\n";
  }
  return out;
}

}  // namespace

bool dump_memory_state(uint64_t memory_id, const char* filename) {
  if (filename == nullptr || *filename == '\0') {
    std::fprintf(stderr, "realm-shadow: dump_memory_state: no file name\n");
    return false;
  }
  Pools();  // the pool source, installed before the first dump
  const absl::Status dumped = DumpMemoryState(memory_id, filename);
  if (!dumped.ok()) {
    std::fprintf(stderr, "realm-shadow: dump_memory_state(0x%" PRIx64 ", %s): %s\n",
                 memory_id, filename, std::string(dumped.message()).c_str());
  }
  return dumped.ok();
}

bool dump_all_memories(const char* filename) {
  if (filename == nullptr || *filename == '\0') {
    std::fprintf(stderr, "realm-shadow: dump_all_memories: no file name\n");
    return false;
  }
  Pools();
  const absl::Status dumped = DumpAllMemories(filename);
  if (!dumped.ok()) {
    std::fprintf(stderr, "realm-shadow: dump_all_memories(%s): %s\n", filename,
                 std::string(dumped.message()).c_str());
  }
  return dumped.ok();
}

std::string failure_report(uint64_t memory_id, size_t footprint,
                           size_t alignment) {
  Snapshot snapshot;
  if (!TakeSnapshot(memory_id, &snapshot)) {
    char buf[96];
    std::snprintf(buf, sizeof buf,
                  "realm-shadow: memory 0x%" PRIx64 " is not tracked\n",
                  memory_id);
    return buf;
  }
  uint64_t instance = 0;
  if (!snapshot.failures.empty()) {
    instance = snapshot.failures.back().instance;
  } else {
    // No failure was seen here: judge the footprint Legion reported against
    // the memory as it is now.  Instance 0 marks the request as Legion's.
    Failure request;
    request.size = footprint;
    request.alignment = alignment == 0 ? 1 : alignment;
    request.sequence = snapshot.sequence;
    snapshot.failures.push_back(request);
  }
  return FormatFailureReport(snapshot, instance) + PoolLines(snapshot);
}

std::string report_failed_instance_creation(uint64_t memory_id,
                                            size_t footprint,
                                            const std::string& what) {
  static std::atomic<unsigned> dumps{0};
  const char* dir = std::getenv("REALM_SHADOW_DUMP_DIR");
  std::string path = (dir != nullptr && *dir != '\0') ? dir : ".";
  char name[96];
  std::snprintf(name, sizeof name,
                "/realm-shadow-node%" PRIu32 "-mem%" PRIx64 "-mapper-%u.rsd",
                Options().node, memory_id, dumps.fetch_add(1) + 1);
  path += name;
  const bool dumped = dump_memory_state(memory_id, path.c_str());
  std::string text = "realm-shadow: " + what + "\n" +
                     failure_report(memory_id, footprint) +
                     FormatDumpPointer(dumped ? path : "not written");
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  return dumped ? path : std::string();
}

}  // namespace legion
}  // namespace realm_shadow
