// History (realm_shadow/core/history.h): the state at every k-th moment
// rebuilt from a history equals the reference model at that prefix, through
// the real hooks, journal and consumer; the window keeps exactness when the
// ring wraps and refuses what fell out of it; a checkpoint restores the map
// exactly, hidden state included; the replay's figures equal Summarize.
#include "realm_shadow/core/history.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/analysis/history_recorder.h"
#include "realm_shadow/analysis/shadow_map.h"
#include "realm_shadow/live/snapshots.h"
#include "tests/common/snapshot_compare.h"
#include "tests/recorder/event_generator.h"
#include "tests/recorder/reference_model.h"
#include "tests/recorder/report_events.h"
#include "realm_shadow/analysis/history_cursor.h"

namespace realm_shadow {
namespace {

using testing::CompareSnapshots;
using testing::InternTestIdentities;
using testing::ReferenceMemory;
using testing::SnapshotFields;

constexpr uint64_t kCapacity = 1 << 16;

// The reference's picture after every event (moment s at index s).
struct RecordedRun {
  std::vector<Snapshot> reference;
  MemoryHistory history;
};

// Feeds `events` events of a generator through the hooks of a memory that
// keeps `window` events of history, taking snapshots now and then (which
// drain, so batches and their marks vary), and keeps the reference at every
// moment.
template <typename Feed>
RecordedRun Record(Feed feed, size_t events, size_t window,
           size_t journal, unsigned flags, bool heap_observed, uint64_t seed) {
  RecordedRun run;
  ResetTrackerForTesting();
  EXPECT_TRUE(InternTestIdentities());
  realm_shadow_memory* m =
      RegisterMemory(0x1e00000000000000ull, MemoryKind::kSystem, kCapacity,
                     "history", flags, journal, window);
  EXPECT_NE(m, nullptr);
  ReferenceMemory reference(kCapacity, false, heap_observed);
  run.reference.push_back(reference.ToSnapshot());
  std::mt19937_64 when(seed);
  size_t applied = 0;
  while (applied < events) {
    applied += feed(m, &reference, &run.reference);
    if (when() % 300 == 0) TakeSnapshot(m);
  }
  EXPECT_TRUE(TakeHistory(m, &run.history));
  return run;
}

// Every k-th moment of the window (and its ends) against the reference;
// every moment before it refused.
void CheckMoments(const RecordedRun& run, size_t k) {
  const MemoryHistory& h = run.history;
  const absl::Status checked = CheckHistory(h);
  ASSERT_TRUE(checked.ok()) << checked;
  ASSERT_EQ(h.end_sequence() + 1, run.reference.size());
  std::vector<uint64_t> moments;
  for (uint64_t s = h.first_sequence(); s <= h.end_sequence(); s += k)
    moments.push_back(s);
  moments.push_back(h.end_sequence());
  for (uint64_t s : moments) {
    const absl::StatusOr<Snapshot> got_or = StateAt(h, s);
    ASSERT_TRUE(got_or.ok()) << got_or.status();
    const Snapshot& got = *got_or;
    ASSERT_EQ(CompareSnapshots(got, run.reference[s], SnapshotFields::kState), "")
        << "moment " << s << " (window " << h.first_sequence() << ".."
        << h.end_sequence() << ")";
    for (const Allocation& a : got.allocations) {
      if (a.identity) {
        ASSERT_NE(got.FindIdentity(a.identity), nullptr);
      }
    }
  }
  if (h.first_sequence() > 0) {
    const absl::Status before = StateAt(h, h.first_sequence() - 1).status();
    EXPECT_TRUE(absl::IsOutOfRange(before)) << before;
    EXPECT_NE(before.message().find("outside the history"), std::string::npos) << before;
    EXPECT_NE(before.message().find("dropped"), std::string::npos) << before;
  }
  EXPECT_TRUE(absl::IsOutOfRange(StateAt(h, h.end_sequence() + 1).status()));
}

// Applies `e`, then the records of its group, to the reference, with the
// picture after each: the moments the history must give back.  Returns the
// events applied.
size_t ApplyWithMoments(const Event& e, const std::vector<Event>& records,
                        ReferenceMemory* reference, std::vector<Snapshot>* at) {
  reference->Apply(e);
  at->push_back(reference->ToSnapshot());
  for (const Event& r : records) {
    reference->Apply(r);
    at->push_back(reference->ToSnapshot());
  }
  return 1 + records.size();
}

size_t FeedPlain(testing::EventGenerator& generator, realm_shadow_memory* m,
                 ReferenceMemory* reference, std::vector<Snapshot>* at) {
  Event e = generator.Next();
  if (e.type == EventType::kAttachIdentity) e.aux = static_cast<uint32_t>(e.offset);
  std::vector<Event> pieces;
  if (e.type == EventType::kRedistrict)
    for (uint32_t i = 0; i < e.aux; ++i) pieces.push_back(generator.Next());
  testing::Report(m, e, pieces);
  return ApplyWithMoments(e, pieces, reference, at);
}

void RunPlain(uint64_t seed, size_t events, size_t window, size_t journal,
              size_t k) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " window " +
               std::to_string(window) + " journal " + std::to_string(journal));
  testing::EventGenerator generator(seed, kCapacity, 96, 0.04);
  const RecordedRun run = Record(
      [&](realm_shadow_memory* m, ReferenceMemory* r, std::vector<Snapshot>* at) {
        return FeedPlain(generator, m, r, at);
      },
      events, window, journal, REALM_SHADOW_SERIALIZED, false, seed);
  CheckMoments(run, k);
}

