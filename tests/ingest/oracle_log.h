// tests/ingest/oracle_log.h - the oracle's minimal programs rebuilt as
// scripts/legion-oracle checks them: a Realm log that
// scripts/trial/realm_random.cc wrote (after the prologue every run logs),
// cut before its CHECKPOINT line and read whole, and what the oracle
// compares: the cut's picture, and `at --event` / `at --time` on the whole
// log's history at the checkpoint, markings included.  Shared by
// oracle_programs_test.cc and redistrict_state_test.cc.
#ifndef REALM_SHADOW_TESTS_INGEST_ORACLE_LOG_H_
#define REALM_SHADOW_TESTS_INGEST_ORACLE_LOG_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "realm_shadow/analysis/history_cursor.h"
#include "realm_shadow/core/identity.h"
#include "realm_shadow/ingest/realm_log.h"
#include "tests/common/log_program.h"

namespace realm_shadow {
namespace oracle_log {

inline constexpr uint64_t kS = 0x1e00000000000000ull;  // -ll:csize 4: 4 MiB
inline constexpr uint64_t kX = 0x1e00000000000001ull;  // capacity 0: external
inline constexpr uint64_t kR = 0x1e00000000000002ull;  // -ll:rsize 2: 2 MiB

// What every run logs first: the machine dump's memories, the event the
// program cancels at once (its source of poison), and its zero-byte
// instance of S (those of X and R are left out).
inline const std::string kPrologue = LogProgram("oracle_log/prologue");

// The log cut before its CHECKPOINT line, the whole log, and the
// checkpoint's time (the moment `at --time` is asked for).
struct Rebuilt {
  DumpFile cut;
  DumpFile whole;
  int64_t checkpoint_ns = 0;
};

// kPrologue, then `log`.
inline Rebuilt Rebuild(const std::string& log) {
  Rebuilt out;
  RealmLogReader cut, whole;
  bool before = true;
  std::istringstream lines(std::string(kPrologue) + log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("CHECKPOINT ") != std::string::npos && before) {
      before = false;
      // "[0 - 1] 0.820838 {3}{random}: CHECKPOINT 1"
      const size_t at = line.find("] ") + 2;
      out.checkpoint_ns = std::llround(std::stod(line.substr(at)) * 1e6) * 1000;
    }
    if (before) cut.FeedLine(line);
    whole.FeedLine(line);
  }
  EXPECT_FALSE(before) << "no CHECKPOINT line";
  out.cut = cut.Dump();
  out.whole = whole.Dump();
  return out;
}

inline const Snapshot* Memory(const DumpFile& dump, uint64_t id) {
  for (const Snapshot& s : dump.memories)
    if (s.memory_id == id) return &s;
  return nullptr;
}

inline const MemoryHistory* History(const DumpFile& dump, uint64_t id) {
  for (const MemoryHistory& h : dump.histories)
    if (h.memory_id == id) return &h;
  return nullptr;
}

// The value of attribute `key` of a picture's identity `identity`, "" when
// it has none.
inline std::string Attribute(const Snapshot& s, uint32_t identity,
                             const char* key) {
  for (const Identity& i : s.identities)
    if (i.id == identity)
      for (const auto& [k, value] : i.attributes)
        if (k == key) return value;
  return "";
}

// What a picture says of a size: "upper bound", "unknown", or "".
inline std::string SizeMark(const Snapshot& s, uint32_t identity) {
  return Attribute(s, identity, kSizeAttribute);
}

// What a picture says a waiting request waits on, when the log cannot
// name it ("" otherwise).
inline std::string WaitsOn(const Snapshot& s, uint32_t identity) {
  return Attribute(s, identity, kWaitsOnAttribute);
}

// The picture as the oracle compares two of one moment: allocations with
// their state, size marking and, for a range that may be given back
// already, " maybe given back", for a release that may have been skipped,
// " maybe skipped"; waiting requests with their size marking and what they
// wait on; failures.
inline std::string Picture(const Snapshot& s) {
  std::string out;
  for (const Allocation& a : s.allocations)
    absl::StrAppend(&out, "live ", absl::Hex(a.instance), " [", a.offset, ", +",
                    a.size, ") ", static_cast<int>(a.state), " ",
                    SizeMark(s, a.identity),
                    Attribute(s, a.identity, kHeldAttribute) == kHeldMaybeGivenBack
                        ? " maybe given back"
                        : "",
                    Attribute(s, a.identity, kReleaseAttribute) ==
                            kReleaseMaybeSkipped
                        ? " maybe skipped"
                        : "",
                    "\n");
  for (const PendingRequest& p : s.pending)
    absl::StrAppend(&out, "waiting ", absl::Hex(p.instance), " ", p.size, " ",
                    SizeMark(s, p.identity), " ", WaitsOn(s, p.identity),
                    "\n");
  for (const Failure& f : s.failures)
    absl::StrAppend(&out, "failed ", absl::Hex(f.instance), " ", f.size, "\n");
  return out;
}

// `at --event` (the cut's number of events) and `at --time` (the
// checkpoint's time) on the whole log's history give the cut's picture.
inline void ExpectAtGivesTheCut(const Rebuilt& r, uint64_t memory) {
  const Snapshot* cut = Memory(r.cut, memory);
  const MemoryHistory* h = History(r.whole, memory);
  ASSERT_NE(cut, nullptr);
  ASSERT_NE(h, nullptr);
  absl::StatusOr<Snapshot> by_event = StateAt(*h, cut->sequence);
  ASSERT_TRUE(by_event.ok()) << by_event.status();
  EXPECT_EQ(Picture(*by_event), Picture(*cut)) << "at --event " << cut->sequence;
  absl::StatusOr<uint64_t> moment = MomentAtTime(*h, r.checkpoint_ns);
  ASSERT_TRUE(moment.ok()) << moment.status();
  EXPECT_EQ(*moment, cut->sequence) << "at --time numbers the moment otherwise";
  absl::StatusOr<Snapshot> by_time = StateAt(*h, *moment);
  ASSERT_TRUE(by_time.ok()) << by_time.status();
  EXPECT_EQ(Picture(*by_time), Picture(*cut)) << "at --time";
}

inline const Allocation* Live(const Snapshot& s, uint64_t instance) {
  for (const Allocation& a : s.allocations)
    if (a.instance == instance) return &a;
  return nullptr;
}

// The cut's live allocation of `instance` in S; null, with a failure that
// shows the cut, when it holds none.
inline const Allocation* LiveInCut(const Rebuilt& r, uint64_t instance) {
  const Snapshot* cut = Memory(r.cut, kS);
  if (cut == nullptr) {
    ADD_FAILURE() << "no memory S in the cut";
    return nullptr;
  }
  const Allocation* a = Live(*cut, instance);
  if (a == nullptr)
    ADD_FAILURE() << "no " << std::hex << instance << " in the cut:\n"
                  << Picture(*cut);
  return a;
}

// What the cut says of `a`'s size ("upper bound", "unknown" or "").
inline std::string CutSizeMark(const Rebuilt& r, const Allocation& a) {
  return SizeMark(*Memory(r.cut, kS), a.identity);
}
inline bool AnyNote(const DumpFile& d, const std::string& part) {
  for (const std::string& n : d.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}
}  // namespace oracle_log
}  // namespace realm_shadow

#endif  // REALM_SHADOW_TESTS_INGEST_ORACLE_LOG_H_
