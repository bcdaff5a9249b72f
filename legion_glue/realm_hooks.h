/* legion_glue/realm_hooks.h - the calls Realm's allocators make, one helper
 * per Realm site, named for the site.
 *
 * What it is for: realm_shadow/hooks.h speaks of events (allocated, deferred,
 * released, ...); Realm speaks of sites and result codes (INSTANT_SUCCESS from
 * attempt_deferrable_allocation, a ready release pushed on pending_releases,
 * a heap swap in attempt_release_reordering).  These helpers do the
 * translation in one place, so that a Realm patch is one line per site and
 * the mapping from result codes to events is written and tested once
 * (tests/legion_glue/realm_hooks_test.cc).  INTEGRATION.md lists every site,
 * the lock held there and what the state means.
 *
 * Cost and guarantees
 *  - Cheap to include: <stdint.h> and realm_shadow/hooks.h, nothing else.
 *    mem_impl.h includes it, and editing mem_impl.h rebuilds 16 Realm
 *    objects, so it must stay this small.
 *  - Each helper is static inline and costs what the hook(s) it calls cost:
 *    one journal append per event, plus a switch on the result code.
 *  - Without REALM_SHADOW_ENABLED=1 every hook is an empty inline function
 *    and so is every helper: an unmodified build pays nothing.
 *  - A NULL memory handle (tracking disabled by REALM_SHADOW=0, or a memory
 *    that was never registered) makes every helper do nothing.
 *  - Ordering is the caller's: call the heap-site helpers with Realm's
 *    allocator_mutex held, at the point where the heap changed, and report a
 *    release before the range can be handed to anyone else.
 *
 * Two ways to integrate (INTEGRATION.md explains the trade):
 *  - heap sites (exact): the helpers under "managed memory" below, called
 *    under allocator_mutex where Realm's `current` heap changes.  The shadow
 *    then equals Realm's current heap, pending requests and releases
 *    included.
 *  - outcome sites (two lines): realm_shadow_site_notify_allocation and
 *    realm_shadow_site_notify_deallocation at RegionInstanceImpl's choke
 *    points.  No lock is held there, so the memory must be registered
 *    REALM_SHADOW_CONCURRENT, a release can appear a little before Realm's
 *    current heap applies it, and pending requests are not shown (a deferred
 *    allocation appears when it is placed).
 *  Use one or the other for a memory, never both: each would report the same
 *  allocation once more.
 */
#ifndef REALM_SHADOW_LEGION_GLUE_REALM_HOOKS_H
#define REALM_SHADOW_LEGION_GLUE_REALM_HOOKS_H

#include <stdint.h>

#include "realm_shadow/hooks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Realm's MemoryImpl::AllocationResult, in Realm's order (mem_impl.h), so
 * that `(int)result` converts.  An integration should pin the order with a
 * static_assert per value (INTEGRATION.md shows which). */
typedef enum realm_shadow_realm_result {
  REALM_SHADOW_ALLOC_INSTANT_SUCCESS = 0,
  REALM_SHADOW_ALLOC_INSTANT_FAILURE = 1,
  REALM_SHADOW_ALLOC_DEFERRED = 2,
  REALM_SHADOW_ALLOC_EVENTUAL_SUCCESS = 3,
  REALM_SHADOW_ALLOC_EVENTUAL_FAILURE = 4,
  REALM_SHADOW_ALLOC_CANCELLED = 5
} realm_shadow_realm_result;

/* ---- memory kinds ------------------------------------------------------ */

/* Maps Realm's spelling of a memory kind ("SYSTEM_MEM", "GPU_FB_MEM", as
 * Realm prints them and as realm_c.h names them) to ours.  Unknown names,
 * caches and NULL map to REALM_SHADOW_MEM_OTHER.  No <string.h>: a byte
 * loop over names of at most 16 characters. */
