// whatif/replay.cc - see replay.h.
//
// The runner drives one unshadowed ModelMemory with the script's steps:
// a request is Create (with an untriggered event when it waits on its
// precondition), a release Destroy (with an untriggered event until it is
// ready), a redistrict Redistrict; readiness and poisoning are Trigger and
// Poison.  Outcomes come back through the memory's outcome observer, also
// for requests other than the one a call made (eventual successes when a
// release unclogs the queue); they are buffered during the call and read
// after it, once every instance the call made has its life.
#include "whatif/replay.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "model/model_memory.h"

namespace realm_shadow {
namespace whatif {
namespace {

using model::AllocationResult;
using model::ModelMemory;

// A model instance id's index (its low 22 bits).
inline uint32_t IndexOf(uint64_t instance) { return model::InstanceIds::IndexOf(instance); }

enum class LifeState : uint8_t {
  kUntouched,
  kWaiting,   // created, its precondition not triggered
  kPending,   // in the allocator, deferred
  kPlaced,
  kFailed,
  kCancelled,
};

class Runner {
 public:
  Runner(const ReplayScript& script, const ReplayOptions& options,
         uint64_t capacity, ReplayResult* out)
      : script_(script), options_(options), out_(out) {
    model::ModelMemoryOptions mo;
    mo.placement = options.policy;
    mo.shadowed = false;
    mo.observe_create_outcomes = false;  // Request reads them (Decided)
    memory_ = std::make_unique<ModelMemory>(0x1e00000000000000ull, REALM_SHADOW_MEM_SYSTEM,
                                            capacity, "replay", mo);
    id_base_ = memory_->MakeInstanceId(0);
    const size_t n = script.lives.size();
    lives_.assign(n, LifeRun{});
    out_->placed_at.assign(n, kNone64);
    memory_->set_outcome_observer(
        [this](uint64_t instance, AllocationResult result, uint64_t offset) {
          outcomes_.push_back({instance, result, offset});
        });
    for (const ReplayLife& l : script.lives) {
      if (l.recorded != RecordedOutcome::kFailed) continue;
      ++(l.recorded_maybe_cancelled ? out_->recorded_maybe_cancelled
                                    : out_->recorded_failures);
      if (l.recorded_sequence < first_failure_sequence_)
        first_failure_sequence_ = l.recorded_sequence;
    }
    out_->recorded_failure_sequence = first_failure_sequence_;
  }

  bool Seed(std::string* error) {
    if (script_.base_lives.empty()) return true;
    std::vector<model::SeedAllocation> seeds;
    seeds.reserve(script_.base_lives.size());
    for (uint32_t life : script_.base_lives) {
      const ReplayLife& l = script_.lives[life];
      seeds.push_back({l.recorded_offset, l.size, l.alignment});
    }
    const std::vector<uint64_t> ids = memory_->Seed(seeds);
    if (ids.size() != seeds.size()) {
      *error = "the base snapshot's allocations do not fit in " +
               std::to_string(memory_->capacity()) + " bytes";
      return false;
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      const uint32_t life = script_.base_lives[i];
      Map(life, ids[i]);
      lives_[life].state = LifeState::kPlaced;
      out_->placed_at[life] = script_.lives[life].recorded_offset;
    }
    Observe();
    out_->peak_used = memory_->capacity() - memory_->free_bytes();
    return true;
  }

  // Fragmentation of the current heap now, once: at the run's first failure.
  void TakeFragmentation() {
    if (frag_taken_) return;
    frag_taken_ = true;
    const uint64_t free = memory_->free_bytes();
    out_->fragmentation_at_recorded_failure =
        free == 0 ? 0.0 : 1.0 - static_cast<double>(memory_->largest_free()) /
                                    static_cast<double>(free);
  }

