#include "realm_shadow/ingest/realm_log.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"

#include "realm_shadow/ingest/line_grammar.h"
#include "realm_shadow/format/dump_marker.h"

namespace realm_shadow {
namespace {

using realm_log::LineKind;
using realm_log::LogLine;
using realm_log::NodeRebuild;

// One input's lines, each node's routed to that node's replay; unprefixed
// lines continue the entry of the prefixed line before them.
class LogStream {
 public:
  explicit LogStream(const realm_log::RebuildOptions* options)
      : options_(options) {}

  void Line(std::string_view text) {
    ++line_number_;
    const LogLine line = realm_log::ParseLogLine(text);
    if (line.prefixed) {
      saw_realm_ = true;
      if (current_ == nullptr || current_->state().node != line.node)
        current_ = &Replay(line.node);
      current_->Feed(line, line_number_);
      return;
    }
    if (current_ == nullptr) {
      if (line.kind != LineKind::kMachineMemory) {
        ++leading_unknown_;
        return;
      }
      // A machine dump without its heading line: node 0 writes it.
      current_ = &Replay(0);
    }
    if (line.kind == LineKind::kMachineMemory) saw_realm_ = true;
    current_->FeedContinuation(line, line_number_);
  }

  void Settle() {
    for (auto& rebuild : order_) rebuild->Settle();
  }

  std::vector<realm_log::ReplayedLog> Logs(const std::string& file) const {
    std::vector<realm_log::ReplayedLog> out;
    for (const auto& rebuild : order_) {
      realm_log::ReplayedLog log;
      log.file = file;
      log.rebuild = rebuild.get();
      log.nodes_in_file = order_.size();
      out.push_back(log);
    }
    if (!out.empty()) out.front().leading_unknown_lines = leading_unknown_;
    return out;
  }

  realm_log::RebuildCounts Counts() const {
    realm_log::RebuildCounts sum;
    for (const auto& rebuild : order_) sum += rebuild->state().counts;
    sum.lines += leading_unknown_;
    sum.unknown_lines += leading_unknown_;
    return sum;
  }

  bool saw_realm() const { return saw_realm_; }
  uint64_t line_number() const { return line_number_; }
  uint32_t first_node() const {
    return order_.empty() ? 0 : order_.front()->state().node;
  }

 private:
  NodeRebuild& Replay(uint32_t node) {
    auto it = by_node_.find(node);
    if (it != by_node_.end()) return *it->second;
    order_.push_back(std::make_unique<NodeRebuild>(node, options_));
    by_node_.emplace(node, order_.back().get());
    return *order_.back();
  }

  const realm_log::RebuildOptions* options_;
  std::vector<std::unique_ptr<NodeRebuild>> order_;  // by first line
  std::map<uint32_t, NodeRebuild*> by_node_;
  NodeRebuild* current_ = nullptr;
  uint64_t line_number_ = 0;
  uint64_t leading_unknown_ = 0;
  bool saw_realm_ = false;
};

// Reads a file in 4 MiB blocks and feeds its lines.  A last line without a
// newline is not fed: a file cut inside a line could cut a number inside
// it ("offset=12" of "offset=1234"), so it is never trusted.
struct FileRead {
  bool ok = false;
  bool truncated = false;
  uint64_t cut_before_line = 0;
  std::string error;
};

FileRead ReadLog(const std::string& path, uint64_t stop_before_line,
                 LogStream* stream) {
  FileRead result;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    result.error = path + ": cannot open: " + std::strerror(errno);
    return result;
  }
  std::string buffer(size_t{4} << 20, '\0');
  size_t carried = 0;  // bytes of an unfinished line at the buffer's start
  bool stopped = false;
  while (!stopped) {
    if (carried == buffer.size()) buffer.resize(buffer.size() * 2);
    const size_t n =
        std::fread(buffer.data() + carried, 1, buffer.size() - carried, f);
    if (n == 0) break;
    const size_t end = carried + n;
    size_t begin = 0;
    while (begin < end) {
      const void* nl = std::memchr(buffer.data() + begin, '\n', end - begin);
      if (nl == nullptr) break;
      const size_t stop = static_cast<const char*>(nl) - buffer.data();
      if (stop_before_line != 0 &&
          stream->line_number() + 1 >= stop_before_line) {
        stopped = true;
        result.cut_before_line = stop_before_line;
        break;
      }
      stream->Line(std::string_view(buffer.data() + begin, stop - begin));
      begin = stop + 1;
    }
    std::memmove(buffer.data(), buffer.data() + begin, end - begin);
    carried = end - begin;
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) {
    result.error = path + ": read error";
    return result;
  }
  result.truncated = !stopped && carried > 0;
  result.ok = true;
  return result;
}

}  // namespace

struct RealmLogReader::State {
  explicit State(const realm_log::RebuildOptions* options) : stream(options) {}
  LogStream stream;
};

RealmLogReader::RealmLogReader(const realm_log::RebuildOptions* options)
    : state_(std::make_unique<State>(options)) {}
