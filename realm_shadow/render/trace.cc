// The trace-event JSON file of dumps' histories (trace.h).
#include "realm_shadow/render/trace.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/format/atomic_file.h"
#include "realm_shadow/format/json_writer.h"
#include "realm_shadow/analysis/history_walk.h"
#include "realm_shadow/analysis/history_cursor.h"
#include "realm_shadow/render/report.h"

namespace realm_shadow {
namespace {

constexpr size_t kFlushBytes = 1 << 20;

// The JSON text, streamed to the file between events.
class TraceOut {
 public:
  explicit TraceOut(AtomicFile* file) : file_(file), w_(&text_) {}
  JsonWriter& w() { return w_; }
  void MaybeFlush() {
    if (text_.size() < kFlushBytes) return;
    file_->Write(text_);
    text_.clear();
  }
  void Finish() {
    file_->Write(text_);
    text_.clear();
  }

 private:
  AtomicFile* file_;
  std::string text_;
  JsonWriter w_;
};

// One memory's events.
class TraceVisitor : public HistoryVisitor {
 public:
  TraceVisitor(TraceOut* out, const MemoryHistory& h, const std::string& label,
               uint64_t pid, uint64_t tid, TraceSummary* summary)
      : out_(out), h_(h), pid_(pid), tid_(tid),
        summary_(summary) {
    // What every slice event of this memory starts with, rendered once, up
    // to its id's own part: ..."tid":1,"id":"<memory>/
    for (const char* ph : {"b", "e", "n"}) {
      std::string text;
      JsonWriter w(&text);
      w.BeginObject();
      w.Key("ph");
      w.String(ph);
      w.Key("cat");
      w.String("allocation");
      w.Key("name");
      w.String(label);
      w.Key("pid");
      w.Uint(pid);
      w.Key("tid");
      w.Uint(tid);
      w.Key("id");
      text += "\"" + HexId(h.memory_id) + "/";
      heads_.push_back(text.substr(1));  // without the '{'
    }
    // A clock that never steps back (the tracker's drain time) needs no
    // clamp of a slice's end to its beginning, so no map of beginnings.
    monotonic_ = std::is_sorted(
        h.marks.begin(), h.marks.end(),
        [](const HistoryMark& x, const HistoryMark& y) { return x.time_ns < y.time_ns; });
    for (const char* suffix : {" used", " total free", " largest hole",
                               " fragmentation"})
      counter_names_.push_back(label + suffix);
    start_ns_ = h.events.empty() ? 0 : h.TimeOfEvent(h.first_sequence());
    end_ns_ = h.events.empty() ? 0 : h.TimeOfEvent(h.end_sequence() - 1);
  }

  void Start(uint64_t, const MemoryFigures& f) override {
    pending_ = f;
    pending_ns_ = start_ns_;
  }
  void Began(const Allocation& a, uint64_t life, uint64_t sequence,
             bool at_start) override {
    const int64_t ns = at_start ? start_ns_ : TimeOf(sequence);
    if (!monotonic_) began_ns_[Key(a.instance, life)] = ns;
    JsonWriter& w = Head(kBegin, ns, a.instance, life);
    w.Key("args");  // the instance and life are in the id
    w.BeginObject();
    w.Uint("offset", a.offset);
    w.Uint("size", a.size);
    w.Uint("alignment", a.alignment());
    w.String("kind", AllocationKindName(a.kind));
    if (a.pinned()) {
      w.Bool("pinned", true);
    }
    Identity(w, a.identity);
    if (at_start) {
      w.String("began", "live before the history's window");
    }
    w.EndObject();
    w.EndObject();
    ++summary_->lives;
    out_->MaybeFlush();
  }
  void Ended(const Allocation& a, uint64_t life, uint64_t sequence,
             bool at_end) override {
    const auto key = Key(a.instance, life);
    int64_t ns = at_end ? end_ns_ : TimeOf(sequence);
    auto it = monotonic_ ? began_ns_.end() : began_ns_.find(key);
    if (it != began_ns_.end()) {
      // A log's lines may step back a few microseconds (threads): a slice
      // never ends before it began.
      ns = std::max(ns, it->second);
      began_ns_.erase(it);
    }
    JsonWriter& w = Head(kEnd, ns, a.instance, life);
    if (at_end) {
      w.Key("args");
      w.BeginObject();
      w.String("ended", "still live at the end of the history");
      w.EndObject();
    }
    w.EndObject();
    out_->MaybeFlush();
  }
  void Changed(const Allocation& before, const Allocation& after,
               uint64_t life, uint64_t sequence) override {
    JsonWriter& w = Head(kStep, std::max(TimeOf(sequence),
                                       BeganAt(after.instance, life)),
                         after.instance, life);
    w.Key("args");
    w.BeginObject();
    if (before.state != after.state) {
      w.String("state", AllocationStateName(after.state));
    }
    if (before.identity != after.identity || before.kind != after.kind) {
      w.String("kind", AllocationKindName(after.kind));
      Identity(w, after.identity);
    }
    if (before.pinned() != after.pinned()) {
      w.Bool("pinned", after.pinned());
    }
    w.EndObject();
    w.EndObject();
  }
  void Failed(const Failure& f) override { failures_.push_back(f); }
  void Moment(uint64_t sequence, const Event&, const MemoryFigures& f) override {
    const int64_t ns = TimeOf(sequence);
    if (ns != pending_ns_) FlushCounters();
    pending_ = f;
    pending_ns_ = ns;
    for (const Failure& failure : failures_) WriteFailure(failure, f, ns);
    failures_.clear();
  }
  void Finish() { FlushCounters(); }

