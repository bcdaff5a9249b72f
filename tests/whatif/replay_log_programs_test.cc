// The oracle's minimal programs of its replay.* checks (scripts/legion-oracle,
// docs/oracle.md): Realm logs that scripts/trial/realm_random.cc wrote,
// reduced to the few operations that showed a defect, rebuilt as
// ingest-realm-log rebuilds them and replayed under `realm` at the run's
// capacity.  For each: the history compiles (no hole), every placement the
// log records is reproduced where the log records it, and the replay fails
// exactly the requests the run failed.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "absl/status/statusor.h"
#include "realm_shadow/ingest/realm_log.h"
#include "whatif/from_dump.h"
#include "whatif/replay.h"

namespace realm_shadow::whatif {
namespace {

constexpr uint64_t kS = 0x1e00000000000000ull;  // -ll:csize 4: 4 MiB

// What every run logs first: the machine dump's memories, and the
// zero-byte instance of S the program makes (at 0).
const char kPrologue[] = R"([0 - 1] 0.000100 {1}{machine}: Node 0:
Memory:1e00000000000000, SYSTEM_MEM, capacity: 4194304
Memory:1e00000000000001, SYSTEM_MEM, capacity: 0
Memory:1e00000000000002, REGDMA_MEM, capacity: 2097152
[0 - 1] 0.000220 {2}{inst}: creating new local instance: 4000000000000000
[0 - 1] 0.000230 {1}{inst}: instance layout: inst=4000000000000000 layout=Layout(bytes=0, align=32, fields={0=0+0}, lists=[[]])
[0 - 1] 0.000240 {1}{inst}: allocation completed: inst=4000000000000000 offset=0
[0 - 1] 0.000250 {2}{inst}: instance created: inst=4000000000000000 bytes=0 ready=0
)";

struct Replayed {
  DumpFile dump;
  absl::StatusOr<ReplayScript> script = absl::UnknownError("");
  ReplayResult result;
};

// kPrologue then `log`, rebuilt whole; S's history replayed under realm.
Replayed ReplayLog(const std::string& log) {
  Replayed out;
  RealmLogReader reader;
  std::istringstream lines(std::string(kPrologue) + log);
  for (std::string line; std::getline(lines, line);) reader.FeedLine(line);
  out.dump = reader.Dump();
  for (const Snapshot& m : out.dump.memories)
    if (m.memory_id == kS) out.script = ScriptOfDumpMemory(out.dump, m);
  if (!out.script.ok()) return out;
  ReplayOptions o;
  o.policy = PlacementPolicy::kRealm;
  absl::StatusOr<ReplayResult> r = RunReplay(*out.script, o);
  EXPECT_TRUE(r.ok()) << r.status();
  if (r.ok()) out.result = *std::move(r);
  return out;
}

// Every checkable placement as recorded, and `failures` failures, all the
// run's.
void ExpectAsTheRun(const Replayed& r, uint64_t checked, uint64_t failures) {
  ASSERT_TRUE(r.script.ok()) << r.script.status();
  EXPECT_EQ(r.result.self_check.checked, checked);
  EXPECT_EQ(r.result.self_check.as_recorded, r.result.self_check.checked);
  EXPECT_EQ(r.result.failures.size(), failures);
  EXPECT_EQ(r.result.recorded_failures, failures);
  EXPECT_EQ(r.result.recorded_failures_avoided, 0u);
}

// replay.history-hole (seed 72): i2 waits on E2 and is redistricted into
// i8 while it waits; when E2 fires, i2 does not fit and fails, and Realm
// fails its piece too ("allocation failed" of i8, which the rebuild reads
// as cancelled).  The program destroys i8 all the same: Realm logs its
// "deallocation completed", which releases nothing.
// create S i1 2149 align=128 / event E2 / create S i2 fill align=32 after=E2 /
// redistrict i2 i8:281142:32 / trigger E2 / destroy i8 / checkpoint
const char kDestroyOfAFailedPiece[] = R"(
[0 - 1] 0.807392 {3}{random}: OP create S i1 2149 align=128
[0 - 1] 0.807396 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.807399 {1}{inst}: instance layout: inst=4000000000000002 layout=Layout(bytes=2149, align=128, fields={0=0+0}, lists=[[<0>..<2148>->affine(<1>+0)]])
[0 - 1] 0.807401 {1}{inst}: allocation completed: inst=4000000000000002 offset=0
[0 - 1] 0.807403 {2}{inst}: instance created: inst=4000000000000002 bytes=2149 ready=0
[0 - 1] 0.807356 {3}{random}: OP event E2
[0 - 1] 0.807358 {2}{event}: user event created: event=8000001000100001
[0 - 1] 0.807361 {3}{random}: OP create S i2 fill align=32 after=E2
[0 - 1] 0.807373 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.807376 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=4194304, align=32, fields={0=0+0}, lists=[[<0>..<4194303>->affine(<1>+0)]])
[0 - 1] 0.807382 {2}{inst}: instance created: inst=4000000000000001 bytes=4194304 ready=8000001000100001
[0 - 1] 1.109950 {3}{random}: OP redistrict i2 i8:281142:32
[0 - 1] 1.109980 {2}{inst}: creating new local instance: 4000000000000005
[0 - 1] 1.611908 {3}{random}: OP trigger E2
[0 - 1] 1.611911 {2}{event}: user event trigger: event=8000001000100001 wait_on=0
[0 - 1] 1.611919 {2}{inst}: allocation failed: inst=4000000000000001
[0 - 1] 1.612112 {2}{inst}: allocation failed: inst=4000000000000005
[0 - 1] 1.625568 {3}{random}: OP destroy i8
[0 - 1] 1.625572 {2}{inst}: instance destroyed: inst=4000000000000005 wait_on=0
[0 - 1] 1.625574 {1}{inst}: deallocation completed: inst=4000000000000005
[0 - 1] 1.625578 {2}{inst}: releasing local instance: 4000000000000005
[0 - 1] 1.753510 {3}{random}: CHECKPOINT 1
)";

