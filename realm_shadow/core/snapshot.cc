// Names and small helpers of the Snapshot value types.
#include "realm_shadow/core/snapshot.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>

#include "realm_shadow/core/text.h"

namespace realm_shadow {

const char* AllocationStateName(AllocationState state) {
  static constexpr const char* kNames[] = {"live", "release_pending",
                                           "release_ready"};
  return EnumName<size_t(AllocationState::kReleaseReady) + 1>(kNames, state,
                                                              "live");
}

const char* AnomalyKindName(AnomalyKind kind) {
  static constexpr const char* kNames[] = {"overlap", "beyond_capacity",
      "duplicate_instance", "unknown_instance", "double_release",
      "unknown_reservation", "malformed_event", "tracking_paused"};
  return EnumName<kAnomalyKindCount>(kNames, kind, "unknown");
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
