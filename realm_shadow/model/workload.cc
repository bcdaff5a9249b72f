// realm_shadow/model/workload.cc - see workload.h.
#include "realm_shadow/model/workload.h"

#include <algorithm>

namespace realm_shadow {
namespace model {

namespace {
constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kKiB = uint64_t{1} << 10;
// Realm ids of the memories of a one-GPU node 0.
constexpr uint64_t kSystemId = 0x1e00000000000000;
constexpr uint64_t kFramebufferId = 0x1e00000000000004;
constexpr uint64_t kZeroCopyId = 0x1e00000000000005;
}  // namespace

Workload::Workload(WorkloadOptions options)
    : options_(options), rng_(options.seed) {
  ModelMemoryOptions mo;
  mo.events = &events_;
  system_ = std::make_unique<ModelMemory>(kSystemId, REALM_SHADOW_MEM_SYSTEM,
                                          options_.system_capacity, "sysmem", mo);
  framebuffer_ = std::make_unique<ModelMemory>(
      kFramebufferId, REALM_SHADOW_MEM_FRAMEBUFFER, options_.framebuffer_capacity,
      "fbmem", mo);
  zero_copy_ = std::make_unique<ModelMemory>(
      kZeroCopyId, REALM_SHADOW_MEM_ZERO_COPY, options_.zero_copy_capacity,
      "zcmem", mo);
  for (ModelMemory* m : {system_.get(), framebuffer_.get(), zero_copy_.get()}) {
    m->set_outcome_observer(
        [this, m](uint64_t instance, AllocationResult r, uint64_t) {
          NoteOutcome(*m, instance, r);
        });
  }
  // The bounded pool: one instance, whose range Legion sub-allocates
  // without Realm seeing it; the shadow learns of it as a reservation.
  if (options_.pool_size > 0) {
    const CreateResult pool = framebuffer_->Create(options_.pool_size, 256);
    if (pool.result == AllocationResult::kInstantSuccess) {
      pool_instance_ = pool.instance;
      ++result_.creates;
      pool_reservation_ = framebuffer_->Reserve(pool.offset, options_.pool_size);
    }
  }
}

Workload::~Workload() = default;

uint64_t Workload::Next() {
  // splitmix64: same sequence everywhere.
  uint64_t z = (rng_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void Workload::NoteOutcome(ModelMemory& m, uint64_t instance, AllocationResult r) {
  if (r == AllocationResult::kDeferred) ++result_.deferred;
  if (stopped_) return;
  if (r != AllocationResult::kInstantFailure &&
      r != AllocationResult::kEventualFailure && r != AllocationResult::kCancelled)
    return;
  stopped_ = true;
  result_.failed = true;
  result_.failed_memory = m.memory_id();
  result_.failed_instance = instance;
  result_.failure = r;
  result_.failed_after_deferral = r == AllocationResult::kEventualFailure;
  if (auto v = m.View(instance)) {
    result_.failed_size = v->size;
    result_.failed_alignment = v->alignment;
  }
  result_.largest_free_at_failure = m.largest_free();
  result_.free_at_failure = m.free_bytes();
}

bool Workload::Request(ModelMemory& m, uint64_t size, uint64_t alignment,
                       uint64_t* instance) {
  const CreateResult r = m.Create(size, alignment);
  ++result_.creates;
  *instance = r.instance;
  return r.result != AllocationResult::kInstantFailure && r.instance != 0;
}

bool Workload::Step() {
  if (stopped_ || result_.steps >= options_.max_steps) return false;
  const Event task_done = events_.NewEvent();
  ModelMemory& fb = *framebuffer_;

  // An array goes out of scope (40% of launches, 80% once the framebuffer
  // is three-quarters full), released after this task: its tiles too, or,
  // one time in four, the collector redistricts its range into tiles.  This
  // comes before the new array so that a new array that needs its room is
  // deferred behind the release.
  const uint64_t scope_percent = fb.free_bytes() < fb.capacity() / 4 ? 80 : 40;
  if (!arrays_.empty() && Below(100) < scope_percent) {
    const size_t pick = Below(arrays_.size());
    Array a = std::move(arrays_[pick]);
    arrays_.erase(arrays_.begin() + static_cast<long>(pick));
    for (uint64_t t : a.tiles)
      if (a.memory->Destroy(t, task_done)) ++result_.destroys;
    auto view = a.memory->View(a.instance);
    if (view && view->state == InstanceState::kLive && Below(4) == 0 &&
        view->size >= 4 * kMiB) {
      const uint64_t quarter = view->size / 4;
      RedistrictResult r = a.memory->Redistrict(
          a.instance, {{quarter, 256}, {quarter, 4096}, {quarter / 2, 256}}, task_done);
      if (!r.instances.empty()) {
        ++result_.redistricts;
        Array pieces{a.memory, r.instances[0], {r.instances[1], r.instances[2]}};
        arrays_.push_back(std::move(pieces));
      }
    } else if (a.memory->Destroy(a.instance, task_done)) {
      ++result_.destroys;
    }
  }

  // A new array (60% of launches), sizes of a Legate store: 1..64 MiB with
  // odd element counts, 256-byte aligned as Legate asks of GPU instances.
  if (Below(100) < 60) {
    static const uint64_t kSizes[] = {1 * kMiB, 4 * kMiB, 8 * kMiB, 16 * kMiB, 64 * kMiB};
    const uint64_t size = kSizes[Below(5)] + 8 * Below(4096);
    uint64_t inst;
    if (!Request(fb, size, 256, &inst)) return false;
    Array a{&fb, inst, {}};
    // Partitioned into tiles (a third of the arrays): separate instances.
    if (Below(3) == 0) {
      const uint64_t tiles = 2 + Below(6);
      for (uint64_t t = 0; t < tiles; ++t) {
        uint64_t tile;
        if (!Request(fb, size / tiles + 64 * Below(16), 256, &tile)) return false;
        a.tiles.push_back(tile);
      }
    }
    arrays_.push_back(std::move(a));
  }

  // Task-local buffers: destroyed when this task is done (deferred destroy).
  const uint64_t buffers = 1 + Below(3);
  for (uint64_t b = 0; b < buffers; ++b) {
    uint64_t inst;
    if (!Request(fb, 64 * kKiB + 256 * Below(16 * 1024), 256, &inst)) return false;
    if (fb.Destroy(inst, task_done)) ++result_.destroys;
  }

  // A future: small, in system memory, kept for a few launches.
  {
    uint64_t inst;
    if (!Request(*system_, 16 + 8 * Below(32), 16, &inst)) return false;
    futures_.emplace_back(system_.get(), inst);
    if (futures_.size() > 8) {
      if (futures_.front().first->Destroy(futures_.front().second)) ++result_.destroys;
      futures_.pop_front();
    }
  }

  // A zero-copy staging buffer, released when the task is done.
  if (Below(4) == 0) {
    uint64_t inst;
    if (!Request(*zero_copy_, 256 * kKiB + 4096 * Below(256), 4096, &inst)) return false;
    if (zero_copy_->Destroy(inst, task_done)) ++result_.destroys;
  }

  // The previous task finishes only now, while this one is being mapped
  // (Legion runs ahead): requests above may have been deferred behind its
  // buffers' releases, and complete here.
  if (previous_task_done_ != kNoEvent) events_.Trigger(previous_task_done_);
  previous_task_done_ = task_done;
  if (stopped_) return false;
  ++result_.steps;
  return true;
}

const WorkloadResult& Workload::Run() {
  while (Step()) {
  }
  return result_;
}

WorkloadResult RunWorkload(const WorkloadOptions& options) {
  Workload w(options);
  return w.Run();
}

}  // namespace model
}  // namespace realm_shadow
