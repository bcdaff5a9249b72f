// Every realm-shadow subcommand run as a process: output on good input,
// exit status 1 with a message naming the file on bad input, 2 on misuse.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "realm_shadow/format/dump.h"
#include "tests/tools/run_cli.h"
#include "tools/command_line.h"
#include "tools/commands.h"

namespace realm_shadow {
namespace {

const std::string kFixtures = REALM_SHADOW_FIXTURES;
const std::string kSpyFixtures = REALM_SHADOW_SPY_FIXTURES;

using testing::ContainsText;
using testing::Result;
using testing::RunCli;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::ifstream(kFixtures + "/INDEX.txt").good())
      FAIL() << "no fixtures at " << kFixtures;
    dir_ = ::testing::TempDir() + "/realm_shadow_cli_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(std::system(("mkdir -p '" + dir_ + "'").c_str()), 0);
  }
  std::string Ingest(const std::string& name) {
    const std::string out = dir_ + "/" + name + ".dump";
    Result r = RunCli("ingest-realm-log '" + kFixtures + "/" + name + ".log' -o '" +
                   out + "'");
    EXPECT_EQ(r.status, 0) << r.output;
    return out;
  }
  std::string dir_;
};

TEST_F(Cli, MisuseIsExitStatus2) {
  EXPECT_EQ(RunCli("").status, 2);
  EXPECT_EQ(RunCli("frobnicate").status, 2);
  EXPECT_EQ(RunCli("report --bogus x").status, 2);
  EXPECT_EQ(RunCli("report").status, 2);
  EXPECT_EQ(RunCli("diff onlyone").status, 2);
}

TEST_F(Cli, ReportOfCircuitOom) {
  const std::string dump = Ingest("circuit-oom");
  Result r = RunCli("report '" + dump + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "memory 0x1e00000000000000")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "capacity            8 MiB (8388608 B)"));
  EXPECT_TRUE(ContainsText(r.output, "in 48 allocation(s)"));
  EXPECT_TRUE(ContainsText(r.output, "request 717.91 KiB (735140 B)"));
  EXPECT_TRUE(ContainsText(r.output, "now: exhaustion"));
  EXPECT_TRUE(ContainsText(r.output, "blockers (fewest bytes)"));
  EXPECT_TRUE(ContainsText(r.output, "hole histogram"));
  EXPECT_TRUE(ContainsText(r.output, "what the source could not tell"));
}

