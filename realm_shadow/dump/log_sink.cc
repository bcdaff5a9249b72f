// realm_shadow/dump/log_sink.cc - the dump marker line and the sink it goes
// to (log_sink.h).
#include "realm_shadow/log_sink.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

#include "realm_shadow/dump/dump.h"
#include "realm_shadow/dump/on_failure.h"

namespace realm_shadow {
namespace {

std::atomic<realm_shadow_log_sink> g_sink{nullptr};

void ClearSinkAtExit() {
  // Runs before the destructors of whatever the sink uses (it was installed
  // after they were built): stop the periodic writer, then drop the sink.
  StopPeriodicDumps();
  g_sink.store(nullptr, std::memory_order_release);
}

std::string AbsolutePath(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

// One line: control characters (a newline in a path) become '?'.
std::string OneLine(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}

void Emit(const std::string& line) {
  realm_shadow_log_sink sink = g_sink.load(std::memory_order_acquire);
  if (sink != nullptr) sink(line.c_str());
}

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

void AnnounceDump(const std::string& path, const Snapshot& snapshot,
                  const char* reason) {
  if (g_sink.load(std::memory_order_acquire) == nullptr) return;
  DumpMarker m;
  m.memory_id = snapshot.memory_id;
  m.sequence = snapshot.sequence;
  m.node = snapshot.node;
  m.reason = reason;
  m.file = AbsolutePath(path);
  Emit(DumpMarkerLine(m));
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

void AnnounceDumpBegin(const std::string& path, uint64_t memory_id,
                       uint32_t node, const char* reason) {
  if (g_sink.load(std::memory_order_acquire) == nullptr) return;
  DumpMarker m;
  m.memory_id = memory_id;
  m.node = node;
  m.reason = reason;
  m.file = AbsolutePath(path);
  Emit(DumpBeginLine(m));
}

void AnnounceDumpNotWritten(const std::string& path,
                            const std::string& error) {
  if (g_sink.load(std::memory_order_acquire) == nullptr) return;
  Emit("dump not written file=" + OneLine(AbsolutePath(path)) +
       " error=" + OneLine(error));
}

}  // namespace realm_shadow

extern "C" void realm_shadow_set_log_sink(realm_shadow_log_sink sink) {
  static std::once_flag at_exit;
  if (sink != nullptr)
    std::call_once(at_exit, [] { std::atexit(&realm_shadow::ClearSinkAtExit); });
  realm_shadow::g_sink.store(sink, std::memory_order_release);
}
