// tests/format/writer_test.cc - writing a dump file (format/writer.cc,
// format/atomic_file.cc): a dump replaces the previous one whole or not at
// all, whatever fails on the way, and concurrent writers of one path never
// see each other's temporaries.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "realm_shadow/format/dump.h"
#include "tests/common/contains_text.h"
#include "tests/common/dump_io.h"
#include "tests/common/snapshot_compare.h"
#include "tests/common/temp_dir.h"
#include "tests/format/dump_bytes.h"
#include "tests/format/sample_dump.h"

namespace realm_shadow {
namespace {

namespace fs = std::filesystem;
using testing::ContainsText;
using testing::TempDir;
using testing_dump::OneLine;
using testing_dump::SampleDump;
using testing_dump::WriteBytes;

// The sample dump marked by its node, so that a test can tell which of two
// writes to one name is the file there.
DumpFile SampleDumpOfNode(uint32_t node) {
  DumpFile dump = SampleDump();
  dump.node = node;
  return dump;
}

TEST(DumpFormat, OverwritesAnExistingDumpAtomically) {
  TempDir dir;
  std::string error;
  ASSERT_TRUE(testing::WriteDumpTo(dir / "a.rsd", SampleDumpOfNode(1), &error))
      << error;
  ASSERT_TRUE(testing::WriteDumpTo(dir / "a.rsd", SampleDumpOfNode(2), &error))
      << error;
  DumpFile back;
  ASSERT_TRUE(testing::ReadDumpTo(dir / "a.rsd", &back, &error)) << error;
  EXPECT_EQ(back.node, 2u);
  EXPECT_EQ(dir.Entries().size(), 1u);
}

TEST(DumpWrite, UnwritableDestinationsFailCleanly) {
  TempDir dir;
  const DumpFile dump = SampleDump();
  std::string error;
  // A directory that does not exist.
  EXPECT_FALSE(testing::WriteDumpTo(dir / "no/such/dir/a.rsd", dump, &error));
  EXPECT_TRUE(ContainsText(error, "No such file or directory"));
  EXPECT_TRUE(OneLine(error));
  // A path through a regular file.
  WriteBytes(dir / "file", "x");
  EXPECT_FALSE(testing::WriteDumpTo(dir / "file/a.rsd", dump, &error));
  EXPECT_TRUE(ContainsText(error, "Not a directory"));
  // A destination that is a directory: the rename fails, the temp goes.
  ASSERT_EQ(::mkdir((dir / "taken").c_str(), 0755), 0);
  ::close(::open((dir / "taken/inside").c_str(), O_CREAT | O_WRONLY, 0644));
  EXPECT_FALSE(testing::WriteDumpTo(dir / "taken", dump, &error));
  EXPECT_TRUE(ContainsText(error, "rename failed"));
  std::vector<std::string> entries = dir.Entries();
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"file", "taken"}));
}

TEST(DumpWrite, ReadOnlyDirectory) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0555), 0);
  std::string error;
  EXPECT_FALSE(testing::WriteDumpTo(dir / "a.rsd", SampleDump(), &error));
  EXPECT_TRUE(ContainsText(error, "Permission denied"));
  EXPECT_TRUE(dir.Entries().empty());
}

// A write that fails half way (the file-size limit stands in for a full
// disk): false with the reason, no temporary left, and the previous dump
// under the final name intact.
TEST(DumpWrite, FailureMidWriteLeavesThePreviousDump) {
  TempDir dir;
  std::string error;
  ASSERT_TRUE(
      testing::WriteDumpTo(dir / "a.rsd", SampleDumpOfNode(11), &error))
      << error;

  DumpFile big;
  big.memories.emplace_back();
  big.memories.back().allocations.resize(10000);  // 320 KB
  rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  void (*old_handler)(int) = ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 100 << 10;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const bool ok = testing::WriteDumpTo(dir / "a.rsd", big, &error);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, old_handler);

  EXPECT_FALSE(ok);
  EXPECT_TRUE(ContainsText(error, "write failed: File too large"));
  EXPECT_EQ(dir.Entries(), std::vector<std::string>{"a.rsd"});
  DumpFile back;
  ASSERT_TRUE(testing::ReadDumpTo(dir / "a.rsd", &back, &error)) << error;
  EXPECT_EQ(back.node, 11u);
}

// Two threads writing one path at once each get a temporary of their own:
// every write succeeds and the file is always one whole dump.  (They used
// to share "path.tmp.<pid>", so one thread's rename moved the other's half-
// written file, or found it gone.)
TEST(DumpWrite, ConcurrentWritersOfOnePathNeverCollide) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/same.rsd";
  const DumpFile dump = SampleDump();
  std::atomic<int> failures{0};
  auto writer = [&] {
    for (int i = 0; i < 300; ++i) {
      std::string error;
      if (!testing::WriteDumpTo(path, dump, &error)) ++failures;
    }
  };
  std::thread a(writer), b(writer);
  a.join();
  b.join();
  EXPECT_EQ(failures.load(), 0);
  DumpFile back;
  std::string error;
  ASSERT_TRUE(testing::ReadDumpTo(path, &back, &error)) << error;
  EXPECT_EQ(testing::CompareDumps(back, dump), "");
  // No temporary is left behind.
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u);
}

}  // namespace
}  // namespace realm_shadow
