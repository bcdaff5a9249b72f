// realm_shadow/ingest/compare.cc - a tracked dump against the log's picture
// of the same moment (compare.h).
#include "realm_shadow/ingest/compare.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/core/text.h"
#include "realm_shadow/ingest/realm_log.h"

namespace realm_shadow {
namespace {

constexpr size_t kReasonsShown = 4;  // mismatches named per kind

// What the log says of an allocation's size.
enum class LogSize { kExact, kUpperBound, kUnknown };

// The value of `key` in the identity `identity` of `log`, or null (no
// identity, or no such attribute).
const std::string* AttributeOf(const Snapshot& log, uint32_t identity,
                               const char* key) {
  const Identity* id = identity ? log.FindIdentity(identity) : nullptr;
  if (id == nullptr) return nullptr;
  for (const auto& [k, value] : id->attributes)
    if (k == key) return &value;
  return nullptr;
}

LogSize SizeKnowledge(const Snapshot& log, const Allocation& a) {
  const std::string* size = AttributeOf(log, a.identity, kSizeAttribute);
  if (size == nullptr) return LogSize::kExact;
  if (*size == kSizeUpperBound) return LogSize::kUpperBound;
  if (*size == kSizeUnknown) return LogSize::kUnknown;
  return LogSize::kExact;
}

bool Queued(const Allocation& a) { return a.state != AllocationState::kLive; }

// A release the log shows pending on an event it never names, which Realm
// may have poisoned and skipped (kReleaseAttribute, realm_log.h).
bool MaybeSkipped(const Snapshot& log, const Allocation& a) {
  const std::string* release = AttributeOf(log, a.identity, kReleaseAttribute);
  return release != nullptr && *release == kReleaseMaybeSkipped;
}

// A range the log shows release ready with the marking that Realm may have
// given it back already (kHeldAttribute, realm_log.h).
bool MaybeGivenBack(const Snapshot& log, const Allocation& a) {
  const std::string* held = AttributeOf(log, a.identity, kHeldAttribute);
  return held != nullptr && *held == kHeldMaybeGivenBack;
}

// How many waiting pieces the log marks as those of a redistrict whose old
// instance it cannot name ("waits_on" = kWaitsOnUnnamedRedistrict,
// realm_log.h): the log shows that instance live while Realm holds its
// release pending, so at most this many instances the log shows live may be
// the shadow's release pending, within what the log can say.
size_t UnnamedRedistrictPieces(const Snapshot& log) {
  size_t n = 0;
  for (const PendingRequest& p : log.pending) {
    const std::string* waits_on = AttributeOf(log, p.identity, kWaitsOnAttribute);
    if (waits_on != nullptr && *waits_on == kWaitsOnUnnamedRedistrict) ++n;
  }
  return n;
}

std::string Range(const Allocation& a) {
  return HexId(a.instance) + " [" + std::to_string(a.offset) + ", " +
         std::to_string(a.end()) + ")";
}

void AddReason(std::vector<std::string>* reasons, size_t* shown,
               const std::string& text) {
  if (*shown < kReasonsShown) reasons->push_back(text);
  ++*shown;
}

// The instances the cut's notes list as in flight for `memory`.
std::set<uint64_t> InFlight(const DumpFile& log, uint64_t memory) {
  std::set<uint64_t> out;
  const std::string head = HexId(memory) + ": " + kInFlightNote;
  for (const std::string& note : log.notes) {
    if (note.rfind(head, 0) != 0) continue;
    const size_t colon = note.rfind(':');
    size_t at = colon + 1;
    while (at < note.size()) {
      while (at < note.size() && note[at] == ' ') ++at;
      size_t end = note.find(' ', at);
      if (end == std::string::npos) end = note.size();
      if (end > at)
        if (const absl::StatusOr<uint64_t> id = ParseHexId(note.substr(at, end - at)); id.ok())
          out.insert(*id);
      at = end;
    }
  }
  return out;
}

// What the comparison of one memory found beyond its counts; together they
// give the verdict.
struct Findings {
  bool differ = false;  // a fact the log states disagrees
  bool within = false;  // equal only where the log states the fact
};

// ---- live allocations, by instance (ids are unique among live ones) ----

// Each live allocation of either side against the other's: the offset
// always, the size where the log states it (within the bound for a
// redistricted piece), and live vs release queued; a range the log marks as
// maybe given back may be absent from the shadow.  Returns how many bytes
// the log's bounds exceed the shadow's sizes by, and those ranges hold (its
// free space is a lower bound when above 0).
uint64_t CompareLiveAllocations(const Snapshot& shadow, const Snapshot& log,
                                const std::set<uint64_t>& in_flight,
                                MemoryComparison* c, Findings* found) {
  std::map<uint64_t, const Allocation*> by_instance;
  for (const Allocation& a : shadow.allocations) by_instance[a.instance] = &a;
  std::set<uint64_t> seen;
  size_t shown = 0;
  uint64_t bounded_slack = 0;
  size_t unnamed_old_instances = UnnamedRedistrictPieces(log);
  size_t unnamed_shown_live = 0;
  size_t given_back = 0;
  uint64_t given_back_bytes = 0;
  // A difference in an instance logged while the snapshot was taken is
  // counted as in flight; any other is counted in *kind and named.
  const auto difference = [&](uint64_t instance, uint64_t* kind,
                              const std::string& reason) {
    if (in_flight.count(instance)) {
      ++c->in_flight;
      return;
    }
    ++*kind;
    found->differ = true;
    AddReason(&c->reasons, &shown, reason);
  };
  for (const Allocation& l : log.allocations) {
    auto it = by_instance.find(l.instance);
    if (it == by_instance.end() && MaybeGivenBack(log, l)) {
      // Given back already, within what the log says: its free space is a
      // lower bound by that much.
      ++given_back;
      given_back_bytes += l.size;
      found->within = true;
      continue;
    }
    if (it == by_instance.end()) {
      difference(l.instance, &c->only_log, "only in the log: " + Range(l));
      continue;
    }
    seen.insert(l.instance);
    const Allocation& s = *it->second;
    const LogSize knowledge = SizeKnowledge(log, l);
    bool same = s.offset == l.offset;
    if (knowledge == LogSize::kExact) same = same && s.size == l.size;
    if (knowledge == LogSize::kUpperBound) same = same && s.size <= l.size;
    if (!same) {
      difference(l.instance, &c->mismatched,
                 "shadow " + Range(s) + " vs log " + Range(l) +
                     (knowledge == LogSize::kUpperBound ? " (size <= bound)" : ""));
      continue;
    }
    if (knowledge == LogSize::kExact) {
      ++c->same_exact;
    } else if (knowledge == LogSize::kUpperBound) {
      ++c->same_bounded;
      bounded_slack += l.size - s.size;
      if (l.size != s.size) found->within = true;
    } else {
      ++c->same_unsized;
      found->within = true;
    }
    if (Queued(s) == Queued(l)) continue;
    if (s.state == AllocationState::kLive &&
        l.state == AllocationState::kReleasePending && MaybeSkipped(log, l)) {
      // Realm skipped the destroy, within what the log says.
      found->within = true;
      continue;
    }
    if (s.state == AllocationState::kReleasePending && !Queued(l) &&
        unnamed_old_instances > 0) {
      // The old instance of a redistrict the log shows waiting unnamed.
      --unnamed_old_instances;
      ++unnamed_shown_live;
      found->within = true;
      continue;
    }
    difference(s.instance, &c->state_differs,
               HexId(s.instance) + ": shadow " + AllocationStateName(s.state) +
                   ", log " + AllocationStateName(l.state));
  }
  if (unnamed_shown_live > 0)
    c->reasons.push_back(std::to_string(unnamed_shown_live) +
                         " release(s) pending shown live: the old instance of "
                         "a redistrict the log shows waiting, which it does "
                         "not name");
  if (given_back > 0)
    c->reasons.push_back(std::to_string(given_back) +
                         " range(s) the log shows release ready, which Realm "
                         "may have given back (requests may wait in its "
                         "allocator, which the log does not show): given "
                         "back in the shadow");
  for (const Allocation& s : shadow.allocations) {
    if (seen.count(s.instance)) continue;
    difference(s.instance, &c->only_shadow, "only in the shadow: " + Range(s));
  }
  if (c->same_bounded > 0)
    c->reasons.push_back(std::to_string(c->same_bounded) +
                         " redistricted piece(s): the log has no size, only an "
                         "upper bound (" +
                         FormatHumanSize(bounded_slack) +
                         " more than the shadow's sizes in all)");
  if (c->same_unsized > 0)
    c->reasons.push_back(std::to_string(c->same_unsized) +
                         " allocation(s) placed without a layout line: the log "
                         "has no size");
  return bounded_slack + given_back_bytes;
}

// ---- free space ----

// Total free and largest hole: equal, or the log's no larger where its
// bounds make it a lower bound; not compared without the log's capacity; a
// difference the in-flight allocations explain is not one.  Reads the
// in-flight count of the live allocations only (called right after them).
void CompareFreeSpace(const Snapshot& shadow, const Snapshot& log,
                      uint64_t bounded_slack, MemoryComparison* c,
                      Findings* found) {
  const FreeSummary fs = Summarize(shadow);
  const FreeSummary fl = Summarize(log);
  c->free_shadow = fs.total_free;
  c->hole_shadow = fs.largest_hole;
  c->free_log = fl.total_free;
  c->hole_log = fl.largest_hole;
  c->log_lower_bound = bounded_slack > 0;
  const bool live_in_flight = c->in_flight > 0;
  if (!log.capacity_known) {
    c->free_compared = false;
    found->within = true;
    c->reasons.push_back(
        "free space not compared: the log has no capacity (run without "
        "-level machine=1)");
  } else if (c->log_lower_bound) {
    if (c->free_log > c->free_shadow || c->hole_log > c->hole_shadow) {
      found->differ = true;
      c->reasons.push_back("log's free space exceeds the shadow's though the "
                           "log's is a lower bound");
    } else {
      found->within = true;
    }
  } else if ((c->free_log != c->free_shadow || c->hole_log != c->hole_shadow) &&
             live_in_flight) {
    found->within = true;  // explained by the in-flight allocations
  } else if (c->free_log != c->free_shadow || c->hole_log != c->hole_shadow) {
    found->differ = true;
    c->reasons.push_back("free " + std::to_string(c->free_shadow) + " vs " +
                         std::to_string(c->free_log) + " B, largest hole " +
                         std::to_string(c->hole_shadow) + " vs " +
                         std::to_string(c->hole_log) + " B");
  }
}

// ---- pending requests ----

// The same instances wait on both sides (the log never gives a planned
// offset); one only one side holds differs unless it is in flight.
void ComparePendingRequests(const Snapshot& shadow, const Snapshot& log,
                            const std::set<uint64_t>& in_flight,
                            MemoryComparison* c, Findings* found) {
  auto flying = [&](uint64_t instance) { return in_flight.count(instance) > 0; };
  c->pending_shadow = shadow.pending.size();
  c->pending_log = log.pending.size();
  std::multiset<uint64_t> ps, pl;
  for (const PendingRequest& p : shadow.pending) ps.insert(p.instance);
  for (const PendingRequest& p : log.pending) pl.insert(p.instance);
  if (ps == pl) return;
  // What is in one only; in-flight instances are counted apart.
  std::vector<uint64_t> only_shadow, only_log;
  std::set_difference(ps.begin(), ps.end(), pl.begin(), pl.end(),
                      std::back_inserter(only_shadow));
  std::set_difference(pl.begin(), pl.end(), ps.begin(), ps.end(),
                      std::back_inserter(only_log));
  const size_t before = only_shadow.size() + only_log.size();
  only_shadow.erase(
      std::remove_if(only_shadow.begin(), only_shadow.end(), flying),
      only_shadow.end());
  only_log.erase(std::remove_if(only_log.begin(), only_log.end(), flying),
                 only_log.end());
  c->in_flight += before - only_shadow.size() - only_log.size();
  c->pending_differs = only_shadow.size() + only_log.size();
  if (c->pending_differs > 0) {
    found->differ = true;
    std::string text = "pending requests differ:";
    for (uint64_t i : only_shadow) text += " " + HexId(i) + " (shadow only)";
    for (uint64_t i : only_log) text += " " + HexId(i) + " (log only)";
    c->reasons.push_back(text);
  }
}

// ---- failures ----

// The same failed instances, as often, and the same request size where the
// log has one (a failed redistricted piece's size is not in the log);
// in-flight instances are counted apart.  A log's failure marked maybe
// cancelled that the shadow does not list is within what the log says
// (Realm cancelled it: no failure for the hooks).
void CompareFailures(const Snapshot& shadow, const Snapshot& log,
                     const std::set<uint64_t>& in_flight, MemoryComparison* c,
                     Findings* found) {
  auto flying = [&](uint64_t instance) { return in_flight.count(instance) > 0; };
  c->failures_shadow = shadow.failures.size();
  c->failures_log = log.failures.size();
  std::map<uint64_t, std::vector<uint64_t>> fs_sizes, fl_sizes;
  std::map<uint64_t, size_t> fl_maybe_cancelled;
  for (const Failure& f : shadow.failures) fs_sizes[f.instance].push_back(f.size);
  for (const Failure& f : log.failures) {
    fl_sizes[f.instance].push_back(f.size);
    if (f.maybe_cancelled) ++fl_maybe_cancelled[f.instance];
  }
  std::string failure_text;
  for (const auto& [instance, sizes] : fl_sizes) {
    if (flying(instance)) {
      if (fs_sizes.count(instance) == 0 ||
          fs_sizes[instance].size() != sizes.size())
        ++c->in_flight;
      continue;
    }
    auto it = fs_sizes.find(instance);
    const size_t in_shadow = it == fs_sizes.end() ? 0 : it->second.size();
    if (in_shadow < sizes.size() &&
        sizes.size() - in_shadow <= fl_maybe_cancelled[instance]) {
      found->within = true;
      continue;
    }
    if (it == fs_sizes.end() || it->second.size() != sizes.size()) {
      ++c->failures_differ;
      failure_text += " " + HexId(instance) + " (count)";
      continue;
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] != 0 && sizes[i] != it->second[i]) {
        ++c->failures_differ;
        failure_text += " " + HexId(instance) + " (size " +
                        std::to_string(it->second[i]) + " vs " +
                        std::to_string(sizes[i]) + ")";
      } else if (sizes[i] == 0 && it->second[i] != 0) {
        found->within = true;
      }
    }
  }
  for (const auto& [instance, sizes] : fs_sizes)
    if (!fl_sizes.count(instance) && flying(instance)) {
      ++c->in_flight;
    } else if (!fl_sizes.count(instance)) {
      ++c->failures_differ;
      failure_text += " " + HexId(instance) + " (shadow only)";
    }
  if (c->failures_differ > 0) {
    found->differ = true;
    c->reasons.push_back("failures differ:" + failure_text);
  }
}

