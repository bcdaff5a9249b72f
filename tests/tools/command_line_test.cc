// The command table's parser and texts (tools/command_line.h) on a small
// table of their own: what the parser accepts and refuses, and the layout
// rules --help and the main usage are printed with.
#include "tools/command_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace realm_shadow::tools {
namespace {

int Ok(const Command&, const CommandArgs&) { return 0; }

const Command& Sample() {
  static const Command command = {
      .name = "sample",
      .forms = {{"FILE... [--top] [--all] [--policy]... -o",
                 "a first line\nand a second"},
                {"A B --pick -o", "short"}},
      .description = "Says what it does.\n",
      .options = {{"--top", "N", "how many (default 10)"},
                  {"--all", "", "every one"},
                  {"--policy", "P", "a policy;\nrepeat for several"},
                  {.spelling = "--pick", .choices = {{"one", "the first"}, {"two", "the second"}}},
                  {.spelling = "-o", .metavar = "OUT", .help = "the file to write",
                   .alias = "--output"}},
      .help_column = 10,
      .run = Ok};
  return command;
}

absl::StatusOr<CommandArgs> Parse(std::vector<std::string> words) {
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return ParseCommandArgs(Sample(), argv);
}

TEST(CommandLine, ReadsOperandsValuesAndFlags) {
  const absl::StatusOr<CommandArgs> args =
      Parse({"a", "--top", "3", "--all", "-", "--policy=x", "--policy", "y",
             "--output", "o.rsd", "--top=4", "--", "--all", "-o"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->operands(), (std::vector<std::string>{"a", "-", "--all", "-o"}));
  EXPECT_EQ(*args->value("--top"), "4");  // the last one given
  EXPECT_TRUE(args->flag("--all"));
  EXPECT_EQ(args->values("--policy"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(*args->value("-o"), "o.rsd");  // --output is read as -o
  EXPECT_EQ(args->value("--pick"), nullptr);
  EXPECT_TRUE(args->values("--pick").empty());
  EXPECT_FALSE(args->help());
}

TEST(CommandLine, HelpAnywhereAndValuesThatLookLikeOptions) {
  absl::StatusOr<CommandArgs> args = Parse({"a", "-h"});
  ASSERT_TRUE(args.ok());
  EXPECT_TRUE(args->help());
  // A value is the next argument, whatever it looks like.
  args = Parse({"--top", "--help", "--top="});
  ASSERT_TRUE(args.ok());
  EXPECT_FALSE(args->help());
  EXPECT_EQ(*args->value("--top"), "");
  EXPECT_EQ(args->values("--top"), (std::vector<std::string>{"--help", ""}));
}

TEST(CommandLine, RefusesWhatTheTableLacks) {
  EXPECT_EQ(Parse({"--bogus"}).status().message(), "unknown option '--bogus'");
  EXPECT_EQ(Parse({"--all=1"}).status().message(), "unknown option '--all=1'");
  EXPECT_EQ(Parse({"-o=x"}).status().message(), "unknown option '-o=x'");
  EXPECT_EQ(Parse({"--help=1"}).status().message(), "unknown option '--help=1'");
  EXPECT_EQ(Parse({"a", "--top"}).status().message(), "option --top needs a value");
  EXPECT_EQ(Parse({"--output"}).status().message(), "option --output needs a value");
  // The first error stops the parse, --help given before it or not.
  EXPECT_FALSE(Parse({"--help", "--bogus"}).ok());
}

TEST(CommandLine, ReadingAnOptionTheTableLacksIsABug) {
  const absl::StatusOr<CommandArgs> args = Parse({});
  ASSERT_TRUE(args.ok());
  EXPECT_DEATH(args->value("--tpo"), "command sample has no option --tpo");
  EXPECT_DEATH(args->flag("--al"), "command sample has no option --al");
}

TEST(CommandLine, HelpLayout) {
  EXPECT_EQ(CommandHelp(Sample()),
            "usage: realm-shadow sample FILE... [--top N] [--all] [--policy P]... -o OUT\n"
            "       realm-shadow sample A B --pick one|two -o OUT\n"
            "Says what it does.\n"
            "  --top N   how many (default 10)\n"
            "  --all     every one\n"
            // At or past the column: two spaces.
            "  --policy P  a policy;\n"
            "            repeat for several\n"
            "  --pick one  the first\n"
            "  --pick two  the second\n"
            "  -o OUT    the file to write\n");
}

TEST(CommandLine, SynopsesWrapAt76Columns) {
  const Command wide = {
      .name = "wide",
      .forms = {{"FILE... [--aaaaaaaaaa] [--bbbbbbbbbb] [--cccccccccc] [--dddddddddd]",
                 "s"}},
      .options = {{"--aaaaaaaaaa", "X", "a"},
                  {"--bbbbbbbbbb", "X", "b"},
                  {"--cccccccccc", "XXXXXX", "c"},
                  {"--dddddddddd", "X", "d"}},
      .help_column = 16,
      .run = Ok};
  // --help continues under the operands: "usage: ... [--bbbbbbbbbb X]" is
  // 66 columns, " [--cccccccccc XXXXXX]" would make it 88.
  const std::string help = CommandHelp(wide);
  EXPECT_EQ(help.substr(0, help.find("  --aaaa")),
            "usage: realm-shadow wide FILE... [--aaaaaaaaaa X] [--bbbbbbbbbb X]\n"
            "                         [--cccccccccc XXXXXX] [--dddddddddd X]\n");
  // The main usage continues under the first option, and the summary goes
  // beside a last line that leaves room for it.
  const std::vector<Command> commands = {wide};
  EXPECT_EQ(MainUsage(commands, "footer\n"),
            "usage: realm-shadow <command> [arguments]\n"
            "\n"
            "commands:\n"
            "  wide FILE... [--aaaaaaaaaa X] [--bbbbbbbbbb X] [--cccccccccc XXXXXX]\n"
            "               [--dddddddddd X]       s\n"
            "\n"
            "footer\n");
}

TEST(CommandLine, MainUsagePutsSummariesAtColumn38) {
  const std::vector<Command> commands = {Sample()};
  EXPECT_EQ(MainUsage(commands, "footer\n"),
            "usage: realm-shadow <command> [arguments]\n"
            "\n"
            "commands:\n"
            "  sample FILE... [--top N] [--all] [--policy P]... -o OUT\n"
            "                                      a first line\n"
            "                                      and a second\n"
            "  sample A B --pick one|two -o OUT    short\n"
            "\n"
            "footer\n");
}

TEST(CommandLine, Markdown) {
  const std::vector<Command> commands = {Sample()};
  const std::string md = CommandsMarkdown(commands);
  EXPECT_NE(md.find("| `sample FILE... [--top N] [--all] [--policy P]... -o OUT` | "
                    "a first line and a second |\n"),
            std::string::npos)
      << md;
  // '|' is escaped in a cell, code spans too.
  EXPECT_NE(md.find("| `sample A B --pick one\\|two -o OUT` | short |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("### Options of `sample`\n\n| option | meaning |\n| --- | --- |\n"
                    "| `--top N` | how many (default 10) |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| `--policy P` | a policy; repeat for several |\n"), std::string::npos);
  EXPECT_NE(md.find("| `--pick two` | the second |\n"), std::string::npos);
  EXPECT_EQ(md.find("--output"), std::string::npos);  // the alias is shown nowhere
  EXPECT_EQ(md.rfind("<!-- Written by `realm-shadow help --markdown`", 0), 0u);
  EXPECT_TRUE(md.ends_with("<!-- End of `realm-shadow help --markdown`. -->\n"));
}

TEST(CommandLine, TableProblems) {
  EXPECT_TRUE(TableProblems(std::vector<Command>{Sample()}).empty());
  Command broken = Sample();
  broken.forms[0].synopsis = "FILE... [--tpo] [--all] [--policy]... -o";
  broken.options.push_back({"--all", "", "again"});
  broken.options.push_back({.spelling = "-h"});
  broken.forms[1].summary = "";
  broken.run = nullptr;
  const std::vector<Command> table = {broken, Sample()};
  EXPECT_EQ(TableProblems(table),
            (std::vector<std::string>{
                "sample: no handler",
                "sample FILE... [--tpo] [--all] [--policy]... -o: --tpo is not an "
                "option of sample",
                "sample A B --pick -o: no summary",
                "sample: --top is in no usage form",
                "sample: --all given twice",
                "sample: -h is in no usage form",
                "sample: -h needs a help text or choices, not both",
                "sample: -h is every command's",
                "command sample is in the table twice",
            }));
}

}  // namespace
}  // namespace realm_shadow::tools
