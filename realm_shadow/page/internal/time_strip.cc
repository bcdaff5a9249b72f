// The page's time strip, computed from a history (time_strip.h).
#include "realm_shadow/page/internal/time_strip.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "realm_shadow/analysis/history_walk.h"
#include "realm_shadow/analysis/history_cursor.h"

namespace realm_shadow {
namespace {

// Whether [start, end) holds one of the sorted moments.
bool HoldsOne(const std::vector<uint64_t>& moments, uint64_t start,
              uint64_t end, uint32_t* first, uint32_t* last) {
  const auto lo = std::lower_bound(moments.begin(), moments.end(), start);
  if (lo == moments.end() || *lo >= end) return false;
  const auto hi = std::lower_bound(lo, moments.end(), end);
  *first = static_cast<uint32_t>(lo - moments.begin());
  *last = static_cast<uint32_t>(hi - moments.begin()) - 1;
  return true;
}

// One walk.  The first fills the buckets and the boundaries' figures and
// keeps every span's moments; the second keeps the spans alive at the
// moments shown.
class StripWalk : public HistoryVisitor {
 public:
  StripWalk(const MemoryHistory& h, TimeStrip* strip,
            const std::vector<uint64_t>* shown)
      : h_(h), strip_(strip), shown_(shown) {}

  void Start(uint64_t, const MemoryFigures& f) override {
    if (shown_ != nullptr) return;
    strip_->figures.assign(strip_->buckets + 1, MemoryFigures());
    strip_->figures[0] = f;
    Into(0, f);
  }
  void Moment(uint64_t sequence, const Event&, const MemoryFigures& f) override {
    if (shown_ != nullptr) return;
    while (strip_->boundary[bucket_ + 1] < sequence) ++bucket_;
    Into(bucket_, f);
    if (strip_->boundary[bucket_ + 1] == sequence)
      strip_->figures[bucket_ + 1] = f;
  }
  void Failed(const Failure& f) override {
    if (shown_ != nullptr) return;
    uint32_t b = bucket_;
    while (strip_->boundary[b + 1] < f.sequence + 1) ++b;
    ++strip_->failures[b];
    strip_->failure_events.emplace_back(f.sequence + 1, b);
  }
  void Began(const Allocation& a, uint64_t, uint64_t sequence, bool) override {
    open_[a.instance] = {a, sequence};
  }
  void Changed(const Allocation&, const Allocation& after, uint64_t,
               uint64_t sequence) override {
    Close(after.instance, sequence);
    open_[after.instance] = {after, sequence};
  }
  void Ended(const Allocation& a, uint64_t, uint64_t sequence,
             bool at_end) override {
    Close(a.instance, at_end ? sequence + 1 : sequence);
  }

  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // first walk

 private:
  void Into(size_t b, const MemoryFigures& f) {
    TimeStrip& t = *strip_;
    if (!seen_[b]) {
      seen_[b] = true;
      t.used_min[b] = t.used_max[b] = f.used;
      t.hole_min[b] = t.hole_max[b] = f.largest_hole;
      return;
    }
    t.used_min[b] = std::min(t.used_min[b], f.used);
    t.used_max[b] = std::max(t.used_max[b], f.used);
    t.hole_min[b] = std::min(t.hole_min[b], f.largest_hole);
    t.hole_max[b] = std::max(t.hole_max[b], f.largest_hole);
  }
  void Close(uint64_t instance, uint64_t end) {
    auto it = open_.find(instance);
    if (it == open_.end()) return;
    const auto [allocation, start] = it->second;
    open_.erase(it);
    if (shown_ == nullptr) {
      ranges.emplace_back(start, end);
      return;
    }
    TimeStrip::Span span;
    if (!HoldsOne(*shown_, start, end, &span.first, &span.last)) return;
    span.allocation = allocation;
    strip_->spans.push_back(span);
  }

 public:
  std::vector<bool> seen_;

 private:
  const MemoryHistory& h_;
  TimeStrip* strip_;
  const std::vector<uint64_t>* shown_;
  size_t bucket_ = 0;
  absl::flat_hash_map<uint64_t, std::pair<Allocation, uint64_t>> open_;
};

}  // namespace

TimeStrip BuildTimeStrip(const MemoryHistory& h, size_t buckets,
                         size_t max_spans) {
  TimeStrip t;
  const uint64_t n = h.events.size();
  if (n == 0 || buckets == 0) return t;
  t.buckets = static_cast<size_t>(std::min<uint64_t>(n, buckets));
  const size_t b = t.buckets;
  t.used_min.assign(b, 0);
  t.used_max.assign(b, 0);
  t.hole_min.assign(b, 0);
  t.hole_max.assign(b, 0);
  t.failures.assign(b, 0);
  t.boundary.resize(b + 1);
  t.time_ns.resize(b + 1);
  for (size_t j = 0; j <= b; ++j) {
    // Whole events per bucket, spread evenly (n >= b).
    t.boundary[j] = h.first_sequence() +
                    static_cast<uint64_t>((static_cast<unsigned __int128>(n) * j) / b);
    t.time_ns[j] = h.TimeOfMoment(t.boundary[j]);
  }
  std::string error;
  StripWalk first(h, &t, nullptr);
  first.seen_.assign(b, false);
  if (!WalkHistory(h, h.first_sequence(), &first).ok()) return TimeStrip();

  // The thinning: every stride-th boundary, and the last, until the spans
  // alive at them fit.
  const auto shown_of = [&](size_t stride) {
    std::vector<uint64_t> moments;
    for (size_t j = 0; j < b; j += stride) moments.push_back(t.boundary[j]);
    moments.push_back(t.boundary[b]);
    return moments;
  };
  std::vector<uint64_t> shown;
  for (size_t stride = 1;; stride *= 2) {
    shown = shown_of(stride);
    size_t alive = 0;
    uint32_t f, l;
    for (const auto& [start, end] : first.ranges)
      if (HoldsOne(shown, start, end, &f, &l)) ++alive;
    t.stride = stride;
    if (alive <= max_spans || stride >= b) break;
  }
  t.shown.clear();
  for (size_t j = 0; j < b; j += t.stride) t.shown.push_back(static_cast<uint32_t>(j));
  t.shown.push_back(static_cast<uint32_t>(b));
  first.ranges.clear();
  first.ranges.shrink_to_fit();
  StripWalk second(h, &t, &shown);
  WalkHistory(h, h.first_sequence(), &second).IgnoreError();  // the first got through
  std::sort(t.spans.begin(), t.spans.end(),
            [](const TimeStrip::Span& x, const TimeStrip::Span& y) {
              const Allocation& a = x.allocation;
              const Allocation& c = y.allocation;
              if (a.offset != c.offset) return a.offset < c.offset;
              if (a.instance != c.instance) return a.instance < c.instance;
              return x.first < y.first;
            });
  return t;
}

}  // namespace realm_shadow
