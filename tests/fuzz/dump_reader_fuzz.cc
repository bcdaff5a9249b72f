// tests/fuzz/dump_reader_fuzz.cc - libFuzzer target on the dump reader.
//
// Whatever the bytes, ParseDump must return (never crash, never read out of
// bounds, never allocate beyond a small multiple of the input).  When it
// accepts the bytes, writing the result and reading it back must give the
// same dump, field by field, and every history it holds must replay (its
// first, middle and last moments) without a crash.
//
// The seeds (tests/fuzz/corpus/dump_reader) hold version 2 dumps with a
// pools section, a version 1 dump (sample-v1.rsd) and a version 1 dump
// with a history section (history.rsd), so that the optional sections'
// walk, the pools and history sections and the version 1 path are all
// reached.
//
// A mutated file almost never keeps a valid CRC-32C, so each input is also
// tried with its trailer rewritten to describe it (length, checksum, end
// marker): that lets the fuzzer reach accepted dumps and the round trip, not
// only the rejections.  Each input also goes through DumpMoments, the reader
// of one moment (CheckMoments).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "realm_shadow/format/internal/crc32c.h"
#include "realm_shadow/format/dump.h"
#include "tests/common/snapshot_compare.h"
#include "realm_shadow/analysis/history_cursor.h"

namespace {

// The reader for one moment (DumpMoments, what `at` runs) checks less than
// ParseDump (not the checksum, not the records it does not read), so it may
// accept what ParseDump refuses, but it must never crash on it; on a dump
// ParseDump accepts it must accept too, and the state at a moment from its
// cut must be the state from the whole history.
void CheckMoments(const uint8_t* data, size_t size,
                  const realm_shadow::DumpFile* whole) {
  realm_shadow::DumpMoments moments;
  if (const absl::Status parsed = moments.Parse(data, size, /*verify_checksum=*/false);
      !parsed.ok()) {
    if (whole != nullptr) {
      std::fprintf(stderr, "DumpMoments refuses an accepted dump: %s\n",
                   std::string(parsed.message()).c_str());
      std::abort();
    }
    return;
  }
  for (size_t i = 0; i < moments.histories().size(); ++i) {
    const auto& o = moments.histories()[i];
    for (uint64_t s : {o.first_sequence, (o.first_sequence + o.end_sequence) / 2,
                       o.end_sequence}) {
      const absl::StatusOr<realm_shadow::MemoryHistory> cut = moments.HistoryFor(i, s);
      const absl::StatusOr<realm_shadow::Snapshot> from_cut =
          cut.ok() ? realm_shadow::StateAt(*cut, s) : cut.status();
      if (!from_cut.ok()) {
        if (whole != nullptr) {
          std::fprintf(stderr, "moment %llu of an accepted history, cut: %s\n",
                       static_cast<unsigned long long>(s),
                       std::string(from_cut.status().message()).c_str());
          std::abort();
        }
        continue;
      }
      if (whole == nullptr) continue;
      const absl::StatusOr<realm_shadow::Snapshot> from_whole =
          realm_shadow::StateAt(whole->histories[i], s);
      if (!from_whole.ok()) std::abort();
      const std::string diff =
          realm_shadow::testing::CompareSnapshots(
          *from_cut, *from_whole, realm_shadow::testing::SnapshotFields::kAll);
      if (!diff.empty()) {
        std::fprintf(stderr, "moment %llu from a cut differs: %s\n",
                     static_cast<unsigned long long>(s), diff.c_str());
        std::abort();
      }
    }
  }
}

void Check(const uint8_t* data, size_t size) {
  const absl::StatusOr<realm_shadow::DumpFile> dump = realm_shadow::ParseDump(data, size);
  if (!dump.ok()) {
    const std::string error(dump.status().message());
    if (error.empty() || error.find('\n') != std::string::npos) {
      std::fprintf(stderr, "bad error text: '%s'\n", error.c_str());
      std::abort();
    }
    CheckMoments(data, size, nullptr);
    return;
  }
  CheckMoments(data, size, &*dump);
  // Every history replays: its first, middle and last moments.
  for (const realm_shadow::MemoryHistory& h : dump->histories) {
    for (uint64_t s : {h.first_sequence(),
                       h.first_sequence() + h.events.size() / 2,
                       h.end_sequence()}) {
      const absl::StatusOr<realm_shadow::Snapshot> state = realm_shadow::StateAt(h, s);
      if (!state.ok()) {
        std::fprintf(stderr, "moment %llu of an accepted history: %s\n",
                     static_cast<unsigned long long>(s),
                     std::string(state.status().message()).c_str());
        std::abort();
      }
    }
  }
  const std::string bytes = realm_shadow::SerializeDump(*dump);
  absl::StatusOr<realm_shadow::DumpFile> again =
      realm_shadow::ParseDump(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (!again.ok()) {
    std::fprintf(stderr, "re-serialized dump does not parse: %s\n",
                 std::string(again.status().message()).c_str());
    std::abort();
  }
  // A version 1 input is written back as the current version; everything
  // else must be the same, pools section included.
  again->version = dump->version;
  const std::string diff = realm_shadow::testing::CompareDumps(*again, *dump);
  if (!diff.empty()) {
    std::fprintf(stderr, "round trip differs: %s\n", diff.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Check(data, size);
  if (size >= 32) {
    std::string sealed(reinterpret_cast<const char*>(data), size);
    const uint64_t body = size - 16;
    const uint32_t end = 0x444E4552u;  // "REND"
    std::memcpy(&sealed[size - 16], &body, 8);
    const uint32_t crc = realm_shadow::Crc32cExtend(0, sealed.data(), size - 8);
    std::memcpy(&sealed[size - 8], &crc, 4);
    std::memcpy(&sealed[size - 4], &end, 4);
    Check(reinterpret_cast<const uint8_t*>(sealed.data()), size);
  }
  return 0;
}
