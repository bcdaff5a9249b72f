#include "realm_shadow/faces/report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "realm_shadow/analysis/diff.h"
#include "realm_shadow/analysis/snapshot.h"
#include "realm_shadow/faces/human_size.h"
#include "realm_shadow/faces/realm_log.h"

namespace realm_shadow {
namespace {

std::string Percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", fraction * 100.0);
  return buffer;
}

std::string Range(uint64_t offset, uint64_t size) {
  return absl::StrCat("[", offset, ", ", offset + size, ")");
}

std::string SignedSize(int64_t delta) {
  if (delta < 0)
    return "-" + FormatSizeExact(static_cast<uint64_t>(-(delta + 1)) + 1);
  return "+" + FormatSizeExact(static_cast<uint64_t>(delta));
}

std::string IdentityText(const Snapshot& s, uint32_t identity) {
  if (identity == 0) return "";
  const Identity* id = s.FindIdentity(identity);
  if (id == nullptr) return absl::StrCat(" identity#", identity);
  std::string text;
  for (const auto& [key, value] : id->attributes) {
    if (key == "why") continue;  // long prose; the notes carry it
    absl::StrAppend(&text, " ", key, "=", value);
  }
  return text;
}

// Snapshot with every upper-bounded allocation removed: the most free space
// the truth can have.
Snapshot WithoutBounded(const Snapshot& s) {
  Snapshot copy = s;
  copy.allocations.erase(
      std::remove_if(copy.allocations.begin(), copy.allocations.end(),
                     [&](const Allocation& a) { return SizeIsUpperBound(s, a); }),
      copy.allocations.end());
  return copy;
}

std::string CauseText(const Snapshot& s, uint64_t size, uint64_t alignment) {
  const FailureCause now = ClassifyRequest(s, size, alignment);
  if (now == FailureCause::kFits) return "fits now";
  const uint64_t bounded = BoundedBytes(s);
  if (bounded == 0 || now == FailureCause::kFragmentation)
    return FailureCauseName(now);
  // Exhaustion with upper-bound sizes: the true free space may reach the
  // request, which would make it fragmentation.
  if (Summarize(WithoutBounded(s)).total_free < size)
    return FailureCauseName(now);
  return absl::StrCat("exhaustion or fragmentation (", FormatSizeExact(bounded),
                      " are redistricted pieces whose sizes the log never "
                      "gave)");
}

std::string WindowText(const Snapshot& s, const BlockerWindow& w,
                       const char* label, const std::string& indent) {
  std::string out;
  if (w.fits_already) {
    absl::StrAppend(&out, indent, label, ": fits now at offset ",
                    w.placement, "\n");
    return out;
  }
  if (!w.found) {
    absl::StrAppend(&out, indent, label,
                    ": none (no window of collectable allocations makes it "
                    "fit: the request is larger than what pinned ranges "
                    "leave, or than the memory)\n");
    return out;
  }
  absl::StrAppend(&out, indent, label, ": release ", w.blockers.size(),
                  " allocation(s), ", FormatSizeExact(w.bytes_to_free),
                  "; window ", Range(w.window_offset,
                                     w.window_end - w.window_offset),
                  ", placed at ", w.placement, "\n");
  for (const Allocation& a : w.blockers)
    absl::StrAppend(&out, indent, "  ", FormatAllocationLine(s, a), "\n");
  return out;
}

bool SameWindow(const BlockerWindow& a, const BlockerWindow& b) {
  if (a.found != b.found || a.blockers.size() != b.blockers.size())
    return false;
  for (size_t i = 0; i < a.blockers.size(); ++i)
    if (a.blockers[i].instance != b.blockers[i].instance ||
        a.blockers[i].offset != b.blockers[i].offset)
      return false;
  return true;
}

std::string BlockersBothObjectives(const Snapshot& s, uint64_t size,
                                   uint64_t alignment,
                                   const std::string& indent) {
  const BlockerWindow bytes =
      FindBlockers(s, size, alignment, BlockerObjective::kFewestBytes);
  const BlockerWindow count =
      FindBlockers(s, size, alignment, BlockerObjective::kFewestAllocations);
  std::string out;
  if (SameWindow(bytes, count)) {
    out += WindowText(s, bytes, "blockers (fewest bytes = fewest allocations)",
                      indent);
  } else {
    out += WindowText(s, bytes, "blockers (fewest bytes)", indent);
    out += WindowText(s, count, "blockers (fewest allocations)", indent);
  }
  return out;
}

}  // namespace

