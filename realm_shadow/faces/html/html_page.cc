// realm_shadow/faces/html/html_page.cc - builds the memory map page: the
// template (map.html, map.css and the script parts in page/, compiled in)
// plus the data block.
//
// The data block is one JSON object in a <script type="application/json">
// element.  Bulk arrays are base64 of little-endian typed arrays (see
// html_page.h for the layout); everything else is small JSON.  Strings are
// escaped so that no "</script" can end the element early.
#include "realm_shadow/faces/html_page.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/faces/history_walk.h"
#include "realm_shadow/faces/html/html_template.h"
#include "realm_shadow/faces/html/time_strip.h"
#include "realm_shadow/faces/output_file.h"

namespace realm_shadow {
namespace {

// How many rows the side tables get; the page shows more by zooming.
constexpr size_t kTopHoles = 100;
constexpr size_t kTopAllocations = 100;
// Diff: removed allocations are drawn as ghosts; past this many the page
// shows the count and the first ones only (each costs 24 bytes of data).
constexpr size_t kMaxRemovedDrawn = 1 << 20;
// The time strip: pixel buckets, and the spans the page may hold for its
// moments (37 bytes each, about 50 of text; time_strip.h thins the moments
// past this).
constexpr size_t kStripBuckets = 2048;
constexpr size_t kMaxStripSpans = size_t{3} << 20;

// ---- JSON and base64 writers -------------------------------------------

void AppendJsonString(std::string* out, const std::string& s) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      // '<' and '>' escaped: the JSON lives inside a <script> element.
      case '<': out->append("\\u003c"); break;
      case '>': out->append("\\u003e"); break;
      case '&': out->append("\\u0026"); break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

// Numbers go out as JSON numbers; offsets and sizes are exact in a double
// below 2^53 (8 PiB), far above any memory Realm manages.  kNoOffset and
// other out-of-range values become null.
void AppendU64(std::string* out, uint64_t v) {
  if (v > (uint64_t{1} << 53)) {
    out->append("null");
  } else {
    out->append(std::to_string(v));
  }
}

void AppendDouble(std::string* out, double v) {
  if (!std::isfinite(v)) {
    out->append("0");
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  out->append(buf);
}

class Base64Writer {
 public:
  explicit Base64Writer(std::string* out) : out_(out) {}
  ~Base64Writer() { Finish(); }
  void Byte(uint8_t b) {
    pending_[count_++] = b;
    if (count_ == 3) Flush3();
  }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) Byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  void F64(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    for (int i = 0; i < 8; ++i) Byte(static_cast<uint8_t>(bits >> (8 * i)));
  }
  void Finish() {
    if (count_ == 0) return;
    static const char* kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint32_t v = (uint32_t{pending_[0]} << 16) |
                       (count_ > 1 ? uint32_t{pending_[1]} << 8 : 0);
    out_->push_back(kAlphabet[(v >> 18) & 63]);
    out_->push_back(kAlphabet[(v >> 12) & 63]);
    out_->push_back(count_ > 1 ? kAlphabet[(v >> 6) & 63] : '=');
    out_->push_back('=');
    count_ = 0;
  }

 private:
  void Flush3() {
    static const char* kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint32_t v = (uint32_t{pending_[0]} << 16) |
                       (uint32_t{pending_[1]} << 8) | pending_[2];
    char q[4] = {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63],
                 kAlphabet[(v >> 6) & 63], kAlphabet[v & 63]};
    out_->append(q, 4);
    count_ = 0;
  }
  std::string* out_;
  uint8_t pending_[3] = {0, 0, 0};
  int count_ = 0;
};

// ---- pieces of the data block ------------------------------------------

// kind (3 bits) | state (2 bits) << 3 | flags (3 bits) << 5: one byte.
uint8_t PackBits(const Allocation& a) {
  return static_cast<uint8_t>((static_cast<uint8_t>(a.kind) & 7) |
                              ((static_cast<uint8_t>(a.state) & 3) << 3) |
                              ((a.flags & 7) << 5));
}

void AppendAllocationArrays(std::string* out,
                            const std::vector<Allocation>& allocations) {
  // One array after the other, so each is contiguous once decoded:
  // offset f64[n], size f64[n], instance u32[2n], identity u32[n], bits u8[n].
  out->append("\"allocations\":\"");
  {
    Base64Writer b64(out);
    for (const Allocation& a : allocations) b64.F64(static_cast<double>(a.offset));
    for (const Allocation& a : allocations) b64.F64(static_cast<double>(a.size));
    for (const Allocation& a : allocations) {
      b64.U32(static_cast<uint32_t>(a.instance));
      b64.U32(static_cast<uint32_t>(a.instance >> 32));
    }
    for (const Allocation& a : allocations) b64.U32(a.identity);
    for (const Allocation& a : allocations) b64.Byte(PackBits(a));
  }
  out->append("\"");
}

void AppendIdentities(std::string* out, const DumpFile& dump) {
  // Identity ids are the process's interning ids, shared by the memories
  // of one dump; the table keeps each id once.
  std::unordered_map<uint32_t, const Identity*> seen;
  for (const Snapshot& s : dump.memories)
    for (const Identity& id : s.identities) seen.emplace(id.id, &id);
  std::vector<uint32_t> ids;
  ids.reserve(seen.size());
  for (const auto& kv : seen) ids.push_back(kv.first);
  std::sort(ids.begin(), ids.end());
  out->append("\"identities\":{");
  bool first = true;
  for (uint32_t id : ids) {
    const Identity& identity = *seen[id];
    if (!first) out->push_back(',');
    first = false;
    out->append("\"" + std::to_string(id) + "\":{\"kind\":");
    AppendJsonString(out, AllocationKindName(identity.kind));
    out->append(",\"attributes\":[");
    for (size_t i = 0; i < identity.attributes.size(); ++i) {
      if (i) out->push_back(',');
      out->push_back('[');
      AppendJsonString(out, identity.attributes[i].first);
      out->push_back(',');
      AppendJsonString(out, identity.attributes[i].second);
      out->push_back(']');
    }
    out->append("]}");
  }
  out->append("}");
}

void AppendBlockers(std::string* out, const Snapshot& s,
                    const BlockerWindow& w) {
  out->append("{\"found\":");
  out->append(w.found ? "true" : "false");
  out->append(",\"fits_already\":");
  out->append(w.fits_already ? "true" : "false");
  out->append(",\"window_offset\":");
  AppendU64(out, w.window_offset);
  out->append(",\"window_end\":");
  AppendU64(out, w.window_end);
  out->append(",\"placement\":");
  AppendU64(out, w.placement);
  out->append(",\"bytes_to_free\":");
  AppendU64(out, w.bytes_to_free);
  out->append(",\"count\":" + std::to_string(w.blockers.size()));
  // Blockers are a contiguous run of the sorted allocations: the page
  // needs only the index range to highlight them.
  int64_t first = -1, last = -1;
  if (!w.blockers.empty()) {
    const auto key = [](const Allocation& a, const Allocation& b) {
      return a.offset != b.offset ? a.offset < b.offset
                                  : a.instance < b.instance;
    };
    auto it = std::lower_bound(s.allocations.begin(), s.allocations.end(),
                               w.blockers.front(), key);
    auto jt = std::lower_bound(s.allocations.begin(), s.allocations.end(),
                               w.blockers.back(), key);
    if (it != s.allocations.end() && jt != s.allocations.end()) {
      first = it - s.allocations.begin();
      last = jt - s.allocations.begin();
    }
  }
  out->append(",\"first_index\":" + std::to_string(first));
  out->append(",\"last_index\":" + std::to_string(last));
  out->append(",\"instances\":[");
  for (size_t i = 0; i < w.blockers.size() && i < 32; ++i) {
    if (i) out->push_back(',');
    AppendJsonString(out, HexId(w.blockers[i].instance));
  }
  out->append("]}");
}

// Compares `after` with `before` instance by instance.  Instance ids are
// unique among one memory's live allocations, so a map from id suffices.
void AppendDiff(std::string* out, const Snapshot& before,
                const Snapshot& after) {
  std::unordered_map<uint64_t, const Allocation*> old_by_instance;
  old_by_instance.reserve(before.allocations.size());
  for (const Allocation& a : before.allocations)
    old_by_instance.emplace(a.instance, &a);
  uint64_t added = 0, moved = 0, removed = 0, same = 0;
  std::vector<uint8_t> status(after.allocations.size(), 0);
  std::unordered_map<uint64_t, bool> still_live;
  still_live.reserve(after.allocations.size());
  for (size_t i = 0; i < after.allocations.size(); ++i) {
    const Allocation& a = after.allocations[i];
    still_live.emplace(a.instance, true);
    auto it = old_by_instance.find(a.instance);
    if (it == old_by_instance.end()) {
      status[i] = 1;  // added
      ++added;
    } else if (it->second->offset != a.offset || it->second->size != a.size) {
      status[i] = 2;  // moved or resized
      ++moved;
    } else {
      ++same;
    }
  }
  std::vector<const Allocation*> gone;
  for (const Allocation& a : before.allocations)
    if (!still_live.count(a.instance)) gone.push_back(&a);
  removed = gone.size();
  if (gone.size() > kMaxRemovedDrawn) gone.resize(kMaxRemovedDrawn);
  out->append("\"diff\":{\"added\":" + std::to_string(added) +
              ",\"moved\":" + std::to_string(moved) +
              ",\"removed\":" + std::to_string(removed) +
              ",\"unchanged\":" + std::to_string(same) +
              ",\"removed_drawn\":" + std::to_string(gone.size()) +
              ",\"status\":\"");
  {
    Base64Writer b64(out);
    for (uint8_t v : status) b64.Byte(v);
  }
  // Removed allocations, sorted by offset as `before` is: offset f64[m],
  // size f64[m], instance u32[2m].
  out->append("\",\"removed_list\":\"");
  {
    Base64Writer b64(out);
    for (const Allocation* a : gone) b64.F64(static_cast<double>(a->offset));
    for (const Allocation* a : gone) b64.F64(static_cast<double>(a->size));
    for (const Allocation* a : gone) {
      b64.U32(static_cast<uint32_t>(a->instance));
      b64.U32(static_cast<uint32_t>(a->instance >> 32));
    }
  }
  out->append("\"}");
}

void AppendReplay(std::string* out, const PageReplay& r) {
  out->append(",\"replay\":{\"summary\":");
  AppendJsonString(out, r.summary);
  out->append(",\"moment\":");
  AppendJsonString(out, r.moment);
  out->append(",\"rows\":[");
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const PageReplayRow& row = r.rows[i];
    if (i) out->push_back(',');
    out->append("{\"policy\":");
    AppendJsonString(out, row.policy);
    out->append(",\"fails\":");
    out->append(row.fails ? "true" : "false");
    out->append(",\"first_failure\":");
    AppendJsonString(out, row.first_failure);
    out->append(",\"min_capacity\":");
    AppendJsonString(out, row.min_capacity);
    out->append(",\"moment\":");
    AppendJsonString(out, row.moment);
    out->append(",\"count\":" + std::to_string(row.map.size()) + ",");
    AppendAllocationArrays(out, row.map);
    out->append("}");
  }
  out->append("]}");
}

