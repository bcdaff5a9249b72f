/* realm_shadow/hooks.h - the calls a Realm memory allocator makes on every
 * allocation event.  Layer hooks: C-compatible, <stdint.h> only.
 *
 * Guarantees (with REALM_SHADOW_ENABLED=1 at compile time):
 *  - Cost: each hook is one out-of-line call that appends a 32-byte record to
 *    the memory's journal: no lock of the tracker's own, no syscall, no heap
 *    allocation, no virtual call.  Measured by bench/ (see README): a few ns
 *    and under 30 instructions per event when the caller serializes a
 *    memory's events.
 *  - Ordering: the events of one memory are kept in the order the hooks are
 *    called.  With REALM_SHADOW_SERIALIZED (the default) the caller promises
 *    that no two hooks of the same memory run at once (Realm holds the
 *    memory's allocator mutex); with REALM_SHADOW_CONCURRENT several threads
 *    may report for the same memory (dynamic framebuffer) and the order is the
 *    order in which the calls claim their journal slot.  Report a release
 *    before the range is handed back, and an allocation after it is obtained,
 *    and causal order is preserved.
 *  - Nothing is lost: the journal is bounded (REALM_SHADOW_JOURNAL_EVENTS,
 *    default 16384 events, 512 KiB per memory).  When it is full, the writer
 *    applies the backlog itself before it goes on (backpressure, never drop).
 *    A background drainer (realm_shadow_start_drainer) keeps that from
 *    happening in steady state.
 *  - Switching off: a NULL memory handle makes every hook a no-op;
 *    realm_shadow_set_enabled(0) makes every hook one predictable branch; and
 *    without REALM_SHADOW_ENABLED the hooks compile to nothing.
 *
 * Instance ids may be reused after a release: the tracker never assumes an
 * id is unique over time, only among the live allocations of one memory.
 */
#ifndef REALM_SHADOW_HOOKS_H_
#define REALM_SHADOW_HOOKS_H_

#include <stdint.h>

#ifndef REALM_SHADOW_ENABLED
#define REALM_SHADOW_ENABLED 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds of Realm memory.  Values are part of the dump format: append only. */
typedef enum realm_shadow_memory_kind {
  REALM_SHADOW_MEM_OTHER = 0,
  REALM_SHADOW_MEM_SYSTEM = 1,              /* SYSTEM_MEM */
  REALM_SHADOW_MEM_REGDMA = 2,              /* REGDMA_MEM */
  REALM_SHADOW_MEM_SOCKET = 3,              /* SOCKET_MEM (NUMA) */
  REALM_SHADOW_MEM_FRAMEBUFFER = 4,         /* GPU_FB_MEM */
  REALM_SHADOW_MEM_ZERO_COPY = 5,           /* Z_COPY_MEM */
  REALM_SHADOW_MEM_MANAGED = 6,             /* GPU_MANAGED_MEM */
  REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER = 7, /* GPU_DYNAMIC_MEM */
  REALM_SHADOW_MEM_DISK = 8,                /* DISK_MEM, FILE_MEM */
  REALM_SHADOW_MEM_GLOBAL = 9               /* GASNet / MPI global memory */
} realm_shadow_memory_kind;

/* Registration flags. */
enum {
  REALM_SHADOW_SERIALIZED = 0,   /* caller serializes this memory's hooks */
  REALM_SHADOW_CONCURRENT = 1,   /* several threads may report at once */
  REALM_SHADOW_ADDRESSED = 2,    /* offsets are device addresses and
                                    capacity is a cap on the bytes in use
                                    (dynamic framebuffer): no holes */
  REALM_SHADOW_HEAP_OBSERVED = 4 /* events come from observing the heaps
                                    (heap_observer.h), not from allocator
                                    decisions */
};

/* The heaps of a Realm managed memory that an observer reports on. */
enum {
  REALM_SHADOW_HEAP_CURRENT = 0, /* what is placed now */
  REALM_SHADOW_HEAP_FUTURE = 1   /* Realm's plan: where pending requests go */
};

/* The "no offset" value, for a deferred request not yet placed and for a
 * reservation that holds an amount rather than a range. */
#define REALM_SHADOW_NO_OFFSET UINT64_MAX

typedef struct realm_shadow_memory realm_shadow_memory;

/* One entry of a heap change reported in bulk (a split's pieces, the
 * difference a swap made, a heap's whole content). */
typedef struct realm_shadow_heap_change {
  uint64_t instance;
  uint64_t offset;
  uint64_t size;
  uint64_t alignment;  /* 0: not known to the heap */
  int placed;          /* 1: placed at offset; 0: removed */
} realm_shadow_heap_change;

/* Writes change `index` of a bulk report into *out.  The recorder calls it
 * once for each index, 0 to count - 1, in that order. */
typedef void (*realm_shadow_heap_change_fn)(void *context, uint32_t index,
                                            realm_shadow_heap_change *out);

/* One piece of a redistricted range. */
typedef struct realm_shadow_piece {
  uint64_t instance;
  uint64_t offset;
  uint64_t size;
  uint64_t alignment;
} realm_shadow_piece;

