// realm_shadow/render/report.h - the text the realm-shadow command prints:
// the per-memory report, hole listings, blocker answers and diffs.
//
// Layer render.  Every figure comes from analysis.h (and diff.h), so the command,
// the dump-on-failure report and the page agree.  Functions return text and
// never print; they read Snapshots and never change them.
//
// Memories are named by (node, memory id): a run of several nodes gives one
// dump per node, and the same Realm memory id never repeats across nodes in
// a real run, but dumps of different runs may be read together, so the node
// is always part of the name.
//
// Who holds a memory: allocations and blocker windows are grouped by any
// identity attribute (task, store, region, field, kind, ...), so that nine
// tiles of one store are one line.  A run of several nodes is summarized
// first, one line per memory in pressure order, so that a thousand ranks
// stay readable; full reports follow for the memories under most pressure.
//
// Sizes a rebuilt log could not know: an allocation whose Identity has
// attribute "size" = "upper bound" (realm_log.h) is marked "<=" wherever
// its size is printed, and a failure's cause is given as a range when the
// bounds leave it open.
#ifndef REALM_SHADOW_RENDER_REPORT_H_
#define REALM_SHADOW_RENDER_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(render);

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
// order ("why" and the figures left out: IsPrintedAttribute, identity.h).
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
  // Per-instance lists (blockers, deferred requests, pending releases) are
  // cut to this many, and group tables to groups_shown; `all` shows all.
  size_t instances_shown = 10;
  size_t groups_shown = 10;
  bool all = false;
  // Group live allocations and blocker windows by this identity attribute
  // ("task", "store", "regions", ... or "kind"; GroupAttribute takes the
  // command line's names).  Empty: by the most telling attribute present.
  std::string group_by;
  // Only this node's memories (the command's --node N).
  bool node_selected = false;
  uint32_t node = 0;
  // With several nodes, full reports of this many memories, in pressure
  // order (RunSummary), unless `all` or `node_selected`.
  size_t detailed_memories = 4;
};

// ---- who holds the memory -------------------------------------------------

// The identity attribute `name` selects: "region" -> "regions", "field" ->
// "fields"; "kind" is the allocation kind (a reduction instance is
// "region_instance (reduction)"); any other name is an attribute key.
std::string GroupAttribute(const std::string& name);
// What groups a memory's allocations best: the Legate store when any
// allocation has one, else the region, else the creating task, taking the
// first of them that puts at least two allocations in one group (a region
// per tile groups nothing), else the first present; "" when none is.
std::string MostTellingAttribute(const Snapshot& snapshot);

struct AllocationGroup {
  std::string value;  // the attribute's value; "(unknown)" when absent
  uint64_t count = 0;
  uint64_t bytes = 0;
  uint64_t largest = 0;
};
// Live allocations (and instances of unknown placement) of `snapshot`, or
// just `subset` when given, grouped by `attribute`, largest bytes first.
std::vector<AllocationGroup> GroupAllocations(
    const Snapshot& snapshot, const std::string& attribute,
    const std::vector<Allocation>* subset = nullptr);
// The value of `attribute` for one allocation's identity and kind.
std::string AttributeValue(const Snapshot& snapshot, uint32_t identity,
                           AllocationKind kind, const std::string& attribute);

// ---- runs of several nodes --------------------------------------------------

// Every memory of every dump in pressure order: memories with failures
// first, then by use of capacity (used bytes where capacity is unknown),
// then by node and id.
std::vector<LoadedMemory> ByPressure(const std::vector<LoadedMemory>& memories);
// One line per memory, in pressure order: node, memory, used, capacity,
// largest hole, fragmentation, failures; cut to `rows` (0: all).
std::string FormatRunSummary(const std::vector<LoadedMemory>& memories,
                             size_t rows);

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

#endif  // REALM_SHADOW_RENDER_REPORT_H_
