// tests/format/history_section_test.cc - the dump's optional history
// section (hist; format/reader.cc and writer.cc): round trips that keep
// every moment, the one-moment read (DumpMoments) against the whole read,
// and edited, truncated or hostile sections refused cleanly.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "realm_shadow/analysis/history_cursor.h"
#include "realm_shadow/format/dump.h"
#include "tests/common/contains_text.h"
#include "tests/common/dump_io.h"
#include "tests/common/snapshot_compare.h"
#include "tests/common/temp_dir.h"
#include "tests/format/dump_bytes.h"
#include "tests/format/sample_dump.h"

// Beside the dump test helpers (dump_bytes.h, dump_io.h, sample_dump.h),
// which it uses throughout.
namespace realm_shadow {
namespace testing_dump {
namespace {

using testing::CompareDumps;
using testing::ContainsText;
using testing::TempDir;

TEST(DumpHistory, RoundTripKeepsEveryFieldAndEveryMoment) {
  const DumpFile dump = SampleHistoryDump();
  const MemoryHistory& h = dump.histories[0];
  // The sample reaches what it is for: a moved base, checkpoints inside a
  // group, the hidden sets, times that go back.
  ASSERT_GT(h.first_sequence(), 0u);
  bool inside_group = false, early = false, failed = false, released = false;
  for (const HistoryCheckpoint& c : h.checkpoints) {
    inside_group |= c.group_left > 0 && !c.group_records.empty();
    early |= !c.early_releases.empty();
    failed |= !c.failed.empty();
    released |= !c.released.empty();
  }
  EXPECT_TRUE(inside_group && early && failed && released);
  DumpFile back;
  std::string error;
  ASSERT_TRUE(Parse(SerializeDump(dump), &back, &error)) << error;
  EXPECT_EQ(CompareDumps(back, dump), "");
  ASSERT_EQ(back.histories.size(), 1u);
  EXPECT_EQ(FindHistory(back, back.memories[0]), &back.histories[0]);
  for (uint64_t s = h.first_sequence(); s <= h.end_sequence(); ++s) {
    const absl::StatusOr<Snapshot> want = StateAt(h, s);
    const absl::StatusOr<Snapshot> got = StateAt(back.histories[0], s);
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(testing::CompareSnapshots(*got, *want, testing::SnapshotFields::kAll), "")
        << "moment " << s;
  }
  EXPECT_EQ(CompareSnapshots(back.memories[0], dump.memories[0],
                             testing::SnapshotFields::kAll), "");
}

// The consumer takes a checkpoint's released ids in its hash table's order
// (history.h); the file lists them ascending, so that it does not depend on
// that order, and the state at every moment is the same.
TEST(DumpHistory, ReleasedIdsAreWrittenAscending) {
  DumpFile dump = SampleHistoryDump();
  MemoryHistory& h = dump.histories[0];
  h.checkpoints[0].released = {0x4000000000000f09ull, 0x4000000000000f02ull,
                               0x4000000000000f05ull};
  DumpFile back;
  std::string error;
  ASSERT_TRUE(Parse(SerializeDump(dump), &back, &error)) << error;
  EXPECT_EQ(back.histories[0].checkpoints[0].released,
            (std::vector<uint64_t>{0x4000000000000f02ull, 0x4000000000000f05ull,
                                   0x4000000000000f09ull}));
  for (uint64_t s = h.first_sequence(); s <= h.end_sequence(); ++s) {
    const absl::StatusOr<Snapshot> want = StateAt(h, s);
    const absl::StatusOr<Snapshot> got = StateAt(back.histories[0], s);
    ASSERT_TRUE(want.ok() && got.ok()) << want.status() << got.status();
    EXPECT_EQ(testing::CompareSnapshots(*got, *want, testing::SnapshotFields::kAll), "")
        << "moment " << s;
  }
}

TEST(DumpHistory, TruncatedAndFlippedAreCaught) {
  const std::string bytes = SerializeDump(SampleHistoryDump());
  for (size_t k = 1; k < bytes.size(); ++k) {
    std::string error;
    ASSERT_TRUE(RefusedInOneLine(bytes.substr(0, k), &error)) << "length " << k;
  }
  for (size_t i = 16; i + 16 < bytes.size(); i += 7) {
    std::string bad = bytes;
    bad[i] ^= 0x10;
    std::string error;
    ASSERT_TRUE(RefusedInOneLine(bad, &error)) << "byte " << i;
    EXPECT_EQ(error, "checksum mismatch");
  }
}

// Every byte of the hist section changed, with the checksum made right
// again: a clean refusal or a dump that still passes CheckHistory, never a
// crash (ASan builds of this test catch reads out of bounds).
TEST(DumpHistory, EveryEditedByteOfTheSectionWithAValidChecksum) {
  const std::string bytes = SerializeDump(SampleHistoryDump());
  const size_t hist = SectionPayload(bytes, 3) - 16;  // header, strings, 1 memory
  ASSERT_EQ(bytes.substr(hist, 4), "hist");
  for (size_t i = hist; i + 16 < bytes.size(); ++i) {
    for (uint8_t flip : {0x01, 0x80, 0xff}) {
      std::string bad = bytes;
      bad[i] ^= flip;
      Reseal(&bad);
      DumpFile out;
      std::string error;
      if (Parse(bad, &out, &error)) {
        for (const MemoryHistory& h : out.histories) {
          const absl::Status checked = CheckHistory(h);
          ASSERT_TRUE(checked.ok()) << checked;
        }
      } else {
        ASSERT_TRUE(OneLine(error)) << "byte " << i;
      }
    }
  }
}

// DumpMoments (what `at` reads): at every moment of the sample, the cut it
// gives has the state, the time and the line that the whole history gives,
// and holds no more than the checkpoints and events the moment needs.
TEST(DumpHistory, OneMomentReadGivesWhatTheWholeReadGives) {
  const DumpFile dump = SampleHistoryDump();
  const MemoryHistory& h = dump.histories[0];
  ASSERT_GT(h.checkpoints.size(), 2u);
  const std::string bytes = SerializeDump(dump);
  DumpMoments moments;
  const absl::Status parsed =
      moments.Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), true);
  ASSERT_TRUE(parsed.ok()) << parsed;
  EXPECT_EQ(CompareSnapshots(moments.dump().memories.at(0), dump.memories[0],
                             testing::SnapshotFields::kAll), "");
  ASSERT_EQ(moments.histories().size(), 1u);
  const DumpMoments::Outline& o = moments.histories()[0];
  EXPECT_EQ(o.first_sequence, h.first_sequence());
  EXPECT_EQ(o.end_sequence, h.end_sequence());
  EXPECT_EQ(o.checkpoints, h.checkpoints.size());
  EXPECT_EQ(o.marks.size(), h.marks.size());
  for (uint64_t s = h.first_sequence(); s <= h.end_sequence(); ++s) {
    const absl::StatusOr<MemoryHistory> cut_or = moments.HistoryFor(0, s);
    ASSERT_TRUE(cut_or.ok()) << cut_or.status();
    const MemoryHistory& cut = *cut_or;
    const absl::StatusOr<Snapshot> want = StateAt(h, s);
    const absl::StatusOr<Snapshot> got = StateAt(cut, s);
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(testing::CompareSnapshots(*got, *want, testing::SnapshotFields::kAll), "")
        << "moment " << s;
    EXPECT_LE(cut.checkpoints.size(), 2u);
    EXPECT_LE(cut.end_sequence(), s + 1);
    if (s > h.first_sequence()) {
      EXPECT_EQ(cut.TimeOfEvent(s - 1), h.TimeOfEvent(s - 1)) << "moment " << s;
      EXPECT_EQ(cut.LineOfEvent(s - 1), h.LineOfEvent(s - 1)) << "moment " << s;
    }
    EXPECT_EQ(cut.TimeOfMoment(s), h.TimeOfMoment(s)) << "moment " << s;
  }
  const absl::StatusOr<MemoryHistory> past = moments.HistoryFor(0, h.end_sequence() + 1);
  EXPECT_TRUE(absl::IsOutOfRange(past.status())) << past.status();
  EXPECT_NE(past.status().message().find("outside the history"), std::string::npos)
      << past.status();
}

// Every byte of the hist section changed, checksum made right: DumpMoments
// accepts whatever the whole reader accepts, and never crashes on the rest.
TEST(DumpHistory, OneMomentReadOfEveryEditedByte) {
  const std::string bytes = SerializeDump(SampleHistoryDump());
  const size_t hist = SectionPayload(bytes, 3) - 16;
  for (size_t i = hist; i + 16 < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x80;
    Reseal(&bad);
    DumpFile whole;
    std::string error;
    const bool accepted = Parse(bad, &whole, &error);
    DumpMoments moments;
    if (const absl::Status parsed =
            moments.Parse(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), false);
        !parsed.ok()) {
      ASSERT_FALSE(accepted) << "byte " << i << ": " << parsed;
      ASSERT_TRUE(OneLine(std::string(parsed.message()))) << "byte " << i;
      continue;
    }
    for (size_t k = 0; k < moments.histories().size(); ++k) {
      const DumpMoments::Outline& o = moments.histories()[k];
      for (uint64_t s : {o.first_sequence, (o.first_sequence + o.end_sequence) / 2,
                         o.end_sequence}) {
        const absl::StatusOr<MemoryHistory> cut = moments.HistoryFor(k, s);
        const absl::StatusOr<Snapshot> state = cut.ok() ? StateAt(*cut, s) : cut.status();
        if (!state.ok()) {
          ASSERT_FALSE(accepted) << "byte " << i << ": " << state.status();
          ASSERT_TRUE(OneLine(std::string(state.status().message()))) << "byte " << i;
        }
      }
    }
  }
}

