// tools/history_commands.cc - the commands that read a memory's history:
// timeline (how it got there), at (the exact state at a moment, as a dump)
// and trace (the history as a Perfetto trace).
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "realm_shadow/analysis/history_walk.h"
#include "realm_shadow/core/text.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/render/report.h"
#include "realm_shadow/render/timeline.h"
#include "realm_shadow/render/trace.h"
#include "tools/handlers.h"

namespace realm_shadow::tools {
namespace {

// at --event N or --time T (exactly one) and --with-history.  Returns the
// exit status of the error, or 0 with *moment set.
int ReadMoment(const Command& c, const CommandArgs& args, MomentChoice* moment) {
  const std::string* event = args.value("--event");
  const std::string* time = args.value("--time");
  if ((event == nullptr) == (time == nullptr))
    return Usage(c, "give exactly one of --event N and --time T");
  moment->with_history = args.flag("--with-history");
  if (event != nullptr) {
    uint64_t n = 0;
    if (!absl::SimpleAtoi(*event, &n))
      return Usage(c, "--event '" + *event + "': expected an event count");
    moment->event = n;
  } else {
    const absl::StatusOr<int64_t> ns = ParseHistoryTime(*time);
    if (!ns.ok()) return Usage(c, "--time " + std::string(ns.status().message()));
    moment->time_ns = *ns;
  }
  return 0;
}

}  // namespace

int RunTimeline(const Command& c, const CommandArgs& args) {
  TimelineOptions options;
  if (absl::Status counts = CountOptions(
          args, {{"--top", &options.top}, {"--lead", &options.lead}});
      !counts.ok())
    return Usage(c, counts);
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.operands());
  if (!dumps.ok()) return BadInput(dumps.status());
  const auto memories = SelectMemories(*dumps, args);
  if (!memories.ok()) return BadInput(memories.status());
  bool any = false;
  for (const LoadedMemory& m : *memories) {
    const MemoryHistory* h = FindHistory(*m.dump, *m.snapshot);
    if (h == nullptr) {
      std::cout << MemoryTitle(*m.snapshot) << "\n  no history in " << m.file
                << " (written with REALM_SHADOW_HISTORY=0, or before dumps "
                   "carried one)\n";
      continue;
    }
    any = true;
    std::cout << FormatTimeline(*m.snapshot, *h, options);
  }
  if (!any) return BadInput("no memory of the given dump(s) has a history");
  return 0;
}

int RunAt(const Command& c, const CommandArgs& args) {
  if (args.operands().size() != 1)
    return Usage(c, "expected one dump file, got " +
                        std::to_string(args.operands().size()));
  const std::string* out = args.value("-o");
  if (out == nullptr) return Usage(c, "-o OUT is required");
  MomentChoice moment;
  if (int status = ReadMoment(c, args, &moment); status != 0) return status;
  std::optional<uint64_t> memory;
  if (const std::string* given = args.value("--memory")) {
    const absl::StatusOr<uint64_t> id = ParseHexId(*given);
    if (!id.ok()) return Usage(c, "--memory " + std::string(id.status().message()));
    memory = *id;
  }
  absl::StatusOr<DumpFile> at = ReadDumpAtMoment(args.operands()[0], memory, moment);
  if (!at.ok()) return BadInput(at.status());
  if (absl::Status written = WriteDump(*out, *at); !written.ok())
    return BadInput(written);
  for (const Snapshot& s : at->memories)
    std::cerr << "realm-shadow: " << MemoryTitle(s) << " after " << s.sequence
              << " event(s): " << s.allocations.size() << " live allocation(s)\n";
  return 0;
}

int RunTrace(const Command& c, const CommandArgs& args) {
  const std::string* out = args.value("-o");
  if (out == nullptr) return Usage(c, "-o TRACE.json is required");
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.operands());
  if (!dumps.ok()) return BadInput(dumps.status());
  const absl::StatusOr<TraceSummary> traced = WriteTrace(*dumps, args.operands(), *out);
  if (!traced.ok()) return BadInput(traced.status());
  const TraceSummary& summary = *traced;
  std::cerr << "realm-shadow: wrote " << *out << ": " << summary.memories
            << " memory(ies), " << summary.lives << " allocation lives, "
            << summary.counter_samples << " counter samples, "
            << summary.failures << " failure(s)";
  if (summary.skipped)
    std::cerr << "; " << summary.skipped << " memory(ies) without a history";
  std::cerr << "\n";
  return 0;
}

}  // namespace realm_shadow::tools
