// realm_shadow/live/log_sink.cc - the sink the dump marker lines go to
// (log_sink.h; their grammar is format/dump_marker.h).
#include "realm_shadow/log_sink.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

#include "realm_shadow/core/text.h"
#include "realm_shadow/format/dump_marker.h"
#include "realm_shadow/live/dump.h"
#include "realm_shadow/live/on_failure.h"

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

void Emit(const std::string& line) {
  realm_shadow_log_sink sink = g_sink.load(std::memory_order_acquire);
  if (sink != nullptr) sink(line.c_str());
}

}  // namespace

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
