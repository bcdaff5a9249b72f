// realm_shadow/faces/report.h - the text the realm-shadow command prints:
// the per-memory report, hole listings, blocker answers and diffs.
//
// Layer 5.  Every figure comes from analysis.h (and diff.h), so the command,
// the dump-on-failure report and the page agree.  Functions return text and
// never print; they read Snapshots and never change them.
//
// Memories are named by (node, memory id): a run of several nodes gives one
// dump per node, and the same Realm memory id never repeats across nodes in
// a real run, but dumps of different runs may be read together, so the node
// is always part of the name.
//
// Sizes a rebuilt log could not know: an allocation whose Identity has
// attribute "size" = "upper bound" (realm_log.h) is marked "<=" wherever
// its size is printed, and a failure's cause is given as a range when the
// bounds leave it open.
#ifndef REALM_SHADOW_FACES_REPORT_H_
#define REALM_SHADOW_FACES_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/dump/dump.h"

namespace realm_shadow {

// One memory of one loaded dump file.
struct LoadedMemory {
  std::string file;
  const DumpFile* dump = nullptr;
  const Snapshot* snapshot = nullptr;
};

// Every memory of every dump, in file order then memory order.
std::vector<LoadedMemory> ListMemories(const std::vector<DumpFile>& dumps,
                                       const std::vector<std::string>& files);

// An identity's attributes as reports print them: " key=value" each, in
// order ("why", long prose the notes carry, left out).
std::string FormatIdentityAttributes(const Identity& identity);

// "node 0 memory 0x1e00000000000000 (system, SYSTEM_MEM)".
std::string MemoryTitle(const Snapshot& snapshot);

// Whether the size of `a` is only an upper bound (rebuilt from a log).
bool SizeIsUpperBound(const Snapshot& snapshot, const Allocation& a);
// Bytes of allocations whose size is an upper bound.
uint64_t BoundedBytes(const Snapshot& snapshot);

struct ReportOptions {
  size_t top_holes = 10;
  size_t failures_shown = 10;  // most recent, with their blockers
  size_t anomalies_shown = 10;
};

// The full report of one memory (see docs/cli.md for a sample).
std::string FormatMemoryReport(const Snapshot& snapshot,
                               const ReportOptions& options);
// The notes of a dump file ("what the source could not tell").
std::string FormatDumpNotes(const DumpFile& dump, const std::string& file);
// Report of every memory of every dump, then each file's notes.
std::string FormatReport(const std::vector<DumpFile>& dumps,
                         const std::vector<std::string>& files,
                         const ReportOptions& options);

// Holes of one memory: the `top` largest, then the totals.
std::string FormatHoles(const Snapshot& snapshot, size_t top);

// The blocker answer for one request in one memory: whether it fits, the
// cause if not, and the cheapest window (by `objective`).
std::string FormatBlockers(const Snapshot& snapshot, uint64_t size,
                           uint64_t alignment, BlockerObjective objective);

// What one Allocation is, on one line: instance, range, size, alignment,
// state, kind, identity attributes.
std::string FormatAllocationLine(const Snapshot& snapshot,
                                 const Allocation& a);

// The offset-level diff of two pictures of the same memory.
std::string FormatDiff(const Snapshot& before, const Snapshot& after);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_FACES_REPORT_H_
