// realm_shadow/core/memory_kind.cc - the table of realm_shadow/memory_kinds.h,
// expanded for the layers above the hooks.
#include "realm_shadow/core/memory_kind.h"

#include <cstddef>

#include "absl/strings/match.h"
#include "realm_shadow/memory_kinds.h"

namespace realm_shadow {
namespace {

// Each of our kinds is named by exactly one KIND row (memory_kinds.h), and
// MemoryKind has no value without one: checked here, where the names are
// taken from the rows.
#define REALM_SHADOW_KIND_(realm, number, ours, name) ours,
#define REALM_SHADOW_FOLDED_(realm, number, ours, name)
constexpr realm_shadow_memory_kind kNamedKinds[] = {
    REALM_SHADOW_MEMORY_KIND_TABLE(REALM_SHADOW_KIND_, REALM_SHADOW_FOLDED_)};
#undef REALM_SHADOW_KIND_
#undef REALM_SHADOW_FOLDED_

constexpr bool EachKindNamedOnce() {
  constexpr size_t n = sizeof kNamedKinds / sizeof kNamedKinds[0];
  for (size_t value = 0; value < n; ++value) {
    size_t rows = 0;
    for (realm_shadow_memory_kind kind : kNamedKinds) rows += kind == value;
    if (rows != 1) return false;
  }
  return n == static_cast<size_t>(MemoryKind::kGlobal) + 1;
}
static_assert(EachKindNamedOnce(),
              "realm_shadow/memory_kinds.h: each of our kinds, 0 to kGlobal, "
              "is the kind of exactly one KIND row");

}  // namespace

const char* MemoryKindName(MemoryKind kind) {
  switch (static_cast<realm_shadow_memory_kind>(kind)) {
#define REALM_SHADOW_KIND_(realm, number, ours, name) \
  case ours:                                          \
    return name;
#define REALM_SHADOW_FOLDED_(realm, number, ours, name)
    REALM_SHADOW_MEMORY_KIND_TABLE(REALM_SHADOW_KIND_, REALM_SHADOW_FOLDED_)
#undef REALM_SHADOW_KIND_
#undef REALM_SHADOW_FOLDED_
  }
  return MemoryKindName(MemoryKind::kOther);
}

MemoryKind ParseMemoryKind(std::string_view name) {
  const absl::string_view n(name.data(), name.size());  // Debian's Abseil has its own
#define REALM_SHADOW_KIND_(realm, number, ours, our_name)                   \
  if (absl::EqualsIgnoreCase(n, #realm) || absl::EqualsIgnoreCase(n, our_name)) \
    return static_cast<MemoryKind>(ours);
#define REALM_SHADOW_FOLDED_(realm, number, ours, our_name) \
  if (absl::EqualsIgnoreCase(n, #realm)) return static_cast<MemoryKind>(ours);
  REALM_SHADOW_MEMORY_KIND_TABLE(REALM_SHADOW_KIND_, REALM_SHADOW_FOLDED_)
#undef REALM_SHADOW_KIND_
#undef REALM_SHADOW_FOLDED_
  return MemoryKind::kOther;
}

const char* RealmMemoryKindName(uint64_t number) {
  switch (number) {
#define REALM_SHADOW_ROW_(realm, realm_number, ours, name) \
  case realm_number:                                       \
    return #realm;
    REALM_SHADOW_MEMORY_KIND_TABLE(REALM_SHADOW_ROW_, REALM_SHADOW_ROW_)
#undef REALM_SHADOW_ROW_
  }
  return "";
}

}  // namespace realm_shadow
