// realm_shadow/core/event.h - the 32-byte record of one allocator event.
//
// Layer core.  The record is what the hot path writes and what the shadow map
// (analysis layer) applies; nothing else.  32 bytes so that two records share a
// 64-byte cache line and a journal of 16384 events is 512 KiB.
#ifndef REALM_SHADOW_CORE_EVENT_H_
#define REALM_SHADOW_CORE_EVENT_H_

#include <cstdint>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(core);

// Values are part of the dump format (event counters): append only.
enum class EventType : uint8_t {
  kAllocated = 0,          // instance, offset, size, alignment
  kDeferred = 1,           // instance, offset = planned or kNoOffset, size, alignment
  kDeferredCompleted = 2,  // instance, offset
  kDeferredFailed = 3,     // instance, offset = FailureBits
  kAllocationFailed = 4,   // instance, offset = FailureBits, size, alignment
  kReleaseRequested = 5,   // instance, aux = ReleaseState
  kReleased = 6,           // instance
  kRedistrict = 7,         // instance = old, aux = piece count; the pieces follow
  kRedistrictPiece = 8,    // instance, offset, size, alignment
  kReserved = 9,           // instance = reservation id, offset or kNoOffset, size
  kReservationEnded = 10,  // instance = reservation id
  kAttachIdentity = 11,    // instance, offset = identity, size = pinned (0/1)
  // Heap observation (realm_shadow/heap_observer.h): what Realm's heaps did,
  // not what its deferral algorithm decided.  snapshot.h gives the meaning.
  kHeapPlaced = 12,        // instance, offset, size, alignment: in `current`
  kHeapRemoved = 13,       // instance: out of `current`
  kHeapSplit = 14,         // group: instance = old, aux = count; pieces follow
  kHeapSwapped = 15,       // group: aux = count; kHeapRemoved / kHeapPlaced
                           // records follow, the difference a swap made
  kHeapReplaced = 16,      // group: aux = count; kHeapPlaced records follow,
                           // the whole new content of `current`
  kFuturePlaced = 17,      // instance, offset = planned, size, alignment
  kRequestFailed = 18,     // instance, offset = 1 if eventual, size, alignment
  kRequestCancelled = 19,  // instance
  kNoop = 20,              // a slot whose group was applied directly
  kFutureReset = 21,       // the future heap was rebuilt: no plan stands
};
inline constexpr int kEventTypeCount = 22;

// The records that head a group: aux is the number of records that follow,
// and a consumer applies the header and all of them or none.
inline constexpr bool IsGroupHeader(EventType type) {
  return type == EventType::kRedistrict || type == EventType::kHeapSplit ||
         type == EventType::kHeapSwapped || type == EventType::kHeapReplaced;
}

inline constexpr uint64_t kNoOffset = UINT64_MAX;

// A kReleaseRequested record's aux: where the requested release stands.
// Values are part of the dump format (a history's records carry them):
// append only.  Every uint32_t fits the type, so a record read from a file
// converts as it is, a value past kCancelled (which no writer makes)
// included.
enum class ReleaseState : uint32_t {
  kPending = 0,    // requested; its precondition has not fired
  kReady = 1,      // the precondition fired: the range goes back when the
                   // allocator frees it
  kCancelled = 2,  // the precondition was poisoned: no release, the
                   // instance is live again
};
inline constexpr uint32_t ReleaseAux(ReleaseState state) {
  return static_cast<uint32_t>(state);
}

// A kAllocationFailed or kDeferredFailed record's offset: what its source
// knows of the failure.  The hooks write 0: the allocator refused the
// request, a fact.  The offset field carries it because it is the one field
// both records leave unused (a kAllocationFailed record's aux is the
// request's alignment, saturated at 2^31, so no bit of it is free); a
// kRequestFailed record's offset is its own (1: eventual).
enum FailureBits : uint64_t {
  // Realm logs "allocation failed" both when its allocator refuses a
  // request and when it cancels one whose precondition was poisoned
  // (without asking the allocator); a log that does not say which sets
  // this bit.  Never set by the hooks: they see the allocator's answer.
  kFailureMaybeCancelled = 1,
};

const char* EventTypeName(EventType type);

// One event as the hot path wrote it.  The stamp is only read atomically in
// the concurrent journal; see journal.h.
struct EventRecord {
  uint64_t instance;
  uint64_t offset;
  uint64_t size;
  uint32_t aux;    // alignment (saturated to 2^31), piece count, ReleaseState, ...
  uint32_t stamp;  // type in the low 8 bits, journal lap above (commit mark)
};
static_assert(sizeof(EventRecord) == 32, "two records per cache line");

// An event as the consumer sees it: type decoded, alignment widened.
struct Event {
  EventType type;
  uint64_t instance = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t aux = 0;
};

// A kReleaseRequested event's ReleaseState.
inline ReleaseState EventReleaseState(const Event& e) {
  return static_cast<ReleaseState>(e.aux);
}

inline Event DecodeEvent(const EventRecord& r) {
  return Event{static_cast<EventType>(r.stamp & 0xff), r.instance, r.offset,
               r.size, r.aux};
}

// Saturating narrowing of an alignment to the 32-bit aux field.  Realm's
// alignments are powers of two well under 2^31 (page and huge-page sizes).
inline uint32_t NarrowAlignment(uint64_t alignment) {
  return alignment > 0x80000000u ? 0x80000000u
                                 : static_cast<uint32_t>(alignment);
}

}  // namespace realm_shadow

#endif  // REALM_SHADOW_CORE_EVENT_H_
