// Names and small helpers of the Snapshot value types.
#include "realm_shadow/core/snapshot.h"

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
