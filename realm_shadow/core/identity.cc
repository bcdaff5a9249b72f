// Names of allocation kinds, and the one identity text.
#include "realm_shadow/core/identity.h"

#include "realm_shadow/core/text.h"

namespace realm_shadow {

const char* AllocationKindName(AllocationKind kind) {
  static constexpr const char* kNames[] = {"unknown", "region_instance",
      "deferred_buffer", "deferred_value", "future", "pool_backing",
      "pool_suballocation", "external"};
  return EnumName<kAllocationKindCount>(kNames, kind, "unknown");
}

std::string IdentityText(const Identity& identity, bool with_kind) {
  std::string text;
  if (with_kind) {
    text += ' ';
    text += AllocationKindName(identity.kind);
  }
  for (const auto& [key, value] : identity.attributes) {
    if (!IsPrintedAttribute(key)) continue;
    text += ' ';
    text += OneLine(key);
    text += '=';
    text += OneLine(value);
  }
  return text;
}

}  // namespace realm_shadow
