// Without REALM_SHADOW_ENABLED the helpers call empty inline hooks: this
// program links without the library (nothing to resolve) and does nothing.
#include "legion_glue/realm_hooks.h"

#include <cstdio>

int main() {
  static_assert(REALM_SHADOW_ENABLED == 0, "this check builds without tracking");
  realm_shadow_memory* m = realm_shadow_site_register_managed_memory(
      0x1e00000000000000ull, REALM_SHADOW_MEM_SYSTEM, 1 << 20, "sys", 1);
  if (m != nullptr) {
    std::puts("registration returned a handle with tracking compiled out");
    return 1;
  }
  realm_shadow_site_attempt_deferrable_allocation(
      m, 1, 64, 32, REALM_SHADOW_ALLOC_INSTANT_SUCCESS, 0);
  realm_shadow_site_release_applied(m, 1);
  realm_shadow_site_dynamic_fb_allocated(m, 2, 0x7f0000000000ull, 256);
  // The kind mapping is plain C and works either way.
  return realm_shadow_kind_from_realm_name("GPU_FB_MEM") ==
                 REALM_SHADOW_MEM_FRAMEBUFFER
             ? 0
             : 1;
}
