// realm-shadow: what sits in each memory of a Legion/Realm program, where,
// and why a new allocation does not fit, read from dump files (or rebuilt
// from Realm's own log).  docs/cli.md describes every subcommand.
//
// Exit status: 0 success, 1 bad input (a file that cannot be read, a memory
// that is not there), 2 usage (unknown subcommand or option, missing
// argument).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/analysis/snapshot.h"
#include "realm_shadow/dump/dump.h"
#include "realm_shadow/faces/compare.h"
#include "realm_shadow/faces/html_page.h"
#include "realm_shadow/faces/human_size.h"
#include "realm_shadow/faces/realm_log.h"
#include "realm_shadow/faces/report.h"

namespace realm_shadow {
namespace {

constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;

const char kMainUsage[] =
    "usage: realm-shadow <command> [arguments]\n"
    "\n"
    "commands:\n"
    "  report FILE... [--by ATTR] [--node N] [--all]\n"
    "                                      every memory: use, who holds it,\n"
    "                                      holes, pending, failures with\n"
    "                                      blockers, anomalies\n"
    "  holes FILE... [--memory ID] [--top N]\n"
    "  blockers FILE... --size BYTES [--align BYTES] [--memory ID]\n"
    "                   [--objective bytes|count]\n"
    "  json FILE...                        JSON on stdout\n"
    "  diff A B                            offset-level changes from A to B\n"
    "  ingest-realm-log LOG... -o FILE     rebuild a dump from Realm logs,\n"
    "                                      one per rank (-level inst=1,\n"
    "                                      machine=1; -lg:spy for identity)\n"
    "  ingest-realm-log LOG --cut-at-dump D.rsd -o FILE\n"
    "                                      the log up to dump D's marker\n"
    "  compare SHADOW LOG [--run N] [--dump L] [--tsv]\n"
    "                                      does a dump agree with the log's\n"
    "  html FILE... -o PAGE.html [--color-by ATTR]\n"
    "                                      the memory map page\n"
    "  html A B --diff -o PAGE.html        the page comparing two dumps\n"
    "\n"
    "FILE: a dump file (one per node of a run).  Sizes: bytes, or with a\n"
    "unit: 4096, 64KiB, 512MiB, 4GiB (binary), 1MB (decimal).  Memory ids:\n"
    "hex with or without 0x.  'realm-shadow <command> --help' for more.\n";

struct Command {
  const char* name;
  const char* usage;
};

const Command kCommands[] = {
    {"report",
     "usage: realm-shadow report FILE... [--top N] [--by ATTR] [--node N] [--all]\n"
     "Per memory of every dump (memories kept apart by node and id):\n"
     "capacity, use by kind, who holds it (allocations grouped by an\n"
     "identity attribute: count, bytes, share of capacity, largest), the\n"
     "largest holes, hole histogram, fragmentation, deferred requests,\n"
     "pending releases, recent failures with their cause and blockers,\n"
     "anomalies; then what each dump's source could not tell.  With several\n"
     "nodes a run summary comes first, one line per memory by pressure, and\n"
     "full reports follow for the memories under most pressure.\n"
     "  --top N      how many holes to list (default 10)\n"
     "  --by ATTR    group by store, provenance, task, region, field, kind,\n"
     "               creator or any identity attribute (default: the Legate\n"
     "               store, else the region, else the task, when present)\n"
     "  --node N     only node N's memories\n"
     "  --all        every memory, group and instance (lists are cut to 10)\n"},
    {"holes",
     "usage: realm-shadow holes FILE... [--memory ID] [--top N]\n"
     "The largest holes of each memory (or of memory ID), largest first.\n"
     "  --memory ID  hex memory id, with or without 0x\n"
     "  --top N      how many (default 10)\n"},
    {"blockers",
     "usage: realm-shadow blockers FILE... --size BYTES [--align BYTES]\n"
     "                             [--memory ID] [--objective bytes|count]\n"
     "Whether a request fits each memory now; if not, whether that is\n"
     "fragmentation or exhaustion, and the cheapest contiguous window of\n"
     "collectable allocations whose release makes it fit.\n"
     "  --size BYTES        request size (4096, 64KiB, 4GiB, ...)\n"
     "  --align BYTES       alignment (default 1)\n"
     "  --memory ID         only this memory\n"
     "  --objective bytes   fewest bytes released (default)\n"
     "  --objective count   fewest allocations released\n"},
    {"json",
     "usage: realm-shadow json FILE...\n"
     "The dump as JSON on stdout (docs/json-schema.md).  One FILE: one JSON\n"
     "object.  Several: a JSON array with one object per file, in argument\n"
     "order (each keeps its node, source and notes).\n"},
    {"diff",
     "usage: realm-shadow diff A B\n"
     "Offset-level changes from dump A to dump B, per memory (matched by\n"
     "node and id): allocations added, removed, moved; holes opened and\n"
     "closed; totals.\n"},
    {"ingest-realm-log",
     "usage: realm-shadow ingest-realm-log LOG... -o FILE\n"
     "       realm-shadow ingest-realm-log LOG --cut-at-dump DUMP.rsd -o FILE\n"
     "Rebuild the memory state at the end of an unmodified Legion/Realm\n"
     "run from its logs and write it as one dump.  Run with -level\n"
     "inst=1,machine=1 (and -lg:spy -level legion_spy=2 for the regions,\n"
     "fields and tasks of every instance) and -logfile run_%.log (one log\n"
     "per rank, kept whole when the run aborts); give every rank's log\n"
     "(run_*.log), and Legate's out-of-memory report (the run's stderr) if\n"
     "there is one.  Logs are read in parallel.  Unknown lines are counted\n"
     "and skipped; the dump's notes say what the logs could not tell, and\n"
     "problems (missing debug-level lines, a second log of one rank, logs\n"
     "of different runs, a truncated log) are printed at once.\n"
     "  -o FILE               the dump to write\n"
     "  --cut-at-dump D.rsd   for each memory of the tracked dump D, replay\n"
     "                        the log only up to that memory's marker line\n"
     "                        for D (\"{2}{realm_shadow}: dump memory=...\n"
     "                        file=D\", logged with -level realm_shadow=2\n"
     "                        when D was taken); one LOG\n"},
    {"compare",
     "usage: realm-shadow compare SHADOW.rsd LOG.rsd [--run NAME] [--dump LABEL]\n"
     "                            [--tsv]\n"
     "Does a tracked dump agree with the state rebuilt from Realm's log at\n"
     "the same moment (ingest-realm-log --cut-at-dump)?  One row per memory:\n"
     "live instances, same (instance, offset, size), free, largest hole,\n"
     "pending requests, failures, the verdict and why.  Facts the log does\n"
     "not state (a redistricted piece's size, capacity without machine=1)\n"
     "are checked as far as the log goes and named.  Exit status 3 when a\n"
     "fact the log states differs or a memory is in one dump only.\n"
     "  --run NAME    label of the run in the first column\n"
     "  --dump LABEL  label of the dump in the second column (default: SHADOW)\n"
     "  --tsv         tab-separated rows without header, for scripts\n"},
    {"html",
     "usage: realm-shadow html FILE... -o PAGE.html [--color-by ATTR]\n"
     "       realm-shadow html A B --diff -o PAGE.html\n"
     "A self-contained page with every memory as a zoomable address map\n"
     "(the rows of several nodes grouped by node); with --diff, B compared\n"
     "with A.\n"
     "  -o PAGE.html      the page to write\n"
     "  --color-by ATTR   colour the blocks by kind (default) or by an\n"
     "                    identity attribute (task, store, region, field,\n"
     "                    ...): the top groups get a colour each, with a\n"
     "                    legend; the page can change it\n"},
};

const Command* FindCommand(const std::string& name) {
  for (const Command& c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

int Usage(const Command& c, const std::string& problem) {
  std::cerr << "realm-shadow " << c.name << ": " << problem << "\n"
            << c.usage;
  return kExitUsage;
}

int BadInput(const std::string& message) {
  std::cerr << "realm-shadow: " << message << "\n";
  return kExitBadInput;
}
int BadInput(const absl::Status& status) {
  return BadInput(std::string(status.message()));
}

struct Args {
  std::vector<std::string> files;
  std::map<std::string, std::string> values;
  bool help = false;
  bool diff = false;
  bool tsv = false;
  bool all = false;
};

// Options that take a value, per command; everything else starting with
// '-' is a usage error.
bool ParseArgs(const Command& c, int argc, char** argv, Args* out,
               std::string* problem) {
  const std::string name = c.name;
  auto takes_value = [&](const std::string& opt) {
    if (opt == "--memory") return name == "holes" || name == "blockers";
    if (opt == "--top") return name == "holes" || name == "report";
    if (opt == "--by" || opt == "--node") return name == "report";
    if (opt == "--color-by") return name == "html";
    if (opt == "--size" || opt == "--align" || opt == "--objective")
      return name == "blockers";
    if (opt == "-o" || opt == "--output")
      return name == "ingest-realm-log" || name == "html";
    if (opt == "--cut-at-dump") return name == "ingest-realm-log";
    if (opt == "--run" || opt == "--dump") return name == "compare";
    return false;
  };
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      out->help = true;
      continue;
    }
    if (arg == "--diff" && name == "html") {
      out->diff = true;
      continue;
    }
    if (arg == "--tsv" && name == "compare") {
      out->tsv = true;
      continue;
    }
    if (arg == "--all" && name == "report") {
      out->all = true;
      continue;
    }
    if (arg == "--") {
      for (++i; i < argc; ++i) out->files.push_back(argv[i]);
      break;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::string opt = arg, value;
      bool inline_value = false;
      const size_t eq = arg.find('=');
      if (eq != std::string::npos && arg.rfind("--", 0) == 0) {
        opt = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        inline_value = true;
      }
      if (!takes_value(opt)) {
        *problem = "unknown option '" + arg + "'";
        return false;
      }
      if (!inline_value) {
        if (i + 1 >= argc) {
          *problem = "option " + opt + " needs a value";
          return false;
        }
        value = argv[++i];
      }
      if (opt == "--output") opt = "-o";
      out->values[opt] = value;
      continue;
    }
    out->files.push_back(arg);
  }
  return true;
}

absl::StatusOr<std::vector<DumpFile>> LoadDumps(
    const std::vector<std::string>& files) {
  std::vector<DumpFile> dumps;
  for (const std::string& file : files) {
    absl::StatusOr<DumpFile> dump = ReadDump(file);
    if (!dump.ok()) return dump.status();
    dumps.push_back(*std::move(dump));
  }
  return dumps;
}

// Memories of the loaded dumps, filtered by --memory when given; they point
// into `dumps`.
absl::StatusOr<std::vector<LoadedMemory>> SelectMemories(
    const std::vector<DumpFile>& dumps, const std::vector<std::string>& files,
    const Args& args) {
  std::vector<LoadedMemory> all = ListMemories(dumps, files);
  auto it = args.values.find("--memory");
  if (it == args.values.end()) return all;
  uint64_t id = 0;
  std::string error;
  if (!ParseHexId(it->second, &id, &error))
    return absl::InvalidArgumentError("--memory " + error);
  std::vector<LoadedMemory> kept;
  for (const LoadedMemory& m : all)
    if (m.snapshot->memory_id == id) kept.push_back(m);
  if (kept.empty()) {
    std::string have;
    for (const LoadedMemory& m : all)
      absl::StrAppend(&have, " ", HexId(m.snapshot->memory_id));
    return absl::NotFoundError(absl::StrCat(
        "no memory ", HexId(id), " in the given dump(s)",
        have.empty() ? " (they hold no memory)" : "; they hold:" + have));
  }
  return kept;
}

// A count given on the command line ("--top 20"): a plain decimal number,
// no unit (a count is not a size).
absl::StatusOr<size_t> ParseCount(const std::string& text) {
  uint64_t v = 0;
  if (!absl::SimpleAtoi(text, &v) || v > 1000000000)
    return absl::InvalidArgumentError(
        "'" + text + "': expected a count (a whole number up to 10^9)");
  return static_cast<size_t>(v);
}

// Reads option `name` as a count into *value when it is given.
absl::Status CountOption(const Args& args, const char* name, size_t* value) {
  auto it = args.values.find(name);
  if (it == args.values.end()) return absl::OkStatus();
  absl::StatusOr<size_t> count = ParseCount(it->second);
  if (!count.ok())
    return absl::InvalidArgumentError(absl::StrCat(name, " ", count.status().message()));
  *value = *count;
  return absl::OkStatus();
}

int Usage(const Command& c, const absl::Status& problem) {
  return Usage(c, std::string(problem.message()));
}

int RunReport(const Command& c, const Args& args) {
  if (args.files.empty()) return Usage(c, "no dump file given");
  ReportOptions options;
  if (absl::Status top = CountOption(args, "--top", &options.top_holes); !top.ok())
    return Usage(c, top);
  if (auto it = args.values.find("--by"); it != args.values.end()) {
    if (it->second.empty()) return Usage(c, "--by needs an attribute");
    options.group_by = it->second;
  }
  options.all = args.all;
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.files);
  if (!dumps.ok()) return BadInput(dumps.status());
  if (auto it = args.values.find("--node"); it != args.values.end()) {
    const absl::StatusOr<size_t> node = ParseCount(it->second);
    if (!node.ok() || *node > UINT32_MAX)
      return Usage(c, "--node '" + it->second + "': expected a node number");
    std::set<uint32_t> nodes;
    for (const LoadedMemory& m : ListMemories(*dumps, args.files))
      nodes.insert(m.snapshot->node);
    if (!nodes.count(static_cast<uint32_t>(*node))) {
      std::string have;
      for (uint32_t n : nodes) have += " " + std::to_string(n);
      return BadInput("no node " + std::to_string(*node) +
                      " in the given dump(s); they hold node(s):" +
                      (have.empty() ? std::string(" none") : have));
    }
    options.node_selected = true;
    options.node = static_cast<uint32_t>(*node);
  }
  std::cout << FormatReport(*dumps, args.files, options);
  return 0;
}

int RunHoles(const Command& c, const Args& args) {
  if (args.files.empty()) return Usage(c, "no dump file given");
  size_t top = 10;
  if (absl::Status given = CountOption(args, "--top", &top); !given.ok())
    return Usage(c, given);
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.files);
  if (!dumps.ok()) return BadInput(dumps.status());
  const auto memories = SelectMemories(*dumps, args.files, args);
  if (!memories.ok()) return BadInput(memories.status());
  for (const LoadedMemory& m : *memories)
    std::cout << FormatHoles(*m.snapshot, top);
  return 0;
}