TEST_F(Cli, ReportKeepsNodesApartAcrossFiles) {
  const std::string a = Ingest("circuit-oom");
  const std::string b = Ingest("multiple-partitions-oom");
  Result r = RunCli("report '" + a + "' '" + b + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  // Same node and id in both files: both are shown, each under its file.
  size_t first = r.output.find("node 0 memory 0x1e00000000000000");
  ASSERT_NE(first, std::string::npos);
  EXPECT_NE(r.output.find("node 0 memory 0x1e00000000000000", first + 1),
            std::string::npos);
  EXPECT_TRUE(ContainsText(r.output, "16 MiB (16777216 B)"));
}

TEST_F(Cli, HolesAndBlockers) {
  const std::string dump = Ingest("realm-frag-deferred");
  Result holes = RunCli("holes '" + dump + "' --memory 1e00000000000000 --top 2");
  ASSERT_EQ(holes.status, 0) << holes.output;
  EXPECT_TRUE(ContainsText(holes.output, "largest 2, largest first"));
  EXPECT_TRUE(ContainsText(holes.output, "offset 4211264  end 6619136"));
  EXPECT_FALSE(ContainsText(holes.output, "0x1e00000000000002"));

  Result fits = RunCli("blockers '" + dump + "' --size 1MiB --memory 0x1e00000000000000");
  ASSERT_EQ(fits.status, 0) << fits.output;
  EXPECT_TRUE(ContainsText(fits.output, "fits now")) << fits.output;

  Result frag = RunCli("blockers '" + dump +
                    "' --size 4428672 --align 32 --memory 1e00000000000000");
  ASSERT_EQ(frag.status, 0) << frag.output;
  EXPECT_TRUE(ContainsText(frag.output, "does not fit: fragmentation")) << frag.output;
  EXPECT_TRUE(ContainsText(frag.output, "instance 0x4000000000000005"));
  Result count = RunCli("blockers '" + dump +
                     "' --size 4428672 --objective count --memory 1e00000000000000");
  EXPECT_EQ(count.status, 0);
  EXPECT_TRUE(ContainsText(count.output, "fewest allocations"));

  EXPECT_EQ(RunCli("blockers '" + dump + "'").status, 2);  // no --size
  // The size grammar (docs/cli.md): 64K is 64 KiB, a fraction must make
  // whole bytes, a count takes no unit.
  Result k = RunCli("blockers '" + dump + "' --size 64K --memory 1e00000000000000");
  EXPECT_EQ(k.status, 0);
  EXPECT_TRUE(ContainsText(k.output, "64 KiB (65536 B)")) << k.output;
  EXPECT_EQ(RunCli("blockers '" + dump + "' --size 1.5KiB").status, 0);
  EXPECT_EQ(RunCli("blockers '" + dump + "' --size 0.3KiB").status, 2);
  EXPECT_EQ(RunCli("blockers '" + dump + "' --size -1").status, 2);
  EXPECT_EQ(RunCli("holes '" + dump + "' --top 1K").status, 2);
  EXPECT_EQ(RunCli("blockers '" + dump + "' --size 1 --objective most").status, 2);
  Result missing = RunCli("holes '" + dump + "' --memory 0x1e000000000000ff");
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(ContainsText(missing.output, "no memory 0x1e000000000000ff"));
}

TEST_F(Cli, JsonOneAndMany) {
  const std::string a = Ingest("circuit-oom");
  const std::string b = Ingest("circuit-normal");
  Result one = RunCli("json '" + a + "'");
  ASSERT_EQ(one.status, 0) << one.output;
  EXPECT_EQ(one.output.front(), '{');
  EXPECT_TRUE(ContainsText(one.output, "\"format\""));
  EXPECT_TRUE(ContainsText(one.output, "0x1e00000000000000"));
  Result many = RunCli("json '" + a + "' '" + b + "'");
  ASSERT_EQ(many.status, 0);
  EXPECT_EQ(many.output.front(), '[');
}

TEST_F(Cli, DiffBetweenTwoDumps) {
  const std::string a = Ingest("circuit-oom");
  const std::string b = Ingest("multiple-partitions-oom");
  Result r = RunCli("diff '" + a + "' '" + b + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "removed 48")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "holes opened"));
  Result same = RunCli("diff '" + a + "' '" + a + "'");
  EXPECT_EQ(same.status, 0);
  EXPECT_TRUE(ContainsText(same.output, "no change")) << same.output;
}

// One allocation whose identity changed between two dumps, nothing else:
// diff says what changed ("identity fields=a -> fields=b"); it used to list
// it as "changed in place ... live -> live".  The identity ids differ too
// (each process interns its own): equal descriptions under different ids
// are no change.
TEST_F(Cli, DiffSaysWhatChangedInPlace) {
  DumpFile a;
  a.memories.emplace_back();
  Snapshot& s = a.memories.back();
  s.memory_id = 0x1e00000000000000ull;
  s.capacity = 1 << 20;
  Allocation one;
  one.instance = 0x4000000000000001ull;
  one.size = 4096;
  one.identity = 1;
  Allocation two = one;
  two.instance = 0x4000000000000002ull;
  two.offset = 4096;
  two.identity = 2;
  s.allocations = {one, two};
  Identity first{1, AllocationKind::kRegionInstance, {{"fields", "a"}}};
  Identity second{2, AllocationKind::kRegionInstance, {{"fields", "same"}}};
  s.identities = {first, second};
  DumpFile b = a;
  b.memories[0].identities[0].attributes = {{"fields", "b"}};
  b.memories[0].allocations[1].identity = 7;  // same description, other id
  b.memories[0].identities[1].id = 7;
  const std::string pa = dir_ + "/a.rsd", pb = dir_ + "/b.rsd";
  ASSERT_TRUE(WriteDump(pa, a).ok());
  ASSERT_TRUE(WriteDump(pb, b).ok());
  Result r = RunCli("diff '" + pa + "' '" + pb + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "changed in place 1\n")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "* instance 0x4000000000000001 [0, 4096) identity fields=a -> fields=b\n"))
      << r.output;
  EXPECT_FALSE(ContainsText(r.output, "live -> live")) << r.output;
}

