// The size grammar (human_size.h) in exact integer arithmetic: the number
// is read as digits and fraction digits, scaled, and refused unless the
// product is a whole byte count below 2^64.  page/format.js does the same
// with BigInt.
#include "realm_shadow/faces/human_size.h"

#include <charconv>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace realm_shadow {
namespace {

using uint128 = unsigned __int128;

std::string Quote(absl::string_view text) { return absl::StrCat("'", text, "'"); }

absl::Status Refuse(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(Quote(text), ": ", why));
}

// The multiplier of a unit, or 0 when it is none of the grammar's.
uint64_t UnitScale(absl::string_view unit) {
  const std::string u = absl::AsciiStrToLower(unit);
  if (u.empty() || u == "b") return 1;
  static constexpr char kPrefixes[] = "kmgtpe";
  const size_t power = absl::string_view(kPrefixes).find(u[0]);
  if (power == absl::string_view::npos) return 0;
  const absl::string_view rest = absl::string_view(u).substr(1);
  uint64_t base = 0;
  if (rest.empty() || rest == "i" || rest == "ib") base = 1024;
  if (rest == "b") base = 1000;
  if (base == 0) return 0;
  uint64_t scale = 1;
  for (size_t p = 0; p <= power; ++p) scale *= base;
  return scale;
}

}  // namespace

absl::StatusOr<uint64_t> ParseHumanSize(absl::string_view text) {
  absl::string_view rest = absl::StripAsciiWhitespace(text);
  if (absl::ConsumePrefix(&rest, "0x") || absl::ConsumePrefix(&rest, "0X")) {
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value, 16);
    if (ec == std::errc::result_out_of_range) return Refuse(text, "larger than 2^64 - 1 bytes");
    if (ec != std::errc() || end != rest.data() + rest.size() || rest.empty())
      return Refuse(text, "not a size (hex bytes take no unit: 0x1000)");
    return value;
  }
  // Digits, then an optional fraction, then the unit.
  size_t i = 0;
  while (i < rest.size() && absl::ascii_isdigit(static_cast<unsigned char>(rest[i]))) ++i;
  const absl::string_view whole = rest.substr(0, i);
  absl::string_view fraction;
  if (i < rest.size() && rest[i] == '.') {
    const size_t begin = ++i;
    while (i < rest.size() && absl::ascii_isdigit(static_cast<unsigned char>(rest[i]))) ++i;
    fraction = rest.substr(begin, i - begin);
    if (fraction.empty()) return Refuse(text, "a point must have digits after it (1.5KiB)");
  }
  if (whole.empty()) {
    return Refuse(text, "not a size (expected bytes such as 4096, 64K, 512MiB, "
                        "1.5GiB or 4GB)");
  }
  const absl::string_view unit = absl::StripAsciiWhitespace(rest.substr(i));
  const uint64_t scale = UnitScale(unit);
  if (scale == 0) {
    return Refuse(text, absl::StrCat("unknown unit '", unit,
                                     "' (B; K/M/G/T/P/E or KiB..EiB for 1024s; "
                                     "kB/MB/GB/TB/PB/EB for 1000s)"));
  }
  uint64_t integer = 0;
  const auto [end, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), integer);
  if (ec == std::errc::result_out_of_range) return Refuse(text, "larger than 2^64 - 1 bytes");
  if (ec != std::errc() || end != whole.data() + whole.size())
    return Refuse(text, "not a size");
  // value = (integer + fraction / 10^k) * scale, exactly.  At most 18
  // fraction digits, so that fraction * scale < 10^18 * 2^60 fits 128 bits.
  if (fraction.size() > 18) return Refuse(text, "more than 18 digits after the point");
  uint64_t numerator = 0, denominator = 1;
  for (const char c : fraction) {
    numerator = numerator * 10 + static_cast<unsigned>(c - '0');
    denominator *= 10;
  }
  const uint128 scaled = uint128{numerator} * scale;
  if (scaled % denominator != 0) {
    return Refuse(text, "not a whole number of bytes; give whole bytes or a "
                        "smaller unit");
  }
  const uint128 bytes = uint128{integer} * scale + scaled / denominator;
  if (bytes > UINT64_MAX) return Refuse(text, "larger than 2^64 - 1 bytes");
  return static_cast<uint64_t>(bytes);
}

absl::StatusOr<uint64_t> ParseHexId(absl::string_view text) {
  absl::string_view digits = text;
  if (!absl::ConsumePrefix(&digits, "0x")) absl::ConsumePrefix(&digits, "0X");
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    return absl::InvalidArgumentError(
        Quote(text) + ": not a 64-bit hex id (such as 0x1e00000000000000)");
  return value;
}

}  // namespace realm_shadow
