// Names of allocation kinds, and the one identity text.
#include "realm_shadow/core/identity.h"

#include "realm_shadow/core/text.h"

namespace realm_shadow {

const char* AllocationKindName(AllocationKind kind) {
  switch (kind) {
    case AllocationKind::kUnknown: return "unknown";
    case AllocationKind::kRegionInstance: return "region_instance";
    case AllocationKind::kDeferredBuffer: return "deferred_buffer";
    case AllocationKind::kDeferredValue: return "deferred_value";
    case AllocationKind::kFuture: return "future";
    case AllocationKind::kPoolBacking: return "pool_backing";
    case AllocationKind::kPoolSubAllocation: return "pool_suballocation";
    case AllocationKind::kExternal: return "external";
  }
  return "unknown";
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
