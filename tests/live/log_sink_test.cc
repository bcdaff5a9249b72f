// tests/live/log_sink_test.cc - every dump announces itself through the log
// sink (realm_shadow/log_sink.h) right after its snapshot, and the periodic writer
// (REALM_SHADOW_DUMP_EVERY_MS) dumps the memories whose events moved.
#include "realm_shadow/log_sink.h"

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/live/on_failure.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/live/snapshots.h"
#include "tests/common/dump_io.h"
#include "tests/common/temp_dir.h"
#include "realm_shadow/live/dump.h"
#include "realm_shadow/format/dump_marker.h"

namespace realm_shadow {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kSys = 0x1e00000000000000ull;
constexpr uint64_t kFb = 0x1e00000000000004ull;

std::mutex g_mutex;
std::vector<std::string> g_lines;

void Capture(const char* line) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_lines.emplace_back(line);
}

std::vector<std::string> AllLines() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_lines;
}

// The lines other than "dump begin ..." (markers, "not written").
std::vector<std::string> Lines() {
  std::vector<std::string> out;
  for (const std::string& l : AllLines())
    if (l.rfind("dump begin ", 0) != 0) out.push_back(l);
  return out;
}

class LogSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetTrackerForTesting();
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      g_lines.clear();
    }
    realm_shadow_set_log_sink(&Capture);
  }
  void TearDown() override {
    StopPeriodicDumps();
    realm_shadow_set_log_sink(nullptr);
    SetFailureObserver(nullptr);
    ::unsetenv("REALM_SHADOW_DUMP_DIR");
    ::unsetenv("REALM_SHADOW_DUMP_EVERY_MS");
    ResetTrackerForTesting();
  }
  testing::TempDir temp_{"realm-shadow-sink"};
};

TEST_F(LogSinkTest, DumpMemoryStateAnnouncesFileMemoryAndSequence) {
  realm_shadow_memory* m =
      RegisterMemory(kSys, MemoryKind::kSystem, 4096, "sys", 0);
  realm_shadow_allocated(m, 0x4000000000000000ull, 0, 256, 32);
  realm_shadow_allocated(m, 0x4000000000000001ull, 256, 256, 32);
  const std::string path = temp_ / "one.rsd";
  std::string error;
  ASSERT_TRUE(testing::DumpMemoryStateTo(kSys, path, &error)) << error;
  const auto lines = Lines();
  ASSERT_EQ(lines.size(), 1u);
  DumpMarker marker;
  ASSERT_TRUE(ParseDumpMarker(lines[0], &marker)) << lines[0];
  EXPECT_EQ(marker.memory_id, kSys);
  EXPECT_EQ(marker.reason, "request");
  EXPECT_EQ(marker.file, fs::path(path).lexically_normal().string());
  DumpFile dump;
  ASSERT_TRUE(testing::ReadDumpTo(path, &dump, &error)) << error;
  ASSERT_EQ(dump.memories.size(), 1u);
  EXPECT_EQ(marker.sequence, dump.memories[0].sequence);
  EXPECT_EQ(marker.sequence, 2u);
  // Right before the snapshot, the begin line names the same dump.
  const auto all = AllLines();
  ASSERT_EQ(all.size(), 2u);
  DumpMarker begin;
  ASSERT_TRUE(ParseDumpBegin(all[0], &begin)) << all[0];
  EXPECT_FALSE(ParseDumpMarker(all[0], &marker));
  EXPECT_EQ(begin.memory_id, kSys);
  EXPECT_EQ(begin.reason, "request");
  EXPECT_EQ(begin.file, fs::path(path).lexically_normal().string());
  EXPECT_EQ(all[1], lines[0]);
}

TEST_F(LogSinkTest, DumpAllAnnouncesEachMemoryAndAFailedWriteSaysSo) {
  RegisterMemory(kSys, MemoryKind::kSystem, 4096, "sys", 0);
  RegisterMemory(kFb, MemoryKind::kFramebuffer, 8192, "fb", 0);
  std::string error;
  ASSERT_TRUE(testing::Succeeded(DumpAllMemories(temp_ / "all.rsd"), &error)) << error;
  auto lines = Lines();
  ASSERT_EQ(lines.size(), 2u);
  DumpMarker a, b;
  ASSERT_TRUE(ParseDumpMarker(lines[0], &a));
  ASSERT_TRUE(ParseDumpMarker(lines[1], &b));
  EXPECT_EQ(a.memory_id, kSys);
  EXPECT_EQ(b.memory_id, kFb);
  // A directory that does not exist: the marker, then "not written".
  EXPECT_FALSE(testing::DumpMemoryStateTo(kSys, temp_ / "no/such/dir/x.rsd", &error));
  lines = Lines();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[3].rfind("dump not written file=", 0), 0u) << lines[3];
  // Unregistered memory: an error, and nothing announced.
  EXPECT_FALSE(testing::DumpMemoryStateTo(0x1e000000000000ffull, temp_ / "y.rsd", &error));
  EXPECT_EQ(Lines().size(), 4u);
}