RealmLogReader::~RealmLogReader() = default;

void RealmLogReader::FeedLine(std::string_view line) {
  state_->stream.Line(line);
}

void RealmLogReader::FeedText(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    state_->stream.Line(text.substr(begin, end - begin));
    begin = end + 1;
  }
}

RealmLogCounts RealmLogReader::counts() const {
  return state_->stream.Counts();
}
uint32_t RealmLogReader::node() const { return state_->stream.first_node(); }
bool RealmLogReader::saw_realm_lines() const {
  return state_->stream.saw_realm();
}
uint64_t RealmLogReader::lines() const { return state_->stream.line_number(); }

DumpFile RealmLogReader::Dump(IngestSummary* summary) {
  state_->stream.Settle();
  return realm_log::AssembleDump(state_->stream.Logs(""), summary);
}

absl::StatusOr<DumpFile> IngestRealmLogs(const std::vector<std::string>& paths,
                                         const IngestOptions& options,
                                         IngestSummary* summary) {
  std::vector<std::unique_ptr<LogStream>> streams;
  std::vector<FileRead> reads(paths.size());
  for (size_t i = 0; i < paths.size(); ++i)
    streams.push_back(std::make_unique<LogStream>(options.rebuild));
  // One thread per log, at most one per core: a rank's log is replayed
  // alone, so nothing is shared until the assembly.
  unsigned threads = options.threads != 0 ? options.threads
                                          : std::thread::hardware_concurrency();
  if (threads == 0) threads = 1;
  threads = std::min<unsigned>(threads, static_cast<unsigned>(paths.size()));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < paths.size(); i = next++) {
      reads[i] = ReadLog(paths[i], options.stop_before_line, streams[i].get());
      if (reads[i].ok) streams[i]->Settle();
    }
  };
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
    for (std::thread& t : pool) t.join();
  }
  std::vector<realm_log::ReplayedLog> logs;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!reads[i].ok) return absl::NotFoundError(reads[i].error);
    if (!streams[i]->saw_realm())
      return absl::InvalidArgumentError(
          paths[i] +
          ": not a Realm log (no line of the form \"[node - thread] "
          "seconds {level}{logger}: message\")");
    for (realm_log::ReplayedLog& log : streams[i]->Logs(paths[i])) {
      log.truncated = reads[i].truncated;
      log.cut_before_line = reads[i].cut_before_line;
      logs.push_back(std::move(log));
    }
  }
  IngestSummary local;
  return realm_log::AssembleDump(logs, summary ? summary : &local);
}

namespace {

// The message of a line of Realm's "realm_shadow" logger, or "".
std::string_view ShadowLoggerMessage(std::string_view line) {
  const LogLine parsed = realm_log::ParseLogLine(line);
  if (!parsed.prefixed || parsed.logger != "realm_shadow") return {};
  return parsed.message;
}

std::string NormalPath(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

struct FoundMarker {
  size_t line;  // 0-based
  DumpMarker marker;
};

// The marker of `want` to cut at: the one whose sequence is the dump's,
// else the last one; null when the log has none for the memory.
const FoundMarker* ChooseMarker(const std::vector<FoundMarker>& mine,
                                const Snapshot& want, bool* sequence_matched) {
  const FoundMarker* chosen = nullptr;
  *sequence_matched = false;
  for (const FoundMarker& f : mine) {
    if (f.marker.memory_id != want.memory_id) continue;
    if (f.marker.sequence == want.sequence) {
      chosen = &f;
      *sequence_matched = true;
    } else if (!*sequence_matched) {
      chosen = &f;  // the last so far
    }
  }
  return chosen;
}

// A failure dump is written at the failure, inside Realm's
// notify_allocation and before Realm logs the outcome: the log states that
// failure in a line after the marker.  That one line (the failed instance's
// outcome, the newest failure of the dumped memory) is fed too; nothing else
// after the marker is.  Returns the note's clause, or "".
std::string FeedLateFailure(const std::vector<std::string>& lines,
                            const FoundMarker& chosen, const Snapshot& want,
                            RealmLogReader* reader) {
  if (chosen.marker.reason != "failure" || want.failures.empty()) return "";
  const uint64_t failed = want.failures.back().instance;
  for (size_t i = chosen.line + 1; i < lines.size(); ++i) {
    const LogLine l = realm_log::ParseLogLine(lines[i]);
    const bool outcome =
        (l.kind == LineKind::kAllocationFailed && l.instance == failed) ||
        (l.kind == LineKind::kOutOfMemory && l.memory == want.memory_id);
    if (!outcome) continue;
    reader->FeedLine(lines[i]);
    return absl::StrCat("; the failure line of ", HexId(failed), " (line ",
                        i + 1,
                        ", logged after the dump was taken at the failure) "
                        "applied too");
  }
  return "";
}

// The instances of the memory that the log names between the dump's begin
// line and its marker; *begin_line is set to the begin line (or the marker).
std::set<uint64_t> InFlight(const std::vector<std::string>& lines,
                            const FoundMarker& chosen, size_t* begin_line) {
  *begin_line = chosen.line;
  for (size_t i = chosen.line; i-- > 0;) {
    const std::string_view message = ShadowLoggerMessage(lines[i]);
    DumpMarker begin;
    if (!message.empty() && ParseDumpBegin(message, &begin) &&
        begin.memory_id == chosen.marker.memory_id &&
        begin.file == chosen.marker.file) {
      *begin_line = i;
      break;
    }
  }
  std::set<uint64_t> flying;
  for (size_t i = *begin_line + 1; i < chosen.line; ++i) {
    const LogLine l = realm_log::ParseLogLine(lines[i]);
    if (l.prefixed && l.logger == "inst" && l.instance != 0 &&
        realm_log::MemoryOfInstance(l.instance) == chosen.marker.memory_id)
      flying.insert(l.instance);
  }
  return flying;
}

}  // namespace

absl::StatusOr<DumpFile> IngestRealmLogAtDump(const std::string& log_path,
                                              const std::string& dump_path) {
  absl::StatusOr<DumpFile> read = ReadDump(dump_path);
  if (!read.ok()) return read.status();
  const DumpFile dumped = *std::move(read);
  std::ifstream in(log_path, std::ios::binary);
  if (!in) return absl::NotFoundError(log_path + ": cannot open");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (in.bad()) return absl::DataLossError(log_path + ": read error");

  // Every marker of the log, by line; then those naming this dump, by exact
  // path, else by file name.
  std::vector<FoundMarker> markers;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view message = ShadowLoggerMessage(lines[i]);
    DumpMarker m;
    if (!message.empty() && ParseDumpMarker(message, &m))
      markers.push_back({i, std::move(m)});
  }
  const std::string want = NormalPath(dump_path);
  std::vector<FoundMarker> mine;
  for (const FoundMarker& f : markers)
    if (f.marker.file == want) mine.push_back(f);
  bool by_name = false;
  if (mine.empty()) {
    for (const FoundMarker& f : markers)
      if (BaseName(f.marker.file) == BaseName(dump_path)) mine.push_back(f);
    by_name = !mine.empty();
  }
  if (mine.empty())
    return absl::NotFoundError(absl::StrCat(
        log_path, ": no dump marker names ", dump_path, " (", markers.size(),
        " marker(s) in the log; was the run made with -level "
        "realm_shadow=2, and is the dump from this run?)"));