#if REALM_SHADOW_ENABLED

/* Registers (or finds again) the memory with this 64-bit Realm id.  Not on
 * the hot path: takes the registry's mutex and allocates the journal.
 * Returns NULL when tracking is disabled by REALM_SHADOW=0 in the
 * environment; every hook accepts NULL and then does nothing. */
realm_shadow_memory *realm_shadow_register_memory(uint64_t memory_id,
                                                  realm_shadow_memory_kind kind,
                                                  uint64_t capacity,
                                                  const char *name,
                                                  unsigned flags);

/* Run-time switch for all memories (default on).  While off, the hooks
 * record nothing and the shadow stops being exact; snapshots say so. */
void realm_shadow_set_enabled(int enabled);

/* ---- the hot path: one call per allocator event ---------------------- */

/* An allocation was placed now (instant success). */
void realm_shadow_allocated(realm_shadow_memory *m, uint64_t instance,
                            uint64_t offset, uint64_t size, uint64_t alignment);
/* The request does not fit now but will after pending releases: deferred.
 * planned_offset is its place in the future heap, or REALM_SHADOW_NO_OFFSET. */
void realm_shadow_deferred(realm_shadow_memory *m, uint64_t instance,
                           uint64_t size, uint64_t alignment,
                           uint64_t planned_offset);
/* A deferred request was placed (eventual success). */
void realm_shadow_deferred_completed(realm_shadow_memory *m, uint64_t instance,
                                     uint64_t offset);
/* A deferred request failed (eventual failure) or was cancelled. */
void realm_shadow_deferred_failed(realm_shadow_memory *m, uint64_t instance);
/* An allocation failed now (instant failure). */
void realm_shadow_allocation_failed(realm_shadow_memory *m, uint64_t instance,
                                    uint64_t size, uint64_t alignment);
/* A release was queued: the range stays occupied until released().
 * ready: its precondition has triggered (Realm's release heap has it). */
void realm_shadow_release_requested(realm_shadow_memory *m, uint64_t instance,
                                    int ready);
/* A queued release will not happen (its precondition was poisoned): the
 * instance stays live. */
void realm_shadow_release_cancelled(realm_shadow_memory *m, uint64_t instance);
/* The range was given back to the allocator. */
void realm_shadow_released(realm_shadow_memory *m, uint64_t instance);
/* One live range was split in place into count new instances; whatever of
 * the old range the pieces do not cover is freed. */
void realm_shadow_redistricted(realm_shadow_memory *m, uint64_t old_instance,
                               uint32_t count, const realm_shadow_piece *pieces);
/* A range (offset, size) or an amount (offset = REALM_SHADOW_NO_OFFSET) held
 * for a pool or an upper-bound reservation, and its end. */
void realm_shadow_reserved(realm_shadow_memory *m, uint64_t reservation,
                           uint64_t offset, uint64_t size);
void realm_shadow_reservation_ended(realm_shadow_memory *m,
                                    uint64_t reservation);

/* Off the hot path: attach an interned identity (legion_glue) and the
 * garbage-collection state to a live or deferred instance.  Ordered with the
 * memory's other events. */
void realm_shadow_attach_identity(realm_shadow_memory *m, uint64_t instance,
                                  uint32_t identity, int pinned);

/* ---- heap observation (heap_observer.h calls these) ------------------- *
 * What one of a memory's heaps did, reported from inside Realm's range
 * allocator.  `heap` is REALM_SHADOW_HEAP_CURRENT or _FUTURE.  Each is one
 * journal append, except the bulk reports, which append count + 1 records
 * as one group (or, larger than the journal, apply it directly; never
 * split). */
void realm_shadow_heap_placed(realm_shadow_memory *m, int heap,
                              uint64_t instance, uint64_t offset,
                              uint64_t size, uint64_t alignment);
void realm_shadow_heap_removed(realm_shadow_memory *m, int heap,
                               uint64_t instance);
/* old_instance's range was split in place; `count` pieces were placed. */
void realm_shadow_heap_split(realm_shadow_memory *m, int heap,
                             uint64_t old_instance, uint32_t count,
                             realm_shadow_heap_change_fn change,
                             void *context);
/* The heap was swapped with another: `count` changes (removals first). */
void realm_shadow_heap_swapped(realm_shadow_memory *m, int heap,
                               uint32_t count,
                               realm_shadow_heap_change_fn change,
                               void *context);
/* The heap was assigned: `count` entries, its whole new content. */
void realm_shadow_heap_replaced(realm_shadow_memory *m, int heap,
                                uint32_t count,
                                realm_shadow_heap_change_fn change,
                                void *context);
/* The heap was rebuilt (the future heap: every plan is void until the heap
 * places it again). */
void realm_shadow_heap_reset(realm_shadow_memory *m, int heap);
/* A request waits on its precondition: no heap has seen it yet (Realm's
 * allocate_storage_deferrable with an untriggered precondition, the pieces
 * of a redistrict that waits).  Shown as pending with no planned offset. */
void realm_shadow_request_waiting(realm_shadow_memory *m, uint64_t instance,
                                  uint64_t size, uint64_t alignment);