int RunBlockers(const Command& c, const Args& args) {
  if (args.files.empty()) return Usage(c, "no dump file given");
  auto size_it = args.values.find("--size");
  if (size_it == args.values.end()) return Usage(c, "--size is required");
  const absl::StatusOr<uint64_t> size = ParseHumanSize(size_it->second);
  if (!size.ok()) return Usage(c, absl::StrCat("--size ", size.status().message()));
  uint64_t alignment = 1;
  if (auto it = args.values.find("--align"); it != args.values.end()) {
    const absl::StatusOr<uint64_t> given = ParseHumanSize(it->second);
    if (!given.ok()) return Usage(c, absl::StrCat("--align ", given.status().message()));
    alignment = *given == 0 ? 1 : *given;
  }
  BlockerObjective objective = BlockerObjective::kFewestBytes;
  if (auto it = args.values.find("--objective"); it != args.values.end()) {
    if (it->second == "bytes") objective = BlockerObjective::kFewestBytes;
    else if (it->second == "count")
      objective = BlockerObjective::kFewestAllocations;
    else
      return Usage(c, "--objective '" + it->second +
                          "': expected bytes or count");
  }
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.files);
  if (!dumps.ok()) return BadInput(dumps.status());
  const auto memories = SelectMemories(*dumps, args.files, args);
  if (!memories.ok()) return BadInput(memories.status());
  for (const LoadedMemory& m : *memories)
    std::cout << FormatBlockers(*m.snapshot, *size, alignment, objective);
  return 0;
}