// The memory's time strip (time_strip.h): small arrays in the data block,
// the spans of its moments in the history block under `key`, decoded only
// when the strip is first used.
void AppendHistory(std::string* out, std::string* spans_block,
                   const std::string& key, const MemoryHistory& h) {
  const TimeStrip t = BuildTimeStrip(h, kStripBuckets, kMaxStripSpans);
  out->append(",\"history\":{\"key\":");
  AppendJsonString(out, key);
  out->append(",\"clock\":");
  AppendJsonString(out, HistoryClockName(h.clock));
  out->append(",\"clock_text\":");
  AppendJsonString(out, HistoryClockText(h));
  out->append(",\"first\":" + std::to_string(h.first_sequence()) +
              ",\"end\":" + std::to_string(h.end_sequence()) +
              ",\"window_events\":" + std::to_string(h.window_events) +
              ",\"buckets\":" + std::to_string(t.buckets) +
              ",\"stride\":" + std::to_string(t.stride) +
              ",\"shown\":" + std::to_string(t.shown.size()) +
              ",\"spans\":" + std::to_string(t.spans.size()));
  // Per bucket: used min, used max, largest hole min, max (f64 each), then
  // per boundary its moment and time (f64), then failures per bucket (u32).
  out->append(",\"strip\":\"");
  {
    Base64Writer b64(out);
    for (const auto* v : {&t.used_min, &t.used_max, &t.hole_min, &t.hole_max})
      for (uint64_t x : *v) b64.F64(static_cast<double>(x));
    for (uint64_t m : t.boundary) b64.F64(static_cast<double>(m));
    for (int64_t ns : t.time_ns) b64.F64(static_cast<double>(ns));
    for (uint32_t f : t.failures) b64.U32(f);
  }
  // Per shown moment: its boundary index (u32), then used, total free,
  // largest hole, holes, allocations (f64 each, exact: Summarize's).
  out->append("\",\"moments\":\"");
  {
    Base64Writer b64(out);
    for (uint32_t j : t.shown) b64.U32(j);
    for (uint32_t j : t.shown) b64.F64(static_cast<double>(t.figures[j].used));
    for (uint32_t j : t.shown) b64.F64(static_cast<double>(t.figures[j].total_free));
    for (uint32_t j : t.shown) b64.F64(static_cast<double>(t.figures[j].largest_hole));
    for (uint32_t j : t.shown) b64.F64(static_cast<double>(t.figures[j].hole_count));
    for (uint32_t j : t.shown) b64.F64(static_cast<double>(t.figures[j].allocation_count));
  }
  out->append("\",\"failure_events\":[");
  for (size_t i = 0; i < t.failure_events.size() && i < 4096; ++i) {
    if (i) out->push_back(',');
    out->append("[" + std::to_string(t.failure_events[i].first) + "," +
                std::to_string(t.failure_events[i].second) + "]");
  }
  out->append("]}");
  // The spans: offset f64[n], size f64[n], instance u32[2n], identity
  // u32[n], first u32[n], last u32[n] (indices of shown moments), bits u8[n].
  if (!spans_block->empty()) spans_block->push_back(',');
  AppendJsonString(spans_block, key);
  spans_block->append(":\"");
  {
    Base64Writer b64(spans_block);
    for (const auto& x : t.spans) b64.F64(static_cast<double>(x.allocation.offset));
    for (const auto& x : t.spans) b64.F64(static_cast<double>(x.allocation.size));
    for (const auto& x : t.spans) {
      b64.U32(static_cast<uint32_t>(x.allocation.instance));
      b64.U32(static_cast<uint32_t>(x.allocation.instance >> 32));
    }
    for (const auto& x : t.spans) b64.U32(x.allocation.identity);
    for (const auto& x : t.spans) b64.U32(x.first);
    for (const auto& x : t.spans) b64.U32(x.last);
    for (const auto& x : t.spans) b64.Byte(PackBits(x.allocation));
  }
  spans_block->push_back('"');
}

