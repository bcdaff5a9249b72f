/* realm_shadow/realm_sites.h compiled as C with tracking on: its C part
 * must be valid C99 (the C++ part is behind __cplusplus). */
#define REALM_SHADOW_ENABLED 1
#include "realm_shadow/realm_sites.h"

int realm_shadow_c_header_check(realm_shadow_memory *m) {
  realm_shadow_site_dynamic_fb_allocated(m, 1, 0x7f0000000000ull, 64);
  realm_shadow_site_dynamic_fb_released(m, 1);
  return realm_shadow_kind_from_realm_name(realm_shadow_realm_kind_name(2)) ==
         REALM_SHADOW_MEM_SYSTEM;
}
