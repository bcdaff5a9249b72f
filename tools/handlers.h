// tools/handlers.h - one handler per realm-shadow command, and what they
// share: the exit statuses, the two error messages, loading dumps and the
// --memory selection.
//
// A handler gets its command's parsed arguments (command_line.h) and
// returns the exit status: 0 success, 1 bad input (a file that cannot be
// read, a memory or node that is not there: "realm-shadow: <message>"),
// 2 usage ("realm-shadow <command>: <problem>" then the command's help),
// and compare's 3 when the dumps disagree.  Handlers check their operands
// first, then the options their usage requires, then the values.
#ifndef TOOLS_HANDLERS_H_
#define TOOLS_HANDLERS_H_

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/layers.h"
#include "realm_shadow/render/report.h"
#include "tools/command_line.h"
#include "whatif/explain.h"

namespace realm_shadow::tools {

REALM_SHADOW_HEADER_OF_LAYER(tools);

constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;
constexpr int kExitDiffer = 3;  // compare: a fact the log states differs

// Prints "realm-shadow <command>: <problem>" and the command's help to
// stderr; returns kExitUsage.
int Usage(const Command& command, absl::string_view problem);
int Usage(const Command& command, const absl::Status& problem);

// Prints "realm-shadow: <message>" to stderr; returns kExitBadInput.
int BadInput(absl::string_view message);
int BadInput(const absl::Status& status);

// Every file read as a dump, in order; the first that cannot be read is
// the error.
absl::StatusOr<std::vector<DumpFile>> LoadDumps(const std::vector<std::string>& files);

// The command's two dump operands (diff's A B, compare's SHADOW LOG), read
// into *dumps; 0, or the exit status after saying why: a count other than
// two is a usage error ("expected two dump files (<names>), got 3"), a file
// that cannot be read bad input.
int LoadTwoDumps(const Command& command, const CommandArgs& args,
                 absl::string_view names, std::vector<DumpFile>* dumps);

// The memories of the loaded dumps (pointing into `dumps`), only those
// with the id of --memory when the command was given it; a --memory that
// is no id or names no memory is the error (bad input).
absl::StatusOr<std::vector<LoadedMemory>> SelectMemories(
    const std::vector<DumpFile>& dumps, const CommandArgs& args);

// A count given on the command line ("--top 20"): a plain decimal number up
// to 10^9, no unit (a count is not a size).
absl::StatusOr<size_t> ParseCount(const std::string& text);
// Each option (spelling, where its count goes) read as a count when it is
// given, in the order listed; the first that is no count is the error.
absl::Status CountOptions(
    const CommandArgs& args,
    std::initializer_list<std::pair<absl::string_view, size_t*>> counts);

// The handlers, by the file that holds them (CommandFunction: command_line.h).
// dump_commands.cc
CommandFunction RunReport, RunHoles, RunBlockers, RunJson, RunDiff;
// log_commands.cc
CommandFunction RunIngest, RunCompare;
// history_commands.cc
CommandFunction RunTimeline, RunAt, RunTrace;
// page_command.cc, replay_command.cc, explain_command.cc
CommandFunction RunHtml, RunReplay, RunExplain;

// The section `report` ends with: the memories with a failure in their
// picture (only node *node's when node is not null), each as explain
// prints it; "" when none has one.
std::string RemediesSection(const std::vector<DumpFile>& dumps,
                            const std::vector<std::string>& files,
                            const whatif::ExplainOptions& options, const uint32_t* node);

}  // namespace realm_shadow::tools

#endif  // TOOLS_HANDLERS_H_