void AppendMemory(std::string* out, const Snapshot& s,
                  const Snapshot* before, const PageReplay* replay) {
  const std::vector<Hole> holes = FindHoles(s);
  const FreeSummary summary = SummarizeHoles(s, holes);
  out->append("{\"id\":");
  AppendJsonString(out, HexId(s.memory_id));
  out->append(",\"kind\":");
  AppendJsonString(out, MemoryKindName(s.kind));
  out->append(",\"name\":");
  AppendJsonString(out, s.name);
  // The axis needs an end even when capacity is unknown: the furthest end.
  uint64_t extent = s.capacity_known ? s.capacity : 0;
  for (const Allocation& a : s.allocations) extent = std::max(extent, a.end());
  for (const PendingRequest& p : s.pending)
    if (p.planned_offset != kNoOffset)
      extent = std::max(extent, p.planned_offset + p.size);
  for (const Reservation& r : s.reservations)
    if (r.offset != kNoOffset) extent = std::max(extent, r.offset + r.size);
  out->append(",\"capacity\":");
  AppendU64(out, s.capacity);
  out->append(",\"capacity_known\":");
  out->append(s.capacity_known ? "true" : "false");
  out->append(",\"extent\":");
  AppendU64(out, std::max<uint64_t>(extent, 1));
  out->append(",\"addressed\":");
  out->append(s.addressed ? "true" : "false");
  out->append(",\"node\":" + std::to_string(s.node));
  out->append(",\"sequence\":" + std::to_string(s.sequence));
  out->append(",\"exact\":");
  out->append(s.exact ? "true" : "false");
  out->append(",\"count\":" + std::to_string(s.allocations.size()) + ",");
  AppendAllocationArrays(out, s.allocations);

  out->append(",\"summary\":{\"capacity\":");
  AppendU64(out, summary.capacity);
  out->append(",\"used\":");
  AppendU64(out, summary.used);
  out->append(",\"total_free\":");
  AppendU64(out, summary.total_free);
  out->append(",\"largest_hole\":");
  AppendU64(out, summary.largest_hole);
  out->append(",\"hole_count\":" + std::to_string(summary.hole_count));
  out->append(",\"allocation_count\":" +
              std::to_string(summary.allocation_count));
  out->append(",\"fragmentation\":");
  AppendDouble(out, summary.fragmentation);
  out->append(",\"peak_used\":");
  AppendU64(out, s.counters.peak_used);
  out->append(",\"failures_total\":" + std::to_string(s.counters.failures));
  out->append("}");

  out->append(",\"top_holes\":[");
  const std::vector<Hole> top = TopHoles(holes, kTopHoles);
  for (size_t i = 0; i < top.size(); ++i) {
    if (i) out->push_back(',');
    out->push_back('[');
    AppendU64(out, top[i].offset);
    out->push_back(',');
    AppendU64(out, top[i].size);
    out->push_back(']');
  }
  out->append("],\"hole_histogram\":[");
  const HoleHistogram histogram = HoleSizeHistogram(holes);
  for (size_t b = 0; b < histogram.size(); ++b) {
    if (b) out->push_back(',');
    out->append(std::to_string(histogram[b]));
  }
  out->append("]");

  // Largest allocations as indices into the arrays: O(n log k).
  std::vector<uint32_t> order;
  {
    const size_t k = std::min(kTopAllocations, s.allocations.size());
    std::vector<uint32_t> all(s.allocations.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint32_t>(i);
    const auto larger = [&](uint32_t a, uint32_t b) {
      const Allocation& x = s.allocations[a];
      const Allocation& y = s.allocations[b];
      return x.size != y.size ? x.size > y.size : x.offset < y.offset;
    };
    std::partial_sort(all.begin(), all.begin() + k, all.end(), larger);
    order.assign(all.begin(), all.begin() + k);
  }
  out->append(",\"top_allocations\":[");
  for (size_t i = 0; i < order.size(); ++i) {
    if (i) out->push_back(',');
    out->append(std::to_string(order[i]));
  }
  out->append("],\"usage\":[");
  const auto usage = UsageByKind(s);
  for (int k = 0; k < kAllocationKindCount; ++k) {
    if (k) out->push_back(',');
    out->append("{\"kind\":");
    AppendJsonString(out, AllocationKindName(static_cast<AllocationKind>(k)));
    out->append(",\"bytes\":");
    AppendU64(out, usage[k].bytes);
    out->append(",\"count\":" + std::to_string(usage[k].count) + "}");
  }

  out->append("],\"pending\":[");
  for (size_t i = 0; i < s.pending.size(); ++i) {
    const PendingRequest& p = s.pending[i];
    if (i) out->push_back(',');
    out->append("{\"instance\":");
    AppendJsonString(out, HexId(p.instance));
    out->append(",\"size\":");
    AppendU64(out, p.size);
    out->append(",\"alignment\":");
    AppendU64(out, p.alignment);
    out->append(",\"planned_offset\":");
    AppendU64(out, p.planned_offset);
    out->append(",\"identity\":" + std::to_string(p.identity));
    out->append(",\"pinned\":");
    out->append((p.flags & kPinned) ? "true" : "false");
    out->append("}");
  }
  out->append("],\"reservations\":[");
  for (size_t i = 0; i < s.reservations.size(); ++i) {
    const Reservation& r = s.reservations[i];
    if (i) out->push_back(',');
    out->append("{\"id\":");
    AppendJsonString(out, HexId(r.id));
    out->append(",\"offset\":");
    AppendU64(out, r.offset);
    out->append(",\"size\":");
    AppendU64(out, r.size);
    out->append("}");
  }
  out->append("],\"failures\":[");
  for (size_t i = 0; i < s.failures.size(); ++i) {
    const Failure& f = s.failures[i];
    if (i) out->push_back(',');
    out->append("{\"instance\":");
    AppendJsonString(out, HexId(f.instance));
    out->append(",\"size\":");
    AppendU64(out, f.size);
    out->append(",\"alignment\":");
    AppendU64(out, f.alignment);
    out->append(",\"eventual\":");
    out->append(f.eventual ? "true" : "false");
    out->append(",\"identity\":" + std::to_string(f.identity));
    out->append(",\"sequence\":" + std::to_string(f.sequence));
    // The picture is the memory now, not at the failure: the blockers say
    // what would have to go for the same request to fit now.
    out->append(",\"cause\":");
    if (f.size == 0) {
      out->append("\"unknown\"");
    } else {
      AppendJsonString(out, FailureCauseName(ClassifyRequest(s, f.size,
                                                             f.alignment)));
      out->append(",\"blockers\":");
      AppendBlockers(out, s, FindBlockers(s, f.size, f.alignment));
    }
    out->append("}");
  }
  out->append("],\"anomalies\":{");
  bool first = true;
  for (int k = 0; k < kAnomalyKindCount; ++k) {
    if (!s.counters.anomalies[k]) continue;
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(out, AnomalyKindName(static_cast<AnomalyKind>(k)));
    out->append(":" + std::to_string(s.counters.anomalies[k]));
  }
  out->append("}");
  if (before) {
    out->push_back(',');
    AppendDiff(out, *before, s);
  }
  if (replay) AppendReplay(out, *replay);
  out->append("}");
}

std::string DataBlock(const std::vector<DumpFile>& dumps,
                      const HtmlOptions& options,
                      std::string* spans_block) {
  std::string out;
  size_t total = 0;
  for (const DumpFile& d : dumps)
    for (const Snapshot& s : d.memories) total += s.allocations.size();
  out.reserve(total * 40 + (1 << 16));
  out.append("{\"format\":1,\"color_by\":");
  AppendJsonString(&out, options.color_by);
  out.append(",\"dumps\":[");
  for (size_t di = 0; di < dumps.size(); ++di) {
    const DumpFile& dump = dumps[di];
    if (di) out.push_back(',');
    out.append("{\"label\":");
    AppendJsonString(&out, dumps.size() == 1 ? "dump"
                           : di == 0        ? "before"
                                            : "after");
    out.append(",\"source\":");
    AppendJsonString(&out, dump.source);
    out.append(",\"node\":" + std::to_string(dump.node));
    out.append(",\"created_ms\":" +
               std::to_string(dump.created_unix_ns / 1000000));
    out.append(",\"notes\":[");
    for (size_t i = 0; i < dump.notes.size(); ++i) {
      if (i) out.push_back(',');
      AppendJsonString(&out, dump.notes[i]);
    }
    out.append("],");
    AppendIdentities(&out, dump);
    out.append(",\"memories\":[");
    for (size_t mi = 0; mi < dump.memories.size(); ++mi) {
      const Snapshot& s = dump.memories[mi];
      const Snapshot* before = nullptr;
      if (di == 1) {
        for (const Snapshot& b : dumps[0].memories)
          if (b.memory_id == s.memory_id && b.node == s.node) before = &b;
      }
      const PageReplay* replay = nullptr;
      if (di + 1 == dumps.size())  // the dump shown last (after, with two)
        for (const PageReplay& r : options.replays)
          if (r.memory_id == s.memory_id && r.node == s.node) replay = &r;
      if (mi) out.push_back(',');
      AppendMemory(&out, s, before, replay);
      if (const MemoryHistory* h = FindHistory(dump, s)) {
        out.pop_back();  // the memory's closing brace: the history joins it
        AppendHistory(&out, spans_block, std::to_string(di) + ":" + std::to_string(mi), *h);
        out.push_back('}');
      }
    }
    out.append("]}");
  }
  out.append("]}");
  return out;
}

// Replaces the one marker `marker` in *page with `text`.
void Fill(std::string* page, const char* marker, const std::string& text) {
  const size_t at = page->find(marker);
  if (at != std::string::npos) page->replace(at, std::strlen(marker), text);
}

}  // namespace

