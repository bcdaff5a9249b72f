// tools/explain_command.cc - explain: every failure of every memory with
// its cause and its remedies, ranked (whatif/explain.h); and the same
// section at the end of `report` (RemediesSection).
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/render/report.h"
#include "tools/handlers.h"
#include "whatif/explain.h"

namespace realm_shadow::tools {

std::string RemediesSection(const std::vector<DumpFile>& dumps,
                            const std::vector<std::string>& files,
                            const whatif::ExplainOptions& options,
                            const uint32_t* node) {
  std::string out;
  size_t memories = 0;
  for (const LoadedMemory& m : ListMemories(dumps, files)) {
    if (node != nullptr && m.snapshot->node != *node) continue;
    if (m.snapshot->failures.empty()) continue;
    ++memories;
    out += whatif::FormatMemoryExplanation(*m.dump, *m.snapshot, options);
  }
  if (memories == 0) return "";
  return absl::StrCat(
             "\nremedies: what would make each failure fit (realm-shadow explain ",
             options.failures_shown == 1 ? "gives every recorded failure" : "gives the same",
             ", --json for scripts)\n") +
         out;
}

int RunExplain(const Command& c, const CommandArgs& args) {
  whatif::ExplainOptions options;
  options.replay = !args.flag("--no-replay");
  if (absl::Status counts =
          CountOptions(args, {{"--failures", &options.failures_shown}});
      !counts.ok())
    return Usage(c, counts);
  if (const std::string* by = args.value("--by")) {
    if (by->empty()) return Usage(c, "--by needs an attribute");
    options.group_by = GroupAttribute(*by);
  }
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.operands());
  if (!dumps.ok()) return BadInput(dumps.status());
  const auto memories = SelectMemories(*dumps, args);
  if (!memories.ok()) return BadInput(memories.status());
  if (args.flag("--json")) {
    std::cout << "[\n";
    for (size_t i = 0; i < memories->size(); ++i)
      std::cout << whatif::MemoryExplanationJson(*(*memories)[i].dump,
                                                 *(*memories)[i].snapshot, options)
                << (i + 1 < memories->size() ? ",\n" : "\n");
    std::cout << "]\n";
    return 0;
  }
  // Without --memory, the memories that recorded a failure; a run without
  // one says so in one line per file.
  const bool named = args.value("--memory") != nullptr;
  size_t shown = 0;
  for (const LoadedMemory& m : *memories) {
    if (!named && m.snapshot->counters.failures == 0) continue;
    ++shown;
    std::cout << whatif::FormatMemoryExplanation(*m.dump, *m.snapshot, options);
  }
  if (shown == 0)
    std::cout << "no failure recorded in " << memories->size()
              << " memory(ies): nothing to explain\n";
  return 0;
}

}  // namespace realm_shadow::tools
