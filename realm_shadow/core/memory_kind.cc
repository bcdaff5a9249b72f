// Names of memory kinds, ours and Realm's.
#include "absl/strings/ascii.h"
#include "realm_shadow/core/memory_kind.h"


namespace realm_shadow {

const char* MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kOther: return "other";
    case MemoryKind::kSystem: return "system";
    case MemoryKind::kRegdma: return "regdma";
    case MemoryKind::kSocket: return "socket";
    case MemoryKind::kFramebuffer: return "framebuffer";
    case MemoryKind::kZeroCopy: return "zero_copy";
    case MemoryKind::kManaged: return "managed";
    case MemoryKind::kDynamicFramebuffer: return "dynamic_framebuffer";
    case MemoryKind::kDisk: return "disk";
    case MemoryKind::kGlobal: return "global";
  }
  return "other";
}

MemoryKind ParseMemoryKind(const std::string& name) {
  const std::string n = absl::AsciiStrToLower(name);
  if (n == "system" || n == "system_mem") return MemoryKind::kSystem;
  if (n == "regdma" || n == "regdma_mem") return MemoryKind::kRegdma;
  if (n == "socket" || n == "socket_mem") return MemoryKind::kSocket;
  if (n == "framebuffer" || n == "gpu_fb_mem") return MemoryKind::kFramebuffer;
  if (n == "zero_copy" || n == "z_copy_mem") return MemoryKind::kZeroCopy;
  if (n == "managed" || n == "gpu_managed_mem") return MemoryKind::kManaged;
  if (n == "dynamic_framebuffer" || n == "gpu_dynamic_mem")
    return MemoryKind::kDynamicFramebuffer;
  if (n == "disk" || n == "disk_mem" || n == "file_mem") return MemoryKind::kDisk;
  if (n == "global" || n == "global_mem") return MemoryKind::kGlobal;
  return MemoryKind::kOther;
}

}  // namespace realm_shadow
