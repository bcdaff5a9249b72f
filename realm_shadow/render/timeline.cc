// The timeline text and the dump at a moment (timeline.h).
#include "realm_shadow/render/timeline.h"

#include <algorithm>
#include <deque>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "realm_shadow/analysis/history_walk.h"
#include "realm_shadow/render/report.h"
#include "realm_shadow/analysis/history_cursor.h"

namespace realm_shadow {
namespace {

std::string Percent(uint64_t part, uint64_t whole) {
  if (whole == 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, " (%.1f%%)",
                100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

struct Drop {
  uint64_t event = 0;  // the event that shrank it (1-based)
  uint64_t before = 0, after = 0;
};

struct Life {
  Allocation allocation;
  uint64_t generation = 0;
  uint64_t began = 0, ended = 0;  // moments
  bool at_start = false, at_end = false;
  int64_t duration_ns = 0;
};

struct FailureSeen {
  Failure failure;
  MemoryFigures figures;  // at the moment after it
};

// Collects what the timeline prints, in one walk.
class TimelineVisitor : public HistoryVisitor {
 public:
  TimelineVisitor(const MemoryHistory& h, size_t top) : h_(h), top_(top) {}

  void Start(uint64_t sequence, const MemoryFigures& f) override {
    start_ = last_ = f;
    peak_ = f.used;
    peak_event_ = sequence;
    smallest_hole_ = f.largest_hole;
    smallest_event_ = sequence;
  }
  void Began(const Allocation& a, uint64_t generation, uint64_t sequence,
             bool at_start) override {
    Life life;
    life.allocation = a;
    life.generation = generation;
    life.began = sequence;
    life.at_start = at_start;
    open_[a.instance] = life;
  }
  void Ended(const Allocation& a, uint64_t, uint64_t sequence,
             bool at_end) override {
    auto it = open_.find(a.instance);
    if (it == open_.end()) return;
    Life life = it->second;
    open_.erase(it);
    life.ended = sequence;
    life.at_end = at_end;
    life.duration_ns = h_.TimeOfMoment(sequence) - h_.TimeOfMoment(life.began);
    longest_.push_back(life);
    if (longest_.size() > 4 * top_ + 64) Trim();
  }
  void Changed(const Allocation&, const Allocation& after, uint64_t,
               uint64_t) override {
    auto it = open_.find(after.instance);
    if (it != open_.end()) it->second.allocation = after;  // latest identity
  }
  void Failed(const Failure& f) override {
    failures_.push_back(FailureSeen{f, {}});
    figures_due_ = true;
  }
  void Moment(uint64_t sequence, const Event&, const MemoryFigures& f) override {
    if (figures_due_) {
      for (auto it = failures_.rbegin();
           it != failures_.rend() && it->failure.sequence + 1 == sequence; ++it)
        it->figures = f;
      figures_due_ = false;
    }
    if (f.used > peak_) {
      peak_ = f.used;
      peak_event_ = sequence;
    }
    if (f.largest_hole < smallest_hole_) {
      smallest_hole_ = f.largest_hole;
      smallest_event_ = sequence;
    }
    if (f.largest_hole < last_.largest_hole) {
      drops_.push_back(Drop{sequence, last_.largest_hole, f.largest_hole});
      if (drops_.size() > 4 * top_ + 64) TrimDrops();
    }
    last_ = f;
  }

  void Finish() {
    Trim();
    TrimDrops();
  }

  const MemoryHistory& h_;
  size_t top_;
  MemoryFigures start_, last_;
  uint64_t peak_ = 0, peak_event_ = 0;
  uint64_t smallest_hole_ = 0, smallest_event_ = 0;
  std::vector<Drop> drops_;
  std::vector<Life> longest_;
  std::vector<FailureSeen> failures_;

 private:
  void Trim() {
    std::sort(longest_.begin(), longest_.end(), [](const Life& a, const Life& b) {
      if (a.duration_ns != b.duration_ns) return a.duration_ns > b.duration_ns;
      if (a.ended - a.began != b.ended - b.began)
        return a.ended - a.began > b.ended - b.began;
      return a.began < b.began;
    });
    if (longest_.size() > top_) longest_.resize(top_);
  }
  void TrimDrops() {
    std::sort(drops_.begin(), drops_.end(), [](const Drop& a, const Drop& b) {
      const uint64_t x = a.before - a.after, y = b.before - b.after;
      return x != y ? x > y : a.event < b.event;
    });
    if (drops_.size() > top_) drops_.resize(top_);
  }

  absl::flat_hash_map<uint64_t, Life> open_;
  bool figures_due_ = false;
};

std::string LifeLine(const MemoryHistory& h, const Life& life) {
  const Allocation& a = life.allocation;
  std::string text = "    " + HexId(a.instance);
  if (life.generation > 1) text += " (life " + std::to_string(life.generation) + ")";
  text += " [" + std::to_string(a.offset) + ", " + std::to_string(a.end()) + ") " +
          FormatHumanSize(a.size) + ": ";
  text += life.at_start ? "live before the window" : "from " + EventPlace(h, life.began);
  text += life.at_end ? " to the end (still live)"
                      : " to " + EventPlace(h, life.ended);
  text += ", " + std::to_string(life.ended - life.began) + " events, " +
          FormatHistoryTime(life.duration_ns);
  if (life.at_start) text += " at least";
  return text + IdentityText(h.identities, a.identity, /*with_kind=*/true) + "\n";
}

std::string FiguresText(const MemoryFigures& f) {
  return "used " + FormatHumanSize(f.used) + ", total free " +
         FormatHumanSize(f.total_free) + ", largest hole " +
         FormatHumanSize(f.largest_hole);
}

// The part of a history up to moment `sequence` (inside its window): the
// whole, less the checkpoints, events and marks after that moment (each a
// prefix, as they ascend).  A copy of the whole, then cut, so that every
// field of the description comes along, those added later too.
MemoryHistory HistoryUpTo(const MemoryHistory& h, uint64_t sequence) {
  MemoryHistory cut = h;
  size_t checkpoints = std::min<size_t>(1, h.checkpoints.size());  // the base
  while (checkpoints < h.checkpoints.size() &&
         h.checkpoints[checkpoints].state.sequence <= sequence)
    ++checkpoints;
  cut.checkpoints.resize(checkpoints);
  cut.events.resize(sequence - h.first_sequence());
  size_t marks = 0;
  while (marks < h.marks.size() && h.marks[marks].sequence < sequence) ++marks;
  cut.marks.resize(marks);
  if (!cut.lines.empty()) cut.lines.resize(marks);
  return cut;
}

}  // namespace

std::string FormatTimeline(const Snapshot& memory, const MemoryHistory& h,
                           const TimelineOptions& options) {
  std::string out = MemoryTitle(memory) + "\n";
  TimelineVisitor v(h, std::max<size_t>(options.top, 1));
  if (absl::Status walked = WalkHistory(h, h.first_sequence(), &v);
      !walked.ok()) {
    return out + "  history unreadable: " + std::string(walked.message()) + "\n";
  }
  v.Finish();
  const uint64_t events = h.events.size();
  out += "  history           " + std::to_string(events) + " event(s), moments " +
         std::to_string(h.first_sequence()) + " to " +
         std::to_string(h.end_sequence());
  out += h.first_sequence() == 0
             ? " (the whole run)\n"
             : " (the " + std::to_string(h.first_sequence()) +
                   " events before were dropped: the window keeps the last " +
                   std::to_string(h.window_events) + ")\n";
  if (events > 0) {
    out += "  time              " +
           FormatHistoryTime(h.TimeOfEvent(h.first_sequence())) + " to " +
           FormatHistoryTime(h.TimeOfEvent(h.end_sequence() - 1)) + "\n";
  }
  out += "  clock             " + HistoryClockText(h) + "\n";
  const uint64_t capacity = memory.capacity_known ? memory.capacity : 0;
  out += "  peak used         " + FormatSizeExact(v.peak_) +
         (capacity ? " of " + FormatHumanSize(capacity) + Percent(v.peak_, capacity)
                   : std::string()) +
         ", first at " +
         (v.peak_event_ == h.first_sequence() ? std::string("the window's start")
                                              : EventPlace(h, v.peak_event_)) +
         "\n";
  if (memory.addressed) {
    out += "  largest hole      none: an addressed memory (each instance its own "
           "device allocation)\n";
  } else {
    out += "  largest hole      " + FormatHumanSize(v.start_.largest_hole) +
           " at the start, " + FormatHumanSize(v.last_.largest_hole) +
           " at the end; smallest " + FormatSizeExact(v.smallest_hole_) +
           ", first at " +
           (v.smallest_event_ == h.first_sequence()
                ? std::string("the window's start")
                : EventPlace(h, v.smallest_event_)) +
           "\n";
    out += "  largest hole shrank most (top " + std::to_string(options.top) + ")\n";
    if (v.drops_.empty()) out += "    never\n";
    for (const Drop& d : v.drops_) {
      out += "    " + EventPlace(h, d.event) + ": " + FormatHumanSize(d.before) +
             " -> " + FormatHumanSize(d.after) + " (-" +
             FormatHumanSize(d.before - d.after) + ") by " +
             DescribeEvent(h.EventAt(d.event - 1)) + "\n";
    }
  }
  out += "  alive the longest (top " + std::to_string(options.top) + ")\n";
  if (v.longest_.empty()) out += "    no allocation\n";
  for (const Life& life : v.longest_) out += LifeLine(h, life);
  out += "  failures          " + std::to_string(v.failures_.size()) +
         " in the window\n";
  const size_t shown = std::min(v.failures_.size(), options.failures_shown);
  if (shown < v.failures_.size())
    out += "    (the most recent " + std::to_string(shown) + ")\n";
  for (size_t k = v.failures_.size() - shown; k < v.failures_.size(); ++k) {
    const FailureSeen& seen = v.failures_[k];
    const Failure& f = seen.failure;
    out += "    " + EventPlace(h, f.sequence + 1) + ": instance " +
           HexId(f.instance) + (f.eventual ? " (eventual)" : " (instant)") +
           (f.maybe_cancelled ? std::string(" (") + kMaybeCancelledText + ")"
                              : std::string()) +
           " request " +
           (f.size ? FormatSizeExact(f.size) : std::string("of unknown size")) +
           " align " + std::to_string(f.alignment) +
           IdentityText(h.identities, f.identity, /*with_kind=*/true) +
           "\n      then " + FiguresText(seen.figures) + "\n";
    const uint64_t first =
        f.sequence >= h.first_sequence() + options.lead ? f.sequence - options.lead
                                                        : h.first_sequence();
    out += "      the " + std::to_string(f.sequence - first) +
           " event(s) before it:\n";
    for (uint64_t s = first; s < f.sequence; ++s)
      out += "        " + EventPlace(h, s + 1) + "  " +
             DescribeEvent(h.EventAt(s)) + "\n";
  }
  return out;
}

namespace {

// Where DumpAtMoment gets a memory's history and moment: a whole dump, or a
// dump read for one moment (DumpMoments).
class MomentSource {
 public:
  virtual ~MomentSource() = default;
  virtual bool Has(const Snapshot& s) const = 0;
  // The moment asked for (inside the window or not).
  virtual absl::StatusOr<uint64_t> Moment(const Snapshot& s,
                                          const MomentChoice& moment) const = 0;
  // A history whose StateAt at `sequence` is the memory's; OutOfRange when
  // the moment is outside the window the source can give.
  virtual absl::StatusOr<const MemoryHistory*> Covering(const Snapshot& s,
                                                        uint64_t sequence) = 0;
  virtual uint64_t End(const Snapshot& s) const = 0;
};

absl::StatusOr<uint64_t> MomentOf(const MomentChoice& moment, uint64_t memory_id,
                                  const std::vector<HistoryMark>& marks,
                                  uint64_t end) {
  if (moment.event) return *moment.event;
  return MomentAtTime(memory_id, marks, end, *moment.time_ns);
}

class WholeDump : public MomentSource {
 public:
  explicit WholeDump(const DumpFile& in) : in_(in) {}
  bool Has(const Snapshot& s) const override {
    return FindHistory(in_, s) != nullptr;
  }
  absl::StatusOr<uint64_t> Moment(const Snapshot& s,
                                  const MomentChoice& moment) const override {
    const MemoryHistory& h = *FindHistory(in_, s);
    return MomentOf(moment, h.memory_id, h.marks, h.end_sequence());
  }
  absl::StatusOr<const MemoryHistory*> Covering(const Snapshot& s,
                                                uint64_t) override {
    return FindHistory(in_, s);  // StateAt names the window if it is outside
  }
  uint64_t End(const Snapshot& s) const override {
    return FindHistory(in_, s)->end_sequence();
  }

 private:
  const DumpFile& in_;
};

class DumpRead : public MomentSource {
 public:
  explicit DumpRead(const DumpMoments& in) : in_(in) {}
  bool Has(const Snapshot& s) const override { return Find(s) >= 0; }
  absl::StatusOr<uint64_t> Moment(const Snapshot& s,
                                  const MomentChoice& moment) const override {
    const DumpMoments::Outline& o = in_.histories()[Find(s)];
    return MomentOf(moment, o.memory_id, o.marks, o.end_sequence);
  }
  absl::StatusOr<const MemoryHistory*> Covering(const Snapshot& s,
                                                uint64_t sequence) override {
    absl::StatusOr<MemoryHistory> cut =
        in_.HistoryFor(static_cast<size_t>(Find(s)), sequence);
    if (!cut.ok()) {
      outside_window = outside_window || absl::IsOutOfRange(cut.status());
      return cut.status();
    }
    cuts_.push_back(*std::move(cut));
    return &cuts_.back();
  }
  uint64_t End(const Snapshot& s) const override {
    return in_.histories()[Find(s)].end_sequence;
  }

  // A moment asked for was outside a window (not: before a window's first
  // event, which the whole history cannot place either).
  bool outside_window = false;

 private:
  ptrdiff_t Find(const Snapshot& s) const {
    const auto& all = in_.histories();
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i].memory_id == s.memory_id && all[i].node == s.node)
        return static_cast<ptrdiff_t>(i);
    return -1;
  }
  const DumpMoments& in_;
  std::deque<MemoryHistory> cuts_;
};

// `status` with "FILE: " before its message.
absl::Status InFile(const std::string& file, const absl::Status& status) {
  return absl::Status(status.code(), file + ": " + std::string(status.message()));
}

// DumpAtMoment over either source.  OutOfRange when a moment is outside a
// window or before its first event.
absl::StatusOr<DumpFile> AtMoment(const DumpFile& in, MomentSource& source,
                                  const std::string& file,
                                  std::optional<uint64_t> memory_id,
                                  const MomentChoice& moment) {
  std::vector<const Snapshot*> chosen;
  for (const Snapshot& s : in.memories) {
    if (memory_id && s.memory_id != *memory_id) continue;
    if (!source.Has(s)) {
      if (memory_id)
        return absl::FailedPreconditionError(
            file + ": memory " + HexId(s.memory_id) +
            " has no history in this dump (it was written with "
            "REALM_SHADOW_HISTORY=0, or before dumps carried one)");
      continue;
    }
    chosen.push_back(&s);
  }
  if (chosen.empty())
    return memory_id ? absl::NotFoundError(file + ": no memory " + HexId(*memory_id))
                     : absl::FailedPreconditionError(file + ": no memory has a history");
  if (moment.event && chosen.size() > 1)
    return absl::InvalidArgumentError(
        file + ": " + std::to_string(chosen.size()) +
        " memories have a history and event numbers are per memory: "
        "give --memory ID (or --time)");
  DumpFile out;
  out.node = in.node;
  out.created_unix_ns = in.created_unix_ns;
  out.source = in.source;
  out.notes = in.notes;
  for (const Snapshot* s : chosen) {
    const absl::StatusOr<uint64_t> sequence = source.Moment(*s, moment);
    if (!sequence.ok()) return InFile(file, sequence.status());
    absl::StatusOr<const MemoryHistory*> h = source.Covering(*s, *sequence);
    if (!h.ok()) return h.status();  // names the file already
    absl::StatusOr<Snapshot> state = StateAt(**h, *sequence);
    if (!state.ok()) return InFile(file, state.status());
    state->gc_state_known = s->gc_state_known;  // the source's, not the moment's
    out.memories.push_back(*std::move(state));
    if (moment.with_history) out.histories.push_back(HistoryUpTo(**h, *sequence));
    out.notes.push_back(
        "memory " + HexId(s->memory_id) + ": the state after " +
        (*sequence == 0 ? std::string("no event") : EventPlace(**h, *sequence)) +
        ", rebuilt exactly from the history in " + file + " (" +
        std::to_string(source.End(*s) - *sequence) + " later event(s) not applied)");
  }
  if (chosen.size() < in.memories.size() && !memory_id)
    out.notes.push_back(std::to_string(in.memories.size() - chosen.size()) +
                        " memory(ies) of " + file +
                        " without a history are left out: their state at "
                        "that moment is not known");
  return out;
}

}  // namespace

absl::StatusOr<DumpFile> DumpAtMoment(const DumpFile& in, const std::string& file,
                                      std::optional<uint64_t> memory_id,
                                      const MomentChoice& moment) {
  WholeDump source(in);
  return AtMoment(in, source, file, memory_id, moment);
}

absl::StatusOr<DumpFile> ReadDumpAtMoment(const std::string& file,
                                          std::optional<uint64_t> memory_id,
                                          const MomentChoice& moment) {
  if (!moment.with_history) {
    DumpMoments in;
    if (absl::Status opened = in.Open(file, /*verify_checksum=*/false); !opened.ok())
      return opened;
    DumpRead source(in);
    absl::StatusOr<DumpFile> at = AtMoment(in.dump(), source, file, memory_id, moment);
    // Outside a window: the whole history says which moments it holds.
    if (!source.outside_window) return at;
  }
  // The whole history: kept up to the moment, or to say which moments the
  // window holds.
  absl::StatusOr<DumpFile> whole = ReadDump(file);
  if (!whole.ok()) return whole.status();
  return DumpAtMoment(*whole, file, memory_id, moment);
}

}  // namespace realm_shadow
