// realm_shadow/faces/human_size.h - sizes and memory ids as people type them
// on the command line.
//
// Layer 5.  The size grammar is the one the memory map page's what-if box
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
// No sign, nothing past 2^64 - 1.  Printed sizes and ids are not made here:
// FormatHumanSize, FormatSizeExact and HexId in
// realm_shadow/analysis/snapshot.h serve every layer, and the page formats
// with the same rules.
//
// Memory ids: hex with or without "0x" ("1e00000000000000",
// "0x1e00000000000000"), as Realm prints them.
#ifndef REALM_SHADOW_FACES_HUMAN_SIZE_H_
#define REALM_SHADOW_FACES_HUMAN_SIZE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace realm_shadow {

// The bytes `text` names, or an error that quotes it and says why
// ("'0.3KiB': not a whole number of bytes; ...").
absl::StatusOr<uint64_t> ParseHumanSize(absl::string_view text);

// Hex, with or without 0x; InvalidArgument, quoting `text`, when it is not
// a 64-bit hex number.
absl::StatusOr<uint64_t> ParseHexId(absl::string_view text);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_FACES_HUMAN_SIZE_H_
