// Tests of the replay engine (whatif/replay.h) on scripts built by hand and
// on scripts recorded from random runs of the model memory.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/container/flat_hash_map.h"
#include "model/model_memory.h"
#include "whatif/replay.h"
#include "whatif/report.h"

namespace realm_shadow::whatif {
namespace {

// Builds a script event by event: each call is one event of the run.
class Builder {
 public:
  explicit Builder(uint64_t capacity) { s_.capacity = capacity; }

  uint32_t Placed(uint64_t size, uint64_t offset, uint64_t alignment = 1) {
    const uint32_t life = NewLife(size, alignment);
    s_.lives[life].recorded = RecordedOutcome::kPlaced;
    s_.lives[life].recorded_offset = offset;
    s_.lives[life].recorded_sequence = seq_;
    Step(StepKind::kRequest, life);
    return life;
  }
  uint32_t Failed(uint64_t size, uint64_t alignment = 1) {
    const uint32_t life = NewLife(size, alignment);
    s_.lives[life].recorded = RecordedOutcome::kFailed;
    s_.lives[life].recorded_sequence = seq_;
    Step(StepKind::kRequest, life);
    return life;
  }
  // A request the run deferred; Completed or EventuallyFailed later.
  uint32_t Deferred(uint64_t size, uint64_t alignment = 1) {
    const uint32_t life = NewLife(size, alignment);
    Step(StepKind::kRequest, life);
    return life;
  }
  void Completed(uint32_t life, uint64_t offset) {
    s_.lives[life].recorded = RecordedOutcome::kPlaced;
    s_.lives[life].recorded_offset = offset;
    s_.lives[life].recorded_sequence = seq_;
  }
  void EventuallyFailed(uint32_t life) {
    s_.lives[life].recorded = RecordedOutcome::kFailed;
    s_.lives[life].recorded_eventual = true;
    s_.lives[life].recorded_sequence = seq_;
  }
  void Release(uint32_t life, bool ready = true) {
    s_.steps.push_back(ReplayStep::Of(StepKind::kRelease, life, seq_++, ready));
  }
  void Ready(uint32_t life) { Step(StepKind::kReleaseReady, life); }
  void Cancel(uint32_t life) { Step(StepKind::kReleaseCancelled, life); }
  uint32_t Base(uint64_t size, uint64_t offset) {
    const uint32_t life = NewLife(size, 1);
    s_.lives[life].recorded = RecordedOutcome::kLiveAtBase;
    s_.lives[life].recorded_offset = offset;
    s_.base_lives.push_back(life);
    return life;
  }
  ReplayScript& script() {
    s_.end_sequence = seq_;
    return s_;
  }
  uint64_t sequence() const { return seq_; }

