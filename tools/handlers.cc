// tools/handlers.cc - what the handlers share (handlers.h).
#include "tools/handlers.h"

#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/core/text.h"

namespace realm_shadow::tools {

int Usage(const Command& command, absl::string_view problem) {
  std::cerr << "realm-shadow " << command.name << ": " << problem << "\n"
            << CommandHelp(command);
  return kExitUsage;
}

int Usage(const Command& command, const absl::Status& problem) {
  return Usage(command, problem.message());
}

int BadInput(absl::string_view message) {
  std::cerr << "realm-shadow: " << message << "\n";
  return kExitBadInput;
}

int BadInput(const absl::Status& status) { return BadInput(status.message()); }

absl::StatusOr<std::vector<DumpFile>> LoadDumps(const std::vector<std::string>& files) {
  std::vector<DumpFile> dumps;
  for (const std::string& file : files) {
    absl::StatusOr<DumpFile> dump = ReadDump(file);
    if (!dump.ok()) return dump.status();
    dumps.push_back(*std::move(dump));
  }
  return dumps;
}

int LoadTwoDumps(const Command& command, const CommandArgs& args,
                 absl::string_view names, std::vector<DumpFile>* dumps) {
  const std::vector<std::string>& files = args.operands();
  if (files.size() != 2)
    return Usage(command, "expected two dump files (" + std::string(names) +
                              "), got " + std::to_string(files.size()));
  absl::StatusOr<std::vector<DumpFile>> loaded = LoadDumps(files);
  if (!loaded.ok()) return BadInput(loaded.status());
  *dumps = *std::move(loaded);
  return 0;
}

absl::StatusOr<std::vector<LoadedMemory>> SelectMemories(
    const std::vector<DumpFile>& dumps, const CommandArgs& args) {
  std::vector<LoadedMemory> all = ListMemories(dumps, args.operands());
  const std::string* memory = args.value("--memory");
  if (memory == nullptr) return all;
  const absl::StatusOr<uint64_t> id = ParseHexId(*memory);
  if (!id.ok())
    return absl::InvalidArgumentError(absl::StrCat("--memory ", id.status().message()));
  std::vector<LoadedMemory> kept;
  for (const LoadedMemory& m : all)
    if (m.snapshot->memory_id == *id) kept.push_back(m);
  if (kept.empty()) {
    std::string have;
    for (const LoadedMemory& m : all)
      absl::StrAppend(&have, " ", HexId(m.snapshot->memory_id));
    return absl::NotFoundError(absl::StrCat(
        "no memory ", HexId(*id), " in the given dump(s)",
        have.empty() ? " (they hold no memory)" : "; they hold:" + have));
  }
  return kept;
}

absl::StatusOr<size_t> ParseCount(const std::string& text) {
  uint64_t v = 0;
  if (!absl::SimpleAtoi(text, &v) || v > 1000000000)
    return absl::InvalidArgumentError(
        "'" + text + "': expected a count (a whole number up to 10^9)");
  return static_cast<size_t>(v);
}

absl::Status CountOptions(
    const CommandArgs& args,
    std::initializer_list<std::pair<absl::string_view, size_t*>> counts) {
  for (const auto& [spelling, value] : counts) {
    const std::string* given = args.value(spelling);
    if (given == nullptr) continue;
    absl::StatusOr<size_t> count = ParseCount(*given);
    if (!count.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(spelling, " ", count.status().message()));
    *value = *count;
  }
  return absl::OkStatus();
}

}  // namespace realm_shadow::tools