TEST(DumpHistory, HostileCountsGetCleanErrors) {
  const std::string bytes = SerializeDump(SampleHistoryDump());
  const size_t payload = SectionPayload(bytes, 3);
  const HostileEdit edits[] = {
      {payload + 0, 4, 7, "is of memory 7, but the dump holds 1"},
      {payload + 24, 8, uint64_t{1} << 60, "checkpoints cannot fit"},
      {payload + 32, 8, uint64_t{1} << 60, "events, "},
      {payload + 40, 8, uint64_t{1} << 61, "marks and"},
      {payload + 56, 8, uint64_t{1} << 59, "identities cannot fit"},
  };
  for (const HostileEdit& edit : edits) EXPECT_TRUE(RefusedAfter(bytes, edit));
  // Marks out of order: CheckHistory's refusal, named.
  std::string bad = bytes;
  const uint64_t events = Load<uint64_t>(bytes, payload + 32);
  const size_t marks = payload + 64 + 32 * events;
  Store<uint64_t>(&bad, marks, Load<uint64_t>(bytes, marks) + 1000);
  Reseal(&bad);
  DumpFile out;
  std::string error;
  EXPECT_FALSE(Parse(bad, &out, &error));
  EXPECT_NE(error.find("section 'history 0': history of memory"), std::string::npos)
      << error;
}

