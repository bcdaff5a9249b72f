// scripts/trial/realm_gpu_trial.cc - a small Realm program that drives the
// three kinds of GPU memory Realm's CUDA module makes for one GPU through
// what an application meets: requests until one fails, releases, a request
// deferred behind a release, and takes a dump after each step, so that every
// dump can be compared with Realm's own log cut at the dump's marker line
// (realm-shadow ingest-realm-log --cut-at-dump, then compare).
//
//   framebuffer (GPU_FB_MEM, -ll:fsize 64): 12 MiB instances until the
//     sixth fails (60 of 64 MiB used); two released leave two 12 MiB holes
//     and a 20 MiB request fails on fragmentation (28 MiB free); a third
//     release waiting on a user event defers a 20 MiB request, which is
//     placed when the event fires.
//   zero-copy (Z_COPY_MEM, -ll:zsize 16): four 3 MiB instances, the second
//     released.
//   dynamic framebuffer (GPU_DYNAMIC_MEM, -cuda:dynfb 1 -cuda:dynfb_max 64):
//     8 MiB instances until the cap refuses one (the ninth: every instance
//     is its own cuMemAlloc, the offset its device address); three
//     released; a request waiting on a user event, placed when it fires.
//
// A memory the machine does not have (no GPU, -cuda:dynfb 0) is skipped with
// a line saying so, and the program exits 2 when none of the three is there.
// Built by scripts/legion-build-cuda against a tracked Legion build tree with
// CUDA (its CMakeLists.txt finds Legion from the build tree).  Run with
// -ll:gpu 1 -ll:fsize 64 -ll:zsize 16 -cuda:dynfb 1 -cuda:dynfb_max 64
// -level inst=1,machine=1,realm_shadow=2 and REALM_SHADOW_TRIAL_DIR=<dir>
// for the dumps (default: .).
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
#include "realm_shadow/live/dump.h"
#include "realm_program.h"

using namespace Realm;

