// libFuzzer target: arbitrary bytes become an event sequence (any type,
// any ids, offsets and sizes), applied both to the shadow map and to the
// plain reference model; the two pictures must agree after every event
// batch and nothing may crash.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "realm_shadow/analysis/shadow_map.h"
#include "tests/common/snapshot_compare.h"
#include "tests/recorder/reference_model.h"

namespace {

// Small value spaces so that collisions (reuse, overlap, double release)
// are common.
uint64_t Take(const uint8_t*& p, const uint8_t* end, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes && p < end; ++i) v = (v << 8) | *p++;
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace realm_shadow;
  if (size < 2) return 0;
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  const uint64_t first = Take(p, end, 1);
  const uint64_t capacity = 256 + (first >> 1) * 64;
  // The low bit: a heap-observed memory (snapshot.h's second table).
  const bool heap_observed = first & 1;
  ShadowMap map(capacity, false);
  map.set_heap_observed(heap_observed);
  testing::ReferenceMemory reference(capacity, false, heap_observed);
  while (p < end) {
    Event e;
    const uint64_t type = Take(p, end, 1);
    // Mostly valid types, sometimes a malformed one.
    e.type = static_cast<EventType>(type < 240 ? type % kEventTypeCount : type);
    e.instance = Take(p, end, 1) % 24;
    e.offset = Take(p, end, 2) % (capacity + 65);
    if (e.offset == capacity + 64) e.offset = kNoOffset;  // "not placed"
    e.size = Take(p, end, 1) * ((type & 1) ? 1 : 4);
    e.aux = static_cast<uint32_t>(Take(p, end, 1) % 9);
    map.Apply(e);
    reference.Apply(e);
  }
  Snapshot got;
  map.CopyTo(&got);
  const std::string difference = testing::CompareSnapshots(
      got, reference.ToSnapshot(), testing::SnapshotFields::kState);
  if (!difference.empty()) {
    std::fprintf(stderr, "shadow map differs from the reference: %s\n",
                 difference.c_str());
    std::abort();
  }
  return 0;
}
