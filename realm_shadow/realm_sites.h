/* realm_shadow/realm_sites.h - what Realm includes: the helpers its
 * allocator code calls, one per site, on top of hooks.h.
 *
 * Layer hooks, next to hooks.h.  The C part (memory kinds, Realm's result codes,
 * the dynamic framebuffer's sites) needs <stdint.h> only; the C++ part
 * (heap_observer.h and the managed memory's entry sites below) is what
 * Realm's allocator code calls.  Where each call goes is one table,
 * legion_glue/sites.py, from which scripts/legion-enable-tracking plans its
 * edits; legion_glue/INTEGRATION.md says why there (a check in CI keeps the
 * three in agreement: every helper a line of the table calls is declared
 * here or in heap_observer.h).
 *
 * A managed memory (LocalManagedMemory) is tracked by observing its
 * `current` and `future` heaps (heap_observer.h) and by a few entry sites
 * that say what no heap shows; none of them re-encodes Realm's deferral
 * algorithm, so a change to it (which releases a deferred request may count
 * on, how reordering works) changes nothing here.
 *
 * Cost and guarantees
 *  - Cheap to include: mem_impl.h includes it, and editing mem_impl.h
 *    rebuilds a good part of Realm.  Beyond <stdint.h>, the C++ part needs
 *    <cstdint>, <type_traits>, <utility> and <vector>, which mem_impl.h has.
 *  - Without REALM_SHADOW_ENABLED=1 every helper is an empty inline function:
 *    an unmodified build, or one that does not link realm-shadow, pays
 *    nothing.  A NULL memory handle (REALM_SHADOW=0) makes every helper do
 *    nothing.
 *  - The entry sites and notify_allocation run without Realm's
 *    allocator_mutex, and Legion attaches identities from its own threads,
 *    so a managed memory is registered REALM_SHADOW_CONCURRENT (one relaxed
 *    fetch_add per event, 7.4 ns uncontended on the reference machine).
 *    Heap events are reported under the mutex, where the heap changes, so
 *    their order is Realm's.
 */
#ifndef REALM_SHADOW_REALM_SITES_H_
#define REALM_SHADOW_REALM_SITES_H_

#include <stdint.h>

#include "realm_shadow/hooks.h"
#include "realm_shadow/memory_kinds.h"

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

/* Each mapping expands the one table, realm_shadow/memory_kinds.h, which
 * also says how each of Realm's kinds is recorded and why. */
static inline int realm_shadow_name_equals_(const char *a, const char *b) {
  while (*a && *a == *b) { ++a; ++b; }
  return *a == *b;
}

/* Maps Realm's spelling of a memory kind ("SYSTEM_MEM", "GPU_FB_MEM", as
 * Realm prints them and as realm_c.h names them) to ours; a name the table
 * does not hold, and NULL, map to REALM_SHADOW_MEM_OTHER.  No <string.h>:
 * a byte loop over names of at most 16 characters. */
