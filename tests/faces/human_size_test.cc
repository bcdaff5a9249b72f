#include "realm_shadow/faces/human_size.h"

#include <gtest/gtest.h>

namespace realm_shadow {
namespace {

uint64_t Parse(const char* text) {
  uint64_t bytes = 0;
  std::string error;
  EXPECT_TRUE(ParseHumanSize(text, &bytes, &error)) << text << ": " << error;
  return bytes;
}

std::string Refused(const char* text) {
  uint64_t bytes = 0;
  std::string error;
  EXPECT_FALSE(ParseHumanSize(text, &bytes, &error)) << text;
  return error;
}

TEST(HumanSize, AcceptsBytesAndUnits) {
  EXPECT_EQ(Parse("0"), 0u);
  EXPECT_EQ(Parse("4096"), 4096u);
  EXPECT_EQ(Parse("4096B"), 4096u);
  EXPECT_EQ(Parse("1K"), 1000u);
  EXPECT_EQ(Parse("1KB"), 1000u);
  EXPECT_EQ(Parse("1k"), 1000u);
  EXPECT_EQ(Parse("1KiB"), 1024u);
  EXPECT_EQ(Parse("1Ki"), 1024u);
  EXPECT_EQ(Parse("512MiB"), 512u << 20);
  EXPECT_EQ(Parse("4GiB"), uint64_t{4} << 30);
  EXPECT_EQ(Parse("4 GiB"), uint64_t{4} << 30);
  EXPECT_EQ(Parse("3G"), 3000000000u);
  EXPECT_EQ(Parse("2TiB"), uint64_t{2} << 40);
  EXPECT_EQ(Parse("18446744073709551615"), UINT64_MAX);
}

TEST(HumanSize, RefusesWithAReason) {
  EXPECT_NE(Refused("1.5KiB").find("fractions"), std::string::npos);
  EXPECT_NE(Refused("12XB").find("unknown unit"), std::string::npos);
  EXPECT_NE(Refused("").find("not a size"), std::string::npos);
  EXPECT_NE(Refused("-4").find("not a size"), std::string::npos);
  EXPECT_NE(Refused("GiB").find("not a size"), std::string::npos);
  EXPECT_NE(Refused("18446744073709551616").find("2^64"), std::string::npos);
  EXPECT_NE(Refused("17179869184GiB").find("2^64"), std::string::npos);
}

// The one size formatter (recorder/snapshot.h) that the CLI, the failure
// report and legion_glue's pool lines all print with.
TEST(HumanSize, HexIds) {
  uint64_t id = 0;
  std::string error;
  ASSERT_TRUE(ParseHexId("1e00000000000000", &id, &error));
  EXPECT_EQ(id, 0x1e00000000000000u);
  ASSERT_TRUE(ParseHexId("0x1E00000000000002", &id, &error));
  EXPECT_EQ(id, 0x1e00000000000002u);
  EXPECT_FALSE(ParseHexId("0x", &id, &error));
  EXPECT_FALSE(ParseHexId("1e0000000000000000", &id, &error));  // 72 bits
  EXPECT_FALSE(ParseHexId("zz", &id, &error));
}

}  // namespace
}  // namespace realm_shadow