// One memory, section by section (compare.h says what each fact must
// satisfy), then the verdict: differ when a fact the log states disagrees,
// else agree within the log when it could not state one or an instance was
// in flight, else agree.
MemoryComparison CompareMemory(const Snapshot& shadow, const Snapshot& log,
                               const std::set<uint64_t>& in_flight) {
  MemoryComparison c;
  c.memory_id = shadow.memory_id;
  c.node = shadow.node;
  c.live_shadow = shadow.allocations.size();
  c.live_log = log.allocations.size();
  Findings found;
  const uint64_t bounded_slack =
      CompareLiveAllocations(shadow, log, in_flight, &c, &found);
  // The free space follows from the allocations; differences in pending
  // requests and failures of in-flight instances are counted after it.
  CompareFreeSpace(shadow, log, bounded_slack, &c, &found);
  ComparePendingRequests(shadow, log, in_flight, &c, &found);
  CompareFailures(shadow, log, in_flight, &c, &found);
  if (c.in_flight > 0) {
    found.within = true;
    c.reasons.push_back(
        std::to_string(c.in_flight) +
        " difference(s) of instances in flight while the snapshot was taken "
        "(their log lines fall between the dump's begin line and its marker)");
  }
  c.agreement = found.differ
                    ? Agreement::kDiffer
                    : (found.within ? Agreement::kAgreeWithinLog : Agreement::kAgree);
  return c;
}

