// tools/dump_commands.cc - the commands that read a dump's state: report,
// holes, blockers, json, diff.
#include <cstdint>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/core/text.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/render/report.h"
#include "tools/handlers.h"

namespace realm_shadow::tools {
namespace {

// report --node N: a node number that some memory of the dumps is on.
// Returns the exit status of the error, or 0 with *node set.
int SelectNode(const Command& c, const CommandArgs& args,
               const std::vector<DumpFile>& dumps, const std::string& given,
               uint32_t* node) {
  const absl::StatusOr<size_t> n = ParseCount(given);
  if (!n.ok() || *n > UINT32_MAX)
    return Usage(c, "--node '" + given + "': expected a node number");
  std::set<uint32_t> nodes;
  for (const LoadedMemory& m : ListMemories(dumps, args.operands()))
    nodes.insert(m.snapshot->node);
  if (!nodes.count(static_cast<uint32_t>(*n))) {
    std::string have;
    for (uint32_t held : nodes) have += " " + std::to_string(held);
    return BadInput("no node " + std::to_string(*n) +
                    " in the given dump(s); they hold node(s):" +
                    (have.empty() ? std::string(" none") : have));
  }
  *node = static_cast<uint32_t>(*n);
  return 0;
}

}  // namespace

int RunReport(const Command& c, const CommandArgs& args) {
  ReportOptions options;
  if (absl::Status counts = CountOptions(args, {{"--top", &options.top_holes}});
      !counts.ok())
    return Usage(c, counts);
  if (const std::string* by = args.value("--by")) {
    if (by->empty()) return Usage(c, "--by needs an attribute");
    options.group_by = *by;
  }
  options.all = args.flag("--all");
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.operands());
  if (!dumps.ok()) return BadInput(dumps.status());
  if (const std::string* node = args.value("--node")) {
    if (int status = SelectNode(c, args, *dumps, *node, &options.node); status != 0)
      return status;
    options.node_selected = true;
  }
  std::cout << FormatReport(*dumps, args.operands(), options);
  // The remedies of each memory's most recent failure (explain gives all).
  whatif::ExplainOptions explain;
  explain.failures_shown = 1;
  explain.replay = !args.flag("--no-replay");
  if (!options.group_by.empty()) explain.group_by = GroupAttribute(options.group_by);
  std::cout << RemediesSection(*dumps, args.operands(), explain,
                               options.node_selected ? &options.node : nullptr);
  return 0;
}

int RunHoles(const Command& c, const CommandArgs& args) {
  size_t top = 10;
  if (absl::Status counts = CountOptions(args, {{"--top", &top}}); !counts.ok())
    return Usage(c, counts);
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.operands());
  if (!dumps.ok()) return BadInput(dumps.status());
  const auto memories = SelectMemories(*dumps, args);
  if (!memories.ok()) return BadInput(memories.status());
  for (const LoadedMemory& m : *memories)
    std::cout << FormatHoles(*m.snapshot, top);
  return 0;
}

int RunBlockers(const Command& c, const CommandArgs& args) {
  const std::string* size_given = args.value("--size");
  if (size_given == nullptr) return Usage(c, "--size is required");
  const absl::StatusOr<uint64_t> size = ParseHumanSize(*size_given);
  if (!size.ok()) return Usage(c, absl::StrCat("--size ", size.status().message()));
  uint64_t alignment = 1;
  if (const std::string* align = args.value("--align")) {
    const absl::StatusOr<uint64_t> given = ParseHumanSize(*align);
    if (!given.ok()) return Usage(c, absl::StrCat("--align ", given.status().message()));
    alignment = *given == 0 ? 1 : *given;
  }
  BlockerObjective objective = BlockerObjective::kFewestBytes;
  if (const std::string* given = args.value("--objective")) {
    if (*given == "bytes") objective = BlockerObjective::kFewestBytes;
    else if (*given == "count") objective = BlockerObjective::kFewestAllocations;
    else return Usage(c, "--objective '" + *given + "': expected bytes or count");
  }
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.operands());
  if (!dumps.ok()) return BadInput(dumps.status());
  const auto memories = SelectMemories(*dumps, args);
  if (!memories.ok()) return BadInput(memories.status());
  for (const LoadedMemory& m : *memories)
    std::cout << FormatBlockers(*m.snapshot, *size, alignment, objective);
  return 0;
}

int RunJson(const Command&, const CommandArgs& args) {
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.operands());
  if (!dumps.ok()) return BadInput(dumps.status());
  if (dumps->size() == 1) {
    std::cout << DumpToJson((*dumps)[0]) << "\n";
    return 0;
  }
  std::cout << "[\n";
  for (size_t i = 0; i < dumps->size(); ++i)
    std::cout << DumpToJson((*dumps)[i]) << (i + 1 < dumps->size() ? ",\n" : "\n");
  std::cout << "]\n";
  return 0;
}

int RunDiff(const Command& c, const CommandArgs& args) {
  std::vector<DumpFile> dumps;
  if (int status = LoadTwoDumps(c, args, "A B", &dumps); status != 0)
    return status;
  const std::vector<std::string>& files = args.operands();
  // Memories are matched by (node, id).
  std::map<std::pair<uint32_t, uint64_t>, const Snapshot*> before, after;
  for (const Snapshot& s : dumps[0].memories) before[{s.node, s.memory_id}] = &s;
  for (const Snapshot& s : dumps[1].memories) after[{s.node, s.memory_id}] = &s;
  std::cout << "diff " << files[0] << " -> " << files[1] << "\n";
  for (const auto& [key, a] : after) {
    auto it = before.find(key);
    if (it == before.end()) {
      std::cout << MemoryTitle(*a) << "\n  only in " << files[1] << " ("
                << a->allocations.size() << " allocation(s))\n";
      continue;
    }
    std::cout << FormatDiff(*it->second, *a);
  }
  for (const auto& [key, b] : before)
    if (!after.count(key))
      std::cout << MemoryTitle(*b) << "\n  only in " << files[0] << " ("
                << b->allocations.size() << " allocation(s))\n";
  return 0;
}

}  // namespace realm_shadow::tools
