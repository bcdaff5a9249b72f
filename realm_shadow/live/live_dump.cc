// realm_shadow/live/live_dump.cc - dumps of tracked memories: a snapshot of
// each, with its pools, written as one file.
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/live/internal/tracked_dump.h"
#include "realm_shadow/recorder/identity_table.h"
#include "realm_shadow/live/dump.h"

namespace realm_shadow {
namespace {

std::atomic<PoolSource> g_pool_source{nullptr};

uint64_t NowUnixNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// Adds to s.identities, keeping them sorted by id (snapshot.h), each
// identity a pool's sub-allocation names that s does not carry.
void AddPoolIdentities(const std::vector<Pool>& pools, size_t first, Snapshot* s) {
  std::vector<uint32_t> missing;
  for (size_t i = first; i < pools.size(); ++i)
    for (const PoolSubAllocation& sub : pools[i].suballocations)
      if (sub.identity != 0 && s->FindIdentity(sub.identity) == nullptr)
        missing.push_back(sub.identity);
  if (missing.empty()) return;
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  for (uint32_t id : missing) {
    Identity identity;
    if (LookupIdentity(id, &identity)) s->identities.push_back(std::move(identity));
  }
  std::sort(s->identities.begin(), s->identities.end(),
            [](const Identity& a, const Identity& b) { return a.id < b.id; });
}

}  // namespace

void SetPoolSource(PoolSource source) {
  // Release: a dump that acquires the pointer may call it.
  g_pool_source.store(source, std::memory_order_release);
}

DumpFile NewTrackerDump() {
  DumpFile dump;
  dump.node = Options().node;
  dump.created_unix_ns = NowUnixNs();
  dump.source = "tracker";
  return dump;
}

void AddTrackedMemory(realm_shadow_memory* memory, DumpFile* dump,
                      bool with_history) {
  // The picture and the history that led to it, at the same moment.
  dump->memories.emplace_back();
  Snapshot& s = dump->memories.back();
  MemoryHistory history;
  if (!with_history)
    TakeSnapshotInto(memory, &s);
  else if (TakeSnapshotAndHistory(memory, &s, &history))
    dump->histories.push_back(std::move(history));
  if (PoolSource source = g_pool_source.load(std::memory_order_acquire)) {
    const size_t first = dump->pools.size();
    source(s.memory_id, &dump->pools);
    AddPoolIdentities(dump->pools, first, &s);
  }
}

absl::Status DumpMemoryState(uint64_t memory_id, const std::string& path) {
  if (FindMemory(memory_id) == nullptr) {
    return absl::NotFoundError(
        path + ": memory " + HexId(memory_id) + " is not registered");
  }
  return DumpMemories({memory_id}, path, "request");
}

absl::Status DumpAllMemories(const std::string& path) {
  return DumpMemories(RegisteredMemoryIds(), path, "request");
}

absl::Status DumpMemories(const std::vector<uint64_t>& ids, const std::string& path,
                          const char* reason) {
  DumpFile dump = NewTrackerDump();
  dump.memories.reserve(ids.size());
  for (uint64_t id : ids) {
    realm_shadow_memory* memory = FindMemory(id);
    if (memory == nullptr) continue;
    // Bracketed by two lines in the host's log (log_sink.h): what the host
    // logs between them may be on either side of the snapshot.
    AnnounceDumpBegin(path, id, dump.node, reason);
    AddTrackedMemory(memory, &dump);
    AnnounceDump(path, dump.memories.back(), reason);
  }
  std::sort(dump.memories.begin(), dump.memories.end(),
            [](const Snapshot& a, const Snapshot& b) { return a.memory_id < b.memory_id; });
  absl::Status written = WriteDump(path, dump);
  if (!written.ok() && !dump.memories.empty())
    AnnounceDumpNotWritten(path, std::string(written.message()));
  return written;
}

}  // namespace realm_shadow

namespace {

// The C entry points: 0, or -1 with the reason on stderr.
int Report(const char* what, const char* filename,
           absl::Status (*dump)(const std::string&, uint64_t), uint64_t id) {
  if (filename == nullptr) {
    std::fprintf(stderr, "realm-shadow: %s: no file name\n", what);
    return -1;
  }
  const absl::Status status = dump(filename, id);
  if (!status.ok()) {
    std::fprintf(stderr, "realm-shadow: %s\n", std::string(status.message()).c_str());
    return -1;
  }
  return 0;
}

}  // namespace

extern "C" int realm_shadow_dump_memory_state(uint64_t memory_id,
                                              const char* filename) {
  return Report("dump_memory_state", filename,
                [](const std::string& path, uint64_t id) {
                  return realm_shadow::DumpMemoryState(id, path);
                },
                memory_id);
}

extern "C" int realm_shadow_dump_all_memories(const char* filename) {
  return Report("dump_all_memories", filename,
                [](const std::string& path, uint64_t) {
                  return realm_shadow::DumpAllMemories(path);
                },
                0);
}
