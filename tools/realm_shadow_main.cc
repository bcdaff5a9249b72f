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
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/ingest/compare.h"
#include "realm_shadow/page/html_page.h"
#include "realm_shadow/core/text.h"
#include "realm_shadow/ingest/realm_log.h"
#include "realm_shadow/analysis/history_walk.h"
#include "realm_shadow/render/report.h"
#include "realm_shadow/render/timeline.h"
#include "realm_shadow/render/trace.h"
#include "whatif/from_dump.h"
#include "whatif/report.h"

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
    "  timeline FILE... [--memory ID]      how each memory got there: peak,\n"
    "                                      hole drops, longest lives, the\n"
    "                                      lead-up to each failure\n"
    "  at FILE --event N | --time T -o OUT the exact state at that moment,\n"
    "                                      as a dump\n"
    "  trace FILE... -o TRACE.json         the history for ui.perfetto.dev\n"
    "  replay FILE... [--memory ID] [--policy P]... [--capacity SIZE]\n"
    "                 [--min-capacity] [--json]\n"
    "                                      the run again under another placement\n"
    "                                      policy or capacity (dumps with history)\n"
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
    {"timeline",
     "usage: realm-shadow timeline FILE... [--memory ID] [--top N] [--lead N]\n"
     "From each memory's history in the dump(s) (every event replayed, none\n"
     "sampled): peak used and when, the moments where the largest hole\n"
     "shrank the most and the event that did it, the allocations alive the\n"
     "longest (with identity), and each failure with the events before it.\n"
     "Events are numbered from 1; times are the history's clock (the\n"
     "tracker's drain time, or each node's own log time).\n"
     "  --memory ID  only this memory\n"
     "  --top N      hole drops and lives listed (default 5)\n"
     "  --lead N     events shown before each failure (default 10)\n"},
    {"at",
     "usage: realm-shadow at FILE (--event N | --time T) [--memory ID]\n"
     "                       [--with-history] -o OUT\n"
     "The exact state at a moment of the history (the last checkpoint before\n"
     "it, then every event up to it), written as a dump that every other\n"
     "command reads: report, holes, blockers, html, diff (two moments of\n"
     "one run diff like two dumps).  A moment outside the history's window\n"
     "is an error (exit 1) that names the window.\n"
     "  --event N   the state after the first N events of the memory\n"
     "              (event numbers are per memory: give --memory when\n"
     "              several have a history)\n"
     "  --time T    the latest moment whose events are all at or before T,\n"
     "              in seconds of the history's clock (12.5, 350ms, 20us)\n"
     "  --memory ID only this memory (without it: every memory with a\n"
     "              history)\n"
     "  --with-history  keep the history up to the moment in OUT (its\n"
     "              timeline and time strip then end there)\n"
     "  -o OUT      the dump to write\n"},
    {"trace",
     "usage: realm-shadow trace FILE... -o TRACE.json\n"
     "Chrome / Perfetto trace-event JSON of every memory's history (open it\n"
     "in ui.perfetto.dev or chrome://tracing): per memory, counter tracks of\n"
     "used, total free, largest hole and fragmentation; each allocation's\n"
     "life as a slice with its size, offset and identity; failures as\n"
     "instants.  One process per node, each on its own clock.\n"
     "  -o TRACE.json  the file to write\n"},
    {"html",
     "usage: realm-shadow html FILE... -o PAGE.html [--color-by ATTR]\n"
     "                         [--no-replay]\n"
     "       realm-shadow html A B --diff -o PAGE.html\n"
     "A self-contained page with every memory as a zoomable address map\n"
     "(the rows of several nodes grouped by node); with --diff, B compared\n"
     "with A.  A memory whose dump holds its history gets the replay table\n"
     "in its side panel (every policy, its smallest capacity, and its map at\n"
     "the run's first failure).\n"
     "  -o PAGE.html      the page to write\n"
     "  --color-by ATTR   colour the blocks by kind (default) or by an\n"
     "                    identity attribute (task, store, region, field,\n"
     "                    ...): the top groups get a colour each, with a\n"
     "                    legend; the page can change it\n"
     "  --no-replay       leave the replay tables out (they cost a replay\n"
     "                    search per policy and memory)\n"},
    {"replay",
     "usage: realm-shadow replay FILE... [--memory ID] [--policy P]...\n"
     "                           [--capacity SIZE] [--min-capacity] [--json]\n"
     "The requests and releases of each memory's run (from the history its\n"
     "dump holds), run again through Realm's deferral rules under another\n"
     "placement policy or capacity: per policy whether the run's failures are\n"
     "avoided, the first failure, peak used, the largest-hole deficit,\n"
     "fragmentation at the run's failure; always the self-check (realm at the\n"
     "run's capacity against the recorded placements) and the lower bound\n"
     "(peak live bytes).\n"
     "  --memory ID      only this memory\n"
     "  --policy P       realm, best-fit, worst-fit, next-fit, size-classes,\n"
     "                   compacting; repeat for several (default: all)\n"
     "  --capacity SIZE  replay at this capacity (default: the run's)\n"
     "  --min-capacity   also search the smallest capacity with no failure\n"
     "                   (to one alignment unit) per policy\n"
     "  --json           one JSON array, an object per memory\n"},
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
  std::vector<std::string> policies;  // replay --policy, in order
  bool help = false;
  bool diff = false;
  bool tsv = false;
  bool all = false;
  bool min_capacity = false;
  bool json = false;
  bool no_replay = false;
  bool with_history = false;
};