std::string Pair(uint64_t a, uint64_t b) {
  return std::to_string(a) + "/" + std::to_string(b);
}

std::string SizePair(uint64_t a, uint64_t b, bool compared, bool bound) {
  if (!compared) return FormatHumanSize(a) + "/?";
  return FormatHumanSize(a) + "/" + (bound ? "\u2265" : "") + FormatHumanSize(b);
}

std::string SameColumn(const MemoryComparison& c) {
  if (c.agreement == Agreement::kMissing) return "-";
  const uint64_t bad = c.mismatched + c.only_shadow + c.only_log + c.state_differs;
  if (bad > 0) return "no (" + std::to_string(bad) + ")";
  std::string out = "yes";
  if (c.same_bounded > 0 || c.same_unsized > 0) {
    out += " (";
    if (c.same_bounded > 0) out += std::to_string(c.same_bounded) + " bounded";
    if (c.same_bounded > 0 && c.same_unsized > 0) out += ", ";
    if (c.same_unsized > 0) out += std::to_string(c.same_unsized) + " unsized";
    out += ")";
  }
  return out;
}

std::vector<std::vector<std::string>> Cells(
    const std::vector<MemoryComparison>& rows, const std::string& run,
    const std::string& dump) {
  std::vector<std::vector<std::string>> out;
  for (const MemoryComparison& c : rows) {
    std::string why;
    for (const std::string& r : c.reasons) why += (why.empty() ? "" : "; ") + r;
    out.push_back({run, dump, HexId(c.memory_id),
                   Pair(c.live_shadow, c.live_log), SameColumn(c),
                   SizePair(c.free_shadow, c.free_log, c.free_compared,
                            c.log_lower_bound),
                   SizePair(c.hole_shadow, c.hole_log, c.free_compared,
                            c.log_lower_bound),
                   Pair(c.pending_shadow, c.pending_log),
                   Pair(c.failures_shadow, c.failures_log),
                   AgreementName(c.agreement), why});
  }
  return out;
}

