// The hooks' bodies (hooks.h): each is a null/enabled check and one journal
// append; a group is one claim of count + 1 slots.
#include "realm_shadow/hooks.h"

#include "realm_shadow/core/identity.h"
#include "realm_shadow/recorder/internal/memory.h"
#include "realm_shadow/recorder/recorder.h"
#include "realm_shadow/recorder/identity_table.h"

using realm_shadow::EventType;
using realm_shadow::NarrowAlignment;

namespace {

// The body of every hook that writes one record: nothing for a null memory
// or while recording is switched off, else one journal slot.  True when it
// recorded (the failure hooks then call the failure observer).  Inlined
// like Append itself, so a hook stays one check and one append.
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline bool Record(realm_shadow_memory* m, EventType type, uint64_t instance,
                   uint64_t offset, uint64_t size, uint32_t aux) {
  if (!realm_shadow::internal::Recording(m)) return false;
  m->journal.Append(type, instance, offset, size, aux);
  return true;
}

}  // namespace

extern "C" {

realm_shadow_memory* realm_shadow_register_memory(
    uint64_t memory_id, realm_shadow_memory_kind kind, uint64_t capacity,
    const char* name, unsigned flags) {
  return realm_shadow::RegisterMemory(
      memory_id, static_cast<realm_shadow::MemoryKind>(kind), capacity,
      name ? name : "", flags);
}

void realm_shadow_set_enabled(int enabled) {
  const bool was = realm_shadow::internal::g_enabled.exchange(enabled != 0);
  if (was && !enabled) realm_shadow::internal::g_pauses.fetch_add(1);
}

void realm_shadow_allocated(realm_shadow_memory* m, uint64_t instance,
                            uint64_t offset, uint64_t size,
                            uint64_t alignment) {
  Record(m, EventType::kAllocated, instance, offset, size,
         NarrowAlignment(alignment));
}

void realm_shadow_deferred(realm_shadow_memory* m, uint64_t instance,
                           uint64_t size, uint64_t alignment,
                           uint64_t planned_offset) {
  Record(m, EventType::kDeferred, instance, planned_offset, size,
         NarrowAlignment(alignment));
}

void realm_shadow_deferred_completed(realm_shadow_memory* m, uint64_t instance,
                                     uint64_t offset) {
  Record(m, EventType::kDeferredCompleted, instance, offset, 0, 0);
}

void realm_shadow_deferred_failed(realm_shadow_memory* m, uint64_t instance) {
  if (Record(m, EventType::kDeferredFailed, instance, 0, 0, 0))
    realm_shadow::internal::NotifyFailure(m, instance);
}

void realm_shadow_allocation_failed(realm_shadow_memory* m, uint64_t instance,
                                    uint64_t size, uint64_t alignment) {
  if (Record(m, EventType::kAllocationFailed, instance, 0, size,
             NarrowAlignment(alignment)))
    realm_shadow::internal::NotifyFailure(m, instance);
}

void realm_shadow_release_requested(realm_shadow_memory* m, uint64_t instance,
                                    int ready) {
  using realm_shadow::ReleaseState;
  Record(m, EventType::kReleaseRequested, instance, 0, 0,
         realm_shadow::ReleaseAux(ready ? ReleaseState::kReady
                                        : ReleaseState::kPending));
}

void realm_shadow_release_cancelled(realm_shadow_memory* m,
                                    uint64_t instance) {
  Record(m, EventType::kReleaseRequested, instance, 0, 0,
         realm_shadow::ReleaseAux(realm_shadow::ReleaseState::kCancelled));
}

void realm_shadow_released(realm_shadow_memory* m, uint64_t instance) {
  Record(m, EventType::kReleased, instance, 0, 0, 0);
}

void realm_shadow_redistricted(realm_shadow_memory* m, uint64_t old_instance,
                               uint32_t count,
                               const realm_shadow_piece* pieces) {
  if (!realm_shadow::internal::Recording(m)) return;
  if (pieces == nullptr) count = 0;
  m->AppendGroupOrApply(EventType::kRedistrict, old_instance, count,
                        [pieces](uint32_t i) {
                          return realm_shadow::Event{
                              EventType::kRedistrictPiece, pieces[i].instance,
                              pieces[i].offset, pieces[i].size,
                              NarrowAlignment(pieces[i].alignment)};
                        });
}

void realm_shadow_reserved(realm_shadow_memory* m, uint64_t reservation,
                           uint64_t offset, uint64_t size) {
  Record(m, EventType::kReserved, reservation, offset, size, 0);
}

void realm_shadow_reservation_ended(realm_shadow_memory* m,
                                    uint64_t reservation) {
  Record(m, EventType::kReservationEnded, reservation, 0, 0, 0);
}

void realm_shadow_attach_identity(realm_shadow_memory* m, uint64_t instance,
                                  uint32_t identity, int pinned) {
  if (!realm_shadow::internal::Recording(m)) return;
  // The identity's kind travels in the record, so the shadow map needs no
  // table lookup; finding it here takes no lock and copies nothing
  // (identity.h, IdentityKind).
  m->journal.Append(EventType::kAttachIdentity, instance, identity,
                    pinned ? 1u : 0u,
                    static_cast<uint32_t>(realm_shadow::IdentityKind(identity)));
}

// ---- heap observation ---------------------------------------------------

void realm_shadow_heap_placed(realm_shadow_memory* m, int heap,
                              uint64_t instance, uint64_t offset,
                              uint64_t size, uint64_t alignment) {
  if (!realm_shadow::internal::Recording(m)) return;
  m->journal.Append(heap == REALM_SHADOW_HEAP_FUTURE ? EventType::kFuturePlaced
                                                     : EventType::kHeapPlaced,
                    instance, offset, size, NarrowAlignment(alignment));
}

void realm_shadow_heap_removed(realm_shadow_memory* m, int heap,
                               uint64_t instance) {
  // A removal from the future heap is a planned release: the release site
  // already said so, and the current heap will say when it happens.
  if (!realm_shadow::internal::Recording(m) || heap != REALM_SHADOW_HEAP_CURRENT) return;
  m->journal.Append(EventType::kHeapRemoved, instance, 0, 0, 0);
}

namespace {

realm_shadow::Event ChangeRecord(realm_shadow_heap_change_fn change,
                                 void* context, uint32_t i,
                                 EventType placed_type) {
  realm_shadow_heap_change c{};
  change(context, i, &c);
  if (!c.placed)
    return realm_shadow::Event{EventType::kHeapRemoved, c.instance, 0, 0, 0};
  return realm_shadow::Event{placed_type, c.instance, c.offset, c.size,
                             NarrowAlignment(c.alignment)};
}

// The future heap's bulk reports: every placement is a plan on its own; in a
// split, a piece the future heap could not place is a request with no plan
// (kNoOffset), and a removal elsewhere says nothing.
void AppendFuturePlacements(realm_shadow_memory* m, bool split, uint32_t count,
                            realm_shadow_heap_change_fn change,
                            void* context) {
  for (uint32_t i = 0; i < count; ++i) {
    realm_shadow_heap_change c{};
    change(context, i, &c);
    if (c.placed || split)
      m->journal.Append(EventType::kFuturePlaced, c.instance,
                        c.placed ? c.offset : realm_shadow::kNoOffset, c.size,
                        NarrowAlignment(c.alignment));
  }
}

void AppendHeapGroup(realm_shadow_memory* m, int heap, EventType header,
                     uint64_t header_instance, EventType placed_type,
                     uint32_t count, realm_shadow_heap_change_fn change,
                     void* context) {
  if (!realm_shadow::internal::Recording(m) || change == nullptr) return;
  if (heap == REALM_SHADOW_HEAP_FUTURE) {
    AppendFuturePlacements(m, header == EventType::kHeapSplit, count, change,
                           context);
    return;
  }
  m->AppendGroupOrApply(header, header_instance, count, [&](uint32_t i) {
    return ChangeRecord(change, context, i, placed_type);
  });
}

}  // namespace

void realm_shadow_heap_split(realm_shadow_memory* m, int heap,
                             uint64_t old_instance, uint32_t count,
                             realm_shadow_heap_change_fn change,
                             void* context) {
  AppendHeapGroup(m, heap, EventType::kHeapSplit, old_instance,
                  EventType::kRedistrictPiece, count, change, context);
}

void realm_shadow_heap_swapped(realm_shadow_memory* m, int heap,
                               uint32_t count,
                               realm_shadow_heap_change_fn change,
                               void* context) {
  AppendHeapGroup(m, heap, EventType::kHeapSwapped, 0, EventType::kHeapPlaced,
                  count, change, context);
}

void realm_shadow_heap_replaced(realm_shadow_memory* m, int heap,
                                uint32_t count,
                                realm_shadow_heap_change_fn change,
                                void* context) {
  AppendHeapGroup(m, heap, EventType::kHeapReplaced, 0, EventType::kHeapPlaced,
                  count, change, context);
}

void realm_shadow_request_failed(realm_shadow_memory* m, uint64_t instance,
                                 uint64_t size, uint64_t alignment,
                                 int eventual) {
  if (Record(m, EventType::kRequestFailed, instance, eventual ? 1 : 0, size,
             NarrowAlignment(alignment)))
    realm_shadow::internal::NotifyFailure(m, instance);
}

void realm_shadow_heap_reset(realm_shadow_memory* m, int heap) {
  // Only the future heap's plans can be voided; a current heap that is
  // rebuilt reports its content (realm_shadow_heap_replaced).
  if (!realm_shadow::internal::Recording(m) || heap != REALM_SHADOW_HEAP_FUTURE) return;
  m->journal.Append(EventType::kFutureReset, 0, 0, 0, 0);
}

void realm_shadow_request_waiting(realm_shadow_memory* m, uint64_t instance,
                                  uint64_t size, uint64_t alignment) {
  Record(m, EventType::kFuturePlaced, instance, realm_shadow::kNoOffset, size,
         NarrowAlignment(alignment));
}

void realm_shadow_request_cancelled(realm_shadow_memory* m,
                                    uint64_t instance) {
  Record(m, EventType::kRequestCancelled, instance, 0, 0, 0);
}

realm_shadow_memory* realm_shadow_find_memory(uint64_t memory_id) {
  return realm_shadow::FindMemory(memory_id);
}

}  // extern "C"
