// realm_shadow/render/failure_report.h - a failed allocation in words: the
// one text of a failure that the report (`realm-shadow report`), the
// blocker answer (`realm-shadow blockers`) and the live side at the moment
// of failure (live/on_failure.cc, legion_glue's mapper) all print.
//
// A failure is told in three parts, each written here and nowhere else:
//   the request   "instance 0x4000000000000030 (instant): request 717.91 KiB
//                 (735140 B) align 32" and the identity of the instance;
//   its cause     "now: exhaustion (total free 128 KiB (131072 B), largest
//                 hole 128 KiB (131072 B))", judged on the picture at hand,
//                 which the report may have taken long after the failure;
//   its blockers  the cheapest windows of collectable allocations whose
//                 release makes it fit, by bytes and by count (one window
//                 when both objectives pick the same), grouped by an identity
//                 attribute, each allocation as FormatAllocationLine writes
//                 it (report.h).
// Each caller adds only what is its own: the report its per-memory sections
// around its list of failures; the live report a first line naming the
// memory, the memory's figures (the report's own sections, report.h) and
// where the dump went.
//
// And what would make it fit: the remedies (analysis/remedies.h), one line
// each with its figure and whether it was checked, those that fit first,
// least asked of the user first.  Written here for every face: the live
// report prints the ones that need no replay and names the command that
// gives the rest (`realm-shadow explain <dump>`), which prints them all.
//
// Where the source has no GC state (a stock log's rebuild,
// Snapshot::gc_state_known), every blocker window says that the source
// cannot tell which of its allocations are collectable.
//
// Layer render: text from a snapshot, nothing live.  Cost: the holes (one
// pass over the allocations), the cause, one or two blocker searches
// (linear, analysis.h FindBlockers) and one grouping of the blockers.
#ifndef REALM_SHADOW_RENDER_FAILURE_REPORT_H_
#define REALM_SHADOW_RENDER_FAILURE_REPORT_H_

#include <cstdint>
#include <string>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/analysis/remedies.h"
#include "realm_shadow/analysis/waste.h"
#include "realm_shadow/core/history.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"
#include "realm_shadow/render/report.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(render);

// Where a failure's text goes and how much of it.
struct FailureTextOptions {
  // Of the request's line; the cause and the windows are indented 2 more,
  // the windows' allocations 4 more.
  std::string indent = "    ";
  ListCut blockers;  // each window's allocations
  // "by <attribute>:" under each window of two blockers or more; "" for none.
  std::string group_attribute;
  // Also the window of fewest allocations, when it is another one.  Each
  // search is a pass over the allocations: the second took BM_FailureReport
  // (bench/on_failure_benchmark.cc, 100k allocations) from 3.9 to 6.4 ms
  // of CPU, so the live report, on the failing thread, does without.
  bool fewest_allocations_too = true;
};

// One failure of `snapshot`: the request, then (when its size is known) the
// cause in this picture and the blocker windows.  While placements are
// unknown the cause is too, and no window is sought.
std::string FormatFailure(const Snapshot& snapshot, const MemorySpace& space,
                          const Failure& failure,
                          const FailureTextOptions& options);

// Why `size` bytes at `alignment` do not fit in `snapshot`, in a word or
// two: "fragmentation", "exhaustion", "fits now", or, where a log's
// upper-bound sizes leave both open, "exhaustion or fragmentation (...)".
std::string FailureCauseText(const Snapshot& snapshot, uint64_t size,
                             uint64_t alignment);

// One blocker window under `label` ("blockers (fewest bytes)"): what it
// takes to release, where the request then goes, who holds the window (by
// `group_attribute`) and its allocations, cut by `cut`.  An addressed
// memory has no window: the released bytes make room wherever the device
// puts them.
std::string FormatBlockerWindow(const Snapshot& snapshot,
                                const BlockerWindow& window,
                                const std::string& label,
                                const std::string& indent, const ListCut& cut,
                                const std::string& group_attribute);

// The sentence of a blocker answer on a picture without GC state
// (Snapshot::gc_state_known false), one line under `indent`.
std::string FormatGcUnknown(const std::string& indent);

// The report printed at a failure, several lines ending in '\n': the memory
// ("realm-shadow: allocation failed in memory ..."), its figures (report.h
// FormatCapacityAndUse, FormatFreeSpace, and FormatDeferredRequests when
// any wait), then the snapshot's most recent failure of `instance` as
// FormatFailure writes it: the window of fewest bytes only, at most 16 of
// its allocations, the rest left to the dump; then the remedies that need
// no replay (release, wait with `history`, release-pinned).  The caller
// adds FormatDumpPointer, and FormatExplainPointer once a dump is written.
// Cost beyond the failure's text: a second FindBlockers and a first fit on
// a copy of the picture; with a history and an eventual failure, two
// StateAt (at most one segment of events each).
std::string FormatFailureReport(const Snapshot& snapshot, uint64_t instance,
                                const MemoryHistory* history = nullptr);

// The live report's last line: "  dump                <where>\n", where is a
// path or why there is none.
std::string FormatDumpPointer(const std::string& where);
// The line after it when the dump was written: the command that gives
// every remedy, capacity and allocator included (a replay of the history).
std::string FormatExplainPointer(const std::string& dump_path);

// ---- remedies -----------------------------------------------------------------

// One remedy on one line (no newline): its name, padded, then its figure
// and check when it fits, else its verdict and why; `judged` is the picture
// the remedies were found on (FailureRemedies::judged_at).
std::string FormatRemedyLine(const Snapshot& judged, const FailureRemedies& remedies,
                             RemedyKind kind);
// The same without the name.
std::string FormatRemedyText(const Snapshot& judged, const FailureRemedies& remedies,
                             RemedyKind kind);
// "remedies, ..." then OrderedRemedies, numbered where they fit ("1.",
// "2.") and marked "-" where they do not, each FormatRemedyLine, with the
// pinned allocations of release-pinned listed under it and the waste by
// group and instance under waste (report.h FormatWasteLines).  `indent` is the
// heading's; the lines are indented 2 more.  `group_by`: the attribute
// that groups the waste and the release window (GroupAttribute's; "":
// MostTellingAttribute).
std::string FormatRemedies(const Snapshot& judged, const FailureRemedies& remedies,
                           const std::string& indent, const std::string& group_by = "");

// Which picture the remedies were judged on, in words ("at event 2132;
// judged on the state just before it (rebuilt from the history)").
std::string FormatJudgedOn(const Snapshot& judged, const FailureRemedies& remedies);
// "cause: fragmentation (total free ..., largest hole ...)" on `judged`.
std::string FormatCause(const Snapshot& judged, const Failure& failure);
// A failure explained (`realm-shadow explain`, the end of `report`): the
// request (FormatFailure's first line), which picture it was judged on,
// the cause there, then FormatRemedies.
std::string FormatFailureExplanation(const Snapshot& judged,
                                     const FailureRemedies& remedies,
                                     const std::string& indent,
                                     const std::string& group_by = "");

}  // namespace realm_shadow

#endif  // REALM_SHADOW_RENDER_FAILURE_REPORT_H_
