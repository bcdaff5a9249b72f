// tests/ingest/log_fixtures.h - what the ingest tests share: the fixture
// logs (Realm-only runs with their ground truth, real Legion runs with
// Legion Spy lines), log lines as Realm prints them, and a run's logs read
// into one dump.  The fixture directories come from the test target's
// REALM_SHADOW_FIXTURES and REALM_SHADOW_SPY_FIXTURES.
#ifndef REALM_SHADOW_TESTS_INGEST_LOG_FIXTURES_H_
#define REALM_SHADOW_TESTS_INGEST_LOG_FIXTURES_H_

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/ingest/realm_log.h"

namespace realm_shadow::testing {

// The Realm-only logs (realm-frag-deferred and its truth, circuit, ...) and
// the Legion Spy runs, each directory with its INDEX.txt.
inline const std::string kFixtures = REALM_SHADOW_FIXTURES;
inline const std::string kSpy = REALM_SHADOW_SPY_FIXTURES;

inline bool HaveFixtures() {
  return std::ifstream(kFixtures + "/INDEX.txt").good();
}
inline bool HaveSpyFixtures() {
  return std::ifstream(kSpy + "/INDEX.txt").good();
}

#define SKIP_WITHOUT_FIXTURES() \
  if (!::realm_shadow::testing::HaveFixtures()) \
  FAIL() << "no fixtures at " << ::realm_shadow::testing::kFixtures
#define SKIP_WITHOUT_SPY_FIXTURES() \
  if (!::realm_shadow::testing::HaveSpyFixtures()) \
  FAIL() << "no fixtures at " << ::realm_shadow::testing::kSpy

// The Legion Spy runs and their rank logs (<name>_<rank>.log).
struct SpyRun {
  std::string name;
  int ranks;
};
inline const SpyRun kRuns[] = {{"circuit-1rank-spy", 1},
                               {"circuit-2rank-normal", 2},
                               {"circuit-2rank-oom", 2},
                               {"tutorial08-2rank-normal", 2}};

inline std::vector<std::string> RankLogs(const SpyRun& run) {
  std::vector<std::string> out;
  for (int r = 0; r < run.ranks; ++r)
    out.push_back(kSpy + "/" + run.name + "_" + std::to_string(r) + ".log");
  return out;
}

// The logs read into one dump; a refused read fails the test and gives an
// empty dump.
inline DumpFile Ingest(const std::vector<std::string>& logs,
                       IngestSummary* summary = nullptr) {
  absl::StatusOr<DumpFile> dump = IngestRealmLogs(logs, IngestOptions{}, summary);
  EXPECT_TRUE(dump.ok()) << dump.status();
  return dump.ok() ? *std::move(dump) : DumpFile();
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `text` as a file of gtest's temporary directory; returns its path.
inline std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/rs_spy_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The one memory of a rebuilt dump; when there is not exactly one, a test
// failure that says how many, and an empty picture.
inline const Snapshot& OnlyMemory(const DumpFile& dump) {
  static const Snapshot kNone;
  if (dump.memories.size() == 1) return dump.memories[0];
  ADD_FAILURE() << dump.memories.size() << " memories rebuilt, not one";
  return kNone;
}

inline bool AnyNote(const DumpFile& d, const std::string& part) {
  for (const std::string& n : d.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

// What the identity of an allocation says in identity lines: "" when it has
// none, or only figures (the '#' attributes every instance with a layout
// line carries, waste_figures.h).
inline std::string PrintedIdentity(const Snapshot& s, uint32_t identity) {
  const Identity* id = identity ? s.FindIdentity(identity) : nullptr;
  return id ? IdentityText(*id) : std::string();
}

// A line of node 0 as Realm's logger prints it.
inline std::string Line(const std::string& logger, const std::string& message,
                        int level = 1) {
  return "[0 - 7f0000000001]    0.100000 {" + std::to_string(level) + "}{" +
         logger + "}: " + message;
}

// Node 0's system memory.
inline constexpr uint64_t kSys = 0x1e00000000000000ull;

// Instance 0x4000000000000000 of node 0 placed: 64 bytes at offset 0.
inline const std::string kPlaced64 =
    "[0 - 1] 0.1 {2}{inst}: creating new local instance: 4000000000000000\n"
    "[0 - 1] 0.1 {1}{inst}: instance layout: inst=4000000000000000 "
    "layout=Layout(bytes=64, align=32)\n"
    "[0 - 1] 0.1 {1}{inst}: allocation completed: inst=4000000000000000 "
    "offset=0\n";

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_INGEST_LOG_FIXTURES_H_