  // The lives of later steps are fetched ahead, in stages (each stage needs
  // what the one before it fetched): at 100k live allocations a release
  // touches a random life and a random model record, a cache miss each,
  // and a replay is bound by them otherwise.  Hints only: nothing changes.
  void Prefetch(size_t i) {
    if (i + 16 < script_.steps.size()) PrefetchStages</*kLast16=*/false>(i);
    else PrefetchStages</*kLast16=*/true>(i);
  }
  // kLast16: a stage only while there is a step that far (the steps
  // before the last 16 check no bounds).
  template <bool kLast16>
  void PrefetchStages(size_t i) {
    const std::vector<ReplayStep>& steps = script_.steps;
    const auto there = [&](size_t ahead) { return !kLast16 || i + ahead < steps.size(); };
    if (there(16)) __builtin_prefetch(&lives_[steps[i + 16].life]);
    if (there(8) && steps[i + 8].kind == StepKind::kRelease) {
      const uint64_t id = ModelId(steps[i + 8].life);
      memory_->PrefetchInstance(id);
      // The model reuses the released index first: the next request's
      // Map writes its entry here.
      if (IndexOf(id) < life_of_index_.size()) __builtin_prefetch(&life_of_index_[IndexOf(id)]);
    }
    if (there(4) && steps[i + 4].kind == StepKind::kRelease)
      memory_->PrefetchRecord(ModelId(steps[i + 4].life));
    if (there(2) && steps[i + 2].kind == StepKind::kRelease)
      memory_->PrefetchRelease(ModelId(steps[i + 2].life));
  }

  // The sequence from which the fragmentation or the map is still to be
  // taken (kNone64: neither): Run compares each step with it once.
  uint64_t NextMark() const {
    return std::min(frag_taken_ ? kNone64 : first_failure_sequence_,
                    out_->map_taken ? kNone64 : options_.map_before_sequence);
  }

  void Run() {
    uint64_t mark = NextMark();
    const uint64_t capacity = memory_->capacity();
    uint64_t peak_used = out_->peak_used;
    const size_t n = script_.steps.size();
    for (size_t i = 0; i < n; ++i) {
      const ReplayStep& step = script_.steps[i];
      Prefetch(i);
      if (step.sequence >= mark) {
        if (step.sequence >= first_failure_sequence_) TakeFragmentation();
        if (step.sequence >= options_.map_before_sequence && !out_->map_taken) TakeMap();
        mark = NextMark();
      }
      sequence_ = step.sequence;
      Apply(step);
      Observe();
      const uint64_t used = capacity - memory_->free_bytes();
      peak_used = used > peak_used ? used : peak_used;
      if (stop_ && options_.stop_at_first_failure) {
        out_->steps_run = i + 1;
        out_->peak_used = peak_used;
        out_->stopped_early = true;
        return;
      }
    }
    out_->steps_run = n;
    out_->peak_used = peak_used;
    sequence_ = script_.end_sequence;
    // The run's first failure came after the last step (an eventual
    // failure has no step of its own): the state then is the end's.
    if (first_failure_sequence_ != kNone64) TakeFragmentation();
    if (options_.map_before_sequence != kNone64 && !out_->map_taken) TakeMap();
    reached_end_ = true;
    out_->ready_releases_dropped = memory_->ready_releases_dropped();
  }

  void TakeHighestEnd() { out_->highest_end = memory_->highest_end(); }

  // One pass over the lives (at 1M events they are tens of MB): what is
  // still waiting at the end, the self-check, the run's failures avoided.
  void Finish() {
    SelfCheck& c = out_->self_check;
    for (uint32_t life = 0; life < script_.lives.size(); ++life) {
      const ReplayLife& l = script_.lives[life];
      // Placed or failed in the run, still waiting here at the end: never
      // served, which is no success (a request the run left pending is not
      // counted).
      if (reached_end_ &&
          (l.recorded == RecordedOutcome::kPlaced || l.recorded == RecordedOutcome::kFailed) &&
          (lives_[life].state == LifeState::kPending || lives_[life].state == LifeState::kWaiting))
        Fail(life, FailureKind::kNotPlaced);
      if (l.recorded == RecordedOutcome::kFailed && out_->placed_at[life] != kNone64)
        ++(l.recorded_maybe_cancelled ? out_->maybe_cancelled_placed
                                      : out_->recorded_failures_avoided);
      if (l.recorded != RecordedOutcome::kPlaced) continue;
      if (!l.size_known) {
        ++c.not_checkable;
        continue;
      }
      ++c.checked;
      if (out_->placed_at[life] == l.recorded_offset) {
        ++c.as_recorded;
        continue;
      }
      ++c.difference_count;
      if (c.differences.size() < 16)
        c.differences.push_back({life, l.recorded_offset, out_->placed_at[life]});
    }
  }