TEST_F(Cli, Html) {
  const std::string a = Ingest("circuit-oom");
  const std::string page = dir_ + "/map.html";
  Result r = RunCli("html '" + a + "' -o '" + page + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(std::ifstream(page).good());
  const std::string b = Ingest("multiple-partitions-oom");
  Result diff = RunCli("html '" + a + "' '" + b + "' --diff -o '" + dir_ +
                    "/diff.html'");
  EXPECT_EQ(diff.status, 0) << diff.output;
  EXPECT_EQ(RunCli("html '" + a + "' --diff -o x.html").status, 2);
  EXPECT_EQ(RunCli("html '" + a + "'").status, 2);
}

TEST_F(Cli, BadInputNamesTheFile) {
  const std::string missing = dir_ + "/nope.dump";
  Result r = RunCli("report '" + missing + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(ContainsText(r.output, missing)) << r.output;

  const std::string foreign = dir_ + "/foreign.dump";
  std::ofstream(foreign) << "this is not a dump file at all, just some text\n";
  r = RunCli("report '" + foreign + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(ContainsText(r.output, foreign)) << r.output;

  // A good dump cut in half.
  const std::string whole = Ingest("circuit-oom");
  std::ifstream in(whole, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string content = bytes.str();
  const std::string truncated = dir_ + "/truncated.dump";
  std::ofstream(truncated, std::ios::binary)
      << content.substr(0, content.size() / 2);
  for (const char* c : {"report", "holes", "json"}) {
    r = RunCli(std::string(c) + " '" + truncated + "'");
    EXPECT_EQ(r.status, 1) << c;
    EXPECT_TRUE(ContainsText(r.output, truncated)) << r.output;
  }
  r = RunCli("diff '" + whole + "' '" + truncated + "'");
  EXPECT_EQ(r.status, 1);

  // Logs: empty, garbage, missing.
  const std::string empty = dir_ + "/empty.log";
  std::ofstream(empty).close();
  r = RunCli("ingest-realm-log '" + empty + "' -o '" + dir_ + "/e.dump'");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(ContainsText(r.output, empty));
  EXPECT_TRUE(ContainsText(r.output, "not a Realm log"));
  const std::string garbage = dir_ + "/garbage.log";
  {
    std::ofstream g(garbage, std::ios::binary);
    g << "[0 - 1] 0.1 {2}{inst}: allocation completed: inst=?? offset=x\n";
    for (int i = 0; i < 256; ++i) g << static_cast<char>(i);
    g << "\n[0 - 1] 0.2 {1}{inst}: deallocation completed: inst=4000000000000009\n";
  }
  r = RunCli("ingest-realm-log '" + garbage + "' -o '" + dir_ + "/g.dump'");
  EXPECT_EQ(r.status, 0) << r.output;
  r = RunCli("report '" + dir_ + "/g.dump'");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(ContainsText(r.output, "unrecognized lines skipped: 1")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "unknown_instance: 1")) << r.output;
  r = RunCli("ingest-realm-log '" + dir_ + "/none.log' -o '" + dir_ + "/n.dump'");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(ContainsText(r.output, "none.log"));
  EXPECT_EQ(RunCli("ingest-realm-log '" + garbage + "'").status, 2);  // no -o
}

// The stock-Legion path end to end: every rank's log of a 2-rank run in one
// dump, the run summary first, the report grouped by task, one node alone.
TEST_F(Cli, TwoRankRunReportByTask) {
  if (!std::ifstream(kSpyFixtures + "/INDEX.txt").good())
    FAIL() << "no fixtures at " << kSpyFixtures;
  const std::string dump = dir_ + "/oom.rsd";
  Result in = RunCli("ingest-realm-log '" + kSpyFixtures +
                     "/circuit-2rank-oom_0.log' '" + kSpyFixtures +
                     "/circuit-2rank-oom_1.log' -o '" + dump + "'");
  ASSERT_EQ(in.status, 0) << in.output;
  EXPECT_TRUE(ContainsText(in.output, "2 memory(ies) of 2 node(s)")) << in.output;
  EXPECT_TRUE(ContainsText(in.output, "Legion Spy identities attached to 56 of 56"))
      << in.output;
  EXPECT_FALSE(ContainsText(in.output, "warning"));
  Result r = RunCli("report --by task '" + dump + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.rfind("run summary: 2 node(s), 2 memory(ies)", 0), 0u)
      << r.output;
  EXPECT_TRUE(ContainsText(r.output, "  by task  (4 group(s)")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "calc_new_currents")) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "node 1 memory 0x1e00010000000000"));
  // Default grouping: no Legate store in this run, and every instance is a
  // region of its own (a tile), so by task.
  Result d = RunCli("report '" + dump + "'");
  EXPECT_TRUE(ContainsText(d.output, "  by task  (")) << d.output;
  Result by_region = RunCli("report --by region '" + dump + "'");
  EXPECT_TRUE(ContainsText(by_region.output, "  by regions  (29 group(s)"))
      << by_region.output;
  Result one = RunCli("report --node 1 '" + dump + "'");
  ASSERT_EQ(one.status, 0) << one.output;
  EXPECT_FALSE(ContainsText(one.output, "run summary"));
  EXPECT_FALSE(ContainsText(one.output, "node 0 memory"));
  Result none = RunCli("report --node 7 '" + dump + "'");
  EXPECT_EQ(none.status, 1);
  EXPECT_TRUE(ContainsText(none.output, "no node 7")) << none.output;
  EXPECT_EQ(RunCli("report --by '' '" + dump + "'").status, 2);
  EXPECT_EQ(RunCli("report --node x '" + dump + "'").status, 2);
  const std::string page = dir_ + "/oom.html";
  Result h = RunCli("html '" + dump + "' --color-by task -o '" + page + "'");
  EXPECT_EQ(h.status, 0) << h.output;
  std::ifstream in_page(page);
  std::stringstream text;
  text << in_page.rdbuf();
  EXPECT_TRUE(ContainsText(text.str(), "\"color_by\":\"task\""));
}

