// realm_shadow/page/internal/time_strip.h - what the page's time strip is
// drawn from, computed from a memory's history when the page is written.
//
// Layer page, internal.  The window's events are cut into at most
// `buckets` pixel buckets of whole events (every event its own bucket when
// there are fewer); each bucket keeps the minimum and maximum of used bytes
// and of the largest hole over its moments (every moment: the replay applies
// every event), so a strip of ten million events is drawn from 2048 pairs
// without losing a peak.  The moments a person can move the map to are the
// bucket boundaries (every `stride`-th, see below); at each the page shows
// the exact state: the allocation spans alive there (an allocation's life,
// split where its state or identity changed), computed by the replay, never
// interpolated, and the figures Summarize gives at that moment.
//
// Size: 37 bytes per span.  When the spans alive at some boundary would be
// more than max_spans, the boundaries are thinned (every 2nd, 4th, ...) until
// they fit or only the first and last remain; `stride` says how many buckets
// lie between two moments the page can show.
//
// Cost: two replays of the window (one counts the spans of each thinning,
// one collects those kept), each as history_walk.h's.
#ifndef REALM_SHADOW_PAGE_INTERNAL_TIME_STRIP_H_
#define REALM_SHADOW_PAGE_INTERNAL_TIME_STRIP_H_

#include <cstdint>
#include <vector>

#include "realm_shadow/core/history.h"
#include "realm_shadow/layers.h"
#include "realm_shadow/analysis/history_cursor.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(page);

struct TimeStrip {
  size_t buckets = 0;  // 0: no event in the window
  // Per bucket.
  std::vector<uint64_t> used_min, used_max, hole_min, hole_max;
  std::vector<uint32_t> failures;  // failures per bucket
  // Bucket boundaries, buckets + 1: boundary[0] is the window's start.
  std::vector<uint64_t> boundary;  // moments
  std::vector<int64_t> time_ns;    // the time of each boundary moment
  // The moments the page can show: boundaries 0, stride, 2 stride, ...,
  // and always the last; their figures.
  size_t stride = 1;
  std::vector<uint32_t> shown;  // boundary indices
  std::vector<MemoryFigures> figures;
  // The spans, sorted by (offset, instance, first): alive at shown
  // moments first..last (indices into `shown`).
  struct Span {
    Allocation allocation;
    uint32_t first = 0, last = 0;
  };
  std::vector<Span> spans;
  // Each failure in the window: its event number and bucket.
  std::vector<std::pair<uint64_t, uint32_t>> failure_events;
};

TimeStrip BuildTimeStrip(const MemoryHistory& history, size_t buckets,
                         size_t max_spans);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_PAGE_INTERNAL_TIME_STRIP_H_