 private:
  struct Outcome {
    uint64_t instance;
    AllocationResult result;
    uint64_t offset;
  };

  void Map(uint32_t life, uint64_t instance) {
    const uint32_t index = IndexOf(instance);
    lives_[life].model_index = index + 1;
    if (index >= life_of_index_.size()) life_of_index_.resize(index + 1, kNoLife);
    life_of_index_[index] = life;
  }

  void Fail(uint32_t life, FailureKind kind) {
    out_->failures.push_back({life, kind, sequence_});
    if (script_.lives[life].recorded_maybe_cancelled) ++out_->failures_of_maybe_cancelled;
    stop_ = true;
  }

  // The outcomes the last call reported, now that its instances are mapped.
  void Observe() {
    for (const Outcome& o : outcomes_) {
      const uint32_t index = IndexOf(o.instance);
      if (index >= life_of_index_.size()) continue;
      const uint32_t life = life_of_index_[index];
      if (life == kNoLife || ModelId(life) != o.instance) continue;
      Decided(life, o.result, o.offset);
    }
    outcomes_.clear();
  }

  // A life's request has this outcome (observed, or returned by Create).
  void Decided(uint32_t life, AllocationResult result, uint64_t offset) {
    switch (result) {
      case AllocationResult::kInstantSuccess:
      case AllocationResult::kEventualSuccess:
        lives_[life].state = LifeState::kPlaced;
        out_->placed_at[life] = offset;
        break;
      case AllocationResult::kDeferred:
        lives_[life].state = LifeState::kPending;
        NoteDeficit(life);
        break;
      case AllocationResult::kInstantFailure:
        lives_[life].state = LifeState::kFailed;
        NoteDeficit(life);
        Fail(life, FailureKind::kInstant);
        break;
      case AllocationResult::kEventualFailure:
        lives_[life].state = LifeState::kFailed;
        Fail(life, FailureKind::kEventual);
        break;
      case AllocationResult::kCancelled:
        lives_[life].state = LifeState::kCancelled;
        break;
    }
  }

  void NoteDeficit(uint32_t life) {
    const uint64_t size = script_.lives[life].size;
    const uint64_t largest = memory_->largest_free();
    if (size > largest && size - largest > out_->peak_hole_deficit)
      out_->peak_hole_deficit = size - largest;
  }

  void Request(uint32_t life, model::Event precondition) {
    const ReplayLife& l = script_.lives[life];
    const model::CreateResult r = memory_->Create(l.size, l.alignment, precondition);
    if (r.instance == 0) {  // the model's 2^22 ids are all in use
      lives_[life].state = LifeState::kFailed;
      Fail(life, FailureKind::kInstant);
      return;
    }
    Map(life, r.instance);
    if (lives_[life].state == LifeState::kUntouched)
      lives_[life].state = precondition == model::kNoEvent ? LifeState::kPending
                                                     : LifeState::kWaiting;
    if (r.decided) Decided(life, r.outcome, r.offset);
  }