static inline realm_shadow_memory_kind realm_shadow_kind_from_realm_name(
    const char *name) {
  if (!name) return REALM_SHADOW_MEM_OTHER;
#define REALM_SHADOW_ROW_(realm, number, ours, our_name) \
  if (realm_shadow_name_equals_(name, #realm)) return ours;
  REALM_SHADOW_MEMORY_KIND_TABLE(REALM_SHADOW_ROW_, REALM_SHADOW_ROW_)
#undef REALM_SHADOW_ROW_
  return REALM_SHADOW_MEM_OTHER;
}

/* Realm's name of a Memory::Kind value, for the memory's name in dumps;
 * NULL if the value is none of the table's. */
static inline const char *realm_shadow_realm_kind_name(int kind) {
  switch (kind) {
#define REALM_SHADOW_ROW_(realm, number, ours, our_name) \
  case number: return #realm;
    REALM_SHADOW_MEMORY_KIND_TABLE(REALM_SHADOW_ROW_, REALM_SHADOW_ROW_)
#undef REALM_SHADOW_ROW_
    default: return 0;
  }
}

/* With Realm's realm_c.h already included (it defines REALM_MEMORY_KINDS
 * and realm_memory_kind_t, generated from one list as Realm::Memory::Kind
 * is), as inside Realm: each row's number is checked against Realm's
 * enumerator of its name, so that a renumbered kind stops the build instead
 * of naming a framebuffer "Z_COPY_MEM" (a renamed or removed one stops it
 * too: its name is no enumerator); and the enum maps directly:
 * realm_shadow_kind_from_realm(me.kind()). */
#if defined(REALM_MEMORY_KINDS)
#if defined(__cplusplus)
#define REALM_SHADOW_ROW_(realm, number, ours, our_name)              \
  static_assert((int)realm == number,                                \
                "Realm's Memory::Kind " #realm " is no longer " #number \
                ": realm_shadow/memory_kinds.h has Realm's numbers");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define REALM_SHADOW_ROW_(realm, number, ours, our_name)               \
  _Static_assert((int)realm == number,                                \
                 "Realm's Memory::Kind " #realm " is no longer " #number \
                 ": realm_shadow/memory_kinds.h has Realm's numbers");
#else
#define REALM_SHADOW_ROW_(realm, number, ours, our_name) \
  typedef char realm_shadow_kind_number_##realm[(int)realm == number ? 1 : -1];
#endif
REALM_SHADOW_MEMORY_KIND_TABLE(REALM_SHADOW_ROW_, REALM_SHADOW_ROW_)
#undef REALM_SHADOW_ROW_

static inline realm_shadow_memory_kind realm_shadow_kind_from_realm(int kind) {
  switch (kind) {
#define REALM_SHADOW_ROW_(realm, number, ours, our_name) \
  case number: return ours;
    REALM_SHADOW_MEMORY_KIND_TABLE(REALM_SHADOW_ROW_, REALM_SHADOW_ROW_)
#undef REALM_SHADOW_ROW_
    default: return REALM_SHADOW_MEM_OTHER;
  }
}
#endif

/* ---- registration (constructors; not on the hot path) ------------------ */

/* A GPUDynamicFBMemory: offsets are device pointers, capacity is the
 * -cuda:dynfb_max cap, and the allocate / release paths hold its mutex only
 * around the bookkeeping, so several threads report at once. */
static inline realm_shadow_memory *realm_shadow_site_register_dynamic_fb(
    uint64_t memory_id, uint64_t max_bytes, const char *name) {
  return realm_shadow_register_memory(
      memory_id, REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER, max_bytes, name,
      REALM_SHADOW_CONCURRENT | REALM_SHADOW_ADDRESSED);
}

/* ---- dynamic framebuffer (GPUDynamicFBMemory; its own mutex) ----------- */

/* After cuMemAlloc returned device pointer `device_ptr` for `bytes` (0 bytes:
 * pointer 0, no cuMemAlloc). */
static inline void realm_shadow_site_dynamic_fb_allocated(
    realm_shadow_memory *m, uint64_t instance, uint64_t device_ptr,
    uint64_t bytes) {
  realm_shadow_allocated(m, instance, device_ptr, bytes, 1);
}
/* The dynfb_max cap was reached, or cuMemAlloc ran out of memory.  For an
 * integration without the notify_allocation site only: where that site is
 * (scripts/legion-enable-tracking puts it there), it records these failures
 * already. */
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

/* ---- managed memories (C++: templates over Realm's types) ---------------- */
#ifdef __cplusplus
#include <cstddef>
#include <type_traits>

#include "realm_shadow/log_sink.h"
#include "realm_shadow/heap_observer.h"

// Inside Realm (mem_impl.h includes this header), every dump announces
// itself in Realm's own log, through a Logger named "realm_shadow" at info
// level (-level realm_shadow=2), so that it can be lined up with the log
// (realm_shadow/log_sink.h; realm-shadow ingest-realm-log --cut-at-dump).
#if REALM_SHADOW_ENABLED && defined(REALM_MEMORY_IMPL_H) && defined(__has_include)
#if __has_include("realm/logging.h")
#include "realm/logging.h"
#include "realm_shadow/layers.h"
#define REALM_SHADOW_REALM_LOGGER 1
#endif
#endif

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(hooks);
namespace site {

#if defined(REALM_SHADOW_REALM_LOGGER)
// Built at the first memory's registration, after Realm has read -level,
// and before the sink is installed: the sink's atexit handler (registered
// at installation) then runs before the logger is destroyed.
inline Realm::Logger& ShadowLogger() {
  static Realm::Logger logger("realm_shadow");
  return logger;
}
inline void LogThroughRealm(const char* line) { ShadowLogger().info() << line; }
inline void InstallRealmLogSink() {
  ShadowLogger();
  realm_shadow_set_log_sink(&LogThroughRealm);
}
#else
inline void InstallRealmLogSink() {}
#endif

// Realm's Memory::Kind, where a site passes one (not a plain integer), must
// keep realm_c.h's order, which realm_shadow_realm_kind_name spells out:
// checked when Realm compiles the site, so a reordering stops the build
// instead of naming a framebuffer "Z_COPY_MEM".
template <typename Kind, typename = void>
struct RealmKindOrder {
  static constexpr bool kChecked = false;  // an integer: nothing to check
};
template <typename Kind>
struct RealmKindOrder<Kind, std::void_t<decltype(Kind::GPU_DYNAMIC_MEM)>> {
  static_assert(static_cast<int>(Kind::SYSTEM_MEM) == 2 &&
                    static_cast<int>(Kind::Z_COPY_MEM) == 5 &&
                    static_cast<int>(Kind::GPU_FB_MEM) == 6 &&
                    static_cast<int>(Kind::DISK_MEM) == 7 &&
                    static_cast<int>(Kind::GPU_MANAGED_MEM) == 13 &&
                    static_cast<int>(Kind::GPU_DYNAMIC_MEM) == 14,
                "Realm's Memory::Kind moved: realm_shadow_realm_kind_name "
                "follows realm_c.h's order");
  static constexpr bool kChecked = true;
};

// LocalManagedMemory's constructor, after `current_allocator.add_range(0,
// _size)`: registers the memory (concurrent, heap-observed) and attaches
// its current and future heaps.  `me` is the Realm::Memory, `kind` its
// Memory::Kind.  The name is Realm's kind name ("SYSTEM_MEM"), the one
// Realm's log gives it.  Realm's GPU memories that keep a heap come here
// too, with their own kinds, from their constructors' base-class call:
// GPUFBMemory (GPU_FB_MEM: framebuffer), GPUZCMemory (Z_COPY_MEM:
// zero-copy; GPU_MANAGED_MEM: managed), offsets from the block's base.
template <typename Memory, typename Kind, typename Heap>
inline void ObserveManagedMemory(const Memory& me, Kind kind, size_t size,
                                 Heap& current, Heap& future) {
  static_cast<void>(RealmKindOrder<Kind>::kChecked);
  const char* name = realm_shadow_realm_kind_name(static_cast<int>(kind));
  realm_shadow_memory* m = realm_shadow_register_memory(
      static_cast<uint64_t>(me.id), realm_shadow_kind_from_realm_name(name),
      static_cast<uint64_t>(size), name,
      REALM_SHADOW_CONCURRENT | REALM_SHADOW_HEAP_OBSERVED);
  InstallRealmLogSink();
  current.shadow_observer.Attach(m, REALM_SHADOW_HEAP_CURRENT, current);
  future.shadow_observer.Attach(m, REALM_SHADOW_HEAP_FUTURE, future);
}

// ---- what the entry sites below share ---------------------------------------

// Whether an entry site records anything for `inst`: its memory is observed
// (registered, tracking compiled in), and the instance is Realm's to place
// (an external one, ext_resource != 0, never reaches the heaps).
template <typename Instance>
inline bool Recordable(const HeapObserver& current, const Instance* inst) {
  return current.observed() && inst != nullptr &&
         inst->metadata.ext_resource == 0;
}

// A deferrable call's precondition, as Realm reads it
// (has_triggered_faultaware): not triggered yet, triggered, or triggered
// poisoned (Realm then cancels the call silently).
enum class Precondition { kWaiting, kTriggered, kPoisoned };
template <typename Event>
inline Precondition PreconditionOf(const Event& precondition) {
  bool poisoned = false;
  if (!precondition.has_triggered_faultaware(poisoned))
    return Precondition::kWaiting;
  return poisoned ? Precondition::kPoisoned : Precondition::kTriggered;
}

// `inst` waits outside every heap with its layout's size and alignment,
// until a heap plans or places it.
template <typename Instance>
inline void RequestWaiting(const HeapObserver& current, const Instance* inst) {
  realm_shadow_request_waiting(
      current.memory(), static_cast<uint64_t>(inst->me.id),
      static_cast<uint64_t>(inst->metadata.layout->bytes_used),
      static_cast<uint64_t>(inst->metadata.layout->alignment_reqd));
}

// First statement of allocate_storage_deferrable(inst, need_alloc_result,
// precondition): a request whose precondition has not triggered waits
// outside every heap (Realm defers the attempt itself); it shows as pending
// with no planned offset until a heap takes or plans it.  A triggered one
// needs nothing here: the heaps, or notify_allocation, tell what happened.
template <typename Instance, typename Event>
inline void AllocationRequested(const HeapObserver& current, Instance* inst,
                                const Event& precondition) {
  if (!Recordable(current, inst) || inst->metadata.layout == nullptr) return;
  if (PreconditionOf(precondition) != Precondition::kWaiting) return;
  RequestWaiting(current, inst);
}

// First statement of release_storage_deferrable(inst, precondition): a
// release was requested.  Ready when the precondition has triggered; a
// poisoned one cancels the release, as Realm does silently, and nothing is
// recorded.  External instances never reach the heaps and are not recorded.
template <typename Instance, typename Event>
inline void ReleaseRequested(const HeapObserver& current, Instance* inst,
                             const Event& precondition) {
  if (!Recordable(current, inst)) return;
  const Precondition fired = PreconditionOf(precondition);
  if (fired == Precondition::kPoisoned) return;
  realm_shadow_release_requested(current.memory(),
                                 static_cast<uint64_t>(inst->me.id),
                                 fired == Precondition::kTriggered ? 1 : 0);
}

// First statement of reuse_storage_deferrable(old_inst, new_insts,
// precondition): the old range's release, as ReleaseRequested, and each new
// instance as a request that waits until a heap plans or places it (the
// split itself, at once or when the redistrict's turn comes).  Recorded
// whether or not the precondition has triggered: Realm may queue even a
// ready redistrict behind pending work, and its pieces wait there.
template <typename Instance, typename Instances, typename Event>
inline void RedistrictRequested(const HeapObserver& current, Instance* old_inst,
                                const Instances& new_insts,
                                const Event& precondition) {
  if (!Recordable(current, old_inst)) return;
  const Precondition fired = PreconditionOf(precondition);
  // Poisoned: Realm cancels every new instance.
  if (fired == Precondition::kPoisoned) return;
  for (const auto* piece : new_insts) {
    if (piece == nullptr || piece->metadata.layout == nullptr) continue;
    RequestWaiting(current, piece);
  }
  realm_shadow_release_requested(current.memory(),
                                 static_cast<uint64_t>(old_inst->me.id),
                                 fired == Precondition::kTriggered ? 1 : 0);
}

// First statement of release_storage_immediate(inst, poisoned, ...) and of
// reuse_storage_immediate(old_inst, new_insts, poisoned, ...): the release's
// precondition fired.  Poisoned: the release will not happen and the
// instance is live again; otherwise it is ready (the heap says when the range
// is given back).
template <typename Instance>
inline void ReleaseFired(const HeapObserver& current, Instance* inst,
                         bool poisoned) {
  if (!Recordable(current, inst)) return;
  const uint64_t id = static_cast<uint64_t>(inst->me.id);
  if (poisoned)
    realm_shadow_release_cancelled(current.memory(), id);
  else
    realm_shadow_release_requested(current.memory(), id, 1);
}

// First statement of RegionInstanceImpl::notify_allocation(result, ...):
// failures (instant or eventual) and cancellations, with the layout's size
// and alignment.  Successes are the heaps' to report.  Found by memory id:
// on a node that does not own the memory (the creator node of a remote
// request), nothing is registered and nothing is recorded.
template <typename Instance>
inline void AllocationOutcome(const Instance& inst, int result) {
  if (result != REALM_SHADOW_ALLOC_INSTANT_FAILURE &&
      result != REALM_SHADOW_ALLOC_EVENTUAL_FAILURE &&
      result != REALM_SHADOW_ALLOC_CANCELLED)
    return;
  if (!REALM_SHADOW_ENABLED || inst.metadata.ext_resource != 0) return;
  realm_shadow_memory* m =
      realm_shadow_find_memory(static_cast<uint64_t>(inst.memory.id));
  if (m == nullptr) return;
  const uint64_t id = static_cast<uint64_t>(inst.me.id);
  if (result == REALM_SHADOW_ALLOC_CANCELLED) {
    realm_shadow_request_cancelled(m, id);
    return;
  }
  uint64_t bytes = 0, alignment = 0;
  if (inst.metadata.layout != nullptr) {
    bytes = static_cast<uint64_t>(inst.metadata.layout->bytes_used);
    alignment = static_cast<uint64_t>(inst.metadata.layout->alignment_reqd);
  }
  realm_shadow_request_failed(m, id, bytes, alignment,
                              result == REALM_SHADOW_ALLOC_EVENTUAL_FAILURE);
}

// ---- dynamic framebuffer (GPUDynamicFBMemory) --------------------------------
//
// Realm's CUDA module makes one per GPU (on by default; -cuda:dynfb 0 turns
// it off).  It is no LocalManagedMemory: each instance is its own cuMemAlloc,
// there is no heap and no deferral, and a cap (-cuda:dynfb_max, at most the
// device's memory) bounds the bytes charged to it.  Its own mutex guards
// only its bookkeeping (`alloc_bases`, `cur_size`), never CUDA.  An
// instance's offset is its device pointer, so the memory is registered
// ADDRESSED (no holes; free is the cap less the bytes in use) and
// CONCURRENT.
//
// Three sites: the constructor registers it with its cap; the allocation,
// under the mutex right after the instance entered `alloc_bases` (after
// cuMemAlloc returned); the release, under the mutex right after it left
// `alloc_bases` (before cuMemFree).  So a device pointer that CUDA hands to
// another instance once freed is recorded after the release that freed it.
// Failures (the cap, cuMemAlloc out of memory) and cancellations (a
// poisoned precondition) need no site of their own: the memory answers each
// with RegionInstanceImpl::notify_allocation, where AllocationOutcome
// records it with the requested size once the memory is registered here; a
// second report would count every failure twice.
//
// Cost of each event site: a null test and one journal append (no lock of
// its own, no syscall, no heap allocation).

// The member GPUDynamicFBMemory gets: its handle (NULL: not tracked).
struct DynamicFramebufferShadow {
  realm_shadow_memory* memory = nullptr;
};

// GPUDynamicFBMemory's constructor, last statement: registers the memory
// with its cap (`size` as Realm enforces it) as capacity, under Realm's name
// of its kind.
template <typename Memory>
inline void ObserveDynamicFramebuffer(DynamicFramebufferShadow& shadow,
                                      const Memory& me, size_t cap) {
  shadow.memory = realm_shadow_site_register_dynamic_fb(
      static_cast<uint64_t>(me.id), static_cast<uint64_t>(cap),
      "GPU_DYNAMIC_MEM");
  InstallRealmLogSink();
}

// In allocate_storage_immediate, after `alloc_bases[inst->me] =
// std::make_pair(base, bytes);`: `base` is what cuMemAlloc returned (0 for
// zero bytes), `bytes` the layout's size.
template <typename Instance, typename DevicePointer>
inline void DynamicFramebufferAllocated(const DynamicFramebufferShadow& shadow,
                                        const Instance* inst,
                                        DevicePointer base, size_t bytes) {
  if (shadow.memory == nullptr || inst == nullptr) return;
  const uint64_t alignment =
      inst->metadata.layout != nullptr
          ? static_cast<uint64_t>(inst->metadata.layout->alignment_reqd)
          : 1;
  realm_shadow_allocated(shadow.memory, static_cast<uint64_t>(inst->me.id),
                         static_cast<uint64_t>(base),
                         static_cast<uint64_t>(bytes), alignment);
}

// In release_storage_immediate, after `alloc_bases.erase(it);`, before
// cuMemFree.
template <typename Instance>
inline void DynamicFramebufferReleased(const DynamicFramebufferShadow& shadow,
                                       const Instance* inst) {
  if (shadow.memory == nullptr || inst == nullptr) return;
  realm_shadow_site_dynamic_fb_released(shadow.memory,
                                        static_cast<uint64_t>(inst->me.id));
}

}  // namespace site
}  // namespace realm_shadow
#endif /* __cplusplus */

#endif /* REALM_SHADOW_REALM_SITES_H_ */