std::string RenderHtmlMap(const std::vector<DumpFile>& dumps,
                          const HtmlOptions& options) {
  std::string page = html::kMapHtml;
  // The data go in last: the script and styles are markers-free, and
  // the data are the bulk of the page.
  Fill(&page, "/*@MAP_CSS@*/", html::kMapCss);
  Fill(&page, "/*@MAP_JS@*/", html::kMapJs);
  std::string spans;
  const std::string data = DataBlock(dumps, options, &spans);
  spans = "{" + spans + "}";
  // The history block first: it holds no marker (keys and base64), and the
  // data block, which holds names from programs, goes in last.
  Fill(&page, "@MAP_HISTORY@", spans);
  Fill(&page, "@MAP_DATA@", data);
  return page;
}

bool WriteHtmlMap(const std::vector<DumpFile>& dumps,
                  const std::string& out_path, std::string* error,
                  const HtmlOptions& options) {
  if (dumps.empty() || dumps.size() > 2) {
    *error = "html: give one dump, or two to compare (got " +
             std::to_string(dumps.size()) + ")";
    return false;
  }
  const std::string page = RenderHtmlMap(dumps, options);
  OutputFile file;
  if (!file.Open(out_path, error)) return false;
  file.Write(page);
  if (!file.Commit(error)) return false;
  return true;
}

}  // namespace realm_shadow