// Per-instance lists are cut to what a person reads; --all shows them all.
TEST_F(Cli, ReportCutsListsUnlessAll) {
  const std::string dump = Ingest("circuit-oom");
  Result cut = RunCli("report '" + dump + "'");
  ASSERT_EQ(cut.status, 0) << cut.output;
  // The fewest-bytes window releases 15 allocations: 10 shown.
  EXPECT_TRUE(ContainsText(cut.output, "... 5 more (--all shows every one)"))
      << cut.output;
  Result all = RunCli("report --all '" + dump + "'");
  EXPECT_FALSE(ContainsText(all.output, "more (--all shows every one)"));
  EXPECT_TRUE(ContainsText(all.output, "instance 0x400000000000000e [688128"));
}

// A log without Realm's debug-level lines: said at once, with what to do.
TEST_F(Cli, LogWithoutDebugLinesIsSaidAtOnce) {
  std::ifstream in(kFixtures + "/circuit-oom.log");
  const std::string log = dir_ + "/nodebug.log";
  {
    std::ofstream out(log);
    for (std::string line; std::getline(in, line);)
      if (line.find("{1}{") == std::string::npos) out << line << "\n";
  }
  Result r = RunCli("ingest-realm-log '" + log + "' -o '" + dir_ + "/nd.rsd'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(ContainsText(r.output, "warning: " + log +
                                     ": the log has no debug-level lines"))
      << r.output;
  EXPECT_TRUE(ContainsText(r.output, "-DLegion_OUTPUT_LEVEL=DEBUG"));
  EXPECT_TRUE(ContainsText(r.output, "-level inst=1"));
  Result report = RunCli("report '" + dir_ + "/nd.rsd'");
  EXPECT_TRUE(ContainsText(report.output, "placements          unknown for 48"))
      << report.output;
  EXPECT_FALSE(ContainsText(report.output, "total free"));
}


// ---------------------------------------------------------------------------
// The command table (tools/commands.cc) and what is read from it: the main
// usage, each command's help, its parsing, docs/cli.md.

using tools::Command;
using tools::RealmShadowCommands;

// Whitespace runs as one space, so that wrapped lines read as one.
std::string Squeeze(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  return out;
}

// The usage forms that `realm-shadow <name> --help` prints, each on one
// line without "realm-shadow <name> ": its lines up to the description.
std::vector<std::string> HelpForms(const std::string& name, const std::string& help) {
  const std::string first = "usage: realm-shadow " + name + " ";
  const std::string other = "       realm-shadow " + name + " ";
  std::vector<std::string> forms;
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(first, 0) == 0) {
      forms.push_back(line.substr(first.size()));
    } else if (line.rfind(other, 0) == 0) {
      forms.push_back(line.substr(other.size()));
    } else if (!forms.empty() && !line.empty() && line[0] == ' ') {
      forms.back() += " " + line;
    } else {
      break;
    }
  }
  for (std::string& form : forms) form = Squeeze(form);
  return forms;
}

TEST(CliTable, TableIsSound) {
  EXPECT_EQ(tools::TableProblems(RealmShadowCommands()), std::vector<std::string>{});
}

