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
  std::string out =
      absl::StrCat(indent, "instance ", HexId(f.instance),
                   f.eventual ? " (deferred, failed later)" : " (instant)");
  if (f.size == 0)
    return absl::StrCat(out, ": request size unknown (not in the source)",
                        IdentityText(s.identities, f.identity), "\n");
  const uint64_t alignment = f.alignment == 0 ? 1 : f.alignment;
  absl::StrAppend(&out, ": request ", FormatSizeExact(f.size), " align ",
                  alignment, IdentityText(s.identities, f.identity), "\n");
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

std::string FormatFailureReport(const Snapshot& s, uint64_t instance) {
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
  return out;
}

std::string FormatDumpPointer(const std::string& where) {
  return "  dump                " + where + "\n";
}

}  // namespace realm_shadow
