// Names and small helpers of the Snapshot value types.
#include "realm_shadow/analysis/snapshot.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>

namespace realm_shadow {

const char* AllocationStateName(AllocationState state) {
  switch (state) {
    case AllocationState::kLive: return "live";
    case AllocationState::kReleasePending: return "release_pending";
    case AllocationState::kReleaseReady: return "release_ready";
  }
  return "live";
}

const char* AnomalyKindName(AnomalyKind kind) {
  switch (kind) {
    case AnomalyKind::kOverlap: return "overlap";
    case AnomalyKind::kBeyondCapacity: return "beyond_capacity";
    case AnomalyKind::kDuplicateInstance: return "duplicate_instance";
    case AnomalyKind::kUnknownInstance: return "unknown_instance";
    case AnomalyKind::kDoubleRelease: return "double_release";
    case AnomalyKind::kUnknownReservation: return "unknown_reservation";
    case AnomalyKind::kMalformedEvent: return "malformed_event";
    case AnomalyKind::kTrackingPaused: return "tracking_paused";
  }
  return "unknown";
}

uint8_t AlignmentLog2(uint64_t alignment) {
  if (alignment <= 1) return 0;
  uint8_t log2 = 0;
  while (log2 < 63 && (uint64_t{1} << log2) < alignment) ++log2;
  return log2;
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

const Identity* Snapshot::FindIdentity(uint32_t id) const {
  if (id == 0) return nullptr;
  const auto it = std::lower_bound(
      identities.begin(), identities.end(), id,
      [](const Identity& identity, uint32_t key) { return identity.id < key; });
  return it != identities.end() && it->id == id ? &*it : nullptr;
}

uint64_t Snapshot::used_bytes() const {
  uint64_t used = 0;
  for (const Allocation& a : allocations) used += a.size;
  return used;
}

}  // namespace realm_shadow