static inline int realm_shadow_name_equals_(const char *a, const char *b) {
  while (*a && *a == *b) { ++a; ++b; }
  return *a == *b;
}
static inline realm_shadow_memory_kind realm_shadow_kind_from_realm_name(
    const char *name) {
  if (!name) return REALM_SHADOW_MEM_OTHER;
  if (realm_shadow_name_equals_(name, "SYSTEM_MEM")) return REALM_SHADOW_MEM_SYSTEM;
  if (realm_shadow_name_equals_(name, "REGDMA_MEM")) return REALM_SHADOW_MEM_REGDMA;
  if (realm_shadow_name_equals_(name, "SOCKET_MEM")) return REALM_SHADOW_MEM_SOCKET;
  if (realm_shadow_name_equals_(name, "GPU_FB_MEM")) return REALM_SHADOW_MEM_FRAMEBUFFER;
  if (realm_shadow_name_equals_(name, "Z_COPY_MEM")) return REALM_SHADOW_MEM_ZERO_COPY;
  if (realm_shadow_name_equals_(name, "GPU_MANAGED_MEM")) return REALM_SHADOW_MEM_MANAGED;
  if (realm_shadow_name_equals_(name, "GPU_DYNAMIC_MEM"))
    return REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER;
  if (realm_shadow_name_equals_(name, "DISK_MEM") ||
      realm_shadow_name_equals_(name, "FILE_MEM") ||
      realm_shadow_name_equals_(name, "HDF_MEM"))
    return REALM_SHADOW_MEM_DISK;
  if (realm_shadow_name_equals_(name, "GLOBAL_MEM")) return REALM_SHADOW_MEM_GLOBAL;
  return REALM_SHADOW_MEM_OTHER;
}

/* With Realm's realm_c.h already included (it defines REALM_MEMORY_KINDS
 * and realm_memory_kind_t; Realm::Memory::Kind has the same enumerators), the
 * enum maps directly: realm_shadow_kind_from_realm(me.kind()). */
#if defined(REALM_MEMORY_KINDS)
static inline realm_shadow_memory_kind realm_shadow_kind_from_realm(int kind) {
  switch ((realm_memory_kind_t)kind) {
    case SYSTEM_MEM: return REALM_SHADOW_MEM_SYSTEM;
    case REGDMA_MEM: return REALM_SHADOW_MEM_REGDMA;
    case SOCKET_MEM: return REALM_SHADOW_MEM_SOCKET;
    case GPU_FB_MEM: return REALM_SHADOW_MEM_FRAMEBUFFER;
    case Z_COPY_MEM: return REALM_SHADOW_MEM_ZERO_COPY;
    case GPU_MANAGED_MEM: return REALM_SHADOW_MEM_MANAGED;
    case GPU_DYNAMIC_MEM: return REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER;
    case DISK_MEM: case FILE_MEM: case HDF_MEM: return REALM_SHADOW_MEM_DISK;
    case GLOBAL_MEM: return REALM_SHADOW_MEM_GLOBAL;
    default: return REALM_SHADOW_MEM_OTHER;
  }
}
#endif

/* ---- registration (constructors; not on the hot path) ------------------ */

/* A LocalManagedMemory (system, regdma, socket, framebuffer, zero-copy,
 * managed, disk, global).  legion_attaches != 0 registers the memory
 * REALM_SHADOW_CONCURRENT: Legion attaches identities from its own threads,
 * outside allocator_mutex, and a serialized journal must never see two
 * writers at once.  The price is one relaxed fetch_add per event (7.4 ns
 * uncontended on the reference machine).  With legion_attaches == 0 (Realm
 * alone, or identities never attached) the memory is serialized by
 * allocator_mutex. */
static inline realm_shadow_memory *realm_shadow_site_register_managed_memory(
    uint64_t memory_id, realm_shadow_memory_kind kind, uint64_t capacity,
    const char *name, int legion_attaches) {
  return realm_shadow_register_memory(
      memory_id, kind, capacity, name,
      legion_attaches ? REALM_SHADOW_CONCURRENT : REALM_SHADOW_SERIALIZED);
}

/* A GPUDynamicFBMemory: offsets are device pointers, capacity is the
 * -cuda:dynfb_max cap, and the allocate / release paths hold its mutex only
 * around the bookkeeping, so several threads report at once. */
