// realm_shadow/page/html_page.cc - builds the memory map page: the
// template (map.html, map.css and the script parts in page/, compiled in)
// plus the data block.
//
// The data block is one JSON object in a <script type="application/json">
// element before the script; the history block (the time strips' spans,
// the bulk of a page with a history) is another, after the script, so that
// the first frame waits only for the dump's own picture.  Bulk arrays are
// base64 of varint columns (Columns below), small fixed-width ones base64
// of little-endian typed arrays; everything else is small JSON.  Strings
// are escaped so that no "</script" can end the element early.
#include "realm_shadow/page/html_page.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/format/atomic_file.h"
#include "realm_shadow/format/json_records.h"
#include "realm_shadow/format/json_writer.h"
#include "realm_shadow/analysis/history_walk.h"
#include "realm_shadow/page/internal/html_template.h"
#include "realm_shadow/page/internal/time_strip.h"

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

// ---- base64 of varint columns -----------------------------------------

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Bytes in, base64 out (RFC 4648, with padding), three bytes at a time.
class Base64Writer {
 public:
  explicit Base64Writer(std::string* out) : out_(out) {}
  ~Base64Writer() { Finish(); }
  void Byte(uint8_t b) {
    pending_[count_++] = b;
    if (count_ == 3) Flush();
  }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) Byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  void F64(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    for (int i = 0; i < 8; ++i) Byte(static_cast<uint8_t>(bits >> (8 * i)));
  }

 private:
  // The last one or two bytes, padded with '='.
  void Finish() {
    if (count_ == 0) return;
    const int have = count_;
    while (count_ < 3) pending_[count_++] = 0;
    Flush();
    out_->replace(out_->size() - (3 - have), 3 - have, 3 - have, '=');
  }
  void Flush() {
    const uint32_t v = (uint32_t{pending_[0]} << 16) |
                       (uint32_t{pending_[1]} << 8) | pending_[2];
    const char quad[4] = {kBase64Alphabet[(v >> 18) & 63],
                          kBase64Alphabet[(v >> 12) & 63],
                          kBase64Alphabet[(v >> 6) & 63],
                          kBase64Alphabet[v & 63]};
    out_->append(quad, 4);
    count_ = 0;
  }
  std::string* out_;
  uint8_t pending_[3] = {0, 0, 0};
  int count_ = 0;
};

// The bulk arrays (allocations, spans, removed ranges) as columns of LEB128
// varints (7 bits a byte, low first), one column after the other, written
// as base64 by Columns' destructor.  Sorted offsets go as zigzag deltas from
// the previous one, an instance's two 32-bit halves as zigzag deltas each
// (ids handed out in a run differ by a little), sizes, identities and
// moments as they are, the packed bits one byte each.  The 1M allocations
// of the perf fixture take 8.8 bytes each instead of the 29 of fixed-width
// arrays; decode.js reads them back in one pass.  Offsets and sizes stay
// exact in the page below 2^52 bytes (the page's numbers are float64).
class Columns {
 public:
  explicit Columns(std::string* out) : out_(out) {}
  ~Columns() {
    Base64Writer b64(out_);
    for (char c : bytes_) b64.Byte(static_cast<uint8_t>(c));
  }
  void Unsigned(uint64_t v) {
    while (v >= 0x80) {
      bytes_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    bytes_.push_back(static_cast<char>(v));
  }
  void Signed(int64_t d) {
    Unsigned((static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63));
  }
  void Signed32(int32_t d) {
    Unsigned((static_cast<uint32_t>(d) << 1) ^ static_cast<uint32_t>(d >> 31));
  }
  void Byte(uint8_t b) { bytes_.push_back(static_cast<char>(b)); }

 private:
  std::string* out_;
  std::string bytes_;
};

// ---- pieces of the data block ------------------------------------------

// kind (3 bits) | state (2 bits) << 3 | flags (3 bits) << 5: one byte.
uint8_t PackBits(const Allocation& a) {
  return static_cast<uint8_t>((static_cast<uint8_t>(a.kind) & 7) |
                              ((static_cast<uint8_t>(a.state) & 3) << 3) |
                              ((a.flags & 7) << 5));
}

// The ranges of n allocations (at(i) is the i-th, by offset) as columns:
// offset (zigzag delta), size, instance low half, high half (zigzag deltas).
template <typename At>
void AppendRanges(Columns& c, size_t n, At at) {
  uint64_t offset = 0;
  for (size_t i = 0; i < n; ++i) {
    c.Signed(static_cast<int64_t>(at(i).offset - offset));
    offset = at(i).offset;
  }
  for (size_t i = 0; i < n; ++i) c.Unsigned(at(i).size);
  for (int half = 0; half < 2; ++half) {
    uint32_t previous = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t v = static_cast<uint32_t>(at(i).instance >> (32 * half));
      c.Signed32(static_cast<int32_t>(v - previous));
      previous = v;
    }
  }
}

