// Heap observation against the model memory, Realm's stand-in.  The model
// runs Realm's deferral algorithm over three heaps; with observe_heaps it
// reports as a real integration does (realm_sites.h): observers on the
// current and future heaps, the entry sites of the allocation functions,
// notify_allocation's outcomes.  The shadow built from that must equal the
// model's own state after every operation:
//  - live allocations: exactly the current heap's ranges, with each
//    instance's release state;
//  - pending requests: exactly the requests not placed yet (deferred,
//    waiting on a precondition, pieces of a queued redistrict), each at the
//    offset the future heap plans for it when it has a plan;
//  - failures: the instant and eventual failures the model reported;
//  - no anomaly.
// And it must agree with the shadow the decision hooks build (the model's
// other mode) on everything both can know.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/numbers.h"
#include "model/model_memory.h"
#include "testing/script.h"
#include "realm_shadow/live/snapshots.h"

namespace realm_shadow::model {
namespace {

constexpr uint64_t kObserved = 0x1e00000000000000ull;
constexpr uint64_t kDecided = 0x1e00000000000003ull;

ModelMemoryOptions Observing(EventTable* events) {
  ModelMemoryOptions o;
  o.events = events;
  o.observe_heaps = true;
  return o;
}
ModelMemoryOptions Deciding(EventTable* events) {
  ModelMemoryOptions o;
  o.events = events;
  return o;
}

AllocationState ExpectedState(InstanceState s) {
  switch (s) {
    case InstanceState::kReleasePending: return AllocationState::kReleasePending;
    case InstanceState::kReleaseReady: return AllocationState::kReleaseReady;
    default: return AllocationState::kLive;
  }
}

// Compares the shadow of a model with the model itself; returns "" when
// they agree, else what differs.  `decisions`: the shadow came from the
// decision hooks, whose planned offsets are the first plan (not Realm's
// latest) and whose failure count includes cancellations: those two are not
// compared.
std::string CompareWithModel(const ModelMemory& m, const Snapshot& s,
                             bool decisions = false) {
  std::ostringstream why;
  // Live allocations: exactly what the current heap holds.
  std::map<uint64_t, std::tuple<uint64_t, uint64_t, int>> want_live;
  for (const InstanceView& v : m.current_contents())
    want_live[v.instance] = {v.offset, v.size,
                             static_cast<int>(ExpectedState(v.state))};
  // Pending: requests not placed yet.  An instance whose record says it was
  // placed although the current heap does not hold it is Realm's own
  // bookkeeping gone astray (current_contents()); what the shadow says of
  // it as a request is not compared.
  std::set<uint64_t> want_pending, unknowable;
  for (const InstanceView& v : m.Instances()) {
    if (v.holds_range) continue;
    if (v.state == InstanceState::kPending ||
        v.state == InstanceState::kPendingPiece ||
        v.state == InstanceState::kAwaitingCreate)
      want_pending.insert(v.instance);
    else if (v.state != InstanceState::kFailed)
      unknowable.insert(v.instance);
  }
  // An id may name an old record and a new request at once (Realm reuses
  // ids): the new request decides.
  for (uint64_t i : want_pending) unknowable.erase(i);
  std::map<uint64_t, std::tuple<uint64_t, uint64_t, int>> got_live;
  for (const Allocation& a : s.allocations)
    got_live[a.instance] = {a.offset, a.size, static_cast<int>(a.state)};
  for (const auto& [instance, w] : want_live) {
    auto it = got_live.find(instance);
    if (it == got_live.end()) {
      why << "missing live 0x" << std::hex << instance << std::dec << " at "
          << std::get<0>(w) << "; ";
    } else if (it->second != w) {
      why << "live 0x" << std::hex << instance << std::dec << " is ("
          << std::get<0>(it->second) << "," << std::get<1>(it->second) << ","
          << std::get<2>(it->second) << ") want (" << std::get<0>(w) << ","
          << std::get<1>(w) << "," << std::get<2>(w) << "); ";
    }
  }
  for (const auto& [instance, g] : got_live)
    if (!want_live.count(instance))
      why << "extra live 0x" << std::hex << instance << std::dec << " at "
          << std::get<0>(g) << "; ";
  // Pending requests and their plans.
  std::set<uint64_t> got_pending;
  for (const PendingRequest& p : s.pending) {
    if (unknowable.count(p.instance)) continue;
    got_pending.insert(p.instance);
    const std::optional<uint64_t> plan = m.PlannedOffset(p.instance);
    const InstanceState state = m.State(p.instance);
    // A deferred request is always planned in the future heap, and the
    // shadow must show that plan; a waiting one has none.
    if (!decisions && state == InstanceState::kPending &&
        (plan ? p.planned_offset != *plan : p.planned_offset != kNoOffset))
      why << "pending 0x" << std::hex << p.instance << std::dec
          << " planned at " << p.planned_offset << " want "
          << (plan ? std::to_string(*plan) : "none") << "; ";
    if (state == InstanceState::kAwaitingCreate && p.planned_offset != kNoOffset)
      why << "waiting 0x" << std::hex << p.instance << std::dec
          << " has a plan; ";
  }
  if (got_pending != want_pending) {
    why << "pending set differs (" << got_pending.size() << " vs "
        << want_pending.size() << "):";
    for (uint64_t i : want_pending)
      if (!got_pending.count(i))
        why << " missing 0x" << std::hex << i << std::dec << " ("
            << InstanceStateName(m.State(i)) << ")";
    for (uint64_t i : got_pending)
      if (!want_pending.count(i))
        why << " extra 0x" << std::hex << i << std::dec << " ("
            << InstanceStateName(m.State(i)) << ")";
    why << "; ";
  }
  // Failures and anomalies.
  const uint64_t want_failures =
      m.outcome_count(AllocationResult::kInstantFailure) +
      m.outcome_count(AllocationResult::kEventualFailure);
  if (!decisions && s.counters.failures != want_failures)
    why << "failures " << s.counters.failures << " want " << want_failures
        << "; ";
  if (!s.anomalies.empty())
    why << s.anomalies.size() << " anomalies, first "
        << AnomalyKindName(s.anomalies.front().kind) << " 0x" << std::hex
        << s.anomalies.front().instance << std::dec << "; ";
  return why.str();
}

// An instance id without its memory-index bits (29-22): the two memories
// of a test have different indices and otherwise the same ids.
uint64_t SameIn(uint64_t instance) { return instance & ~(uint64_t{0xff} << 22); }

// What the two ways of reporting must agree on.
std::string CompareModes(const Snapshot& observed, const Snapshot& decided) {
  std::ostringstream why;
  auto live = [](const Snapshot& s) {
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t, int>> out;
    for (const Allocation& a : s.allocations)
      out.emplace_back(a.offset, SameIn(a.instance), a.size,
                       static_cast<int>(a.state));
    std::sort(out.begin(), out.end());
    return out;
  };
  auto pending = [](const Snapshot& s) {
    std::set<uint64_t> out;
    for (const PendingRequest& p : s.pending) out.insert(SameIn(p.instance));
    return out;
  };
  if (live(observed) != live(decided)) {
    why << "live allocations differ:";
    const auto a = live(observed), b = live(decided);
    for (const auto& x : a)
      if (std::find(b.begin(), b.end(), x) == b.end())
        why << " observed-only (" << std::get<0>(x) << ",0x" << std::hex
            << std::get<1>(x) << std::dec << "," << std::get<2>(x) << ","
            << std::get<3>(x) << ")";
    for (const auto& x : b)
      if (std::find(a.begin(), a.end(), x) == a.end())
        why << " decided-only (" << std::get<0>(x) << ",0x" << std::hex
            << std::get<1>(x) << std::dec << "," << std::get<2>(x) << ","
            << std::get<3>(x) << ")";
    why << "; ";
  }
  if (pending(observed) != pending(decided)) why << "pending requests differ; ";
  return why.str();
}

class HeapObserverModel : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetTrackerForTesting();
    observed_ = std::make_unique<ModelMemory>(
        kObserved, REALM_SHADOW_MEM_SYSTEM, 1024, "observed", Observing(&events_));
    decided_ = std::make_unique<ModelMemory>(
        kDecided, REALM_SHADOW_MEM_SYSTEM, 1024, "decided", Deciding(&events_));
  }
  void TearDown() override { ResetTrackerForTesting(); }

