// realm_shadow/core/text.h - sizes, ids and names as every text prints
// them, and sizes and ids as people type them on the command line.
//
// Layer core.  One formatter serves every layer (reports, the failure
// report, legion_glue's pool lines, the command line); the page formats
// with the same rules.  The size grammar is the one the memory map page's what-if box
// reads too (page/format.js parseBytes); both are tested from one table,
// tests/common/size_vectors.tsv, and docs/cli.md states it:
//   [spaces] NUMBER [spaces] [UNIT] [spaces]
//   NUMBER  decimal digits, optionally with a fraction ("1.5"), or
//           0x and hex digits (bytes, no unit, no fraction)
//   UNIT    B                           bytes
//           K M G T P E, Ki..Ei, KiB..EiB  binary: 1K = 1KiB = 1024
//           kB MB GB TB PB EB           decimal: 1kB = 1000
//   Units are case-insensitive ("k" = "K", "kb" = "KB" = 1000).
// A fraction (at most 18 digits) is accepted when it makes a whole number
// of bytes ("1.5KiB" is 1536; "0.3KiB" is refused: a request size is exact
// or it is a guess).
// No sign, nothing past 2^64 - 1.
//
// Memory ids: hex with or without "0x" ("1e00000000000000",
// "0x1e00000000000000"), as Realm prints them.
#ifndef REALM_SHADOW_CORE_TEXT_H_
#define REALM_SHADOW_CORE_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(core);

// A Realm id (memory, instance, reservation) as dumps, JSON, reports and the
// page write it: "0x" and lowercase hex digits, no padding.
std::string HexId(uint64_t id);

// `text` on one line: a control character (a newline in a name from a log
// or a mapper, a path) becomes '?'.  Every line-oriented text (reports, the
// failure report, the dump marker) prints names through it.
std::string OneLine(std::string_view text);

// A byte count as every report, the failure report, legion_glue's pool lines,
// the command line and the memory map page print it: below 1 KiB the plain
// count ("0 B", "1023 B"); above, binary units (KiB = 1024 B up to EiB) with
// at most three decimals, rounded half to even from the exact count, and
// trailing zeros dropped ("1 KiB", "1.5 KiB", "717.91 KiB", "7.875 MiB",
// "16 EiB").  A value that rounds to 1024 of a unit is written in the next
// one ("1 GiB" for 2^30 - 1 B), never as "1024 MiB".  The digits are a
// rounding; FormatSizeExact adds the exact count where it matters.  The
// page's human() (page/format.js) follows the same rules, and both are
// tested from tests/common/size_vectors.tsv.
std::string FormatHumanSize(uint64_t bytes);
// FormatHumanSize with the exact count beside it: "717.91 KiB (735140 B)";
// the plain "512 B" below 1 KiB, which is exact already.
std::string FormatSizeExact(uint64_t bytes);


// The name of `value` in `names`, an enum's names in the order of its values
// (0, 1, 2, ...); `beyond` for a value past the table (a byte read from a
// file, a cast).  kCount is the enum's count of values: a table of any other
// length does not compile, which is what a switch's -Wswitch gave.  Every
// `...Name(enum)` of the library is one table and this lookup.
template <size_t kCount, typename Enum, size_t N>
constexpr const char* EnumName(const char* const (&names)[N], Enum value,
                               const char* beyond = "?") {
  static_assert(N == kCount, "EnumName: one name for each value of the enum");
  const size_t i = static_cast<std::underlying_type_t<Enum>>(value);
  return i < N ? names[i] : beyond;
}

// The bytes `text` names, or an error that quotes it and says why
// ("'0.3KiB': not a whole number of bytes; ...").
absl::StatusOr<uint64_t> ParseHumanSize(absl::string_view text);

// Hex, with or without 0x; InvalidArgument, quoting `text`, when it is not
// a 64-bit hex number.
absl::StatusOr<uint64_t> ParseHexId(absl::string_view text);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_CORE_TEXT_H_
