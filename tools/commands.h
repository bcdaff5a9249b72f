// tools/commands.h - the realm-shadow command: its table of subcommands
// (name, usage forms with their summaries, help, options, handler) and the
// dispatch from the command line to a handler.
//
// The table is the one place a subcommand or an option is named:
// argument parsing, `realm-shadow --help`, `realm-shadow <command> --help`
// and the command list and option tables of docs/cli.md
// (`realm-shadow help --markdown`) are all read from it (command_line.h).
#ifndef TOOLS_COMMANDS_H_
#define TOOLS_COMMANDS_H_

#include <span>
#include <string>

#include "realm_shadow/layers.h"
#include "tools/command_line.h"

namespace realm_shadow::tools {

REALM_SHADOW_HEADER_OF_LAYER(tools);

// Every subcommand, in the order of the main usage.
std::span<const Command> RealmShadowCommands();

// `realm-shadow --help`.
std::string RealmShadowUsage();

// The whole command: `realm-shadow <command> [arguments]`, `--help`, `-h`,
// `help`, `help --markdown`.  Returns the exit status (handlers.h).
int RunRealmShadow(int argc, char** argv);

}  // namespace realm_shadow::tools

#endif  // TOOLS_COMMANDS_H_