// A section this reader does not know, after the memories (a later
// version's optional data), is skipped; a dump without any reads as before.
TEST(DumpHistory, UnknownOptionalSectionsAreSkipped) {
  const DumpFile dump = SampleHistoryDump();
  std::string bytes = SerializeDump(dump);
  std::string extra = "zzzz";
  extra.append(4, '\0');
  const uint64_t length = 5;
  extra.append(reinterpret_cast<const char*>(&length), 8);
  extra.append("hello");
  bytes.insert(bytes.size() - 16, extra);
  Store<uint64_t>(&bytes, bytes.size() - 16, bytes.size() - 16);
  Reseal(&bytes);
  DumpFile back;
  std::string error;
  ASSERT_TRUE(Parse(bytes, &back, &error)) << error;
  EXPECT_EQ(CompareDumps(back, dump), "");
  DumpFile plain = dump;
  plain.histories.clear();
  ASSERT_TRUE(Parse(SerializeDump(plain), &back, &error)) << error;
  EXPECT_TRUE(back.histories.empty());
}

TEST(DumpHistory, WriterRefusesAHistoryOfNoMemory) {
  DumpFile dump = SampleHistoryDump();
  dump.histories[0].memory_id = 0x1e000000000000ffull;
  TempDir dir;
  std::string error;
  EXPECT_FALSE(testing::WriteDumpTo(dir / "x.rsd", dump, &error));
  EXPECT_TRUE(ContainsText(error, "which the dump does not hold"));
  dump.histories[0].memory_id = kFbId;
  dump.histories.push_back(dump.histories[0]);
  EXPECT_FALSE(testing::WriteDumpTo(dir / "x.rsd", dump, &error));
  EXPECT_TRUE(ContainsText(error, "two histories"));
}

}  // namespace
}  // namespace testing_dump
}  // namespace realm_shadow
