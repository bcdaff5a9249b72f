// realm_shadow/dump/live_dump.cc - dumps of tracked memories: a snapshot of
// each, written as one file.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "realm_shadow/analysis/snapshots.h"
#include "realm_shadow/dump/dump.h"

namespace realm_shadow {
namespace {

uint64_t NowUnixNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

}  // namespace

bool DumpMemoryState(uint64_t memory_id, const std::string& path,
                     std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  if (FindMemory(memory_id) == nullptr) {
    *error = path + ": memory " + HexId(memory_id) + " is not registered";
    return false;
  }
  return DumpMemories({memory_id}, path, "request", error);
}

bool DumpAllMemories(const std::string& path, std::string* error) {
  return DumpMemories(RegisteredMemoryIds(), path, "request", error);
}

bool DumpMemories(const std::vector<uint64_t>& ids, const std::string& path,
                  const char* reason, std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  DumpFile dump;
  dump.node = Options().node;
  dump.created_unix_ns = NowUnixNs();
  dump.source = "tracker";
  dump.memories.reserve(ids.size());
  for (uint64_t id : ids) {
    realm_shadow_memory* memory = FindMemory(id);
    if (memory == nullptr) continue;
    Snapshot s;
    // Bracketed by two lines in the host's log (log_sink.h): what the host
    // logs between them may be on either side of the snapshot.
    AnnounceDumpBegin(path, id, dump.node, reason);
    MemoryHistory history;
    if (TakeSnapshotAndHistory(memory, &s, &history))
      dump.histories.push_back(std::move(history));
    AnnounceDump(path, s, reason);
    dump.memories.push_back(std::move(s));
  }
  std::sort(dump.memories.begin(), dump.memories.end(),
            [](const Snapshot& a, const Snapshot& b) {
              return a.memory_id < b.memory_id;
            });
  if (WriteDump(path, dump, error)) return true;
  if (!dump.memories.empty()) AnnounceDumpNotWritten(path, *error);
  return false;
}

}  // namespace realm_shadow

extern "C" int realm_shadow_dump_memory_state(uint64_t memory_id,
                                              const char* filename) {
  if (filename == nullptr) {
    std::fputs("realm-shadow: dump_memory_state: no file name\n", stderr);
    return -1;
  }
  std::string error;
  if (!realm_shadow::DumpMemoryState(memory_id, filename, &error)) {
    std::fprintf(stderr, "realm-shadow: %s\n", error.c_str());
    return -1;
  }
  return 0;
}

extern "C" int realm_shadow_dump_all_memories(const char* filename) {
  if (filename == nullptr) {
    std::fputs("realm-shadow: dump_all_memories: no file name\n", stderr);
    return -1;
  }
  std::string error;
  if (!realm_shadow::DumpAllMemories(filename, &error)) {
    std::fprintf(stderr, "realm-shadow: %s\n", error.c_str());
    return -1;
  }
  return 0;
}
