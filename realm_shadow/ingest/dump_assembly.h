// realm_shadow/ingest/dump_assembly.h - the replays of a run's
// logs (one per node) become one dump: every node's memories apart, each
// allocation with the identity Legion Spy and Legate gave its life, and
// notes on what the logs could not tell or did not agree on.
//
// Layer ingest.  What it decides, and why:
//  - One log per node.  A second log of a node already read (two logs of
//    the same rank) is left out with a note; a log holding only other
//    loggers' lines (Legate's out-of-memory report on stderr) is not a
//    node's log and only lends its records.
//  - A memory belongs to the node in its id bits; it is rebuilt only from
//    that node's log.  The machine dump (node 0 lists every node) gives
//    capacities; a node whose log is missing is named in a note, never
//    shown as an empty memory.
//  - The logs must be of one run: a memory's capacity in its node's Legion
//    Spy lines must equal the machine dump's, every node must be one the
//    machine dump lists, and Legion Spy's names must not contradict each
//    other.  A disagreement is a note (and counted); everything is still
//    rebuilt.
//  - Identity: a Legion Spy instance record belongs to the instance life it
//    was bound to (replay.h).  Records other nodes logged of an instance
//    (remote copies) join the owner's record by Legion's instance event;
//    one whose event the owner's log never shows is counted.  Names come
//    from the merged catalogs of all logs (legion_spy.h).  Legate's report
//    adds the store and its element range; its size must equal Realm's.
//  - What the instance's bytes hold (the '#' figures, waste_figures.h)
//    joins each life's identity: from its layout line, and Legion Spy's
//    shapes merged from all logs (a disagreement between logs is counted in
//    shape_mismatches, not a run mismatch: it changes no name).
//  - Identities are numbered per dump (the page and the JSON share them
//    between memories): equal identities get one id.
//
// Cost: linear in the live instances and the Legion Spy records.
#ifndef REALM_SHADOW_INGEST_DUMP_ASSEMBLY_H_
#define REALM_SHADOW_INGEST_DUMP_ASSEMBLY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/ingest/node_rebuild.h"
#include "realm_shadow/ingest/waste_figures.h"

namespace realm_shadow {
namespace realm_log {

REALM_SHADOW_HEADER_OF_LAYER(ingest);

// One node's replay and the input it came from.
struct ReplayedLog {
  std::string file;  // "" for text fed directly
  const NodeRebuild* rebuild = nullptr;
  // Lines of the input before its first Realm line (not of any node).
  uint64_t leading_unknown_lines = 0;
  bool truncated = false;        // the input ended inside a line (dropped)
  uint64_t cut_before_line = 0;  // reading stopped there (0: read to the end)
  uint64_t nodes_in_file = 1;    // nodes whose lines the input held
};

// What the assembly found, for the command's messages and for tests.
struct IngestSummary {
  uint64_t logs = 0;            // node logs used
  uint64_t duplicate_logs = 0;  // second logs of a node, left out
  uint64_t run_mismatches = 0;  // disagreements between the logs
  uint64_t truncated_logs = 0;
  uint64_t logs_without_debug_lines = 0;
  // Legion Spy: instances named by their owner's log, and of those the ones
  // joined to a Realm instance life (identities attached).
  uint64_t spy_instances = 0;
  uint64_t spy_attached = 0;
  uint64_t spy_never_logged = 0;     // owner's records with no Realm life
  uint64_t spy_remote = 0;           // records other nodes logged
  uint64_t spy_remote_joined = 0;    // ... joined to the owner's record
  uint64_t spy_remote_unmatched = 0; // ... whose owner's log lacks them
  uint64_t spy_remote_no_log = 0;    // ... of nodes whose log is missing
  uint64_t spy_unknown_lines = 0;
  uint64_t legate_instances = 0;
  uint64_t legate_attached = 0;
  uint64_t legate_size_mismatches = 0;
  // The figures of what instance bytes hold, over the lives described
  // (live allocations and requests), and the entries of Legion Spy's shapes
  // that two logs gave differently (the first was kept).
  WasteFigureCounts waste_figures;
  uint64_t shape_mismatches = 0;
  // Live allocations carrying a Legion Spy identity at the end.
  uint64_t live_with_identity = 0;
  uint64_t live = 0;
  // Messages to print at once (missing debug lines, duplicates, ...).
  std::vector<std::string> warnings;
};

// Assembles the dump of `logs` (in the order given: the first log of a
// node wins).  Never fails; `summary` may be null.
DumpFile AssembleDump(const std::vector<ReplayedLog>& logs,
                      IngestSummary* summary);

// The message for a log without Realm's debug-level lines: what is missing
// and how to get it.
std::string MissingDebugLinesMessage();

}  // namespace realm_log
}  // namespace realm_shadow

#endif  // REALM_SHADOW_INGEST_DUMP_ASSEMBLY_H_
