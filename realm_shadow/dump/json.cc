// realm_shadow/dump/json.cc - DumpToJson: the JSON rendering of a dump
// (docs/json-schema.md).
//
// Holes, stats, usage by kind and each failure's blockers are computed here
// with analysis.h, so the JSON says exactly what `realm-shadow report` says.
// Ids (memory, instance, reservation) are hex strings: Realm ids use the top
// bits and exceed 2^53, past which a JSON number loses precision in most
// parsers.  Offsets and sizes are numbers (they stay below 2^53 in practice).
// Names come from the program and from logs: every string is escaped and any
// invalid UTF-8 becomes U+FFFD, so the output is always valid JSON.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/dump/dump.h"
#include "realm_shadow/dump/internal/json_writer.h"

namespace realm_shadow {
namespace {

void WriteIdentity(JsonWriter& w, const Snapshot& s, uint32_t id) {
  const Identity* identity = id ? s.FindIdentity(id) : nullptr;
  if (identity == nullptr) {
    w.Null();
    return;
  }
  w.BeginObject();
  for (const auto& kv : identity->attributes) {
    w.Key(kv.first);
    w.String(kv.second);
  }
  w.EndObject();
}

void WriteBlockers(JsonWriter& w, const Snapshot& s, const BlockerWindow& b) {
  w.BeginObject();
  w.Key("found");
  w.Bool(b.found);
  w.Key("fits_already");
  w.Bool(b.fits_already);
  w.Key("window_offset");
  w.Uint(b.window_offset);
  w.Key("window_end");
  w.Uint(b.window_end);
  w.Key("placement");
  w.Uint(b.placement);
  w.Key("bytes_to_free");
  w.Uint(b.bytes_to_free);
  w.Key("allocations");
  w.BeginArray();
  for (const Allocation& a : b.blockers) {
    w.BeginObject();
    w.Key("instance");
    w.HexId(a.instance);
    w.Key("offset");
    w.Uint(a.offset);
    w.Key("size");
    w.Uint(a.size);
    w.Key("kind");
    w.String(AllocationKindName(a.kind));
    w.Key("identity");
    WriteIdentity(w, s, a.identity);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// What a memory's history holds (the events themselves stay in the dump:
// `realm-shadow at`, `timeline` and `trace` read them).
void WriteHistorySummary(JsonWriter& w, const MemoryHistory* h) {
  if (h == nullptr) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Key("clock");
  w.String(HistoryClockName(h->clock));
  w.Key("first_sequence");
  w.Uint(h->first_sequence());
  w.Key("end_sequence");
  w.Uint(h->end_sequence());
  w.Key("window_events");
  w.Uint(h->window_events);
  w.Key("checkpoints");
  w.Uint(h->checkpoints.size());
  w.Key("first_time_ns");
  w.Double(static_cast<double>(h->TimeOfEvent(h->first_sequence())));
  w.Key("last_time_ns");
  w.Double(static_cast<double>(
      h->events.empty() ? 0 : h->TimeOfEvent(h->end_sequence() - 1)));
  w.EndObject();
}

void WriteMemory(JsonWriter& w, const Snapshot& s, const MemoryHistory* h) {
  const std::vector<Hole> holes = FindHoles(s);
  const FreeSummary summary = SummarizeHoles(s, holes);

  w.BeginObject();
  w.Key("id");
  w.HexId(s.memory_id);
  w.Key("kind");
  w.String(MemoryKindName(s.kind));
  w.Key("name");
  w.String(s.name);
  w.Key("node");
  w.Uint(s.node);
  w.Key("capacity");
  if (s.capacity_known) {
    w.Uint(s.capacity);
  } else {
    w.Null();
  }
  w.Key("addressed");
  w.Bool(s.addressed);
  w.Key("sequence");
  w.Uint(s.sequence);
  w.Key("exact");
  w.Bool(s.exact);
  w.Key("history");
  WriteHistorySummary(w, h);

  w.Key("allocations");
  w.BeginArray();
  for (const Allocation& a : s.allocations) {
    w.BeginObject();
    w.Key("instance");
    w.HexId(a.instance);
    w.Key("offset");
    w.Uint(a.offset);
    w.Key("size");
    w.Uint(a.size);
    w.Key("alignment");
    w.Uint(a.alignment());
    w.Key("state");
    w.String(AllocationStateName(a.state));
    w.Key("kind");
    w.String(AllocationKindName(a.kind));
    w.Key("pinned");
    w.Bool(a.pinned());
    w.Key("flags");
    w.BeginArray();
    if (a.flags & kPinned) w.String("pinned");
    if (a.flags & kFromRedistrict) w.String("from_redistrict");
    if (a.flags & kWasDeferred) w.String("was_deferred");
    w.EndArray();
    w.Key("identity");
    WriteIdentity(w, s, a.identity);
    w.EndObject();
  }
  w.EndArray();

  w.Key("holes");
  w.BeginArray();
  for (const Hole& h : holes) {
    w.BeginObject();
    w.Key("offset");
    w.Uint(h.offset);
    w.Key("size");
    w.Uint(h.size);
    w.EndObject();
  }
  w.EndArray();

  w.Key("pending");
  w.BeginArray();
  for (const PendingRequest& p : s.pending) {
    w.BeginObject();
    w.Key("instance");
    w.HexId(p.instance);
    w.Key("size");
    w.Uint(p.size);
    w.Key("alignment");
    w.Uint(p.alignment);
    w.Key("planned_offset");
    w.Offset(p.planned_offset);
    w.Key("sequence");
    w.Uint(p.sequence);
    w.Key("identity");
    WriteIdentity(w, s, p.identity);
    w.EndObject();
  }
  w.EndArray();

  w.Key("reservations");
  w.BeginArray();
  for (const Reservation& r : s.reservations) {
    w.BeginObject();
    w.Key("id");
    w.HexId(r.id);
    w.Key("offset");
    w.Offset(r.offset);
    w.Key("size");
    w.Uint(r.size);
    w.Key("sequence");
    w.Uint(r.sequence);
    w.EndObject();
  }
  w.EndArray();

  w.Key("failures");
  w.BeginArray();
  for (const Failure& f : s.failures) {
    w.BeginObject();
    w.Key("instance");
    w.HexId(f.instance);
    w.Key("size");
    w.Uint(f.size);
    w.Key("alignment");
    w.Uint(f.alignment);
    w.Key("eventual");
    w.Bool(f.eventual);
    w.Key("sequence");
    w.Uint(f.sequence);
    w.Key("identity");
    WriteIdentity(w, s, f.identity);
    // Judged against this snapshot, not the moment of failure: releases
    // after the failure may have made it fit since.
    w.Key("cause");
    if (f.size == 0) {
      w.Null();  // the request was never seen (an anomaly)
    } else {
      w.String(FailureCauseName(ClassifyRequest(s, f.size, f.alignment)));
    }
    w.Key("blockers");
    if (f.size == 0) {
      w.Null();
    } else {
      WriteBlockers(w, s, FindBlockers(s, f.size, f.alignment));
    }
    w.EndObject();
  }
  w.EndArray();

  w.Key("stats");
  w.BeginObject();
  w.Key("used");
  w.Uint(summary.used);
  w.Key("total_free");
  w.Uint(summary.total_free);
  w.Key("largest_hole");
  w.Uint(summary.largest_hole);
  w.Key("hole_count");
  w.Uint(summary.hole_count);
  w.Key("allocation_count");
  w.Uint(summary.allocation_count);
  w.Key("fragmentation");
  w.Double(summary.fragmentation);
  w.Key("hole_histogram");
  w.BeginArray();
  for (uint64_t n : HoleSizeHistogram(holes)) w.Uint(n);
  w.EndArray();
  w.EndObject();

  w.Key("usage_by_kind");
  w.BeginObject();
  const auto usage = UsageByKind(s);
  for (int k = 0; k < kAllocationKindCount; ++k) {
    w.Key(AllocationKindName(static_cast<AllocationKind>(k)));
    w.BeginObject();
    w.Key("bytes");
    w.Uint(usage[k].bytes);
    w.Key("count");
    w.Uint(usage[k].count);
    w.EndObject();
  }
  w.EndObject();

  w.Key("counters");
  w.BeginObject();
  w.Key("events");
  w.BeginObject();
  for (int t = 0; t < kEventTypeCount; ++t) {
    w.Key(EventTypeName(static_cast<EventType>(t)));
    w.Uint(s.counters.by_type[t]);
  }
  w.EndObject();
  w.Key("anomalies");
  w.BeginObject();
  for (int k = 0; k < kAnomalyKindCount; ++k) {
    w.Key(AnomalyKindName(static_cast<AnomalyKind>(k)));
    w.Uint(s.counters.anomalies[k]);
  }
  w.EndObject();
  w.Key("failures");
  w.Uint(s.counters.failures);
  w.Key("cancelled");
  w.Uint(s.counters.cancelled);
  w.Key("peak_used");
  w.Uint(s.counters.peak_used);
  w.Key("journal_overflows");
  w.Uint(s.counters.journal_overflows);
  w.EndObject();

  w.Key("anomalies");
  w.BeginArray();
  for (const Anomaly& a : s.anomalies) {
    w.BeginObject();
    w.Key("kind");
    w.String(AnomalyKindName(a.kind));
    w.Key("sequence");
    w.Uint(a.sequence);
    w.Key("instance");
    w.HexId(a.instance);
    w.Key("offset");
    w.Offset(a.offset);
    w.Key("size");
    w.Uint(a.size);
    w.Key("other_instance");
    w.HexId(a.other_instance);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string DumpToJson(const DumpFile& dump) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("format");
  w.String("realm-shadow");
  w.Key("version");
  w.Uint(dump.version);
  w.Key("node");
  w.Uint(dump.node);
  w.Key("created_unix_ns");
  w.Uint(dump.created_unix_ns);
  w.Key("source");
  w.String(dump.source);
  w.Key("notes");
  w.BeginArray();
  for (const std::string& note : dump.notes) w.String(note);
  w.EndArray();
  w.Key("memories");
  w.BeginArray();
  for (const Snapshot& s : dump.memories) WriteMemory(w, s, FindHistory(dump, s));
  w.EndArray();
  w.EndObject();
  out += '\n';
  return out;
}

}  // namespace realm_shadow