  void Apply(const ReplayStep& step) {
    const uint32_t life = step.life;
    switch (step.kind) {
      case StepKind::kRequest:
        if (lives_[life].state == LifeState::kUntouched) Request(life, model::kNoEvent);
        break;
      case StepKind::kRequestWaits:
        if (lives_[life].state == LifeState::kUntouched) {
          *EventOf(&create_event_, life) = memory_->NewEvent();
          Request(life, *EventOf(&create_event_, life));
        }
        break;
      case StepKind::kRequestEnters:
        if (lives_[life].state == LifeState::kUntouched) {
          Request(life, model::kNoEvent);
        } else if (Fire(EventOf(&create_event_, life), /*poison=*/false) &&
                   lives_[life].state == LifeState::kWaiting) {
          lives_[life].state = LifeState::kPending;
        }
        break;
      case StepKind::kRequestCancelled:
        Fire(EventOf(&create_event_, life), /*poison=*/true);
        break;
      case StepKind::kRelease:
        Release(life, step.ready);
        break;
      case StepKind::kReleaseReady:
        Fire(EventOf(&release_event_, life), /*poison=*/false);
        break;
      case StepKind::kReleaseCancelled:
        Fire(EventOf(&release_event_, life), /*poison=*/true);
        break;
      case StepKind::kRedistrict:
        Redistrict(step);
        break;
    }
  }

  // The event a life's request or release waits on (kNoEvent: none).  The
  // table is made at its first use: a history whose steps are all ready
  // (the benchmark's) allocates none, which at 1M lives is 8 MB of fresh
  // pages a replay.
  model::Event* EventOf(std::vector<model::Event>* events, uint32_t life) {
    if (events->empty()) events->assign(script_.lives.size(), model::kNoEvent);
    return &(*events)[life];
  }

  // Triggers (or poisons) the event a life waits on, once; false when it
  // waits on none.
  bool Fire(model::Event* event, bool poison) {
    if (*event == model::kNoEvent) return false;
    if (poison) memory_->Poison(*event);
    else memory_->Trigger(*event);
    *event = model::kNoEvent;
    return true;
  }

  void Release(uint32_t life, bool ready) {
    if (lives_[life].state == LifeState::kUntouched || lives_[life].model_index == 0) return;
    // The run had it placed and was done with it; here it never got there.
    // (A destroy requested before the run placed it waits for the
    // placement, in the run as here: Realm's delayed destroy.)
    if (lives_[life].state == LifeState::kPending || lives_[life].state == LifeState::kWaiting) {
      const ReplayLife& l = script_.lives[life];
      if (l.recorded == RecordedOutcome::kPlaced && l.recorded_sequence < sequence_)
        Fail(life, FailureKind::kStalled);
    }
    model::Event after = model::kNoEvent;
    if (!ready) after = *EventOf(&release_event_, life) = memory_->NewEvent();
    memory_->Destroy(ModelId(life), after);
  }

  void Redistrict(const ReplayStep& step) {
    const uint32_t old = step.life;
    std::vector<model::PieceRequest> pieces;
    pieces.reserve(step.piece_count);
    for (uint32_t i = 0; i < step.piece_count; ++i) {
      const ReplayLife& p = script_.lives[step.first_piece + i];
      pieces.push_back({p.size, p.alignment});
    }
    model::Event after = model::kNoEvent;
    if (!step.ready) after = memory_->NewEvent();
    model::RedistrictResult r;
    if (lives_[old].state == LifeState::kPlaced)
      r = memory_->Redistrict(ModelId(old), pieces, after);
    if (r.instances.size() != step.piece_count) {
      // The replay does not hold the old range (it failed here, or waits):
      // the pieces are requests of their own.
      for (uint32_t i = 0; i < step.piece_count; ++i)
        Request(step.first_piece + i, model::kNoEvent);
      if (lives_[old].state != LifeState::kUntouched && lives_[old].model_index != 0)
        Release(old, step.ready);
      return;
    }
    if (!step.ready) *EventOf(&release_event_, old) = after;
    for (uint32_t i = 0; i < step.piece_count; ++i) {
      const uint32_t life = step.first_piece + i;
      Map(life, r.instances[i]);
      lives_[life].state = LifeState::kPending;
    }
  }

