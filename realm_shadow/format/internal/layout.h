// realm_shadow/format/internal/layout.h - the constants of the dump file
// format that its writer and its reader share (docs/dump-format.md).
//
// Layer format, internal.
#ifndef REALM_SHADOW_FORMAT_INTERNAL_LAYOUT_H_
#define REALM_SHADOW_FORMAT_INTERNAL_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(format);

namespace dump_format {

inline constexpr char kMagic[8] = {'R', 'S', 'H', 'A', 'D', 'O', 'W', '\0'};
inline constexpr uint32_t kEndianMarker = 0x01020304u;
inline constexpr uint32_t kEndianMarkerSwapped = 0x04030201u;
inline constexpr uint32_t kTrailerMarker = 0x444E4552u;  // "REND" on little-endian
inline constexpr size_t kPreambleBytes = 16;
inline constexpr size_t kSectionHeaderBytes = 16;
inline constexpr size_t kTrailerBytes = 16;

inline constexpr char kTagHeader[4] = {'H', 'E', 'A', 'D'};
inline constexpr char kTagStrings[4] = {'S', 'T', 'R', 'S'};
inline constexpr char kTagMemory[4] = {'M', 'E', 'M', 'Y'};
// Optional sections follow the memories, in any order: a tag that starts
// with a lowercase letter is one, and a reader skips those it does not know.
// hist was written by version 1 writers too; pool is version 2 on.
inline constexpr char kTagPools[4] = {'p', 'o', 'o', 'l'};
inline constexpr char kTagHistory[4] = {'h', 'i', 's', 't'};
// gcun: the memories whose source does not know GC state
// (Snapshot::gc_state_known false); written only when there is one, so a
// tracker's dump is what it was, and a file without it reads as before
// (every memory's GC state known).
inline constexpr char kTagGcUnknown[4] = {'g', 'c', 'u', 'n'};
inline constexpr size_t kGcUnknownHeaderBytes = 8;  // count, reserved
inline bool IsOptionalTag(const uint8_t* tag) { return tag[0] >= 'a' && tag[0] <= 'z'; }

// Record sizes on disk.  A memory section's records:
inline constexpr size_t kAllocationBytes = 32;
inline constexpr size_t kPendingBytes = 48;
inline constexpr size_t kReservationBytes = 32;
inline constexpr size_t kFailureBytes = 40;
// A failure's flag byte (the u8 after its identity id): a bit set.  Bit 1
// came later: a reader from before it refuses a failure that sets it ("a
// failure has a bad flag"), so a file of a source that cannot tell a
// refusal from a cancellation is refused whole, never read without the
// marking; a tracker's dump never sets it and reads everywhere.
inline constexpr uint8_t kFailureEventualFlag = 1;
inline constexpr uint8_t kFailureMaybeCancelledFlag = 2;
inline constexpr uint8_t kFailureFlagsKnown =
    kFailureEventualFlag | kFailureMaybeCancelledFlag;
inline uint8_t FailureFlagsOf(const Failure& f) {
  return static_cast<uint8_t>((f.eventual ? kFailureEventualFlag : 0) |
                              (f.maybe_cancelled ? kFailureMaybeCancelledFlag : 0));
}
inline constexpr size_t kAnomalyBytes = 48;
// an identity: 12 bytes, then 8 per attribute;
inline constexpr size_t kIdentityFixedBytes = 12;
inline constexpr size_t kAttributeBytes = 8;
// the pools section: a count, then per pool 48 bytes and 32 per
// sub-allocation;
inline constexpr size_t kPoolsHeaderBytes = 8;
inline constexpr size_t kPoolFixedBytes = 48;
inline constexpr size_t kPoolSubAllocationBytes = 32;
// a memory section's fixed part, counts and counters.
inline constexpr size_t kMemoryFixedBytes = 40;
inline constexpr size_t kMemoryCountsBytes = 48;
inline constexpr size_t kCountersBytes =
    8 + 8 * (kEventTypeCount + kAnomalyKindCount) + 32;
// The counters say how many event types they count; files written before
// the heap-observation events count the first 12, and read with the others
// zero.
inline constexpr uint32_t kFirstEventTypeCount = 12;
inline constexpr size_t kCountersMinBytes =
    8 + 8 * (kFirstEventTypeCount + kAnomalyKindCount) + 32;
inline constexpr size_t kMemoryMinBytes =
    kMemoryFixedBytes + kMemoryCountsBytes + kCountersMinBytes;

// Where a memory payload (MEMY layout) holds its event sequence: after the
// memory id and the capacity, 8 bytes each.  The history index reads a
// checkpoint's moment there without reading its picture.
inline constexpr size_t kMemorySequenceOffset = 16;

// History (hist): fixed part, then arrays; each checkpoint is, in order,
//  - its picture's length (kCheckpointLengthBytes),
//  - the picture: a memory payload (MEMY layout),
//  - the map's extras (kCheckpointExtrasBytes): the counts of the
//    kCheckpointArrays arrays, the open group's type, the heap-observed
//    flag, 2 bytes of padding, the group's records still to come,
//  - the arrays, in the counts' order, each record kCheckpointRecordBytes.
// The writer and both reader paths (the whole read and the index that
// skips pictures) take the layout from here.
inline constexpr size_t kHistoryFixedBytes = 64;
inline constexpr size_t kHistoryEventBytes = 32;
inline constexpr size_t kHistoryMarkBytes = 16;
inline constexpr size_t kEarlyReleaseBytes = 16;
inline constexpr size_t kCheckpointLengthBytes = 8;
// The arrays, in their order on disk, which is their counts' order.
enum CheckpointArray : size_t {
  kReleasedIds,     // 8 bytes an id, ascending
  kFailedIds,       // 8 bytes an id
  kEarlyReleases,   // id, ready (1 byte), 7 bytes of padding
  kPendingFlags,    // 1 byte a pending request
  kGroupRecords,    // the open group's records, EventRecords
  kCheckpointArrays
};
inline constexpr size_t kCheckpointRecordBytes[kCheckpointArrays] = {
    8, 8, kEarlyReleaseBytes, 1, kHistoryEventBytes};
inline constexpr size_t kCheckpointExtrasBytes = 48;
static_assert(kCheckpointExtrasBytes == 8 * kCheckpointArrays + 1 + 1 + 2 + 4,
              "counts, group type, heap-observed flag, padding, group_left");
static_assert(sizeof(EventRecord) == kHistoryEventBytes,
              "history events are EventRecords byte for byte");
static_assert(sizeof(HistoryMark) == kHistoryMarkBytes, "");

// A reader refuses files whose string references would expand to more than
// this many times the file's size (a string may be referenced more than
// once, so without a bound 4 bytes of reference could cost megabytes).
inline constexpr uint64_t kStringExpansionLimit = 16;

// Allocation records are the in-memory struct, byte for byte: the copy of a
// 100k-allocation memory is one memcpy.  These pin the layout the format
// document gives.
static_assert(std::is_trivially_copyable<Allocation>::value, "");
static_assert(offsetof(Allocation, offset) == 0, "");
static_assert(offsetof(Allocation, size) == 8, "");
static_assert(offsetof(Allocation, instance) == 16, "");
static_assert(offsetof(Allocation, identity) == 24, "");
static_assert(offsetof(Allocation, alignment_log2) == 28, "");
static_assert(offsetof(Allocation, state) == 29, "");
static_assert(offsetof(Allocation, flags) == 30, "");
static_assert(offsetof(Allocation, kind) == 31, "");
static_assert(sizeof(Allocation) == kAllocationBytes, "");

inline constexpr uint8_t kMaxMemoryKind = static_cast<uint8_t>(MemoryKind::kGlobal);
inline constexpr uint8_t kMaxAllocationState =
    static_cast<uint8_t>(AllocationState::kReleaseReady);

}  // namespace dump_format
}  // namespace realm_shadow

#endif  // REALM_SHADOW_FORMAT_INTERNAL_LAYOUT_H_
