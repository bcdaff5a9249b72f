// tests/format/dump_bytes.h - a dump file as bytes, for the tests that read
// and edit them: parse, load and store at an offset, reseal the checksum,
// find a section, add one.
//
// The offsets are the format document's (docs/dump-format.md), spelled here
// on their own so that the tests check the reader and writer against the
// document, not against their shared constants.
#ifndef REALM_SHADOW_TESTS_FORMAT_DUMP_BYTES_H_
#define REALM_SHADOW_TESTS_FORMAT_DUMP_BYTES_H_

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "gtest/gtest.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/format/internal/crc32c.h"
#include "tests/common/dump_io.h"

namespace realm_shadow {
namespace testing_dump {

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline bool Parse(const std::string& bytes, DumpFile* out, std::string* error) {
  return testing::ParseDumpTo(bytes, out, error);
}

inline ::testing::AssertionResult OneLine(const std::string& error) {
  if (error.empty()) return ::testing::AssertionFailure() << "empty error";
  if (error.find('\n') != std::string::npos) {
    return ::testing::AssertionFailure() << "multi-line: " << error;
  }
  return ::testing::AssertionSuccess();
}

// Whether the reader refuses `bytes` with a one-line error, which it leaves
// in *error for the caller's closer look: the check of every truncated or
// flipped file.
inline ::testing::AssertionResult RefusedInOneLine(const std::string& bytes,
                                                   std::string* error) {
  DumpFile out;
  if (Parse(bytes, &out, error))
    return ::testing::AssertionFailure() << "read, not refused";
  return OneLine(*error);
}

// Whether the reader refuses `bytes` with a one-line error naming `part`:
// the check of every hostile-file case, whose failure prints the error.
inline ::testing::AssertionResult RefusedNaming(const std::string& bytes,
                                                const std::string& part) {
  DumpFile out;
  std::string error;
  if (Parse(bytes, &out, &error))
    return ::testing::AssertionFailure() << "read, not refused naming \""
                                         << part << "\"";
  if (error.find(part) == std::string::npos ||
      error.find('\n') != std::string::npos)
    return ::testing::AssertionFailure()
           << "not one line naming \"" << part << "\": " << error;
  return ::testing::AssertionSuccess();
}

template <typename T>
T Load(const std::string& bytes, size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}
template <typename T>
void Store(std::string* bytes, size_t at, T v) {
  std::memcpy(&(*bytes)[at], &v, sizeof v);
}

// Makes the trailer's checksum right again after a test edited the body, so
// the edit reaches the parser instead of the checksum.
inline void Reseal(std::string* bytes) {
  const uint32_t crc = Crc32cExtend(0, bytes->data(), bytes->size() - 8);
  Store<uint32_t>(bytes, bytes->size() - 8, crc);
}

// A hostile edit: the low `width` bytes of `value` (little-endian, as the
// format is) written at byte `at`, the checksum made right again; the
// reader must refuse the file with a one-line error naming `part`.
struct HostileEdit {
  size_t at;
  size_t width;
  uint64_t value;
  const char* part;
};
inline ::testing::AssertionResult RefusedAfter(const std::string& bytes,
                                               const HostileEdit& edit) {
  std::string bad = bytes;
  std::memcpy(&bad[edit.at], &edit.value, edit.width);
  Reseal(&bad);
  return RefusedNaming(bad, edit.part) << " (edit at byte " << edit.at << ")";
}

// Byte offset of the payload of section `index` (0: header, 1: strings,
// 2...: memories), walking the section lengths.
inline size_t SectionPayload(const std::string& bytes, int index) {
  size_t at = 16;
  for (int i = 0; i < index; ++i) at += 16 + Load<uint64_t>(bytes, at + 8);
  return at + 16;
}

// Inserts a section (tag, payload) before the trailer and fixes the trailer.
inline std::string WithSection(std::string bytes, const char (&tag)[5],
                               const std::string& payload) {
  std::string section(tag, 4);
  section.append(4, '\0');
  const uint64_t length = payload.size();
  section.append(reinterpret_cast<const char*>(&length), 8);
  section += payload;
  bytes.insert(bytes.size() - 16, section);
  Store<uint64_t>(&bytes, bytes.size() - 16, bytes.size() - 16);
  Reseal(&bytes);
  return bytes;
}

}  // namespace testing_dump
}  // namespace realm_shadow

#endif  // REALM_SHADOW_TESTS_FORMAT_DUMP_BYTES_H_