/* A request ended without a place: it failed (instantly or eventually,
 * Realm's INSTANT_FAILURE / EVENTUAL_FAILURE) or was cancelled. */
void realm_shadow_request_failed(realm_shadow_memory *m, uint64_t instance,
                                 uint64_t size, uint64_t alignment,
                                 int eventual);
void realm_shadow_request_cancelled(realm_shadow_memory *m,
                                    uint64_t instance);
/* The handle of a registered memory, or NULL (not registered here: another
 * node's memory, or tracking off).  Takes the registry's mutex: for rare
 * events (failures), never per allocation. */
realm_shadow_memory *realm_shadow_find_memory(uint64_t memory_id);

#else /* tracking compiled out: every hook is nothing */

static inline realm_shadow_memory *realm_shadow_register_memory(
    uint64_t memory_id, realm_shadow_memory_kind kind, uint64_t capacity,
    const char *name, unsigned flags) {
  (void)memory_id; (void)kind; (void)capacity; (void)name; (void)flags;
  return 0;
}
static inline void realm_shadow_set_enabled(int e) { (void)e; }
static inline void realm_shadow_allocated(realm_shadow_memory *m, uint64_t i,
    uint64_t o, uint64_t s, uint64_t a) { (void)m; (void)i; (void)o; (void)s; (void)a; }
static inline void realm_shadow_deferred(realm_shadow_memory *m, uint64_t i,
    uint64_t s, uint64_t a, uint64_t p) { (void)m; (void)i; (void)s; (void)a; (void)p; }
static inline void realm_shadow_deferred_completed(realm_shadow_memory *m,
    uint64_t i, uint64_t o) { (void)m; (void)i; (void)o; }
static inline void realm_shadow_deferred_failed(realm_shadow_memory *m,
    uint64_t i) { (void)m; (void)i; }
static inline void realm_shadow_allocation_failed(realm_shadow_memory *m,
    uint64_t i, uint64_t s, uint64_t a) { (void)m; (void)i; (void)s; (void)a; }
static inline void realm_shadow_release_requested(realm_shadow_memory *m,
    uint64_t i, int r) { (void)m; (void)i; (void)r; }
static inline void realm_shadow_release_cancelled(realm_shadow_memory *m,
    uint64_t i) { (void)m; (void)i; }
static inline void realm_shadow_released(realm_shadow_memory *m, uint64_t i) {
  (void)m; (void)i;
}
static inline void realm_shadow_redistricted(realm_shadow_memory *m,
    uint64_t o, uint32_t c, const realm_shadow_piece *p) {
  (void)m; (void)o; (void)c; (void)p;
}
static inline void realm_shadow_reserved(realm_shadow_memory *m, uint64_t r,
    uint64_t o, uint64_t s) { (void)m; (void)r; (void)o; (void)s; }
static inline void realm_shadow_reservation_ended(realm_shadow_memory *m,
    uint64_t r) { (void)m; (void)r; }
static inline void realm_shadow_attach_identity(realm_shadow_memory *m,
    uint64_t i, uint32_t id, int p) { (void)m; (void)i; (void)id; (void)p; }
static inline void realm_shadow_heap_placed(realm_shadow_memory *m, int h,
    uint64_t i, uint64_t o, uint64_t s, uint64_t a) {
  (void)m; (void)h; (void)i; (void)o; (void)s; (void)a;
}
static inline void realm_shadow_heap_removed(realm_shadow_memory *m, int h,
    uint64_t i) { (void)m; (void)h; (void)i; }
static inline void realm_shadow_heap_split(realm_shadow_memory *m, int h,
    uint64_t o, uint32_t c, realm_shadow_heap_change_fn f, void *x) {
  (void)m; (void)h; (void)o; (void)c; (void)f; (void)x;
}
static inline void realm_shadow_heap_swapped(realm_shadow_memory *m, int h,
    uint32_t c, realm_shadow_heap_change_fn f, void *x) {
  (void)m; (void)h; (void)c; (void)f; (void)x;
}
static inline void realm_shadow_heap_replaced(realm_shadow_memory *m, int h,
    uint32_t c, realm_shadow_heap_change_fn f, void *x) {
  (void)m; (void)h; (void)c; (void)f; (void)x;
}
static inline void realm_shadow_request_failed(realm_shadow_memory *m,
    uint64_t i, uint64_t s, uint64_t a, int e) {
  (void)m; (void)i; (void)s; (void)a; (void)e;
}
static inline void realm_shadow_request_cancelled(realm_shadow_memory *m,
    uint64_t i) { (void)m; (void)i; }
static inline void realm_shadow_heap_reset(realm_shadow_memory *m, int h) {
  (void)m; (void)h;
}
static inline void realm_shadow_request_waiting(realm_shadow_memory *m,
    uint64_t i, uint64_t s, uint64_t a) { (void)m; (void)i; (void)s; (void)a; }
static inline realm_shadow_memory *realm_shadow_find_memory(uint64_t id) {
  (void)id;
  return 0;
}

#endif /* REALM_SHADOW_ENABLED */

#ifdef __cplusplus
}
#endif

#endif /* REALM_SHADOW_HOOKS_H_ */