 private:
  uint32_t NewLife(uint64_t size, uint64_t alignment) {
    ReplayLife l;
    l.instance = 0x4000000000000000ull | s_.lives.size();
    l.size = size;
    l.alignment = alignment;
    s_.lives.push_back(l);
    return static_cast<uint32_t>(s_.lives.size() - 1);
  }
  void Step(StepKind kind, uint32_t life) {
    s_.steps.push_back(ReplayStep::Of(kind, life, seq_++));
  }
  ReplayScript s_;
  uint64_t seq_ = 0;
};

ReplayResult Replayed(const ReplayScript& s, PlacementPolicy policy, uint64_t capacity = 0) {
  ReplayOptions o;
  o.policy = policy;
  o.capacity = capacity;
  absl::StatusOr<ReplayResult> r = RunReplay(s, o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : ReplayResult{};
}

// Holes of 250 B (first) and 150 B: first fit puts 140 B in the first and
// the 250 B request after it fails; best fit keeps the large hole whole.
Builder FragmentedRun() {
  Builder b(1000);
  b.Placed(100, 0);
  const uint32_t hole1 = b.Placed(250, 100);
  b.Placed(150, 350);
  const uint32_t hole2 = b.Placed(150, 500);
  b.Placed(100, 650);
  b.Placed(250, 750);
  b.Release(hole1);
  b.Release(hole2);
  b.Placed(140, 100);
  b.Failed(250);
  return b;
}

TEST(Replay, RealmReproducesTheRunAndBestFitAvoidsItsFailure) {
  Builder b = FragmentedRun();
  const ReplayResult realm = Replayed(b.script(), PlacementPolicy::kRealm);
  EXPECT_EQ(realm.self_check.checked, 7u);
  EXPECT_EQ(realm.self_check.as_recorded, 7u);
  EXPECT_EQ(realm.self_check.difference_count, 0u);
  ASSERT_EQ(realm.failures.size(), 1u);
  EXPECT_EQ(realm.failures[0].kind, FailureKind::kInstant);
  EXPECT_EQ(realm.failures[0].life, 7u);
  EXPECT_EQ(realm.failures[0].sequence, 9u);
  EXPECT_EQ(realm.recorded_failures, 1u);
  EXPECT_EQ(realm.recorded_failures_avoided, 0u);
  EXPECT_EQ(realm.peak_used, 1000u);
  // Largest hole 150 (the second hole) against 250.
  EXPECT_EQ(realm.peak_hole_deficit, 100u);
  // Before the failing request: free 110 + 150, largest 150.
  EXPECT_NEAR(realm.fragmentation_at_recorded_failure, 1.0 - 150.0 / 260.0, 1e-9);

  const ReplayResult best = Replayed(b.script(), PlacementPolicy::kBestFit);
  EXPECT_FALSE(best.failed());
  EXPECT_EQ(best.recorded_failures_avoided, 1u);
  EXPECT_EQ(best.placed_at[6], 500u);
  EXPECT_EQ(best.placed_at[7], 100u);
  EXPECT_EQ(best.self_check.difference_count, 1u);  // the 140 B moved

  EXPECT_FALSE(Replayed(b.script(), PlacementPolicy::kCompacting).failed());
  EXPECT_EQ(PeakLiveBytes(b.script()), 1000u);
}

// A failure a log cannot tell from a cancellation (Realm refused it, or
// never asked): not one of the run's failures, so a policy that places it
// avoided nothing the log states, and the replay's failure of it is counted
// apart.
TEST(Replay, AFailureMaybeCancelledIsNotOneOfTheRunsFailures) {
  Builder b = FragmentedRun();
  b.script().lives[7].recorded_maybe_cancelled = true;
  const ReplayResult realm = Replayed(b.script(), PlacementPolicy::kRealm);
  EXPECT_EQ(realm.recorded_failures, 0u);
  EXPECT_EQ(realm.recorded_maybe_cancelled, 1u);
  ASSERT_EQ(realm.failures.size(), 1u);
  EXPECT_EQ(realm.failures_of_maybe_cancelled, 1u);
  EXPECT_EQ(realm.maybe_cancelled_placed, 0u);
  const ReplayResult best = Replayed(b.script(), PlacementPolicy::kBestFit);
  EXPECT_EQ(best.recorded_failures_avoided, 0u);
  EXPECT_EQ(best.maybe_cancelled_placed, 1u);
  EXPECT_EQ(best.failures_of_maybe_cancelled, 0u);
}

// The smallest capacity, checked at it and one unit below, for each policy.
TEST(Replay, MinCapacityHasNoFailureAndOneUnitBelowHasOne) {
  Builder b = FragmentedRun();
  const ReplayScript& s = b.script();
  const MinCapacity realm = FindMinCapacity(s, PlacementPolicy::kRealm);
  ASSERT_TRUE(realm.found) << realm.method;
  EXPECT_EQ(realm.capacity, 1250u);  // the 250 B request in the tail
  EXPECT_EQ(realm.unit, 1u);
  EXPECT_EQ(realm.lower_bound, 1000u);
  for (PlacementPolicy p : model::kAllPlacementPolicies) {
    const MinCapacity m = FindMinCapacity(s, p);
    ASSERT_TRUE(m.found) << PlacementPolicyName(p) << ": " << m.method;
    EXPECT_GE(m.capacity, m.lower_bound) << PlacementPolicyName(p);
    EXPECT_FALSE(Replayed(s, p, m.capacity).failed()) << PlacementPolicyName(p);
    EXPECT_TRUE(Replayed(s, p, m.capacity - m.unit).failed()) << PlacementPolicyName(p);
  }
  EXPECT_EQ(FindMinCapacity(s, PlacementPolicy::kBestFit).capacity, 1000u);
  EXPECT_EQ(FindMinCapacity(s, PlacementPolicy::kCompacting).capacity, 1000u);
}

TEST(Replay, DeferredRequestCompletesWhenItsReleaseIsReady) {
  Builder b(1000);
  const uint32_t a = b.Placed(600, 0);
  b.Placed(400, 600);
  b.Release(a, /*ready=*/false);
  const uint32_t c = b.Deferred(500);
  b.Ready(a);
  b.Completed(c, 0);
  const ReplayResult r = Replayed(b.script(), PlacementPolicy::kRealm);
  EXPECT_FALSE(r.failed());
  EXPECT_EQ(r.self_check.as_recorded, 3u);
  EXPECT_EQ(r.self_check.checked, 3u);
  // It did not fit at once: 500 against no hole at all.
  EXPECT_EQ(r.peak_hole_deficit, 500u);
}

TEST(Replay, PoisonedReleaseFailsTheRequestThatCountedOnIt) {
  Builder b(1000);
  const uint32_t a = b.Placed(600, 0);
  b.Placed(400, 600);
  b.Release(a, false);
  const uint32_t c = b.Deferred(500);
  b.Cancel(a);
  b.EventuallyFailed(c);
  const ReplayResult r = Replayed(b.script(), PlacementPolicy::kRealm);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].kind, FailureKind::kEventual);
  EXPECT_EQ(r.failures[0].sequence, 4u);  // the poisoning
  // With room for it at once there is nothing to wait for.
  EXPECT_FALSE(Replayed(b.script(), PlacementPolicy::kRealm, 1500).failed());
}

// A request the run had placed and the replay still holds back when the
// run releases it is a failure: the program was using it.
TEST(Replay, ARequestStillWaitingAtItsReleaseIsStalled) {
  Builder b(1000);
  const uint32_t a = b.Placed(600, 0);
  b.Release(a, false);
  const uint32_t c = b.Placed(400, 600);
  b.Release(c);
  b.Ready(a);
  ReplayResult r = Replayed(b.script(), PlacementPolicy::kRealm, 900);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].kind, FailureKind::kStalled);
  EXPECT_EQ(r.failures[0].life, c);
  EXPECT_FALSE(Replayed(b.script(), PlacementPolicy::kRealm).failed());
}

