// One pass over a history, and the words for its moments (history_walk.h).
#include "realm_shadow/analysis/history_walk.h"

#include <charconv>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "realm_shadow/core/text.h"
#include "realm_shadow/analysis/history_cursor.h"

namespace realm_shadow {
namespace {

// How many lives each instance id has begun in the walk.  Most ids have
// one (instance ids are handed out fresh, in runs), so an id's first life
// is one bit in a page of 64 consecutive ids (16 B per page: the 10^6 ids
// of BM_TraceOf1MLives are 16k pages, 256 KiB that stay in cache, where a
// hash map entry per id was 16 MiB and a cache miss per placement and per
// release), and only an id placed again gets an entry of its own.  Sparse
// ids cost a page each: 16 B, what the entry per id cost.
class LifeCounts {
 public:
  // The life that begins now: 1 for an id not placed before in the walk.
  uint64_t Begin(uint64_t instance) {
    uint64_t& page = pages_[instance >> 6];
    const uint64_t bit = Bit(instance);
    if ((page & bit) == 0) {
      page |= bit;
      return 1;
    }
    uint64_t& lives = again_[instance];
    lives = lives == 0 ? 2 : lives + 1;
    return lives;
  }
  // The life begun last (0: never placed in the walk).
  uint64_t Current(uint64_t instance) const {
    const auto page = pages_.find(instance >> 6);
    if (page == pages_.end() || (page->second & Bit(instance)) == 0) return 0;
    if (again_.empty()) return 1;
    const auto lives = again_.find(instance);
    return lives == again_.end() ? 1 : lives->second;
  }

 private:
  static uint64_t Bit(uint64_t instance) { return uint64_t{1} << (instance & 63); }

  absl::flat_hash_map<uint64_t, uint64_t> pages_;  // id / 64 -> bit per id
  absl::flat_hash_map<uint64_t, uint64_t> again_;  // id -> lives, when >= 2
};

class Walker : public AllocationObserver {
 public:
  explicit Walker(HistoryVisitor* visitor) : visitor_(visitor) {}

  // The moment the event being applied leads to (or, while starting, the
  // walk's first moment).
  void set_moment(uint64_t moment, bool starting) {
    moment_ = moment;
    starting_ = starting;
  }
  uint64_t GenerationOf(uint64_t instance) const {
    return lives_.Current(instance);
  }

  void Placed(const Allocation& a) override {
    visitor_->Began(a, lives_.Begin(a.instance), moment_, starting_);
  }
  void Removed(const Allocation& a) override {
    visitor_->Ended(a, GenerationOf(a.instance), moment_, false);
  }
  void Changed(const Allocation& before, const Allocation& after) override {
    visitor_->Changed(before, after, GenerationOf(after.instance), moment_);
  }
  void Failed(const Failure& f) override { visitor_->Failed(f); }

