// realm_shadow/format/internal/crc32c.h - CRC-32C (Castagnoli), the checksum that ends
// every dump file.
//
// Debian's Abseil (20220623) predates absl/crc, so the dump format carries
// its own.  CRC-32C rather than a hash such as FNV-1a: it detects every
// burst error up to 32 bits and every odd number of flipped bits, and x86-64
// computes it in hardware (SSE4.2 crc32 instruction, 8 bytes per
// instruction, about 8 GB/s); elsewhere a slice-by-8 table (8 KiB, about
// 1.5 GB/s).  A dump of 100k allocations (3.2 MB) costs under 1 ms either
// way with hardware, 2 ms without.
#ifndef REALM_SHADOW_FORMAT_INTERNAL_CRC32C_H_
#define REALM_SHADOW_FORMAT_INTERNAL_CRC32C_H_

#include <cstddef>
#include <cstdint>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(format);

// Extends a finished CRC-32C by `size` more bytes: Crc32cExtend(0, ...) is
// the CRC of those bytes, and Crc32cExtend(Crc32cExtend(0, a), b) is the CRC
// of a followed by b.  Crc32cExtend(0, "123456789", 9) == 0xE3069283.
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t size);

// The portable table path, whatever the processor has (tests compare both).
uint32_t Crc32cExtendPortable(uint32_t crc, const void* data, size_t size);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_FORMAT_INTERNAL_CRC32C_H_
