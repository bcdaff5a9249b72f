// The consumer's history ring (history_recorder.h).
#include "realm_shadow/analysis/history_recorder.h"

#include <algorithm>

namespace realm_shadow {
namespace {

// Segments of at least a quarter window (so at most five of them hold a
// window) and at most 65536 events (so StateAt replays at most that many at
// small live counts), unless the live allocations are more: a checkpoint
// then costs no more than its segment's events.
constexpr size_t kMaxMinSegment = 65536;
// Arrays start at this many events and grow as a segment fills, so that a
// large segment of a quiet memory costs only what it holds.
constexpr size_t kInitialEvents = 4096;

size_t CheckpointBytes(const HistoryCheckpoint& c) {
  const Snapshot& s = c.state;
  return sizeof(HistoryCheckpoint) +
         s.allocations.capacity() * sizeof(Allocation) +
         s.pending.capacity() * sizeof(PendingRequest) +
         s.reservations.capacity() * sizeof(Reservation) +
         s.failures.capacity() * sizeof(Failure) +
         s.anomalies.capacity() * sizeof(Anomaly) +
         c.released.capacity() * 8 + c.failed.capacity() * 8 +
         c.early_releases.capacity() * 16 + c.pending_flags.capacity() +
         c.group_records.capacity() * sizeof(Event);
}

}  // namespace

HistoryRecorder::HistoryRecorder(size_t window_events, const ShadowMap& map)
    : window_(std::max<size_t>(window_events, 1)),
      min_segment_(std::max<size_t>(1, std::min(window_ / 4, kMaxMinSegment))) {
  OpenSegment(map);
}

void HistoryRecorder::OpenSegment(const ShadowMap& map) {
  Segment segment;
  if (!spare_.empty()) {
    segment = std::move(spare_.back());
    spare_.pop_back();
    segment.events.clear();
    segment.marks.clear();
  }
  segment.limit = std::max(min_segment_, map.live_count());
  if (segment.events.capacity() == 0)
    segment.events.reserve(std::min(segment.limit, kInitialEvents));
  map.SaveCheckpoint(&segment.checkpoint);
  segments_.push_back(std::move(segment));
}

void HistoryRecorder::AddMark(uint64_t sequence, int64_t time_ns) {
  std::vector<HistoryMark>& marks = segments_.back().marks;
  if (!marks.empty() && marks.back().time_ns == time_ns) return;
  if (!marks.empty() && marks.back().sequence == sequence) {
    marks.back().time_ns = time_ns;  // a batch that brought no event
    return;
  }
  marks.push_back(HistoryMark{sequence, time_ns});
}

void HistoryRecorder::Apply(ShadowMap* map, const Event* events, size_t count,
                            int64_t time_ns) {
  if (count == 0) return;
  AddMark(map->sequence(), time_ns);
  while (count > 0) {
    Segment& s = segments_.back();
    const size_t take = std::min(count, s.limit - s.events.size());
    for (size_t i = 0; i < take; ++i) {
      map->Apply(events[i]);
      s.events.push_back(HistoryRecordOf(events[i]));
    }
    events += take;
    count -= take;
    if (s.events.size() == s.limit) {
      OpenSegment(*map);
      if (count > 0) AddMark(map->sequence(), time_ns);
    }
  }
  // The oldest segment goes as soon as the others hold a window.
  const uint64_t now = map->sequence();
  while (segments_.size() >= 2 &&
         now - segments_[1].checkpoint.state.sequence >= window_) {
    spare_.push_back(std::move(segments_.front()));
    segments_.pop_front();
    if (spare_.size() > 1) spare_.erase(spare_.begin());
  }
}

void HistoryRecorder::Export(MemoryHistory* out) const {
  out->clock = HistoryClock::kDrainTime;
  out->window_events = window_;
  out->checkpoints.clear();
  out->events.clear();
  out->marks.clear();
  out->lines.clear();
  size_t events = 0, marks = 0;
  for (const Segment& s : segments_) {
    events += s.events.size();
    marks += s.marks.size();
  }
  out->events.reserve(events);
  out->marks.reserve(marks);
  out->checkpoints.reserve(segments_.size());
  for (const Segment& s : segments_) {
    // A segment opened by the last batch holds no event yet: its
    // checkpoint is the end of the window, which replay reaches anyway.
    if (s.events.empty() && !out->checkpoints.empty()) continue;
    out->checkpoints.push_back(s.checkpoint);
    out->events.insert(out->events.end(), s.events.begin(), s.events.end());
    out->marks.insert(out->marks.end(), s.marks.begin(), s.marks.end());
  }
}

void HistoryRecorder::AppendReferencedIdentities(std::vector<uint32_t>* out) const {
  for (const Segment& segment : segments_) {
    const Snapshot& s = segment.checkpoint.state;
    for (const Allocation& a : s.allocations)
      if (a.identity) out->push_back(a.identity);
    for (const PendingRequest& p : s.pending)
      if (p.identity) out->push_back(p.identity);
    for (const Failure& f : s.failures)
      if (f.identity) out->push_back(f.identity);
    for (const EventRecord& r : segment.events)
      if ((r.stamp & 0xff) == static_cast<uint32_t>(EventType::kAttachIdentity) &&
          r.offset != 0 && r.offset <= UINT32_MAX)
        out->push_back(static_cast<uint32_t>(r.offset));
  }
}

size_t HistoryRecorder::bytes() const {
  size_t n = 0;
  const auto add = [&](const Segment& s) {
    n += sizeof(Segment) + s.events.capacity() * sizeof(EventRecord) +
         s.marks.capacity() * sizeof(HistoryMark) + CheckpointBytes(s.checkpoint);
  };
  for (const Segment& s : segments_) add(s);
  for (const Segment& s : spare_) add(s);
  return n;
}

uint64_t HistoryRecorder::first_sequence() const {
  return segments_.front().checkpoint.state.sequence;
}

}  // namespace realm_shadow