const std::vector<std::string>& Header() {
  static const std::vector<std::string> header = {
      "run", "dump", "memory", "live shadow/log", "same (inst,off,size)",
      "free shadow/log", "largest hole shadow/log", "pending shadow/log",
      "failures shadow/log", "verdict", "why"};
  return header;
}

// Display width of a UTF-8 string (the bound sign is one column).
size_t Width(const std::string& s) {
  size_t w = 0;
  for (unsigned char ch : s) w += (ch & 0xc0) != 0x80;
  return w;
}

}  // namespace

const char* AgreementName(Agreement a) {
  switch (a) {
    case Agreement::kAgree: return "agree";
    case Agreement::kAgreeWithinLog: return "agree within log";
    case Agreement::kDiffer: return "DIFFER";
    case Agreement::kMissing: return "missing";
  }
  return "?";
}

std::vector<MemoryComparison> CompareDumps(const DumpFile& shadow,
                                           const DumpFile& log) {
  std::vector<MemoryComparison> rows;
  // A memory only one side holds: a row of its own, with its live count.
  const auto missing = [&rows](const Snapshot& s, const char* reason) {
    MemoryComparison& c = rows.emplace_back();
    c.memory_id = s.memory_id;
    c.node = s.node;
    c.agreement = Agreement::kMissing;
    c.reasons.push_back(reason);
    return &c;
  };
  std::set<uint64_t> matched;
  for (const Snapshot& s : shadow.memories) {
    const Snapshot* other = nullptr;
    for (const Snapshot& l : log.memories)
      if (l.memory_id == s.memory_id) other = &l;
    if (other == nullptr) {
      missing(s, "not in the log's dump")->live_shadow = s.allocations.size();
      continue;
    }
    matched.insert(s.memory_id);
    rows.push_back(CompareMemory(s, *other, InFlight(log, s.memory_id)));
  }
  for (const Snapshot& l : log.memories)
    if (!matched.count(l.memory_id))
      missing(l, "not in the shadow's dump")->live_log = l.allocations.size();
  return rows;
}