  // Runs op on both memories (they see the same events).  Instance ids
  // the op keeps are the observed memory's; In(m, id) gives m's.
  template <typename Op>
  void Both(Op op) {
    op(*observed_);
    op(*decided_);
  }
  static uint64_t In(const ModelMemory& m, uint64_t instance) {
    return SameIn(instance) | ((m.memory_id() & 0xff) << 22);
  }
  void Check(const std::string& step) {
    const Snapshot o = TakeSnapshot(observed_->shadow_handle());
    const Snapshot d = TakeSnapshot(decided_->shadow_handle());
    EXPECT_EQ(CompareWithModel(*observed_, o), "") << step;
    EXPECT_EQ(CompareWithModel(*decided_, d, true), "") << step;
    EXPECT_EQ(CompareModes(o, d), "") << step;
  }

  EventTable events_;
  std::unique_ptr<ModelMemory> observed_, decided_;
};

TEST_F(HeapObserverModel, DeferredRequestIsPlannedThenPlaced) {
  const Event e = events_.NewEvent();
  uint64_t a = 0, b = 0;
  Both([&](ModelMemory& m) { a = m.Create(600, 32).instance; });
  Both([&](ModelMemory& m) { m.Destroy(In(m, a), e); });
  Check("destroy queued");
  Both([&](ModelMemory& m) {
    const CreateResult r = m.Create(800, 32);
    EXPECT_EQ(r.result, AllocationResult::kDeferred);
    b = r.instance;
  });
  Check("request deferred");
  const Snapshot before = TakeSnapshot(observed_->shadow_handle());
  ASSERT_EQ(before.pending.size(), 1u);
  EXPECT_EQ(before.pending[0].instance, In(*observed_, b));
  EXPECT_EQ(before.pending[0].planned_offset, 0u);  // where the release frees
  events_.Trigger(e);
  Check("release fired");
  const Snapshot after = TakeSnapshot(observed_->shadow_handle());
  ASSERT_EQ(after.allocations.size(), 1u);
  EXPECT_EQ(after.allocations[0].instance, In(*observed_, b));
  EXPECT_TRUE(after.allocations[0].flags & kWasDeferred);
}