int RunJson(const Command& c, const Args& args) {
  if (args.files.empty()) return Usage(c, "no dump file given");
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.files);
  if (!dumps.ok()) return BadInput(dumps.status());
  if (dumps->size() == 1) {
    std::cout << DumpToJson((*dumps)[0]) << "\n";
    return 0;
  }
  std::cout << "[\n";
  for (size_t i = 0; i < dumps->size(); ++i)
    std::cout << DumpToJson((*dumps)[i]) << (i + 1 < dumps->size() ? ",\n" : "\n");
  std::cout << "]\n";
  return 0;
}

int RunDiff(const Command& c, const Args& args) {
  if (args.files.size() != 2)
    return Usage(c, "expected two dump files (A B), got " +
                        std::to_string(args.files.size()));
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.files);
  if (!dumps.ok()) return BadInput(dumps.status());
  std::map<std::pair<uint32_t, uint64_t>, const Snapshot*> before, after;
  for (const Snapshot& s : (*dumps)[0].memories)
    before[{s.node, s.memory_id}] = &s;
  for (const Snapshot& s : (*dumps)[1].memories)
    after[{s.node, s.memory_id}] = &s;
  std::cout << "diff " << args.files[0] << " -> " << args.files[1] << "\n";
  for (const auto& [key, a] : after) {
    auto it = before.find(key);
    if (it == before.end()) {
      std::cout << MemoryTitle(*a) << "\n  only in " << args.files[1]
                << " (" << a->allocations.size() << " allocation(s))\n";
      continue;
    }
    std::cout << FormatDiff(*it->second, *a);
  }
  for (const auto& [key, b] : before)
    if (!after.count(key))
      std::cout << MemoryTitle(*b) << "\n  only in " << args.files[0]
                << " (" << b->allocations.size() << " allocation(s))\n";
  return 0;
}

