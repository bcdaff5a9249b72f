// tests/format/crc32c_test.cc - CRC-32C (format/internal/crc32c.cc): known
// vectors, and the hardware and table paths agreeing on every split.
#include "realm_shadow/format/internal/crc32c.h"

#include <cstddef>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace realm_shadow {
namespace {

TEST(Crc32c, KnownVectorsAndSplits) {
  EXPECT_EQ(Crc32cExtend(0, "123456789", 9), 0xE3069283u);
  EXPECT_EQ(Crc32cExtendPortable(0, "123456789", 9), 0xE3069283u);
  EXPECT_EQ(Crc32cExtend(0, "", 0), 0u);
  // 32 zero bytes: RFC 3720 (iSCSI) B.4.
  const std::string zeros(32, '\0');
  EXPECT_EQ(Crc32cExtend(0, zeros.data(), zeros.size()), 0x8A9136AAu);
  std::mt19937_64 rng(7);
  std::string data(10007, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t split :
       {size_t{0}, size_t{1}, size_t{7}, size_t{4096}, data.size()}) {
    const uint32_t whole = Crc32cExtend(0, data.data(), data.size());
    EXPECT_EQ(whole, Crc32cExtendPortable(0, data.data(), data.size()));
    EXPECT_EQ(whole, Crc32cExtend(Crc32cExtend(0, data.data(), split),
                                  data.data() + split, data.size() - split));
  }
}

}  // namespace
}  // namespace realm_shadow