// The ranges, then identity and bits: what decode.js's readAllocations
// reads back.
template <typename At>
void AppendAllocations(Columns& c, size_t n, At at) {
  AppendRanges(c, n, at);
  for (size_t i = 0; i < n; ++i) c.Unsigned(at(i).identity);
  for (size_t i = 0; i < n; ++i) c.Byte(PackBits(at(i)));
}

// The allocations as the page decodes them: their count, then the columns.
void WriteAllocationArrays(JsonWriter& w, const std::vector<Allocation>& allocations) {
  w.Uint("count", allocations.size());
  w.Key("allocations");
  {
    Columns c(w.BeginRawString());
    AppendAllocations(c, allocations.size(),
                      [&](size_t i) -> const Allocation& { return allocations[i]; });
  }
  w.EndRawString();
}

void WriteIdentities(JsonWriter& w, const DumpFile& dump) {
  // Identity ids are the process's interning ids, shared by the memories
  // of one dump; the table keeps each id once.
  std::map<uint32_t, const Identity*> by_id;
  for (const Snapshot& s : dump.memories)
    for (const Identity& id : s.identities) by_id.emplace(id.id, &id);
  w.Key("identities");
  w.BeginObject();
  for (const auto& [id, identity] : by_id) {
    w.Key(std::to_string(id));
    w.BeginObject();
    w.String("kind", AllocationKindName(identity->kind));
    w.Key("attributes");
    w.BeginArray();
    for (const auto& [key, value] : identity->attributes) {
      if (IsFigureAttribute(key)) continue;  // figures: no identity line
      w.BeginArray();
      w.String(key);
      w.String(value);
      w.EndArray();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndObject();
}

void WriteBlockers(JsonWriter& w, const Snapshot& s, const BlockerWindow& b) {
  w.BeginObject();
  WriteWindowFields(w, b);
  w.Uint("count", b.blockers.size());
  // Blockers are a contiguous run of the sorted allocations: the page
  // needs only the index range to highlight them.
  int64_t first = -1, last = -1;
  if (!b.blockers.empty()) {
    const auto key = [](const Allocation& x, const Allocation& y) {
      return x.offset != y.offset ? x.offset < y.offset : x.instance < y.instance;
    };
    auto it = std::lower_bound(s.allocations.begin(), s.allocations.end(),
                               b.blockers.front(), key);
    auto jt = std::lower_bound(s.allocations.begin(), s.allocations.end(),
                               b.blockers.back(), key);
    if (it != s.allocations.end() && jt != s.allocations.end()) {
      first = it - s.allocations.begin();
      last = jt - s.allocations.begin();
    }
  }
  w.Int("first_index", first);
  w.Int("last_index", last);
  w.Key("instances");
  w.BeginArray();
  for (size_t i = 0; i < b.blockers.size() && i < 32; ++i)
    w.HexId(b.blockers[i].instance);
  w.EndArray();
  w.EndObject();
}

// Compares `after` with `before` instance by instance.  Instance ids are
// unique among one memory's live allocations, so a map from id suffices.
void WriteDiff(JsonWriter& w, const Snapshot& before, const Snapshot& after) {
  absl::flat_hash_map<uint64_t, const Allocation*> old_by_instance;
  old_by_instance.reserve(before.allocations.size());
  for (const Allocation& a : before.allocations)
    old_by_instance.emplace(a.instance, &a);
  uint64_t added = 0, moved = 0, same = 0;
  std::vector<uint8_t> status(after.allocations.size(), 0);
  absl::flat_hash_set<uint64_t> still_live;
  still_live.reserve(after.allocations.size());
  for (size_t i = 0; i < after.allocations.size(); ++i) {
    const Allocation& a = after.allocations[i];
    still_live.insert(a.instance);
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
    if (!still_live.contains(a.instance)) gone.push_back(&a);
  const uint64_t removed = gone.size();
  if (gone.size() > kMaxRemovedDrawn) gone.resize(kMaxRemovedDrawn);
  w.Key("diff");
  w.BeginObject();
  w.Uint("added", added);
  w.Uint("moved", moved);
  w.Uint("removed", removed);
  w.Uint("unchanged", same);
  w.Uint("removed_drawn", gone.size());
  w.Key("status");
  {
    Base64Writer b64(w.BeginRawString());
    for (uint8_t v : status) b64.Byte(v);
  }
  w.EndRawString();
  // Removed allocations, sorted by offset as `before` is.
  w.Key("removed_list");
  {
    Columns c(w.BeginRawString());
    AppendRanges(c, gone.size(),
                 [&](size_t i) -> const Allocation& { return *gone[i]; });
  }
  w.EndRawString();
  w.EndObject();
}

void WriteSummary(JsonWriter& w, const Snapshot& s, const FreeSummary& summary) {
  w.Key("summary");
  w.BeginObject();
  w.Uint("capacity", summary.capacity);
  WriteSummaryFields(w, summary);
  w.Uint("peak_used", s.counters.peak_used);
  w.Uint("failures_total", s.counters.failures);
  w.EndObject();
}

void WriteHoles(JsonWriter& w, const std::vector<Hole>& holes) {
  w.Key("top_holes");
  w.BeginArray();
  for (const Hole& h : TopHoles(holes, kTopHoles)) {
    w.BeginArray();
    w.Uint(h.offset);
    w.Uint(h.size);
    w.EndArray();
  }
  w.EndArray();
  w.Key("hole_histogram");
  w.BeginArray();
  for (uint64_t n : HoleSizeHistogram(holes)) w.Uint(n);
  w.EndArray();
}

// Largest allocations as indices into the arrays: O(n log k).
void WriteTopAllocations(JsonWriter& w, const Snapshot& s) {
  const size_t k = std::min(kTopAllocations, s.allocations.size());
  std::vector<uint32_t> all(s.allocations.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint32_t>(i);
  const auto larger = [&](uint32_t a, uint32_t b) {
    const Allocation& x = s.allocations[a];
    const Allocation& y = s.allocations[b];
    return x.size != y.size ? x.size > y.size : x.offset < y.offset;
  };
  std::partial_sort(all.begin(), all.begin() + k, all.end(), larger);
  w.Key("top_allocations");
  w.BeginArray();
  for (size_t i = 0; i < k; ++i) w.Uint(all[i]);
  w.EndArray();
}

void WriteUsage(JsonWriter& w, const Snapshot& s) {
  const auto usage = UsageByKind(s);
  std::vector<int> kinds(kAllocationKindCount);
  for (int k = 0; k < kAllocationKindCount; ++k) kinds[k] = k;
  w.ObjectArray("usage", kinds, [&](int k) {
    w.String("kind", AllocationKindName(static_cast<AllocationKind>(k)));
    w.Uint("bytes", usage[k].bytes);
    w.Uint("count", usage[k].count);
  });
}

// The records of the dump's JSON (dump/internal/json_records.h), with the
// identity as an id into the page's identity table.
void WriteRequests(JsonWriter& w, const Snapshot& s) {
  w.ObjectArray("pending", s.pending, [&](const PendingRequest& p) {
    WritePendingFields(w, p);
    w.Uint("identity", p.identity);
    w.Bool("pinned", (p.flags & kPinned) != 0);
  });
  w.ObjectArray("reservations", s.reservations,
                [&](const Reservation& r) { WriteReservationFields(w, r); });
  w.ObjectArray("failures", s.failures, [&](const Failure& f) {
    WriteFailureFields(w, f);
    w.Uint("identity", f.identity);
    // The picture is the memory now, not at the failure: the blockers say
    // what would have to go for the same request to fit now.
    if (f.size == 0) {
      w.String("cause", "unknown");
    } else {
      w.String("cause", FailureCauseName(ClassifyRequest(s, f.size, f.alignment)));
      w.Key("blockers");
      WriteBlockers(w, s, FindBlockers(s, f.size, f.alignment));
    }
  });
}

// The what-if replay of the memory (html_page.h PageReplay).
void WriteReplay(JsonWriter& w, const PageReplay& r) {
  w.Key("replay");
  w.BeginObject();
  w.String("summary", r.summary);
  w.String("moment", r.moment);
  w.ObjectArray("rows", r.rows, [&](const PageReplayRow& row) {
    w.String("policy", row.policy);
    w.Bool("fails", row.fails);
    w.String("first_failure", row.first_failure);
    w.String("min_capacity", row.min_capacity);
    w.String("moment", row.moment);
    WriteAllocationArrays(w, row.map);
  });
  w.EndObject();
}

// The remedies of the memory's failures (html_page.h PageRemedies), each
// found by its instance and moment beside the failure it answers.
void WriteRemedies(JsonWriter& w, const PageRemedies& r) {
  w.ObjectArray("remedies", r.failures, [&](const PageFailureRemedies& f) {
    w.HexId("instance", f.instance);
    w.Uint("sequence", f.sequence);
    w.String("judged", f.judged);
    w.String("cause", f.cause);
    w.ObjectArray("lines", f.lines, [&](const PageRemedyLine& line) {
      w.String("kind", line.kind);
      w.Bool("fits", line.fits);
      w.Bool("checked", line.checked);
      w.String("text", line.text);
    });
  });
}

// The memory's time strip (time_strip.h): small arrays in the data block,
// the spans of its moments in the history block (`spans`, an object being
// written) under `key`, decoded only when the strip is first used.
void WriteHistory(JsonWriter& w, JsonWriter& spans, const std::string& key,
                  const MemoryHistory& h) {
  const TimeStrip t = BuildTimeStrip(h, kStripBuckets, kMaxStripSpans);
  w.Key("history");
  w.BeginObject();
  w.String("key", key);
  w.String("clock", HistoryClockName(h.clock));
  w.String("clock_text", HistoryClockText(h));
  w.Uint("first", h.first_sequence());
  w.Uint("end", h.end_sequence());
  w.Uint("window_events", h.window_events);
  w.Uint("buckets", t.buckets);
  w.Uint("stride", t.stride);
  w.Uint("shown", t.shown.size());
  w.Uint("spans", t.spans.size());
  // Per bucket: used min, used max, largest hole min, max (f64 each), then
  // per boundary its moment and time (f64), then failures per bucket (u32).
  w.Key("strip");
  {
    Base64Writer b64(w.BeginRawString());
    for (const auto* v : {&t.used_min, &t.used_max, &t.hole_min, &t.hole_max})
      for (uint64_t x : *v) b64.F64(static_cast<double>(x));
    for (uint64_t m : t.boundary) b64.F64(static_cast<double>(m));
    for (int64_t ns : t.time_ns) b64.F64(static_cast<double>(ns));
    for (uint32_t f : t.failures) b64.U32(f);
  }
  w.EndRawString();
  // Per shown moment: its boundary index (u32), then used, total free,
  // largest hole, holes, allocations (f64 each, exact: Summarize's).
  w.Key("moments");
  {
    Base64Writer b64(w.BeginRawString());
    for (uint32_t j : t.shown) b64.U32(j);
    for (uint32_t j : t.shown) b64.F64(static_cast<double>(t.figures[j].used));
    for (uint32_t j : t.shown) b64.F64(static_cast<double>(t.figures[j].total_free));
    for (uint32_t j : t.shown) b64.F64(static_cast<double>(t.figures[j].largest_hole));
    for (uint32_t j : t.shown) b64.F64(static_cast<double>(t.figures[j].hole_count));
    for (uint32_t j : t.shown) b64.F64(static_cast<double>(t.figures[j].allocation_count));
  }
  w.EndRawString();
  w.Key("failure_events");
  w.BeginArray();
  for (size_t i = 0; i < t.failure_events.size() && i < 4096; ++i) {
    w.BeginArray();
    w.Uint(t.failure_events[i].first);
    w.Uint(t.failure_events[i].second);
    w.EndArray();
  }
  w.EndArray();
  w.EndObject();
  // The spans: the allocation columns, then first and last - first (indices
  // of shown moments).
  spans.Key(key);
  {
    Columns c(spans.BeginRawString());
    AppendAllocations(c, t.spans.size(),
                      [&](size_t i) -> const Allocation& { return t.spans[i].allocation; });
    for (const auto& x : t.spans) c.Unsigned(x.first);
    for (const auto& x : t.spans) c.Unsigned(x.last - x.first);
  }
  spans.EndRawString();
}

void WriteMemory(JsonWriter& w, const Snapshot& s, const Snapshot* before,
                 const PageReplay* replay, const PageRemedies* remedies) {
  const std::vector<Hole> holes = FindHoles(s);
  w.BeginObject();
  w.HexId("id", s.memory_id);
  w.String("kind", MemoryKindName(s.kind));
  w.String("name", s.name);
  // The axis needs an end even when capacity is unknown: the furthest end.
  uint64_t extent = s.capacity_known ? s.capacity : 0;
  for (const Allocation& a : s.allocations) extent = std::max(extent, a.end());
  for (const PendingRequest& p : s.pending)
    if (p.planned_offset != kNoOffset)
      extent = std::max(extent, p.planned_offset + p.size);
  for (const Reservation& r : s.reservations)
    if (r.offset != kNoOffset) extent = std::max(extent, r.offset + r.size);
  w.Uint("capacity", s.capacity);
  w.Bool("capacity_known", s.capacity_known);
  w.Uint("extent", std::max<uint64_t>(extent, 1));
  w.Bool("addressed", s.addressed);
  w.Uint("node", s.node);
  w.Uint("sequence", s.sequence);
  w.Bool("exact", s.exact);
  w.Bool("gc_state_known", s.gc_state_known);
  WriteAllocationArrays(w, s.allocations);
  WriteSummary(w, s, SummarizeHoles(s, holes));
  WriteHoles(w, holes);
  WriteTopAllocations(w, s);
  WriteUsage(w, s);
  WriteRequests(w, s);
  w.Key("anomalies");
  w.BeginObject();
  for (int k = 0; k < kAnomalyKindCount; ++k)
    if (s.counters.anomalies[k])
      w.Uint(AnomalyKindName(static_cast<AnomalyKind>(k)), s.counters.anomalies[k]);
  w.EndObject();
  if (before) WriteDiff(w, *before, s);
  if (replay) WriteReplay(w, *replay);
  if (remedies) WriteRemedies(w, *remedies);
}

// The data block; *spans_block gets the history block (one object, the
// time strips' spans by key).
std::string DataBlock(const std::vector<DumpFile>& dumps,
                      const HtmlOptions& options,
                      std::string* spans_block) {
  JsonWriter spans(spans_block, JsonWriter::Context::kScriptElement);
  spans.BeginObject();
  std::string out;
  size_t total = 0;
  for (const DumpFile& d : dumps)
    for (const Snapshot& s : d.memories) total += s.allocations.size();
  out.reserve(total * 40 + (1 << 16));
  JsonWriter w(&out, JsonWriter::Context::kScriptElement);
  w.BeginObject();
  w.Uint("format", 2);  // 2: varint columns (1: fixed-width arrays)
  w.String("color_by", options.color_by);
  w.Key("dumps");
  w.BeginArray();
  for (size_t di = 0; di < dumps.size(); ++di) {
    const DumpFile& dump = dumps[di];
    w.BeginObject();
    w.String("label", dumps.size() == 1 ? "dump" : di == 0 ? "before" : "after");
    w.String("source", dump.source);
    w.Uint("node", dump.node);
    w.Uint("created_ms", dump.created_unix_ns / 1000000);
    w.Key("notes");
    w.BeginArray();
    for (const std::string& note : dump.notes) w.String(note);
    w.EndArray();
    WriteIdentities(w, dump);
    w.Key("memories");
    w.BeginArray();
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
      const PageRemedies* remedies = nullptr;
      if (di + 1 == dumps.size())
        for (const PageRemedies& r : options.remedies)
          if (r.memory_id == s.memory_id && r.node == s.node) remedies = &r;
      WriteMemory(w, s, before, replay, remedies);
      // The history joins the memory's object, which WriteMemory left open.
      if (const MemoryHistory* h = FindHistory(dump, s))
        WriteHistory(w, spans, std::to_string(di) + ":" + std::to_string(mi), *h);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  spans.EndObject();
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
  // The history block first: it holds no marker (keys and base64), and the
  // data block, which holds names from programs, goes in last.  In the
  // template the history block follows the script (map.html): the page
  // draws before the parser reaches it and reads it once the document is
  // parsed (strip.js).
  Fill(&page, "@MAP_HISTORY@", spans);
  Fill(&page, "@MAP_DATA@", data);
  return page;
}

absl::Status WriteHtmlMap(const std::vector<DumpFile>& dumps,
                          const std::string& out_path, const HtmlOptions& options) {
  if (dumps.empty() || dumps.size() > 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "html: give one dump, or two to compare (got ", dumps.size(), ")"));
  }
  return WriteFileAtomically(out_path, RenderHtmlMap(dumps, options));
}

}  // namespace realm_shadow
