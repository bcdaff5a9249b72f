// tools/log_commands.cc - the commands that read Realm's log:
// ingest-realm-log (a dump rebuilt from the log) and compare (a tracked
// dump against the log's picture of the same moment).
#include <cstdint>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/ingest/compare.h"
#include "realm_shadow/ingest/realm_log.h"
#include "tools/handlers.h"

namespace realm_shadow::tools {
namespace {

// The line that says what was written and how much of the logs' identity
// found its instance.
void PrintIngestSummary(const std::string& out, const DumpFile& dump,
                        const IngestSummary& summary) {
  size_t allocations = 0;
  std::set<uint32_t> nodes;
  for (const Snapshot& s : dump.memories) {
    allocations += s.allocations.size();
    nodes.insert(s.node);
  }
  std::cerr << "realm-shadow: wrote " << out << ": " << dump.memories.size()
            << " memory(ies) of " << nodes.size() << " node(s), " << allocations
            << " live allocation(s)";
  if (summary.spy_instances > 0)
    std::cerr << "; Legion Spy identities attached to " << summary.spy_attached
              << " of " << summary.spy_instances << " instance(s) it names";
  if (summary.legate_instances > 0)
    std::cerr << "; Legate report: " << summary.legate_attached << " of "
              << summary.legate_instances << " instance(s) matched";
  std::cerr << "\n";
}

}  // namespace

int RunIngest(const Command& c, const CommandArgs& args) {
  const std::vector<std::string>& logs = args.operands();
  if (logs.empty()) return Usage(c, "no log file given");
  const std::string* out = args.value("-o");
  if (out == nullptr) return Usage(c, "-o FILE is required");
  IngestSummary summary;
  absl::StatusOr<DumpFile> ingested;
  if (const std::string* cut = args.value("--cut-at-dump")) {
    if (logs.size() != 1)
      return Usage(c, "--cut-at-dump takes one LOG (the node the dump is "
                      "from), got " + std::to_string(logs.size()));
    ingested = IngestRealmLogAtDump(logs[0], *cut);
  } else {
    ingested = IngestRealmLogs(logs, IngestOptions{}, &summary);
  }
  if (!ingested.ok()) return BadInput(ingested.status());
  // What is wrong with the input, at once, before the work is written.
  for (const std::string& warning : summary.warnings)
    std::cerr << "realm-shadow: warning: " << warning << "\n";
  if (absl::Status written = WriteDump(*out, *ingested); !written.ok())
    return BadInput(written);
  PrintIngestSummary(*out, *ingested, summary);
  return 0;
}

int RunCompare(const Command& c, const CommandArgs& args) {
  std::vector<DumpFile> dumps;
  if (int status = LoadTwoDumps(c, args, "SHADOW LOG", &dumps); status != 0)
    return status;
  const std::string* run = args.value("--run");
  const std::string* label = args.value("--dump");
  const std::string run_name = run == nullptr ? "-" : *run;
  const std::string dump_name = label == nullptr ? args.operands()[0] : *label;
  const std::vector<MemoryComparison> rows = CompareDumps(dumps[0], dumps[1]);
  std::cout << (args.flag("--tsv") ? FormatComparisonTsv(rows, run_name, dump_name)
                                   : FormatComparisonTable(rows, run_name, dump_name));
  for (const MemoryComparison& row : rows)
    if (row.agreement == Agreement::kDiffer || row.agreement == Agreement::kMissing)
      return kExitDiffer;
  return 0;
}

}  // namespace realm_shadow::tools
