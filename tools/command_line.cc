// tools/command_line.cc - the parser and the texts of a command table
// (command_line.h).
#include "tools/command_line.h"

#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace realm_shadow::tools {
namespace {

// A synopsis line wraps before passing this many columns.
constexpr size_t kSynopsisWidth = 76;
// The column of the main usage's summaries.
constexpr size_t kSummaryColumn = 38;
constexpr absl::string_view kProgram = "realm-shadow";

constexpr absl::string_view kMarkdownBegin =
    "<!-- Written by `realm-shadow help --markdown` from the command table "
    "(tools/commands.cc) down to its end line; tests/tools/cli_test.cc checks "
    "that this file holds exactly that output. -->";
constexpr absl::string_view kMarkdownEnd =
    "<!-- End of `realm-shadow help --markdown`. -->";

// ---------------------------------------------------------------------------
// Synopses

// A synopsis cut at the spaces outside brackets: "(--event | --time)" and
// "[--policy]..." are one unit each, so a line never breaks inside one.
std::vector<absl::string_view> SynopsisUnits(absl::string_view synopsis) {
  std::vector<absl::string_view> units;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= synopsis.size(); ++i) {
    const char c = i < synopsis.size() ? synopsis[i] : ' ';
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c != ' ' || depth > 0) continue;
    if (i > start) units.push_back(synopsis.substr(start, i - start));
    start = i + 1;
  }
  return units;
}

// A word of a unit split into what surrounds an option's spelling:
// "[--policy]..." is "[", "--policy", "]...".  `spelling` is empty for an
// operand ("FILE...") or a separator ("|").
struct SynopsisWord {
  absl::string_view before, spelling, after;
};

SynopsisWord ReadWord(absl::string_view word) {
  const size_t begin = word.find_first_not_of("[(");
  if (begin == absl::string_view::npos || word[begin] != '-') return {word, {}, {}};
  size_t end = word.size();
  while (end > begin && (word[end - 1] == ']' || word[end - 1] == ')' ||
                         word[end - 1] == '.'))
    --end;
  return {word.substr(0, begin), word.substr(begin, end - begin), word.substr(end)};
}

// Every option spelling a synopsis names.
std::vector<absl::string_view> SynopsisSpellings(absl::string_view synopsis) {
  std::vector<absl::string_view> spellings;
  for (absl::string_view word : absl::StrSplit(synopsis, ' ', absl::SkipEmpty()))
    if (const SynopsisWord w = ReadWord(word); !w.spelling.empty())
      spellings.push_back(w.spelling);
  return spellings;
}

// A unit with each option's metavariable added: "[--top]" -> "[--top N]".
std::string RenderUnit(const Command& command, absl::string_view unit) {
  std::vector<std::string> words;
  for (absl::string_view word : absl::StrSplit(unit, ' ')) {
    const SynopsisWord w = ReadWord(word);
    const CommandOption* option =
        w.spelling.empty() ? nullptr : command.FindOption(w.spelling);
    words.push_back(option == nullptr
                        ? std::string(word)
                        : absl::StrCat(w.before, option->Usage(), w.after));
  }
  return absl::StrJoin(words, " ");
}

bool IsOptionUnit(absl::string_view unit) {
  return !unit.empty() && (unit[0] == '[' || unit[0] == '(' || unit[0] == '-');
}

// Where a wrapped synopsis continues: under the first operand (--help) or
// under the first option (the main usage), as each has always been printed.
enum class Continuation { kUnderOperands, kUnderOptions };

// `prefix` then the form's units, wrapped at kSynopsisWidth; the lines
// without their final newline.
std::vector<std::string> WrapSynopsis(const Command& command,
                                      const CommandForm& form,
                                      std::string prefix,
                                      Continuation continuation) {
  std::vector<std::string> lines = {std::move(prefix)};
  size_t indent = lines[0].size();
  bool first = true, indent_fixed = continuation == Continuation::kUnderOperands;
  for (absl::string_view unit : SynopsisUnits(form.synopsis)) {
    const std::string text = RenderUnit(command, unit);
    if (!indent_fixed && IsOptionUnit(unit)) {
      indent = lines.back().size() + (first ? 0 : 1);
      indent_fixed = true;
    }
    if (first) {
      lines.back() += text;
    } else if (lines.back().size() + 1 + text.size() > kSynopsisWidth) {
      lines.push_back(std::string(indent, ' ') + text);
    } else {
      absl::StrAppend(&lines.back(), " ", text);
    }
    first = false;
  }
  return lines;
}

// ---------------------------------------------------------------------------
// Help texts

