// tests/render/text_helpers.h - what the render tests share: ContainsText
// (tests/common/contains_text.h) and the identities and failures they build
// pictures from (the allocations and snapshots come from
// tests/analysis/snapshot_builder.h).
#ifndef REALM_SHADOW_TESTS_RENDER_TEXT_HELPERS_H_
#define REALM_SHADOW_TESTS_RENDER_TEXT_HELPERS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "realm_shadow/core/identity.h"
#include "realm_shadow/core/snapshot.h"
#include "tests/common/contains_text.h"

namespace realm_shadow::testing {

inline Identity MakeIdentity(
    uint32_t id, AllocationKind kind,
    std::vector<std::pair<std::string, std::string>> attributes) {
  Identity identity;
  identity.id = id;
  identity.kind = kind;
  identity.attributes = std::move(attributes);
  return identity;
}

inline Failure MakeFailure(uint64_t instance, uint64_t size,
                           uint64_t alignment) {
  Failure f;
  f.instance = instance;
  f.size = size;
  f.alignment = alignment;
  return f;
}

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_RENDER_TEXT_HELPERS_H_
