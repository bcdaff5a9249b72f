// scripts/trial/realm_trial.cc - a small Realm program for scripts/legion-
// trial: it drives one system memory through what Realm's allocator does
// beyond plain first-fit (deferred allocation, release reordering,
// redistrict, a poisoned destroy, id reuse, an eventual and an instant
// failure) and takes a dump after each step, so that every dump can be
// compared with Realm's own log cut at the dump's marker line.
//
// Built by scripts/legion-trial against a tracked Legion build (its
// CMakeLists.txt finds Legion from the build tree), not by realm-shadow's
// CMake.  Run with -ll:csize 1 (a 1 MiB SYSTEM_MEM), -ll:cpu 1, and
// REALM_SHADOW_TRIAL_DIR=<dir> for the dumps (default: .).
//
// Every request asks for InstanceStatus with no task to send it to, so a
// failure is reported instead of aborting the run.  Before each dump the
// program waits for the events it can wait for, then sleeps 200 ms: a
// release's range comes back on Realm's background threads after its
// precondition fires, and nothing signals that moment.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "realm.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/live/dump.h"
#include "realm_program.h"

using namespace Realm;

namespace {

enum { TOP_LEVEL_TASK = Processor::TASK_ID_FIRST_AVAILABLE + 0 };

constexpr size_t kKiB = 1024;

Logger log_trial("trial");
Memory g_memory;
std::string g_dir = ".";
int g_step = 0;

using realm_shadow_trial::IgnoreFailures;

// A 1-D instance of `bytes` one-byte elements.
Event Create(RegionInstance& inst, size_t bytes, Event wait_on = Event::NO_EVENT) {
  const std::vector<size_t> field_sizes(1, 1);
  return RegionInstance::create_instance(
      inst, g_memory, Rect<1>(0, static_cast<int>(bytes) - 1), field_sizes,
      0 /*SOA*/, IgnoreFailures(), wait_on);
}

InstanceLayoutGeneric* Layout(size_t bytes) {
  const std::vector<size_t> field_sizes(1, 1);
  InstanceLayoutConstraints constraints(field_sizes, 0 /*SOA*/);
  const int dim_order[1] = {0};
  return InstanceLayoutGeneric::choose_instance_layout<1, int>(
      IndexSpace<1>(Rect<1>(0, static_cast<int>(bytes) - 1)), constraints,
      dim_order);
}

// Lets Realm's background work settle, then dumps the memory.
void Dump(const char* what) {
  usleep(200000);
  char name[64];
  std::snprintf(name, sizeof name, "/realm-trial-%02d.rsd", ++g_step);
  const std::string path = g_dir + name;
  log_trial.print() << "step " << g_step << ": " << what;
  if (realm_shadow_dump_memory_state(g_memory.id, path.c_str()) != 0)
    log_trial.error() << "dump " << path << " not written";
}

void Wait(Event e) {
  bool poisoned = false;
  e.wait_faultaware(poisoned);
}

void top_level_task(const void*, size_t, const void*, size_t, Processor) {
  if (const char* dir = std::getenv("REALM_SHADOW_TRIAL_DIR")) g_dir = dir;
  g_memory = Machine::MemoryQuery(Machine::get_machine())
                 .local_address_space()
                 .only_kind(Memory::SYSTEM_MEM)
                 .first();
  assert(g_memory.exists());
  log_trial.print() << "memory " << g_memory << " capacity "
                    << g_memory.capacity();

  // 1. Three 300 KiB instances: 900 of 1024 KiB used.
  RegionInstance a, b, c;
  Wait(Create(a, 300 * kKiB));
  Wait(Create(b, 300 * kKiB));
  Wait(Create(c, 300 * kKiB));
  Dump("three 300 KiB instances");

  // 2. Destroy b once `release_b` fires; a 200 KiB request fits only after
  //    that release: deferred.  A 50 KiB request would fit now, but is
  //    deferred behind it.
  UserEvent release_b = UserEvent::create_user_event();
  b.destroy(release_b);
  RegionInstance d, e;
  Event d_ready = Create(d, 200 * kKiB);
  Event e_ready = Create(e, 50 * kKiB);
  Dump("b's destroy waits; d (200 KiB) and e (50 KiB) deferred");

  // 3. Destroy c now: a ready release while allocations are pending, which
  //    Realm may reorder ahead of b's to place d and e.
  c.destroy();
  Dump("c destroyed at once (release reordering)");

  // 4. b's release happens.
  release_b.trigger();
  Wait(d_ready);
  Wait(e_ready);
  Dump("b released; d and e placed");

  // 5. Redistrict a into 100 KiB + 150 KiB pieces.
  RegionInstance pieces[2];
  const InstanceLayoutGeneric* layouts[2] = {Layout(100 * kKiB),
                                             Layout(150 * kKiB)};
  ProfilingRequestSet prs[2] = {IgnoreFailures(), IgnoreFailures()};
  Wait(a.redistrict(pieces, layouts, 2, prs));
  Dump("a redistricted into 100 KiB + 150 KiB");

  // 6. A destroy whose precondition is poisoned: the piece stays.
  UserEvent doomed = UserEvent::create_user_event();
  pieces[1].destroy(doomed);
  doomed.cancel();
  Dump("destroy of the second piece poisoned: it stays");

  // 7. Id reuse: the first piece goes, a new 100 KiB instance takes its id.
  pieces[0].destroy();
  usleep(100000);
  RegionInstance f;
  Wait(Create(f, 100 * kKiB));
  log_trial.print() << "first piece " << pieces[0] << ", new instance " << f;
  Dump("first piece destroyed, f created (id reuse)");

  // 8. An eventual failure: g waits on d's release, which is poisoned.
  UserEvent d_gone = UserEvent::create_user_event();
  d.destroy(d_gone);
  RegionInstance g;
  Event g_ready = Create(g, 400 * kKiB);
  Dump("g (400 KiB) deferred behind d's destroy");
  d_gone.cancel();
  Wait(g_ready);
  Dump("d's destroy poisoned: g failed eventually");

  // 9. An instant failure: more than the memory holds.
  RegionInstance h;
  Wait(Create(h, 2000 * kKiB));
  Dump("h (2000 KiB) failed at once");

  log_trial.print() << "done";
  Runtime::get_runtime().shutdown();
}

}  // namespace

int main(int argc, char** argv) {
  return realm_shadow_trial::RunTopLevelTask(argc, argv, TOP_LEVEL_TASK,
                                              top_level_task);
}
