// Randomized differential tests: millions of events through the real hooks,
// journal and shadow map, every snapshot compared with the reference model.
#include <gtest/gtest.h>

#include <random>

#include "realm_shadow/hooks.h"
#include "realm_shadow/analysis/shadow_map.h"
#include "realm_shadow/live/snapshots.h"
#include "tests/common/snapshot_compare.h"
#include "tests/recorder/event_generator.h"
#include "tests/recorder/reference_model.h"
#include "tests/recorder/report_events.h"

namespace realm_shadow {
namespace {

using testing::CompareSnapshots;
using testing::InternTestIdentities;
using testing::EventGenerator;
using testing::ReferenceMemory;
using testing::Report;
using testing::ReportHeap;
using testing::SnapshotFields;

constexpr uint64_t kCapacity = 1 << 16;

// Runs `events` events of one seed through the hooks and compares snapshots
// taken at random points with the reference.
void RunSeed(uint64_t seed, size_t events, size_t journal_events) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " journal " +
               std::to_string(journal_events));
  ResetTrackerForTesting();
  ASSERT_TRUE(InternTestIdentities());
  realm_shadow_memory* m = RegisterMemory(0x1e00000000000000ull + seed,
                                          MemoryKind::kSystem, kCapacity,
                                          "differential", REALM_SHADOW_SERIALIZED,
                                          journal_events);
  ASSERT_NE(m, nullptr);
  ReferenceMemory reference(kCapacity, false);
  EventGenerator generator(seed, kCapacity, 96, 0.04);
  std::mt19937_64 when(seed * 7 + 1);
  size_t applied = 0;
  while (applied < events) {
    Event e = generator.Next();
    if (e.type == EventType::kAttachIdentity) e.aux = static_cast<uint32_t>(e.offset);
    std::vector<Event> pieces;
    if (e.type == EventType::kRedistrict)
      for (uint32_t i = 0; i < e.aux; ++i) pieces.push_back(generator.Next());
    Report(m, e, pieces);
    reference.Apply(e);
    for (const Event& p : pieces) reference.Apply(p);
    applied += 1 + pieces.size();
    if (when() % 400 == 0 || applied >= events) {
      const Snapshot got = TakeSnapshot(m);
      const Snapshot want = reference.ToSnapshot();
      const std::string difference =
          CompareSnapshots(got, want, SnapshotFields::kState);
      ASSERT_EQ(difference, "") << "after " << applied << " events";
      // Every identity referenced is carried by the snapshot.
      for (const Allocation& a : got.allocations)
        if (a.identity) ASSERT_NE(got.FindIdentity(a.identity), nullptr);
    }
  }
}

TEST(Differential, HooksJournalAndShadowMapMatchTheReference) {
  // 160 seeds x 12500 events = 2M events, with journals large enough never
  // to fill between snapshots.
  for (uint64_t seed = 1; seed <= 160; ++seed) {
    RunSeed(seed, 12500, 1 << 14);
    if (HasFatalFailure()) return;
  }
}

TEST(Differential, TinyJournalsApplyTheBacklogInlineWithoutLoss) {
  // 64-event journals fill constantly: the writer applies the backlog.
  for (uint64_t seed = 1000; seed < 1040; ++seed) {
    RunSeed(seed, 20000, 64);
    if (HasFatalFailure()) return;
  }
}

TEST(Differential, ShadowMapAloneMatchesTheReferenceWithoutTheJournal) {
  for (uint64_t seed = 5000; seed < 5020; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ShadowMap map(kCapacity, false);
    ReferenceMemory reference(kCapacity, false);
    EventGenerator generator(seed, kCapacity, 64, 0.08);
    for (int i = 0; i < 50000; ++i) {
      const Event e = generator.Next();
      map.Apply(e);
      reference.Apply(e);
      if (i % 997 == 0) {
        Snapshot got;
        map.CopyTo(&got);
        ASSERT_EQ(CompareSnapshots(got, reference.ToSnapshot(),
                                   SnapshotFields::kState),
                  "")
            << "event " << i;
      }
    }
  }
}

// Heap-observed memories: every hook of heap_observer.h through the journal
// (groups included, and with a 64-event journal the groups larger than it
// applied directly), against the reference.
TEST(Differential, HeapObservedMemoriesMatchTheReference) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    for (size_t journal : {size_t{1} << 14, size_t{64}}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " journal " +
                   std::to_string(journal));
      ResetTrackerForTesting();
      ASSERT_TRUE(InternTestIdentities());
      realm_shadow_memory* m = RegisterMemory(
          0x1e00000000000000ull, MemoryKind::kSystem, kCapacity, "observed",
          REALM_SHADOW_CONCURRENT | REALM_SHADOW_HEAP_OBSERVED, journal);
      ReferenceMemory reference(kCapacity, false, /*heap_observed=*/true);
      testing::HeapEventGenerator generator(seed, kCapacity, 48);
      for (int i = 0; i < 4000; ++i) {
        Event e = generator.Next();
        if (e.type == EventType::kAttachIdentity) e.aux = static_cast<uint32_t>(e.offset);
        const std::vector<Event> records = generator.Records();
        ReportHeap(m, e, records);
        // What the hooks journal: the future heap's placements are plans,
        // a wait is a plan without an offset.
        reference.Apply(e);
        for (const Event& r : records) reference.Apply(r);
        if (i % 97 == 0 || i == 3999) {
          const std::string difference = CompareSnapshots(
              TakeSnapshot(m), reference.ToSnapshot(), SnapshotFields::kState);
          ASSERT_EQ(difference, "") << "after event " << i;
        }
      }
    }
  }
}

TEST(Differential, MalformedEventTypesAreCountedNotApplied) {
  ShadowMap map(1024, false);
  ReferenceMemory reference(1024, false);
  const Event bad{.type = static_cast<EventType>(200), .instance = 7};
  const Event good{.type = EventType::kAllocated, .instance = 8, .offset = 0,
                   .size = 100, .aux = 1};
  for (const Event& e : {good, bad, good}) {
    map.Apply(e);
    reference.Apply(e);
  }
  Snapshot got;
  map.CopyTo(&got);
  EXPECT_EQ(
      CompareSnapshots(got, reference.ToSnapshot(), SnapshotFields::kState),
      "");
  EXPECT_EQ(got.counters.anomalies[static_cast<int>(AnomalyKind::kMalformedEvent)], 1u);
  EXPECT_EQ(got.counters.anomalies[static_cast<int>(AnomalyKind::kDuplicateInstance)], 1u);
  ASSERT_EQ(got.allocations.size(), 1u);
  EXPECT_EQ(got.sequence, 3u);
}

}  // namespace
}  // namespace realm_shadow
