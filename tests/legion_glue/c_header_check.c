/* legion_glue/realm_hooks.h compiled as C with tracking on: every helper
 * must be valid C99 (no C++ in the header). */
#define REALM_SHADOW_ENABLED 1
#include "legion_glue/realm_hooks.h"

int realm_shadow_c_header_check(realm_shadow_memory *m) {
  realm_shadow_piece pieces[2] = {{1, 0, 64, 32}, {2, 64, 64, 32}};
  realm_shadow_site_attempt_deferrable_allocation(
      m, 1, 64, 32, REALM_SHADOW_ALLOC_INSTANT_SUCCESS, 0);
  realm_shadow_site_redistrict_applied(m, 1, 2, 2, pieces);
  return realm_shadow_kind_from_realm_name("SYSTEM_MEM") ==
         REALM_SHADOW_MEM_SYSTEM;
}
