// The dump marker lines a dump writes into Realm's log (dump_marker.h):
// both lines round-trip, and lines that are not exactly one are refused.
#include "realm_shadow/format/dump_marker.h"

#include <gtest/gtest.h>

#include <string>

namespace realm_shadow {
namespace {

TEST(DumpMarker, LineRoundTripsAndBadLinesAreRefused) {
  DumpMarker m;
  m.memory_id = 0x1e00010000000002ull;
  m.sequence = 812;
  m.node = 1;
  m.reason = "periodic";
  m.file = "/tmp/a dir/x.rsd";
  const std::string line = DumpMarkerLine(m);
  EXPECT_EQ(line,
            "dump memory=0x1e00010000000002 sequence=812 node=1 "
            "reason=periodic file=/tmp/a dir/x.rsd");
  DumpMarker back;
  ASSERT_TRUE(ParseDumpMarker(line, &back));
  EXPECT_EQ(back.memory_id, m.memory_id);
  EXPECT_EQ(back.sequence, 812u);
  EXPECT_EQ(back.node, 1u);
  EXPECT_EQ(back.reason, "periodic");
  EXPECT_EQ(back.file, m.file);
  for (const char* bad :
       {"", "dump", "dump memory=0x1 sequence=x node=0 reason=r file=/f",
        "dump memory=zz sequence=1 node=0 reason=r file=/f",
        "dump memory=0x1 sequence=1 node=0 reason=r file=",
        "dump memory=0x1 sequence=1 node=0 file=/f",
        "dump not written file=/f error=e",
        "dump begin memory=0x1 node=0 reason=r file=/f"})
    EXPECT_FALSE(ParseDumpMarker(bad, &back)) << bad;
  const std::string begin = DumpBeginLine(m);
  EXPECT_EQ(begin,
            "dump begin memory=0x1e00010000000002 node=1 reason=periodic "
            "file=/tmp/a dir/x.rsd");
  ASSERT_TRUE(ParseDumpBegin(begin, &back));
  EXPECT_EQ(back.file, m.file);
  EXPECT_EQ(back.node, 1u);
  EXPECT_FALSE(ParseDumpBegin(line, &back));
}

}  // namespace
}  // namespace realm_shadow
