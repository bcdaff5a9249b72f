// realm_shadow/format/dump_marker.h - the line a dump leaves in the host's
// log, written by the live side and read by ingest-realm-log --cut-at-dump.
//
// Layer format: the grammar of the line only (log_sink.h says when it is
// written and why).  A marker says which memory, at which event sequence, on
// which node, why and where the dump went; the path comes last and runs to
// the end of the line, so it may hold spaces.  Parsing never fails loudly:
// a line that is not a marker is simply not one.
#ifndef REALM_SHADOW_FORMAT_DUMP_MARKER_H_
#define REALM_SHADOW_FORMAT_DUMP_MARKER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(format);

// What the marker line says: "dump memory=0x.. sequence=N node=K
// reason=R file=PATH".
struct DumpMarker {
  uint64_t memory_id = 0;
  uint64_t sequence = 0;
  uint32_t node = 0;
  std::string reason;  // request | failure | periodic
  std::string file;    // absolute path, as written
};
std::string DumpMarkerLine(const DumpMarker& marker);
// Parses a log message (the text after "{level}{logger}: "); false when it
// is not a marker line.
bool ParseDumpMarker(std::string_view message, DumpMarker* out);
std::string DumpBeginLine(const DumpMarker& marker);  // sequence not used
bool ParseDumpBegin(std::string_view message, DumpMarker* out);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_FORMAT_DUMP_MARKER_H_
