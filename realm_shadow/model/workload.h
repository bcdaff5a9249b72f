// realm_shadow/model/workload.h - a Legate-like allocation workload on model
// memories, for the demo and the benchmarks.
//
// What it is: three ModelMemory instances (system, framebuffer, zero-copy)
// driven the way a Legate program drives Realm: long-lived arrays of several
// sizes in the framebuffer, partitions of them into tiles, short-lived
// task-local buffers destroyed after their task's completion event
// (deferred destroys), small future instances in system memory, staging
// buffers in zero-copy memory, one bounded pool whose backing instance is
// reported as a reservation, and now and then a collected array whose range
// is redistricted into tiles.  Arrays accumulate faster than they are freed,
// so the framebuffer fills and fragments until an allocation fails; the run
// stops at the first failure in any memory (or at max_steps).
//
// Guarantees: deterministic for a seed (its own splitmix64 generator, no
// std::distribution whose output differs between standard libraries); a
// run with the default options takes well under a second on one core.
#ifndef REALM_SHADOW_MODEL_WORKLOAD_H_
#define REALM_SHADOW_MODEL_WORKLOAD_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "realm_shadow/model/model_memory.h"

namespace realm_shadow {
namespace model {

struct WorkloadOptions {
  uint64_t seed = 1;
  uint64_t system_capacity = uint64_t{256} << 20;
  uint64_t framebuffer_capacity = uint64_t{1} << 30;
  uint64_t zero_copy_capacity = uint64_t{64} << 20;
  uint64_t pool_size = uint64_t{32} << 20;  // bounded pool in the framebuffer
  uint64_t max_steps = 100000;
};

// What the run did and where it stopped.
struct WorkloadResult {
  uint64_t steps = 0;           // task launches completed
  bool failed = false;          // stopped at a failure (else at max_steps)
  uint64_t failed_memory = 0;   // Realm memory id
  uint64_t failed_instance = 0;
  uint64_t failed_size = 0;
  uint64_t failed_alignment = 0;
  AllocationResult failure = AllocationResult::kInstantFailure;
  bool failed_after_deferral = false;  // eventual failure of a deferred request
  uint64_t largest_free_at_failure = 0;  // in the failing memory
  uint64_t free_at_failure = 0;
  // Totals over the three memories.
  uint64_t creates = 0, destroys = 0, redistricts = 0, deferred = 0;
};

class Workload {
 public:
  explicit Workload(WorkloadOptions options = {});
  ~Workload();

  // One task launch.  False once the run has stopped.
  bool Step();
  // Steps until a failure or max_steps.
  const WorkloadResult& Run();
  const WorkloadResult& result() const { return result_; }

  ModelMemory& system() { return *system_; }
  ModelMemory& framebuffer() { return *framebuffer_; }
  ModelMemory& zero_copy() { return *zero_copy_; }
  EventTable& events() { return events_; }

 private:
  struct Array {
    ModelMemory* memory;
    uint64_t instance;
    std::vector<uint64_t> tiles;
  };
  uint64_t Next();
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }
  bool Request(ModelMemory& m, uint64_t size, uint64_t alignment,
               uint64_t* instance);
  void NoteOutcome(ModelMemory& m, uint64_t instance, AllocationResult r);

  WorkloadOptions options_;
  uint64_t rng_;
  EventTable events_;
  std::unique_ptr<ModelMemory> system_, framebuffer_, zero_copy_;
  std::vector<Array> arrays_;
  std::deque<std::pair<ModelMemory*, uint64_t>> futures_;
  Event previous_task_done_ = kNoEvent;
  uint64_t pool_instance_ = 0;
  uint64_t pool_reservation_ = 0;
  bool stopped_ = false;
  WorkloadResult result_;
};

// Runs a whole workload and returns what happened.
WorkloadResult RunWorkload(const WorkloadOptions& options);

}  // namespace model
}  // namespace realm_shadow

#endif  // REALM_SHADOW_MODEL_WORKLOAD_H_
