// libFuzzer target: arbitrary bytes as a Realm log.  The reader must never
// crash, and whatever it rebuilds must survive the report and a round trip
// through the dump format.  Links realm_shadow_tools.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "realm_shadow/dump/dump.h"
#include "realm_shadow/faces/realm_log.h"
#include "realm_shadow/faces/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  realm_shadow::RealmLogReader reader;
  reader.FeedText(std::string_view(reinterpret_cast<const char*>(data), size));
  realm_shadow::DumpFile dump = reader.Dump();
  for (const realm_shadow::Snapshot& s : dump.memories)
    (void)realm_shadow::FormatMemoryReport(s, realm_shadow::ReportOptions{});
  const std::string bytes = realm_shadow::SerializeDump(dump);
  if (!realm_shadow::ParseDump(reinterpret_cast<const uint8_t*>(bytes.data()),
                               bytes.size())
           .ok())
    __builtin_trap();  // what we wrote must read back
  return 0;
}
