// realm_shadow/ingest/compare.h - does a tracked dump agree with Realm's own
// log, cut at the moment the dump was taken?
//
// Layer ingest.  The tracker's dump (heap observation) and the state rebuilt from
// the log (ingest-realm-log --cut-at-dump) describe the same memory at the
// same point.  They must agree on every fact the log states, and the log
// states fewer facts than the shadow knows.  This compares them fact by
// fact and says, for each difference, whether the log could have known:
//
//  - live allocations: every (instance, offset, size) of the log must be in
//    the shadow, and every shadow allocation in the log.  A redistricted
//    piece's size is not in the log (realm_log.h: the log stores an upper
//    bound, identity size=upper bound): there the offset must match and the
//    shadow's size must lie within the bound.  An allocation placed without
//    a layout line has size unknown (identity size=unknown): instance and
//    offset only.
//  - state of each allocation (live, release pending, release ready): the
//    log knows a destroy that waits on an event ("instance destroyed ...
//    wait_on=E") and when the range came back; not "ready".  Pending and
//    ready therefore count as one state here.
//  - total free and largest hole: equal, unless the log has bounded pieces
//    (then its figures are lower bounds: log <= shadow) or no capacity
//    (run without -level machine=1: not compared).
//  - pending requests: the same instances (the log never gives their
//    planned offset; the shadow's is not compared).
//  - failures: the same instances, and the same request size where the log
//    has one (a failed redistricted piece's size is not in the log); a
//    log's failure marked maybe cancelled that the shadow lacks is within
//    the log (Realm cancelled that request).
//  - in flight: Realm goes on allocating while a snapshot is taken.  An
//    instance the log names between the dump's begin line and its marker
//    (the cut lists them in a note) may be on either side of the snapshot:
//    a difference in it is counted apart and explained, not a difference.
//
// Verdict per memory: "agree" (every fact equal), "agree within what the log
// knows" (equal wherever the log states the fact; the reasons list what it
// could not state), or "differ" (a fact the log states disagrees; the
// reasons name the first few).
#ifndef REALM_SHADOW_INGEST_COMPARE_H_
#define REALM_SHADOW_INGEST_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(ingest);

enum class Agreement : uint8_t {
  kAgree,             // every fact equal
  kAgreeWithinLog,    // equal wherever the log states the fact
  kDiffer,            // a fact the log states disagrees
  kMissing,           // the memory is in one dump only
};
const char* AgreementName(Agreement a);  // "agree", "agree within log", ...

struct MemoryComparison {
  uint64_t memory_id = 0;
  uint32_t node = 0;
  // Live allocations.
  uint64_t live_shadow = 0, live_log = 0;
  uint64_t same_exact = 0;     // equal (instance, offset, size)
  uint64_t same_bounded = 0;   // equal offset, shadow size within the bound
  uint64_t same_unsized = 0;   // equal offset, size not in the log
  uint64_t mismatched = 0;     // in both, a stated fact differs
  uint64_t only_shadow = 0, only_log = 0;
  uint64_t state_differs = 0;  // live vs release queued
  // Differences of instances the log names between the dump's begin line
  // and its marker (realm_log.h kInFlightNote): not counted above.
  uint64_t in_flight = 0;
  // Free space; *_compared false when the log cannot tell.
  uint64_t free_shadow = 0, free_log = 0;
  uint64_t hole_shadow = 0, hole_log = 0;
  bool free_compared = true;
  bool log_lower_bound = false;  // bounded pieces: log figures are <=
  // Requests.
  uint64_t pending_shadow = 0, pending_log = 0;
  uint64_t pending_differs = 0;
  uint64_t failures_shadow = 0, failures_log = 0;
  uint64_t failures_differ = 0;
  Agreement agreement = Agreement::kAgree;
  std::vector<std::string> reasons;  // why not plain "agree"
};

// One row per memory of `shadow`, then one per memory only in `log`.
// Memories are matched by id (and node where both name one).
std::vector<MemoryComparison> CompareDumps(const DumpFile& shadow,
                                           const DumpFile& log);

// The rows as an aligned text table (header included) or as tab-separated
// lines (no header; for scripts).  `run` and `dump` label the rows.
std::string FormatComparisonTable(const std::vector<MemoryComparison>& rows,
                                  const std::string& run,
                                  const std::string& dump);
std::string FormatComparisonTsv(const std::vector<MemoryComparison>& rows,
                                const std::string& run,
                                const std::string& dump);
// The column names of the TSV lines, tab-separated.
std::string ComparisonTsvHeader();

}  // namespace realm_shadow

#endif  // REALM_SHADOW_INGEST_COMPARE_H_
