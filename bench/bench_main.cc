// bench/bench_main.cc - the entry of realm_shadow_bench.
//
// Runs every benchmark of bench/ in one process with the tracker in its
// production configuration: default journal size (16384 events per
// memory) and the background drainer on (1 ms period).  The JSON context
// carries the compiler and build type, so scripts/bench_table.py can say
// what produced the table.
//
// Also home of DrainOnConsumerThread, which the writer-side benchmarks call
// between timed batches.
#include <pthread.h>
#include <sched.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <benchmark/benchmark.h>

#include "realm_shadow/live/snapshots.h"

#ifndef REALM_SHADOW_BENCH_BUILD_TYPE
#define REALM_SHADOW_BENCH_BUILD_TYPE "unknown"
#endif

namespace realm_shadow_bench {

// Applies every journal's backlog on a consumer thread that runs on another
// core than the caller's, and returns when it is done.  In production the
// drainer thread applies events on its own core; applying them on the
// writer's core instead would evict the writer's (the allocator's) data
// from its L1/L2 between batches and charge the next batch for it.
void DrainOnConsumerThread() {
  struct Consumer {
    std::mutex mutex;
    std::condition_variable cv;
    bool requested = false;
    pthread_t handle;  // the thread runs for the process; never joined
  };
  static Consumer* consumer = [] {
    auto* c = new Consumer;
    std::thread thread([c] {
      std::unique_lock<std::mutex> lock(c->mutex);
      for (;;) {
        c->cv.wait(lock, [c] { return c->requested; });
        lock.unlock();
        realm_shadow::DrainAll();
        lock.lock();
        c->requested = false;
        c->cv.notify_all();
      }
    });
    c->handle = thread.native_handle();
    thread.detach();
    return c;
  }();
  const unsigned cpus = std::thread::hardware_concurrency();
  const int here = sched_getcpu();
  if (cpus > 1 && here >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (unsigned cpu = 0; cpu < cpus && cpu < CPU_SETSIZE; ++cpu)
      if (static_cast<int>(cpu) != here) CPU_SET(cpu, &set);
    pthread_setaffinity_np(consumer->handle, sizeof set, &set);
  }
  std::unique_lock<std::mutex> lock(consumer->mutex);
  consumer->requested = true;
  consumer->cv.notify_all();
  consumer->cv.wait(lock, [] { return !consumer->requested; });
}

}  // namespace realm_shadow_bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("compiler", __VERSION__);
  benchmark::AddCustomContext("build_type", REALM_SHADOW_BENCH_BUILD_TYPE);
#ifdef NDEBUG
  benchmark::AddCustomContext("assertions", "off");
#else
  benchmark::AddCustomContext("assertions", "on");
#endif
  benchmark::AddCustomContext(
      "journal_events",
      std::to_string(realm_shadow::Options().journal_events));
  realm_shadow::StartDrainer(1000);
  benchmark::RunSpecifiedBenchmarks();
  realm_shadow::StopDrainer();
  benchmark::Shutdown();
  return 0;
}
