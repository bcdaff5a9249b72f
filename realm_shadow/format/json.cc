// realm_shadow/format/json.cc - DumpToJson: the JSON rendering of a dump
// (docs/json-schema.md), written through the one JSON writer
// (internal/json_writer.h: exact integers, valid strings, null for what is
// not finite).
//
// Holes, stats, usage by kind and each failure's blockers are computed here
// with analysis.h, so the JSON says exactly what `realm-shadow report` says.
// Ids (memory, instance, reservation) are hex strings: Realm ids use the top
// bits and exceed 2^53.
#include <string>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/format/json_records.h"
#include "realm_shadow/format/json_writer.h"

namespace realm_shadow {
namespace {

void WriteIdentity(JsonWriter& w, const Snapshot& s, uint32_t id) {
  w.Key("identity");
  const Identity* identity = s.FindIdentity(id);
  if (identity == nullptr) return w.Null();
  w.BeginObject();
  for (const auto& [key, value] : identity->attributes) w.String(key, value);
  w.EndObject();
}

// The fields an allocation has wherever it is listed; the rest of its
// record follows.
void WriteAllocationRange(JsonWriter& w, const Allocation& a) {
  w.HexId("instance", a.instance);
  w.Uint("offset", a.offset);
  w.Uint("size", a.size);
}

void WriteBlockers(JsonWriter& w, const Snapshot& s, const BlockerWindow& b) {
  w.BeginObject();
  WriteWindowFields(w, b);
  w.ObjectArray("allocations", b.blockers, [&](const Allocation& a) {
    WriteAllocationRange(w, a);
    w.String("kind", AllocationKindName(a.kind));
    WriteIdentity(w, s, a.identity);
  });
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
  w.String("clock", HistoryClockName(h->clock));
  w.Uint("first_sequence", h->first_sequence());
  w.Uint("end_sequence", h->end_sequence());
  w.Uint("window_events", h->window_events);
  w.Uint("checkpoints", h->checkpoints.size());
  w.Int("first_time_ns", h->TimeOfEvent(h->first_sequence()));
  w.Int("last_time_ns", h->events.empty() ? 0 : h->TimeOfEvent(h->end_sequence() - 1));
  w.EndObject();
}

void WriteAllocations(JsonWriter& w, const Snapshot& s) {
  w.ObjectArray("allocations", s.allocations, [&](const Allocation& a) {
    WriteAllocationRange(w, a);
    w.Uint("alignment", a.alignment());
    w.String("state", AllocationStateName(a.state));
    w.String("kind", AllocationKindName(a.kind));
    w.Bool("pinned", a.pinned());
    w.Key("flags");
    w.BeginArray();
    if (a.flags & kPinned) w.String("pinned");
    if (a.flags & kFromRedistrict) w.String("from_redistrict");
    if (a.flags & kWasDeferred) w.String("was_deferred");
    w.EndArray();
    WriteIdentity(w, s, a.identity);
  });
}

void WriteRequests(JsonWriter& w, const Snapshot& s) {
  w.ObjectArray("pending", s.pending, [&](const PendingRequest& p) {
    WritePendingFields(w, p);
    WriteIdentity(w, s, p.identity);
    if (p.placement_unknown()) w.Bool("placement_unknown", true);
  });
  w.ObjectArray("reservations", s.reservations,
                [&](const Reservation& r) { WriteReservationFields(w, r); });
  w.ObjectArray("failures", s.failures, [&](const Failure& f) {
    WriteFailureFields(w, f);
    WriteIdentity(w, s, f.identity);
    // Judged against this snapshot, not the moment of failure: releases
    // after the failure may have made it fit since.  A request never seen
    // (size 0, an anomaly) has neither.
    w.Key("cause");
    if (f.size == 0) {
      w.Null();
    } else {
      w.String(FailureCauseName(ClassifyRequest(s, f.size, f.alignment)));
    }
    w.Key("blockers");
    if (f.size == 0) {
      w.Null();
    } else {
      WriteBlockers(w, s, FindBlockers(s, f.size, f.alignment));
    }
  });
}

void WriteStats(JsonWriter& w, const std::vector<Hole>& holes,
                const FreeSummary& summary) {
  w.Key("stats");
  w.BeginObject();
  WriteSummaryFields(w, summary);
  w.Key("hole_histogram");
  w.BeginArray();
  for (uint64_t n : HoleSizeHistogram(holes)) w.Uint(n);
  w.EndArray();
  w.EndObject();
}

// One key per name, each with its count: the counters by event type and by
// anomaly kind.
template <size_t N, typename Enum>
void WriteNamedCounts(JsonWriter& w, const char* key,
                      const std::array<uint64_t, N>& counts,
                      const char* (*name)(Enum)) {
  w.Key(key);
  w.BeginObject();
  for (size_t i = 0; i < N; ++i) w.Uint(name(static_cast<Enum>(i)), counts[i]);
  w.EndObject();
}

void WriteCounters(JsonWriter& w, const Snapshot& s) {
  w.Key("usage_by_kind");
  w.BeginObject();
  const auto usage = UsageByKind(s);
  for (int k = 0; k < kAllocationKindCount; ++k) {
    w.Key(AllocationKindName(static_cast<AllocationKind>(k)));
    w.BeginObject();
    w.Uint("bytes", usage[k].bytes);
    w.Uint("count", usage[k].count);
    w.EndObject();
  }
  w.EndObject();

  w.Key("counters");
  w.BeginObject();
  WriteNamedCounts(w, "events", s.counters.by_type, &EventTypeName);
  WriteNamedCounts(w, "anomalies", s.counters.anomalies, &AnomalyKindName);
  w.Uint("failures", s.counters.failures);
  w.Uint("cancelled", s.counters.cancelled);
  w.Uint("peak_used", s.counters.peak_used);
  w.Uint("journal_overflows", s.counters.journal_overflows);
  w.EndObject();

  w.ObjectArray("anomalies", s.anomalies, [&](const Anomaly& a) {
    w.String("kind", AnomalyKindName(a.kind));
    w.Uint("sequence", a.sequence);
    w.HexId("instance", a.instance);
    w.Offset("offset", a.offset);
    w.Uint("size", a.size);
    w.HexId("other_instance", a.other_instance);
  });
}

void WriteMemory(JsonWriter& w, const Snapshot& s, const MemoryHistory* h) {
  const std::vector<Hole> holes = FindHoles(s);
  w.BeginObject();
  w.HexId("id", s.memory_id);
  w.String("kind", MemoryKindName(s.kind));
  w.String("name", s.name);
  w.Uint("node", s.node);
  w.UintOrNull("capacity", s.capacity_known, s.capacity);
  w.Bool("addressed", s.addressed);
  w.Uint("sequence", s.sequence);
  w.Bool("exact", s.exact);
  w.Bool("gc_state_known", s.gc_state_known);
  w.Key("history");
  WriteHistorySummary(w, h);
  WriteAllocations(w, s);
  w.ObjectArray("holes", holes, [&](const Hole& h) {
    w.Uint("offset", h.offset);
    w.Uint("size", h.size);
  });
  WriteRequests(w, s);
  WriteStats(w, holes, SummarizeHoles(s, holes));
  WriteCounters(w, s);
  w.EndObject();
}

// The dump's pools (dump.h Pool): what sub-allocators keep inside live
// allocations, apart from the memories' holes.
void WritePools(JsonWriter& w, const DumpFile& dump) {
  w.ObjectArray("pools", dump.pools, [&](const Pool& p) {
    const Snapshot* memory = nullptr;  // whose identities the pool names
    for (const Snapshot& s : dump.memories)
      if (s.memory_id == p.memory_id) memory = &s;
    w.HexId("memory", p.memory_id);
    w.HexId("pool", p.pool);
    w.HexId("backing_instance", p.backing_instance);
    w.Offset("offset", p.offset);
    w.Uint("size", p.size);
    w.ObjectArray("suballocations", p.suballocations, [&](const PoolSubAllocation& sub) {
      w.HexId("instance", sub.instance);
      w.Uint("offset", sub.offset);
      w.Uint("size", sub.size);
      if (memory != nullptr) {
        WriteIdentity(w, *memory, sub.identity);
      } else {
        w.Key("identity");
        w.Null();
      }
    });
  });
}

}  // namespace

void WriteSummaryFields(JsonWriter& w, const FreeSummary& summary) {
  w.Uint("used", summary.used);
  w.Uint("total_free", summary.total_free);
  w.Uint("largest_hole", summary.largest_hole);
  w.Uint("hole_count", summary.hole_count);
  w.Uint("allocation_count", summary.allocation_count);
  w.Double("fragmentation", summary.fragmentation);
}

void WriteWindowFields(JsonWriter& w, const BlockerWindow& b) {
  w.Bool("found", b.found);
  w.Bool("fits_already", b.fits_already);
  w.Uint("window_offset", b.window_offset);
  w.Uint("window_end", b.window_end);
  w.Uint("placement", b.placement);
  w.Uint("bytes_to_free", b.bytes_to_free);
}

void WritePendingFields(JsonWriter& w, const PendingRequest& p) {
  w.HexId("instance", p.instance);
  w.Uint("size", p.size);
  w.Uint("alignment", p.alignment);
  w.Offset("planned_offset", p.planned_offset);
  w.Uint("sequence", p.sequence);
}

void WriteReservationFields(JsonWriter& w, const Reservation& r) {
  w.HexId("id", r.id);
  w.Offset("offset", r.offset);
  w.Uint("size", r.size);
  w.Uint("sequence", r.sequence);
}

void WriteFailureFields(JsonWriter& w, const Failure& f) {
  w.HexId("instance", f.instance);
  w.Uint("size", f.size);
  w.Uint("alignment", f.alignment);
  w.Bool("eventual", f.eventual);
  w.Bool("maybe_cancelled", f.maybe_cancelled);
  w.Uint("sequence", f.sequence);
}

std::string DumpToJson(const DumpFile& dump) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.String("format", "realm-shadow");
  w.Uint("version", dump.version);
  w.Uint("node", dump.node);
  w.Uint("created_unix_ns", dump.created_unix_ns);
  w.String("source", dump.source);
  w.Key("notes");
  w.BeginArray();
  for (const std::string& note : dump.notes) w.String(note);
  w.EndArray();
  w.Key("memories");
  w.BeginArray();
  for (const Snapshot& s : dump.memories) WriteMemory(w, s, FindHistory(dump, s));
  w.EndArray();
  WritePools(w, dump);
  w.EndObject();
  out += '\n';
  return out;
}

}  // namespace realm_shadow