 private:
  static std::pair<uint64_t, uint64_t> Key(uint64_t instance, uint64_t life) {
    return {instance, life};
  }
  // h_.TimeOfMoment(moment): the walk asks for moments in ascending order,
  // so a cursor over the marks instead of a binary search per event.
  int64_t TimeOf(uint64_t moment) {
    const std::vector<HistoryMark>& marks = h_.marks;
    const uint64_t event =
        moment > h_.first_sequence() ? moment - 1 : h_.first_sequence();
    if (h_.events.empty() || marks.empty() || event < marks[mark_].sequence)
      return h_.TimeOfMoment(moment);
    while (mark_ + 1 < marks.size() && marks[mark_ + 1].sequence <= event)
      ++mark_;
    return marks[mark_].time_ns;
  }
  int64_t BeganAt(uint64_t instance, uint64_t life) const {
    auto it = began_ns_.find(Key(instance, life));
    return it == began_ns_.end() ? INT64_MIN : it->second;
  }

  enum Phase { kBegin, kEnd, kStep };  // "b", "e", "n"
  // {"ph":..,"cat":"allocation","name":label,"pid","tid","id":..,"ts", left
  // open for args.
  JsonWriter& Head(Phase ph, int64_t ns, uint64_t instance, uint64_t life) {
    JsonWriter& w = out_->w();
    w.BeginObject();
    // The head and the id "<memory>/<instance>/<life>", in one piece.
    char digits[48] = {'0', 'x'};
    char* p = std::to_chars(digits + 2, digits + 20, instance, 16).ptr;
    *p++ = '/';
    p = std::to_chars(p, digits + sizeof digits - 1, life).ptr;
    *p++ = '"';
    head_.assign(heads_[ph]);
    head_.append(digits, p);
    w.Preformatted(head_.data(), head_.size());
    w.Decimal("ts", ns, 3);
    return w;
  }
  // The event's process (node), thread (memory) and time (us, 3 decimals:
  // the ns exactly).
  void Where(JsonWriter& w, int64_t ns) {
    w.Uint("pid", pid_);
    w.Uint("tid", tid_);
    w.Decimal("ts", ns, 3);
  }
  void Identity(JsonWriter& w, uint32_t id) {
    const realm_shadow::Identity* identity = FindIdentityById(h_.identities, id);
    if (identity == nullptr) return;
    for (const auto& [key, value] : identity->attributes) {
      key_.assign("identity.");
      key_ += key;
      w.Key(key_);
      w.String(value);
    }
  }
  void Counter(size_t which, const char* arg, double value, bool ratio,
               uint64_t bytes) {
    JsonWriter& w = out_->w();
    w.BeginObject();
    w.String("ph", "C");
    w.String("name", counter_names_[which]);
    Where(w, pending_ns_);
    w.Key("args");
    w.BeginObject();
    w.Key(arg);
    if (ratio) w.Double(value);
    else w.Uint(bytes);
    w.EndObject();
    w.EndObject();
    ++summary_->counter_samples;
  }
  void FlushCounters() {
    const MemoryFigures& f = pending_;
    const bool first = !written_any_;
    if (first || f.used != written_.used) Counter(0, "bytes", 0, false, f.used);
    if (first || f.total_free != written_.total_free)
      Counter(1, "bytes", 0, false, f.total_free);
    if (first || f.largest_hole != written_.largest_hole)
      Counter(2, "bytes", 0, false, f.largest_hole);
    if (first || f.fragmentation != written_.fragmentation)
      Counter(3, "ratio", f.fragmentation, true, 0);
    written_ = f;
    written_any_ = true;
    out_->MaybeFlush();
  }
  void WriteFailure(const Failure& f, const MemoryFigures& after, int64_t ns) {
    JsonWriter& w = out_->w();
    w.BeginObject();
    w.String("ph", "i");
    w.String("s", "t");
    w.String("cat", "failure");
    w.Key("name");
    w.String("allocation failed " + HexId(f.instance) + " " +
             FormatHumanSize(f.size));
    Where(w, ns);
    w.Key("args");
    w.BeginObject();
    w.HexId("instance", f.instance);
    w.Uint("size", f.size);
    w.Uint("alignment", f.alignment);
    w.Bool("eventual", f.eventual);
    w.Bool("maybe_cancelled", f.maybe_cancelled);
    w.Uint("event", f.sequence + 1);
    w.Uint("used", after.used);
    w.Uint("total free", after.total_free);
    w.Uint("largest hole", after.largest_hole);
    Identity(w, f.identity);
    w.EndObject();
    w.EndObject();
    ++summary_->failures;
  }

