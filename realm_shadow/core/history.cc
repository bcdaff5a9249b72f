// Histories: the clock, checks, moments and times (history.h).
#include "realm_shadow/core/history.h"

#include <time.h>

#include <algorithm>
#include <optional>

#include "realm_shadow/core/text.h"

namespace realm_shadow {
namespace {

// The index of the last mark whose sequence is <= sequence, or -1.
ptrdiff_t MarkOf(const MemoryHistory& h, uint64_t sequence) {
  auto it = std::upper_bound(
      h.marks.begin(), h.marks.end(), sequence,
      [](uint64_t s, const HistoryMark& m) { return s < m.sequence; });
  return (it - h.marks.begin()) - 1;
}

}  // namespace

std::string DescribeWindow(const MemoryHistory& h) {
  std::string text = "the history of memory " + HexId(h.memory_id) +
                     ": it holds moments " + std::to_string(h.first_sequence()) +
                     " to " + std::to_string(h.end_sequence());
  if (h.first_sequence() > 0) {
    text += " (the " + std::to_string(h.first_sequence()) +
            " events before were dropped";
    if (h.window_events > 0)
      text += ": the window keeps the last " +
              std::to_string(h.window_events) + " events, REALM_SHADOW_HISTORY";
    text += ")";
  }
  return text;
}

namespace {

int64_t SteadyNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

struct ClockOrigin {
  int64_t steady_ns;
  uint64_t unix_ns;
};
const ClockOrigin& Origin() {
  static const ClockOrigin origin = [] {
    timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    return ClockOrigin{SteadyNs(), uint64_t(real.tv_sec) * 1000000000u +
                                       uint64_t(real.tv_nsec)};
  }();
  return origin;
}

}  // namespace

const char* HistoryClockName(HistoryClock clock) {
  // The clocks count from 1; 0 and past the last are no clock of ours.
  static constexpr const char* kNames[] = {"unknown clock", "drain time",
                                           "log time"};
  return EnumName<size_t(HistoryClock::kLogTime) + 1>(kNames, clock,
                                                      kNames[0]);
}

uint64_t HistoryClockOrigin() { return Origin().unix_ns; }
int64_t HistoryClockNow() {
  const int64_t origin = Origin().steady_ns;  // first: the first call sets it
  return SteadyNs() - origin;
}

int64_t MemoryHistory::TimeOfEvent(uint64_t sequence) const {
  const ptrdiff_t m = MarkOf(*this, sequence);
  return m < 0 ? (marks.empty() ? 0 : marks[0].time_ns) : marks[m].time_ns;
}

int64_t MemoryHistory::TimeOfMoment(uint64_t sequence) const {
  if (events.empty()) return 0;
  return TimeOfEvent(sequence > first_sequence() ? sequence - 1
                                                 : first_sequence());
}

uint64_t MemoryHistory::LineOfEvent(uint64_t sequence) const {
  if (lines.size() != marks.size()) return 0;
  const ptrdiff_t m = MarkOf(*this, sequence);
  return m < 0 ? 0 : lines[m];
}

absl::Status CheckHistory(const MemoryHistory& h) {
  const auto fail = [&](const std::string& what) {
    return absl::InvalidArgumentError("history of memory " + HexId(h.memory_id) +
                                      ": " + what);
  };
  if (h.clock != HistoryClock::kDrainTime && h.clock != HistoryClock::kLogTime)
    return fail("unknown clock " + std::to_string(static_cast<int>(h.clock)));
  if (h.checkpoints.empty()) return fail("no base checkpoint");
  const uint64_t first = h.first_sequence();
  if (h.events.size() > UINT64_MAX - first) return fail("event count overflows");
  const uint64_t end = h.end_sequence();
  for (size_t i = 0; i < h.checkpoints.size(); ++i) {
    const HistoryCheckpoint& c = h.checkpoints[i];
    const uint64_t s = c.state.sequence;
    if (s > end || (i > 0 && s <= h.checkpoints[i - 1].state.sequence))
      return fail("checkpoint " + std::to_string(i) + " at moment " +
                  std::to_string(s) + " is out of order or past moment " +
                  std::to_string(end));
    if (c.pending_flags.size() != c.state.pending.size())
      return fail("checkpoint " + std::to_string(i) + " has " +
                  std::to_string(c.pending_flags.size()) +
                  " pending flags for " +
                  std::to_string(c.state.pending.size()) + " pending requests");
  }
  if (!h.events.empty() && (h.marks.empty() || h.marks[0].sequence != first))
    return fail("the first event has no time mark");
  for (size_t i = 0; i < h.marks.size(); ++i) {
    const uint64_t s = h.marks[i].sequence;
    if (s < first || s >= end || (i > 0 && s < h.marks[i - 1].sequence))
      return fail("time mark " + std::to_string(i) + " at event " +
                  std::to_string(s) + " is out of order or outside events " +
                  std::to_string(first) + " to " + std::to_string(end));
  }
  for (size_t i = 1; i < h.identities.size(); ++i)
    if (h.identities[i].id <= h.identities[i - 1].id)
      return fail("identities are not in ascending id order");
  if (!h.lines.empty() && h.lines.size() != h.marks.size())
    return fail(std::to_string(h.lines.size()) + " line numbers for " +
                std::to_string(h.marks.size()) + " time marks");
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> MomentAtTime(const MemoryHistory& h, int64_t time_ns) {
  return MomentAtTime(h.memory_id, h.marks, h.end_sequence(), time_ns);
}

absl::StatusOr<uint64_t> MomentAtTime(uint64_t memory_id,
                                      const std::vector<HistoryMark>& marks,
                                      uint64_t end_sequence, int64_t time_ns) {
  if (marks.empty() || marks[0].time_ns > time_ns) {
    std::string why = "no event of memory " + HexId(memory_id) +
                      " in its history is at or before that time";
    if (!marks.empty())
      why += " (its first is at " + std::to_string(marks[0].time_ns / 1000) + " us)";
    return absl::OutOfRangeError(why);
  }
  int64_t latest = marks[0].time_ns;
  for (size_t i = 1; i < marks.size(); ++i) {
    latest = std::max(latest, marks[i].time_ns);
    if (latest > time_ns) return marks[i].sequence;
  }
  return end_sequence;
}

}  // namespace realm_shadow