// A request the run failed that the replay still holds back at the end
// was never served either: a failure, not an avoided one (compacting below
// the live bytes leaves requests waiting so).
TEST(Replay, ARequestTheRunFailedStillWaitingAtTheEndIsNotPlaced) {
  Builder b(1000);
  const uint32_t a = b.Placed(1000, 0);
  b.Release(a, false);  // never ready
  const uint32_t c = b.Failed(500);
  for (PlacementPolicy p : model::kAllPlacementPolicies) {
    const ReplayResult r = Replayed(b.script(), p);
    ASSERT_EQ(r.failures.size(), 1u) << PlacementPolicyName(p);
    EXPECT_EQ(r.failures[0].kind, FailureKind::kNotPlaced) << PlacementPolicyName(p);
    EXPECT_EQ(r.failures[0].life, c);
    EXPECT_EQ(r.recorded_failures_avoided, 0u);
    // Named by the end, not by an event past the last.
    const std::string first = FormatFirstFailure(b.script(), r);
    EXPECT_EQ(first.rfind("the end, after event " + std::to_string(b.script().end_sequence) + ":", 0), 0u)
        << first;
  }
}

TEST(Replay, StartsFromTheBaseSnapshot) {
  Builder b(1000);
  const uint32_t x = b.Base(300, 100);
  b.Base(200, 600);
  const uint32_t c = b.Placed(100, 0);
  b.Release(x);
  b.Placed(350, 100);
  (void)c;
  const ReplayResult r = Replayed(b.script(), PlacementPolicy::kRealm);
  EXPECT_EQ(r.self_check.checked, 2u);
  EXPECT_EQ(r.self_check.as_recorded, 2u);
  ReplayOptions o;
  o.capacity = 700;  // the base range [600, 800) does not fit
  const absl::Status small = RunReplay(b.script(), o).status();
  EXPECT_TRUE(absl::IsInvalidArgument(small)) << small;
  EXPECT_NE(small.message().find("base snapshot"), std::string::npos) << small;
}