TEST_F(HeapObserverModel, PoisonedReleaseFailsTheRequestThatCountedOnIt) {
  const Event e = events_.NewEvent();
  uint64_t a = 0;
  Both([&](ModelMemory& m) { a = m.Create(600, 32).instance; });
  Both([&](ModelMemory& m) { m.Destroy(In(m, a), e); });
  Both([&](ModelMemory& m) { m.Create(800, 32); });
  Check("deferred");
  events_.Poison(e);
  Check("poisoned");
  const Snapshot s = TakeSnapshot(observed_->shadow_handle());
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_TRUE(s.failures[0].eventual);
  EXPECT_EQ(s.failures[0].size, 800u);
  ASSERT_EQ(s.allocations.size(), 1u);
  EXPECT_EQ(s.allocations[0].state, AllocationState::kLive);  // release cancelled
}

TEST_F(HeapObserverModel, ReadyReleaseIsReorderedAheadOfAnOlderOne) {
  const Event slow = events_.NewEvent(), fast = events_.NewEvent();
  uint64_t a = 0, b = 0;
  Both([&](ModelMemory& m) {
    a = m.Create(400, 32).instance;
    b = m.Create(400, 32).instance;
  });
  Both([&](ModelMemory& m) {
    m.Destroy(In(m, a), slow);
    m.Destroy(In(m, b), fast);
    m.Create(300, 32);  // deferred behind both releases
  });
  Check("two releases queued, one request deferred");
  events_.Trigger(fast);  // the younger release is ready first: a reordering
  Check("reordered");
  events_.Trigger(slow);
  Check("all applied");
}