  TraceOut* out_;
  const MemoryHistory& h_;
  std::string head_, key_;
  std::vector<std::string> heads_;  // by Phase
  size_t mark_ = 0;  // TimeOf's cursor
  bool monotonic_ = false;
  std::vector<std::string> counter_names_;
  uint64_t pid_, tid_;
  TraceSummary* summary_;
  int64_t start_ns_ = 0, end_ns_ = 0;
  MemoryFigures pending_, written_;
  int64_t pending_ns_ = 0;
  bool written_any_ = false;
  std::vector<Failure> failures_;
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, int64_t> began_ns_;
};

// A metadata ("M") event: the process or thread `name` event with one arg.
template <typename WriteArg>
void MetadataEvent(JsonWriter& w, const char* name, uint64_t pid, uint64_t tid,
                   const char* arg, WriteArg write_arg) {
  w.BeginObject();
  w.String("ph", "M");
  w.String("name", name);
  w.Uint("pid", pid);
  w.Uint("tid", tid);
  w.Key("args");
  w.BeginObject();
  w.Key(arg);
  write_arg();
  w.EndObject();
  w.EndObject();
}

void Metadata(JsonWriter& w, const char* name, uint64_t pid, uint64_t tid,
              const std::string& value) {
  MetadataEvent(w, name, pid, tid, "name", [&] { w.String(value); });
}

void SortIndex(JsonWriter& w, const char* name, uint64_t pid, uint64_t tid,
               uint64_t index) {
  MetadataEvent(w, name, pid, tid, "sort_index", [&] { w.Uint(index); });
}

}  // namespace

absl::StatusOr<TraceSummary> WriteTrace(const std::vector<DumpFile>& dumps,
                                        const std::vector<std::string>& files,
                                        const std::string& path) {
  TraceSummary result;
  TraceSummary* summary = &result;
  bool any = false;
  for (const DumpFile& d : dumps) any = any || !d.histories.empty();
  if (!any) {
    return absl::NotFoundError(
        "no memory of the given dump(s) has a history (dumps written "
        "with REALM_SHADOW_HISTORY=0 or before dumps carried one)");
  }
  AtomicFile file;
  if (absl::Status opened = file.Open(path); !opened.ok()) return opened;
  TraceOut out(&file);
  JsonWriter& w = out.w();
  w.BeginObject();
  w.String("displayTimeUnit", "ms");
  w.Key("otherData");
  w.BeginObject();
  w.String("source", "realm-shadow trace");
  w.Key("clocks");
  w.String("each node (process) counts on its own clock; times of two nodes "
           "are not aligned");
  w.EndObject();
  w.Key("traceEvents");
  w.BeginArray();
  std::map<uint32_t, uint64_t> threads_per_node;
  std::map<uint32_t, bool> named;
  for (size_t di = 0; di < dumps.size(); ++di) {
    const DumpFile& dump = dumps[di];
    for (const Snapshot& s : dump.memories) {
      const MemoryHistory* h = FindHistory(dump, s);
      if (h == nullptr) {
        ++summary->skipped;
        continue;
      }
      const uint64_t pid = uint64_t{s.node} + 1;
      if (!named[s.node]) {
        named[s.node] = true;
        Metadata(w, "process_name", pid, 0,
                 "node " + std::to_string(s.node) + " (" +
                     HistoryClockName(h->clock) + ")");
        SortIndex(w, "process_sort_index", pid, 0, s.node);
      }
      const uint64_t tid = ++threads_per_node[s.node];
      const std::string label =
          (s.name.empty() ? std::string(MemoryKindName(s.kind)) : s.name) + " " +
          HexId(s.memory_id);
      Metadata(w, "thread_name", pid, tid, label + " (" + files[di] + ")");
      SortIndex(w, "thread_sort_index", pid, tid, tid);
      TraceVisitor visitor(&out, *h, label, pid, tid, summary);
      if (absl::Status walked = WalkHistory(*h, h->first_sequence(), &visitor);
          !walked.ok())
        return absl::DataLossError(absl::StrCat(files[di], ": ", walked.message()));
      visitor.Finish();
      ++summary->memories;
    }
  }
  w.EndArray();
  w.EndObject();
  out.Finish();
  file.Write("\n");
  if (absl::Status committed = file.Commit(); !committed.ok()) return committed;
  return result;
}

}  // namespace realm_shadow