namespace {

enum { TOP_LEVEL_TASK = Processor::TASK_ID_FIRST_AVAILABLE + 0 };

constexpr size_t kMiB = 1024 * 1024;

Logger log_trial("trial");
std::string g_dir = ".";
int g_step = 0;

using realm_shadow_trial::IgnoreFailures;

// A 1-D instance of `bytes` one-byte elements in `memory`.
Event Create(Memory memory, RegionInstance& inst, size_t bytes,
             Event wait_on = Event::NO_EVENT) {
  const std::vector<size_t> field_sizes(1, 1);
  return RegionInstance::create_instance(
      inst, memory, Rect<1>(0, static_cast<int>(bytes) - 1), field_sizes,
      0 /*SOA*/, IgnoreFailures(), wait_on);
}

// Whether an instance's allocation succeeded: its ready event is poisoned
// when it failed.
bool Placed(Event ready) {
  bool poisoned = false;
  ready.wait_faultaware(poisoned);
  return !poisoned;
}

// Lets Realm's background work settle, then dumps the memory; the file is
// named after the memory's kind so the agreement table says which it is.
void Dump(Memory memory, const char* kind, const char* what) {
  usleep(200000);
  char name[96];
  std::snprintf(name, sizeof name, "/realm-gpu-trial-%02d-%s.rsd", ++g_step,
                kind);
  const std::string path = g_dir + name;
  log_trial.print() << "step " << g_step << " (" << kind << " " << memory
                    << "): " << what;
  if (realm_shadow_dump_memory_state(memory.id, path.c_str()) != 0)
    log_trial.error() << "dump " << path << " not written";
}

Memory LocalMemory(Memory::Kind kind) {
  return Machine::MemoryQuery(Machine::get_machine())
      .local_address_space()
      .only_kind(kind)
      .first();
}

// Creates `bytes` instances until one fails or `limit` are placed; returns
// the placed ones (the failed one is not kept).
std::vector<RegionInstance> FillUntilFailure(Memory memory, size_t bytes,
                                             int limit, int* failed) {
  std::vector<RegionInstance> placed;
  *failed = 0;
  for (int i = 0; i < limit; ++i) {
    RegionInstance inst;
    if (!Placed(Create(memory, inst, bytes))) {
      // Not destroyed: GPUDynamicFBMemory::release_storage_immediate aborts
      // on an instance it never placed ("attempt to release unknown
      // instance").
      *failed = 1;
      break;
    }
    placed.push_back(inst);
  }
  return placed;
}

int Framebuffer(Memory fb) {
  log_trial.print() << "framebuffer " << fb << " capacity " << fb.capacity();
  int failed = 0;
  std::vector<RegionInstance> inst = FillUntilFailure(fb, 12 * kMiB, 64,
                                                      &failed);
  log_trial.print() << "framebuffer: " << inst.size()
                    << " instances of 12 MiB placed, then "
                    << (failed ? "one failed" : "no failure");
  Dump(fb, "framebuffer", "12 MiB instances until one fails");
  if (inst.size() < 5) return 1;

  inst[1].destroy();
  inst[3].destroy();
  RegionInstance big;
  const bool fitted = Placed(Create(fb, big, 20 * kMiB));
  log_trial.print() << "framebuffer: 20 MiB in two 12 MiB holes "
                    << (fitted ? "placed (unexpected)" : "failed");
  Dump(fb, "framebuffer", "two released; 20 MiB fails on fragmentation");

  UserEvent release = UserEvent::create_user_event();
  inst[2].destroy(release);
  RegionInstance deferred;
  Event ready = Create(fb, deferred, 20 * kMiB);
  Dump(fb, "framebuffer", "a release waits on an event; 20 MiB deferred");
  release.trigger();
  log_trial.print() << "framebuffer: deferred 20 MiB "
                    << (Placed(ready) ? "placed" : "failed");
  Dump(fb, "framebuffer", "the release fired; the deferred request placed");
  return 0;
}

int ZeroCopy(Memory zc) {
  log_trial.print() << "zero-copy " << zc << " capacity " << zc.capacity();
  std::vector<RegionInstance> inst(4);
  for (RegionInstance& i : inst)
    if (!Placed(Create(zc, i, 3 * kMiB))) return 1;
  inst[1].destroy();
  Dump(zc, "zero_copy", "four 3 MiB instances, the second released");
  return 0;
}

int DynamicFramebuffer(Memory dyn) {
  log_trial.print() << "dynamic framebuffer " << dyn << " cap "
                    << dyn.capacity();
  // At most 1024 requests: with no -cuda:dynfb_max the cap is the device.
  int failed = 0;
  std::vector<RegionInstance> inst = FillUntilFailure(dyn, 8 * kMiB, 1024,
                                                      &failed);
  log_trial.print() << "dynamic framebuffer: " << inst.size()
                    << " instances of 8 MiB, then "
                    << (failed ? "one refused" : "no failure");
  Dump(dyn, "dynamic_framebuffer", "8 MiB instances until the cap refuses");
  if (inst.size() < 4) return 1;

  for (int i : {0, 2, 3}) inst[i].destroy();
  Dump(dyn, "dynamic_framebuffer", "three released");

  UserEvent go = UserEvent::create_user_event();
  RegionInstance deferred;
  Event ready = Create(dyn, deferred, 8 * kMiB, go);
  Dump(dyn, "dynamic_framebuffer", "an 8 MiB request waits on an event");
  go.trigger();
  log_trial.print() << "dynamic framebuffer: deferred 8 MiB "
                    << (Placed(ready) ? "placed" : "failed");
  Dump(dyn, "dynamic_framebuffer", "the event fired; the request placed");
  return 0;
}

int g_status = 0;

void top_level_task(const void*, size_t, const void*, size_t, Processor) {
  if (const char* dir = std::getenv("REALM_SHADOW_TRIAL_DIR")) g_dir = dir;
  struct Part {
    Memory::Kind kind;
    const char* name;
    int (*run)(Memory);
  } parts[] = {{Memory::GPU_FB_MEM, "framebuffer (GPU_FB_MEM)", Framebuffer},
               {Memory::Z_COPY_MEM, "zero-copy (Z_COPY_MEM)", ZeroCopy},
               {Memory::GPU_DYNAMIC_MEM,
                "dynamic framebuffer (GPU_DYNAMIC_MEM)", DynamicFramebuffer}};
  int present = 0;
  for (const Part& part : parts) {
    Memory m = LocalMemory(part.kind);
    if (!m.exists()) {
      log_trial.print() << "no " << part.name
                        << " memory here: skipped (needs -ll:gpu 1"
                        << (part.kind == Memory::GPU_DYNAMIC_MEM
                                ? " and -cuda:dynfb 1)"
                                : ")");
      continue;
    }
    ++present;
    if (part.run(m) != 0) {
      log_trial.error() << part.name << ": a step did not go as planned";
      g_status = 1;
    }
  }
  if (present == 0) g_status = 2;
  log_trial.print() << "done";
  Runtime::get_runtime().shutdown(Event::NO_EVENT, g_status);
}

}  // namespace

int main(int argc, char** argv) {
  return realm_shadow_trial::RunTopLevelTask(argc, argv, TOP_LEVEL_TASK,
                                              top_level_task);
}
