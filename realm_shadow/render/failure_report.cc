// realm_shadow/render/failure_report.cc - the failure report's text.
#include "realm_shadow/render/failure_report.h"

#include <cstdio>
#include <string>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/core/text.h"
#include "realm_shadow/render/report.h"

namespace realm_shadow {
namespace {

// Blockers listed in the report; the dump has all of them.
constexpr size_t kReportedBlockers = 16;

std::string Count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

std::string FormatFailureReport(const Snapshot& s, uint64_t instance) {
  const Failure* failure = nullptr;
  for (auto it = s.failures.rbegin(); it != s.failures.rend(); ++it) {
    if (it->instance == instance) {
      failure = &*it;
      break;
    }
  }
  const FreeSummary summary = Summarize(s);

  std::string out = "realm-shadow: allocation failed in memory " +
                    HexId(s.memory_id) + " (" + MemoryKindName(s.kind);
  if (!s.name.empty()) out += " \"" + OneLine(s.name) + "\"";
  out += ", node " + std::to_string(s.node) + ")\n";

  out += "  request        ";
  if (failure == nullptr || failure->size == 0) {
    out += "instance " + HexId(instance) +
           ", size unknown (not among the snapshot's recent failures)\n";
  } else {
    out += FormatSizeExact(failure->size) + ", alignment " +
           std::to_string(failure->alignment) + ", instance " +
           HexId(instance) +
           (failure->eventual ? ", deferred then failed" : ", failed at once") +
           IdentityText(s.identities, failure->identity) + "\n";
  }
  out +=
      "  capacity       " +
      (s.capacity_known ? FormatSizeExact(s.capacity)
                        : std::string("unknown")) +
      "\n";
  out += "  used           " + FormatSizeExact(summary.used) + " in " +
         Count(summary.allocation_count, "allocation") + "\n";
  out += "  total free     " + FormatSizeExact(summary.total_free) + " in " +
         Count(summary.hole_count, "hole") + "\n";
  out += "  largest hole   " + FormatSizeExact(summary.largest_hole) + "\n";
  char frac[32];
  std::snprintf(frac, sizeof frac, "%.3f", summary.fragmentation);
  out += std::string("  fragmentation  ") + frac +
         " (1 - largest hole / total free)\n";
  if (!s.pending.empty()) {
    out += "  pending        " + Count(s.pending.size(), "deferred request") +
           " waiting on releases\n";
  }
  if (failure == nullptr || failure->size == 0) return out;

  const FailureCause cause =
      ClassifyRequest(s, failure->size, failure->alignment);
  out += "  cause          ";
  switch (cause) {
    case FailureCause::kFragmentation:
      out += "fragmentation: " + FormatHumanSize(summary.total_free) +
             " free in total, but no hole holds " +
             FormatHumanSize(failure->size) + " at alignment " +
             std::to_string(failure->alignment) + "\n";
      break;
    case FailureCause::kExhaustion:
      out += "exhaustion: only " + FormatHumanSize(summary.total_free) +
             " free in total for a request of " +
             FormatHumanSize(failure->size) + "\n";
      break;
    case FailureCause::kFits:
      out += "fits now: the memory changed after the failure\n";
      break;
  }
  if (cause == FailureCause::kFits) return out;

  const BlockerWindow window =
      FindBlockers(s, failure->size, failure->alignment);
  if (!window.found) {
    out +=
        "  blockers       none: no window of collectable allocations "
        "makes it fit (pinned allocations, or larger than the memory)\n";
    return out;
  }
  out += "  blockers       release " +
         Count(window.blockers.size(), "allocation") + " (" +
         FormatHumanSize(window.bytes_to_free) + ") in [" +
         std::to_string(window.window_offset) + ", " +
         std::to_string(window.window_end) + ") to place it at offset " +
         std::to_string(window.placement) + ":\n";
  size_t shown = 0;
  for (const Allocation& a : window.blockers) {
    if (shown++ == kReportedBlockers) {
      out += "    ... and " +
             std::to_string(window.blockers.size() - kReportedBlockers) +
             " more (see the dump)\n";
      break;
    }
    out += "    " + HexId(a.instance) + "  offset " + std::to_string(a.offset) +
           "  size " + FormatHumanSize(a.size) + "  " +
           AllocationKindName(a.kind) +
           (a.state != AllocationState::kLive
                ? std::string(" (") + AllocationStateName(a.state) + ")"
                : std::string()) +
           IdentityText(s.identities, a.identity) + "\n";
  }
  return out;
}

}  // namespace realm_shadow
