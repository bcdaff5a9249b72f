/* realm_shadow/memory_kinds.h - the one table of Realm's memory kinds: for
 * each, Realm's name, Realm's number, and the kind we record it as.
 *
 * Layer hooks (next to hooks.h): C-compatible, preprocessor only, so that
 * realm_sites.h (inside Realm) and core (memory_kind.h: ParseMemoryKind,
 * MemoryKindName, RealmMemoryKindName) expand the same rows.  Nothing else
 * spells a Realm kind's name or number: the log reader (ingest) and the
 * test drivers (testing) go through core.
 *
 * Guarantees
 *  - Every kind of Realm's Memory::Kind is a row, in Realm's order, with
 *    its number: realm_c.h's REALM_MEMORY_KINDS list, from which both
 *    realm_memory_kind_t and Realm::Memory::Kind are generated (memory.h),
 *    the same in Legion 25.03, 25.06 and master.  Compiled inside Realm,
 *    realm_sites.h checks each row's number against Realm's enumerator of
 *    that name and stops the build on a renamed, removed or renumbered
 *    kind.
 *  - Each of our kinds (hooks.h realm_shadow_memory_kind) is the `our_kind`
 *    of exactly one KIND row, which gives its name: every kind we record
 *    names itself and its Realm kind.  A FOLDED row is a Realm kind that we
 *    record as the kind of another row; it has no name of ours.
 *  - Cost: none at run time beyond what the expansions compile to (a
 *    switch, or a loop of at most 15 compares of names of at most 16
 *    characters).
 *
 * Decided once, here:
 *  - HDF_MEM and FILE_MEM are DISK.  Like DISK_MEM they hold their bytes
 *    in files (HDF5Memory, FileMemory), and Realm's own rules treat the
 *    three alike (machine_impl.cc: a remote write may target them, never
 *    read from them); what a reader needs from the kind is "in files, not
 *    in RAM or on a GPU".  Neither keeps a heap, so no site registers one,
 *    but a machine dump or a Legion Spy line may list one; Realm's name (a
 *    snapshot's `name`) still tells the three apart.
 *  - LEVEL1_CACHE, LEVEL2_CACHE, LEVEL3_CACHE are OTHER: Realm declares
 *    them but no module of 25.03 to master creates such a memory.
 *  - NO_MEMKIND is OTHER: it is Realm's "no kind" (what a failed lookup
 *    returns), the Realm kind of our OTHER, and what every name or number
 *    the table does not hold maps to.
 *  - A kind Realm adds later maps to OTHER, with no name, until a row is
 *    appended here; it does not stop the build.
 *
 * Use: define KIND and FOLDED, each (realm_name, realm_number, our_kind,
 * our_name), then expand REALM_SHADOW_MEMORY_KIND_TABLE(KIND, FOLDED);
 * TABLE(ROW, ROW) takes every row alike.  realm_name is a bare token
 * (Realm's enumerator; #realm_name is its name), realm_number an integer
 * literal, our_kind a realm_shadow_memory_kind enumerator, our_name a
 * string literal on a KIND row and 0 on a FOLDED one.
 */
#ifndef REALM_SHADOW_MEMORY_KINDS_H_
#define REALM_SHADOW_MEMORY_KINDS_H_

#include "realm_shadow/hooks.h"

/* clang-format off */
#define REALM_SHADOW_MEMORY_KIND_TABLE(KIND, FOLDED)                                        \
  KIND(  NO_MEMKIND,        0, REALM_SHADOW_MEM_OTHER,               "other")               \
  KIND(  GLOBAL_MEM,        1, REALM_SHADOW_MEM_GLOBAL,              "global")              \
  KIND(  SYSTEM_MEM,        2, REALM_SHADOW_MEM_SYSTEM,              "system")              \
  KIND(  REGDMA_MEM,        3, REALM_SHADOW_MEM_REGDMA,              "regdma")              \
  KIND(  SOCKET_MEM,        4, REALM_SHADOW_MEM_SOCKET,              "socket")              \
  KIND(  Z_COPY_MEM,        5, REALM_SHADOW_MEM_ZERO_COPY,           "zero_copy")           \
  KIND(  GPU_FB_MEM,        6, REALM_SHADOW_MEM_FRAMEBUFFER,         "framebuffer")         \
  KIND(  DISK_MEM,          7, REALM_SHADOW_MEM_DISK,                "disk")                \
  FOLDED(HDF_MEM,           8, REALM_SHADOW_MEM_DISK,                0)                     \
  FOLDED(FILE_MEM,          9, REALM_SHADOW_MEM_DISK,                0)                     \
  FOLDED(LEVEL3_CACHE,     10, REALM_SHADOW_MEM_OTHER,               0)                     \
  FOLDED(LEVEL2_CACHE,     11, REALM_SHADOW_MEM_OTHER,               0)                     \
  FOLDED(LEVEL1_CACHE,     12, REALM_SHADOW_MEM_OTHER,               0)                     \
  KIND(  GPU_MANAGED_MEM,  13, REALM_SHADOW_MEM_MANAGED,             "managed")             \
  KIND(  GPU_DYNAMIC_MEM,  14, REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER, "dynamic_framebuffer")
/* clang-format on */

#ifdef __cplusplus
#include "realm_shadow/layers.h"
REALM_SHADOW_HEADER_OF_LAYER(hooks);
#endif

#endif /* REALM_SHADOW_MEMORY_KINDS_H_ */
