// testing/script.h - replays the allocation op scripts that the
// Realm fixture program ran (shared/fixtures/realm-logs/*.script.txt)
// against model memories, and writes at each checkpoint the same ground-truth
// block the program wrote from real Realm.
//
// Why: the truth files record what real Realm placed where; replaying the
// same script through ModelMemory and comparing block by block is the check
// that the model places, defers, fails and reuses ids as Realm does.
//
// The language, one op per line ('#' starts a comment):
//   mem ALIAS KIND [CAPACITY]        KIND is Realm's (SYSTEM_MEM, REGDMA_MEM,
//                                    GPU_FB_MEM, Z_COPY_MEM, ...); capacity in
//                                    bytes, else from ScriptOptions
//   zero ALIAS NAME                  a zero-byte instance (align 32)
//   create ALIAS NAME SIZE [align=A] [after=E]
//        SIZE: bytes | hole+N (the largest usable hole, aligned, plus N)
//              | frag (between the largest hole and the total free bytes)
//   destroy NAME [after=E]
//   redistrict OLD NAME:SIZE[:ALIGN] ... [after=E]
//   event E | trigger E | poison E
//   checkpoint LABEL
// Memories get Realm's ids on node 0: SYSTEM_MEM 0x1e00000000000000,
// REGDMA_MEM 0x1e00000000000002, others from index 3 on in order of
// declaration.
//
// Errors (unknown alias, name or event, a malformed number) stop the run
// with the line number and a message; nothing crashes.
#ifndef TESTING_SCRIPT_H_
#define TESTING_SCRIPT_H_

#include <cstdint>
#include <functional>
#include <istream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/model_memory.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(testing);
namespace model {

class ScriptRunner;

struct ScriptOptions {
  // Capacity by Realm kind name when a `mem` line gives none.  Realm's own
  // defaults are -ll:csize 512 (MiB) and -ll:rsize 0.
  std::map<std::string, uint64_t> capacity_by_kind = {
      {"SYSTEM_MEM", uint64_t{512} << 20}, {"REGDMA_MEM", 0}};
  uint64_t default_alignment = 32;
  // Memories report through heap observation (ModelMemoryOptions).
  bool observe_heaps = false;
  // Called at each checkpoint, after its truth block is written.
  std::function<void(const std::string& label, ScriptRunner& runner)>
      on_checkpoint;
};

// Reads -ll:csize / -ll:rsize / -ll:fsize / -ll:zsize (MiB, as Realm reads
// them) from a command line into options.  Returns how many were found.
int CapacitiesFromCommandLine(const std::string& command_line,
                              ScriptOptions* options);

// One truth block: "=== TRUTH BEGIN checkpoint=L ===" ... "END" lines
// included.
struct ScriptCheckpoint {
  std::string label;
  std::vector<std::string> lines;
};

struct ScriptResult {
  bool ok = true;
  int error_line = 0;  // 1-based line of the op that failed
  std::string error;
  std::vector<ScriptCheckpoint> checkpoints;
  // "# size hole+: ..." and "# size frag: ..." lines, as the fixture
  // program prints them.
  std::vector<std::string> narration;
};

class ScriptRunner {
 public:
  explicit ScriptRunner(ScriptOptions options = {});
  ~ScriptRunner();

  ScriptResult Run(std::istream& script);
  ScriptResult RunText(const std::string& script);

  // The memory declared under an alias, or null.
  ModelMemory* memory(const std::string& alias);
  EventTable& events() { return events_; }

 private:
  struct Handle;
  struct Memory;
  bool Execute(const std::vector<std::string>& words, std::string* error);
  bool Create(const std::vector<std::string>& words, std::string* error);
  bool Redistrict(const std::vector<std::string>& words, std::string* error);
  // An "after=NAME" operand: the declared event NAME, or an error.
  bool ParseAfter(const std::string& word, Event* after, std::string* error);
  void Checkpoint(const std::string& label);
  Handle* HandleOf(const Memory& m, uint64_t instance);

  ScriptOptions options_;
  EventTable events_;
  std::vector<std::unique_ptr<Memory>> memories_;  // declaration order
  std::vector<std::unique_ptr<Handle>> handles_;   // creation order
  std::map<std::string, Handle*> handle_by_name_;
  std::map<std::string, Event> event_by_name_;
  ScriptResult result_;
  bool in_request_ = false;  // inside ModelMemory::Create / Redistrict
};

// Splits a truth file (or a program's stdout) into its truth blocks.
std::vector<ScriptCheckpoint> ParseTruthBlocks(std::istream& in);

}  // namespace model
}  // namespace realm_shadow

#endif  // TESTING_SCRIPT_H_
