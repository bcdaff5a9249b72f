// realm_shadow/dump/live_dump.cc - dumps of tracked memories: a snapshot of
// each, written as one file.
#include <time.h>

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
  DumpFile dump;
  dump.node = Options().node;
  dump.created_unix_ns = NowUnixNs();
  dump.source = "tracker";
  realm_shadow_memory* memory = FindMemory(memory_id);
  if (memory == nullptr) {
    *error = path + ": memory " + HexId(memory_id) + " is not registered";
    return false;
  }
  dump.memories.emplace_back();
  MemoryHistory history;
  if (TakeSnapshotAndHistory(memory, &dump.memories.back(), &history))
    dump.histories.push_back(std::move(history));
  return WriteDump(path, dump, error);
}

bool DumpAllMemories(const std::string& path, std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  DumpFile dump;
  dump.node = Options().node;
  dump.created_unix_ns = NowUnixNs();
  dump.source = "tracker";
  const std::vector<uint64_t> ids = RegisteredMemoryIds();
  dump.memories.reserve(ids.size());
  for (uint64_t id : ids) {
    realm_shadow_memory* memory = FindMemory(id);
    if (memory == nullptr) continue;
    Snapshot s;
    MemoryHistory history;
    if (TakeSnapshotAndHistory(memory, &s, &history))
      dump.histories.push_back(std::move(history));
    dump.memories.push_back(std::move(s));
  }
  return WriteDump(path, dump, error);
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
