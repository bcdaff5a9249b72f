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
#include "tests/common/log_program.h"
#include "whatif/from_dump.h"
#include "whatif/replay.h"

namespace realm_shadow::whatif {
namespace {

constexpr uint64_t kS = 0x1e00000000000000ull;  // -ll:csize 4: 4 MiB

// What every run logs first: the machine dump's memories, and the
// zero-byte instance of S the program makes (at 0).
const std::string kPrologue = LogProgram("replay_log_programs/prologue");

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
// run's; `maybe_cancelled` of them are failures the log cannot tell from
// a cancellation (Failure::maybe_cancelled), failed by the replay as well.
void ExpectAsTheRun(const Replayed& r, uint64_t checked, uint64_t failures,
                    uint64_t maybe_cancelled = 0) {
  ASSERT_TRUE(r.script.ok()) << r.script.status();
  EXPECT_EQ(r.result.self_check.checked, checked);
  EXPECT_EQ(r.result.self_check.as_recorded, r.result.self_check.checked);
  EXPECT_EQ(r.result.failures.size(), failures);
  EXPECT_EQ(r.result.recorded_failures, failures - maybe_cancelled);
  EXPECT_EQ(r.result.recorded_failures_avoided, 0u);
  EXPECT_EQ(r.result.recorded_maybe_cancelled, maybe_cancelled);
  EXPECT_EQ(r.result.failures_of_maybe_cancelled, maybe_cancelled);
}

// replay.history-hole (seed 72): i2 waits on E2 and is redistricted into
// i8 while it waits; when E2 fires, i2 does not fit and fails (a log
// without poison lines cannot tell that from a cancellation: marked maybe
// cancelled, and the replay fails it too), and Realm fails its piece too
// ("allocation failed" of i8, which the rebuild reads as cancelled).  The program destroys i8 all the same: Realm logs its
// "deallocation completed", which releases nothing.
// create S i1 2149 align=128 / event E2 / create S i2 fill align=32 after=E2 /
// redistrict i2 i8:281142:32 / trigger E2 / destroy i8 / checkpoint

TEST(ReplayLogPrograms, TheDestroyOfAFailedPieceIsNoHole) {
  const Replayed r = ReplayLog(
      LogProgram("replay_log_programs/destroy_of_a_failed_piece"));
  ExpectAsTheRun(r, 2, 1, /*maybe_cancelled=*/1);
}

// replay.history-hole (seeds 456, 471): an external instance created on a
// precondition logs its address ("allocation completed" far past S's end)
// only when E7 fires, after its "instance created ... external=" line; it
// holds nothing of the allocator, and its destroy releases nothing.
// event E7 / external S i28 5250 after=E7 / destroy i28 / trigger E7 /
// create S i29 1000 align=32 / checkpoint

TEST(ReplayLogPrograms, AnExternalInstancePlacedOnAPreconditionIsNoHole) {
  const Replayed r = ReplayLog(
      LogProgram("replay_log_programs/external_on_a_precondition"));
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

TEST(ReplayLogPrograms, APlacementLoggedBeforeTheRedistrictThatMadeItsRoomFollowsIt) {
  const Replayed r = ReplayLog(
      LogProgram("replay_log_programs/"
                 "placed_before_the_redistrict_that_made_its_room"));
  ExpectAsTheRun(r, 3, 0);
  EXPECT_EQ(r.result.self_check.not_checkable, 3u);  // the pieces
}

// replay.self-check (seed 6 of a master run with poison lines): i2 does not
// fit (its size is the free room, but not at its alignment) and fails at
// once; i5 waits on i2's ready event, poisoned, and Realm cancels it at
// once, logged as "allocation failed" like a refusal: the log names no
// precondition, so both are marked maybe cancelled.  The replay asks for
// i5 (Realm may have) and places it at 65536; Realm destroys i5 at once.
// That release was dropped (a failed instance's destroy releases
// nothing), the replay held i5 to the end, and i6 went to 67584, not 2208.
// create S i1 2203 align=32 / create S i2 fill align=256 after=r:i1 /
// create S i5 2048 align=65536 after=r:i2 / destroy i5 after=E1 /
// create S i6 858513 align=16 / checkpoint

TEST(ReplayLogPrograms, AMaybeCancelledRequestTheReplayPlacedIsReleasedWhereRealmDestroyedIt) {
  const Replayed r = ReplayLog(
      LogProgram("replay_log_programs/destroy_of_a_maybe_cancelled_failure"));
  ASSERT_TRUE(r.script.ok()) << r.script.status();
  EXPECT_EQ(r.result.self_check.checked, 3u);
  EXPECT_EQ(r.result.self_check.as_recorded, 3u);
  EXPECT_EQ(r.result.recorded_failures, 0u);
  EXPECT_EQ(r.result.recorded_maybe_cancelled, 2u);
  // i2 fails here too; i5 is placed, and released at once.
  ASSERT_EQ(r.result.failures.size(), 1u);
  EXPECT_EQ(r.result.failures_of_maybe_cancelled, 1u);
}

}  // namespace
}  // namespace realm_shadow::whatif