  void TakeMap() {
    out_->map_taken = true;
    out_->map_free_bytes = memory_->free_bytes();
    for (const model::InstanceView& v : memory_->current_contents()) {
      const uint32_t index = IndexOf(v.instance);
      uint32_t life = kNoLife;
      if (index < life_of_index_.size() && life_of_index_[index] != kNoLife &&
          ModelId(life_of_index_[index]) == v.instance)
        life = life_of_index_[index];
      out_->map_at.push_back({life, v.offset, v.size});
    }
    std::sort(out_->map_at.begin(), out_->map_at.end(),
              [](const ReplayRange& a, const ReplayRange& b) { return a.offset < b.offset; });
  }

  const ReplayScript& script_;
  const ReplayOptions& options_;
  ReplayResult* out_;
  std::unique_ptr<ModelMemory> memory_;
  // Per life, side by side: a release reads both, at a random life.  The
  // model's id is kept as its index (8 bytes a life, not 16: at 1M lives
  // that is 8 MB of fresh pages less per replay); one memory makes every
  // id from its index alone (ModelMemory::MakeInstanceId: the index in the
  // low bits, IndexOf, under bits fixed by the memory, id_base_).
  struct LifeRun {
    uint32_t model_index = 0;  // the id's index + 1; 0: none yet
    LifeState state = LifeState::kUntouched;
  };
  uint64_t ModelId(uint32_t life) const {
    const uint32_t i = lives_[life].model_index;
    return i == 0 ? 0 : id_base_ | (i - 1);
  }
  uint64_t id_base_ = 0;  // MakeInstanceId(0)
  std::vector<LifeRun> lives_;
  std::vector<model::Event> release_event_;  // per life, EventOf
  std::vector<model::Event> create_event_;   // per life, EventOf
  std::vector<uint32_t> life_of_index_;   // model id index -> life
  std::vector<Outcome> outcomes_;
  uint64_t sequence_ = 0;
  uint64_t first_failure_sequence_ = kNone64;
  bool frag_taken_ = false;
  bool stop_ = false;
  bool reached_end_ = false;  // Run went through every step
};

}  // namespace

const char* FailureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::kInstant: return "instant failure";
    case FailureKind::kEventual: return "eventual failure";
    case FailureKind::kStalled: return "still waiting when the run released it";
    case FailureKind::kNotPlaced: return "not placed by the end";
  }
  return "?";
}

int64_t ReplayScript::TimeOf(uint64_t sequence) const {
  if (times.empty()) return 0;
  auto it = std::upper_bound(times.begin(), times.end(), sequence,
                             [](uint64_t s, const ReplayTimeMark& m) { return s < m.sequence; });
  return it == times.begin() ? times.front().time_ns : std::prev(it)->time_ns;
}

absl::StatusOr<ReplayResult> RunReplay(const ReplayScript& script,
                                       const ReplayOptions& options) {
  const uint64_t capacity = options.capacity ? options.capacity : script.capacity;
  if (capacity == 0 && !script.capacity_known)
    return absl::InvalidArgumentError("the memory's capacity is unknown (give --capacity)");
  for (const ReplayStep& step : script.steps) {
    if (step.life >= script.lives.size() ||
        (step.kind == StepKind::kRedistrict &&
         uint64_t{step.first_piece} + step.piece_count > script.lives.size()))
      return absl::InvalidArgumentError(
          "replay script: step at event " + std::to_string(EventNumber(step.sequence)) +
          " names a request that is not in the script");
  }
  ReplayResult out;
  out.policy = options.policy;
  out.capacity = capacity;
  Runner runner(script, options, capacity, &out);
  std::string error;
  if (!runner.Seed(&error)) return absl::InvalidArgumentError(error);
  runner.Run();
  runner.Finish();
  runner.TakeHighestEnd();
  return out;
}

uint64_t PeakLiveBytes(const ReplayScript& script) {
  // Compacting with room for everything: every request placed when it is
  // made, every range given back when its release is ready.
  ReplayOptions o;
  o.policy = PlacementPolicy::kCompacting;
  o.capacity = uint64_t{1} << 62;
  const absl::StatusOr<ReplayResult> r = RunReplay(script, o);
  return r.ok() ? r->peak_used : 0;
}

