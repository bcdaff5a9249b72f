// tools/command_line.h - a command table and everything read from it: the
// parsing of a subcommand's arguments, `realm-shadow --help`,
// `realm-shadow <command> --help` and the command list and option tables
// of docs/cli.md (`realm-shadow help --markdown`).
//
// Guarantees: an option is spelled once, in its command's table row, with
// whether it takes a value, its metavariable and its help text; the parser
// accepts exactly the options of the row, and every text that names an
// option takes the spelling and the metavariable from there, so the usage
// lines, the help and the docs cannot disagree with what is accepted.
// TableProblems() finds what the types cannot: a synopsis naming an option
// the row lacks, an option no synopsis shows, a spelling given twice.
//
// The texts are laid out as the command has always printed them: synopses
// wrap at 76 columns (report's one line is 76, html's two would be 78),
// a command's option texts start at a column of its own (help_column), and
// the main usage puts each summary at column 38.  Nothing is reflowed: a
// text's '\n' starts its next line, indented to its column.
//
// Cost: a table of a dozen commands is searched linearly; parsing is one
// pass over the arguments.
#ifndef TOOLS_COMMAND_LINE_H_
#define TOOLS_COMMAND_LINE_H_

#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "realm_shadow/layers.h"

namespace realm_shadow::tools {

REALM_SHADOW_HEADER_OF_LAYER(tools);

// One value of an option that takes a few fixed ones, with its own line of
// help (blockers --objective bytes, --objective count).
struct OptionChoice {
  absl::string_view value;
  absl::string_view help;
};

struct CommandOption {
  absl::string_view spelling;  // "--top", "-o"
  // What the value is called in the texts ("N", "PAGE.html"); empty for a
  // flag, which takes no value, unless `choices` name the values.
  absl::string_view metavar;
  absl::string_view help;  // '\n' between its lines
  // Non-empty: the values it takes, each with its help line instead of
  // `help`; the metavariable is them joined by '|'.  The handler checks the
  // value, so that its message stays where it was.
  std::vector<OptionChoice> choices = {};
  // A second spelling accepted and read as `spelling` (--output for -o);
  // no text shows it.
  absl::string_view alias = {};

  bool TakesValue() const { return !metavar.empty() || !choices.empty(); }
  // "N", or the choices joined by '|'; empty for a flag.
  std::string Metavar() const;
  // "--top N", "--all".
  std::string Usage() const;
};

// One way to call a command: a line of its usage and of the main usage.
struct CommandForm {
  // Operands and option spellings, each option written once without its
  // metavariable, which the texts add: "FILE... [--top] [--all]",
  // "FILE (--event | --time) -o", "FILE... [--policy]...".
  absl::string_view synopsis;
  // The main usage's text beside it; '\n' between its lines.
  absl::string_view summary;
};

class CommandArgs;
struct Command;

// Runs a command on its parsed arguments; returns the exit status.  Every
// handler is declared with this type (handlers.h), so that they all keep
// the one signature the table calls.
using CommandFunction = int(const Command& command, const CommandArgs& args);
using CommandHandler = CommandFunction*;

struct Command {
  absl::string_view name;
  std::vector<CommandForm> forms;
  // `<command> --help` after the usage lines; '\n' between its lines, one
  // at the end.
  absl::string_view description;
  std::vector<CommandOption> options;
  // Where --help's option texts start, counted after the two spaces of
  // indent (each command's own, as it has always been printed).
  size_t help_column = 0;
  // The operands are dump files, one at least: the dispatch answers
  // "no dump file given" before the handler runs.
  bool takes_dumps = false;
  CommandHandler run = nullptr;

  const CommandOption* FindOption(absl::string_view spelling) const;
};

// A command's arguments as the parser read them.  Reading an option the
// command's row does not have is a bug in the handler, not in the input:
// it aborts, naming the option and the command.
class CommandArgs {
 public:
  explicit CommandArgs(const Command& command) : command_(&command) {}

  // What is not an option, in order (everything after "--" too).
  const std::vector<std::string>& operands() const { return operands_; }
  // --help or -h was given.
  bool help() const { return help_; }
  bool flag(absl::string_view spelling) const;
  // The value given last, or null when the option was not given.
  const std::string* value(absl::string_view spelling) const;
  // Every value given, in order (replay --policy P...).
  const std::vector<std::string>& values(absl::string_view spelling) const;

 private:
  friend absl::StatusOr<CommandArgs> ParseCommandArgs(
      const Command& command, std::span<char* const> arguments);
  const CommandOption& Known(absl::string_view spelling) const;

  const Command* command_;
  std::vector<std::string> operands_;
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
  std::set<std::string, std::less<>> flags_;
  bool help_ = false;
};

// The arguments after the command's name.  --help and -h are every
// command's; "--" ends the options; "--opt=value" gives a value inline, a
// flag takes none.  Errors (for the usage message, exit status 2):
// "unknown option '<argument>'", "option <spelling> needs a value".
absl::StatusOr<CommandArgs> ParseCommandArgs(const Command& command,
                                             std::span<char* const> arguments);

const Command* FindCommand(std::span<const Command> commands,
                           absl::string_view name);

// `realm-shadow <command> --help`: the usage lines, the description, the
// options.
std::string CommandHelp(const Command& command);

// `realm-shadow --help`: "usage: ...", every form of every command with its
// summary, then `footer`.
std::string MainUsage(std::span<const Command> commands,
                      absl::string_view footer);

// The marked block of docs/cli.md: the command list (every form and its
// summary) and each command's option table, between a first and a last
// line that name the command writing it.
std::string CommandsMarkdown(std::span<const Command> commands);

// What makes the table say one thing in one text and another elsewhere: a
// synopsis naming an option its command lacks, an option in no synopsis,
// a spelling or command name given twice, a command without a form or a
// handler.  Empty when the table is sound.
std::vector<std::string> TableProblems(std::span<const Command> commands);

}  // namespace realm_shadow::tools

#endif  // TOOLS_COMMAND_LINE_H_