TEST(History, EveryKthMomentEqualsTheReferenceWholeRun) {
  // The window holds the whole run: moment 0 is the empty memory.
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    RunPlain(seed, 3000, 1 << 16, 1 << 14, 7);
    if (HasFatalFailure()) return;
  }
}

TEST(History, WrappedWindowStaysExactAndRefusesOlderMoments) {
  // 400-event windows over 6000 events: the ring wraps many times, the
  // base moves, and with 64-event journals writers apply the backlog too.
  for (uint64_t seed = 20; seed <= 31; ++seed) {
    for (size_t journal : {size_t{1} << 14, size_t{64}}) {
      RunPlain(seed, 6000, 400, journal, 5);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(History, WindowHoldsAtLeastTheLastNEvents) {
  testing::EventGenerator generator(77, kCapacity, 96, 0.04);
  const RecordedRun run = Record(
      [&](realm_shadow_memory* m, ReferenceMemory* r, std::vector<Snapshot>* at) {
        return FeedPlain(generator, m, r, at);
      },
      5000, 1000, 1 << 14, REALM_SHADOW_SERIALIZED, false, 77);
  const MemoryHistory& h = run.history;
  EXPECT_GE(h.events.size(), 1000u);
  EXPECT_LE(h.events.size(), 1000u + 1000u / 4 + 1);
  EXPECT_GT(h.first_sequence(), 0u);
  EXPECT_EQ(h.window_events, 1000u);
}

TEST(History, HeapObservedMemoriesEveryKthMoment) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    for (size_t window : {size_t{1} << 16, size_t{300}}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " window " +
                   std::to_string(window));
      testing::HeapEventGenerator generator(seed, kCapacity, 48);
      const RecordedRun run = Record(
          [&](realm_shadow_memory* m, ReferenceMemory* r,
              std::vector<Snapshot>* at) {
            Event e = generator.Next();
            if (e.type == EventType::kAttachIdentity)
              e.aux = static_cast<uint32_t>(e.offset);
            const std::vector<Event> records = generator.Records();
            testing::ReportHeap(m, e, records);
            return ApplyWithMoments(e, records, r, at);
          },
          4000, window, 64, REALM_SHADOW_CONCURRENT | REALM_SHADOW_HEAP_OBSERVED,
          true, seed);
      CheckMoments(run, 3);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(History, NoHistoryWhenTheWindowIsZero) {
  ResetTrackerForTesting();
  realm_shadow_memory* m = RegisterMemory(0x1e00000000000009ull,
                                          MemoryKind::kSystem, 4096, "off",
                                          REALM_SHADOW_SERIALIZED, 0, 0);
  realm_shadow_allocated(m, 1, 0, 64, 1);
  MemoryHistory h;
  EXPECT_FALSE(TakeHistory(m, &h));
  EXPECT_EQ(TakeSnapshot(m).allocations.size(), 1u);
}

// The map's hidden state survives a checkpoint: thousands of unique ids
// released (past the 2^14 the map remembers, so a purge happens after the
// checkpoint), failed ones still to be destroyed, early releases of a
// heap-observed memory and a heap_replaced group cut in half.  After the
// restore, the same events must give the same pictures as the live map,
// double and unknown releases included.
TEST(History, CheckpointRestoresTheMapExactly) {
  for (bool observed : {false, true}) {
    SCOPED_TRACE(observed ? "heap observed" : "plain");
    ShadowMap live(1 << 24, false);
    live.set_heap_observed(observed);
    std::vector<Event> tail;
    std::mt19937_64 rng(5);
    uint64_t next = 1;
    auto apply = [&](const Event& e, bool keep) {
      live.Apply(e);
      if (keep) tail.push_back(e);
    };
    for (int i = 0; i < 15000; ++i) {
      apply(Event{EventType::kAllocated, next, 0, 64, 1}, false);
      apply(Event{EventType::kReleased, next}, false);
      ++next;
    }
    apply(Event{EventType::kAllocationFailed, 900000, 0, 1 << 30, 1}, false);
    apply(Event{EventType::kReleaseRequested, 800000, 0, 0, 1}, false);
    apply(Event{EventType::kHeapReplaced, 0, 0, 0, 3}, false);
    apply(Event{EventType::kHeapPlaced, 700001, 0, 128, 1}, false);
    HistoryCheckpoint checkpoint;
    live.SaveCheckpoint(&checkpoint);
    ShadowMap restored = ShadowMap::FromCheckpoint(checkpoint);
    apply(Event{EventType::kHeapPlaced, 700002, 128, 128, 1}, true);
    apply(Event{EventType::kHeapPlaced, 700003, 256, 128, 1}, true);
    apply(Event{EventType::kReleased, 900000}, true);      // failed: quiet
    apply(Event{EventType::kHeapPlaced, 800000, 4096, 64, 1}, true);  // early
    for (int i = 0; i < 3000; ++i) {  // the purge of remembered ids
      apply(Event{EventType::kAllocated, next, 8192, 64, 1}, true);
      apply(Event{EventType::kReleased, next}, true);
      ++next;
    }
    apply(Event{EventType::kReleased, next - 1}, true);  // double release
    apply(Event{EventType::kReleased, 2}, true);         // long forgotten
    apply(Event{EventType::kReleased, 14990}, true);
    for (int i = 0; i < 200; ++i)
      apply(Event{EventType::kReleased, 1 + rng() % next}, true);
    for (const Event& e : tail) restored.Apply(e);
    Snapshot want, got;
    live.CopyTo(&want);
    restored.CopyTo(&got);
    EXPECT_EQ(CompareSnapshots(got, want, SnapshotFields::kState), "");
  }
}

// The replay's figures are Summarize's, at every moment, overlaps,
// zero-byte and out-of-capacity ranges included (the generator makes them);
// and stepping forward (what the timeline, the trace and the page do) gives
// the state StateAt rebuilds, at every 7th moment.
TEST(History, ReplayFiguresEqualSummarizeAtEveryMoment) {
  for (uint64_t seed = 40; seed < 46; ++seed) {
    for (bool capacity_known : {true, false}) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      ShadowMap map(kCapacity, false, capacity_known);
      HistoryRecorder recorder(1 << 20, map);
      testing::EventGenerator generator(seed, kCapacity, 96, 0.08);
      std::vector<Event> batch;
      for (int i = 0; i < 3000; ++i) batch.push_back(generator.Next());
      recorder.Apply(&map, batch.data(), batch.size(), 1000);
      MemoryHistory h;
      recorder.Export(&h);
      HistoryCursor replay(h);
      replay.set_figures(true);
      const absl::Status started = replay.Start(0);
      ASSERT_TRUE(started.ok()) << started;
      do {
        Snapshot s;
        replay.CopyTo(&s);
        const FreeSummary want = Summarize(s);
        const MemoryFigures got = replay.figures();
        ASSERT_EQ(got.used, want.used) << "moment " << replay.sequence();
        ASSERT_EQ(got.total_free, want.total_free) << "moment " << replay.sequence();
        ASSERT_EQ(got.largest_hole, want.largest_hole) << "moment " << replay.sequence();
        ASSERT_EQ(got.hole_count, want.hole_count) << "moment " << replay.sequence();
        ASSERT_EQ(got.allocation_count, want.allocation_count);
        if (replay.sequence() % 7 != 0) continue;
        const absl::StatusOr<Snapshot> at_or = StateAt(h, replay.sequence());
        ASSERT_TRUE(at_or.ok()) << at_or.status();
        const Snapshot& at = *at_or;
        ASSERT_EQ(s.allocations.size(), at.allocations.size()) << "moment " << replay.sequence();
        for (size_t i = 0; i < at.allocations.size(); ++i) {
          ASSERT_EQ(s.allocations[i].instance, at.allocations[i].instance) << "moment " << replay.sequence();
          ASSERT_EQ(s.allocations[i].offset, at.allocations[i].offset) << "moment " << replay.sequence();
          ASSERT_EQ(s.allocations[i].size, at.allocations[i].size) << "moment " << replay.sequence();
        }
      } while (replay.Step());
    }
  }
}

// A replay started in the middle tells what is live as placements, then
// every change: the live set it builds equals the state at every moment.
TEST(History, ObserverSeesEveryChange) {
  ShadowMap map(kCapacity, false);
  HistoryRecorder recorder(1 << 20, map);
  testing::EventGenerator generator(3, kCapacity, 64, 0.04);
  std::vector<Event> batch;
  for (int i = 0; i < 2000; ++i) batch.push_back(generator.Next());
  recorder.Apply(&map, batch.data(), batch.size(), 5);
  MemoryHistory h;
  recorder.Export(&h);
  struct Mirror : AllocationObserver {
    std::map<std::pair<uint64_t, uint64_t>, Allocation> live;
    void Placed(const Allocation& a) override { live[{a.offset, a.instance}] = a; }
    void Removed(const Allocation& a) override { live.erase({a.offset, a.instance}); }
    void Changed(const Allocation&, const Allocation& a) override {
      live[{a.offset, a.instance}] = a;
    }
    void Failed(const Failure&) override {}
  } mirror;
  HistoryCursor replay(h);
  replay.set_observer(&mirror);
  const absl::Status started = replay.Start(700);
  ASSERT_TRUE(started.ok()) << started;
  do {
    Snapshot s;
    replay.CopyTo(&s);
    ASSERT_EQ(s.allocations.size(), mirror.live.size());
    size_t i = 0;
    for (const auto& entry : mirror.live) {
      const Allocation& a = s.allocations[i++];
      ASSERT_EQ(entry.second.instance, a.instance);
      ASSERT_EQ(entry.second.state, a.state);
      ASSERT_EQ(entry.second.identity, a.identity);
      ASSERT_EQ(entry.second.flags, a.flags);
    }
  } while (replay.Step());
}

TEST(History, TimesAndMomentsAtATime) {
  MemoryHistory h;
  h.checkpoints.emplace_back();
  for (int i = 0; i < 10; ++i)
    h.events.push_back(HistoryRecordOf(Event{EventType::kAllocated,
                                             uint64_t(i + 1), uint64_t(i) * 8, 8, 1}));
  // Events 0-3 at 100, 4-6 at 90 (a log line of another thread, out of
  // order), 7-9 at 300.
  h.marks = {{0, 100}, {4, 90}, {7, 300}};
  const absl::Status checked = CheckHistory(h);
  ASSERT_TRUE(checked.ok()) << checked;
  EXPECT_EQ(h.TimeOfEvent(5), 90);
  EXPECT_EQ(h.TimeOfMoment(0), 100);
  EXPECT_EQ(h.TimeOfMoment(8), 300);
  EXPECT_EQ(MomentAtTime(h, 150).value_or(0), 7u);
  EXPECT_EQ(MomentAtTime(h, 300).value_or(0), 10u);
  EXPECT_TRUE(absl::IsOutOfRange(MomentAtTime(h, 99).status()));
  h.marks[1].sequence = 12;
  const absl::Status broken = CheckHistory(h);
  EXPECT_TRUE(absl::IsInvalidArgument(broken)) << broken;
  EXPECT_NE(broken.message().find("time mark 1"), std::string::npos) << broken;
}

}  // namespace
}  // namespace realm_shadow
