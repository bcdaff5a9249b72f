// Names and small helpers of the Snapshot value types.
#include "realm_shadow/analysis/snapshot.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

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
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < kLastUnit) {
    value /= 1024.0;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", value);
  // 2^30 - 1 B is 1023.999999 MiB, which prints as "1024.000": say "1 GiB".
  if (unit < kLastUnit && std::strcmp(buffer, "1024.000") == 0) {
    std::snprintf(buffer, sizeof buffer, "%.3f", value / 1024.0);
    ++unit;
  }
  std::string text(buffer);
  // Trailing zeros and a bare point go: "4.000" -> "4", "1.500" -> "1.5".
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text + " " + kUnits[unit];
}

std::string FormatSizeExact(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  return FormatHumanSize(bytes) + " (" + std::to_string(bytes) + " B)";
}

const Identity* Snapshot::FindIdentity(uint32_t id) const {
  if (id == 0) return nullptr;
  for (const Identity& identity : identities)
    if (identity.id == id) return &identity;
  return nullptr;
}

uint64_t Snapshot::used_bytes() const {
  uint64_t used = 0;
  for (const Allocation& a : allocations) used += a.size;
  return used;
}

}  // namespace realm_shadow
