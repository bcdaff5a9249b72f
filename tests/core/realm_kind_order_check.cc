/* tests/core/realm_kind_order_check.cc - compiled by ctest, never built:
 * realm_sites.h after a realm_c.h whose Memory::Kind moved must not compile
 * (the kind table's numbers are checked where Realm includes it).  Compiled
 * as C++17 (what Realm is), C11 and C99 (the hooks layer is C), each once
 * with Realm's order and once with HDF_MEM and FILE_MEM swapped
 * (-DREALM_SHADOW_MOVED_KINDS), which must fail naming the moved kind. */
#include "tests/common/realm_c_memory_kinds.h"

#define REALM_SHADOW_ENABLED 1
#include "realm_shadow/realm_sites.h"

int realm_shadow_kind_order_check(void) {
  return realm_shadow_kind_from_realm(HDF_MEM) == REALM_SHADOW_MEM_DISK;
}
