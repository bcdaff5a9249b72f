/* tests/common/realm_c_memory_kinds.h - Realm's memory-kind list as
 * realm_c.h spells it (REALM_MEMORY_KINDS and realm_memory_kind_t, the same
 * in Legion 25.03, 25.06 and master; Realm::Memory::Kind is generated from
 * the same list), for tests that compile realm_sites.h's enum mapping and
 * its check of the kind table's numbers without Realm, and as the oracle
 * the table (realm_shadow/memory_kinds.h) is checked against.  Include it
 * before realm_sites.h, as Realm's mem_impl.h has realm_c.h.  C and C++.
 *
 * With REALM_SHADOW_MOVED_KINDS defined, HDF_MEM and FILE_MEM trade places:
 * a Realm whose kinds moved, which realm_sites.h must refuse. */
#ifndef REALM_SHADOW_TESTS_COMMON_REALM_C_MEMORY_KINDS_H_
#define REALM_SHADOW_TESTS_COMMON_REALM_C_MEMORY_KINDS_H_

#ifdef REALM_SHADOW_MOVED_KINDS
#define REALM_SHADOW_FILE_KINDS_(__op__) __op__(FILE_MEM, "") __op__(HDF_MEM, "")
#else
#define REALM_SHADOW_FILE_KINDS_(__op__) __op__(HDF_MEM, "") __op__(FILE_MEM, "")
#endif

#define REALM_MEMORY_KINDS(__op__)                                        \
  __op__(NO_MEMKIND, "") __op__(GLOBAL_MEM, "") __op__(SYSTEM_MEM, "")    \
  __op__(REGDMA_MEM, "") __op__(SOCKET_MEM, "") __op__(Z_COPY_MEM, "")    \
  __op__(GPU_FB_MEM, "") __op__(DISK_MEM, "")                             \
  REALM_SHADOW_FILE_KINDS_(__op__)                                        \
  __op__(LEVEL3_CACHE, "") __op__(LEVEL2_CACHE, "")                       \
  __op__(LEVEL1_CACHE, "") __op__(GPU_MANAGED_MEM, "")                    \
  __op__(GPU_DYNAMIC_MEM, "")

typedef enum realm_memory_kind_t {
#define C_ENUMS(name, desc) name,
  REALM_MEMORY_KINDS(C_ENUMS)
#undef C_ENUMS
} realm_memory_kind_t;

#endif /* REALM_SHADOW_TESTS_COMMON_REALM_C_MEMORY_KINDS_H_ */