int RunIngest(const Command& c, const Args& args) {
  if (args.files.empty()) return Usage(c, "no log file given");
  auto out = args.values.find("-o");
  if (out == args.values.end()) return Usage(c, "-o FILE is required");
  DumpFile dump;
  IngestSummary summary;
  std::string error;
  if (auto cut = args.values.find("--cut-at-dump"); cut != args.values.end()) {
    if (args.files.size() != 1)
      return Usage(c, "--cut-at-dump takes one LOG (the node the dump is "
                      "from), got " + std::to_string(args.files.size()));
    if (!IngestRealmLogAtDump(args.files[0], cut->second, &dump, &error))
      return BadInput(error);
  } else if (!IngestRealmLogs(args.files, IngestOptions{}, &dump, &summary,
                              &error)) {
    return BadInput(error);
  }
  // What is wrong with the input, at once, before the work is written.
  for (const std::string& warning : summary.warnings)
    std::cerr << "realm-shadow: warning: " << warning << "\n";
  if (absl::Status written = WriteDump(out->second, dump); !written.ok())
    return BadInput(written);
  size_t allocations = 0;
  std::set<uint32_t> nodes;
  for (const Snapshot& s : dump.memories) {
    allocations += s.allocations.size();
    nodes.insert(s.node);
  }
  std::cerr << "realm-shadow: wrote " << out->second << ": "
            << dump.memories.size() << " memory(ies) of " << nodes.size()
            << " node(s), " << allocations << " live allocation(s)";
  if (summary.spy_instances > 0)
    std::cerr << "; Legion Spy identities attached to "
              << summary.spy_attached << " of " << summary.spy_instances
              << " instance(s) it names";
  if (summary.legate_instances > 0)
    std::cerr << "; Legate report: " << summary.legate_attached << " of "
              << summary.legate_instances << " instance(s) matched";
  std::cerr << "\n";
  return 0;
}