TEST(Replay, TheMapAtAMomentIsTheCurrentHeapThen) {
  Builder b = FragmentedRun();
  ReplayOptions o;
  o.policy = PlacementPolicy::kBestFit;
  o.map_before_sequence = 9;  // the failed request's event
  const absl::StatusOr<ReplayResult> replayed = RunReplay(b.script(), o);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  const ReplayResult& r = *replayed;
  ASSERT_TRUE(r.map_taken);
  ASSERT_EQ(r.map_at.size(), 5u);
  EXPECT_EQ(r.map_at[2].offset, 500u);  // the 140 B in the small hole
  EXPECT_EQ(r.map_at[2].life, 6u);
  EXPECT_EQ(r.map_free_bytes, 260u);
}

// Deferral from a base snapshot: the model seeds only its current heap and
// builds the future heap from it when the first request is deferred, so
// the plans see the base's ranges: the one that stays leaves no room for a
// third request, which fails at once, as in the run.
TEST(Replay, DeferralFromTheBaseSnapshot) {
  Builder b(1000);
  const uint32_t x = b.Base(400, 0);
  const uint32_t y = b.Base(300, 400);
  b.Base(300, 700);  // stays
  b.Release(x, /*ready=*/false);
  b.Release(y, /*ready=*/false);
  const uint32_t c = b.Deferred(350);  // planned at 0, once x and y go
  const uint32_t d = b.Deferred(250);  // planned at 350
  const uint32_t e = b.Failed(300);    // 100 B left in the future
  b.Ready(x);
  b.Ready(y);
  b.Completed(c, 0);
  b.Completed(d, 350);
  for (PlacementPolicy p : {PlacementPolicy::kRealm, PlacementPolicy::kBestFit}) {
    const ReplayResult r = Replayed(b.script(), p);
    EXPECT_EQ(r.placed_at[c], 0u) << PlacementPolicyName(p);
    EXPECT_EQ(r.placed_at[d], 350u) << PlacementPolicyName(p);
    EXPECT_EQ(r.placed_at[e], kNone64) << PlacementPolicyName(p);
    ASSERT_EQ(r.failures.size(), 1u) << PlacementPolicyName(p);
    EXPECT_EQ(r.failures[0].life, e);
    EXPECT_EQ(r.failures[0].kind, FailureKind::kInstant);
  }
}

TEST(Replay, BadScriptsAreRefused) {
  Builder b(1000);
  b.Placed(10, 0);
  ReplayScript s = b.script();
  s.steps.push_back({StepKind::kRelease, true, 5, 0, 0, 1});
  const absl::Status stray = RunReplay(s, ReplayOptions{}).status();
  EXPECT_NE(stray.message().find("not in the script"), std::string::npos) << stray;
  ReplayScript unknown = b.script();
  unknown.capacity = 0;
  unknown.capacity_known = false;
  const absl::Status no_capacity = RunReplay(unknown, ReplayOptions{}).status();
  EXPECT_NE(no_capacity.message().find("capacity"), std::string::npos) << no_capacity;
}

// ---- scripts recorded from random model runs ---------------------------------