TEST(ReplayLogPrograms, TheDestroyOfAFailedPieceIsNoHole) {
  const Replayed r = ReplayLog(kDestroyOfAFailedPiece);
  ExpectAsTheRun(r, 2, 1);
}

// replay.history-hole (seeds 456, 471): an external instance created on a
// precondition logs its address ("allocation completed" far past S's end)
// only when E7 fires, after its "instance created ... external=" line; it
// holds nothing of the allocator, and its destroy releases nothing.
// event E7 / external S i28 5250 after=E7 / destroy i28 / trigger E7 /
// create S i29 1000 align=32 / checkpoint
const char kExternalOnAPrecondition[] = R"(
[0 - 1] 1.878690 {3}{random}: OP event E7
[0 - 1] 1.878692 {2}{event}: user event created: event=8000001000e00001
[0 - 1] 1.878698 {3}{random}: OP external S i28 5250 after=E7
[0 - 1] 1.878718 {2}{inst}: creating new local instance: 400000000000000b
[0 - 1] 1.878722 {1}{inst}: instance layout: inst=400000000000000b layout=Layout(bytes=5250, align=32, fields={0=0+0}, lists=[[<0>..<5249>->affine(<1>+0)]])
[0 - 1] 1.878726 {2}{inst}: instance created: inst=400000000000000b external=memory(base=7f2bee785000, size=5250) ready=8000001000e00001
[0 - 1] 1.889099 {3}{random}: OP destroy i28
[0 - 1] 1.889159 {2}{inst}: instance destroyed: inst=400000000000000b wait_on=8000001000e00001
[0 - 1] 2.044559 {3}{random}: OP trigger E7
[0 - 1] 2.044562 {2}{event}: user event trigger: event=8000001000e00001 wait_on=0
[0 - 1] 2.044604 {1}{inst}: allocation completed: inst=400000000000000b offset=18446744073371381760
[0 - 1] 2.052567 {1}{inst}: deallocation completed: inst=400000000000000b
[0 - 1] 2.052637 {2}{inst}: releasing local instance: 400000000000000b
[0 - 1] 2.054753 {3}{random}: OP create S i29 1000 align=32
[0 - 1] 2.054760 {2}{inst}: creating new local instance: 400000000000000c
[0 - 1] 2.054770 {1}{inst}: instance layout: inst=400000000000000c layout=Layout(bytes=1000, align=32, fields={0=0+0}, lists=[[<0>..<999>->affine(<1>+0)]])
[0 - 1] 2.054798 {1}{inst}: allocation completed: inst=400000000000000c offset=0
[0 - 1] 2.054800 {2}{inst}: instance created: inst=400000000000000c bytes=1000 ready=0
[0 - 1] 2.104636 {3}{random}: CHECKPOINT 1
)";

