// realm_shadow/core/memory_kind.h - the kinds of Realm memory, as the
// recorder registers them and every picture names them.
//
// Layer core.  The values are hooks.h's realm_shadow_memory_kind and part of
// the dump format: append only.
#ifndef REALM_SHADOW_CORE_MEMORY_KIND_H_
#define REALM_SHADOW_CORE_MEMORY_KIND_H_

#include <cstdint>
#include <string>

#include "realm_shadow/hooks.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(core);

enum class MemoryKind : uint8_t {
  kOther = REALM_SHADOW_MEM_OTHER,
  kSystem = REALM_SHADOW_MEM_SYSTEM,
  kRegdma = REALM_SHADOW_MEM_REGDMA,
  kSocket = REALM_SHADOW_MEM_SOCKET,
  kFramebuffer = REALM_SHADOW_MEM_FRAMEBUFFER,
  kZeroCopy = REALM_SHADOW_MEM_ZERO_COPY,
  kManaged = REALM_SHADOW_MEM_MANAGED,
  kDynamicFramebuffer = REALM_SHADOW_MEM_DYNAMIC_FRAMEBUFFER,
  kDisk = REALM_SHADOW_MEM_DISK,
  kGlobal = REALM_SHADOW_MEM_GLOBAL,
};
const char* MemoryKindName(MemoryKind kind);  // "system", "framebuffer", ...
// Accepts our names and Realm's (SYSTEM_MEM, GPU_FB_MEM, ...); kOther if not.
MemoryKind ParseMemoryKind(const std::string& name);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_CORE_MEMORY_KIND_H_
