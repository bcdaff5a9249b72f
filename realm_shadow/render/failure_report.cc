// realm_shadow/render/failure_report.cc - a failure's text: its request, its
// cause and its blocker windows (failure_report.h).
#include "realm_shadow/render/failure_report.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "realm_shadow/core/text.h"

namespace realm_shadow {
namespace {

// Allocations a window of the live report lists; the dump has all of them.
constexpr size_t kReportedBlockers = 16;

// Groups named on a window's "by <attribute>:" line.
constexpr size_t kWindowGroups = 4;

// `snapshot` without its upper-bounded allocations: the most free space the
// truth can have.
Snapshot WithoutBounded(const Snapshot& s) {
  Snapshot copy = s;
  copy.allocations.erase(
      std::remove_if(copy.allocations.begin(), copy.allocations.end(),
                     [&](const Allocation& a) { return SizeIsUpperBound(s, a); }),
      copy.allocations.end());
  return copy;
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

// The window of fewest bytes, and of fewest allocations when asked for;
// one when they pick the same allocations.
std::string BlockerWindows(const Snapshot& s, uint64_t size, uint64_t alignment,
                           const std::string& indent,
                           const FailureTextOptions& options) {
  const ListCut& cut = options.blockers;
  const std::string& attribute = options.group_attribute;
  const BlockerWindow bytes =
      FindBlockers(s, size, alignment, BlockerObjective::kFewestBytes);
  if (!options.fewest_allocations_too)
    return FormatBlockerWindow(s, bytes, "blockers (fewest bytes)", indent, cut,
                               attribute);
  const BlockerWindow count =
      FindBlockers(s, size, alignment, BlockerObjective::kFewestAllocations);
  if (SameWindow(bytes, count))
    return FormatBlockerWindow(s, bytes,
                               "blockers (fewest bytes = fewest allocations)",
                               indent, cut, attribute);
  return FormatBlockerWindow(s, bytes, "blockers (fewest bytes)", indent, cut,
                             attribute) +
         FormatBlockerWindow(s, count, "blockers (fewest allocations)", indent,
                             cut, attribute);
}

// The snapshot's most recent failure of `instance`, or nullptr.
const Failure* MostRecentFailure(const Snapshot& s, uint64_t instance) {
  for (auto it = s.failures.rbegin(); it != s.failures.rend(); ++it)
    if (it->instance == instance) return &*it;
  return nullptr;
}

// "<indent>instance 0x... (instant): request 717.91 KiB (735140 B) align 32
// <identity>\n"; a failure the source cannot tell from a cancellation says
// so after "(instant)".
std::string RequestLine(const Snapshot& s, const Failure& f,
                        const std::string& indent) {
  std::string out =
      absl::StrCat(indent, "instance ", HexId(f.instance),
                   f.eventual ? " (deferred, failed later)" : " (instant)",
                   f.maybe_cancelled
                       ? absl::StrCat(" (", kMaybeCancelledText, ")")
                       : std::string());
  if (f.size == 0)
    return absl::StrCat(out, ": request size unknown (not in the source)",
                        IdentityText(s.identities, f.identity), "\n");
  absl::StrAppend(&out, ": request ", FormatSizeExact(f.size), " align ",
                  f.alignment == 0 ? 1 : f.alignment,
                  IdentityText(s.identities, f.identity), "\n");
  return out;
}

}  // namespace

std::string FailureCauseText(const Snapshot& s, uint64_t size,
                             uint64_t alignment) {
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

std::string FormatBlockerWindow(const Snapshot& s, const BlockerWindow& w,
                                const std::string& label,
                                const std::string& indent, const ListCut& cut,
                                const std::string& attribute) {
  std::string out;
  if (w.fits_already) {
    // An addressed memory's offsets are the device's to choose.
    if (s.addressed) return absl::StrCat(indent, label, ": fits now\n");
    return absl::StrCat(indent, label, ": fits now at offset ", w.placement,
                        "\n");
  }
  if (!w.found)
    return absl::StrCat(indent, label,
                        ": none (no window of collectable allocations makes it "
                        "fit: the request is larger than what pinned ranges "
                        "leave, or than the memory)\n");
  absl::StrAppend(&out, indent, label, ": release ", w.blockers.size(),
                  " allocation(s), ", FormatSizeExact(w.bytes_to_free));
  if (s.addressed)
    out += " (addressed memory: no window, the bytes released make room)\n";
  else
    absl::StrAppend(&out, "; window [", w.window_offset, ", ", w.window_end,
                    "), placed at ", w.placement, "\n");
  if (!s.gc_state_known) out += FormatGcUnknown(indent + "  ");
  if (!attribute.empty() && w.blockers.size() > 1) {
    // Who the window belongs to, in one line.
    const std::vector<AllocationGroup> groups =
        GroupAllocations(s, attribute, &w.blockers);
    absl::StrAppend(&out, indent, "  by ", attribute, ":");
    const size_t n = std::min(groups.size(), kWindowGroups);
    for (size_t i = 0; i < n; ++i)
      absl::StrAppend(&out, i ? ";" : "", " ", groups[i].value, " ",
                      groups[i].count, " (", FormatHumanSize(groups[i].bytes),
                      ")");
    if (n < groups.size())
      absl::StrAppend(&out, "; ", groups.size() - n, " more group(s)");
    out += "\n";
  }
  for (size_t i = 0; i < cut.Listed(w.blockers.size()); ++i)
    absl::StrAppend(&out, indent, "  ", FormatAllocationLine(s, w.blockers[i]),
                    "\n");
  out += cut.MoreLine(w.blockers.size(), indent + "  ");
  return out;
}

std::string FormatFailure(const Snapshot& s, const MemorySpace& space,
                          const Failure& f, const FailureTextOptions& options) {
  const std::string& indent = options.indent;
  std::string out = RequestLine(s, f, indent);
  if (f.size == 0) return out;
  const uint64_t alignment = f.alignment == 0 ? 1 : f.alignment;
  const FreeSummary& sum = space.summary;
  if (!space.placed())
    return absl::StrCat(out, indent,
                        "  now: cause unknown (placements unknown; at least ",
                        FormatSizeExact(sum.used + space.unplaced.bytes),
                        " used)\n");
  absl::StrAppend(&out, indent, "  now: ", FailureCauseText(s, f.size, alignment),
                  " (total free ", FormatSizeExact(sum.total_free),
                  ", largest hole ", FormatSizeExact(sum.largest_hole), ")\n");
  out += BlockerWindows(s, f.size, alignment, indent + "  ", options);
  return out;
}

std::string FormatFailureReport(const Snapshot& s, uint64_t instance,
                                const MemoryHistory* history) {
  const MemorySpace space = MeasureSpace(s, /*keep_holes=*/false);
  const ListCut cut{kReportedBlockers, "see the dump"};
  std::string out = "realm-shadow: allocation failed in memory " +
                    HexId(s.memory_id) + " (" + MemoryKindName(s.kind);
  if (!s.name.empty()) out += " \"" + OneLine(s.name) + "\"";
  out += ", node " + std::to_string(s.node) + ")\n";
  out += FormatCapacityAndUse(s, space);
  out += FormatFreeSpace(s, space);
  if (!s.pending.empty()) out += FormatDeferredRequests(s, cut);
  out += "  failure\n";
  const Failure* failure = MostRecentFailure(s, instance);
  if (failure == nullptr) {
    out += "    instance " + HexId(instance) +
           ": not among the picture's recent failures (size unknown)\n";
    return out;
  }
  out += FormatFailure(s, space, *failure,
                       FailureTextOptions{"    ", cut, MostTellingAttribute(s),
                                          /*fewest_allocations_too=*/false});
  // The history the live side holds ends at this picture; the remedies that
  // need no replay, judged on it.
  out += FormatRemedies(s, FindRemedies(s, *failure, history), "    ");
  return out;
}

std::string FormatDumpPointer(const std::string& where) {
  return "  dump                " + where + "\n";
}

std::string FormatExplainPointer(const std::string& dump_path) {
  return "  more remedies       realm-shadow explain " + dump_path +
         " (capacity, allocator: a replay of the history)\n";
}

std::string FormatGcUnknown(const std::string& indent) {
  return indent +
         "GC state unknown: the source (a stock log) cannot tell which of "
         "these are collectable; Legion keeps valid ones (a tracked run's "
         "dump says which)\n";
}

}  // namespace realm_shadow

// ---- remedies -----------------------------------------------------------------

namespace realm_shadow {
namespace {

// Instances listed on one line ("0x1, 0x2, 0x3 and 4 more").
constexpr size_t kInstancesOnALine = 4;
// Pinned allocations listed under release-pinned.
constexpr size_t kPinnedListed = 8;

std::string Range(uint64_t offset, uint64_t end) {
  return absl::StrCat("[", offset, ", ", end, ")");
}

std::string ReleaseText(const Snapshot& s, const ReleaseRemedy& r) {
  const BlockerWindow& w = r.window;
  std::string out = absl::StrCat("release ", w.blockers.size(),
                                 r.gc_state_known ? " collectable" : "",
                                 " allocation(s), ", FormatSizeExact(w.bytes_to_free));
  if (!r.gc_state_known)
    out += " if Legion may collect them (GC state unknown: a stock log cannot tell "
           "which are collectable)";
  if (s.addressed)
    out += " (addressed memory: the bytes released make room)";
  else
    absl::StrAppend(&out, ", window ", Range(w.window_offset, w.window_end));
  // Releases already queued need no one to ask for them, only their
  // preconditions to fire: the wait remedy's business.
  size_t queued = 0;
  for (const Allocation& a : w.blockers) queued += a.state != AllocationState::kLive;
  if (queued > 0)
    absl::StrAppend(&out, " (", queued, " of them already queued for release: they ",
                    "need their preconditions to fire, see wait)");
  if (r.checked)
    absl::StrAppend(&out, "; checked: first fit without them places it at ",
                    r.placement);
  else
    out += "; not checked: first fit without them does not place it";
  return out;
}

std::string PinnedText(const Snapshot& s, const ReleaseRemedy& r) {
  const BlockerWindow& w = r.window;
  std::string out = absl::StrCat(
      "make ", r.pinned.size(), " pinned allocation(s) collectable (",
      FormatSizeExact(r.pinned_bytes), ") and release them with ",
      w.blockers.size() - r.pinned.size(), " collectable one(s), ",
      FormatSizeExact(w.bytes_to_free), " in all");
  if (!s.addressed) absl::StrAppend(&out, ", window ", Range(w.window_offset, w.window_end));
  if (r.checked)
    absl::StrAppend(&out, "; checked: first fit without them places it at ",
                    r.placement);
  out += "; Legion keeps a valid instance: raise its GC priority above "
         "LEGION_GC_NEVER_PRIORITY (higher priorities are collected first) or "
         "drop the mapper's acquire; one a running task maps goes when the task ends";
  return out;
}

std::string WaitText(const WaitRemedy& w) {
  size_t by_fate[4] = {};
  for (const WaitRemedy::CountedOn& c : w.counted_on) ++by_fate[static_cast<int>(c.fate)];
  std::string out = absl::StrCat("it counted on ", w.counted_on.size(), " release(s), ",
                                 FormatSizeExact(w.counted_on_bytes));
  if (w.plan_known)
    absl::StrAppend(&out, ", under its plan at ", w.plan);
  else
    out += ", every one pending when it was deferred (its plan is unknown)";
  absl::StrAppend(&out, " (deferred at event ", w.deferred_at + 1, "):");
  const char* sep = " ";
  for (ReleaseFate fate : {ReleaseFate::kCancelled, ReleaseFate::kStillPending,
                           ReleaseFate::kReady, ReleaseFate::kCompleted}) {
    const size_t n = by_fate[static_cast<int>(fate)];
    if (n == 0) continue;
    absl::StrAppend(&out, sep, n, " ", ReleaseFateName(fate));
    sep = ", ";
  }
  if (w.checked)
    absl::StrAppend(&out, "; with every one completed it is placed at ", w.placement,
                    ": checked on the state just before its failure");
  return out;
}

// "0x1 (event 7), 0x2 (event 9) and 3 more" of the releases of one fate.
std::string FateInstances(const WaitRemedy& w, ReleaseFate fate) {
  std::string out;
  size_t n = 0;
  for (const WaitRemedy::CountedOn& c : w.counted_on) {
    if (c.fate != fate) continue;
    if (n++ < kInstancesOnALine)
      absl::StrAppend(&out, n > 1 ? ", " : "", HexId(c.allocation.instance),
                      " (event ", c.fate_sequence + 1, ")");
  }
  if (n > kInstancesOnALine) absl::StrAppend(&out, " and ", n - kInstancesOnALine, " more");
  return out;
}

std::string FlagValue(const CapacityRemedy& c, uint64_t value) {
  return absl::StrCat(c.flag, " ", value);
}

std::string ProbeText(const CapacityProbe& p) {
  return p.passes ? std::string("passes") : "fails (" + p.failure + ")";
}

std::string CapacityText(const CapacityRemedy& c) {
  std::string out;
  if (!c.flag.empty()) {
    absl::StrAppend(&out, FlagValue(c, c.flag_value), " (", c.flag_unit);
    if (!c.legate_flag.empty())
      absl::StrAppend(&out, "; Legate: ", c.legate_flag, " ", c.flag_value);
    absl::StrAppend(&out, "), from the smallest capacity found past this failure, ",
                    FormatSizeExact(c.min_capacity), ", rounded up");
  } else {
    absl::StrAppend(&out, FormatSizeExact(c.min_capacity),
                    " (no command-line flag sizes this kind of memory)");
  }
  if (c.run_capacity_known)
    absl::StrAppend(&out, "; the run had ", FormatSizeExact(c.run_capacity));
  if (c.at_flag.run) {
    absl::StrAppend(&out, "; checked: a replay at exactly ",
                    c.flag.empty() ? FormatSizeExact(c.at_flag.capacity)
                                   : absl::StrCat(c.flag_value, " ", c.flag_unit),
                    " ", ProbeText(c.at_flag));
    if (c.values_tried_above > 0)
      absl::StrAppend(&out, " (the rounded value failed: placement is not monotone in "
                            "the capacity; ", c.values_tried_above, " value(s) up tried)");
  }
  if (c.one_below.run) {
    absl::StrAppend(&out, ", at one ", c.flag.empty() ? "unit" : c.flag_unit, " less ",
                    ProbeText(c.one_below));
    if (c.one_below.passes)
      out += " (placement is not monotone in the capacity: the search did not meet it)";
  }
  out += "; what gets past this failure, not what the whole run needs (the "
         "replay stops at it)";
  return out;
}

std::string PolicyMin(const AllocatorRemedy::Policy& p) {
  return p.min_found ? FormatSizeExact(p.min_capacity) : std::string("none found");
}

std::string AllocatorText(const AllocatorRemedy& a) {
  std::string out;
  for (size_t i = 0; i < a.policies.size(); ++i) {
    const AllocatorRemedy::Policy& p = a.policies[i];
    absl::StrAppend(&out, i ? "; " : "", p.policy,
                    p.avoids ? " avoids it at the run's capacity"
                             : " does not avoid it at the run's capacity",
                    " (min capacity ", PolicyMin(p), ")");
  }
  if (a.realm_min_found)
    absl::StrAppend(&out, "; Realm's own allocator needs ",
                    FormatSizeExact(a.realm_min_capacity));
  if (a.verdict == RemedyVerdict::kFits) out += "; checked: replays of the run up to this failure";
  return out;
}

std::string WasteText(const WasteRemedy& w) {
  std::string out = FormatWasteSummary(w.waste);
  const RecoveryFit& r = w.recovery;
  if (!r.fits_after_recovery) return out;
  absl::StrAppend(&out, "; recovered, the largest hole grows from ",
                  FormatHumanSize(r.largest_hole_now), " to ",
                  FormatHumanSize(r.largest_hole_after), " and first fit finds room at ",
                  r.placement, ", inside ", r.recreate.size(), " instance(s)");
  if (r.pinned_in_recreate > 0)
    absl::StrAppend(&out, " (", r.pinned_in_recreate, " pinned)");
  out += " that would have to be made again at their useful size: an upper bound, "
         "not checked";
  return out;
}

std::string StatusText(const RemedyStatus& st) {
  switch (st.verdict) {
    case RemedyVerdict::kNotApplicable: return "does not apply: " + st.reason;
    case RemedyVerdict::kDoesNotFit: return "does not fit: " + st.reason;
    case RemedyVerdict::kUnknown: return "unknown: needs " + st.missing;
    case RemedyVerdict::kNotComputed: return "not computed";
    case RemedyVerdict::kFits: break;
  }
  return "";
}

std::string Padded(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

std::string FormatRemedyLine(const Snapshot& s, const FailureRemedies& r,
                             RemedyKind kind) {
  return Padded(RemedyKindName(kind), 16) + FormatRemedyText(s, r, kind);
}

std::string FormatRemedyText(const Snapshot& s, const FailureRemedies& r,
                             RemedyKind kind) {
  const RemedyStatus& st = r.Status(kind);
  std::string text;
  if (st.verdict == RemedyVerdict::kFits) {
    switch (kind) {
      case RemedyKind::kRelease: text = ReleaseText(s, r.release); break;
      case RemedyKind::kWait: text = WaitText(r.wait); break;
      case RemedyKind::kCapacity: text = CapacityText(r.capacity); break;
      case RemedyKind::kReleasePinned: text = PinnedText(s, r.release_pinned); break;
      case RemedyKind::kWaste: text = WasteText(r.waste); break;
      case RemedyKind::kAllocator: text = AllocatorText(r.allocator); break;
    }
  } else {
    text = StatusText(st);
    // What was found, where it says more than the verdict.
    if (kind == RemedyKind::kAllocator && !r.allocator.policies.empty())
      text += " (" + AllocatorText(r.allocator) + ")";
    if (kind == RemedyKind::kWait && st.verdict == RemedyVerdict::kDoesNotFit)
      text = "does not fit: " + WaitText(r.wait) + "; " + st.reason;
    if (kind == RemedyKind::kWaste && st.verdict == RemedyVerdict::kDoesNotFit)
      text += " (" + WasteText(r.waste) + ")";
  }
  return text;
}

std::string FormatRemedies(const Snapshot& s, const FailureRemedies& r,
                           const std::string& indent, const std::string& group_by) {
  std::string out = indent +
                    "remedies (what would make it fit, least asked of you first; "
                    "\"checked\": verified by first fit or a replay)\n";
  const std::string in = indent + "  ";
  int rank = 0;
  for (RemedyKind kind : OrderedRemedies(r)) {
    const bool fits = r.Status(kind).verdict == RemedyVerdict::kFits;
    absl::StrAppend(&out, in, fits ? absl::StrCat(++rank, ". ") : std::string("-  "),
                    FormatRemedyLine(s, r, kind), "\n");
    const std::string under = in + "     ";
    if (kind == RemedyKind::kRelease && fits && r.release.window.blockers.size() > 1) {
      const std::string attribute = group_by.empty() ? MostTellingAttribute(s) : group_by;
      if (!attribute.empty()) {
        const std::vector<AllocationGroup> groups =
            GroupAllocations(s, attribute, &r.release.window.blockers);
        absl::StrAppend(&out, under, "by ", attribute, ":");
        for (size_t i = 0; i < groups.size() && i < kWindowGroups; ++i)
          absl::StrAppend(&out, i ? ";" : "", " ", groups[i].value, " ", groups[i].count,
                          " (", FormatHumanSize(groups[i].bytes), ")");
        if (groups.size() > kWindowGroups)
          absl::StrAppend(&out, "; ", groups.size() - kWindowGroups, " more group(s)");
        out += "\n";
      }
    }
    if (kind == RemedyKind::kWait && r.wait.verdict != RemedyVerdict::kUnknown &&
        r.wait.verdict != RemedyVerdict::kNotApplicable)
      for (ReleaseFate fate : {ReleaseFate::kCancelled, ReleaseFate::kStillPending}) {
        const std::string list = FateInstances(r.wait, fate);
        if (!list.empty())
          absl::StrAppend(&out, under, ReleaseFateName(fate), ": ", list, "\n");
      }
    if (kind == RemedyKind::kWaste && (r.waste.verdict == RemedyVerdict::kFits ||
                                       r.waste.verdict == RemedyVerdict::kDoesNotFit))
      out += FormatWasteLines(s, r.waste.waste, group_by, under);
    if (kind == RemedyKind::kReleasePinned && fits) {
      const ListCut cut{kPinnedListed, "see the dump"};
      for (size_t i = 0; i < cut.Listed(r.release_pinned.pinned.size()); ++i) {
        const ReleaseRemedy::Pinned& p = r.release_pinned.pinned[i];
        absl::StrAppend(&out, under, "instance ", HexId(p.allocation.instance), " ",
                        FormatSizeExact(p.allocation.size), ": ",
                        p.reason.empty() ? "why it is valid was not recorded" : p.reason);
        if (!p.priority.empty()) absl::StrAppend(&out, "; gc_priority ", p.priority);
        out += IdentityText(s.identities, p.allocation.identity) + "\n";
      }
      out += cut.MoreLine(r.release_pinned.pinned.size(), under);
    }
  }
  return out;
}

std::string FormatJudgedOn(const Snapshot& s, const FailureRemedies& r) {
  const Failure& f = r.failure;
  if (r.judged_before_failure)
    return absl::StrCat("at event ", f.sequence + 1,
                        "; judged on the state just before it (rebuilt from the history)");
  if (s.sequence == f.sequence + 1)
    return absl::StrCat("at event ", f.sequence + 1,
                        "; judged on the picture right after it");
  return absl::StrCat("at event ", f.sequence + 1, "; judged on the picture after event ",
                      s.sequence,
                      " (no history holds the moment of the failure: the memory may "
                      "have changed since)");
}

std::string FormatCause(const Snapshot& s, const Failure& f) {
  if (f.size == 0) return "cause: unknown (the request's size is not in the source)";
  const MemorySpace space = MeasureSpace(s, /*keep_holes=*/false);
  if (!space.placed())
    return absl::StrCat("cause: unknown (placements unknown; at least ",
                        FormatSizeExact(space.summary.used + space.unplaced.bytes),
                        " used)");
  const uint64_t alignment = f.alignment == 0 ? 1 : f.alignment;
  return absl::StrCat("cause: ", FailureCauseText(s, f.size, alignment), " (total free ",
                      FormatSizeExact(space.summary.total_free), ", largest hole ",
                      FormatSizeExact(space.summary.largest_hole), ")");
}

std::string FormatFailureExplanation(const Snapshot& s, const FailureRemedies& r,
                                     const std::string& indent,
                                     const std::string& group_by) {
  const std::string in = indent + "  ";
  return absl::StrCat(RequestLine(s, r.failure, indent), in, FormatJudgedOn(s, r), "\n",
                      in, FormatCause(s, r.failure), "\n",
                      FormatRemedies(s, r, in, group_by));
}

}  // namespace realm_shadow
