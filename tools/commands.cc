// tools/commands.cc - the table of realm-shadow's subcommands and the
// dispatch to their handlers (commands.h).
//
// A synopsis names each option by its spelling alone; the texts add the
// metavariable from the option's row.  Texts keep the line breaks the
// command prints (command_line.h).
#include "tools/commands.h"

#include <iostream>
#include <vector>

#include "absl/strings/string_view.h"
#include "tools/handlers.h"

namespace realm_shadow::tools {
namespace {

// After the command list of `realm-shadow --help`.
constexpr absl::string_view kUsageFooter =
    "FILE: a dump file (one per node of a run).  Sizes: bytes, or with a\n"
    "unit: 4096, 64KiB, 512MiB, 4GiB (binary), 1MB (decimal).  Memory ids:\n"
    "hex with or without 0x.  'realm-shadow <command> --help' for more.\n";

const std::vector<Command>& Table() {
  static const std::vector<Command> commands = {
      {.name = "report",
       .forms = {{"FILE... [--top] [--by] [--node] [--all] [--no-replay]",
                  "every memory: use, who holds it,\n"
                  "holes, pending, failures with\n"
                  "blockers, anomalies"}},
       .description =
           "Per memory of every dump (memories kept apart by node and id):\n"
           "capacity, use by kind, who holds it (allocations grouped by an\n"
           "identity attribute: count, bytes, share of capacity, largest), the\n"
           "largest holes, hole histogram, fragmentation, deferred requests,\n"
           "pending releases, recent failures with their cause and blockers,\n"
           "anomalies; then what each dump's source could not tell.  With several\n"
           "nodes a run summary comes first, one line per memory by pressure, and\n"
           "full reports follow for the memories under most pressure.  Last, the\n"
           "remedies of each memory's most recent failure, as explain prints them.\n",
       .options = {{"--top", "N", "how many holes to list (default 10)"},
                   {"--by", "ATTR",
                    "group by store, provenance, task, region, field, kind,\n"
                    "creator or any identity attribute (default: the Legate\n"
                    "store, else the region, else the task, when present)"},
                   {"--node", "N", "only node N's memories"},
                   {"--all", "", "every memory, group and instance (lists are cut to 10)"},
                   {"--no-replay", "",
                    "leave the remedies that need a replay (capacity,\n"
                    "allocator) out"}},
       .help_column = 13,
       .takes_dumps = true,
       .run = RunReport},
      {.name = "explain",
       .forms = {{"FILE... [--memory] [--by] [--failures] [--no-replay] [--json]",
                  "each failure's cause and what would\n"
                  "make it fit, ranked and checked"}},
       .description =
           "For each recorded failure of each memory: the request, the picture it\n"
           "is judged on (the state just before it when the history holds it),\n"
           "its cause, then the remedies, least asked of you first, each on one\n"
           "line with its figure and whether it was checked: release (collectable\n"
           "blockers), wait (the releases a deferred request counted on and what\n"
           "became of them), capacity (the flag that sizes the memory, -ll:csize,\n"
           "-ll:fsize, -ll:zsize, -ll:rsize in MiB, Legate's --sysmem, --fbmem,\n"
           "--zcmem; checked by a replay at that value and one below; what gets\n"
           "past this failure, since a run that stopped there has no history\n"
           "past it), release-pinned (pinned blockers and why they are pinned),\n"
           "waste (padding, inflation and unrequested fields of live instances, by\n"
           "group, and whether recovering them could fit it), allocator\n"
           "(size-classes or best-fit at the run's capacity, and their smallest\n"
           "capacities).  Those that fit are numbered; the others say why not, or\n"
           "what is missing and how to get it (a dump without history still gets\n"
           "release and waste).\n",
       .options = {{"--memory", "ID", "only this memory"},
                   {"--by", "ATTR",
                    "group the waste and the release window by store,\n"
                    "task, region, field or any identity attribute\n"
                    "(default: the most telling one)"},
                   {"--failures", "N", "only the N most recent failures per memory"},
                   {"--no-replay", "",
                    "leave capacity and allocator out (each costs a\n"
                    "replay search)"},
                   {"--json", "", "one JSON array, an object per memory"}},
       .help_column = 17,
       .takes_dumps = true,
       .run = RunExplain},
      {.name = "holes",
       .forms = {{"FILE... [--memory] [--top]", "the largest holes, largest first"}},
       .description =
           "The largest holes of each memory (or of memory ID), largest first.\n",
       .options = {{"--memory", "ID", "hex memory id, with or without 0x"},
                   {"--top", "N", "how many (default 10)"}},
       .help_column = 13,
       .takes_dumps = true,
       .run = RunHoles},
      {.name = "blockers",
       .forms = {{"FILE... --size [--align] [--memory] [--objective]",
                  "whether a request fits, else why,\n"
                  "and what to release to make it fit"}},
       .description =
           "Whether a request fits each memory now; if not, whether that is\n"
           "fragmentation or exhaustion, and the cheapest contiguous window of\n"
           "collectable allocations whose release makes it fit.\n",
       .options = {{"--size", "BYTES", "request size (4096, 64KiB, 4GiB, ...)"},
                   {"--align", "BYTES", "alignment (default 1)"},
                   {"--memory", "ID", "only this memory"},
                   {.spelling = "--objective",
                    .choices = {{"bytes", "fewest bytes released (default)"},
                                {"count", "fewest allocations released"}}}},
       .help_column = 20,
       .takes_dumps = true,
       .run = RunBlockers},
      {.name = "json",
       .forms = {{"FILE...", "JSON on stdout"}},
       .description =
           "The dump as JSON on stdout (docs/json-schema.md).  One FILE: one JSON\n"
           "object.  Several: a JSON array with one object per file, in argument\n"
           "order (each keeps its node, source and notes).\n",
       .takes_dumps = true,
       .run = RunJson},
      {.name = "diff",
       .forms = {{"A B", "offset-level changes from A to B"}},
       .description =
           "Offset-level changes from dump A to dump B, per memory (matched by\n"
           "node and id): allocations added, removed, moved; holes opened and\n"
           "closed; totals.\n",
       .run = RunDiff},
      {.name = "ingest-realm-log",
       .forms = {{"LOG... -o",
                  "rebuild a dump from Realm logs,\n"
                  "one per rank (-level inst=1,\n"
                  "machine=1; -lg:spy for identity)"},
                 {"LOG --cut-at-dump -o", "the log up to dump D's marker"}},
       .description =
           "Rebuild the memory state at the end of an unmodified Legion/Realm\n"
           "run from its logs and write it as one dump.  Run with -level\n"
           "inst=1,machine=1 (and -lg:spy -level legion_spy=2 for the regions,\n"
           "fields and tasks of every instance) and -logfile run_%.log (one log\n"
           "per rank, kept whole when the run aborts); give every rank's log\n"
           "(run_*.log), and Legate's out-of-memory report (the run's stderr) if\n"
           "there is one.  Logs are read in parallel.  Unknown lines are counted\n"
           "and skipped; the dump's notes say what the logs could not tell, and\n"
           "problems (missing debug-level lines, a second log of one rank, logs\n"
           "of different runs, a truncated log) are printed at once.\n",
       .options = {{.spelling = "-o", .metavar = "FILE", .help = "the dump to write",
                    .alias = "--output"},
                   {"--cut-at-dump", "D.rsd",
                    "for each memory of the tracked dump D, replay\n"
                    "the log only up to that memory's marker line\n"
                    "for D (\"{2}{realm_shadow}: dump memory=...\n"
                    "file=D\", logged with -level realm_shadow=2\n"
                    "when D was taken); one LOG"}},
       .help_column = 22,
       .run = RunIngest},
      {.name = "compare",
       .forms = {{"SHADOW.rsd LOG.rsd [--run] [--dump] [--tsv]",
                  "does a dump agree with the log's\n"
                  "picture of the same moment"}},
       .description =
           "Does a tracked dump agree with the state rebuilt from Realm's log at\n"
           "the same moment (ingest-realm-log --cut-at-dump)?  One row per memory:\n"
           "live instances, same (instance, offset, size), free, largest hole,\n"
           "pending requests, failures, the verdict and why.  Facts the log does\n"
           "not state (a redistricted piece's size, capacity without machine=1)\n"
           "are checked as far as the log goes and named.  Exit status 3 when a\n"
           "fact the log states differs or a memory is in one dump only.\n",
       .options = {{"--run", "NAME", "label of the run in the first column"},
                   {"--dump", "LABEL",
                    "label of the dump in the second column (default: SHADOW)"},
                   {"--tsv", "", "tab-separated rows without header, for scripts"}},
       .help_column = 14,
       .run = RunCompare},
      {.name = "html",
       .forms = {{"FILE... -o [--color-by] [--no-replay]", "the memory map page"},
                 {"A B --diff -o", "the page comparing two dumps"}},
       .description =
           "A self-contained page with every memory as a zoomable address map\n"
           "(the rows of several nodes grouped by node); with --diff, B compared\n"
           "with A.  A memory whose dump holds its history gets the replay table\n"
           "in its side panel (every policy, its smallest capacity, and its map at\n"
           "the run's first failure), and each failure, when selected, its\n"
           "remedies (as explain prints them).\n",
       .options = {{.spelling = "-o", .metavar = "PAGE.html", .help = "the page to write",
                    .alias = "--output"},
                   {"--color-by", "ATTR",
                    "colour the blocks by kind (default) or by an\n"
                    "identity attribute (task, store, region, field,\n"
                    "...): the top groups get a colour each, with a\n"
                    "legend; the page can change it"},
                   {"--no-replay", "",
                    "leave the replay tables and the replay remedies out\n"
                    "(they cost a replay search per policy and memory)"},
                   {"--diff", "", "the page comparing B with A (two dumps)"}},
       .help_column = 18,
       .takes_dumps = true,
       .run = RunHtml},
      {.name = "timeline",
       .forms = {{"FILE... [--memory] [--top] [--lead]",
                  "how each memory got there: peak,\n"
                  "hole drops, longest lives, the\n"
                  "lead-up to each failure"}},
       .description =
           "From each memory's history in the dump(s) (every event replayed, none\n"
           "sampled): peak used and when, the moments where the largest hole\n"
           "shrank the most and the event that did it, the allocations alive the\n"
           "longest (with identity), and each failure with the events before it.\n"
           "Events are numbered from 1; times are the history's clock (the\n"
           "tracker's drain time, or each node's own log time).\n",
       .options = {{"--memory", "ID", "only this memory"},
                   {"--top", "N", "hole drops and lives listed (default 5)"},
                   {"--lead", "N", "events shown before each failure (default 10)"}},
       .help_column = 13,
       .takes_dumps = true,
       .run = RunTimeline},
      {.name = "at",
       .forms = {{"FILE (--event | --time) [--memory] [--with-history] -o",
                  "the exact state at that moment,\n"
                  "as a dump"}},
       .description =
           "The exact state at a moment of the history (the last checkpoint before\n"
           "it, then every event up to it), written as a dump that every other\n"
           "command reads: report, holes, blockers, html, diff (two moments of\n"
           "one run diff like two dumps).  A moment outside the history's window\n"
           "is an error (exit 1) that names the window.\n",
       .options = {{"--event", "N",
                    "the state after the first N events of the memory\n"
                    "(event numbers are per memory: give --memory when\n"
                    "several have a history)"},
                   {"--time", "T",
                    "the latest moment whose events are all at or before T,\n"
                    "in seconds of the history's clock (12.5, 350ms, 20us)"},
                   {"--memory", "ID",
                    "only this memory (without it: every memory with a\n"
                    "history)"},
                   {"--with-history", "",
                    "keep the history up to the moment in OUT (its\n"
                    "timeline and time strip then end there)"},
                   {.spelling = "-o", .metavar = "OUT", .help = "the dump to write",
                    .alias = "--output"}},
       .help_column = 12,
       .run = RunAt},
      {.name = "trace",
       .forms = {{"FILE... -o", "the history for ui.perfetto.dev"}},
       .description =
           "Chrome / Perfetto trace-event JSON of every memory's history (open it\n"
           "in ui.perfetto.dev or chrome://tracing): per memory, counter tracks of\n"
           "used, total free, largest hole and fragmentation; each allocation's\n"
           "life as a slice with its size, offset and identity; failures as\n"
           "instants.  One process per node, each on its own clock.\n",
       .options = {{.spelling = "-o", .metavar = "TRACE.json",
                    .help = "the file to write", .alias = "--output"}},
       .help_column = 15,
       .takes_dumps = true,
       .run = RunTrace},
      {.name = "replay",
       .forms = {{"FILE... [--memory] [--policy]... [--capacity] [--min-capacity] [--json]",
                  "the run again under another placement\n"
                  "policy or capacity (dumps with history)"}},
       .description =
           "The requests and releases of each memory's run (from the history its\n"
           "dump holds), run again through Realm's deferral rules under another\n"
           "placement policy or capacity: per policy whether the run's failures are\n"
           "avoided, the first failure, peak used, the largest-hole deficit,\n"
           "fragmentation at the run's failure; always the self-check (realm at the\n"
           "run's capacity against the recorded placements) and the lower bound\n"
           "(peak live bytes).\n",
       .options = {{"--memory", "ID", "only this memory"},
                   {"--policy", "P",
                    "realm, best-fit, worst-fit, next-fit, size-classes,\n"
                    "compacting; repeat for several (default: all)"},
                   {"--capacity", "SIZE", "replay at this capacity (default: the run's)"},
                   {"--min-capacity", "",
                    "also search the smallest capacity with no failure\n"
                    "(to one alignment unit) per policy"},
                   {"--json", "", "one JSON array, an object per memory"}},
       .help_column = 17,
       .takes_dumps = true,
       .run = RunReplay},
  };
  return commands;
}

}  // namespace

std::span<const Command> RealmShadowCommands() { return Table(); }

std::string RealmShadowUsage() { return MainUsage(Table(), kUsageFooter); }

int RunRealmShadow(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << RealmShadowUsage();
    return kExitUsage;
  }
  const absl::string_view name = argv[1];
  if (name == "help" && argc == 3 && absl::string_view(argv[2]) == "--markdown") {
    std::cout << CommandsMarkdown(Table());
    return 0;
  }
  if (name == "--help" || name == "-h" || name == "help") {
    std::cout << RealmShadowUsage();
    return 0;
  }
  const Command* command = FindCommand(Table(), name);
  if (command == nullptr) {
    std::cerr << "realm-shadow: unknown command '" << name << "'\n"
              << RealmShadowUsage();
    return kExitUsage;
  }
  const absl::StatusOr<CommandArgs> args =
      ParseCommandArgs(*command, std::span<char* const>(argv + 2, argc - 2));
  if (!args.ok()) return Usage(*command, args.status());
  if (args->help()) {
    std::cout << CommandHelp(*command);
    return 0;
  }
  if (command->takes_dumps && args->operands().empty())
    return Usage(*command, "no dump file given");
  return command->run(*command, *args);
}

}  // namespace realm_shadow::tools