static inline realm_shadow_memory *realm_shadow_site_register_dynamic_fb(
    uint64_t memory_id, uint64_t max_bytes, const char *name) {
  return realm_shadow_register_memory(
      memory_id, REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER, max_bytes, name,
      REALM_SHADOW_CONCURRENT | REALM_SHADOW_ADDRESSED);
}

/* ---- managed memory: heap sites (allocator_mutex held) ----------------- */

/* After LocalManagedMemory::attempt_deferrable_allocation returned `result`
 * for `instance` of `bytes` at `alignment`, still under allocator_mutex.
 * inst_offset is its place in the current heap (INSTANT_SUCCESS) or in the
 * future heap (DEFERRED: where it will go once the pending releases it waits
 * on are applied).  Returns 1 if an event was recorded, 0 for a result code
 * this site never produces. */
static inline int realm_shadow_site_attempt_deferrable_allocation(
    realm_shadow_memory *m, uint64_t instance, uint64_t bytes,
    uint64_t alignment, int result, uint64_t inst_offset) {
  switch (result) {
    case REALM_SHADOW_ALLOC_INSTANT_SUCCESS:
      realm_shadow_allocated(m, instance, inst_offset, bytes, alignment);
      return 1;
    case REALM_SHADOW_ALLOC_DEFERRED:
      realm_shadow_deferred(m, instance, bytes, alignment, inst_offset);
      return 1;
    case REALM_SHADOW_ALLOC_INSTANT_FAILURE:
      realm_shadow_allocation_failed(m, instance, bytes, alignment);
      return 1;
    default:
      return 0;
  }
}

/* LocalManagedMemory::allocate_storage_immediate: a creation whose
 * precondition event fired (RegionInstance::DeferredCreate).  Until then the
 * request was in no heap, so the shadow did not show it.  `result` is what
 * attempt_deferrable_allocation answered (or CANCELLED when the precondition
 * was poisoned: nothing was placed and nothing is recorded).  A destroy or a
 * redistrict that arrived while the creation waited
 * (INSTOFFSET_DELAYEDDESTROY / _DELAYEDREDISTRICT) is pushed on
 * pending_releases here, not ready: pass destroy_waiting = 1 and it is
 * recorded as a queued release of an instance that was placed or deferred. */
static inline void realm_shadow_site_deferred_create_fired(
    realm_shadow_memory *m, uint64_t instance, uint64_t bytes,
    uint64_t alignment, int result, uint64_t inst_offset,
    int destroy_waiting) {
  realm_shadow_site_attempt_deferrable_allocation(m, instance, bytes,
                                                  alignment, result,
                                                  inst_offset);
  if (destroy_waiting && (result == REALM_SHADOW_ALLOC_INSTANT_SUCCESS ||
                          result == REALM_SHADOW_ALLOC_DEFERRED))
    realm_shadow_release_requested(m, instance, 0);
}

/* A release pushed on pending_releases (release_storage_deferrable,
 * reuse_storage_deferrable): the range stays in the current heap.  ready = 0:
 * its precondition has not triggered (the future heap already has the range
 * free).  ready = 1: triggered, applied to the release heap, but older
 * pending allocations keep it out of the current heap. */
static inline void realm_shadow_site_release_queued(realm_shadow_memory *m,
                                                    uint64_t instance,
                                                    int ready) {
  realm_shadow_release_requested(m, instance, ready ? 1 : 0);
}

/* A release that was queued became ready (release_storage_immediate /
 * reuse_storage_immediate found it behind older entries and set is_ready)
 * while allocations are pending, so only the release heap has it. */
static inline void realm_shadow_site_release_ready(realm_shadow_memory *m,
                                                   uint64_t instance) {
  realm_shadow_release_requested(m, instance, 1);
}

/* The range left the current heap: current_allocator.deallocate(inst) in
 * release_storage_deferrable, or a PendingRelease applied to the current
 * heap in the catch-up loop of release_storage_immediate. */