std::vector<LoadedMemory> ListMemories(const std::vector<DumpFile>& dumps,
                                       const std::vector<std::string>& files) {
  std::vector<LoadedMemory> out;
  for (size_t i = 0; i < dumps.size(); ++i)
    for (const Snapshot& s : dumps[i].memories)
      out.push_back(LoadedMemory{i < files.size() ? files[i] : std::string(),
                                 &dumps[i], &s});
  return out;
}

std::string MemoryTitle(const Snapshot& s) {
  std::string title = absl::StrCat("node ", s.node, " memory ",
                                   HexId(s.memory_id), " (",
                                   MemoryKindName(s.kind));
  if (!s.name.empty() && s.name != MemoryKindName(s.kind))
    absl::StrAppend(&title, ", ", s.name);
  title += ")";
  return title;
}

bool SizeIsUpperBound(const Snapshot& s, const Allocation& a) {
  if (a.identity == 0) return false;
  const Identity* id = s.FindIdentity(a.identity);
  if (id == nullptr) return false;
  for (const auto& [key, value] : id->attributes)
    if (key == kSizeAttribute && value == kSizeUpperBound) return true;
  return false;
}

uint64_t BoundedBytes(const Snapshot& s) {
  uint64_t bytes = 0;
  for (const Allocation& a : s.allocations)
    if (SizeIsUpperBound(s, a)) bytes += a.size;
  return bytes;
}

std::string FormatAllocationLine(const Snapshot& s, const Allocation& a) {
  const bool bound = SizeIsUpperBound(s, a);
  std::string line = absl::StrCat(
      "instance ", HexId(a.instance), " ", Range(a.offset, a.size),
      " size ", bound ? "<= " : "", FormatSizeExact(a.size));
  if (!bound) absl::StrAppend(&line, " align ", a.alignment());
  absl::StrAppend(&line, " ", AllocationStateName(a.state), " ",
                  AllocationKindName(a.kind));
  if (a.pinned()) line += " pinned";
  if (a.flags & kFromRedistrict) line += " redistricted";
  if (a.flags & kWasDeferred) line += " was-deferred";
  line += IdentityText(s, a.identity);
  return line;
}

