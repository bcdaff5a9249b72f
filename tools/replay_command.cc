// tools/replay_command.cc - replay: each memory's run again under another
// placement policy or capacity (whatif/).
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "model/placement.h"
#include "realm_shadow/core/text.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/render/report.h"
#include "tools/handlers.h"
#include "whatif/from_dump.h"
#include "whatif/report.h"

namespace realm_shadow::tools {
namespace {

// --policy P... and --capacity SIZE, --min-capacity.  Returns the exit
// status of the error, or 0 with *question set.
int ReadQuestion(const Command& c, const CommandArgs& args,
                 whatif::ReplayQuestion* question) {
  for (const std::string& name : args.values("--policy")) {
    model::PlacementPolicy p;
    if (!model::ParsePlacementPolicy(name, &p))
      return Usage(c, "--policy '" + name +
                          "': expected realm, best-fit, worst-fit, next-fit, "
                          "size-classes or compacting");
    question->policies.push_back(p);
  }
  if (const std::string* given = args.value("--capacity")) {
    const absl::StatusOr<uint64_t> capacity = ParseHumanSize(*given);
    if (!capacity.ok())
      return Usage(c, absl::StrCat("--capacity ", capacity.status().message()));
    if (*capacity == 0) return Usage(c, "--capacity must be more than 0");
    question->capacity = *capacity;
  }
  question->min_capacity = args.flag("--min-capacity");
  return 0;
}

// The answer of every memory named with --memory, or else of every memory
// with a history that holds a request; a history that cannot be replayed is
// an error either way, and so is having nothing to replay.
absl::StatusOr<std::vector<whatif::MemoryAnswer>> ReplayMemories(
    const std::vector<LoadedMemory>& memories, const CommandArgs& args,
    const whatif::ReplayQuestion& question) {
  const bool named = args.value("--memory") != nullptr;
  std::string skipped;
  std::vector<whatif::MemoryAnswer> answers;
  for (const LoadedMemory& m : memories) {
    const bool has_history = FindHistory(*m.dump, *m.snapshot) != nullptr;
    absl::StatusOr<whatif::ReplayScript> script =
        whatif::ScriptOfDumpMemory(*m.dump, *m.snapshot);
    if (!script.ok()) {
      std::string error = absl::StrCat(m.file, ": ", script.status().message());
      if (named || has_history) return absl::InvalidArgumentError(error);
      // No history: what the first such memory lacks is the error when no
      // memory has one.
      if (skipped.empty()) skipped = std::move(error);
      continue;
    }
    if (!named && script->lives.empty()) continue;
    absl::StatusOr<whatif::MemoryAnswer> answer =
        whatif::ReplayMemory(*std::move(script), question);
    if (!answer.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(m.file, ": ", answer.status().message()));
    answers.push_back(*std::move(answer));
  }
  if (answers.empty())
    return absl::InvalidArgumentError(
        skipped.empty() ? args.operands()[0] +
                              ": no memory's history holds a request: nothing to replay"
                        : skipped);
  return answers;
}

}  // namespace

int RunReplay(const Command& c, const CommandArgs& args) {
  whatif::ReplayQuestion question;
  if (int status = ReadQuestion(c, args, &question); status != 0) return status;
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.operands());
  if (!dumps.ok()) return BadInput(dumps.status());
  const auto memories = SelectMemories(*dumps, args);
  if (!memories.ok()) return BadInput(memories.status());
  const absl::StatusOr<std::vector<whatif::MemoryAnswer>> answers =
      ReplayMemories(*memories, args, question);
  if (!answers.ok()) return BadInput(answers.status());
  if (args.flag("--json")) {
    std::cout << "[\n";
    for (size_t i = 0; i < answers->size(); ++i)
      std::cout << whatif::MemoryAnswerJson((*answers)[i])
                << (i + 1 < answers->size() ? ",\n" : "\n");
    std::cout << "]\n";
    return 0;
  }
  for (const whatif::MemoryAnswer& a : *answers) std::cout << whatif::FormatMemoryAnswer(a);
  return 0;
}

}  // namespace realm_shadow::tools
