// The size grammar and the size formatter against the one table of vectors
// the page is also checked against (tests/common/size_vectors.tsv), and the
// reasons a refused size is given.
#include "realm_shadow/core/text.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "realm_shadow/core/snapshot.h"

namespace realm_shadow {
namespace {

struct Vector {
  std::string kind, text, value;
  int line = 0;
};

std::vector<Vector> ReadVectors() {
  std::ifstream in(REALM_SHADOW_SIZE_VECTORS);
  EXPECT_TRUE(in) << "cannot read " << REALM_SHADOW_SIZE_VECTORS;
  std::vector<Vector> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = absl::StrSplit(line, '\t');
    EXPECT_EQ(fields.size(), 3u) << "line " << n << ": " << line;
    if (fields.size() == 3) out.push_back({fields[0], fields[1], fields[2], n});
  }
  return out;
}

TEST(SizeVectors, TheCommandReadsAndPrintsSizesAsTheTableSays) {
  const std::vector<Vector> vectors = ReadVectors();
  size_t parsed = 0, formatted = 0;
  for (const Vector& v : vectors) {
    SCOPED_TRACE("size_vectors.tsv line " + std::to_string(v.line) + ": '" +
                 v.text + "'");
    if (v.kind == "parse") {
      ++parsed;
      const absl::StatusOr<uint64_t> got = ParseHumanSize(v.text);
      if (v.value == "error") {
        EXPECT_FALSE(got.ok()) << "read as " << *got;
        continue;
      }
      uint64_t want = 0;
      ASSERT_TRUE(absl::SimpleAtoi(v.value, &want));
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(*got, want);
    } else {
      ASSERT_EQ(v.kind, "format");
      ++formatted;
      uint64_t bytes = 0;
      ASSERT_TRUE(absl::SimpleAtoi(v.text, &bytes));
      EXPECT_EQ(FormatHumanSize(bytes), v.value);
    }
  }
  EXPECT_GT(parsed, 40u);
  EXPECT_GT(formatted, 15u);
}

std::string Refused(const char* text) {
  const absl::StatusOr<uint64_t> got = ParseHumanSize(text);
  EXPECT_FALSE(got.ok()) << text;
  return got.ok() ? "" : std::string(got.status().message());
}

TEST(HumanSize, RefusesWithAReason) {
  EXPECT_NE(Refused("0.3KiB").find("not a whole number of bytes"), std::string::npos);
  EXPECT_NE(Refused("12XB").find("unknown unit"), std::string::npos);
  EXPECT_NE(Refused("").find("not a size"), std::string::npos);
  EXPECT_NE(Refused("-4").find("not a size"), std::string::npos);
  EXPECT_NE(Refused("GiB").find("not a size"), std::string::npos);
  EXPECT_NE(Refused("18446744073709551616").find("2^64"), std::string::npos);
  EXPECT_NE(Refused("17179869184GiB").find("2^64"), std::string::npos);
  EXPECT_EQ(Refused("1.5B").rfind("'1.5B': ", 0), 0u);
}

TEST(HumanSize, HexIds) {
  EXPECT_EQ(ParseHexId("1e00000000000000").value_or(0), 0x1e00000000000000u);
  EXPECT_EQ(ParseHexId("0x1E00000000000002").value_or(0), 0x1e00000000000002u);
  EXPECT_FALSE(ParseHexId("0x").ok());
  EXPECT_FALSE(ParseHexId("1e0000000000000000").ok());  // 72 bits
  EXPECT_FALSE(ParseHexId("zz").ok());
  const absl::Status negative = ParseHexId("-1").status();
  EXPECT_TRUE(absl::IsInvalidArgument(negative));
  EXPECT_NE(negative.message().find("'-1'"), std::string::npos) << negative;
}

}  // namespace
}  // namespace realm_shadow
