// whatif/explain.cc - see explain.h.
#include "whatif/explain.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/core/text.h"
#include "realm_shadow/format/json_records.h"
#include "realm_shadow/format/json_writer.h"
#include "realm_shadow/render/failure_report.h"
#include "realm_shadow/render/report.h"
#include "whatif/from_dump.h"
#include "whatif/remedies.h"

namespace realm_shadow {
namespace whatif {
namespace {

// `key`: the text, or null when it is empty.
void TextOrNull(JsonWriter& w, std::string_view key, const std::string& text) {
  w.Key(key);
  if (text.empty()) w.Null();
  else w.String(text);
}

// `key`: the value, or null when it is not `known`.
void UintOrNull(JsonWriter& w, std::string_view key, bool known, uint64_t value) {
  w.Key(key);
  if (known) w.Uint(value);
  else w.Null();
}

size_t FirstExplained(const Snapshot& s, const ExplainOptions& options) {
  const size_t n = s.failures.size();
  return options.failures_shown > 0 && n > options.failures_shown
             ? n - options.failures_shown
             : 0;
}

void WriteCapacityProbe(JsonWriter& w, const char* key, const CapacityProbe& p) {
  w.Key(key);
  if (!p.run) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Uint("capacity", p.capacity);
  w.Bool("passes", p.passes);
  TextOrNull(w, "failure", p.passes ? std::string() : p.failure);
  w.EndObject();
}

void WriteWasteBytes(JsonWriter& w, const char* key, const WasteBytes& b) {
  UintOrNull(w, key, b.known, b.bytes);
}

void WriteWasteTotals(JsonWriter& w, const WasteTotals& t) {
  w.Uint("allocations", t.allocations);
  w.Uint("bytes", t.bytes);
  w.Uint("known_waste", t.known_waste());
  const std::pair<const char*, const WasteSum*> figures[] = {
      {"padding", &t.padding}, {"inflation", &t.inflation},
      {"unrequested", &t.unrequested}};
  for (const auto& [name, sum] : figures) {
    w.Key(name);
    w.BeginObject();
    w.Uint("bytes", sum->bytes);
    w.Uint("known_allocations", sum->known_allocations);
    w.Uint("unknown_allocations", sum->unknown_allocations);
    w.Uint("unknown_bytes", sum->unknown_bytes);
    w.EndObject();
  }
  w.Uint("alignment_gaps", t.alignment_gaps);
}

void WriteWaste(JsonWriter& w, const Snapshot& judged, const WasteRemedy& x,
                const std::string& group_by) {
  if (x.verdict != RemedyVerdict::kFits && x.verdict != RemedyVerdict::kDoesNotFit) return;
  w.Key("totals");
  w.BeginObject();
  WriteWasteTotals(w, x.waste.totals);
  w.EndObject();
  const std::string attribute = group_by.empty() ? MostTellingAttribute(judged) : group_by;
  TextOrNull(w, "group_by", attribute);
  w.Key("groups");
  w.BeginArray();
  if (!attribute.empty())
    for (const WasteGroup& g : GroupWaste(x.waste, [&](const Allocation& a) {
           return AttributeValue(judged, a.identity, a.kind, attribute);
         })) {
      w.BeginObject();
      w.String("value", g.value);
      WriteWasteTotals(w, g.totals);
      w.EndObject();
    }
  w.EndArray();
  w.Key("instances");
  w.BeginArray();
  for (const AllocationWaste& a : x.waste.allocations) {
    if (a.known_waste() == 0) continue;
    w.BeginObject();
    w.HexId("instance", a.allocation.instance);
    w.Uint("offset", a.allocation.offset);
    w.Uint("size", a.allocation.size);
    WriteWasteBytes(w, "padding", a.padding);
    WriteWasteBytes(w, "inflation", a.inflation);
    WriteWasteBytes(w, "unrequested", a.unrequested);
    WriteWasteBytes(w, "useful", a.useful);
    w.EndObject();
  }
  w.EndArray();
  const RecoveryFit& r = x.recovery;
  w.Key("recovery");
  w.BeginObject();
  w.Bool("fits_after_recovery", r.fits_after_recovery);
  UintOrNull(w, "placement", r.fits_after_recovery, r.placement);
  w.Uint("largest_hole_now", r.largest_hole_now);
  w.Uint("largest_hole_after", r.largest_hole_after);
  w.Uint("recoverable_bytes", r.recoverable_bytes);
  w.Key("recreate");
  w.BeginArray();
  for (const AllocationWaste& a : r.recreate) w.HexId(a.allocation.instance);
  w.EndArray();
  w.Uint("pinned_in_recreate", r.pinned_in_recreate);
  w.Bool("upper_bound", true);
  w.EndObject();
}

void WriteRemedy(JsonWriter& w, const Snapshot& judged, const FailureRemedies& r,
                 RemedyKind kind, int rank, const std::string& group_by) {
  const RemedyStatus& st = r.Status(kind);
  w.BeginObject();
  w.String("kind", RemedyKindName(kind));
  UintOrNull(w, "rank", rank > 0, static_cast<uint64_t>(rank));
  w.String("verdict", RemedyVerdictName(st.verdict));
  w.Bool("checked", st.checked);
  TextOrNull(w, "reason", st.reason);
  TextOrNull(w, "missing", st.missing);
  w.String("text", FormatRemedyText(judged, r, kind));
  const bool fits = st.verdict == RemedyVerdict::kFits;
  switch (kind) {
    case RemedyKind::kRelease:
    case RemedyKind::kReleasePinned: {
      const ReleaseRemedy& x = kind == RemedyKind::kRelease ? r.release : r.release_pinned;
      w.Bool("gc_state_known", x.gc_state_known);
      if (!fits) break;
      w.Uint("bytes", x.window.bytes_to_free);
      w.Uint("count", x.window.blockers.size());
      w.Uint("window_offset", x.window.window_offset);
      w.Uint("window_end", x.window.window_end);
      UintOrNull(w, "placement", x.checked, x.placement);
      w.Key("instances");
      w.BeginArray();
      for (const Allocation& a : x.window.blockers) w.HexId(a.instance);
      w.EndArray();
      if (kind == RemedyKind::kReleasePinned) {
        w.Uint("pinned_bytes", x.pinned_bytes);
        w.ObjectArray("pinned", x.pinned, [&](const ReleaseRemedy::Pinned& p) {
          w.HexId("instance", p.allocation.instance);
          w.Uint("size", p.allocation.size);
          TextOrNull(w, "reason", p.reason);
          TextOrNull(w, "gc_priority", p.priority);
        });
      }
      break;
    }
    case RemedyKind::kWait: {
      const WaitRemedy& x = r.wait;
      if (x.counted_on.empty()) break;
      w.Uint("deferred_event", x.deferred_at + 1);
      UintOrNull(w, "plan", x.plan_known, x.plan);
      w.Uint("bytes", x.counted_on_bytes);
      w.ObjectArray("counted_on", x.counted_on, [&](const WaitRemedy::CountedOn& c) {
        w.HexId("instance", c.allocation.instance);
        w.Uint("offset", c.allocation.offset);
        w.Uint("size", c.allocation.size);
        w.String("fate", ReleaseFateName(c.fate));
        w.Uint("event", c.fate_sequence + 1);
      });
      UintOrNull(w, "placement", x.checked, x.placement);
      break;
    }
    case RemedyKind::kCapacity: {
      const CapacityRemedy& x = r.capacity;
      if (x.verdict == RemedyVerdict::kUnknown || x.verdict == RemedyVerdict::kNotComputed)
        break;
      UintOrNull(w, "run_capacity", x.run_capacity_known, x.run_capacity);
      w.Bool("reproduced", x.reproduced);
      w.Uint("lower_bound", x.lower_bound);
      UintOrNull(w, "capacity", x.found, x.min_capacity);
      w.Uint("unit", x.unit);
      w.Uint("replays", static_cast<uint64_t>(x.replays));
      TextOrNull(w, "flag", x.flag);
      TextOrNull(w, "legate_flag", x.legate_flag);
      TextOrNull(w, "flag_unit", x.flag.empty() ? std::string() : x.flag_unit);
      w.Uint("flag_unit_bytes", x.flag_unit_bytes);
      UintOrNull(w, "flag_value", !x.flag.empty() && x.found, x.flag_value);
      w.Uint("values_tried_above", static_cast<uint64_t>(x.values_tried_above));
      WriteCapacityProbe(w, "at_flag", x.at_flag);
      WriteCapacityProbe(w, "one_below", x.one_below);
      w.Bool("past_this_failure_only", true);
      break;
    }
    case RemedyKind::kAllocator: {
      const AllocatorRemedy& x = r.allocator;
      w.ObjectArray("policies", x.policies, [&](const AllocatorRemedy::Policy& p) {
        w.String("policy", p.policy);
        w.Bool("avoids", p.avoids);
        TextOrNull(w, "failure", p.avoids ? std::string() : p.failure);
        UintOrNull(w, "min_capacity", p.min_found, p.min_capacity);
        w.Uint("replays", static_cast<uint64_t>(p.replays));
      });
      UintOrNull(w, "realm_min_capacity", x.realm_min_found, x.realm_min_capacity);
      break;
    }
    case RemedyKind::kWaste:
      WriteWaste(w, judged, r.waste, group_by);
      break;
  }
  w.EndObject();
}

}  // namespace

void ExplainFailures(
    const DumpFile& dump, const Snapshot& memory, const ExplainOptions& options,
    const std::function<void(const Snapshot& judged, const FailureRemedies&)>& visit) {
  if (memory.failures.empty()) return;
  const MemoryHistory* history = FindHistory(dump, memory);
  // The script once for every failure of the memory.
  std::optional<absl::StatusOr<ReplayScript>> script;
  if (options.replay) script = ScriptOfDumpMemory(dump, memory);
  for (size_t i = FirstExplained(memory, options); i < memory.failures.size(); ++i) {
    const Failure& f = memory.failures[i];
    Snapshot judged;
    FailureRemedies r = FindRemediesInDump(memory, f, history, &judged);
    if (script.has_value()) {
      if (script->ok())
        FindReplayRemedies(**script, f, &r);
      else if (history == nullptr)
        ReplayRemediesUnknown(std::string("the memory's history, which the dump does not "
                                          "hold: ") +
                                  kHowToGetHistory,
                              &r);
      else
        ReplayRemediesUnknown("a history the replay can read: " +
                                  std::string(script->status().message()),
                              &r);
    }
    visit(judged, r);
  }
}

std::string FormatMemoryExplanation(const DumpFile& dump, const Snapshot& s,
                                    const ExplainOptions& options) {
  std::string out = MemoryTitle(s) + "\n";
  absl::StrAppend(&out, "  capacity            ",
                  s.capacity_known ? FormatSizeExact(s.capacity)
                                   : std::string("unknown (the log never said)"),
                  "\n");
  if (s.failures.empty()) {
    absl::StrAppend(&out, "  failures            ", s.counters.failures,
                    " in all; none in the picture to explain\n");
    return out;
  }
  const size_t first = FirstExplained(s, options);
  absl::StrAppend(&out, "  failures            ", s.counters.failures, " in all; ",
                  s.failures.size() - first, " explained, most recent last",
                  first > 0 ? absl::StrCat(" (", first, " earlier not shown)") : "", "\n");
  ExplainFailures(dump, s, options, [&](const Snapshot& judged, const FailureRemedies& r) {
    out += FormatFailureExplanation(judged, r, "    ", options.group_by);
  });
  return out;
}

std::string MemoryExplanationJson(const DumpFile& dump, const Snapshot& s,
                                  const ExplainOptions& options) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Uint("node", s.node);
  w.HexId("memory", s.memory_id);
  w.String("kind", MemoryKindName(s.kind));
  w.String("name", s.name);
  UintOrNull(w, "capacity", s.capacity_known, s.capacity);
  w.Bool("gc_state_known", s.gc_state_known);
  w.Bool("history", FindHistory(dump, s) != nullptr);
  w.Uint("failures_total", s.counters.failures);
  w.Key("failures");
  w.BeginArray();
  ExplainFailures(dump, s, options, [&](const Snapshot& judged, const FailureRemedies& r) {
    const Failure& f = r.failure;
    w.BeginObject();
    WriteFailureFields(w, f);  // as `json` writes a failure
    w.Uint("event", f.sequence + 1);
    w.Key("identity");
    if (const Identity* id = judged.FindIdentity(f.identity)) {
      w.BeginObject();
      w.String("kind", AllocationKindName(id->kind));
      for (const auto& [k, v] : id->attributes) w.String(k, v);
      w.EndObject();
    } else {
      w.Null();
    }
    w.Uint("judged_at_event", judged.sequence);
    w.Bool("judged_before_failure", r.judged_before_failure);
    w.String("judged_on", FormatJudgedOn(judged, r));
    w.String("cause", FormatCause(judged, f));
    w.Key("remedies");
    w.BeginArray();
    int rank = 0;
    for (RemedyKind kind : OrderedRemedies(r))
      WriteRemedy(w, judged, r, kind,
                  r.Status(kind).verdict == RemedyVerdict::kFits ? ++rank : 0,
                  options.group_by);
    w.EndArray();
    w.EndObject();
  });
  w.EndArray();
  w.EndObject();
  return out;
}

PageRemedies ToPageRemedies(const DumpFile& dump, const Snapshot& s,
                            const ExplainOptions& options) {
  PageRemedies page;
  page.node = s.node;
  page.memory_id = s.memory_id;
  ExplainFailures(dump, s, options, [&](const Snapshot& judged, const FailureRemedies& r) {
    PageFailureRemedies f;
    f.instance = r.failure.instance;
    f.sequence = r.failure.sequence;
    f.judged = FormatJudgedOn(judged, r);
    f.cause = FormatCause(judged, r.failure);
    for (RemedyKind kind : OrderedRemedies(r)) {
      PageRemedyLine line;
      line.kind = RemedyKindName(kind);
      line.fits = r.Status(kind).verdict == RemedyVerdict::kFits;
      line.checked = r.Status(kind).checked;
      line.text = FormatRemedyText(judged, r, kind);
      f.lines.push_back(std::move(line));
    }
    page.failures.push_back(std::move(f));
  });
  return page;
}

}  // namespace whatif
}  // namespace realm_shadow