constexpr int kExitDiffer = 3;

int RunCompare(const Command& c, const Args& args) {
  if (args.files.size() != 2)
    return Usage(c, "expected two dump files (SHADOW LOG), got " +
                        std::to_string(args.files.size()));
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.files);
  if (!dumps.ok()) return BadInput(dumps.status());
  const auto run = args.values.find("--run");
  const auto label = args.values.find("--dump");
  const std::string run_name = run == args.values.end() ? "-" : run->second;
  const std::string dump_name =
      label == args.values.end() ? args.files[0] : label->second;
  const std::vector<MemoryComparison> rows = CompareDumps((*dumps)[0], (*dumps)[1]);
  std::cout << (args.tsv ? FormatComparisonTsv(rows, run_name, dump_name)
                         : FormatComparisonTable(rows, run_name, dump_name));
  for (const MemoryComparison& row : rows)
    if (row.agreement == Agreement::kDiffer ||
        row.agreement == Agreement::kMissing)
      return kExitDiffer;
  return 0;
}

int RunHtml(const Command& c, const Args& args) {
  auto out = args.values.find("-o");
  if (args.files.empty()) return Usage(c, "no dump file given");
  if (out == args.values.end()) return Usage(c, "-o PAGE.html is required");
  if (args.diff && args.files.size() != 2)
    return Usage(c, "--diff needs exactly two dumps (A B)");
  absl::StatusOr<std::vector<DumpFile>> loaded = LoadDumps(args.files);
  if (!loaded.ok()) return BadInput(loaded.status());
  std::vector<DumpFile> dumps = *std::move(loaded);
  if (!args.diff && dumps.size() > 1) {
    // Several nodes' dumps: one page of all their memories.
    DumpFile merged = dumps[0];
    for (size_t i = 1; i < dumps.size(); ++i) {
      for (const Snapshot& s : dumps[i].memories) merged.memories.push_back(s);
      for (const std::string& n : dumps[i].notes)
        merged.notes.push_back(args.files[i] + ": " + n);
    }
    dumps = {std::move(merged)};
  }
  HtmlOptions options;
  if (auto it = args.values.find("--color-by"); it != args.values.end())
    options.color_by = GroupAttribute(it->second);
  if (absl::Status written = WriteHtmlMap(dumps, out->second, options); !written.ok())
    return BadInput(written);
  return 0;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kMainUsage;
    return kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    std::cout << kMainUsage;
    return 0;
  }
  const Command* c = FindCommand(name);
  if (c == nullptr) {
    std::cerr << "realm-shadow: unknown command '" << name << "'\n"
              << kMainUsage;
    return kExitUsage;
  }
  Args args;
  std::string problem;
  if (!ParseArgs(*c, argc - 2, argv + 2, &args, &problem))
    return Usage(*c, problem);
  if (args.help) {
    std::cout << c->usage;
    return 0;
  }
  if (name == "report") return RunReport(*c, args);
  if (name == "holes") return RunHoles(*c, args);
  if (name == "blockers") return RunBlockers(*c, args);
  if (name == "json") return RunJson(*c, args);
  if (name == "diff") return RunDiff(*c, args);
  if (name == "ingest-realm-log") return RunIngest(*c, args);
  if (name == "compare") return RunCompare(*c, args);
  return RunHtml(*c, args);
}

}  // namespace
}  // namespace realm_shadow

int main(int argc, char** argv) { return realm_shadow::Main(argc, argv); }
