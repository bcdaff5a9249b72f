// testing/workload.h - a Legate-like allocation workload on model
// memories, for the demo and the tests.
//
// What it is: three ModelMemory instances (system, framebuffer, zero-copy)
// driven the way a Legate program drives Realm, in two phases.
//
// Fill.  Long-lived arrays of several sizes in the framebuffer, a third of
// them partitioned into tiles (separate instances); task-local buffers
// destroyed after their task's completion event (deferred destroys); small
// future instances in system memory; staging buffers in zero-copy memory;
// one bounded pool whose backing instance is reported as a reservation; and
// now and then a collected array whose range is redistricted into new
// instances.  Legion runs one task ahead: task k's completion triggers
// while task k+1 is being mapped.  Arrays accumulate faster than they are
// freed, so the framebuffer fills and fragments.
//
// Closing.  A fill launch asks the framebuffer for at most ~141 MiB (a 64 MiB
// array, its tiles, three 4 MiB buffers, alignment padding), so the fill
// runs only while the largest hole is at least kPressureHole (160 MiB): no
// fill request can fail or wait.  Below that the closing scenario runs,
// once, in the shape of an iterative solver on a nearly full GPU:
//  1. the task in flight completes; task k starts, with its task-local
//     buffers, destroyed after k's completion event;
//  2. the program drops its oldest arrays (and their tiles), whose last
//     user is task k: Legion destroys them after k's completion event, and
//     until then they are collectable.  It drops until the framebuffer's
//     free ranges and the dropped ranges together hold the next request;
//  3. the mapper maps task k+1, which writes a new kClosingArray-byte array
//     (8192 x 3072 float64, 192 MiB).  It does not fit now, it fits once
//     k's releases apply: Realm DEFERS it behind them;
//  4. task k faults, and Realm poisons its completion event (as for a task
//     that reports an execution fault or is cancelled).  A poisoned destroy
//     precondition cancels the destruction (Realm logs "POSSIBLE LEAK"):
//     the buffers and dropped arrays keep their ranges, the future no
//     longer holds the request, and it ends in EVENTUAL_FAILURE.
// The run stops at that first eventual failure.  If, once the task in
// flight has completed (1.), the largest hole holds kClosingArray after all
// (its releases can merge holes), that launch is a fill launch instead.
//
// Failures other than the closing one.  An instant failure stops the run
// as well: Legate's mapper, given an instance it cannot create after
// Legion's collector has had its turn, reports out of memory and the
// program ends; it does not retry smaller (a store's instance must hold the
// whole store or tile).  With the default capacities none happens (the
// bound above; seeds 1-300 all end at the closing failure); a framebuffer that cannot hold kClosingArray beside the pool and
// the task's buffers makes the closing request fail at once instead.
//
// Identity.  WorkloadOptions::describe, when set, receives a description
// of each instance the program creates, right after Realm answered (placed
// or deferred; the pieces of a redistrict once they are placed), and again
// when the program drops a store's instances (collectable, before their
// destroy is requested).  Descriptions are chosen by counters, never by the
// generator, so a run is the same with and without a describer.
// The descriptions use legion_glue/identity.h's attribute keys ("store",
// "shape", "type", "partition", "provenance", "creator", "pool"); this layer
// only produces them and uses nothing but the hooks.
//
// Guarantees: deterministic for a seed (its own splitmix64 generator, no
// std::distribution whose output differs between standard libraries); a
// run with the default options (seed 1: 142 launches, 657 creates) takes
// well under a second on one core (about 20 ms).
#ifndef TESTING_WORKLOAD_H_
#define TESTING_WORKLOAD_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/model_memory.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(testing);
namespace model {

// What an instance is to the program that created it.
enum class InstanceRole : uint8_t {
  kArray,            // a store's whole instance (region instance)
  kTile,             // one tile of a partitioned store (region instance)
  kTaskLocalBuffer,  // a task's DeferredBuffer, destroyed after the task
  kFuture,           // a future's instance in system memory
  kStagingBuffer,    // a zero-copy staging buffer of a task
  kPoolBacking,      // the instance behind the bounded pool
};
const char* InstanceRoleName(InstanceRole role);

struct InstanceDescription {
  uint64_t memory_id = 0;
  realm_shadow_memory* shadow = nullptr;  // the memory's handle (null: off)
  uint64_t instance = 0;
  InstanceRole role = InstanceRole::kArray;
  // The program no longer references it: Legion may collect it.
  bool collectable = false;
  // Ordered key/value pairs with legion_glue/identity.h's keys.
  std::vector<std::pair<std::string, std::string>> attributes;
};
using InstanceDescriber = std::function<void(const InstanceDescription&)>;

struct WorkloadOptions {
  uint64_t seed = 1;
  uint64_t system_capacity = uint64_t{256} << 20;
  uint64_t framebuffer_capacity = uint64_t{1} << 30;
  uint64_t zero_copy_capacity = uint64_t{64} << 20;
  uint64_t pool_size = uint64_t{32} << 20;  // bounded pool in the framebuffer
  uint64_t max_steps = 100000;
  // The closing step's task faults (its completion is poisoned, the
  // deferred request fails).  false: it completes, the destroys apply and
  // the deferred request is placed; the run then goes on.
  bool closing_task_faults = true;
  // Called for every instance the program creates and for every drop; the
  // workload builds no description strings when empty.
  InstanceDescriber describe;
};

// The fill runs while the framebuffer's largest hole is at least this.
inline constexpr uint64_t kPressureHole = uint64_t{160} << 20;
// The closing request: 8192 x 3072 float64.
inline constexpr uint64_t kClosingArray = uint64_t{8192} * 3072 * 8;

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
  // The closing scenario: destroys gated on the faulted task's completion
  // (cancelled by its poison), and how many of them were dropped arrays or
  // tiles.
  bool closing_ran = false;
  uint64_t cancelled_destroys = 0, dropped_instances = 0;
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
  using Attributes = std::vector<std::pair<std::string, std::string>>;
  struct Array {
    ModelMemory* memory;
    uint64_t instance;
    std::vector<uint64_t> tiles;
    Attributes attributes;  // the array's; tiles add theirs
    std::vector<Attributes> tile_attributes;
  };
  uint64_t Next();
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }
  bool Request(ModelMemory& m, uint64_t size, uint64_t alignment,
               uint64_t* instance);
  void NoteOutcome(ModelMemory& m, uint64_t instance, AllocationResult r);
  void Describe(ModelMemory& m, uint64_t instance, InstanceRole role,
                bool collectable, const Attributes& attributes);
  bool describing() const { return static_cast<bool>(options_.describe); }

  // Attribute builders (empty when nobody listens).
  std::string TaskName(uint64_t uid) const;
  Attributes StoreAttributes(uint64_t elements, const std::string& creator);
  Attributes BufferAttributes(uint64_t bytes, const std::string& creator,
                              const char* purpose);

  bool FillStep();
  bool ClosingStep();
  // Task-local buffers of a task, destroyed after `done`.
  bool TaskLocalBuffers(Event done, const std::string& creator,
                        uint64_t* destroys_gated);
  // Destroys an array and its tiles after `after`; returns how many.
  uint64_t DropArray(Array& a, Event after);
  // Largest range of the framebuffer that is free or held by `dropped`.
  uint64_t LargestRangeWithout(const std::vector<uint64_t>& dropped) const;

  WorkloadOptions options_;
  uint64_t rng_;
  EventTable events_;
  std::unique_ptr<ModelMemory> system_, framebuffer_, zero_copy_;
  std::vector<Array> arrays_;
  std::deque<std::pair<ModelMemory*, uint64_t>> futures_;
  Event previous_task_done_ = kNoEvent;
  uint64_t pool_instance_ = 0;
  uint64_t pool_reservation_ = 0;
  uint64_t next_store_ = 1;
  bool stopped_ = false;
  WorkloadResult result_;
};

// Runs a whole workload and returns what happened.
WorkloadResult RunWorkload(const WorkloadOptions& options);

}  // namespace model
}  // namespace realm_shadow

#endif  // TESTING_WORKLOAD_H_