uint64_t AlignmentUnit(const ReplayScript& script) {
  uint64_t unit = 1;
  for (const ReplayLife& l : script.lives) unit = std::max(unit, l.alignment);
  return unit;
}

MinCapacity FindMinCapacity(const ReplayScript& script, PlacementPolicy policy,
                            int max_probes) {
  return FindMinCapacityWithLowerBound(script, policy, PeakLiveBytes(script), max_probes);
}

MinCapacity FindMinCapacityWithLowerBound(const ReplayScript& script,
                                          PlacementPolicy policy, uint64_t lower_bound,
                                          int max_probes) {
  MinCapacity m;
  m.unit = AlignmentUnit(script);
  m.lower_bound = lower_bound;
  uint64_t floor = 0;  // the base snapshot's ranges must fit
  for (uint32_t life : script.base_lives) {
    const ReplayLife& l = script.lives[life];
    if (l.size) floor = std::max(floor, l.recorded_offset + l.size);
  }
  const uint64_t u = m.unit;
  auto round_up = [u](uint64_t v) { return (v + u - 1) / u * u; };
  // Below `least` the base snapshot's ranges do not fit: it fails by
  // definition and is never replayed.
  const uint64_t least = round_up(std::max<uint64_t>(floor, 1));
  // Whether `capacity` has no failure, and the smallest capacity known to
  // replay exactly as it does (itself, or under realm its highest end).
  auto passes = [&](uint64_t capacity, uint64_t* same_from) {
    ++m.probes;
    ReplayOptions o;
    o.policy = policy;
    o.capacity = capacity;
    o.stop_at_first_failure = true;
    const absl::StatusOr<ReplayResult> r = RunReplay(script, o);
    const bool passed = r.ok() && !r->failed();
    *same_from = capacity;
    if (passed && policy == PlacementPolicy::kRealm)
      *same_from = std::min(capacity, std::max(least, round_up(r->highest_end)));
    return passed;
  };
  uint64_t lo = least - u;  // the largest capacity known to fail
  uint64_t hi = round_up(std::max({m.lower_bound, least, script.capacity}));
  uint64_t same_from = hi;
  // Upward: doubling until a capacity passes.
  while (!passes(hi, &same_from)) {
    lo = hi;
    if (m.probes >= max_probes || hi > (uint64_t{1} << 62)) {
      m.method = "no capacity up to " + std::to_string(hi) +
                 " bytes avoids every failure (" + std::to_string(m.probes) +
                 " replays)";
      return m;
    }
    hi = round_up(hi * 2);
  }
  hi = std::max(same_from, lo + u);
  // The answer is usually at the lower bound or just above: one unit below
  // it, then at it, before bisecting.
  const uint64_t bound = round_up(std::max(m.lower_bound, least));
  for (uint64_t c : {bound - u, bound}) {
    if (c > lo && c < hi) {
      if (passes(c, &same_from)) hi = std::max(same_from, lo + u);
      else lo = c;
    }
  }
  // Bisection to one unit.
  while (hi - lo > u) {
    if (m.probes >= max_probes) {
      m.method = "gave up after " + std::to_string(m.probes) + " replays between " +
                 std::to_string(lo) + " and " + std::to_string(hi) + " bytes";
      return m;
    }
    const uint64_t mid = lo + (hi - lo) / u / 2 * u;
    if (passes(mid, &same_from)) hi = std::max(same_from, lo + u);
    else lo = mid;
  }
  m.found = true;
  m.capacity = hi;
  m.method = "doubling from the run's capacity, then bisection to " +
             std::to_string(u) + " B (the largest alignment requested)" +
             (policy == PlacementPolicy::kRealm
                  ? ", a passing capacity standing for every one down to the "
                    "highest end its placements reached, "
                  : ", ") +
             std::to_string(m.probes) + " replays";
  return m;
}

}  // namespace whatif
}  // namespace realm_shadow
