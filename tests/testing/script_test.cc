// Replays the Realm fixture script through the model and compares every
// checkpoint with the truth that real Realm produced.  Built twice: against
// the tracked model and against the one with the hooks compiled out.
#include "testing/script.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#if REALM_SHADOW_ENABLED
#include "realm_shadow/live/snapshots.h"
#endif

namespace realm_shadow::model {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(REALM_SHADOW_FIXTURES_DIR) + "/" + name;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

class FragDeferredReplay : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::is_directory(REALM_SHADOW_FIXTURES_DIR))
      FAIL() << "fixtures not found at " << REALM_SHADOW_FIXTURES_DIR
                   << " (shared/ must sit beside the project)";
#if REALM_SHADOW_ENABLED
    ResetTrackerForTesting();
#endif
    ASSERT_TRUE(ReadFile(Fixture("realm-frag-deferred.script.txt"), &script_));
    ASSERT_TRUE(ReadFile(Fixture("realm-frag-deferred.cmd.txt"), &cmd_));
    std::ifstream truth(Fixture("realm-frag-deferred.truth.txt"));
    ASSERT_TRUE(truth);
    truth_ = ParseTruthBlocks(truth);
    ASSERT_EQ(CapacitiesFromCommandLine(cmd_, &options_), 2);
  }
  std::string script_, cmd_;
  std::vector<ScriptCheckpoint> truth_;
  ScriptOptions options_;
};

TEST_F(FragDeferredReplay, EveryCheckpointMatchesRealm) {
  ASSERT_EQ(truth_.size(), 12u);
  ScriptRunner runner(options_);
  const ScriptResult r = runner.RunText(script_);
  ASSERT_TRUE(r.ok) << "line " << r.error_line << ": " << r.error;
  ASSERT_EQ(r.checkpoints.size(), truth_.size());
  size_t compared = 0;
  for (size_t i = 0; i < truth_.size(); ++i) {
    EXPECT_EQ(r.checkpoints[i].label, truth_[i].label);
    const auto& want = truth_[i].lines;
    const auto& got = r.checkpoints[i].lines;
    EXPECT_EQ(got.size(), want.size()) << "checkpoint " << truth_[i].label;
    for (size_t k = 0; k < std::min(got.size(), want.size()); ++k) {
      EXPECT_EQ(got[k], want[k]) << "checkpoint " << truth_[i].label << " line " << k;
      ++compared;
    }
  }
  EXPECT_GT(compared, 300u);  // 341 lines in the truth file, all in blocks
}

TEST_F(FragDeferredReplay, SizeNarrationMatchesTheProgram) {
  std::string stdout_text;
  ASSERT_TRUE(ReadFile(Fixture("realm-frag-deferred.stdout.txt"), &stdout_text));
  std::vector<std::string> want;
  std::istringstream in(stdout_text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("# size ", 0) == 0) want.push_back(line);
  ScriptRunner runner(options_);
  const ScriptResult r = runner.RunText(script_);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.narration, want);
  EXPECT_EQ(want.size(), 6u);  // four hole+ sizes, two frag sizes
}

#if REALM_SHADOW_ENABLED
// The shadow fed by the model's hooks holds the same live ranges and
// pending requests as the truth at the end of the script.
TEST_F(FragDeferredReplay, ShadowHoldsTheFinalLayout) {
  ScriptRunner runner(options_);
  const ScriptResult r = runner.RunText(script_);
  ASSERT_TRUE(r.ok);
  ModelMemory* s = runner.memory("S");
  ASSERT_NE(s, nullptr);
  const Snapshot snap = TakeSnapshot(s->shadow_handle());
  size_t truth_inst = 0;
  for (const std::string& line : truth_.back().lines)
    if (line.rfind("INST ", 0) == 0 && line.find("mem=1e00000000000000") != std::string::npos)
      ++truth_inst;
  EXPECT_EQ(snap.allocations.size(), truth_inst);
  EXPECT_TRUE(snap.pending.empty());
  for (const Allocation& a : snap.allocations)
    EXPECT_EQ(s->Offset(a.instance), a.offset) << std::hex << a.instance;
}
#endif

TEST(ScriptRunner, ErrorsStopWithTheLineNumber) {
  ScriptOptions o;
  ScriptRunner runner(o);
  ScriptResult r = runner.RunText("mem S SYSTEM_MEM 1000\ncreate S a 10\ncreate X b 10\n");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_line, 3);
  ScriptRunner r2(o);
  EXPECT_FALSE(r2.RunText("mem S SYSTEM_MEM 1000\ncreate S a 1x\n").ok);
  ScriptRunner r3(o);
  EXPECT_FALSE(r3.RunText("mem S SYSTEM_MEM 1000\ndestroy nobody\n").ok);
  // An undeclared event in after= stops create, destroy and redistrict
  // alike, quoting the operand.
  for (const char* line : {"create S b 10 after=E9", "destroy a after=E9",
                           "redistrict a p:5:5 after=E9"}) {
    ScriptRunner r4(o);
    const ScriptResult bad = r4.RunText(
        std::string("mem S SYSTEM_MEM 1000\ncreate S a 10\n") + line + "\n");
    EXPECT_FALSE(bad.ok) << line;
    EXPECT_EQ(bad.error_line, 3) << line;
    EXPECT_EQ(bad.error, "unknown event: after=E9") << line;
  }
  ScriptRunner r5(o);
  EXPECT_FALSE(r5.RunText("mem S SYSTEM_MEM 1000\ncreate S a 100\nredistrict a p:10:zz\n").ok);
  ScriptRunner r6(o);
  EXPECT_FALSE(r6.RunText("frobnicate\n").ok);
}

// A memory gets the kind Realm's name has in the one table
// (realm_shadow/memory_kinds.h), as in Realm: GLOBAL_MEM is a global
// memory and HDF_MEM a disk one (the script's own list had neither).
TEST(ScriptRunner, MemoriesGetTheTablesKind) {
  ScriptRunner runner;
  const ScriptResult r = runner.RunText(
      "mem G GLOBAL_MEM 1000\nmem H HDF_MEM 1000\nmem F GPU_FB_MEM 1000\n"
      "mem C LEVEL2_CACHE 1000\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(runner.memory("G")->kind(), REALM_SHADOW_MEM_GLOBAL);
  EXPECT_EQ(runner.memory("H")->kind(), REALM_SHADOW_MEM_DISK);
  EXPECT_EQ(runner.memory("F")->kind(), REALM_SHADOW_MEM_FRAMEBUFFER);
  EXPECT_EQ(runner.memory("C")->kind(), REALM_SHADOW_MEM_OTHER);
}

}  // namespace
}  // namespace realm_shadow::model