TEST_F(HeapObserverModel, RedistrictsImmediateAndDeferred) {
  uint64_t a = 0, c = 0;
  Both([&](ModelMemory& m) { a = m.Create(900, 32).instance; });
  Both([&](ModelMemory& m) {
    const RedistrictResult r =
        m.Redistrict(In(m, a), {{300, 32}, {400, 64}, {500, 32}});  // the last fails
    EXPECT_EQ(r.placed, 2u);
  });
  Check("immediate redistrict");
  const Event e = events_.NewEvent();
  Both([&](ModelMemory& m) {
    const auto views = m.Instances();
    for (const InstanceView& v : views)
      if (v.holds_range && v.size == 300) c = v.instance;
    m.Redistrict(In(m, c), {{100, 32}, {150, 32}}, e);
  });
  Check("redistrict waiting: pieces are pending");
  const Snapshot waiting = TakeSnapshot(observed_->shadow_handle());
  EXPECT_EQ(waiting.pending.size(), 2u);
  events_.Trigger(e);
  Check("redistrict applied");
}

TEST_F(HeapObserverModel, CreationWaitingOnItsPreconditionIsPendingWithoutPlan) {
  const Event e = events_.NewEvent();
  Both([&](ModelMemory& m) { m.Create(100, 32, e); });
  Check("waiting");
  const Snapshot s = TakeSnapshot(observed_->shadow_handle());
  ASSERT_EQ(s.pending.size(), 1u);
  EXPECT_EQ(s.pending[0].planned_offset, kNoOffset);
  events_.Trigger(e);
  Check("placed");
  EXPECT_EQ(TakeSnapshot(observed_->shadow_handle()).allocations.size(), 1u);
}

TEST_F(HeapObserverModel, ReusedIdsAreNewAllocations) {
  for (int round = 0; round < 3; ++round) {
    uint64_t a = 0;
    Both([&](ModelMemory& m) { a = m.Create(100 + round, 32).instance; });
    Check("created");
    Both([&](ModelMemory& m) { m.Destroy(In(m, a)); });
    Check("destroyed");
  }
}

