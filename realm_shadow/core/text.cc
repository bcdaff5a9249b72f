// The size grammar (text.h) in exact integer arithmetic: the number
// is read as digits and fraction digits, scaled, and refused unless the
// product is a whole byte count below 2^64.  page/format.js does the same
// with BigInt.
#include "realm_shadow/core/text.h"

#include <cinttypes>
#include <charconv>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace realm_shadow {

std::string OneLine(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

std::string HexId(uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, id);
  return buf;
}

std::string FormatHumanSize(uint64_t bytes) {
  static const char* const kUnits[] = {"B",   "KiB", "MiB", "GiB",
                                       "TiB", "PiB", "EiB"};
  constexpr int kLastUnit = 6;
  if (bytes < 1024) return std::to_string(bytes) + " B";
  // Thousandths of the unit, rounded half to even from the exact count
  // (as printf rounds the exact quotient; the page does the same in
  // BigInt, page/format.js).  128 bits: bytes * 1000 passes 2^64.
  using uint128 = unsigned __int128;
  int unit = 0;
  uint128 scale = 1;
  while (unit < kLastUnit && bytes >= scale * 1024) {
    scale *= 1024;
    ++unit;
  }
  const auto thousandths = [&] {
    const uint128 x = uint128{bytes} * 1000;
    uint128 q = x / scale;
    const uint128 r = x % scale;
    if (2 * r > scale || (2 * r == scale && (q & 1) != 0)) ++q;
    return static_cast<uint64_t>(q);
  };
  uint64_t t = thousandths();
  // 2^30 - 1 B is 1023.999999 MiB, which rounds to "1024": say "1 GiB".
  if (t == 1024000 && unit < kLastUnit) {
    scale *= 1024;
    ++unit;
    t = thousandths();
  }
  std::string text = std::to_string(t / 1000);
  if (uint64_t frac = t % 1000; frac != 0) {
    std::string digits = std::to_string(frac);
    digits.insert(0, 3 - digits.size(), '0');
    while (digits.back() == '0') digits.pop_back();  // "1.500" -> "1.5"
    text += "." + digits;
  }
  return text + " " + kUnits[unit];
}

std::string FormatSizeExact(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  return FormatHumanSize(bytes) + " (" + std::to_string(bytes) + " B)";
}

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