TEST(ReplayLogPrograms, AnExternalInstancePlacedOnAPreconditionIsNoHole) {
  const Replayed r = ReplayLog(kExternalOnAPrecondition);
  ExpectAsTheRun(r, 2, 0);
  // The rebuild's map counts no release of an instance it never held.
  for (const Snapshot& m : r.dump.memories)
    if (m.memory_id == kS) EXPECT_TRUE(m.anomalies.empty());
}

// replay.self-check (seeds 5, 14, 108 of /tmp/ox500): i5 does not fit
// beside i1 and waits in Realm's allocator for i1's redistrict, which
// waits on E7.  When E7 fires Realm splits i1, serves i5 in the room the
// split leaves, and logs i5's "allocation completed" first, then i1's
// "deallocation completed", then the pieces; the rebuild applies the
// redistrict once its pieces are placed, after i5.  Replayed in the log's
// order, i5 found i1 still whole and failed.
// create S i1 70656 align=128 / event E7 /
// redistrict i1 i2:5319:256 i3:8381:256 i4:24743:4096 after=E7 /
// create S i5 4153088 align=256 / trigger E7 / checkpoint
const char kPlacedBeforeTheRedistrictThatMadeItsRoom[] = R"(
[0 - 1] 1.433056 {3}{random}: OP create S i1 70656 align=128
[0 - 1] 1.433059 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 1.433061 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=70656, align=128, fields={0=0+0}, lists=[[<0>..<70655>->affine(<1>+0)]])
[0 - 1] 1.433064 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 1.433066 {2}{inst}: instance created: inst=4000000000000001 bytes=70656 ready=0
[0 - 1] 1.433083 {3}{random}: OP event E7
[0 - 1] 1.433085 {2}{event}: user event created: event=8000001000300002
[0 - 1] 1.433087 {3}{random}: OP redistrict i1 i2:5319:256 i3:8381:256 i4:24743:4096 after=E7
[0 - 1] 1.433109 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 1.433112 {2}{inst}: creating new local instance: 4000000000000003
[0 - 1] 1.433122 {2}{inst}: creating new local instance: 4000000000000004
[0 - 1] 1.597107 {3}{random}: OP create S i5 4153088 align=256
[0 - 1] 1.597113 {2}{inst}: creating new local instance: 4000000000000005
[0 - 1] 1.597116 {1}{inst}: instance layout: inst=4000000000000005 layout=Layout(bytes=4153088, align=256, fields={0=0+0}, lists=[[<0>..<4153087>->affine(<1>+0)]])
[0 - 1] 1.597133 {2}{inst}: instance created: inst=4000000000000005 bytes=4153088 ready=8000001000800001
[0 - 1] 1.796786 {3}{random}: OP trigger E7
[0 - 1] 1.796825 {2}{event}: user event trigger: event=8000001000300002 wait_on=0
[0 - 1] 1.796848 {1}{inst}: allocation completed: inst=4000000000000005 offset=41216
[0 - 1] 1.796854 {1}{inst}: deallocation completed: inst=4000000000000001
[0 - 1] 1.796867 {2}{inst}: releasing local instance: 4000000000000001
[0 - 1] 1.796870 {1}{inst}: allocation completed: inst=4000000000000002 offset=0
[0 - 1] 1.796873 {1}{inst}: allocation completed: inst=4000000000000003 offset=5376
[0 - 1] 1.796875 {1}{inst}: allocation completed: inst=4000000000000004 offset=16384
[0 - 1] 1.921369 {3}{random}: CHECKPOINT 1
)";

TEST(ReplayLogPrograms, APlacementLoggedBeforeTheRedistrictThatMadeItsRoomFollowsIt) {
  const Replayed r = ReplayLog(kPlacedBeforeTheRedistrictThatMadeItsRoom);
  ExpectAsTheRun(r, 3, 0);
  EXPECT_EQ(r.result.self_check.not_checkable, 3u);  // the pieces
}

}  // namespace
}  // namespace realm_shadow::whatif