 private:
  HistoryVisitor* visitor_;
  LifeCounts lives_;
  uint64_t moment_ = 0;
  bool starting_ = true;
};

std::string Hex(uint64_t v) { return HexId(v); }

std::string Range(const Event& e) {
  if (e.offset == kNoOffset) return "(no offset)";
  return "[" + std::to_string(e.offset) + ", " +
         std::to_string(e.offset + e.size) + ")";
}

}  // namespace

absl::Status WalkHistory(const MemoryHistory& history, uint64_t from,
                         HistoryVisitor* visitor) {
  HistoryCursor replay(history);
  Walker walker(visitor);
  replay.set_figures(true);
  replay.set_observer(&walker);
  walker.set_moment(from, true);
  if (absl::Status started = replay.Start(from); !started.ok()) return started;
  visitor->Start(from, replay.figures());
  for (;;) {
    walker.set_moment(replay.sequence() + 1, false);
    if (!replay.Step()) break;
    visitor->Moment(replay.sequence(), replay.last_event(), replay.figures());
  }
  Snapshot end;
  replay.CopyTo(&end);
  for (const Allocation& a : end.allocations)
    visitor->Ended(a, walker.GenerationOf(a.instance), history.end_sequence(),
                   true);
  return absl::OkStatus();
}

std::string FormatHistoryTime(int64_t ns) {
  const bool negative = ns < 0;
  const uint64_t magnitude =
      negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::string micros = std::to_string(magnitude % 1000000000 / 1000);
  micros.insert(0, 6 - micros.size(), '0');
  return (negative ? "-" : "") + std::to_string(magnitude / 1000000000) + "." +
         micros + " s";
}

std::string HistoryClockText(const MemoryHistory& h) {
  if (h.clock == HistoryClock::kLogTime)
    return "log time: seconds since node " + std::to_string(h.node) +
           "'s process start, as its log prints them (nodes' clocks are not "
           "aligned)";
  return "drain time: seconds since node " + std::to_string(h.node) +
         "'s history clock started, when the tracker applied each event "
         "(at most one drainer period plus a drain after the event)";
}

std::string EventPlace(const MemoryHistory& h, uint64_t event_number) {
  std::string text = "event " + std::to_string(event_number);
  if (event_number == 0 || event_number - 1 < h.first_sequence() ||
      event_number > h.end_sequence())
    return text;
  text += " (" + FormatHistoryTime(h.TimeOfEvent(event_number - 1));
  if (const uint64_t line = h.LineOfEvent(event_number - 1))
    text += ", line " + std::to_string(line);
  return text + ")";
}

namespace {
std::string MaybeCancelled(const Event& e) {
  return (e.offset & kFailureMaybeCancelled) != 0
             ? std::string(" (") + kMaybeCancelledText + ")"
             : std::string();
}
}  // namespace

std::string DescribeEvent(const Event& e) {
  const std::string i = Hex(e.instance);
  switch (e.type) {
    case EventType::kAllocated:
      return "allocated " + i + " " + Range(e) + " " + FormatHumanSize(e.size) +
             " align " + std::to_string(e.aux);
    case EventType::kDeferred:
      return "deferred " + i + " " + FormatHumanSize(e.size) + " align " +
             std::to_string(e.aux) +
             (e.offset == kNoOffset ? "" : " planned at " + std::to_string(e.offset));
    case EventType::kDeferredCompleted:
      return "deferred request placed " + i + " at " + std::to_string(e.offset);
    case EventType::kDeferredFailed:
      return "deferred request failed " + i + MaybeCancelled(e);
    case EventType::kAllocationFailed:
      return "allocation failed " + i + " " + FormatHumanSize(e.size) +
             " align " + std::to_string(e.aux) + MaybeCancelled(e);
    case EventType::kReleaseRequested: {
      const ReleaseState release = EventReleaseState(e);
      return std::string(release == ReleaseState::kCancelled ? "release cancelled "
                                                             : "release requested ") +
             i +
             (release == ReleaseState::kReady     ? " (ready)"
              : release == ReleaseState::kPending ? " (pending)"
                                                  : "");
    }
    case EventType::kReleased:
      return "released " + i;
    case EventType::kRedistrict:
      return "redistricted " + i + " into " + std::to_string(e.aux) + " piece(s)";
    case EventType::kRedistrictPiece:
      return "  piece " + i + " " + Range(e) + " " + FormatHumanSize(e.size);
    case EventType::kReserved:
      return "reserved " + i + " " + FormatHumanSize(e.size) +
             (e.offset == kNoOffset ? "" : " at " + std::to_string(e.offset));
    case EventType::kReservationEnded:
      return "reservation ended " + i;
    case EventType::kAttachIdentity:
      return "identity " + std::to_string(e.offset) + " attached to " + i;
    case EventType::kHeapPlaced:
      return "placed " + i + " " + Range(e) + " " + FormatHumanSize(e.size);
    case EventType::kHeapRemoved:
      return "removed " + i;
    case EventType::kHeapSplit:
      return "split " + i + " into " + std::to_string(e.aux) + " piece(s)";
    case EventType::kHeapSwapped:
      return "heaps swapped (" + std::to_string(e.aux) + " change(s))";
    case EventType::kHeapReplaced:
      return "current heap replaced (" + std::to_string(e.aux) + " range(s))";
    case EventType::kFuturePlaced:
      return e.offset == kNoOffset
                 ? "request waiting " + i + " " + FormatHumanSize(e.size)
                 : "request planned " + i + " at " + std::to_string(e.offset) +
                       " " + FormatHumanSize(e.size);
    case EventType::kRequestFailed:
      return std::string(e.offset ? "request failed (eventual) " : "request failed ") +
             i + " " + FormatHumanSize(e.size) + " align " + std::to_string(e.aux);
    case EventType::kRequestCancelled:
      return "request cancelled " + i;
    case EventType::kNoop:
      return "(group applied outside the journal)";
    case EventType::kFutureReset:
      return "future heap rebuilt";
  }
  return "malformed event (type " + std::to_string(static_cast<int>(e.type)) + ")";
}

absl::StatusOr<int64_t> ParseHistoryTime(std::string_view text) {
  const std::string original(text);
  int64_t scale = 1000000000;  // seconds
  for (const auto& [suffix, unit] :
       {std::pair<std::string_view, int64_t>{"ns", 1}, {"us", 1000},
        {"ms", 1000000}, {"s", 1000000000}}) {
    if (text.size() > suffix.size() &&
        text.substr(text.size() - suffix.size()) == suffix) {
      text.remove_suffix(suffix.size());
      scale = unit;
      break;
    }
  }
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  uint64_t w = 0, f = 0, f_scale = 1;
  const auto digits = [](std::string_view s) {
    for (char c : s)
      if (c < '0' || c > '9') return false;
    return true;
  };
  bool ok = !text.empty() && digits(whole) && digits(fraction) &&
            whole.size() <= 12 && fraction.size() <= 9 &&
            !(whole.empty() && fraction.empty());
  if (ok && !whole.empty())
    std::from_chars(whole.data(), whole.data() + whole.size(), w);
  if (ok && !fraction.empty()) {
    std::from_chars(fraction.data(), fraction.data() + fraction.size(), f);
    for (size_t i = 0; i < fraction.size(); ++i) f_scale *= 10;
  }
  // The fraction must come out in whole nanoseconds.
  ok = ok && (static_cast<uint64_t>(scale) * f) % f_scale == 0;
  if (!ok) {
    return absl::InvalidArgumentError(
        "'" + original +
        "': expected a time in seconds (12.5, or with a unit: 350ms, 20us, "
        "100ns)");
  }
  const uint64_t fraction_ns = static_cast<uint64_t>(scale) * f / f_scale;
  // Twelve digits of seconds would pass 2^63 ns (292 years): refused, not
  // wrapped.
  if (w > (static_cast<uint64_t>(INT64_MAX) - fraction_ns) /
              static_cast<uint64_t>(scale)) {
    return absl::InvalidArgumentError(
        "'" + original +
        "': past the clock's range (at most 9223372036.854775807 s)");
  }
  return static_cast<int64_t>(w * static_cast<uint64_t>(scale) + fraction_ns);
}

}  // namespace realm_shadow
