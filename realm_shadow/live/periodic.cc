// realm_shadow/live/periodic.cc - periodic dumps (REALM_SHADOW_DUMP_EVERY_MS),
// so that a run that never fails still leaves pictures to look at and to
// compare with the host's log.
//
// One thread of its own, started by InstallDumpOnFailure when the
// environment asks for it.  Each period it snapshots every registered memory
// and writes those whose event sequence moved since their last periodic
// dump into one file, <dir>/realm-shadow-node<N>-periodic-<k>.rsd, each
// announced through the log sink (log_sink.h, reason "periodic").  Nothing
// moved: no file.  At most kMaxPeriodicDumps files per run.
//
// Each memory as every tracker dump holds it (internal/tracked_dump.h): its
// snapshot, its pools and the identities they name, but no history.
//
// Cost: off the allocation path; per period, one snapshot per memory
// (live x 32 B) and one streamed write.  The writers never wait for it.
#include <sys/stat.h>

#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/live/internal/tracked_dump.h"
#include "realm_shadow/live/on_failure.h"
#include "realm_shadow/live/dump.h"

namespace realm_shadow {
namespace {

constexpr unsigned kMaxPeriodicDumps = 1000;

struct Periodic {
  std::mutex mutex;
  std::condition_variable wake;
  bool running = false;
  std::thread thread;
  std::string dir;
  unsigned period_ms = 0;
  unsigned written = 0;
  std::map<uint64_t, uint64_t> last_sequence;  // memory -> sequence dumped
};

Periodic& GetPeriodic() {
  static Periodic* periodic = new Periodic;  // never destroyed (see below)
  return *periodic;
}

// One period's work; false once the cap is reached.
bool DumpChangedMemories(Periodic& p, const std::string& dir) {
  DumpFile dump = NewTrackerDump();
  const unsigned k = p.written + 1;
  char name[96];
  std::snprintf(name, sizeof name, "/realm-shadow-node%" PRIu32 "-periodic-%u.rsd",
                dump.node, k);
  const std::string path = dir + name;
  for (uint64_t id : RegisteredMemoryIds()) {
    // A first snapshot decides whether the memory moved; the one dumped is
    // taken between the begin line and the marker, as every dump's is.
    Snapshot s;
    if (!TakeSnapshot(id, &s)) continue;
    auto it = p.last_sequence.find(id);
    if (it != p.last_sequence.end() && it->second == s.sequence) continue;
    if (it == p.last_sequence.end() && s.sequence == 0) continue;
    AnnounceDumpBegin(path, id, dump.node, "periodic");
    AddTrackedMemory(FindMemory(id), &dump, /*with_history=*/false);
    p.last_sequence[id] = dump.memories.back().sequence;
    AnnounceDump(path, dump.memories.back(), "periodic");
  }
  if (dump.memories.empty()) return true;
  dump.notes.push_back("periodic dump " + std::to_string(k) + " (every " +
                       std::to_string(p.period_ms) +
                       " ms, memories whose events moved since the last)");
  ::mkdir(dir.c_str(), 0777);
  if (const absl::Status written = WriteDump(path, dump); !written.ok()) {
    const std::string error(written.message());
    AnnounceDumpNotWritten(path, error);
    std::fprintf(stderr, "realm-shadow: periodic dump not written: %s\n",
                 error.c_str());
  }
  p.written = k;
  if (p.written >= kMaxPeriodicDumps) {
    std::fprintf(stderr,
                 "realm-shadow: %u periodic dumps written; no more this run\n",
                 kMaxPeriodicDumps);
    return false;
  }
  return true;
}

void StopAtExit() { StopPeriodicDumps(); }

}  // namespace

bool StartPeriodicDumps(const std::string& dir, unsigned period_ms) {
  if (dir.empty() || period_ms == 0) return false;
  Periodic& p = GetPeriodic();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.running) return true;
  p.running = true;
  p.dir = dir;
  p.period_ms = period_ms;
  static bool registered = false;
  if (!registered) {
    registered = true;
    std::atexit(&StopAtExit);
  }
  p.thread = std::thread([] {
    Periodic& periodic = GetPeriodic();
    std::unique_lock<std::mutex> guard(periodic.mutex);
    while (periodic.running) {
      periodic.wake.wait_for(guard,
                             std::chrono::milliseconds(periodic.period_ms),
                             [&] { return !periodic.running; });
      if (!periodic.running) break;
      const std::string where = periodic.dir;
      // The snapshots and the write run without the mutex held, so that
      // StopPeriodicDumps never waits behind more than one period's work.
      guard.unlock();
      const bool more = DumpChangedMemories(periodic, where);
      guard.lock();
      if (!more) break;
    }
  });
  return true;
}

void StopPeriodicDumps() {
  Periodic& p = GetPeriodic();
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (!p.running && !p.thread.joinable()) return;
    p.running = false;
    thread = std::move(p.thread);
  }
  p.wake.notify_all();
  if (thread.joinable() && thread.get_id() != std::this_thread::get_id())
    thread.join();
  else if (thread.joinable())
    thread.detach();
}

}  // namespace realm_shadow
