// Names and small helpers of the Snapshot value types.
#include "realm_shadow/recorder/snapshot.h"

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace realm_shadow {
namespace {

std::string Lower(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const char* EventTypeName(EventType type) {
  switch (type) {
    case EventType::kAllocated: return "allocated";
    case EventType::kDeferred: return "deferred";
    case EventType::kDeferredCompleted: return "deferred_completed";
    case EventType::kDeferredFailed: return "deferred_failed";
    case EventType::kAllocationFailed: return "allocation_failed";
    case EventType::kReleaseRequested: return "release_requested";
    case EventType::kReleased: return "released";
    case EventType::kRedistrict: return "redistrict";
    case EventType::kRedistrictPiece: return "redistrict_piece";
    case EventType::kReserved: return "reserved";
    case EventType::kReservationEnded: return "reservation_ended";
    case EventType::kAttachIdentity: return "attach_identity";
    case EventType::kHeapPlaced: return "heap_placed";
    case EventType::kHeapRemoved: return "heap_removed";
    case EventType::kHeapSplit: return "heap_split";
    case EventType::kHeapSwapped: return "heap_swapped";
    case EventType::kHeapReplaced: return "heap_replaced";
    case EventType::kFuturePlaced: return "future_placed";
    case EventType::kRequestFailed: return "request_failed";
    case EventType::kRequestCancelled: return "request_cancelled";
    case EventType::kNoop: return "noop";
    case EventType::kFutureReset: return "future_reset";
  }
  return "unknown";
}

const char* MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kOther: return "other";
    case MemoryKind::kSystem: return "system";
    case MemoryKind::kRegdma: return "regdma";
    case MemoryKind::kSocket: return "socket";
    case MemoryKind::kFramebuffer: return "framebuffer";
    case MemoryKind::kZeroCopy: return "zero_copy";
    case MemoryKind::kManaged: return "managed";
    case MemoryKind::kDynamicFramebuffer: return "dynamic_framebuffer";
    case MemoryKind::kDisk: return "disk";
    case MemoryKind::kGlobal: return "global";
  }
  return "other";
}

MemoryKind ParseMemoryKind(const std::string& name) {
  const std::string n = Lower(name);
  if (n == "system" || n == "system_mem") return MemoryKind::kSystem;
  if (n == "regdma" || n == "regdma_mem") return MemoryKind::kRegdma;
  if (n == "socket" || n == "socket_mem") return MemoryKind::kSocket;
  if (n == "framebuffer" || n == "gpu_fb_mem") return MemoryKind::kFramebuffer;
  if (n == "zero_copy" || n == "z_copy_mem") return MemoryKind::kZeroCopy;
  if (n == "managed" || n == "gpu_managed_mem") return MemoryKind::kManaged;
  if (n == "dynamic_framebuffer" || n == "gpu_dynamic_mem")
    return MemoryKind::kDynamicFramebuffer;
  if (n == "disk" || n == "disk_mem" || n == "file_mem") return MemoryKind::kDisk;
  if (n == "global" || n == "global_mem") return MemoryKind::kGlobal;
  return MemoryKind::kOther;
}

const char* AllocationKindName(AllocationKind kind) {
  switch (kind) {
    case AllocationKind::kUnknown: return "unknown";
    case AllocationKind::kRegionInstance: return "region_instance";
    case AllocationKind::kDeferredBuffer: return "deferred_buffer";
    case AllocationKind::kDeferredValue: return "deferred_value";
    case AllocationKind::kFuture: return "future";
    case AllocationKind::kPoolBacking: return "pool_backing";
    case AllocationKind::kPoolSubAllocation: return "pool_suballocation";
    case AllocationKind::kExternal: return "external";
  }
  return "unknown";
}

AllocationKind ParseAllocationKind(const std::string& name) {
  for (int k = 0; k < kAllocationKindCount; ++k) {
    const auto kind = static_cast<AllocationKind>(k);
    if (Lower(name) == AllocationKindName(kind)) return kind;
  }
  return AllocationKind::kUnknown;
}

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
