// whatif/report.cc - see report.h.
#include "whatif/report.h"

#include <algorithm>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/core/identity.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/format/json_writer.h"
#include "realm_shadow/render/report.h"

namespace realm_shadow {
namespace whatif {
namespace {

const Identity* FindIdentity(const ReplayScript& s, uint32_t id) {
  if (id == 0) return nullptr;
  for (const Identity& i : s.identities)
    if (i.id == id) return &i;
  return nullptr;
}

std::string Seconds(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f s", static_cast<double>(ns) / 1e9);
  return buf;
}

std::string Fraction(double f) {
  if (f < 0) return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.3f", f);
  return buf;
}

// The moment the page's maps show (ReplayQuestion::maps).
uint64_t MapMoment(const ReplayResult& r) {
  if (r.recorded_failure_sequence != kNone64) return r.recorded_failure_sequence;
  if (!r.failures.empty()) return r.failures.front().sequence;
  return kNone64;
}

std::string Title(const ReplayScript& s) {
  Snapshot title;
  title.memory_id = s.memory_id;
  title.kind = s.kind;
  title.name = s.memory_name;
  title.node = s.node;
  return MemoryTitle(title);
}

std::string Pad(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::string MinCapacityText(const PolicyAnswer& p) {
  if (!p.min_searched) return "";
  if (!p.min.found) return "not found";
  return FormatSizeExact(p.min.capacity);
}

// The run's failures a log cannot tell from cancellations: which they are,
// that "run's failures avoided" leaves them out, and what each policy did
// with them.  Empty when there are none.
std::string MaybeCancelledNote(const ReplayScript& s, const MemoryAnswer& a) {
  std::vector<uint64_t> ids;
  for (const ReplayLife& l : s.lives)
    if (l.recorded == RecordedOutcome::kFailed && l.recorded_maybe_cancelled)
      ids.push_back(l.instance);
  if (ids.empty()) return "";
  std::string out = absl::StrCat(
      "  note: ", ids.size(), " of the run's failures are ", kMaybeCancelledText,
      "; they are not among the run's failures above (Realm may never have "
      "asked for them), and are replayed as requests:");
  const size_t shown = std::min<size_t>(ids.size(), 8);
  for (size_t i = 0; i < shown; ++i) absl::StrAppend(&out, " ", HexId(ids[i]));
  if (shown < ids.size()) absl::StrAppend(&out, " and ", ids.size() - shown, " more");
  out += "\n";
  for (const PolicyAnswer& p : a.policies)
    absl::StrAppend(&out, "    ", Pad(PlacementPolicyName(p.result.policy), 14), "placed ",
                    p.result.maybe_cancelled_placed, " of them, failed ",
                    p.result.failures_of_maybe_cancelled, "\n");
  return out;
}

}  // namespace

absl::StatusOr<MemoryAnswer> ReplayMemory(ReplayScript script,
                                          const ReplayQuestion& question) {
  MemoryAnswer answer;
  answer.script = std::move(script);
  const ReplayScript& s = answer.script;
  // Where the run's capacity is unknown (a log without machine=1), the
  // highest end its placements reached stands for it.  Realm's first fit
  // over the address-ordered free list places every request there as at
  // the real capacity, which is at least that: the ranges below it are the
  // same, a request the run placed still fits, and one that failed or
  // waited (no room at the real capacity) has less room still.  So the
  // self-check is exact at it.
  // A known capacity of 0 is one: the memory Realm keeps for external
  // instances, whose allocator holds nothing.
  if (!s.capacity_known) {
    uint64_t reached = 0;
    for (const ReplayLife& l : s.lives)
      if (l.recorded_offset != kNone64)
        reached = std::max(reached, l.recorded_offset + l.size);
    if (reached > 0) {
      answer.script.capacity = reached;
      answer.script.notes.push_back(
          "the run's capacity is unknown (a log without machine=1): taken as " +
          FormatSizeExact(reached) +
          ", the highest end its placements reached, where Realm's first fit "
          "places every request as at the real capacity (at least that)");
    }
  }
  answer.capacity = question.capacity ? question.capacity : s.capacity;
  if (answer.capacity == 0 && !s.capacity_known)
    return absl::InvalidArgumentError(
        HexId(s.memory_id) +
        ": the memory's capacity is unknown (a log without machine=1) and no "
        "placement shows how much it had: give --capacity");
  answer.lower_bound = PeakLiveBytes(s);
  if (s.capacity > 0 || s.capacity_known) {
    ReplayOptions o;
    o.policy = PlacementPolicy::kRealm;
    o.capacity = s.capacity;
    absl::StatusOr<ReplayResult> checked = RunReplay(s, o);
    if (!checked.ok()) return checked.status();
    answer.self_check = *std::move(checked);
    answer.self_checked = true;
  }
  std::vector<PlacementPolicy> policies = question.policies;
  if (policies.empty())
    policies.assign(std::begin(model::kAllPlacementPolicies),
                    std::end(model::kAllPlacementPolicies));
  for (PlacementPolicy p : policies) {
    PolicyAnswer a;
    ReplayOptions o;
    o.policy = p;
    o.capacity = answer.capacity;
    absl::StatusOr<ReplayResult> result = RunReplay(s, o);
    if (!result.ok()) return result.status();
    if (question.maps) {
      const uint64_t moment = MapMoment(*result);
      o.map_before_sequence = moment == kNone64 ? s.end_sequence : moment;
      result = RunReplay(s, o);
      if (!result.ok()) return result.status();
    }
    a.result = *std::move(result);
    if (question.min_capacity) {
      a.min_searched = true;
      a.min = FindMinCapacityWithLowerBound(s, p, answer.lower_bound);
    }
    answer.policies.push_back(std::move(a));
  }
  return answer;
}

std::string FormatSelfCheck(const ReplayScript& s, const SelfCheck& c) {
  std::string text = absl::StrCat("self-check: ", c.as_recorded, "/", c.checked,
                                  " placements as recorded");
  if (c.not_checkable)
    absl::StrAppend(&text, "; ", c.not_checkable, " not checkable: sizes unknown");
  if (c.difference_count) {
    absl::StrAppend(&text, "; ", c.difference_count, " differ (first: ");
    for (size_t i = 0; i < c.differences.size() && i < 3; ++i) {
      const SelfCheck::Difference& d = c.differences[i];
      const ReplayLife& l = s.lives[d.life];
      absl::StrAppend(&text, i ? ", " : "", HexId(l.instance), " ",
                      FormatHumanSize(l.size), " recorded at ", d.recorded,
                      ", replayed ",
                      d.replayed == kNone64 ? std::string("not placed")
                                            : absl::StrCat("at ", d.replayed));
    }
    text += ")";
  }
  return text;
}

std::string FormatFirstFailure(const ReplayScript& s, const ReplayResult& r) {
  if (r.failures.empty()) return "none";
  const ReplayFailure& f = r.failures.front();
  const ReplayLife& l = s.lives[f.life];
  // A request still waiting when the history ends failed after its last
  // event, not at one.
  std::string text = f.sequence >= s.end_sequence
                         ? absl::StrCat("the end, after event ", s.end_sequence)
                         : absl::StrCat("event ", EventNumber(f.sequence));
  if (!s.times.empty()) absl::StrAppend(&text, " (", Seconds(s.TimeOf(f.sequence)), ")");
  absl::StrAppend(&text, ": ", FormatSizeExact(l.size), " align ", l.alignment, " for ",
                  HexId(l.instance), ", ", FailureKindName(f.kind));
  if (const Identity* id = FindIdentity(s, l.identity))
    absl::StrAppend(&text, ";", IdentityText(*id));
  return text;
}

std::string FormatMemoryAnswer(const MemoryAnswer& a) {
  const ReplayScript& s = a.script;
  std::string out = Title(s) + "\n";
  size_t requests = 0;
  for (const ReplayLife& l : s.lives)
    requests += l.recorded != RecordedOutcome::kLiveAtBase;
  absl::StrAppend(&out, "  replayed: events ", EventNumber(s.first_sequence), " to ", s.end_sequence,
                  s.first_sequence == 0 ? " (the whole run)"
                                        : " (from the base snapshot: the history does "
                                          "not reach back to the start of the run)",
                  ", ", requests, " request(s), at ", FormatSizeExact(a.capacity),
                  a.capacity != s.capacity ? ""
                  : s.capacity_known ? " (the run's capacity)"
                                     : " (the highest end the run reached: its capacity is unknown)",
                  "\n");
  if (a.self_checked)
    absl::StrAppend(&out, "  ", FormatSelfCheck(s, a.self_check.self_check),
                    s.capacity_known ? " (realm at the run's capacity)\n"
                                     : " (realm at the highest end the run reached)\n");
  else
    out += "  self-check: not run (the run's capacity is unknown)\n";
  absl::StrAppend(&out, "  lower bound: ", FormatSizeExact(a.lower_bound),
                  " live at once at the run's peak: no policy keeps every request "
                  "placed when the run had it in less\n");
  const bool mins = std::any_of(a.policies.begin(), a.policies.end(),
                                [](const PolicyAnswer& p) { return p.min_searched; });
  out += "  " + Pad("policy", 14) + Pad("fails", 7) + Pad("run's failures avoided", 24) +
         Pad("peak used", 26) + Pad("peak hole deficit", 26) + Pad("frag. at failure", 18) +
         (mins ? "min capacity" : "") + "\n";
  for (const PolicyAnswer& p : a.policies) {
    const ReplayResult& r = p.result;
    const std::string avoided =
        r.recorded_failures == 0
            ? std::string("(none to avoid)")
            : absl::StrCat(r.recorded_failures_avoided == r.recorded_failures ? "all, " : "",
                           r.recorded_failures_avoided, " of ", r.recorded_failures);
    std::string line = "  " + Pad(PlacementPolicyName(r.policy), 14) +
                       Pad(r.failed() ? "yes" : "no", 7) + Pad(avoided, 24) +
                       Pad(FormatSizeExact(r.peak_used), 26) +
                       Pad(r.peak_hole_deficit ? FormatSizeExact(r.peak_hole_deficit) : "0", 26) +
                       Pad(Fraction(r.fragmentation_at_recorded_failure), 18) + MinCapacityText(p);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += "  first failure:\n";
  for (const PolicyAnswer& p : a.policies)
    absl::StrAppend(&out, "    ", Pad(PlacementPolicyName(p.result.policy), 14),
                    FormatFirstFailure(s, p.result), "\n");
  if (mins) {
    out += "  min capacity: the smallest capacity with no failure, checked by a replay\n"
           "  at it (realm: or at a larger one that replays the same down to it) and\n"
           "  one at one unit less; placement is not monotone in the capacity, so it\n"
           "  is the smallest the search met, not a proof:\n";
    for (const PolicyAnswer& p : a.policies)
      if (p.min_searched)
        absl::StrAppend(&out, "    ", Pad(PlacementPolicyName(p.result.policy), 14),
                        p.min.method, "\n");
  }
  if (a.self_checked && a.self_check.ready_releases_dropped)
    absl::StrAppend(&out, "  note: ", a.self_check.ready_releases_dropped,
                    " time(s) a poisoned release reset Realm's release heap while ready "
                    "releases were queued (Realm loses them; model_memory.h)\n");
  out += MaybeCancelledNote(s, a);
  for (const std::string& n : s.notes) absl::StrAppend(&out, "  note: ", n, "\n");
  return out;
}

std::string MemoryAnswerJson(const MemoryAnswer& a) {
  const ReplayScript& s = a.script;
  std::string out;
  JsonWriter w(&out);
  auto identity = [&](uint32_t id) {
    const Identity* i = FindIdentity(s, id);
    if (!i) {
      w.Null();
      return;
    }
    w.BeginObject();
    w.String("kind", AllocationKindName(i->kind));
    for (const auto& [k, v] : i->attributes) {
      w.Key(k);
      w.String(v);
    }
    w.EndObject();
  };
  w.BeginObject();
  w.Uint("node", s.node);
  w.HexId("memory", s.memory_id);
  w.String("name", s.memory_name);
  w.Uint("capacity", a.capacity);
  w.UintOrNull("run_capacity", s.capacity_known, s.capacity);
  w.Uint("first_event", EventNumber(s.first_sequence));
  w.Uint("end_event", s.end_sequence);
  w.Bool("from_base_snapshot", s.first_sequence > 0);
  w.Uint("lower_bound", a.lower_bound);
  w.Key("self_check");
  if (!a.self_checked) {
    w.Null();
  } else {
    const SelfCheck& c = a.self_check.self_check;
    w.BeginObject();
    w.Uint("checked", c.checked);
    w.Uint("as_recorded", c.as_recorded);
    w.Uint("not_checkable", c.not_checkable);
    w.Uint("differ", c.difference_count);
    w.Key("differences");
    w.BeginArray();
    for (const SelfCheck::Difference& d : c.differences) {
      w.BeginObject();
      w.HexId("instance", s.lives[d.life].instance);
      w.Uint("recorded", d.recorded);
      w.Offset("replayed", d.replayed);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.Key("policies");
  w.BeginArray();
  for (const PolicyAnswer& p : a.policies) {
    const ReplayResult& r = p.result;
    w.BeginObject();
    w.String("policy", PlacementPolicyName(r.policy));
    w.Bool("fails", r.failed());
    w.Uint("run_failures", r.recorded_failures);
    w.Uint("run_failures_avoided", r.recorded_failures_avoided);
    // Failures a log cannot tell from cancellations: outside run_failures
    // and its avoided count; failures_of_maybe_cancelled counts the
    // replay's failures of them (in `failures` too).
    w.Uint("run_maybe_cancelled", r.recorded_maybe_cancelled);
    w.Uint("run_maybe_cancelled_placed", r.maybe_cancelled_placed);
    w.Uint("failures_of_maybe_cancelled", r.failures_of_maybe_cancelled);
    w.Key("first_failure");
    if (r.failures.empty()) {
      w.Null();
    } else {
      const ReplayFailure& f = r.failures.front();
      const ReplayLife& l = s.lives[f.life];
      w.BeginObject();
      w.Uint("event", std::min(EventNumber(f.sequence), s.end_sequence));
      w.Key("time_ns");
      if (s.times.empty()) w.Null();
      else w.Uint(static_cast<uint64_t>(std::max<int64_t>(0, s.TimeOf(f.sequence))));
      w.String("kind", FailureKindName(f.kind));
      w.HexId("instance", l.instance);
      w.Uint("size", l.size);
      w.Uint("alignment", l.alignment);
      w.Key("identity");
      identity(l.identity);
      w.EndObject();
    }
    w.Uint("failures", r.failures.size());
    w.Uint("peak_used", r.peak_used);
    w.Uint("peak_hole_deficit", r.peak_hole_deficit);
    w.Key("fragmentation_at_run_failure");
    if (r.fragmentation_at_recorded_failure < 0) w.Null();
    else w.Double(r.fragmentation_at_recorded_failure);
    w.Key("min_capacity");
    if (!p.min_searched) {
      w.Null();
    } else {
      w.BeginObject();
      w.Bool("found", p.min.found);
      w.Key("capacity");
      if (p.min.found) w.Uint(p.min.capacity);
      else w.Null();
      w.Uint("unit", p.min.unit);
      w.Uint("replays", static_cast<uint64_t>(p.min.probes));
      w.String("method", p.min.method);
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("notes");
  w.BeginArray();
  for (const std::string& n : s.notes) w.String(n);
  w.EndArray();
  w.EndObject();
  return out;
}

PageReplay ToPageReplay(const MemoryAnswer& a) {
  const ReplayScript& s = a.script;
  PageReplay page;
  page.node = s.node;
  page.memory_id = s.memory_id;
  if (a.self_checked) page.summary = FormatSelfCheck(s, a.self_check.self_check) + "\n";
  page.summary += "lower bound (peak live bytes): " + FormatSizeExact(a.lower_bound);
  for (const PolicyAnswer& p : a.policies) {
    const ReplayResult& r = p.result;
    PageReplayRow row;
    row.policy = PlacementPolicyName(r.policy);
    row.fails = r.failed();
    row.first_failure = r.failed() ? FormatFirstFailure(s, r) : "-";
    row.min_capacity = MinCapacityText(p);
    const uint64_t at = MapMoment(r);
    row.moment = at == kNone64 ? std::string("the end of the history")
                               : absl::StrCat("just before event ", EventNumber(at));
    for (const ReplayRange& range : r.map_at) {
      Allocation al;
      al.offset = range.offset;
      al.size = range.size;
      if (range.life != kNoLife) {
        const ReplayLife& l = s.lives[range.life];
        al.instance = l.instance;
        al.identity = l.identity;
        al.alignment_log2 = AlignmentLog2(l.alignment);
      }
      row.map.push_back(al);
    }
    page.rows.push_back(std::move(row));
  }
  const uint64_t moment =
      a.policies.empty() ? kNone64 : MapMoment(a.policies.front().result);
  page.moment = moment == kNone64 ? "the end of the history"
                : absl::StrCat("just before event ", EventNumber(moment),
                               a.policies.front().result.recorded_failure_sequence != kNone64
                                   ? ", the run's first failure"
                                   : ", the first failure");
  return page;
}

}  // namespace whatif
}  // namespace realm_shadow
