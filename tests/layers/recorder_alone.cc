// A program that links the recorder and nothing above it: the hooks, the
// registry and the drainer work without the analysis layer (no consumer is
// installed), records are consumed, and a full journal never hangs its
// writer.  If the recorder called the shadow map by name, this would not
// link.
#include <cstdio>

#include "realm_shadow/hooks.h"
#include "realm_shadow/recorder/recorder.h"

int main() {
  realm_shadow_memory* m = realm_shadow::RegisterMemory(
      0x1e00000000000000ull, realm_shadow::MemoryKind::kSystem, 1 << 20,
      "alone", REALM_SHADOW_SERIALIZED, /*journal_events=*/64);
  if (m == nullptr) return 1;
  // 10000 events through a 64-event journal: the writers drain it
  // themselves, into no consumer.
  for (uint64_t i = 0; i < 5000; ++i) {
    realm_shadow_allocated(m, i, 0, 64, 64);
    realm_shadow_released(m, i);
  }
  realm_shadow::DrainAll();
  const realm_shadow::MemoryDescription d = realm_shadow::DescribeMemory(m);
  std::printf("recorder alone: %llu overflows, exact %d\n",
              static_cast<unsigned long long>(d.journal_overflows), d.exact);
  return d.journal_overflows > 0 ? 0 : 1;
}
