// tools/page_command.cc - html: the memory map page of one or several
// nodes' dumps, or the page comparing two dumps.
#include <string>
#include <utility>
#include <vector>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/page/html_page.h"
#include "realm_shadow/render/report.h"
#include "tools/handlers.h"
#include "whatif/explain.h"
#include "whatif/from_dump.h"
#include "whatif/report.h"

namespace realm_shadow::tools {
namespace {

// Several nodes' dumps as one: every memory, and each note under the name
// of its file (the first file's notes as they are).
DumpFile MergeNodes(std::vector<DumpFile> dumps, const std::vector<std::string>& files) {
  DumpFile merged = std::move(dumps[0]);
  for (size_t i = 1; i < dumps.size(); ++i) {
    for (const Snapshot& s : dumps[i].memories) merged.memories.push_back(s);
    for (const std::string& n : dumps[i].notes)
      merged.notes.push_back(files[i] + ": " + n);
  }
  return merged;
}

// The side panel's replay table of each memory with a history (every
// policy, its smallest capacity, its map at the run's first failure); a
// memory whose history cannot be replayed gets none.
std::vector<PageReplay> PageReplays(const DumpFile& dump) {
  std::vector<PageReplay> replays;
  for (const Snapshot& s : dump.memories) {
    absl::StatusOr<whatif::ReplayScript> script = whatif::ScriptOfDumpMemory(dump, s);
    if (!script.ok()) continue;
    whatif::ReplayQuestion question;
    question.min_capacity = true;
    question.maps = true;
    const absl::StatusOr<whatif::MemoryAnswer> answer =
        whatif::ReplayMemory(*std::move(script), question);
    if (!answer.ok()) continue;
    replays.push_back(whatif::ToPageReplay(*answer));
  }
  return replays;
}

// The side panel's remedies beside each failure (explain's, without the
// replay remedies under --no-replay).
std::vector<PageRemedies> PageRemediesOf(const DumpFile& dump, bool replay) {
  whatif::ExplainOptions options;
  options.replay = replay;
  std::vector<PageRemedies> out;
  for (const Snapshot& s : dump.memories)
    if (!s.failures.empty()) out.push_back(whatif::ToPageRemedies(dump, s, options));
  return out;
}

}  // namespace

int RunHtml(const Command& c, const CommandArgs& args) {
  const std::vector<std::string>& files = args.operands();
  const std::string* out = args.value("-o");
  const bool diff = args.flag("--diff");
  if (out == nullptr) return Usage(c, "-o PAGE.html is required");
  if (diff && files.size() != 2) return Usage(c, "--diff needs exactly two dumps (A B)");
  absl::StatusOr<std::vector<DumpFile>> loaded = LoadDumps(files);
  if (!loaded.ok()) return BadInput(loaded.status());
  std::vector<DumpFile> dumps = *std::move(loaded);
  if (!diff && dumps.size() > 1) {
    DumpFile merged = MergeNodes(std::move(dumps), files);
    dumps.clear();
    dumps.push_back(std::move(merged));
  }
  HtmlOptions options;
  if (const std::string* color_by = args.value("--color-by"))
    options.color_by = GroupAttribute(*color_by);
  if (!diff && !args.flag("--no-replay")) options.replays = PageReplays(dumps[0]);
  options.remedies = PageRemediesOf(dumps.back(), !args.flag("--no-replay"));
  if (absl::Status written = WriteHtmlMap(dumps, *out, options); !written.ok())
    return BadInput(written);
  return 0;
}

}  // namespace realm_shadow::tools