// `text`'s lines, the first after `head` padded to `column`, the others
// indented to it.
void AppendColumn(std::string* out, std::string head, size_t column,
                  absl::string_view text) {
  head += head.size() < column ? std::string(column - head.size(), ' ') : "  ";
  bool first = true;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    absl::StrAppend(out, first ? head : std::string(column, ' '), line, "\n");
    first = false;
  }
}

// An option's lines of help: one, or one per choice.
struct OptionLine {
  std::string usage;
  absl::string_view help;
};

std::vector<OptionLine> OptionLines(const CommandOption& option) {
  if (option.choices.empty()) return {{option.Usage(), option.help}};
  std::vector<OptionLine> lines;
  for (const OptionChoice& choice : option.choices)
    lines.push_back({absl::StrCat(option.spelling, " ", choice.value), choice.help});
  return lines;
}

// ---------------------------------------------------------------------------
// Markdown

// A table cell: one line, '|' escaped (also inside code spans: GitHub's
// tables split on it there).
std::string Cell(absl::string_view text) {
  std::string cell = absl::StrJoin(absl::StrSplit(text, '\n'), " ");
  std::string escaped;
  for (char c : cell) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string FormSynopsis(const Command& command, const CommandForm& form) {
  std::vector<std::string> units;
  for (absl::string_view unit : SynopsisUnits(form.synopsis))
    units.push_back(RenderUnit(command, unit));
  return absl::StrCat(command.name, " ", absl::StrJoin(units, " "));
}

}  // namespace

std::string CommandOption::Metavar() const {
  if (choices.empty()) return std::string(metavar);
  return absl::StrJoin(choices, "|", [](std::string* out, const OptionChoice& c) {
    absl::StrAppend(out, c.value);
  });
}

std::string CommandOption::Usage() const {
  const std::string value = Metavar();
  return value.empty() ? std::string(spelling) : absl::StrCat(spelling, " ", value);
}

const CommandOption* Command::FindOption(absl::string_view spelling) const {
  for (const CommandOption& option : options)
    if (option.spelling == spelling) return &option;
  return nullptr;
}

// ---------------------------------------------------------------------------
// Parsing

const CommandOption& CommandArgs::Known(absl::string_view spelling) const {
  const CommandOption* option = command_->FindOption(spelling);
  if (option == nullptr) {
    std::fprintf(stderr, "realm-shadow: bug: command %.*s has no option %.*s\n",
                 static_cast<int>(command_->name.size()), command_->name.data(),
                 static_cast<int>(spelling.size()), spelling.data());
    std::abort();
  }
  return *option;
}

bool CommandArgs::flag(absl::string_view spelling) const {
  Known(spelling);
  return flags_.count(spelling) > 0;
}

const std::string* CommandArgs::value(absl::string_view spelling) const {
  Known(spelling);
  auto it = values_.find(spelling);
  return it == values_.end() ? nullptr : &it->second.back();
}

const std::vector<std::string>& CommandArgs::values(absl::string_view spelling) const {
  static const std::vector<std::string> kNone;
  Known(spelling);
  auto it = values_.find(spelling);
  return it == values_.end() ? kNone : it->second;
}

absl::StatusOr<CommandArgs> ParseCommandArgs(const Command& command,
                                             std::span<char* const> arguments) {
  CommandArgs args(command);
  for (size_t i = 0; i < arguments.size(); ++i) {
    const absl::string_view arg = arguments[i];
    if (arg == "--help" || arg == "-h") {
      args.help_ = true;
      continue;
    }
    if (const CommandOption* flag = command.FindOption(arg);
        flag != nullptr && !flag->TakesValue()) {
      args.flags_.insert(std::string(arg));
      continue;
    }
    if (arg == "--") {
      for (++i; i < arguments.size(); ++i) args.operands_.push_back(arguments[i]);
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      args.operands_.push_back(std::string(arg));
      continue;
    }
    absl::string_view given = arg, value;
    bool inline_value = false;
    if (const size_t eq = arg.find('=');
        eq != absl::string_view::npos && arg.substr(0, 2) == "--") {
      given = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    const CommandOption* option = nullptr;
    for (const CommandOption& o : command.options)
      if (o.TakesValue() && (o.spelling == given || (!o.alias.empty() && o.alias == given)))
        option = &o;
    if (option == nullptr)
      return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "'"));
    if (!inline_value) {
      if (i + 1 >= arguments.size())
        return absl::InvalidArgumentError(
            absl::StrCat("option ", given, " needs a value"));
      value = arguments[++i];
    }
    args.values_[std::string(option->spelling)].push_back(std::string(value));
  }
  return args;
}

