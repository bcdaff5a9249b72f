// tests/live/auto_install_test.cc - dump on failure with no call to
// InstallDumpOnFailure(): the library's static initializer installs it when
// REALM_SHADOW_DUMP_DIR is set in the environment at load time (ctest sets
// it for this executable; see CMakeLists.txt).
#include <cstdlib>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "realm_shadow/format/dump.h"
#include "tests/common/dump_io.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/live/snapshots.h"

namespace realm_shadow {
namespace {

namespace fs = std::filesystem;

TEST(DumpOnFailureAutoInstall, DumpAppearsWithoutAnyCall) {
  const char* dir = std::getenv("REALM_SHADOW_DUMP_DIR");
  ASSERT_NE(dir, nullptr) << "run through ctest, which sets the directory";
  fs::create_directories(dir);
  const uint64_t memory = 0x1e000000000000a0ull;
  char name[128];
  std::snprintf(name, sizeof name, "/realm-shadow-node%u-mem%llx-1.rsd",
                Options().node, static_cast<unsigned long long>(memory));
  const std::string path = std::string(dir) + name;
  fs::remove(path);

  realm_shadow_memory* m = realm_shadow_register_memory(
      memory, REALM_SHADOW_MEM_ZERO_COPY, 4096, "zcmem", 0);
  ASSERT_NE(m, nullptr);
  realm_shadow_allocated(m, 1, 0, 4096, 1);
  ::testing::internal::CaptureStderr();
  realm_shadow_allocation_failed(m, 2, 64, 1);
  const std::string report = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(report.find("now: exhaustion"), std::string::npos)
      << report;
  ASSERT_TRUE(fs::exists(path)) << report;
  DumpFile dump;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(path, &dump, &error)) << error;
  ASSERT_EQ(dump.memories.size(), 1u);
  EXPECT_EQ(dump.memories[0].name, "zcmem");
}

}  // namespace
}  // namespace realm_shadow
