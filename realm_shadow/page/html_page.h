// realm_shadow/page/html_page.h - the memory map page: one self-contained
// HTML file that shows every memory of one or two dumps as a zoomable
// address axis.
//
// Layer page.  The page needs no network: its script and styles are inline
// (the template in realm_shadow/page/template/ is compiled into the binary) and
// the data are embedded compactly, written by the same JSON writer as the
// dump's JSON (dump/internal/json_writer.h).  Per memory, the allocations travel as
// columns of LEB128 varints in base64 (offsets as deltas from the previous
// one, the instance's two 32-bit halves as deltas, size, identity; kind,
// state and flags packed in one byte): a million allocations of the perf
// fixture make a page of 11.9 MB where fixed-width arrays took 38.8 MB
// and JSON objects would take about 150 MB; offsets and sizes are exact in
// the page below 2^52 bytes.  Identity attributes are a string
// table shared by all memories of a dump.
//
// Everything the numbers depend on comes from analysis.h (holes, summary,
// top-k, use by kind, FirstFit, FindBlockers for each recorded failure), so
// the page agrees with `realm-shadow report`.  With two dumps the second is
// compared with the first, memory by memory and instance by instance
// (added, removed, moved or resized), and the page can show either one.
// Blocks are coloured by kind or by any identity attribute (the top groups
// by bytes get a colour each, with a legend), and the rows of a dump of
// several nodes are grouped by node.
//
// Cost: linear in the allocations, plus O(n log k) for the top-k tables and
// one FindBlockers per recorded failure (at most kRecentFailures per
// memory).  The file is written as a dump is (dump/internal/atomic_file.h:
// a unique temporary, renamed), so a failed write never leaves half a page
// under out_path.
#ifndef REALM_SHADOW_PAGE_HTML_PAGE_H_
#define REALM_SHADOW_PAGE_HTML_PAGE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(page);

// What-if replay of one memory (whatif/report.h computes it; the page only
// shows it): in the side panel a table of the policies, and per policy the
// map as it would have been at `moment`, which a click on the row draws in
// place of the dump's.
struct PageReplayRow {
  std::string policy;
  bool fails = false;
  std::string first_failure;  // "-" when none
  std::string min_capacity;   // "" when not searched
  std::string moment;         // when `map` is taken, in words
  std::vector<Allocation> map;  // by offset
};
struct PageReplay {
  uint32_t node = 0;
  uint64_t memory_id = 0;
  std::string summary;  // the self-check and the lower bound, one line each
  std::string moment;   // what the maps show, in words
  std::vector<PageReplayRow> rows;
};

// The remedies of a memory's failures (whatif/explain.h computes them, the
// texts are render/failure_report.h's; the page only shows them): beside
// the failure selected in the side panel, one line per remedy, those that
// fit first.
struct PageRemedyLine {
  std::string kind;  // "release", "wait", "capacity", ...
  bool fits = false;
  bool checked = false;
  std::string text;  // FormatRemedyLine's, without the kind
};
struct PageFailureRemedies {
  uint64_t instance = 0;
  uint64_t sequence = 0;  // the failure's (Failure::sequence)
  std::string judged;     // FormatJudgedOn
  std::string cause;      // FormatCause
  std::vector<PageRemedyLine> lines;  // OrderedRemedies
};
struct PageRemedies {
  uint32_t node = 0;
  uint64_t memory_id = 0;
  std::vector<PageFailureRemedies> failures;
};

struct HtmlOptions {
  // What colours the blocks when the page opens: "kind", or an identity
  // attribute ("task", "store", "regions", ...); the page lets the reader
  // change it.  An attribute no identity carries falls back to "kind".
  std::string color_by = "kind";
  // The replay tables of the memories they name (matched by node and id).
  std::vector<PageReplay> replays;
  // The remedies of the memories they name (matched by node and id).
  std::vector<PageRemedies> remedies;
};

// Writes the page for one dump, or two (before, after: a diff); an error
// when there is nothing to show (no dump, more than two) or the file cannot
// be written.
absl::Status WriteHtmlMap(const std::vector<DumpFile>& dumps,
                          const std::string& out_path,
                          const HtmlOptions& options = HtmlOptions{});

// The page as a string (what WriteHtmlMap writes); tests use it.
std::string RenderHtmlMap(const std::vector<DumpFile>& dumps,
                          const HtmlOptions& options = HtmlOptions{});

}  // namespace realm_shadow

#endif  // REALM_SHADOW_PAGE_HTML_PAGE_H_