std::string FormatMemoryReport(const Snapshot& s,
                               const ReportOptions& options) {
  const std::vector<Hole> holes = FindHoles(s);
  const FreeSummary sum = SummarizeHoles(s, holes);
  const uint64_t bounded = BoundedBytes(s);
  std::string out = MemoryTitle(s) + "\n";
  if (s.capacity_known)
    absl::StrAppend(&out, "  capacity            ", FormatSizeExact(s.capacity),
                    "\n");
  else
    absl::StrAppend(&out, "  capacity            unknown (the log never said)\n");
  absl::StrAppend(&out, "  used                ", FormatSizeExact(sum.used),
                  " in ", sum.allocation_count, " allocation(s); peak ",
                  FormatSizeExact(s.counters.peak_used), "\n");
  if (bounded > 0)
    absl::StrAppend(&out, "                      of which ",
                    FormatSizeExact(bounded),
                    " are upper bounds (redistricted pieces; see notes)\n");
  out += "  use by kind        ";
  const auto kinds = UsageByKind(s);
  bool any_kind = false;
  for (int k = 0; k < kAllocationKindCount; ++k) {
    if (kinds[k].count == 0) continue;
    absl::StrAppend(&out, any_kind ? ";" : "", " ",
                    AllocationKindName(static_cast<AllocationKind>(k)), ": ",
                    kinds[k].count, " (", FormatHumanSize(kinds[k].bytes), ")");
    any_kind = true;
  }
  if (!any_kind) out += " none";
  out += "\n";
  if (s.addressed) {
    absl::StrAppend(&out, "  total free          ",
                    FormatSizeExact(sum.total_free),
                    " (addressed memory: one allocation per range, no holes)\n");
  } else {
    absl::StrAppend(&out, "  total free          ",
                    FormatSizeExact(sum.total_free),
                    s.capacity_known ? "" : " (between allocations only: "
                                            "capacity unknown)",
                    bounded > 0 ? " (a lower bound)" : "", "\n");
    absl::StrAppend(&out, "  largest hole        ",
                    FormatSizeExact(sum.largest_hole), "\n");
    absl::StrAppend(&out, "  holes               ", sum.hole_count,
                    "; fragmentation ", Percent(sum.fragmentation),
                    " (1 - largest hole / total free)\n");
    const std::vector<Hole> top = TopHoles(holes, options.top_holes);
    if (!top.empty()) {
      absl::StrAppend(&out, "  largest holes (top ", options.top_holes,
                      ", largest first)\n");
      for (const Hole& h : top)
        absl::StrAppend(&out, "    ", Range(h.offset, h.size), "  ",
                        FormatSizeExact(h.size), "\n");
      out += "  hole histogram (by size)\n";
      const HoleHistogram hist = HoleSizeHistogram(holes);
      for (int b = 0; b < 64; ++b) {
        if (hist[b] == 0) continue;
        const std::string lo = FormatHumanSize(uint64_t{1} << b);
        const std::string hi =
            b == 63 ? "16 EiB" : FormatHumanSize(uint64_t{1} << (b + 1));
        absl::StrAppend(&out, "    [", lo, ", ", hi, ")  ", hist[b], "\n");
      }
    }
  }
  absl::StrAppend(&out, "  deferred requests   ", s.pending.size(), "\n");
  for (const PendingRequest& p : s.pending) {
    absl::StrAppend(&out, "    instance ", HexId(p.instance), " ");
    if (p.size == 0 && p.identity != 0)
      out += "size unknown";
    else
      absl::StrAppend(&out, "size ", FormatSizeExact(p.size), " align ",
                      p.alignment);
    if (p.planned_offset != kNoOffset)
      absl::StrAppend(&out, " planned at ", p.planned_offset);
    out += IdentityText(s, p.identity) + "\n";
  }
  size_t releases = 0;
  for (const Allocation& a : s.allocations)
    if (a.state != AllocationState::kLive) ++releases;
  absl::StrAppend(&out, "  pending releases    ", releases, "\n");
  for (const Allocation& a : s.allocations)
    if (a.state != AllocationState::kLive)
      absl::StrAppend(&out, "    ", FormatAllocationLine(s, a), "\n");
  absl::StrAppend(&out, "  failures            ", s.counters.failures,
                  " in all", s.failures.empty() ? "" : "; most recent last",
                  "\n");
  const size_t first_failure =
      s.failures.size() > options.failures_shown
          ? s.failures.size() - options.failures_shown
          : 0;
  if (first_failure > 0)
    absl::StrAppend(&out, "    (", first_failure, " earlier not shown)\n");
  for (size_t i = first_failure; i < s.failures.size(); ++i) {
    const Failure& f = s.failures[i];
    absl::StrAppend(&out, "    instance ", HexId(f.instance),
                    f.eventual ? " (deferred, failed later)" : " (instant)");
    if (f.size == 0) {
      out += ": request size unknown (not in the source)\n";
      continue;
    }
    const uint64_t alignment = f.alignment == 0 ? 1 : f.alignment;
    absl::StrAppend(&out, ": request ", FormatSizeExact(f.size), " align ",
                    alignment, IdentityText(s, f.identity), "\n");
    absl::StrAppend(&out, "      now: ", CauseText(s, f.size, alignment),
                    " (total free ", FormatSizeExact(sum.total_free),
                    ", largest hole ", FormatSizeExact(sum.largest_hole),
                    ")\n");
    if (!s.addressed)
      out += BlockersBothObjectives(s, f.size, alignment, "      ");
  }
  uint64_t anomaly_total = 0;
  for (uint64_t n : s.counters.anomalies) anomaly_total += n;
  absl::StrAppend(&out, "  anomalies           ", anomaly_total);
  for (int k = 0; k < kAnomalyKindCount; ++k)
    if (s.counters.anomalies[k])
      absl::StrAppend(&out, "; ", AnomalyKindName(static_cast<AnomalyKind>(k)),
                      ": ", s.counters.anomalies[k]);
  out += "\n";
  const size_t first_anomaly =
      s.anomalies.size() > options.anomalies_shown
          ? s.anomalies.size() - options.anomalies_shown
          : 0;
  for (size_t i = first_anomaly; i < s.anomalies.size(); ++i) {
    const Anomaly& a = s.anomalies[i];
    absl::StrAppend(&out, "    event ", a.sequence, ": ",
                    AnomalyKindName(a.kind), " instance ",
                    HexId(a.instance));
    if (a.size) absl::StrAppend(&out, " ", Range(a.offset, a.size));
    if (a.other_instance)
      absl::StrAppend(&out, " with ", HexId(a.other_instance));
    out += "\n";
  }
  if (!s.exact)
    out += "  NOT EXACT: tracking was off for some events\n";
  return out;
}