static inline void realm_shadow_site_release_applied(realm_shadow_memory *m,
                                                     uint64_t instance) {
  realm_shadow_released(m, instance);
}

/* attempt_release_reordering returned true: Realm swapped a test heap (the
 * release heap plus the pending allocations that fit) in as current.  Report,
 * in this order and before the mutex is dropped: every ready release that
 * the swap applied (the entries it erased, and the release that triggered
 * the attempt if it was never queued) with this helper, then every
 * allocation it placed with realm_shadow_site_deferred_placed. */
static inline void realm_shadow_site_reordered_release(realm_shadow_memory *m,
                                                       uint64_t instance) {
  realm_shadow_released(m, instance);
}

/* A pending allocation was placed in the current heap at `offset`
 * (ALLOC_EVENTUAL_SUCCESS): by the catch-up loop in release_storage_immediate
 * / reuse_storage_immediate, or by a successful release reordering. */
static inline void realm_shadow_site_deferred_placed(realm_shadow_memory *m,
                                                     uint64_t instance,
                                                     uint64_t offset) {
  realm_shadow_deferred_completed(m, instance, offset);
}

/* remove_pending_release dropped a pending allocation that no longer fits
 * once a poisoned release is taken out of the future
 * (ALLOC_EVENTUAL_FAILURE). */
static inline void realm_shadow_site_eventual_failure(realm_shadow_memory *m,
                                                      uint64_t instance) {
  realm_shadow_deferred_failed(m, instance);
}

/* A queued release whose precondition was poisoned (remove_pending_release):
 * Realm keeps the range, and the instance is live again. */
static inline void realm_shadow_site_release_cancelled(realm_shadow_memory *m,
                                                       uint64_t instance) {
  realm_shadow_release_cancelled(m, instance);
}

/* A request the shadow holds as pending ended without being placed: the
 * pieces of a queued redistrict whose precondition was poisoned
 * (reuse_storage_immediate, ALLOC_CANCELLED for each new instance).  A
 * release of a pending request cancels it (snapshot.h). */
static inline void realm_shadow_site_deferred_cancelled(realm_shadow_memory *m,
                                                        uint64_t instance) {
  realm_shadow_released(m, instance);
}

/* A redistrict applied to the current heap at once
 * (reuse_storage_deferrable with its precondition triggered and nothing
 * pending): split_range of `old_instance` placed the first `placed` of
 * `count` pieces (Realm's `allocated`); the rest fail (ALLOC_INSTANT_FAILURE
 * for them).  pieces[i].offset is Realm's offsets[i]; for i >= placed it is
 * ignored. */
static inline void realm_shadow_site_redistrict_applied(
    realm_shadow_memory *m, uint64_t old_instance, uint32_t count,
    uint32_t placed, const realm_shadow_piece *pieces) {
  uint32_t i;
  if (placed > count) placed = count;
  realm_shadow_redistricted(m, old_instance, placed, pieces);
  for (i = placed; i < count; ++i)
    realm_shadow_allocation_failed(m, pieces[i].instance, pieces[i].size,
                                   pieces[i].alignment);
}

/* A redistrict that must wait (reuse_storage_deferrable pushed it on
 * pending_releases with record_redistrict): the old range stays, as a
 * queued release (ready as for realm_shadow_site_release_queued), and each
 * new instance waits as a deferred request with no planned offset, so a
 * report shows what the range is promised to. */
static inline void realm_shadow_site_redistrict_queued(
    realm_shadow_memory *m, uint64_t old_instance, uint32_t count,
    const realm_shadow_piece *pieces, int ready) {
  uint32_t i;
  realm_shadow_release_requested(m, old_instance, ready ? 1 : 0);
  for (i = 0; i < count; ++i)
    realm_shadow_deferred(m, pieces[i].instance, pieces[i].size,
                          pieces[i].alignment, REALM_SHADOW_NO_OFFSET);
}