// The main usage wrote its own copy of each command's forms; it left out
// report --top, html --no-replay, timeline --top and --lead, at --memory
// and --with-history, and named compare's operands and values and
// ingest-realm-log's --cut-at-dump value otherwise.  Only the processes'
// texts are compared, so that this runs against any build.
TEST(CliTable, MainUsageShowsEachFormAsItsCommandsHelp) {
  const std::string usage = Squeeze(RunCli("--help").output);
  for (const Command& c : RealmShadowCommands()) {
    const std::string name(c.name);
    const std::vector<std::string> forms = HelpForms(name, RunCli(name + " --help").output);
    EXPECT_EQ(forms.size(), c.forms.size()) << name;
    for (const std::string& form : forms)
      EXPECT_TRUE(ContainsText(usage, " " + name + " " + form + " "))
          << "realm-shadow --help lacks the form of `" << name
          << " --help`: " << form << "\n" << usage;
  }
}

// html --help showed --diff in a usage form and not among the options.
TEST(CliTable, HelpExplainsEveryOptionItsFormsShow) {
  for (const Command& c : RealmShadowCommands()) {
    const std::string name(c.name);
    const std::string help = RunCli(name + " --help").output;
    for (const std::string& form : HelpForms(name, help)) {
      std::istringstream words(form);
      for (std::string word; words >> word;) {
        word.erase(0, word.find_first_not_of("[("));
        word.erase(word.find_last_not_of(")].") + 1);
        if (word.size() < 2 || word[0] != '-') continue;
        EXPECT_TRUE(ContainsText(help, "\n  " + word + " "))
            << name << " --help shows " << word << " and does not explain it:\n"
            << help;
      }
    }
  }
}

TEST(CliTable, HelpIsTheTables) {
  const std::string usage = tools::RealmShadowUsage();
  for (const char* asked : {"--help", "-h", "help"}) {
    const Result r = RunCli(asked);
    EXPECT_EQ(r.status, 0) << asked;
    EXPECT_EQ(r.output, usage) << asked;
  }
  Result r = RunCli("");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, usage);
  r = RunCli("frobnicate");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "realm-shadow: unknown command 'frobnicate'\n" + usage);
  for (const Command& c : RealmShadowCommands()) {
    const std::string name(c.name);
    for (const std::string asked : {" --help", " -h", " x.rsd --help"}) {
      r = RunCli(name + asked);
      EXPECT_EQ(r.status, 0) << name << asked;
      EXPECT_EQ(r.output, tools::CommandHelp(c)) << name << asked;
    }
  }
}

TEST(CliTable, UnknownOptionsAndMissingValues) {
  for (const Command& c : RealmShadowCommands()) {
    const std::string name(c.name);
    const std::string help = tools::CommandHelp(c);
    Result r = RunCli(name + " x.rsd --no-such-option");
    EXPECT_EQ(r.status, 2) << name;
    EXPECT_EQ(r.output, "realm-shadow " + name +
                            ": unknown option '--no-such-option'\n" + help);
    for (const tools::CommandOption& option : c.options) {
      const std::string spelling(option.spelling);
      if (option.TakesValue()) {
        r = RunCli(name + " x.rsd " + spelling);
        EXPECT_EQ(r.status, 2) << name << " " << spelling;
        EXPECT_EQ(r.output, "realm-shadow " + name + ": option " + spelling +
                                " needs a value\n" + help);
      } else {
        r = RunCli(name + " x.rsd " + spelling + "=1");
        EXPECT_EQ(r.status, 2) << name << " " << spelling;
        EXPECT_EQ(r.output, "realm-shadow " + name + ": unknown option '" +
                                spelling + "=1'\n" + help);
      }
    }
  }
}

// docs/cli.md holds exactly the block `realm-shadow help --markdown` writes.
TEST(CliTable, DocsHoldTheCommandTable) {
  std::ifstream in(REALM_SHADOW_CLI_DOC);
  ASSERT_TRUE(in.good()) << REALM_SHADOW_CLI_DOC;
  std::stringstream doc;
  doc << in.rdbuf();
  const Result r = RunCli("help --markdown");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, tools::CommandsMarkdown(RealmShadowCommands()));
  EXPECT_TRUE(ContainsText(doc.str(), r.output))
      << REALM_SHADOW_CLI_DOC << " does not hold what `realm-shadow help "
      << "--markdown` writes; run tests/tools/update_cli_doc.py " << testing::kCli
      << "\n" << r.output;
}

}  // namespace
}  // namespace realm_shadow
