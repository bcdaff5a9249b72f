// What the log's rebuild shows of releases and redistricts Realm's log does
// not spell out, program by program (scripts/legion-oracle's minimal
// programs, reduced from seeds of a Legion master run): each case is a log
// after the prologue every run writes, and the picture of memory S at its
// CHECKPOINT line as Realm held it, with what the log cannot tell marked.
// The log cut there gives that picture, and so does `at --event` /
// `at --time` on the whole log's history at that moment.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "realm_shadow/core/identity.h"
#include "tests/ingest/oracle_log.h"

namespace realm_shadow {
namespace {

using namespace oracle_log;  // NOLINT: the programs' vocabulary

struct Program {
  const char* name;
  // The lines after kPrologue, up to and past one CHECKPOINT line.
  std::string log;
  // Picture() of S in the cut: "live ID [OFFSET, +SIZE) STATE SIZE-MARK",
  // "waiting ID SIZE SIZE-MARK WAITS-ON", "failed ID SIZE" (STATE 0 live,
  // 1 release pending, 2 release ready).
  std::string picture;
};

const std::string kWaitsOn = kWaitsOnUnnamedRedistrict;

// create S i4 2149 align=128 / event E8 / redistrict i4 i17:523:256
// i18:669:256 after=E8 (seed 64): i4 live, its redistrict waiting.
const std::string kI4AndItsWaitingRedistrict = R"(
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
)";

const Program kPrograms[] = {
    // log.state-release_pending-shown-live (seed 64, checkpoint 8): i4's
    // redistrict waits on E8.  Realm holds i4 release pending and logs only
    // the pieces' announces; the zero-byte instance and i4 are both live
    // in S, so the log cannot say which is redistricted.  i4 stays live and
    // the pieces say what they wait on (before: nothing said it).
    {"AWaitingRedistrictSaysItsOldInstanceIsNotInTheLog",
     kI4AndItsWaitingRedistrict + R"([0 - 1] 2.224712 {3}{random}: CHECKPOINT 1
)",
     "live 4000000000000000 [0, +0) 0 \n"
     "live 4000000000000002 [0, +2149) 0 \n"
     "waiting 4000000000000003 0 unknown " + kWaitsOn + "\n"
     "waiting 4000000000000008 0 unknown " + kWaitsOn + "\n"},
    // The same redistrict once E8 fires: the old instance's release and the
    // pieces' placements are in the log; nothing waits, nothing is marked
    // but the pieces' sizes.
    {"ARedistrictThatRanIsNoLongerMarkedWaiting",
     kI4AndItsWaitingRedistrict + R"([0 - 1] 2.100000 {3}{random}: OP trigger E8
[0 - 1] 2.100010 {2}{event}: user event trigger: event=8000001000400003 wait_on=0
[0 - 1] 2.100020 {1}{inst}: deallocation completed: inst=4000000000000002
[0 - 1] 2.100030 {1}{inst}: allocation completed: inst=4000000000000003 offset=0
[0 - 1] 2.100040 {1}{inst}: allocation completed: inst=4000000000000008 offset=768
[0 - 1] 2.224712 {3}{random}: CHECKPOINT 1
)",
     "live 4000000000000000 [0, +0) 0 \n"
     "live 4000000000000003 [0, +768) 0 upper bound\n"
     "live 4000000000000008 [768, +1381) 0 upper bound\n"},
    // at.numbering, at.time.allocations, log.bound (seeds 307, 450, 472):
    // i3 is destroyed while its redistrict waits (on E5, not yet fired),
    // then placed; Realm holds its release pending.  The destroy was
    // dropped, so when E5 fired, i3's release read as the old instance of
    // i2's redistrict announced just before: the cut settled that group
    // (i2 gone, i6 bounded by i3's range), the whole history had one event
    // fewer and i2 live.  Now i3 is released and i6 waits.
    {"APieceDestroyedWhileItWaitedIsReleasedNotRedistricted", R"(
[0 - 1] 0.404396 {3}{random}: OP create S i1 64512 align=65536
[0 - 1] 0.404408 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.404412 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=64512, align=65536, fields={0=0+0}, lists=[[<0>..<64511>->affine(<1>+0)]])
[0 - 1] 0.404418 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 0.404420 {2}{inst}: instance created: inst=4000000000000001 bytes=64512 ready=0
[0 - 1] 0.404426 {3}{random}: OP event E2
[0 - 1] 0.404428 {2}{event}: user event created: event=8000001000100001
[0 - 1] 0.404430 {3}{random}: OP redistrict i1 i2:30061:32 i3:2879:32 after=E2
[0 - 1] 0.404444 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.404447 {2}{inst}: creating new local instance: 4000000000000003
[0 - 1] 0.559111 {3}{random}: OP destroy i3 after=E5
[0 - 1] 0.559115 {2}{event}: user event created: event=8000001000000005
[0 - 1] 0.559134 {2}{inst}: instance destroyed: inst=4000000000000003 wait_on=8000001000000005
[0 - 1] 1.407569 {3}{random}: OP trigger E2
[0 - 1] 1.407573 {2}{event}: user event trigger: event=8000001000100001 wait_on=0
[0 - 1] 1.407583 {1}{inst}: deallocation completed: inst=4000000000000001
[0 - 1] 1.407598 {1}{inst}: allocation completed: inst=4000000000000002 offset=0
[0 - 1] 1.407600 {1}{inst}: allocation completed: inst=4000000000000003 offset=30080
[0 - 1] 1.422524 {3}{random}: OP event E10
[0 - 1] 1.422575 {2}{event}: user event created: event=8000001000600002
[0 - 1] 1.422580 {3}{random}: OP redistrict i2 i6:4879:32 after=E10
[0 - 1] 1.422600 {2}{inst}: creating new local instance: 4000000000000004
[0 - 1] 1.422630 {2}{event}: user event trigger: event=8000001000000005 wait_on=0
[0 - 1] 1.422638 {1}{inst}: deallocation completed: inst=4000000000000003
[0 - 1] 1.536932 {3}{random}: CHECKPOINT 1
[0 - 1] 1.546890 {3}{random}: OP create S i29 4096 align=32
[0 - 1] 1.546902 {2}{inst}: creating new local instance: 400000000000000b
[0 - 1] 1.546908 {1}{inst}: instance layout: inst=400000000000000b layout=Layout(bytes=4096, align=32, fields={0=0+0}, lists=[[<0>..<4095>->affine(<1>+0)]])
[0 - 1] 1.546922 {1}{inst}: allocation completed: inst=400000000000000b offset=65536
[0 - 1] 1.546926 {2}{inst}: instance created: inst=400000000000000b bytes=4096 ready=0
)",
     "live 4000000000000000 [0, +0) 0 \n"
     "live 4000000000000002 [0, +30080) 0 upper bound\n"
     "waiting 4000000000000004 0 unknown " + kWaitsOn + "\n"},
    // log.state-live-shown-release_pending (seed 298; 39, 91, 120 of a
    // run with poison=2): i2 is destroyed while its redistrict waits, so
    // the destroy waits on the redistrict's ready event (Realm requires
    // it), the last piece's.  That piece, i3, fails: the event is poisoned
    // and Realm drops the destroy.  i2 stays live (it was shown release
    // pending).
    {"ADestroyOfAPieceWaitingOnARedistrictWhoseLastPieceFailedIsDropped", R"(
[0 - 1] 0.400000 {3}{random}: OP create S i1 1048576 align=32
[0 - 1] 0.400010 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.400020 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=1048576, align=32, fields={0=0+0}, lists=[[<0>..<1048575>->affine(<1>+0)]])
[0 - 1] 0.400030 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 0.400040 {2}{inst}: instance created: inst=4000000000000001 bytes=1048576 ready=0
[0 - 1] 0.400100 {3}{random}: OP event E1
[0 - 1] 0.400110 {2}{event}: user event created: event=8000001000000002
[0 - 1] 0.400120 {3}{random}: OP redistrict i1 i2:0:4096 i3:1:32 after=E1
[0 - 1] 0.400130 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.400140 {2}{inst}: creating new local instance: 4000000000000003
[0 - 1] 0.400200 {3}{random}: OP destroy i2
[0 - 1] 0.400210 {2}{inst}: instance destroyed: inst=4000000000000002 wait_on=8000001000200001
[0 - 1] 0.500000 {3}{random}: OP trigger E1
[0 - 1] 0.500010 {2}{event}: user event trigger: event=8000001000000002 wait_on=0
[0 - 1] 0.500020 {1}{inst}: deallocation completed: inst=4000000000000001
[0 - 1] 0.500030 {1}{inst}: allocation completed: inst=4000000000000002 offset=0
[0 - 1] 0.500040 {2}{inst}: allocation failed: inst=4000000000000003
[0 - 1] 0.600000 {3}{random}: CHECKPOINT 1
)",
     "live 4000000000000000 [0, +0) 0 \n"
     "live 4000000000000002 [0, +1048576) 0 upper bound\n"
     "failed 4000000000000003 0\n"},
};

// GoogleTest prints a parameter by its name, not its bytes.
void PrintTo(const Program& program, std::ostream* os) { *os << program.name; }

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
