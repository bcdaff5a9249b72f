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
#include "realm_shadow/analysis/waste.h"
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

// ---- identities, as every text of this layer names them -------------------

// The identity with this id among `identities`, which are sorted by id (a
// Snapshot's and a MemoryHistory's are), or nullptr; id 0 is "none".
// O(log n): texts look one up per line.
const Identity* FindIdentityById(const std::vector<Identity>& identities,
                                 uint32_t id);
// The identity `id` names, as the report, the failure report and the
// timeline print it after an allocation or a request: core/identity.h's
// IdentityText (" key=value" each, one line, "why" left out; with_kind puts
// the kind first, for lines that have no kind of their own).  "" for id 0;
// " identity#7" when `identities` lacks it (a picture whose identity table
// was cut short), so that the reader still sees there was one.
std::string IdentityText(const std::vector<Identity>& identities, uint32_t id,
                         bool with_kind = false);

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

// The full report of one memory (see docs/cli.md for a sample): the
// sections below, in their order, after MemoryTitle.
std::string FormatMemoryReport(const Snapshot& snapshot,
                               const ReportOptions& options);

// ---- the memory report, section by section ---------------------------------
// Each section returns whole lines ("  label               value\n", labels
// padded to 22 columns, lists indented 4); the live failure report
// (failure_report.h) prints some of them as they are.

// What the sections share, computed once per memory: the holes are the one
// pass over the allocations (O(n) on a sorted picture).
struct MemorySpace {
  std::vector<Hole> holes;  // empty unless kept (FormatLargestHoles)
  FreeSummary summary;
  uint64_t bounded = 0;  // BoundedBytes
  KindUsage unplaced;    // UnplacedUsage
  // Whether every live instance has a placement: otherwise holes, free
  // space and fragmentation are unknown and the sections say so.
  bool placed() const { return unplaced.count == 0; }
};
// keep_holes = false sums the holes without keeping them: what the live
// report, which lists none, measures on the failing thread (100k holes are
// 1.6 MB and a third of its time).
MemorySpace MeasureSpace(const Snapshot& snapshot, bool keep_holes = true);

// How a section cuts a list of instances: the first `shown` (0: all), then
// "... 5 more (<hint>)": the report's hint is its --all option, the live
// report's the dump.
struct ListCut {
  size_t shown = 10;
  std::string hint = "--all shows every one";

  // How many of `total` entries are listed.
  size_t Listed(size_t total) const {
    return shown == 0 || total < shown ? total : shown;
  }
  // "<indent>... 5 more (<hint>)\n" after a list it cut; "" otherwise.
  std::string MoreLine(size_t total, const std::string& indent) const;
};

// "capacity" and "used" (with the peak; a lower bound while placements are
// unknown), and the share of upper-bound sizes.
std::string FormatCapacityAndUse(const Snapshot& snapshot,
                                 const MemorySpace& space);
// "use by kind": count and bytes of each AllocationKind present.
std::string FormatUseByKind(const Snapshot& snapshot);
// "waste": the bytes live instances hold that no one asked for
// (analysis/waste.h: padding, inflation, unrequested fields), one line
// (FormatWasteSummary), then FormatWasteLines under it; nothing when no
// instance carries the figures (a tracked dump; a log without "instance
// layout" lines).
std::string FormatWaste(const Snapshot& snapshot, const std::string& attribute);
// The known waste per group of `group_by` ("": MostTellingAttribute), one
// line, then the 5 instances that hold the most, a line each: padding,
// inflation and unrequested bytes and identity.  "" when no waste is known.
std::string FormatWasteLines(const Snapshot& snapshot, const MemoryWaste& waste,
                             const std::string& group_by, const std::string& indent);
// "420 B held unasked in live instances (padding 200 B, inflation 120 B,
// unrequested fields 100 B; 2 of 3 instance(s) with figures)".
std::string FormatWasteSummary(const MemoryWaste& waste);
// "padding 1 KiB, inflation 2 KiB, unrequested fields 0 B": each figure's
// known bytes, "unknown" where no allocation knows it.
std::string FormatWasteFigures(const WasteTotals& totals);
// "by <attribute>": who holds the memory, groups largest first, cut to
// `groups_shown` (0: all); nothing when `attribute` is empty.
std::string FormatHolders(const Snapshot& snapshot,
                          const std::string& attribute, size_t groups_shown);
// "total free", "largest hole", "holes" with the fragmentation; one line
// instead for an addressed memory or unknown placements.
std::string FormatFreeSpace(const Snapshot& snapshot, const MemorySpace& space);
// The `top` largest holes and the hole-size histogram (nothing where holes
// are unknown or meaningless, or there are none).
std::string FormatLargestHoles(const Snapshot& snapshot,
                               const MemorySpace& space, size_t top);
// "deferred requests": requests waiting for releases, in deferral order.
std::string FormatDeferredRequests(const Snapshot& snapshot, const ListCut& cut);
// "pending releases": allocations whose release waits on an event.
std::string FormatPendingReleases(const Snapshot& snapshot, const ListCut& cut);
// "failures": the counters' total, then the most recent failures
// (options.failures_shown, or all), each as failure_report.h's
// FormatFailure writes it: both objectives' windows, grouped by
// `attribute`, cut at options.instances_shown.
std::string FormatFailures(const Snapshot& snapshot, const MemorySpace& space,
                           const ReportOptions& options,
                           const std::string& attribute);
// "anomalies": totals by kind, then the most recent (options.anomalies_shown).
std::string FormatAnomalies(const Snapshot& snapshot,
                            const ReportOptions& options);
// "NOT EXACT" when tracking was off for some events; nothing otherwise.
std::string FormatExactness(const Snapshot& snapshot);
// The notes of a dump file ("what the source could not tell").
std::string FormatDumpNotes(const DumpFile& dump, const std::string& file);
// Report of every memory of every dump, then each file's notes.
std::string FormatReport(const std::vector<DumpFile>& dumps,
                         const std::vector<std::string>& files,
                         const ReportOptions& options);

// Holes of one memory: the `top` largest, then the totals.
std::string FormatHoles(const Snapshot& snapshot, size_t top);

// The blocker answer for one request in one memory: whether it fits, the
// cause if not, and the cheapest window (by `objective`), in the words of a
// failure's (failure_report.h FailureCauseText, FormatBlockerWindow).
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