// Drives a model memory (Realm placement) at random with deferred destroys,
// poisoned ones and creation preconditions, and records the same steps and
// outcomes into a script, as a compiled history would hold them.
ReplayScript RecordRandomRun(uint64_t seed, uint64_t capacity, int ops) {
  ReplayScript s;
  s.capacity = capacity;
  model::ModelMemoryOptions mo;
  mo.shadowed = false;
  model::ModelMemory m(0x1e00000000000000ull, REALM_SHADOW_MEM_SYSTEM, capacity, "r", mo);
  std::mt19937_64 rng(seed);
  uint64_t seq = 0;
  absl::flat_hash_map<uint64_t, uint32_t> life_of;  // model id -> life
  std::vector<uint32_t> live;
  struct Waiting {
    uint32_t life;
    model::Event e;
    bool create;
  };
  std::vector<Waiting> waiting;
  bool creating = false;  // Create's own outcome comes from its result
  m.set_outcome_observer([&](uint64_t inst, model::AllocationResult res, uint64_t off) {
    if (creating) return;
    auto it = life_of.find(inst);
    if (it == life_of.end()) return;
    ReplayLife& l = s.lives[it->second];
    if (res == model::AllocationResult::kInstantSuccess ||
        res == model::AllocationResult::kEventualSuccess) {
      l.recorded = RecordedOutcome::kPlaced;
      l.recorded_offset = off;
      l.recorded_sequence = seq;
      live.push_back(it->second);
    } else if (res == model::AllocationResult::kInstantFailure ||
               res == model::AllocationResult::kEventualFailure) {
      l.recorded = RecordedOutcome::kFailed;
      l.recorded_sequence = seq;
    } else if (res == model::AllocationResult::kCancelled) {
      l.recorded = RecordedOutcome::kCancelled;
    }
  });
  auto step = [&](StepKind k, uint32_t life, bool ready = false) {
    s.steps.push_back(ReplayStep::Of(k, life, seq, ready));
  };
  for (int i = 0; i < ops; ++i, ++seq) {
    const uint64_t r = rng() % 100;
    if (r < 45 || live.empty()) {
      ReplayLife l;
      l.size = 1 + rng() % (capacity / 16);
      l.alignment = uint64_t{1} << (rng() % 7);
      const uint32_t life = static_cast<uint32_t>(s.lives.size());
      s.lives.push_back(l);
      const bool wait = rng() % 8 == 0;
      const model::Event e = wait ? m.NewEvent() : model::kNoEvent;
      step(wait ? StepKind::kRequestWaits : StepKind::kRequest, life);
      creating = true;
      auto res = m.Create(l.size, l.alignment, e);
      creating = false;
      life_of[res.instance] = life;
      s.lives[life].instance = res.instance;
      if (res.result == model::AllocationResult::kInstantSuccess) {
        s.lives[life].recorded = RecordedOutcome::kPlaced;
        s.lives[life].recorded_offset = res.offset;
        s.lives[life].recorded_sequence = seq;
        live.push_back(life);
      } else if (res.result == model::AllocationResult::kInstantFailure) {
        s.lives[life].recorded = RecordedOutcome::kFailed;
        s.lives[life].recorded_sequence = seq;
      }
      if (wait) waiting.push_back({life, e, true});
    } else if (r < 80) {
      const size_t k = rng() % live.size();
      const uint32_t life = live[k];
      live.erase(live.begin() + static_cast<long>(k));
      const bool ready = rng() % 3 != 0;
      const model::Event e = ready ? model::kNoEvent : m.NewEvent();
      step(StepKind::kRelease, life, ready);
      m.Destroy(s.lives[life].instance, e);
      if (!ready) waiting.push_back({life, e, false});
    } else if (!waiting.empty()) {
      const size_t k = rng() % waiting.size();
      const Waiting w = waiting[k];
      waiting.erase(waiting.begin() + static_cast<long>(k));
      const bool poison = rng() % 6 == 0;
      step(w.create ? (poison ? StepKind::kRequestCancelled : StepKind::kRequestEnters)
                    : (poison ? StepKind::kReleaseCancelled : StepKind::kReleaseReady),
           w.life);
      if (poison) m.Poison(w.e);
      else m.Trigger(w.e);
      if (poison && !w.create) live.push_back(w.life);  // the destroy is cancelled
    }
  }
  s.end_sequence = seq;
  return s;
}

