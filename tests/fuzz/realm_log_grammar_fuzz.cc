// libFuzzer target: arbitrary bytes as log lines, through the line grammar
// alone (realm_shadow/ingest/line_grammar.h).  It must never crash,
// and every view it returns must lie inside the line it was given (the
// replay keeps none of them past the line, but reads them all).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "realm_shadow/ingest/line_grammar.h"

namespace {

bool Inside(std::string_view part, std::string_view line) {
  return part.empty() || (part.data() >= line.data() &&
                          part.data() + part.size() <= line.data() + line.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    const realm_shadow::realm_log::LogLine l =
        realm_shadow::realm_log::ParseLogLine(line);
    if (!Inside(l.logger, line) || !Inside(l.message, line) ||
        !Inside(l.text, line))
      __builtin_trap();
    if (realm_shadow::realm_log::LineKindName(l.kind)[0] == '?')
      __builtin_trap();  // a kind without a name
    if (l.prefixed != (l.kind != realm_shadow::realm_log::LineKind::kEmpty &&
                       l.kind != realm_shadow::realm_log::LineKind::kUnprefixed &&
                       l.kind != realm_shadow::realm_log::LineKind::kMachineMemory))
      __builtin_trap();  // prefixed lines, and only they, have a logger kind
    begin = end + 1;
  }
  return 0;
}