const Command* FindCommand(std::span<const Command> commands,
                           absl::string_view name) {
  for (const Command& c : commands)
    if (c.name == name) return &c;
  return nullptr;
}

// ---------------------------------------------------------------------------
// Texts

std::string CommandHelp(const Command& command) {
  std::string out;
  for (size_t i = 0; i < command.forms.size(); ++i) {
    const std::string prefix = absl::StrCat(i == 0 ? "usage: " : "       ",
                                            kProgram, " ", command.name, " ");
    for (const std::string& line :
         WrapSynopsis(command, command.forms[i], prefix, Continuation::kUnderOperands))
      absl::StrAppend(&out, line, "\n");
  }
  absl::StrAppend(&out, command.description);
  for (const CommandOption& option : command.options)
    for (const OptionLine& line : OptionLines(option))
      AppendColumn(&out, "  " + line.usage, 2 + command.help_column, line.help);
  return out;
}

std::string MainUsage(std::span<const Command> commands,
                      absl::string_view footer) {
  std::string out =
      absl::StrCat("usage: ", kProgram, " <command> [arguments]\n\ncommands:\n");
  for (const Command& command : commands) {
    for (const CommandForm& form : command.forms) {
      std::vector<std::string> lines = WrapSynopsis(
          command, form, absl::StrCat("  ", command.name, " "),
          Continuation::kUnderOptions);
      // The summary starts beside the synopsis when its last line leaves
      // room, else under it.
      std::string last = std::move(lines.back());
      lines.pop_back();
      for (const std::string& line : lines) absl::StrAppend(&out, line, "\n");
      if (last.size() >= kSummaryColumn) {
        absl::StrAppend(&out, last, "\n");
        last.clear();
      }
      AppendColumn(&out, std::move(last), kSummaryColumn, form.summary);
    }
  }
  absl::StrAppend(&out, "\n", footer);
  return out;
}

std::string CommandsMarkdown(std::span<const Command> commands) {
  std::string out = absl::StrCat(kMarkdownBegin, "\n\n");
  out += "| command | what it does |\n| --- | --- |\n";
  for (const Command& command : commands)
    for (const CommandForm& form : command.forms)
      absl::StrAppend(&out, "| `", Cell(FormSynopsis(command, form)), "` | ",
                      Cell(form.summary), " |\n");
  for (const Command& command : commands) {
    if (command.options.empty()) continue;
    absl::StrAppend(&out, "\n### Options of `", command.name,
                    "`\n\n| option | meaning |\n| --- | --- |\n");
    for (const CommandOption& option : command.options)
      for (const OptionLine& line : OptionLines(option))
        absl::StrAppend(&out, "| `", Cell(line.usage), "` | ", Cell(line.help),
                        " |\n");
  }
  absl::StrAppend(&out, "\n", kMarkdownEnd, "\n");
  return out;
}

std::vector<std::string> TableProblems(std::span<const Command> commands) {
  std::vector<std::string> problems;
  std::set<absl::string_view> names;
  for (const Command& command : commands) {
    const absl::string_view name = command.name;
    if (!names.insert(name).second)
      problems.push_back(absl::StrCat("command ", name, " is in the table twice"));
    if (command.forms.empty())
      problems.push_back(absl::StrCat(name, ": no usage form"));
    if (command.run == nullptr)
      problems.push_back(absl::StrCat(name, ": no handler"));
    std::set<absl::string_view> shown, spellings;
    for (const CommandForm& form : command.forms) {
      if (form.summary.empty())
        problems.push_back(absl::StrCat(name, " ", form.synopsis, ": no summary"));
      for (absl::string_view spelling : SynopsisSpellings(form.synopsis)) {
        shown.insert(spelling);
        if (command.FindOption(spelling) == nullptr)
          problems.push_back(absl::StrCat(name, " ", form.synopsis, ": ",
                                          spelling, " is not an option of ", name));
      }
    }
    for (const CommandOption& option : command.options) {
      for (absl::string_view spelling : {option.spelling, option.alias})
        if (!spelling.empty() && !spellings.insert(spelling).second)
          problems.push_back(absl::StrCat(name, ": ", spelling, " given twice"));
      if (!shown.count(option.spelling))
        problems.push_back(
            absl::StrCat(name, ": ", option.spelling, " is in no usage form"));
      if (option.help.empty() == option.choices.empty())
        problems.push_back(absl::StrCat(
            name, ": ", option.spelling, " needs a help text or choices, not both"));
      if (option.spelling == "--help" || option.spelling == "-h")
        problems.push_back(absl::StrCat(name, ": ", option.spelling,
                                        " is every command's"));
    }
  }
  return problems;
}

}  // namespace realm_shadow::tools