TEST_F(LogSinkTest, NoSinkNoLineAndAFailureDumpIsAnnounced) {
  realm_shadow_set_log_sink(nullptr);
  realm_shadow_memory* m =
      RegisterMemory(kSys, MemoryKind::kSystem, 1024, "sys", 0);
  std::string error;
  ASSERT_TRUE(testing::DumpMemoryStateTo(kSys, temp_ / "quiet.rsd", &error));
  EXPECT_TRUE(Lines().empty());

  realm_shadow_set_log_sink(&Capture);
  ASSERT_EQ(::setenv("REALM_SHADOW_DUMP_DIR", temp_.path().c_str(), 1), 0);
  ASSERT_TRUE(InstallDumpOnFailure());
  ::testing::internal::CaptureStderr();
  realm_shadow_allocation_failed(m, 0x4000000000000009ull, 4096, 32);
  ::testing::internal::GetCapturedStderr();
  const auto lines = Lines();
  ASSERT_EQ(lines.size(), 1u);
  DumpMarker marker;
  ASSERT_TRUE(ParseDumpMarker(lines[0], &marker)) << lines[0];
  EXPECT_EQ(marker.reason, "failure");
  EXPECT_TRUE(fs::exists(marker.file)) << marker.file;
}

TEST_F(LogSinkTest, PeriodicDumpsOnlyWhenEventsMoved) {
  realm_shadow_memory* m =
      RegisterMemory(kSys, MemoryKind::kSystem, 4096, "sys", 0);
  realm_shadow_allocated(m, 0x4000000000000000ull, 0, 256, 32);
  ASSERT_TRUE(StartPeriodicDumps(temp_.path(), 20));
  auto count_files = [&] {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(temp_.path()))
      n += e.path().filename().string().find("-periodic-") != std::string::npos;
    return n;
  };
  auto wait_for = [&](size_t files) {
    for (int i = 0; i < 200 && count_files() < files; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return count_files();
  };
  EXPECT_EQ(wait_for(1), 1u);
  // Nothing moves: no new file over several periods.
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  EXPECT_EQ(count_files(), 1u);
  realm_shadow_released(m, 0x4000000000000000ull);
  EXPECT_EQ(wait_for(2), 2u);
  StopPeriodicDumps();
  const auto lines = Lines();
  ASSERT_EQ(lines.size(), 2u);
  DumpMarker first, second;
  ASSERT_TRUE(ParseDumpMarker(lines[0], &first));
  ASSERT_TRUE(ParseDumpMarker(lines[1], &second));
  EXPECT_EQ(first.reason, "periodic");
  EXPECT_EQ(first.sequence, 1u);
  EXPECT_EQ(second.sequence, 2u);
  DumpFile dump;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(second.file, &dump, &error)) << error;
  ASSERT_EQ(dump.memories.size(), 1u);
  EXPECT_TRUE(dump.memories[0].allocations.empty());
}

// A periodic dump holds what every tracker dump holds but the history: the
// pools the pool source gives (internal/tracked_dump.h).
TEST_F(LogSinkTest, PeriodicDumpsCarryThePoolsButNoHistory) {
  realm_shadow_memory* m =
      RegisterMemory(kSys, MemoryKind::kSystem, 4096, "sys", 0);
  realm_shadow_allocated(m, 0x4000000000000000ull, 0, 1024, 32);
  SetPoolSource([](uint64_t memory_id, std::vector<Pool>* out) {
    Pool pool;
    pool.pool = 0x4000000000000000ull;
    pool.memory_id = memory_id;
    pool.backing_instance = 0x4000000000000000ull;
    pool.suballocations.push_back({0x4000000000000007ull, 0, 128, 0});
    out->push_back(pool);
  });
  ASSERT_TRUE(StartPeriodicDumps(temp_.path(), 20));
  for (int i = 0; i < 200 && Lines().empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  StopPeriodicDumps();
  SetPoolSource(nullptr);
  const auto lines = Lines();
  ASSERT_EQ(lines.size(), 1u);
  DumpMarker marker;
  ASSERT_TRUE(ParseDumpMarker(lines[0], &marker)) << lines[0];
  DumpFile dump;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(marker.file, &dump, &error)) << error;
  ASSERT_EQ(dump.pools.size(), 1u);
  EXPECT_EQ(dump.pools[0].memory_id, kSys);
  ASSERT_EQ(dump.pools[0].suballocations.size(), 1u);
  EXPECT_EQ(dump.pools[0].suballocations[0].instance, 0x4000000000000007ull);
  EXPECT_TRUE(dump.histories.empty());
  EXPECT_EQ(dump.source, "tracker");
  EXPECT_GT(dump.created_unix_ns, 0u);
}

TEST_F(LogSinkTest, PeriodicNeedsADirectoryAndAPeriod) {
  EXPECT_FALSE(StartPeriodicDumps("", 10));
  EXPECT_FALSE(StartPeriodicDumps(temp_.path(), 0));
  ASSERT_EQ(::setenv("REALM_SHADOW_DUMP_EVERY_MS", "soon", 1), 0);
  ASSERT_EQ(::setenv("REALM_SHADOW_DUMP_DIR", temp_.path().c_str(), 1), 0);
  ::testing::internal::CaptureStderr();
  InstallDumpOnFailure();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("REALM_SHADOW_DUMP_EVERY_MS=soon"), std::string::npos)
      << err;
  ::unsetenv("REALM_SHADOW_DUMP_DIR");
  ASSERT_EQ(::setenv("REALM_SHADOW_DUMP_EVERY_MS", "50", 1), 0);
  ::testing::internal::CaptureStderr();
  InstallDumpOnFailure();
  EXPECT_NE(::testing::internal::GetCapturedStderr().find(
                "REALM_SHADOW_DUMP_DIR is not"),
            std::string::npos);
}

}  // namespace
}  // namespace realm_shadow
