// tests/whatif/fragmented_run.h - the fragmentation failure of
// replay_test.cc's FragmentedRun, made by the tracker: six allocations
// (ids 0x4000000000000001..6) fill 1000 B, two released leave holes of 250
// and 150, a 140 B request takes the first (first fit), and a 250 B request
// (id ...07) then fits no hole though 260 B are free.  Best fit would have
// put 140 in the 150 hole; Realm's size classes bin both holes in
// [128, 256) with the one freed last (150) at the head, so 140 goes there
// and 250 fits.  Shared by the replay's sources test and the remedies test.
#ifndef REALM_SHADOW_TESTS_WHATIF_FRAGMENTED_RUN_H_
#define REALM_SHADOW_TESTS_WHATIF_FRAGMENTED_RUN_H_

#include <cstdint>

#include "realm_shadow/hooks.h"

namespace realm_shadow::testing {

inline void FragmentedRun(realm_shadow_memory* m) {
  const uint64_t id = 0x4000000000000000ull;
  const uint64_t sizes[] = {100, 250, 150, 150, 100, 250};
  uint64_t at = 0;
  for (uint64_t i = 0; i < 6; ++i) {
    realm_shadow_allocated(m, id + i + 1, at, sizes[i], 1);
    at += sizes[i];
  }
  realm_shadow_released(m, id + 2);
  realm_shadow_released(m, id + 4);
  realm_shadow_allocated(m, id + 2, 100, 140, 1);
  realm_shadow_allocation_failed(m, id + 7, 250, 1);
}

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_WHATIF_FRAGMENTED_RUN_H_
