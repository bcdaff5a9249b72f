// The dump marker line's grammar (dump_marker.h).
#include "realm_shadow/format/dump_marker.h"

#include <utility>

#include "realm_shadow/core/text.h"

namespace realm_shadow {
namespace {

bool ParseUnsigned(std::string_view text, int base, uint64_t* value) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base))
      return false;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  *value = v;
  return true;
}

}  // namespace

std::string DumpMarkerLine(const DumpMarker& m) {
  return "dump memory=" + HexId(m.memory_id) +
         " sequence=" + std::to_string(m.sequence) +
         " node=" + std::to_string(m.node) + " reason=" + OneLine(m.reason) +
         " file=" + OneLine(m.file);
}

bool ParseDumpMarker(std::string_view message, DumpMarker* out) {
  constexpr std::string_view kHead = "dump memory=";
  if (message.substr(0, kHead.size()) != kHead) return false;
  std::string_view rest = message.substr(kHead.size());
  DumpMarker m;
  auto take = [&rest](std::string_view key, std::string_view* value) {
    // "<value> key2=..." : the value runs to the next space.
    const size_t space = rest.find(' ');
    if (space == std::string_view::npos) return false;
    *value = rest.substr(0, space);
    rest.remove_prefix(space + 1);
    if (rest.substr(0, key.size()) != key) return false;
    rest.remove_prefix(key.size());
    return true;
  };
  std::string_view memory, sequence, node, reason;
  if (!take("sequence=", &memory) || !take("node=", &sequence) ||
      !take("reason=", &node) || !take("file=", &reason))
    return false;
  if (memory.substr(0, 2) == "0x") memory.remove_prefix(2);
  uint64_t node_value = 0;
  if (!ParseUnsigned(memory, 16, &m.memory_id) ||
      !ParseUnsigned(sequence, 10, &m.sequence) ||
      !ParseUnsigned(node, 10, &node_value) || node_value > UINT32_MAX ||
      reason.empty() || rest.empty())
    return false;
  m.node = static_cast<uint32_t>(node_value);
  m.reason = std::string(reason);
  m.file = std::string(rest);
  while (!m.file.empty() && (m.file.back() == '\r' || m.file.back() == ' '))
    m.file.pop_back();
  if (m.file.empty()) return false;
  *out = std::move(m);
  return true;
}

std::string DumpBeginLine(const DumpMarker& m) {
  return "dump begin memory=" + HexId(m.memory_id) +
         " node=" + std::to_string(m.node) + " reason=" + OneLine(m.reason) +
         " file=" + OneLine(m.file);
}

bool ParseDumpBegin(std::string_view message, DumpMarker* out) {
  constexpr std::string_view kHead = "dump begin memory=";
  if (message.substr(0, kHead.size()) != kHead) return false;
  // Same shape as the marker without the sequence: reuse its parser.
  const size_t node = message.find(" node=");
  if (node == std::string_view::npos) return false;
  std::string as_marker = "dump memory=" +
                          std::string(message.substr(kHead.size(),
                                                     node - kHead.size())) +
                          " sequence=0" + std::string(message.substr(node));
  return ParseDumpMarker(as_marker, out);
}

}  // namespace realm_shadow