// Random operations on both memories; after each one, the observed shadow
// equals the model and agrees with the decided one.  Sizes are drawn so
// that requests often do not fit and wait, and events fire out of order,
// which exercises deferral, reordering, poisoned releases and redistricts.
TEST_F(HeapObserverModel, RandomOperationsKeepTheShadowExact) {
  size_t steps = 0, decisions_wrong = 0, stranded = 0, collided = 0;
  std::set<uint32_t> decisions_wrong_seeds;
  for (uint32_t seed = 1; seed <= 80; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ResetTrackerForTesting();
    EventTable events;
    ModelMemory observed(kObserved, REALM_SHADOW_MEM_SYSTEM, 4096, "observed",
                         Observing(&events));
    ModelMemory decided(kDecided, REALM_SHADOW_MEM_SYSTEM, 4096, "decided",
                        Deciding(&events));
    std::mt19937 rng(seed);
    std::vector<Event> open_events;
    std::vector<uint64_t> instances;  // the observed memory's ids
    auto other = [](uint64_t instance) {  // the same instance in `decided`
      return SameIn(instance) | (uint64_t{3} << 22);
    };
    auto pick = [&](size_t n) {
      return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
    };
    auto maybe_event = [&]() -> Event {
      if (pick(3) != 0) return kNoEvent;
      const Event e = events.NewEvent();
      open_events.push_back(e);
      return e;
    };
    for (int step = 0; step < 300; ++step) {
      const size_t op = pick(10);
      std::string what;
      if (op < 4) {
        const uint64_t size = 64 * (1 + pick(12));
        const uint64_t align = uint64_t{32} << pick(3);
        const Event pre = pick(6) == 0 ? maybe_event() : kNoEvent;
        const uint64_t a = observed.Create(size, align, pre).instance;
        const uint64_t b = decided.Create(size, align, pre).instance;
        ASSERT_EQ(SameIn(a), SameIn(b));
        if (a) instances.push_back(a);
        what = "create " + std::to_string(size) + " align " + std::to_string(align) +
               (pre ? " pre" : "") + " -> " + std::to_string(a & 0xff);
      } else if (op < 7 && !instances.empty()) {
        const size_t i = pick(instances.size());
        const Event after = maybe_event();
        observed.Destroy(instances[i], after);
        decided.Destroy(other(instances[i]), after);
        what = "destroy " + std::to_string(instances[i] & 0xff) + (after ? " after" : "");
        instances.erase(instances.begin() + static_cast<long>(i));
      } else if (op < 8 && !instances.empty()) {
        const uint64_t old = instances[pick(instances.size())];
        std::vector<PieceRequest> pieces;
        const size_t n = 1 + pick(3);
        for (size_t k = 0; k < n; ++k) pieces.push_back({32 * (1 + pick(8)), 32});
        const Event after = maybe_event();
        const RedistrictResult ro = observed.Redistrict(old, pieces, after);
        const RedistrictResult rd = decided.Redistrict(other(old), pieces, after);
        ASSERT_EQ(ro.instances.size(), rd.instances.size());
        for (uint64_t p : ro.instances) instances.push_back(p);
        what = "redistrict " + std::to_string(old & 0xff) + (after ? " after" : "") + " ->";
        for (uint64_t p : ro.instances) what += " " + std::to_string(p & 0xff);
      } else if (!open_events.empty()) {
        const size_t i = pick(open_events.size());
        const Event e = open_events[i];
        open_events.erase(open_events.begin() + static_cast<long>(i));
        const bool poison = pick(5) == 0;
        if (poison) events.Poison(e); else events.Trigger(e);
        what = poison ? "poison" : "trigger";
      } else {
        continue;
      }
      // Realm frees an id when its destroy is acknowledged, even while the
      // range waits behind pending work, so a new instance can get the id of
      // one whose range is still in the current heap.  When the model then
      // places the new one, its heap (keyed by a private key) holds both;
      // Realm's, keyed by instance id, cannot: the second placement
      // overwrites the first's entry.  That state has no Realm meaning to
      // compare against; the shadow reports it as a duplicate instance.
      {
        std::set<uint64_t> ids;
        bool twice = false;
        for (const InstanceView& v : observed.current_contents())
          twice |= !ids.insert(v.instance).second;
        if (twice) {
          ++collided;
          break;
        }
      }
      const Snapshot o = TakeSnapshot(observed.shadow_handle());
      const Snapshot d = TakeSnapshot(decided.shadow_handle());
      ASSERT_EQ(CompareWithModel(observed, o), "")
          << "step " << step << " (" << what << ")";
      ++steps;
      // Past a poisoned release that drops ready releases from Realm's
      // release heap (ModelMemory::current_contents), the current heap can
      // hold ranges whose instance ids have been reused.  Realm's heap is
      // keyed by instance id and the model's by a private key, so the two no
      // longer describe the same heap: the rest of this seed is not Realm's
      // behaviour to check against.
      if (observed.ready_releases_dropped() > 0) {
        ++stranded;
        break;
      }
      // The decision hooks lose track where an id is reused while its old
      // range is still held (a ready release behind pending work): the new
      // request's kDeferred drops the old range as a duplicate.  Where they
      // are right, the two ways of reporting must agree.
      if (const std::string why = CompareWithModel(decided, d, true); why != "") {
        if (decisions_wrong_seeds.insert(seed).second && getenv("RS_WHY"))
          std::printf("seed %u step %d (%s): decision hooks: %s\n", seed, step,
                      what.c_str(), why.c_str());
        ++decisions_wrong;
        continue;
      }
      ASSERT_EQ(CompareModes(o, d), "") << "step " << step << " (" << what << ")";
    }
  }
  EXPECT_GT(steps, 15000u);
  std::printf("random operations: %zu steps, the heap observer exact in all; "
              "the decision hooks wrong after %zu (in %zu seeds); seeds "
              "stopped where Realm strands ranges in its current heap: %zu, "
              "where a reused id meets its old range in it: %zu\n",
              steps, decisions_wrong, decisions_wrong_seeds.size(), stranded,
              collided);
}

