// What the log's rebuild shows of releases and redistricts Realm's log does
// not spell out, program by program (scripts/legion-oracle's minimal
// programs, reduced from seeds of a Legion master run): each case is a log
// after the prologue every run writes, and the picture of memory S at its
// CHECKPOINT line as Realm held it, with what the log cannot tell marked.
// The log cut there gives that picture, and so does `at --event` /
// `at --time` on the whole log's history at that moment.
#include <gtest/gtest.h>

#include <string>

#include "realm_shadow/core/identity.h"
#include "tests/ingest/oracle_log.h"

namespace realm_shadow {
namespace {

using namespace oracle_log;  // NOLINT: the programs' vocabulary

struct Program {
  const char* name;
  // The lines after kPrologue, up to and past one CHECKPOINT line.
  const char* log;
  // Picture() of S in the cut: "live ID [OFFSET, +SIZE) STATE SIZE-MARK",
  // "waiting ID SIZE SIZE-MARK WAITS-ON", "failed ID SIZE" (STATE 0 live,
  // 1 release pending, 2 release ready).
  std::string picture;
};

const std::string kWaitsOn = kWaitsOnUnnamedRedistrict;

const Program kPrograms[] = {
    // log.state-release_pending-shown-live (seed 64, checkpoint 8): i4's
    // redistrict waits on E8.  Realm holds i4 release pending and logs only
    // the pieces' announces; the zero-byte instance and i4 are both live
    // in S, so the log cannot say which is redistricted.  i4 stays live and
    // the pieces say what they wait on (before: nothing said it).
    {"AWaitingRedistrictSaysItsOldInstanceIsNotInTheLog", R"(
[0 - 1] 2.091000 {3}{random}: OP create S i4 2149 align=128
[0 - 1] 2.091010 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 2.091020 {1}{inst}: instance layout: inst=4000000000000002 layout=Layout(bytes=2149, align=128, fields={0=0+0}, lists=[[<0>..<2148>->affine(<1>+0)]])
[0 - 1] 2.091030 {1}{inst}: allocation completed: inst=4000000000000002 offset=0
[0 - 1] 2.091040 {2}{inst}: instance created: inst=4000000000000002 bytes=2149 ready=0
[0 - 1] 2.091132 {3}{random}: OP event E8
[0 - 1] 2.091134 {2}{event}: user event created: event=8000001000400003
[0 - 1] 2.091137 {3}{random}: OP redistrict i4 i17:523:256 i18:669:256 after=E8
[0 - 1] 2.091156 {2}{inst}: reusing local instance: 4000000000000003
[0 - 1] 2.091168 {2}{inst}: creating new local instance: 4000000000000008
[0 - 1] 2.224712 {3}{random}: CHECKPOINT 1
)",
     "live 4000000000000000 [0, +0) 0 \n"
     "live 4000000000000002 [0, +2149) 0 \n"
     "waiting 4000000000000003 0 unknown " + kWaitsOn + "\n"
     "waiting 4000000000000008 0 unknown " + kWaitsOn + "\n"},
    // The same redistrict once E8 fires: the old instance's release and the
    // pieces' placements are in the log; nothing waits, nothing is marked
    // but the pieces' sizes.
    {"ARedistrictThatRanIsNoLongerMarkedWaiting", R"(
[0 - 1] 2.091000 {3}{random}: OP create S i4 2149 align=128
[0 - 1] 2.091010 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 2.091020 {1}{inst}: instance layout: inst=4000000000000002 layout=Layout(bytes=2149, align=128, fields={0=0+0}, lists=[[<0>..<2148>->affine(<1>+0)]])
[0 - 1] 2.091030 {1}{inst}: allocation completed: inst=4000000000000002 offset=0
[0 - 1] 2.091040 {2}{inst}: instance created: inst=4000000000000002 bytes=2149 ready=0
[0 - 1] 2.091132 {3}{random}: OP event E8
[0 - 1] 2.091134 {2}{event}: user event created: event=8000001000400003
[0 - 1] 2.091137 {3}{random}: OP redistrict i4 i17:523:256 i18:669:256 after=E8
[0 - 1] 2.091156 {2}{inst}: reusing local instance: 4000000000000003
[0 - 1] 2.091168 {2}{inst}: creating new local instance: 4000000000000008
[0 - 1] 2.100000 {3}{random}: OP trigger E8
[0 - 1] 2.100010 {2}{event}: user event trigger: event=8000001000400003 wait_on=0
[0 - 1] 2.100020 {1}{inst}: deallocation completed: inst=4000000000000002
[0 - 1] 2.100030 {1}{inst}: allocation completed: inst=4000000000000003 offset=0
[0 - 1] 2.100040 {1}{inst}: allocation completed: inst=4000000000000008 offset=768
[0 - 1] 2.224712 {3}{random}: CHECKPOINT 1
)",
     "live 4000000000000000 [0, +0) 0 \n"
     "live 4000000000000003 [0, +768) 0 upper bound\n"
     "live 4000000000000008 [768, +1381) 0 upper bound\n"},
};

class RedistrictState : public ::testing::TestWithParam<Program> {};

TEST_P(RedistrictState, TheCutAndAtShowWhatRealmHeld) {
  const Program& program = GetParam();
  const Rebuilt r = Rebuild(program.log);
  const Snapshot* cut = Memory(r.cut, kS);
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(Picture(*cut), program.picture);
  ExpectAtGivesTheCut(r, kS);
}

INSTANTIATE_TEST_SUITE_P(
    OraclePrograms, RedistrictState, ::testing::ValuesIn(kPrograms),
    [](const ::testing::TestParamInfo<Program>& info) {
      return std::string(info.param.name);
    });

}  // namespace
}  // namespace realm_shadow
