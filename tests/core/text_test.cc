// The one size and id formatter every layer prints with (snapshot.h).
#include "realm_shadow/core/snapshot.h"

#include <gtest/gtest.h>

namespace realm_shadow {
namespace {

TEST(SizeFormat, BinaryUnitsWithAtMostThreeDecimals) {
  EXPECT_EQ(FormatHumanSize(0), "0 B");
  EXPECT_EQ(FormatHumanSize(1023), "1023 B");
  EXPECT_EQ(FormatHumanSize(1024), "1 KiB");
  EXPECT_EQ(FormatHumanSize(1025), "1.001 KiB");
  EXPECT_EQ(FormatHumanSize(1536), "1.5 KiB");
  EXPECT_EQ(FormatHumanSize(735140), "717.91 KiB");
  EXPECT_EQ(FormatHumanSize(1532928), "1.462 MiB");
  EXPECT_EQ(FormatHumanSize(uint64_t{512} << 20), "512 MiB");
  EXPECT_EQ(FormatHumanSize(uint64_t{4} << 30), "4 GiB");
  EXPECT_EQ(FormatHumanSize(uint64_t{15} << 29), "7.5 GiB");
  // Rounds up to a whole unit: the next unit, not "1024 MiB".
  EXPECT_EQ(FormatHumanSize((uint64_t{1} << 30) - 1), "1 GiB");
  EXPECT_EQ(FormatHumanSize((uint64_t{1} << 20) - 1), "1023.999 KiB");
  EXPECT_EQ(FormatHumanSize(UINT64_MAX), "16 EiB");
  EXPECT_EQ(FormatSizeExact(735140), "717.91 KiB (735140 B)");
  EXPECT_EQ(FormatSizeExact(1024), "1 KiB (1024 B)");
  EXPECT_EQ(FormatSizeExact(100), "100 B");
}

TEST(IdFormat, HexWithoutPadding) {
  EXPECT_EQ(HexId(0x1e00000000000000u), "0x1e00000000000000");
  EXPECT_EQ(HexId(0x2a), "0x2a");
  EXPECT_EQ(HexId(0), "0x0");
}

}  // namespace
}  // namespace realm_shadow
