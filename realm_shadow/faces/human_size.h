// realm_shadow/faces/human_size.h - sizes and memory ids as people type and
// read them on the command line.
//
// Layer 5.  Accepted sizes: a non-negative integer with an optional unit:
//   B                      bytes ("4096", "4096B")
//   K M G T (+ optional B) decimal: 1K = 1000, 1MB = 1000000
//   KiB MiB GiB TiB (Ki..) binary: 1KiB = 1024, 4GiB = 4294967296
// Units are case-insensitive except that "k" and "K" mean the same; no
// fractions ("1.5KiB" is refused: a byte count is exact or it is a guess),
// no sign, no overflow past 2^64 - 1.  Printed sizes and ids are not made
// here: FormatHumanSize, FormatSizeExact and HexId in
// realm_shadow/analysis/snapshot.h ("1.462 MiB", "717.91 KiB (735140 B)",
// "0x1e00000000000000") serve every layer, the failure report and
// legion_glue included.
//
// Memory ids: hex with or without "0x" ("1e00000000000000",
// "0x1e00000000000000"), as Realm prints them.
#ifndef REALM_SHADOW_FACES_HUMAN_SIZE_H_
#define REALM_SHADOW_FACES_HUMAN_SIZE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace realm_shadow {

// False with *error ("'1.5KiB': fractions are not accepted") when refused.
bool ParseHumanSize(std::string_view text, uint64_t* bytes,
                    std::string* error);

// Hex, with or without 0x; false with *error when not a 64-bit hex number.
bool ParseHexId(std::string_view text, uint64_t* id, std::string* error);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_FACES_HUMAN_SIZE_H_
