// libFuzzer target: arbitrary bytes as a Realm log (Realm, Legion Spy and
// Legate lines mixed).  The reader must never crash, and whatever it
// rebuilds must survive the report (grouped by every attribute it knows) and
// a round trip through the dump format.  Links realm_shadow_faces.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/ingest/realm_log.h"
#include "realm_shadow/render/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  realm_shadow::RealmLogReader reader;
  reader.FeedText(std::string_view(reinterpret_cast<const char*>(data), size));
  realm_shadow::IngestSummary summary;
  realm_shadow::DumpFile dump = reader.Dump(&summary);
  for (const char* by : {"", "task", "store", "region", "kind"}) {
    realm_shadow::ReportOptions options;
    options.group_by = by;
    (void)realm_shadow::FormatReport({dump}, {"fuzz"}, options);
  }
  const std::string bytes = realm_shadow::SerializeDump(dump);
  if (!realm_shadow::ParseDump(reinterpret_cast<const uint8_t*>(bytes.data()),
                               bytes.size())
           .ok())
    __builtin_trap();  // what we wrote must read back
  return 0;
}