// The replay of a recorded model run under realm at its capacity places
// every request where the run did: the self-check of the engine itself.
TEST(Replay, RandomModelRunsReplayExactlyUnderRealm) {
  uint64_t failed = 0, deferred = 0, waited = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const ReplayScript s = RecordRandomRun(seed, 1 << 16, 600);
    for (const ReplayStep& st : s.steps) {
      const ReplayLife& l = s.lives[st.life];
      waited += st.kind == StepKind::kRequestEnters;
      if (st.kind == StepKind::kRequest && l.recorded == RecordedOutcome::kPlaced &&
          l.recorded_sequence > st.sequence)
        ++deferred;
    }
    const ReplayResult r = Replayed(s, PlacementPolicy::kRealm);
    EXPECT_GT(r.self_check.checked, 100u) << seed;
    EXPECT_EQ(r.self_check.difference_count, 0u) << "seed " << seed;
    uint64_t recorded_failures = 0;
    for (const ReplayLife& l : s.lives) recorded_failures += l.recorded == RecordedOutcome::kFailed;
    uint64_t replay_failures = 0;
    for (const ReplayFailure& f : r.failures)
      replay_failures += f.kind == FailureKind::kInstant || f.kind == FailureKind::kEventual;
    EXPECT_EQ(replay_failures, recorded_failures) << "seed " << seed;
    failed += recorded_failures;
  }
  // The runs exercise what the deferral rules are for.
  EXPECT_GT(failed, 20u);
  EXPECT_GT(deferred, 20u);
  EXPECT_GT(waited, 20u);
}

// What the capacity search counts on under realm: a replay at any capacity
// from the highest end its placements reached up to its own decides every
// step the same (placements, failures and their events), deferrals and
// reorderings included.
TEST(Replay, RealmReplaysTheSameDownToItsHighestEnd) {
  uint64_t below_capacity = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const ReplayScript s = RecordRandomRun(seed, 1 << 16, 600);
    for (uint64_t capacity : {s.capacity, 2 * s.capacity}) {
      const ReplayResult r = Replayed(s, PlacementPolicy::kRealm, capacity);
      ASSERT_GT(r.highest_end, 0u);
      ASSERT_LE(r.highest_end, capacity);
      below_capacity += r.highest_end < capacity;
      for (uint64_t same : {r.highest_end, (r.highest_end + capacity) / 2}) {
        const ReplayResult q = Replayed(s, PlacementPolicy::kRealm, same);
        EXPECT_EQ(q.placed_at, r.placed_at) << "seed " << seed << " at " << same;
        ASSERT_EQ(q.failures.size(), r.failures.size()) << "seed " << seed << " at " << same;
        for (size_t i = 0; i < q.failures.size(); ++i) {
          EXPECT_EQ(q.failures[i].life, r.failures[i].life);
          EXPECT_EQ(q.failures[i].kind, r.failures[i].kind);
          EXPECT_EQ(q.failures[i].sequence, r.failures[i].sequence);
        }
        EXPECT_EQ(q.highest_end, r.highest_end);
      }
    }
  }
  EXPECT_GT(below_capacity, 20u);  // the bracket does drop
}

TEST(Replay, RandomRunsMinCapacityIsVerifiedAtItAndOneUnitBelow) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const ReplayScript s = RecordRandomRun(seed, 1 << 15, 300);
    for (PlacementPolicy p : model::kAllPlacementPolicies) {
      const MinCapacity m = FindMinCapacity(s, p);
      ASSERT_TRUE(m.found) << m.method;
      EXPECT_FALSE(Replayed(s, p, m.capacity).failed()) << PlacementPolicyName(p) << " " << seed;
      if (m.capacity > m.unit)
        EXPECT_TRUE(Replayed(s, p, m.capacity - m.unit).failed())
            << PlacementPolicyName(p) << " seed " << seed << " at " << m.capacity;
    }
  }
}

}  // namespace
}  // namespace realm_shadow::whatif