std::string ComparisonTsvHeader() {
  std::string out;
  for (const std::string& h : Header()) out += (out.empty() ? "" : "\t") + h;
  return out;
}

std::string FormatComparisonTsv(const std::vector<MemoryComparison>& rows,
                                const std::string& run,
                                const std::string& dump) {
  std::string out;
  for (const auto& cells : Cells(rows, run, dump)) {
    std::string line;
    for (const std::string& cell : cells) {
      std::string clean = cell;
      std::replace(clean.begin(), clean.end(), '\t', ' ');
      std::replace(clean.begin(), clean.end(), '\n', ' ');
      line += (line.empty() ? "" : "\t") + clean;
    }
    out += line + "\n";
  }
  return out;
}

std::string FormatComparisonTable(const std::vector<MemoryComparison>& rows,
                                  const std::string& run,
                                  const std::string& dump) {
  std::vector<std::vector<std::string>> table = {Header()};
  for (auto& cells : Cells(rows, run, dump)) table.push_back(std::move(cells));
  // Every column but the last ("why") is padded.
  std::vector<size_t> width(Header().size(), 0);
  for (const auto& cells : table)
    for (size_t i = 0; i + 1 < cells.size(); ++i)
      width[i] = std::max(width[i], Width(cells[i]));
  std::string out;
  for (const auto& cells : table) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      line += cells[i];
      if (i + 1 < cells.size())
        line += std::string(width[i] - Width(cells[i]) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace realm_shadow
