// realm_shadow/core/memory_kind.h - the kinds of Realm memory, as the
// recorder registers them and every picture names them, and Realm's names
// and numbers of them.
//
// Layer core.  The values are hooks.h's realm_shadow_memory_kind and part of
// the dump format: append only.  Every name and number here comes from the
// one table, realm_shadow/memory_kinds.h, which realm_sites.h expands inside
// Realm too: what Realm registers, what its log says and what these
// functions answer cannot disagree.  None allocates; each is at most 15
// compares.
#ifndef REALM_SHADOW_CORE_MEMORY_KIND_H_
#define REALM_SHADOW_CORE_MEMORY_KIND_H_

#include <cstdint>
#include <string_view>

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

// Our name of a kind: "system", "framebuffer", ...; "other" for a value
// that is none of them.
const char* MemoryKindName(MemoryKind kind);
// Our names and Realm's (SYSTEM_MEM, GPU_FB_MEM, HDF_MEM, ...), in any
// case, to the kind the table records; kOther for a name it does not hold.
MemoryKind ParseMemoryKind(std::string_view name);
// Realm's name of a Memory::Kind number (what Legion Spy prints: "Memory M
// C 2" is SYSTEM_MEM); "" for a number Realm does not define.
const char* RealmMemoryKindName(uint64_t number);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_CORE_MEMORY_KIND_H_