std::string FormatDumpNotes(const DumpFile& dump, const std::string& file) {
  std::string out = absl::StrCat(file.empty() ? "dump" : file, ": source ",
                                 dump.source.empty() ? "?" : dump.source,
                                 ", node ", dump.node, ", format version ",
                                 dump.version, "\n");
  if (dump.notes.empty()) return out;
  out += "  what the source could not tell, and how it was read:\n";
  for (const std::string& note : dump.notes)
    absl::StrAppend(&out, "  - ", note, "\n");
  return out;
}

std::string FormatReport(const std::vector<DumpFile>& dumps,
                         const std::vector<std::string>& files,
                         const ReportOptions& options) {
  std::string out;
  for (const LoadedMemory& m : ListMemories(dumps, files)) {
    out += FormatMemoryReport(*m.snapshot, options);
    out += "\n";
  }
  for (size_t i = 0; i < dumps.size(); ++i)
    out += FormatDumpNotes(dumps[i], i < files.size() ? files[i] : "");
  return out;
}

std::string FormatHoles(const Snapshot& s, size_t top) {
  const std::vector<Hole> holes = FindHoles(s);
  const FreeSummary sum = SummarizeHoles(s, holes);
  std::string out = MemoryTitle(s) + "\n";
  if (s.addressed) {
    absl::StrAppend(&out, "  addressed memory: no holes; free ",
                    FormatSizeExact(sum.total_free), "\n");
    return out;
  }
  absl::StrAppend(&out, "  ", sum.hole_count, " hole(s), total free ",
                  FormatSizeExact(sum.total_free), ", largest ",
                  FormatSizeExact(sum.largest_hole), ", fragmentation ",
                  Percent(sum.fragmentation),
                  s.capacity_known ? "" : " (capacity unknown: tail excluded)",
                  "\n");
  if (BoundedBytes(s) > 0)
    out += "  (beside redistricted pieces of upper-bound size, holes are "
           "lower bounds)\n";
  const std::vector<Hole> largest = TopHoles(holes, top);
  absl::StrAppend(&out, "  largest ", largest.size(), ", largest first:\n");
  for (const Hole& h : largest)
    absl::StrAppend(&out, "    offset ", h.offset, "  end ", h.end(), "  ",
                    FormatSizeExact(h.size), "\n");
  return out;
}

std::string FormatBlockers(const Snapshot& s, uint64_t size,
                           uint64_t alignment, BlockerObjective objective) {
  std::string out = MemoryTitle(s) + "\n";
  absl::StrAppend(&out, "  request ", FormatSizeExact(size), " align ",
                  alignment, "\n");
  const FitResult fit = FirstFit(s, size, alignment);
  if (fit.fits) {
    absl::StrAppend(&out, "  fits now: first-fit places it at offset ",
                    fit.offset, "\n");
    return out;
  }
  const FreeSummary sum = Summarize(s);
  absl::StrAppend(&out, "  does not fit: ", CauseText(s, size, alignment),
                  " (total free ", FormatSizeExact(sum.total_free),
                  ", largest hole ", FormatSizeExact(sum.largest_hole), ")\n");
  const BlockerWindow w = FindBlockers(s, size, alignment, objective);
  out += WindowText(s, w,
                    objective == BlockerObjective::kFewestBytes
                        ? "blockers (fewest bytes)"
                        : "blockers (fewest allocations)",
                    "  ");
  return out;
}

