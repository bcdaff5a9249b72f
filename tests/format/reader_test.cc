// tests/format/reader_test.cc - the dump reader (format/reader.cc): what a
// written dump reads back as, files of older versions, and every kind of bad
// file getting a clean one-line error.  The history section has its own
// file (history_section_test.cc).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "realm_shadow/format/dump.h"
#include "tests/common/contains_text.h"
#include "tests/common/dump_io.h"
#include "tests/common/snapshot_compare.h"
#include "tests/common/temp_dir.h"
#include "tests/format/dump_bytes.h"
#include "tests/format/sample_dump.h"

namespace realm_shadow {
namespace {

namespace fs = std::filesystem;
using testing::CompareDumps;
using testing::ContainsText;
using testing::TempDir;
using testing_dump::Load;
using testing_dump::OneLine;
using testing_dump::Parse;
using testing_dump::HostileEdit;
using testing_dump::ReadBytes;
using testing_dump::RefusedAfter;
using testing_dump::RefusedInOneLine;
using testing_dump::RefusedNaming;
using testing_dump::Reseal;
using testing_dump::SampleDump;
using testing_dump::SectionPayload;
using testing_dump::Store;
using testing_dump::WithSection;
using testing_dump::WriteBytes;

TEST(DumpFormat, RoundTripThroughAFile) {
  TempDir dir;
  const DumpFile dump = SampleDump();
  std::string error;
  ASSERT_TRUE(testing::WriteDumpTo(dir / "a.rsd", dump, &error)) << error;
  EXPECT_EQ(dir.Entries(), std::vector<std::string>{"a.rsd"});  // no temp left
  DumpFile back;
  ASSERT_TRUE(testing::ReadDumpTo(dir / "a.rsd", &back, &error)) << error;
  EXPECT_EQ(CompareDumps(back, dump), "");
  EXPECT_EQ(ReadBytes(dir / "a.rsd"), SerializeDump(dump));
  // The sample is small enough to be a fuzz seed.
  EXPECT_LT(SerializeDump(dump).size(), 10000u);
}

// A failure's flag byte is a bit set: 1 eventual, 2 maybe cancelled (a
// log's rebuild that cannot tell a refusal from a cancellation).  Both
// round-trip, the JSON says so, and a bit no writer sets is refused.
TEST(DumpFormat, AFailuresMaybeCancelledBitRoundTrips) {
  DumpFile dump = SampleDump();
  ASSERT_FALSE(dump.memories.empty());
  ASSERT_GE(dump.memories[0].failures.size(), 2u);
  dump.memories[0].failures[0].maybe_cancelled = true;
  const std::string bytes = SerializeDump(dump);
  DumpFile back;
  std::string error;
  ASSERT_TRUE(Parse(bytes, &back, &error)) << error;
  EXPECT_EQ(CompareDumps(back, dump), "");
  EXPECT_TRUE(back.memories[0].failures[0].maybe_cancelled);
  EXPECT_FALSE(back.memories[0].failures[1].maybe_cancelled);
  EXPECT_TRUE(ContainsText(DumpToJson(back), "\"maybe_cancelled\":true"));
  // The flag byte of the first failure, found by its bytes: with bit 4 set
  // the file is refused.
  const Failure& f = dump.memories[0].failures[0];
  std::string record(32, '\0');
  std::memcpy(&record[0], &f.instance, 8);
  std::memcpy(&record[8], &f.size, 8);
  std::memcpy(&record[16], &f.alignment, 8);
  std::memcpy(&record[24], &f.sequence, 8);
  const size_t at = bytes.find(record);
  ASSERT_NE(at, std::string::npos);
  const size_t flags = at + 32 + 4;
  EXPECT_EQ(static_cast<uint8_t>(bytes[flags]), (f.eventual ? 1 : 0) | 2);
  std::string bad = bytes;
  bad[flags] = static_cast<char>(bad[flags] | 4);
  Reseal(&bad);
  EXPECT_TRUE(RefusedNaming(bad, "a failure has a bad flag"));
}

TEST(DumpFormat, RoundTripEmptyAndLarge) {
  DumpFile empty;
  std::string error;
  DumpFile back;
  ASSERT_TRUE(Parse(SerializeDump(empty), &back, &error)) << error;
  EXPECT_EQ(CompareDumps(back, empty), "");

  // 100k allocations: the streaming path that bypasses the buffer.
  DumpFile big;
  big.memories.emplace_back();
  Snapshot& s = big.memories.back();
  s.memory_id = testing_dump::kFbId;
  s.capacity = uint64_t{1} << 40;
  for (uint64_t i = 0; i < 100000; ++i) {
    s.allocations.push_back(testing_dump::MakeAllocation(
        0x4000000000000000ull + i, i * 4096, 4096, 12,
        static_cast<AllocationKind>(i % kAllocationKindCount)));
  }
  TempDir dir;
  ASSERT_TRUE(testing::WriteDumpTo(dir / "big.rsd", big, &error)) << error;
  ASSERT_TRUE(testing::ReadDumpTo(dir / "big.rsd", &back, &error)) << error;
  EXPECT_EQ(CompareDumps(back, big), "");
}

TEST(DumpFormat, TruncatedAtEveryOffset) {
  const std::string bytes = SerializeDump(SampleDump());
  for (size_t k = 0; k < bytes.size(); ++k) {
    std::string error;
    ASSERT_TRUE(RefusedInOneLine(bytes.substr(0, k), &error)) << "length " << k;
    if (k == 0) {
      EXPECT_EQ(error, "empty file");
    } else {
      EXPECT_TRUE(ContainsText(error, "truncated ("))
          << "length " << k << ": " << error;
    }
  }
  DumpFile out;
  std::string error;
  EXPECT_FALSE(Parse(bytes.substr(0, 100), &out, &error));
  EXPECT_EQ(error, "truncated (section 'string table' needs " +
                       std::to_string(Load<uint64_t>(bytes, 16 + 16 + 32 + 8)) +
                       " bytes, " + std::to_string(100 - 80) + " left)");
}

TEST(DumpFormat, EveryFlippedByteIsCaught) {
  const std::string bytes = SerializeDump(SampleDump());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x10;
    std::string error;
    ASSERT_TRUE(RefusedInOneLine(bad, &error)) << "byte " << i;
    const bool body = i >= 16 && i < bytes.size() - 16;
    const bool crc = i >= bytes.size() - 8 && i < bytes.size() - 4;
    if (body || crc) EXPECT_EQ(error, "checksum mismatch") << "byte " << i;
  }
  std::string bad = bytes;
  bad[bytes.size() - 5] ^= 1;  // inside the CRC itself
  DumpFile out;
  std::string error;
  EXPECT_FALSE(Parse(bad, &out, &error));
  EXPECT_EQ(error, "checksum mismatch");
}

TEST(DumpFormat, ForeignFiles) {
  const std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  const std::string elf(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0",
      16);
  for (const std::string& foreign :
       {png, elf, std::string("hello, world\n"), std::string("R"),
        std::string("RSHADOX\0", 8), std::string(4096, '\0')}) {
    DumpFile out;
    std::string error;
    EXPECT_FALSE(Parse(foreign, &out, &error));
    EXPECT_EQ(error, foreign == "R"
                         ? "truncated (preamble needs 16 bytes, 1 left)"
                         : "not a realm-shadow dump (bad magic)");
  }
  TempDir dir;
  WriteBytes(dir / "notes.txt",
             "these are not the bytes you are looking for\n");
  DumpFile out;
  std::string error;
  EXPECT_FALSE(testing::ReadDumpTo(dir / "notes.txt", &out, &error));
  EXPECT_EQ(error, dir / "notes.txt" + ": not a realm-shadow dump (bad magic)");
}

TEST(DumpFormat, WrongVersion) {
  std::string bytes = SerializeDump(SampleDump());
  Store<uint32_t>(&bytes, 8, 7);
  DumpFile out;
  std::string error;
  EXPECT_FALSE(Parse(bytes, &out, &error));
  EXPECT_EQ(error, "unsupported version 7 (this reader knows 1 to 2)");
}

TEST(DumpFormat, SwappedEndiannessMarker) {
  std::string bytes = SerializeDump(SampleDump());
  Store<uint32_t>(&bytes, 12, 0x04030201u);
  Store<uint32_t>(&bytes, 8,
                  __builtin_bswap32(1));  // as a foreign writer has it
  DumpFile out;
  std::string error;
  EXPECT_FALSE(Parse(bytes, &out, &error));
  EXPECT_TRUE(ContainsText(error, "big-endian/foreign-endian file"));
  EXPECT_TRUE(OneLine(error));

  Store<uint32_t>(&bytes, 12, 0xdeadbeefu);
  EXPECT_FALSE(Parse(bytes, &out, &error));
  EXPECT_EQ(error, "bad byte order marker 0xdeadbeef");
}

TEST(DumpFormat, EmptyMissingAndDirectory) {
  TempDir dir;
  WriteBytes(dir / "empty.rsd", "");
  DumpFile out;
  std::string error;
  EXPECT_FALSE(testing::ReadDumpTo(dir / "empty.rsd", &out, &error));
  EXPECT_EQ(error, dir / "empty.rsd" + ": empty file");
  EXPECT_FALSE(testing::ReadDumpTo(dir / "missing.rsd", &out, &error));
  EXPECT_EQ(error,
            dir / "missing.rsd" + ": cannot open: No such file or directory");
  EXPECT_FALSE(testing::ReadDumpTo(dir.path(), &out, &error));
  EXPECT_EQ(error, dir.path() + ": not a regular file");
}

// Hostile counts with a correct checksum: clean errors, and no allocation
// beyond the file's size (a count of 2^60 allocations would otherwise ask
// for 32 EiB).
TEST(DumpFormat, HostileCountsWithAValidChecksum) {
  const std::string good = SerializeDump(SampleDump());
  const size_t memory0 = SectionPayload(good, 2);
  const size_t counts = memory0 + 40;
  const char* expected[] = {"allocations", "pending requests", "reservations",
                            "failures",    "anomalies",        "identities"};
  for (int field = 0; field < 6; ++field) {
    for (uint64_t n :
         {uint64_t{1} << 60, uint64_t{UINT64_MAX}, uint64_t{5000}}) {
      std::string bad = good;
      Store<uint64_t>(&bad, counts + 8 * field, n);
      Reseal(&bad);
      DumpFile out;
      std::string error;
      EXPECT_FALSE(Parse(bad, &out, &error)) << field << " " << n;
      EXPECT_TRUE(OneLine(error));
      EXPECT_TRUE(ContainsText(error, expected[field]))
          << field << " " << n << ": " << error;
      EXPECT_NE(error.find("section 'memory 0'"), std::string::npos) << error;
    }
  }
  // The memory count in the header.
  std::string bad = good;
  Store<uint32_t>(&bad, SectionPayload(good, 0) + 4, 0xffffffffu);
  Reseal(&bad);
  DumpFile out;
  std::string error;
  EXPECT_FALSE(Parse(bad, &out, &error));
  EXPECT_TRUE(ContainsText(error, "header claims 4294967295 memories"));
  // The string count, and a string reference out of range.
  bad = good;
  Store<uint32_t>(&bad, SectionPayload(good, 1), 0x7fffffffu);
  Reseal(&bad);
  EXPECT_FALSE(Parse(bad, &out, &error));
  EXPECT_TRUE(ContainsText(error, "string table claims 2147483647 strings"));
  bad = good;
  Store<uint32_t>(&bad, memory0 + 28, 999);  // the name's string index
  Reseal(&bad);
  EXPECT_FALSE(Parse(bad, &out, &error));
  EXPECT_EQ(error,
            "section 'memory 0' name refers to string 999 of " +
                std::to_string(Load<uint32_t>(good, SectionPayload(good, 1))));
  // A section length past the end.
  bad = good;
  Store<uint64_t>(&bad, memory0 - 8, uint64_t{1} << 62);
  Reseal(&bad);
  EXPECT_FALSE(Parse(bad, &out, &error));
  EXPECT_NE(
      error.find("truncated (section 'memory 0' needs 4611686018427387904"),
      std::string::npos)
      << error;
}

TEST(DumpFormat, BadEnumValuesAndRanges) {
  const std::string good = SerializeDump(SampleDump());
  const size_t memory0 = SectionPayload(good, 2);
  const size_t records =
      memory0 + 40 + 48 + 8 + 8 * (kEventTypeCount + kAnomalyKindCount) + 32;
  // One byte each.
  const HostileEdit edits[] = {
      {memory0 + 32, 1, 200, "unknown memory kind 200"},
      {memory0 + 33, 1, 2, "neither 0 nor 1"},
      {records + 28, 1, 64, "allocation 0 has alignment 2^64"},
      {records + 29, 1, 3, "allocation 0 has unknown state 3"},
      {records + 31, 1, 8, "allocation 0 has unknown kind 8"},
  };
  for (const HostileEdit& edit : edits) EXPECT_TRUE(RefusedAfter(good, edit));
  std::string bad = good;
  Store<uint64_t>(&bad, records, UINT64_MAX - 10);  // offset + size wraps
  Reseal(&bad);
  DumpFile out;
  std::string error;
  EXPECT_FALSE(Parse(bad, &out, &error));
  EXPECT_TRUE(ContainsText(error, "range past 2^64"));
}

// One long string referenced by many attributes: 8 bytes of reference must
// not cost 100 KiB each.
TEST(DumpFormat, StringReuseIsBounded) {
  DumpFile d;
  d.memories.emplace_back();
  Snapshot& s = d.memories.back();
  s.name = std::string(100000, 'n');
  Identity id;
  id.id = 1;
  for (int i = 0; i < 200; ++i) id.attributes.push_back({"k", "v"});
  s.identities.push_back(id);
  std::string bytes = SerializeDump(d);
  // Strings: 0 source, 1 name, then the attributes.  Point them all at 1.
  const size_t first_attribute = bytes.size() - 16 - 8 * 200;
  for (int i = 0; i < 400; ++i)
    Store<uint32_t>(&bytes, first_attribute + 4 * i, 1);
  Reseal(&bytes);
  DumpFile out;
  std::string error;
  EXPECT_FALSE(Parse(bytes, &out, &error));
  EXPECT_TRUE(ContainsText(error, "string references expand"));
  // A few repeats are fine.
  bytes = SerializeDump(d);
  for (int i = 0; i < 4; ++i)
    Store<uint32_t>(&bytes, first_attribute + 4 * i, 1);
  Reseal(&bytes);
  ASSERT_TRUE(Parse(bytes, &out, &error)) << error;
  EXPECT_EQ(out.memories[0].identities[0].attributes[0].first, s.name);
}

TEST(DumpFormat, TrailingGarbageAndCorruptTrailer) {
  const std::string good = SerializeDump(SampleDump());
  DumpFile out;
  std::string error;
  EXPECT_FALSE(Parse(good + "xyz", &out, &error));
  EXPECT_EQ(error.rfind("3 unexpected bytes after the last memory (tag '", 0), 0u) << error;
  std::string bad = good;
  Store<uint32_t>(&bad, bad.size() - 4, 0);  // the end marker
  EXPECT_FALSE(Parse(bad, &out, &error));
  EXPECT_EQ(error, "corrupt trailer");
}

// An unknown optional section's tag is checked by its first byte only; an
// error naming the section prints the rest as '?' where it is not
// printable, so that it stays one line (a fuzzer's find: a tag "z\n..."
// whose section runs past the end).
TEST(DumpFormat, AnUnknownSectionsTagPrintsOnOneLine) {
  std::string bytes = SerializeDump(SampleDump());
  std::string section("z\n\x01y", 4);
  section.append(4, '\0');
  const uint64_t length = 1 << 20;  // past the end
  section.append(reinterpret_cast<const char*>(&length), 8);
  bytes.insert(bytes.size() - 16, section);
  Store<uint64_t>(&bytes, bytes.size() - 16, bytes.size() - 16);
  Reseal(&bytes);
  DumpFile out;
  std::string error;
  ASSERT_FALSE(Parse(bytes, &out, &error));
  EXPECT_NE(error.find("optional 'z??y'"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

// Optional sections: a reader skips the ones it does not know (their tag
// starts with a lowercase letter), refuses other unknown tags, and reads the
// pools section once.
TEST(DumpFormat, OptionalSectionsAreSkippedOrRefused) {
  const DumpFile dump = SampleDump();
  const std::string good = SerializeDump(dump);
  DumpFile out;
  std::string error;
  ASSERT_TRUE(Parse(WithSection(good, "huhu", std::string(40, 'x')), &out, &error)) << error;
  EXPECT_EQ(CompareDumps(out, dump), "");
  ASSERT_TRUE(Parse(WithSection(good, "zzzz", ""), &out, &error)) << error;
  EXPECT_FALSE(Parse(WithSection(good, "HIST", std::string(8, '\0')), &out, &error));
  EXPECT_NE(error.find("not an optional section's"), std::string::npos) << error;
  // The pools section twice.
  const size_t pools = SectionPayload(good, 5) - 16;
  const std::string section = good.substr(pools, good.size() - 16 - pools);
  std::string twice = good;
  twice.insert(twice.size() - 16, section);
  Store<uint64_t>(&twice, twice.size() - 16, twice.size() - 16);
  Reseal(&twice);
  EXPECT_FALSE(Parse(twice, &out, &error));
  EXPECT_EQ(error, "section 'pools' appears twice");
  // A known tag is read, not skipped: 40 bytes are no history.
  EXPECT_FALSE(Parse(WithSection(good, "hist", std::string(40, 'x')), &out, &error));
  EXPECT_TRUE(ContainsText(error, "less than its fixed 64"));
  // A version 1 file may hold optional sections too (its writers added
  // 'hist' ones): an unknown one is skipped there as well.
  std::string v1 = WithSection(good, "huhu", std::string(8, 'x'));
  Store<uint32_t>(&v1, 8, 1);
  Reseal(&v1);
  ASSERT_TRUE(Parse(v1, &out, &error)) << error;
  EXPECT_EQ(out.version, 1u);
}

TEST(DumpFormat, PoolsSectionRoundTripsAndRefusesHostileCounts) {
  DumpFile dump = SampleDump();
  DumpFile out;
  std::string error;
  ASSERT_TRUE(Parse(SerializeDump(dump), &out, &error)) << error;
  ASSERT_EQ(out.pools.size(), 1u);
  EXPECT_EQ(out.pools[0].suballocations.at(0).identity, 2u);
  EXPECT_EQ(CompareDumps(out, dump), "");
  dump.pools.clear();
  ASSERT_TRUE(Parse(SerializeDump(dump), &out, &error)) << error;
  EXPECT_TRUE(out.pools.empty());  // no section at all without pools

  const std::string good = SerializeDump(SampleDump());
  const size_t payload = SectionPayload(good, 5);
  std::string bad = good;
  Store<uint32_t>(&bad, payload, 0xffffffffu);  // pool count
  Reseal(&bad);
  EXPECT_FALSE(Parse(bad, &out, &error));
  EXPECT_NE(error.find("section 'pools': 4294967295 pools need"), std::string::npos) << error;
  bad = good;
  Store<uint64_t>(&bad, payload + 8 + 40, uint64_t{1} << 61);  // sub-allocations
  Reseal(&bad);
  EXPECT_FALSE(Parse(bad, &out, &error));
  EXPECT_TRUE(
      ContainsText(error, "pool 0: 2305843009213693952 sub-allocations need"));
  bad = good;
  Store<uint32_t>(&bad, payload + 8 + 48 + 28, 1);  // padding
  Reseal(&bad);
  EXPECT_FALSE(Parse(bad, &out, &error));
  EXPECT_TRUE(ContainsText(error, "nonzero padding"));
}

// The gcun section: the memories whose source cannot know GC state (a
// stock log's rebuild).  A dump where every memory's is known carries no
// such section, so a tracker's dump is what it was; indices past the
// memories, unordered, or a second section are refused.
TEST(DumpFormat, GcUnknownSectionRoundTripsAndIsAbsentWhenEveryStateIsKnown) {
  DumpFile dump = SampleDump();
  ASSERT_FALSE(dump.memories.empty());
  const std::string known = SerializeDump(dump);
  EXPECT_FALSE(ContainsText(known, "gcun"));
  DumpFile out;
  std::string error;
  ASSERT_TRUE(Parse(known, &out, &error)) << error;
  for (const Snapshot& s : out.memories) EXPECT_TRUE(s.gc_state_known);

  const size_t last = dump.memories.size() - 1;
  dump.memories[last].gc_state_known = false;
  const std::string unknown = SerializeDump(dump);
  EXPECT_TRUE(ContainsText(unknown, "gcun"));
  ASSERT_TRUE(Parse(unknown, &out, &error)) << error;
  for (size_t i = 0; i < out.memories.size(); ++i)
    EXPECT_EQ(out.memories[i].gc_state_known, i != last) << i;
  EXPECT_EQ(CompareDumps(out, dump), "");

  const auto payload = [](std::vector<uint32_t> words) {
    return std::string(reinterpret_cast<const char*>(words.data()), words.size() * 4);
  };
  EXPECT_FALSE(Parse(WithSection(known, "gcun", payload({1, 0, 99})), &out, &error));
  EXPECT_NE(error.find("section 'gc unknown': memory 99 of"), std::string::npos) << error;
  EXPECT_TRUE(OneLine(error));
  if (dump.memories.size() > 1) {
    EXPECT_FALSE(Parse(WithSection(known, "gcun", payload({2, 0, 1, 0})), &out, &error));
    EXPECT_TRUE(ContainsText(error, "not ascending"));
  }
  EXPECT_FALSE(Parse(WithSection(known, "gcun", payload({2, 0, 0})), &out, &error));
  EXPECT_TRUE(ContainsText(
      error, "2 memory indices need 8 bytes, the section holds 4"));
  EXPECT_FALSE(Parse(WithSection(unknown, "gcun", payload({1, 0, 0})), &out, &error));
  EXPECT_TRUE(ContainsText(error, "appears twice"));
}

// A dump's identities are sorted by id on reading (Snapshot::FindIdentity
// searches them); one id twice is refused.
TEST(DumpFormat, IdentitiesAreSortedAndUnique) {
  DumpFile dump = SampleDump();
  std::reverse(dump.memories[0].identities.begin(), dump.memories[0].identities.end());
  DumpFile out;
  std::string error;
  ASSERT_TRUE(Parse(SerializeDump(dump), &out, &error)) << error;
  ASSERT_EQ(out.memories[0].identities.size(), 2u);
  EXPECT_EQ(out.memories[0].identities[0].id, 1u);
  ASSERT_NE(out.memories[0].FindIdentity(2), nullptr);
  EXPECT_EQ(out.memories[0].FindIdentity(2)->kind, AllocationKind::kDeferredBuffer);
  dump.memories[0].identities[0].id = 1;
  EXPECT_FALSE(Parse(SerializeDump(dump), &out, &error));
  EXPECT_EQ(error, "section 'memory 0': identity 1 is listed twice");
}

// The fuzz target's seeds (tests/fuzz/corpus/dump_reader) are small valid
// dumps made here; REALM_SHADOW_WRITE_SEEDS=1 rewrites them after a format
// change.  They must stay readable and equal to what made them.
std::vector<std::pair<std::string, DumpFile>> Seeds() {
  DumpFile empty;
  empty.source = "tracker";
  DumpFile one;
  one.node = 1;
  one.source = "ingest-realm-log";
  one.notes = {"capacity unknown"};
  one.memories.emplace_back();
  Snapshot& s = one.memories.back();
  s.memory_id = testing_dump::kFbId;
  s.kind = MemoryKind::kZeroCopy;
  s.capacity_known = false;
  s.name = "zc";
  s.allocations = {testing_dump::MakeAllocation(0x4000000000000001ull, 64, 128,
                                                6, AllocationKind::kFuture, 1)};
  Identity id;
  id.id = 1;
  id.kind = AllocationKind::kFuture;
  id.attributes = {{"creator", "t"}};
  s.identities = {id};
  // Both optional sections in one file: a pool in the history's memory.
  DumpFile both = testing_dump::SampleHistoryDump();
  Pool pool;
  pool.pool = 0x4000000000000001ull;
  pool.memory_id = testing_dump::kFbId;
  pool.backing_instance = 1;
  pool.size = 4096;
  pool.suballocations = {{0x4000000000000101ull, 0, 1024, 7}};
  both.pools = {pool};
  return {{"empty.rsd", empty},
          {"one.rsd", one},
          {"sample.rsd", SampleDump()},
          {"history.rsd", testing_dump::SampleHistoryDump()},
          {"pools-history.rsd", both}};
}

// A version 1 file with a history section (written before the pools
// section and version 2 existed) reads as it was written.
TEST(DumpFormat, Version1FilesWithAHistoryStillRead) {
  DumpFile back;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(std::string(REALM_SHADOW_DUMP_SEED_DIR) + "/history-v1.rsd",
                                  &back, &error))
      << error;
  DumpFile want = testing_dump::SampleHistoryDump();
  want.version = 1;
  ASSERT_EQ(back.histories.size(), 1u);
  EXPECT_EQ(testing::CompareDumps(back, want), "");
}

// A file written before the heap-observation events existed counts 12 event
// types: it reads, with the later types at zero and everything else as it
// was written (the sample dump, whose counters are 100 + type).
TEST(DumpFormat, FilesCountingFewerEventTypesStillRead) {
  DumpFile back;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(std::string(REALM_SHADOW_DUMP_DATA_DIR) +
                           "/sample-12-event-types.rsd",
                       &back, &error))
      << error;
  DumpFile want = SampleDump();
  want.version = 1;  // a version 1 file, read as it was written
  want.pools.clear();  // version 1 had no pools section
  for (Snapshot& s : want.memories)
    for (int t = 12; t < kEventTypeCount; ++t) s.counters.by_type[t] = 0;
  EXPECT_EQ(testing::CompareDumps(back, want), "");
  EXPECT_EQ(back.memories[0].counters.by_type[11], 111u);
}

TEST(DumpFormat, FuzzSeedCorpus) {
  const std::string dir = REALM_SHADOW_DUMP_SEED_DIR;
  for (const auto& [name, dump] : Seeds()) {
    const std::string path = dir + "/" + name;
    if (std::getenv("REALM_SHADOW_WRITE_SEEDS") != nullptr) {
      std::string error;
      ASSERT_TRUE(testing::WriteDumpTo(path, dump, &error)) << error;
    }
    DumpFile back;
    std::string error;
    ASSERT_TRUE(testing::ReadDumpTo(path, &back, &error)) << error;
    EXPECT_EQ(testing::CompareDumps(back, dump), "") << name;
    EXPECT_LT(fs::file_size(path), 10000u);
  }
}

}  // namespace
}  // namespace realm_shadow
