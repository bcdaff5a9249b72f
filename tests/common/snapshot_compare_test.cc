// tests/common/snapshot_compare_test.cc - the comparator itself: a test that
// compares two snapshots is only as strong as the comparison, so every field
// of the sample dump (which sets each one to a distinct value) is changed in
// turn and the difference must be found and named.
#include "tests/common/snapshot_compare.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/format/sample_dump.h"

namespace realm_shadow {
namespace {

using testing::CompareDumps;
using testing::CompareSnapshots;
using testing::SnapshotFields;
using testing_dump::SampleDump;

struct Change {
  std::string names;  // where it starts: "memory 0: allocation 1 size"
  std::function<void(DumpFile&)> apply;
};

Snapshot& Fb(DumpFile& d) { return d.memories[0]; }

std::vector<Change> EveryField() {
  const std::string by_type = std::string("memory 0: counters.by_type[") +
                              EventTypeName(EventType::kReleased) + "]";
  const std::string anomalies =
      std::string("memory 0: counters.anomalies[") +
      AnomalyKindName(AnomalyKind::kDoubleRelease) + "]";
  return {
      {"dump version", [](DumpFile& d) { ++d.version; }},
      {"dump node", [](DumpFile& d) { ++d.node; }},
      {"dump created_unix_ns", [](DumpFile& d) { ++d.created_unix_ns; }},
      {"dump source", [](DumpFile& d) { d.source += "x"; }},
      {"dump notes", [](DumpFile& d) { d.notes.pop_back(); }},
      {"memory count", [](DumpFile& d) { d.memories.pop_back(); }},

      {"memory 0: memory_id", [](DumpFile& d) { ++Fb(d).memory_id; }},
      {"memory 0: kind",
       [](DumpFile& d) { Fb(d).kind = MemoryKind::kZeroCopy; }},
      {"memory 0: capacity", [](DumpFile& d) { ++Fb(d).capacity; }},
      {"memory 0: capacity_known",
       [](DumpFile& d) { Fb(d).capacity_known = false; }},
      {"memory 0: addressed", [](DumpFile& d) { Fb(d).addressed = true; }},
      {"memory 0: node", [](DumpFile& d) { ++Fb(d).node; }},
      {"memory 0: name", [](DumpFile& d) { Fb(d).name += "x"; }},
      {"memory 0: exact", [](DumpFile& d) { Fb(d).exact = false; }},
      {"memory 0: sequence", [](DumpFile& d) { ++Fb(d).sequence; }},

      {"memory 0: allocation count",
       [](DumpFile& d) { Fb(d).allocations.pop_back(); }},
      {"memory 0: allocation 1 offset",
       [](DumpFile& d) { ++Fb(d).allocations[1].offset; }},
      {"memory 0: allocation 1 size",
       [](DumpFile& d) { ++Fb(d).allocations[1].size; }},
      {"memory 0: allocation 1 instance",
       [](DumpFile& d) { ++Fb(d).allocations[1].instance; }},
      {"memory 0: allocation 1 identity",
       [](DumpFile& d) { Fb(d).allocations[1].identity = 7; }},
      {"memory 0: allocation 1 alignment_log2",
       [](DumpFile& d) { ++Fb(d).allocations[1].alignment_log2; }},
      {"memory 0: allocation 1 state",
       [](DumpFile& d) {
         Fb(d).allocations[1].state = AllocationState::kLive;
       }},
      {"memory 0: allocation 1 flags",
       [](DumpFile& d) { Fb(d).allocations[1].flags = kPinned; }},
      {"memory 0: allocation 1 kind",
       [](DumpFile& d) {
         Fb(d).allocations[1].kind = AllocationKind::kExternal;
       }},

      {"memory 0: pending count", [](DumpFile& d) { Fb(d).pending.clear(); }},
      {"memory 0: pending 1 instance",
       [](DumpFile& d) { ++Fb(d).pending[1].instance; }},
      {"memory 0: pending 1 size",
       [](DumpFile& d) { ++Fb(d).pending[1].size; }},
      {"memory 0: pending 1 alignment",
       [](DumpFile& d) { ++Fb(d).pending[1].alignment; }},
      {"memory 0: pending 1 planned_offset",
       [](DumpFile& d) { ++Fb(d).pending[1].planned_offset; }},
      {"memory 0: pending 1 sequence",
       [](DumpFile& d) { ++Fb(d).pending[1].sequence; }},
      {"memory 0: pending 1 identity",
       [](DumpFile& d) { Fb(d).pending[1].identity = 7; }},
      {"memory 0: pending 1 flags",
       [](DumpFile& d) { Fb(d).pending[1].flags = kPinned; }},

      {"memory 0: reservation count",
       [](DumpFile& d) { Fb(d).reservations.pop_back(); }},
      {"memory 0: reservation 1 id",
       [](DumpFile& d) { ++Fb(d).reservations[1].id; }},
      {"memory 0: reservation 1 offset",
       [](DumpFile& d) { Fb(d).reservations[1].offset = 0; }},
      {"memory 0: reservation 1 size",
       [](DumpFile& d) { ++Fb(d).reservations[1].size; }},
      {"memory 0: reservation 1 sequence",
       [](DumpFile& d) { ++Fb(d).reservations[1].sequence; }},

      {"memory 0: failure count",
       [](DumpFile& d) { Fb(d).failures.pop_back(); }},
      {"memory 0: failure 1 instance",
       [](DumpFile& d) { ++Fb(d).failures[1].instance; }},
      {"memory 0: failure 1 size",
       [](DumpFile& d) { ++Fb(d).failures[1].size; }},
      {"memory 0: failure 1 alignment",
       [](DumpFile& d) { ++Fb(d).failures[1].alignment; }},
      {"memory 0: failure 1 sequence",
       [](DumpFile& d) { ++Fb(d).failures[1].sequence; }},
      {"memory 0: failure 1 eventual",
       [](DumpFile& d) { Fb(d).failures[1].eventual = true; }},
      {"memory 0: failure 1 identity",
       [](DumpFile& d) { Fb(d).failures[1].identity = 7; }},

      {"memory 0: anomaly count",
       [](DumpFile& d) { Fb(d).anomalies.pop_back(); }},
      {"memory 0: anomaly 1 kind",
       [](DumpFile& d) { Fb(d).anomalies[1].kind = AnomalyKind::kOverlap; }},
      {"memory 0: anomaly 1 sequence",
       [](DumpFile& d) { ++Fb(d).anomalies[1].sequence; }},
      {"memory 0: anomaly 1 instance",
       [](DumpFile& d) { ++Fb(d).anomalies[1].instance; }},
      {"memory 0: anomaly 1 offset",
       [](DumpFile& d) { Fb(d).anomalies[1].offset = 0; }},
      {"memory 0: anomaly 1 size",
       [](DumpFile& d) { ++Fb(d).anomalies[1].size; }},
      {"memory 0: anomaly 1 other_instance",
       [](DumpFile& d) { ++Fb(d).anomalies[1].other_instance; }},

      {by_type,
       [](DumpFile& d) {
         ++Fb(d).counters.by_type[static_cast<int>(EventType::kReleased)];
       }},
      {anomalies,
       [](DumpFile& d) {
         ++Fb(d).counters.anomalies[static_cast<int>(
             AnomalyKind::kDoubleRelease)];
       }},
      {"memory 0: counters.failures",
       [](DumpFile& d) { ++Fb(d).counters.failures; }},
      {"memory 0: counters.cancelled",
       [](DumpFile& d) { ++Fb(d).counters.cancelled; }},
      {"memory 0: counters.peak_used",
       [](DumpFile& d) { ++Fb(d).counters.peak_used; }},
      {"memory 0: counters.journal_overflows",
       [](DumpFile& d) { ++Fb(d).counters.journal_overflows; }},

      {"memory 0: identity count",
       [](DumpFile& d) { Fb(d).identities.pop_back(); }},
      {"memory 0: identity 1 id",
       [](DumpFile& d) { ++Fb(d).identities[1].id; }},
      {"memory 0: identity 1 kind",
       [](DumpFile& d) {
         Fb(d).identities[1].kind = AllocationKind::kFuture;
       }},
      {"memory 0: identity 1 attributes",
       [](DumpFile& d) { Fb(d).identities[1].attributes[0].second += "x"; }},

      // A later memory is reached and named too.
      {"memory 2: allocation 0 offset",
       [](DumpFile& d) { ++d.memories[2].allocations[0].offset; }},
  };
}

TEST(SnapshotCompare, EqualDumpsHaveNoDifference) {
  EXPECT_EQ(CompareDumps(SampleDump(), SampleDump()), "");
}

TEST(SnapshotCompare, EveryFieldOfADumpIsComparedAndNamed) {
  const DumpFile want = SampleDump();
  for (const Change& change : EveryField()) {
    DumpFile got = SampleDump();
    change.apply(got);
    const std::string difference = CompareDumps(got, want);
    const std::string expected = change.names + ": got ";
    EXPECT_EQ(difference.compare(0, expected.size(), expected), 0)
        << "changed " << change.names << ", difference: "
        << (difference.empty() ? "(none)" : difference);
  }
}

TEST(SnapshotCompare, MessagesGiveBothValuesAndBothRecords) {
  const DumpFile want = SampleDump();
  DumpFile got = SampleDump();
  got.memories[0].allocations[1].flags = kPinned;
  EXPECT_EQ(CompareDumps(got, want),
            "memory 0: allocation 1 flags: got 1, want 4\n"
            "  got  instance 0x4000000000000002 [8192, 12288) release_pending "
            "future flags 1 alignment 4096 identity 0\n"
            "  want instance 0x4000000000000002 [8192, 12288) release_pending "
            "future flags 4 alignment 4096 identity 0");

  got = SampleDump();
  got.memories[0].kind = MemoryKind::kZeroCopy;
  got.memories[0].name = "other";
  EXPECT_EQ(CompareDumps(got, want),
            std::string("memory 0: kind: got ") +
                MemoryKindName(MemoryKind::kZeroCopy) + ", want " +
                MemoryKindName(MemoryKind::kFramebuffer));

  got = SampleDump();
  got.memories[0].failures.pop_back();
  EXPECT_EQ(CompareDumps(got, want), "memory 0: failure count: got 1, want 2");
}

TEST(SnapshotCompare, StateFieldsLeaveOutTheMemorysDescription) {
  const Snapshot want = SampleDump().memories[0];
  // What only the tracker knows: the reference model leaves these unset.
  const std::vector<std::function<void(Snapshot&)>> description = {
      [](Snapshot& s) { ++s.memory_id; },
      [](Snapshot& s) { s.kind = MemoryKind::kSystem; },
      [](Snapshot& s) { ++s.capacity; },
      [](Snapshot& s) { s.capacity_known = false; },
      [](Snapshot& s) { s.addressed = true; },
      [](Snapshot& s) { ++s.node; },
      [](Snapshot& s) { s.name.clear(); },
      [](Snapshot& s) { s.exact = false; },
      [](Snapshot& s) { ++s.counters.journal_overflows; },
      [](Snapshot& s) { s.identities.clear(); },
  };
  for (size_t i = 0; i < description.size(); ++i) {
    Snapshot got = want;
    description[i](got);
    EXPECT_EQ(CompareSnapshots(got, want, SnapshotFields::kState), "")
        << "change " << i;
    EXPECT_NE(CompareSnapshots(got, want, SnapshotFields::kAll), "")
        << "change " << i;
  }
  // What the events determine is compared either way.
  Snapshot got = want;
  got.allocations[0].identity = 9;
  EXPECT_NE(CompareSnapshots(got, want, SnapshotFields::kState), "");
  got = want;
  ++got.sequence;
  EXPECT_EQ(CompareSnapshots(got, want, SnapshotFields::kState),
            "sequence: got 43, want 42");
}

}  // namespace
}  // namespace realm_shadow
