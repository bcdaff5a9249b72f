// tests/common/dump_io.h - the dump API (dump.h: absl::Status and
// absl::StatusOr) spelled for tests that compare error text: true, or false
// with *error set to the status's one-line message.
#ifndef REALM_SHADOW_TESTS_COMMON_DUMP_IO_H_
#define REALM_SHADOW_TESTS_COMMON_DUMP_IO_H_

#include <string>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/live/dump.h"

namespace realm_shadow::testing {

// True when the status is ok; else false, with *error its message.
inline bool Succeeded(const absl::Status& status, std::string* error) {
  if (!status.ok()) *error = std::string(status.message());
  return status.ok();
}

inline bool Taken(absl::StatusOr<DumpFile> dump, DumpFile* out, std::string* error) {
  if (!dump.ok()) return Succeeded(dump.status(), error);
  *out = *std::move(dump);
  return true;
}

inline bool ReadDumpTo(const std::string& path, DumpFile* out, std::string* error) {
  return Taken(ReadDump(path), out, error);
}
inline bool ParseDumpTo(const std::string& bytes, DumpFile* out, std::string* error) {
  return Taken(ParseDump(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
               out, error);
}
inline bool WriteDumpTo(const std::string& path, const DumpFile& dump, std::string* error) {
  return Succeeded(WriteDump(path, dump), error);
}
inline bool DumpMemoryStateTo(uint64_t memory_id, const std::string& path,
                              std::string* error) {
  return Succeeded(DumpMemoryState(memory_id, path), error);
}

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_COMMON_DUMP_IO_H_