  DumpFile result;
  result.source = "ingest-realm-log";
  result.node = dumped.node;
  for (const Snapshot& want_memory : dumped.memories) {
    bool sequence_matched = false;
    const FoundMarker* chosen =
        ChooseMarker(mine, want_memory, &sequence_matched);
    const std::string mem = HexId(want_memory.memory_id);
    if (chosen == nullptr) {
      result.notes.push_back(mem + ": no marker for this memory in " +
                             log_path + "; not rebuilt");
      continue;
    }
    RealmLogReader reader;
    for (size_t i = 0; i < chosen->line; ++i) reader.FeedLine(lines[i]);
    const std::string late_failure =
        FeedLateFailure(lines, *chosen, want_memory, &reader);
    DumpFile cut = reader.Dump();
    size_t begin_line = 0;
    std::string in_flight;
    for (uint64_t inst : InFlight(lines, *chosen, &begin_line))
      absl::StrAppend(&in_flight, " ", HexId(inst));
    Snapshot picture;
    bool found = false;
    for (Snapshot& s : cut.memories) {
      if (s.memory_id == want_memory.memory_id) {
        picture = std::move(s);
        found = true;
        break;
      }
    }
    if (!found) {
      // The log had nothing of this memory yet: an empty picture.
      picture.memory_id = want_memory.memory_id;
      picture.node = realm_log::MemoryOwnerNode(want_memory.memory_id);
      picture.capacity_known = false;
    }
    picture.gc_state_known = false;  // a log says nothing of validity
    result.memories.push_back(std::move(picture));
    result.notes.push_back(absl::StrCat(
        mem, ": log cut before line ", chosen->line + 1, " (the marker of ",
        chosen->marker.file, ", reason ", chosen->marker.reason,
        ", sequence ", chosen->marker.sequence, ")",
        by_name ? "; matched by file name only" : "", late_failure,
        sequence_matched
            ? ""
            : absl::StrCat("; the dump's sequence ", want_memory.sequence,
                           " matches no marker: the last one was used")));
    if (!in_flight.empty())
      result.notes.push_back(absl::StrCat(
          mem, ": ", kInFlightNote, " (log lines ", begin_line + 2, "-",
          chosen->line, ", between the dump's begin line and its marker):",
          in_flight));
    for (const std::string& note : cut.notes)
      result.notes.push_back(mem + " cut: " + note);
  }
  std::sort(result.memories.begin(), result.memories.end(),
            [](const Snapshot& a, const Snapshot& b) {
              return a.memory_id < b.memory_id;
            });
  return result;
}

}  // namespace realm_shadow
