// whatif/explain.h - `realm-shadow explain`: every recorded failure of a
// memory with its cause and every remedy (analysis/remedies.h: release,
// wait, release-pinned, waste; whatif/remedies.h: capacity, allocator), as the
// command's text, as JSON for scripts, and as the page's side-panel data.
//
// Each failure is judged on the best picture the dump holds: the state just
// before it when the memory's history holds that moment (StateAt), else the
// dump's own picture (the text says which).  A dump without a history still
// gets release and release-pinned; wait, capacity and allocator then say
// what is missing and how to get it (kHowToGetHistory).  Text and JSON say
// the same things; the text is render's (failure_report.h
// FormatFailureExplanation), one line per remedy.
//
// Cost per failure: the remedies' (analysis/remedies.h,
// whatif/remedies.h), the replays foremost; the memory's script is
// compiled once (whatif/from_dump.h).
#ifndef WHATIF_EXPLAIN_H_
#define WHATIF_EXPLAIN_H_

#include <cstddef>
#include <functional>
#include <string>

#include "realm_shadow/analysis/remedies.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/layers.h"
#include "realm_shadow/page/html_page.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(whatif);
namespace whatif {

struct ExplainOptions {
  // The replay remedies (capacity, allocator); off: kNotComputed.
  bool replay = true;
  // The most recent failures explained per memory (0: every one the
  // picture keeps, kRecentFailures at most).
  size_t failures_shown = 0;
  // What groups the waste and the release window (render/report.h
  // GroupAttribute's names; "": MostTellingAttribute).
  std::string group_by;
};

// Calls `visit` for each failure explained, oldest first, with its
// remedies and the picture they were judged on (valid during the call).
void ExplainFailures(
    const DumpFile& dump, const Snapshot& memory, const ExplainOptions& options,
    const std::function<void(const Snapshot& judged, const FailureRemedies&)>& visit);

// One memory as the command prints it: MemoryTitle, the failures counted,
// then each failure (FormatFailureExplanation); "no failure recorded" for
// a memory without one.
std::string FormatMemoryExplanation(const DumpFile& dump, const Snapshot& memory,
                                    const ExplainOptions& options);
// The same as one JSON object (docs/remedies.md lists its keys).
std::string MemoryExplanationJson(const DumpFile& dump, const Snapshot& memory,
                                  const ExplainOptions& options);
// The same as the page's plain data (html_page.h PageRemedies).
PageRemedies ToPageRemedies(const DumpFile& dump, const Snapshot& memory,
                            const ExplainOptions& options);

}  // namespace whatif
}  // namespace realm_shadow

#endif  // WHATIF_EXPLAIN_H_
