#include "realm_shadow/faces/realm_log.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>
#include <utility>

#include "realm_shadow/faces/realm_log/line_grammar.h"

namespace realm_shadow {
namespace {

using realm_log::LineKind;
using realm_log::LogLine;
using realm_log::NodeReplay;

// One input's lines, each node's routed to that node's replay; unprefixed
// lines continue the entry of the prefixed line before them.
class LogStream {
 public:
  explicit LogStream(const realm_log::ReplayOptions* options)
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
    for (auto& replay : order_) replay->Settle();
  }

  std::vector<realm_log::ReplayedLog> Logs(const std::string& file) const {
    std::vector<realm_log::ReplayedLog> out;
    for (const auto& replay : order_) {
      realm_log::ReplayedLog log;
      log.file = file;
      log.replay = replay.get();
      log.nodes_in_file = order_.size();
      out.push_back(log);
    }
    if (!out.empty()) out.front().leading_unknown_lines = leading_unknown_;
    return out;
  }

  realm_log::ReplayCounts Counts() const {
    realm_log::ReplayCounts sum;
    for (const auto& replay : order_) sum += replay->state().counts;
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
  NodeReplay& Replay(uint32_t node) {
    auto it = by_node_.find(node);
    if (it != by_node_.end()) return *it->second;
    order_.push_back(std::make_unique<NodeReplay>(node, options_));
    by_node_.emplace(node, order_.back().get());
    return *order_.back();
  }

  const realm_log::ReplayOptions* options_;
  std::vector<std::unique_ptr<NodeReplay>> order_;  // by first line
  std::map<uint32_t, NodeReplay*> by_node_;
  NodeReplay* current_ = nullptr;
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
  explicit State(const realm_log::ReplayOptions* options) : stream(options) {}
  LogStream stream;
};

RealmLogReader::RealmLogReader(const realm_log::ReplayOptions* options)
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

bool IngestRealmLogs(const std::vector<std::string>& paths,
                     const IngestOptions& options, DumpFile* out,
                     IngestSummary* summary, std::string* error) {
  std::vector<std::unique_ptr<LogStream>> streams;
  std::vector<FileRead> reads(paths.size());
  for (size_t i = 0; i < paths.size(); ++i)
    streams.push_back(std::make_unique<LogStream>(options.replay));
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
    if (!reads[i].ok) {
      *error = reads[i].error;
      return false;
    }
    if (!streams[i]->saw_realm()) {
      *error = paths[i] +
               ": not a Realm log (no line of the form \"[node - thread] "
               "seconds {level}{logger}: message\")";
      return false;
    }
    for (realm_log::ReplayedLog& log : streams[i]->Logs(paths[i])) {
      log.truncated = reads[i].truncated;
      log.cut_before_line = reads[i].cut_before_line;
      logs.push_back(std::move(log));
    }
  }
  IngestSummary local;
  *out = realm_log::AssembleDump(logs, summary ? summary : &local);
  return true;
}

}  // namespace realm_shadow
