// testing/workload.cc - see workload.h.
#include "testing/workload.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace realm_shadow {
namespace model {

namespace {
constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kKiB = uint64_t{1} << 10;
// Realm ids of the memories of a one-GPU node 0.
constexpr uint64_t kSystemId = 0x1e00000000000000;
constexpr uint64_t kFramebufferId = 0x1e00000000000004;
constexpr uint64_t kZeroCopyId = 0x1e00000000000005;
// Legate asks 256-byte alignment of GPU instances.
constexpr uint64_t kArrayAlignment = 256;

// Names and source lines for the descriptions.  Chosen by counters, never by
// the generator: a run is the same with and without a describer.
constexpr const char* kTaskNames[] = {"stencil", "binary_op", "matmul",
                                      "reduce",  "copy",      "unary_op"};
constexpr const char* kArrayLines[] = {
    "stencil.py:42 grid = np.zeros(n)",
    "stencil.py:57 nxt = 0.5 * (grid[:-2] + grid[2:])",
    "solver.py:88 r = b - A @ x",
    "solver.py:91 p = r.copy()",
    "io.py:19 data = np.fromfile(path)",
    "model.py:130 h = np.tanh(W @ x)",
};
constexpr const char* kClosingLine = "solver.py:112 V = np.empty((8192, 3072))";

template <size_t N>
const char* Pick(const char* const (&table)[N], uint64_t i) {
  return table[i % N];
}
}  // namespace

const char* InstanceRoleName(InstanceRole role) {
  switch (role) {
    case InstanceRole::kArray: return "array";
    case InstanceRole::kTile: return "tile";
    case InstanceRole::kTaskLocalBuffer: return "task-local buffer";
    case InstanceRole::kFuture: return "future";
    case InstanceRole::kStagingBuffer: return "staging buffer";
    case InstanceRole::kPoolBacking: return "pool backing";
  }
  return "unknown";
}

Workload::Workload(WorkloadOptions options)
    : options_(std::move(options)), rng_(options_.seed) {
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
    ++result_.creates;
    if (pool.result == AllocationResult::kInstantSuccess) {
      pool_instance_ = pool.instance;
      if (describing())
        Describe(*framebuffer_, pool_instance_, InstanceRole::kPoolBacking,
                 false,
                 {{"creator", "legate runtime start-up"},
                  {"pool", "eager allocations, " +
                               std::to_string(options_.pool_size >> 20) +
                               " MiB"}});
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

void Workload::Describe(ModelMemory& m, uint64_t instance, InstanceRole role,
                        bool collectable, const Attributes& attributes) {
  if (!describing() || instance == 0) return;
  InstanceDescription d;
  d.memory_id = m.memory_id();
  d.shadow = m.shadow_handle();
  d.instance = instance;
  d.role = role;
  d.collectable = collectable;
  d.attributes = attributes;
  options_.describe(d);
}

std::string Workload::TaskName(uint64_t uid) const {
  if (!describing()) return std::string();
  return std::string("task ") + Pick(kTaskNames, uid) + " (UID " +
         std::to_string(uid) + ")";
}

Workload::Attributes Workload::StoreAttributes(uint64_t elements,
                                               const std::string& creator) {
  const uint64_t store = next_store_++;
  if (!describing()) return {};
  return {{"creator", creator},
          {"store", "Store(" + std::to_string(store) + ")"},
          {"shape", "(" + std::to_string(elements) + ",)"},
          {"type", "float64"},
          {"provenance", Pick(kArrayLines, store)}};
}

Workload::Attributes Workload::BufferAttributes(uint64_t bytes,
                                                const std::string& creator,
                                                const char* purpose) {
  if (!describing()) return {};
  return {{"creator", creator},
          {"shape", "(" + std::to_string(bytes / 4) + ",)"},
          {"type", "float32"},
          {"purpose", purpose}};
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
  if (framebuffer_->largest_free() >= kPressureHole) return FillStep();
  return ClosingStep();
}

bool Workload::TaskLocalBuffers(Event done, const std::string& creator,
                                uint64_t* destroys_gated) {
  ModelMemory& fb = *framebuffer_;
  const uint64_t buffers = 1 + Below(3);
  for (uint64_t b = 0; b < buffers; ++b) {
    const uint64_t bytes = 64 * kKiB + 256 * Below(16 * 1024);
    uint64_t inst;
    if (!Request(fb, bytes, kArrayAlignment, &inst)) return false;
    if (describing())
      Describe(fb, inst, InstanceRole::kTaskLocalBuffer, false,
               BufferAttributes(bytes, creator, "scratch"));
    if (fb.Destroy(inst, done)) {
      ++result_.destroys;
      ++*destroys_gated;
    }
  }
  return true;
}

uint64_t Workload::DropArray(Array& a, Event after) {
  // Out of scope: collectable until its last user is done.
  uint64_t destroyed = 0;
  for (size_t i = 0; i < a.tiles.size(); ++i) {
    if (describing() && a.memory->State(a.tiles[i]) == InstanceState::kLive)
      Describe(*a.memory, a.tiles[i], InstanceRole::kTile, true,
               a.tile_attributes[i]);
    if (a.memory->Destroy(a.tiles[i], after)) ++destroyed;
  }
  if (describing() && a.memory->State(a.instance) == InstanceState::kLive)
    Describe(*a.memory, a.instance, InstanceRole::kArray, true, a.attributes);
  if (a.memory->Destroy(a.instance, after)) ++destroyed;
  result_.destroys += destroyed;
  return destroyed;
}

bool Workload::FillStep() {
  const Event task_done = events_.NewEvent();
  const uint64_t uid = 1000 + result_.steps;
  const std::string creator = TaskName(uid);
  ModelMemory& fb = *framebuffer_;

  // An array goes out of scope (40% of launches, 80% once the framebuffer
  // is three-quarters full), released after this task: its tiles too, or,
  // one time in four, the collector redistricts its range into new
  // instances for this task.
  const uint64_t scope_percent = fb.free_bytes() < fb.capacity() / 4 ? 80 : 40;
  if (!arrays_.empty() && Below(100) < scope_percent) {
    const size_t pick = Below(arrays_.size());
    Array a = std::move(arrays_[pick]);
    arrays_.erase(arrays_.begin() + static_cast<long>(pick));
    auto view = a.memory->View(a.instance);
    if (view && view->state == InstanceState::kLive && Below(4) == 0 &&
        view->size >= 4 * kMiB) {
      for (size_t i = 0; i < a.tiles.size(); ++i) {
        if (describing())
          Describe(*a.memory, a.tiles[i], InstanceRole::kTile, true,
                   a.tile_attributes[i]);
        if (a.memory->Destroy(a.tiles[i], task_done)) ++result_.destroys;
      }
      if (describing())
        Describe(*a.memory, a.instance, InstanceRole::kArray, true, a.attributes);
      const uint64_t quarter = view->size / 4;
      RedistrictResult r = a.memory->Redistrict(
          a.instance, {{quarter, 256}, {quarter, 4096}, {quarter / 2, 256}}, task_done);
      if (!r.instances.empty()) {
        ++result_.redistricts;
        Array pieces{a.memory, r.instances[0], {r.instances[1], r.instances[2]},
                     {}, {}};
        if (describing()) {
          // New stores in the reused range: the whole and a 2-way tiling.
          const std::string from = "redistrict of 0x" + [](uint64_t v) {
            char buf[17];
            std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)v);
            return std::string(buf);
          }(a.instance);
          pieces.attributes = StoreAttributes(quarter / 8, creator);
          pieces.attributes.emplace_back("from", from);
          for (int t = 0; t < 2; ++t) {
            Attributes ta = pieces.attributes;
            ta.emplace_back("partition", "2-way tiling of the reused range");
            ta.emplace_back("tile", "(" + std::to_string(t) + ",)");
            pieces.tile_attributes.push_back(std::move(ta));
          }
          // The pieces exist once the redistrict has happened, after the
          // model's own waiter on task_done (waiters run in order).
          ModelMemory* m = a.memory;
          const Array described = pieces;
          events_.AddWaiter(task_done, [this, m, described](bool poisoned) {
            if (poisoned) return;
            if (m->State(described.instance) == InstanceState::kLive)
              Describe(*m, described.instance, InstanceRole::kArray, false,
                       described.attributes);
            for (size_t i = 0; i < described.tiles.size(); ++i)
              if (m->State(described.tiles[i]) == InstanceState::kLive)
                Describe(*m, described.tiles[i], InstanceRole::kTile, false,
                         described.tile_attributes[i]);
          });
        } else {
          pieces.tile_attributes.resize(pieces.tiles.size());
        }
        arrays_.push_back(std::move(pieces));
      }
    } else {
      DropArray(a, task_done);
    }
  }

  // A new array (60% of launches), sizes of a Legate store: 1..64 MiB with
  // odd element counts.
  if (Below(100) < 60) {
    static const uint64_t kSizes[] = {1 * kMiB, 4 * kMiB, 8 * kMiB, 16 * kMiB, 64 * kMiB};
    const uint64_t size = kSizes[Below(5)] + 8 * Below(4096);
    uint64_t inst;
    if (!Request(fb, size, kArrayAlignment, &inst)) return false;
    Array a{&fb, inst, {}, StoreAttributes(size / 8, creator), {}};
    Describe(fb, inst, InstanceRole::kArray, false, a.attributes);
    // Partitioned into tiles (a third of the arrays): separate instances.
    if (Below(3) == 0) {
      const uint64_t tiles = 2 + Below(6);
      for (uint64_t t = 0; t < tiles; ++t) {
        uint64_t tile;
        if (!Request(fb, size / tiles + 64 * Below(16), kArrayAlignment, &tile))
          return false;
        a.tiles.push_back(tile);
        Attributes ta = a.attributes;
        if (describing()) {
          const uint64_t elements = size / 8;
          ta.emplace_back("partition",
                          std::to_string(tiles) + "-way tiling in (" +
                              std::to_string((elements + tiles - 1) / tiles) +
                              ",) tiles");
          ta.emplace_back("tile", "(" + std::to_string(t) + ",)");
        }
        Describe(fb, tile, InstanceRole::kTile, false, ta);
        a.tile_attributes.push_back(std::move(ta));
      }
    }
    arrays_.push_back(std::move(a));
  }

  // Task-local buffers: destroyed when this task is done (deferred destroy).
  uint64_t gated = 0;
  if (!TaskLocalBuffers(task_done, creator, &gated)) return false;

  // A future: small, in system memory, kept for a few launches.
  {
    const uint64_t bytes = 16 + 8 * Below(32);
    uint64_t inst;
    if (!Request(*system_, bytes, 16, &inst)) return false;
    if (describing())
      Describe(*system_, inst, InstanceRole::kFuture, false,
               {{"creator", creator},
                {"shape", "(" + std::to_string(bytes / 8) + ",)"},
                {"type", "float64"}});
    futures_.emplace_back(system_.get(), inst);
    if (futures_.size() > 8) {
      if (futures_.front().first->Destroy(futures_.front().second)) ++result_.destroys;
      futures_.pop_front();
    }
  }

  // A zero-copy staging buffer, released when the task is done.
  if (Below(4) == 0) {
    const uint64_t bytes = 256 * kKiB + 4096 * Below(256);
    uint64_t inst;
    if (!Request(*zero_copy_, bytes, 4096, &inst)) return false;
    if (describing())
      Describe(*zero_copy_, inst, InstanceRole::kStagingBuffer, false,
               BufferAttributes(bytes, creator, "host staging"));
    if (zero_copy_->Destroy(inst, task_done)) ++result_.destroys;
  }

  // The previous task finishes only now, while this one is being mapped
  // (Legion runs ahead).
  if (previous_task_done_ != kNoEvent) events_.Trigger(previous_task_done_);
  previous_task_done_ = task_done;
  if (stopped_) return false;
  ++result_.steps;
  return true;
}

uint64_t Workload::LargestRangeWithout(const std::vector<uint64_t>& dropped) const {
  // Ranges that stay held, in address order; the largest gap between them.
  std::vector<std::pair<uint64_t, uint64_t>> held;
  for (const InstanceView& v : framebuffer_->Instances()) {
    if (!v.holds_range) continue;
    if (std::find(dropped.begin(), dropped.end(), v.instance) != dropped.end())
      continue;
    held.emplace_back(v.offset, v.offset + v.size);
  }
  std::sort(held.begin(), held.end());
  uint64_t largest = 0, cursor = 0;
  for (const auto& [begin, end] : held) {
    if (begin > cursor) largest = std::max(largest, begin - cursor);
    cursor = std::max(cursor, end);
  }
  const uint64_t capacity = framebuffer_->capacity();
  if (capacity > cursor) largest = std::max(largest, capacity - cursor);
  return largest;
}

bool Workload::ClosingStep() {
  ModelMemory& fb = *framebuffer_;
  // 1. The task in flight completes.
  if (previous_task_done_ != kNoEvent) {
    events_.Trigger(previous_task_done_);
    previous_task_done_ = kNoEvent;
  }
  if (stopped_) return false;
  if (fb.largest_free() >= kClosingArray) return FillStep();

  result_.closing_ran = true;
  const Event done = events_.NewEvent();  // task k's completion
  const uint64_t uid = 1000 + result_.steps;
  uint64_t gated = 0;
  if (!TaskLocalBuffers(done, TaskName(uid), &gated)) return false;

  // 2. The program drops its oldest arrays, last used by task k, until the
  // free ranges and the dropped ranges together hold the next request.
  std::vector<uint64_t> dropped;
  size_t drops = 0;
  while (drops < arrays_.size() &&
         LargestRangeWithout(dropped) < kClosingArray + kArrayAlignment - 1) {
    const Array& a = arrays_[drops++];
    dropped.insert(dropped.end(), a.tiles.begin(), a.tiles.end());
    dropped.push_back(a.instance);
  }
  for (size_t i = 0; i < drops; ++i) {
    const uint64_t n = DropArray(arrays_[i], done);
    gated += n;
    result_.dropped_instances += n;
  }
  arrays_.erase(arrays_.begin(), arrays_.begin() + static_cast<long>(drops));

  // 3. Task k+1's new array: deferred behind task k's releases.
  uint64_t inst;
  if (!Request(fb, kClosingArray, kArrayAlignment, &inst)) return false;
  Array next{&fb, inst, {},
             StoreAttributes(kClosingArray / 8, TaskName(uid + 1)), {}};
  for (auto& kv : next.attributes) {
    if (kv.first == "shape") kv.second = "(8192, 3072)";
    if (kv.first == "provenance") kv.second = kClosingLine;
  }
  Describe(fb, inst, InstanceRole::kArray, false, next.attributes);
  arrays_.push_back(std::move(next));

  // 4. Task k faults: its completion event is poisoned, which cancels the
  // destroys gated on it, and the deferred request no longer fits.
  result_.cancelled_destroys = gated;
  if (options_.closing_task_faults)
    events_.Poison(done);
  else
    events_.Trigger(done);
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