namespace {

// What changed in place, each attribute as "name before -> after":
// "state live -> release_pending; identity (none) -> fields=a,b".
std::string ChangeText(const Snapshot& before, const Snapshot& after,
                       const AllocationChange& c) {
  std::vector<std::string> parts;
  const Allocation &x = c.before, &y = c.after;
  if (c.what & kStateChanged)
    parts.push_back(absl::StrCat("state ", AllocationStateName(x.state), " -> ",
                                 AllocationStateName(y.state)));
  if (c.what & kIdentityChanged) {
    const auto text = [](const Snapshot& s, uint32_t id) {
      const std::string t = IdentityText(s, id);
      return t.empty() ? std::string("(none)") : t.substr(1);
    };
    parts.push_back(absl::StrCat("identity ", text(before, x.identity), " -> ",
                                 text(after, y.identity)));
  }
  if (c.what & kPinnedChanged)
    parts.push_back(x.pinned() ? "pinned -> not pinned" : "not pinned -> pinned");
  if (c.what & kFlagsChanged) {
    const auto flags = [](uint8_t f) {
      std::string t;
      if (f & kFromRedistrict) t += " redistricted";
      if (f & kWasDeferred) t += " was-deferred";
      return t.empty() ? std::string("none") : t.substr(1);
    };
    parts.push_back(absl::StrCat("flags ", flags(x.flags), " -> ", flags(y.flags)));
  }
  if (c.what & kKindChanged)
    parts.push_back(absl::StrCat("kind ", AllocationKindName(x.kind), " -> ",
                                 AllocationKindName(y.kind)));
  if (c.what & kAlignmentChanged)
    parts.push_back(absl::StrCat("alignment ", x.alignment(), " -> ", y.alignment()));
  return absl::StrJoin(parts, "; ");
}

}  // namespace

std::string FormatDiff(const Snapshot& before, const Snapshot& after) {
  const SnapshotDiff d = DiffSnapshots(before, after);
  std::string out = MemoryTitle(after) + "\n";
  if (!d.same_memory)
    absl::StrAppend(&out, "  (compared with ", MemoryTitle(before),
                    ": a different memory)\n");
  absl::StrAppend(&out, "  events ", d.before_sequence, " -> ",
                  d.after_sequence, "; ", d.unchanged_count,
                  " allocation(s) in both\n");
  absl::StrAppend(&out, "  used ", FormatSizeExact(d.before_summary.used),
                  " -> ", FormatSizeExact(d.after_summary.used), " (",
                  SignedSize(d.used_delta), ")\n");
  absl::StrAppend(&out, "  total free ",
                  FormatSizeExact(d.before_summary.total_free), " -> ",
                  FormatSizeExact(d.after_summary.total_free), " (",
                  SignedSize(d.total_free_delta), ")\n");
  absl::StrAppend(&out, "  largest hole ",
                  FormatSizeExact(d.before_summary.largest_hole), " -> ",
                  FormatSizeExact(d.after_summary.largest_hole), " (",
                  SignedSize(d.largest_hole_delta), ")\n");
  absl::StrAppend(&out, "  allocations ", d.before_summary.allocation_count,
                  " -> ", d.after_summary.allocation_count, "; holes ",
                  d.before_summary.hole_count, " -> ",
                  d.after_summary.hole_count, "; fragmentation ",
                  Percent(d.before_summary.fragmentation), " -> ",
                  Percent(d.after_summary.fragmentation), "\n");
  if (d.empty()) {
    out += "  no change at the offset level\n";
    return out;
  }
  absl::StrAppend(&out, "  added ", d.added.size(), "\n");
  for (const Allocation& a : d.added)
    absl::StrAppend(&out, "    + ", FormatAllocationLine(after, a), "\n");
  absl::StrAppend(&out, "  removed ", d.removed.size(), "\n");
  for (const Allocation& a : d.removed)
    absl::StrAppend(&out, "    - ", FormatAllocationLine(before, a), "\n");
  absl::StrAppend(&out, "  moved ", d.moved.size(), "\n");
  for (const AllocationMove& m : d.moved)
    absl::StrAppend(&out, "    ~ instance ", HexId(m.after.instance), " ",
                    Range(m.before.offset, m.before.size), " -> ",
                    Range(m.after.offset, m.after.size), "\n");
  absl::StrAppend(&out, "  changed in place ", d.changed.size(), "\n");
  for (const AllocationChange& c : d.changed)
    absl::StrAppend(&out, "    * instance ", HexId(c.after.instance), " ",
                    Range(c.after.offset, c.after.size), " ",
                    ChangeText(before, after, c), "\n");
  absl::StrAppend(&out, "  holes opened ", d.holes_opened.size(), "\n");
  for (const Hole& h : d.holes_opened)
    absl::StrAppend(&out, "    + ", Range(h.offset, h.size), "  ",
                    FormatSizeExact(h.size), "\n");
  absl::StrAppend(&out, "  holes closed ", d.holes_closed.size(), "\n");
  for (const Hole& h : d.holes_closed)
    absl::StrAppend(&out, "    - ", Range(h.offset, h.size), "  ",
                    FormatSizeExact(h.size), "\n");
  return out;
}

}  // namespace realm_shadow