/* A queued redistrict reached the current heap (reuse_storage_immediate or
 * release_storage_immediate's catch-up loop applied its PendingRelease, or
 * a reordering swap did): the old range goes, the first `placed` pieces are
 * placed at pieces[i].offset (ALLOC_EVENTUAL_SUCCESS) and the rest fail
 * (ALLOC_EVENTUAL_FAILURE).  When Realm does not hand back the offsets
 * there, look them up in the current heap (current_allocator.lookup). */
static inline void realm_shadow_site_queued_redistrict_applied(
    realm_shadow_memory *m, uint64_t old_instance, uint32_t count,
    uint32_t placed, const realm_shadow_piece *pieces) {
  uint32_t i;
  if (placed > count) placed = count;
  realm_shadow_released(m, old_instance);
  for (i = 0; i < placed; ++i)
    realm_shadow_deferred_completed(m, pieces[i].instance, pieces[i].offset);
  for (i = placed; i < count; ++i)
    realm_shadow_deferred_failed(m, pieces[i].instance);
}

/* ---- outcome sites (no lock held; register REALM_SHADOW_CONCURRENT) ---- */

/* RegionInstanceImpl::notify_allocation on the node that owns the memory
 * (before the early return that forwards to the creator node).  bytes and
 * alignment are the instance layout's bytes_used and alignment_reqd.
 * Realm sends DEFERRED here only when the creator asked for an allocation
 * result, so the outcome sites do not show pending requests at all: DEFERRED
 * is ignored, an eventual success is recorded as an allocation at the moment
 * it was placed, an eventual failure as a failure, and CANCELLED (a poisoned
 * precondition: nothing was ever placed) as nothing.  Returns 1 if an event
 * was recorded. */
static inline int realm_shadow_site_notify_allocation(
    realm_shadow_memory *m, uint64_t instance, int result, uint64_t offset,
    uint64_t bytes, uint64_t alignment) {
  switch (result) {
    case REALM_SHADOW_ALLOC_INSTANT_SUCCESS:
    case REALM_SHADOW_ALLOC_EVENTUAL_SUCCESS:
      realm_shadow_allocated(m, instance, offset, bytes, alignment);
      return 1;
    case REALM_SHADOW_ALLOC_INSTANT_FAILURE:
    case REALM_SHADOW_ALLOC_EVENTUAL_FAILURE:
      realm_shadow_allocation_failed(m, instance, bytes, alignment);
      return 1;
    default:
      return 0;
  }
}

/* RegionInstanceImpl::notify_deallocation: Realm acknowledges a triggered
 * destroy.  With allocations pending, the range may stay in Realm's current
 * heap a little longer; the shadow shows it free from here on. */
static inline void realm_shadow_site_notify_deallocation(
    realm_shadow_memory *m, uint64_t instance) {
  realm_shadow_released(m, instance);
}

/* ---- dynamic framebuffer (GPUDynamicFBMemory; its own mutex) ----------- */

/* After cuMemAlloc returned device pointer `device_ptr` for `bytes` (0 bytes:
 * pointer 0, no cuMemAlloc). */
static inline void realm_shadow_site_dynamic_fb_allocated(
    realm_shadow_memory *m, uint64_t instance, uint64_t device_ptr,
    uint64_t bytes) {
  realm_shadow_allocated(m, instance, device_ptr, bytes, 1);
}
/* The dynfb_max cap was reached, or cuMemAlloc ran out of memory. */
static inline void realm_shadow_site_dynamic_fb_failed(realm_shadow_memory *m,
                                                       uint64_t instance,
                                                       uint64_t bytes) {
  realm_shadow_allocation_failed(m, instance, bytes, 1);
}
/* In release_storage_immediate, after the entry left alloc_bases and before
 * cuMemFree: once cuMemFree returns, the driver may hand the same pointer to
 * another thread's cuMemAlloc, and its allocation must come after this. */
static inline void realm_shadow_site_dynamic_fb_released(
    realm_shadow_memory *m, uint64_t instance) {
  realm_shadow_released(m, instance);
}

#ifdef __cplusplus
}
#endif

#endif /* REALM_SHADOW_LEGION_GLUE_REALM_HOOKS_H */