// Options that take a value, per command; everything else starting with
// '-' is a usage error.
bool ParseArgs(const Command& c, int argc, char** argv, Args* out,
               std::string* problem) {
  const std::string name = c.name;
  auto takes_value = [&](const std::string& opt) {
    if (opt == "--memory")
      return name == "holes" || name == "blockers" || name == "timeline" ||
             name == "at" || name == "replay";
    if (opt == "--policy" || opt == "--capacity") return name == "replay";
    if (opt == "--top")
      return name == "holes" || name == "report" || name == "timeline";
    if (opt == "--lead") return name == "timeline";
    if (opt == "--event" || opt == "--time") return name == "at";
    if (opt == "--size" || opt == "--align" || opt == "--objective")
      return name == "blockers";
    if (opt == "--by" || opt == "--node") return name == "report";
    if (opt == "--color-by") return name == "html";
    if (opt == "--cut-at-dump") return name == "ingest-realm-log";
    if (opt == "--run" || opt == "--dump") return name == "compare";
    if (opt == "-o" || opt == "--output")
      return name == "ingest-realm-log" || name == "html" || name == "at" ||
             name == "trace";
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
    if (arg == "--no-replay" && name == "html") {
      out->no_replay = true;
      continue;
    }
    if (arg == "--min-capacity" && name == "replay") {
      out->min_capacity = true;
      continue;
    }
    if (arg == "--json" && name == "replay") {
      out->json = true;
      continue;
    }
    if (arg == "--with-history" && name == "at") {
      out->with_history = true;
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
      if (opt == "--policy") out->policies.push_back(value);
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
  const absl::StatusOr<uint64_t> id = ParseHexId(it->second);
  if (!id.ok())
    return absl::InvalidArgumentError("--memory " + std::string(id.status().message()));
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
  IngestSummary summary;
  absl::StatusOr<DumpFile> ingested;
  if (auto cut = args.values.find("--cut-at-dump"); cut != args.values.end()) {
    if (args.files.size() != 1)
      return Usage(c, "--cut-at-dump takes one LOG (the node the dump is "
                      "from), got " + std::to_string(args.files.size()));
    ingested = IngestRealmLogAtDump(args.files[0], cut->second);
  } else {
    ingested = IngestRealmLogs(args.files, IngestOptions{}, &summary);
  }
  if (!ingested.ok()) return BadInput(ingested.status());
  const DumpFile& dump = *ingested;
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

int RunTimeline(const Command& c, const Args& args) {
  if (args.files.empty()) return Usage(c, "no dump file given");
  TimelineOptions options;
  if (absl::Status top = CountOption(args, "--top", &options.top); !top.ok())
    return Usage(c, top);
  if (absl::Status lead = CountOption(args, "--lead", &options.lead); !lead.ok())
    return Usage(c, lead);
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.files);
  if (!dumps.ok()) return BadInput(dumps.status());
  const auto memories = SelectMemories(*dumps, args.files, args);
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

int RunAt(const Command& c, const Args& args) {
  if (args.files.size() != 1)
    return Usage(c, "expected one dump file, got " +
                        std::to_string(args.files.size()));
  auto out = args.values.find("-o");
  if (out == args.values.end()) return Usage(c, "-o OUT is required");
  auto event = args.values.find("--event");
  auto time = args.values.find("--time");
  if ((event == args.values.end()) == (time == args.values.end()))
    return Usage(c, "give exactly one of --event N and --time T");
  MomentChoice moment;
  moment.with_history = args.with_history;
  std::string error;
  if (event != args.values.end()) {
    uint64_t n = 0;
    if (!absl::SimpleAtoi(event->second, &n))
      return Usage(c, "--event '" + event->second + "': expected an event count");
    moment.event = n;
  } else {
    const absl::StatusOr<int64_t> ns = ParseHistoryTime(time->second);
    if (!ns.ok()) return Usage(c, "--time " + std::string(ns.status().message()));
    moment.time_ns = *ns;
  }
  std::optional<uint64_t> memory;
  if (auto it = args.values.find("--memory"); it != args.values.end()) {
    const absl::StatusOr<uint64_t> id = ParseHexId(it->second);
    if (!id.ok()) return Usage(c, "--memory " + std::string(id.status().message()));
    memory = *id;
  }
  absl::StatusOr<DumpFile> at = ReadDumpAtMoment(args.files[0], memory, moment);
  if (!at.ok()) return BadInput(at.status());
  if (absl::Status written = WriteDump(out->second, *at); !written.ok())
    return BadInput(written);
  for (const Snapshot& s : at->memories)
    std::cerr << "realm-shadow: " << MemoryTitle(s) << " after " << s.sequence
              << " event(s): " << s.allocations.size() << " live allocation(s)\n";
  return 0;
}

int RunTrace(const Command& c, const Args& args) {
  if (args.files.empty()) return Usage(c, "no dump file given");
  auto out = args.values.find("-o");
  if (out == args.values.end()) return Usage(c, "-o TRACE.json is required");
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.files);
  if (!dumps.ok()) return BadInput(dumps.status());
  const absl::StatusOr<TraceSummary> traced = WriteTrace(*dumps, args.files, out->second);
  if (!traced.ok()) return BadInput(traced.status());
  const TraceSummary& summary = *traced;
  std::cerr << "realm-shadow: wrote " << out->second << ": " << summary.memories
            << " memory(ies), " << summary.lives << " allocation lives, "
            << summary.counter_samples << " counter samples, "
            << summary.failures << " failure(s)";
  if (summary.skipped)
    std::cerr << "; " << summary.skipped << " memory(ies) without a history";
  std::cerr << "\n";
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
  std::vector<PageReplay>& replays = options.replays;
  if (!args.diff && !args.no_replay) {
    // Memories with a history get the replay table; the others none.
    for (const Snapshot& s : dumps[0].memories) {
      absl::StatusOr<whatif::ReplayScript> script = whatif::ScriptOfDumpMemory(dumps[0], s);
      if (!script.ok()) continue;
      whatif::ReplayQuestion question;
      question.min_capacity = true;
      question.maps = true;
      const absl::StatusOr<whatif::MemoryAnswer> answer =
          whatif::ReplayMemory(*std::move(script), question);
      if (!answer.ok()) continue;
      replays.push_back(whatif::ToPageReplay(*answer));
    }
  }
  if (absl::Status written = WriteHtmlMap(dumps, out->second, options); !written.ok())
    return BadInput(written);
  return 0;
}

int RunReplay(const Command& c, const Args& args) {
  if (args.files.empty()) return Usage(c, "no dump file given");
  whatif::ReplayQuestion question;
  for (const std::string& name : args.policies) {
    model::PlacementPolicy p;
    if (!model::ParsePlacementPolicy(name, &p))
      return Usage(c, "--policy '" + name +
                          "': expected realm, best-fit, worst-fit, next-fit, "
                          "size-classes or compacting");
    question.policies.push_back(p);
  }
  if (auto it = args.values.find("--capacity"); it != args.values.end()) {
    const absl::StatusOr<uint64_t> capacity = ParseHumanSize(it->second);
    if (!capacity.ok())
      return Usage(c, absl::StrCat("--capacity ", capacity.status().message()));
    if (*capacity == 0) return Usage(c, "--capacity must be more than 0");
    question.capacity = *capacity;
  }
  question.min_capacity = args.min_capacity;
  const absl::StatusOr<std::vector<DumpFile>> dumps = LoadDumps(args.files);
  if (!dumps.ok()) return BadInput(dumps.status());
  const auto memories = SelectMemories(*dumps, args.files, args);
  if (!memories.ok()) return BadInput(memories.status());
  // Every memory named, or else every memory with a history that holds a
  // request; a history that cannot be replayed is an error either way.
  const bool named = args.values.count("--memory") > 0;
  std::string skipped;
  std::vector<whatif::MemoryAnswer> answers;
  for (const LoadedMemory& m : *memories) {
    const bool has_history = FindHistory(*m.dump, *m.snapshot) != nullptr;
    absl::StatusOr<whatif::ReplayScript> script =
        whatif::ScriptOfDumpMemory(*m.dump, *m.snapshot);
    if (!script.ok()) {
      const std::string error = absl::StrCat(m.file, ": ", script.status().message());
      if (named || has_history) return BadInput(error);
      // No history: what the first such memory lacks is the error when no
      // memory has one.
      if (skipped.empty()) skipped = error;
      continue;
    }
    if (!named && script->lives.empty()) continue;
    absl::StatusOr<whatif::MemoryAnswer> answer =
        whatif::ReplayMemory(*std::move(script), question);
    if (!answer.ok()) return BadInput(absl::StrCat(m.file, ": ", answer.status().message()));
    answers.push_back(*std::move(answer));
  }
  if (answers.empty())
    return BadInput(skipped.empty() ? args.files[0] +
                                          ": no memory's history holds a request: "
                                          "nothing to replay"
                                    : skipped);
  if (args.json) {
    std::cout << "[\n";
    for (size_t i = 0; i < answers.size(); ++i)
      std::cout << whatif::MemoryAnswerJson(answers[i])
                << (i + 1 < answers.size() ? ",\n" : "\n");
    std::cout << "]\n";
    return 0;
  }
  for (const whatif::MemoryAnswer& a : answers)
    std::cout << whatif::FormatMemoryAnswer(a);
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
  if (name == "replay") return RunReplay(*c, args);
  if (name == "timeline") return RunTimeline(*c, args);
  if (name == "at") return RunAt(*c, args);
  if (name == "trace") return RunTrace(*c, args);
  return RunHtml(*c, args);
}

}  // namespace
}  // namespace realm_shadow

int main(int argc, char** argv) { return realm_shadow::Main(argc, argv); }