// The Realm fixture program's script, replayed through observed memories:
// at every checkpoint the shadow holds what real Realm held (the truth
// file's INST lines: instance, offset, size, release state).
TEST(HeapObserverFixture, EveryCheckpointOfTheRealmProgram) {
  const std::string dir = REALM_SHADOW_FIXTURES_DIR;
  if (!std::filesystem::is_directory(dir))
    FAIL() << "fixtures not found at " << dir;
  ResetTrackerForTesting();
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  std::ifstream truth_file(dir + "/realm-frag-deferred.truth.txt");
  const std::vector<ScriptCheckpoint> truth = ParseTruthBlocks(truth_file);
  ASSERT_EQ(truth.size(), 12u);
  ScriptOptions options;
  ASSERT_EQ(CapacitiesFromCommandLine(read(dir + "/realm-frag-deferred.cmd.txt"),
                                      &options),
            2);
  options.observe_heaps = true;
  size_t checkpoint = 0, compared = 0;
  options.on_checkpoint = [&](const std::string& label, ScriptRunner& runner) {
    ASSERT_LT(checkpoint, truth.size());
    ASSERT_EQ(label, truth[checkpoint].label);
    for (const char* alias : {"S", "R"}) {
      ModelMemory* m = runner.memory(alias);
      ASSERT_NE(m, nullptr);
      const Snapshot s = TakeSnapshot(m->shadow_handle());
      EXPECT_EQ(CompareWithModel(*m, s), "") << label << " " << alias;
      // The truth file's INST lines of this memory.
      char mem[32];
      std::snprintf(mem, sizeof mem, "mem=%llx",
                    static_cast<unsigned long long>(m->memory_id()));
      std::multiset<std::tuple<uint64_t, uint64_t, bool>> want, got;
      for (const std::string& line : truth[checkpoint].lines) {
        if (line.rfind("INST ", 0) != 0 || line.find(mem) == std::string::npos)
          continue;
        auto field = [&](const std::string& key) {
          const size_t at = line.find(" " + key + "=") + key.size() + 2;
          return line.substr(at, line.find(' ', at) - at);
        };
        uint64_t offset = 0, size = 0;
        ASSERT_TRUE(absl::SimpleAtoi(field("offset"), &offset) &&
                    absl::SimpleAtoi(field("size"), &size))
            << line;
        want.emplace(offset, size, field("state") == "live");
      }
      for (const Allocation& a : s.allocations)
        got.emplace(a.offset, a.size, a.state == AllocationState::kLive);
      EXPECT_EQ(got, want) << label << " " << alias;
      compared += want.size();
    }
    ++checkpoint;
  };
  ScriptRunner runner(options);
  const ScriptResult r = runner.RunText(read(dir + "/realm-frag-deferred.script.txt"));
  ASSERT_TRUE(r.ok) << "line " << r.error_line << ": " << r.error;
  EXPECT_EQ(checkpoint, truth.size());
  EXPECT_GT(compared, 50u);
}

}  // namespace
}  // namespace realm_shadow::model
