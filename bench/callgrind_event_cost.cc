// bench/callgrind_event_cost.cc - instructions per hot-path event, for
// scripts/check-instructions.
//
// Registers one caller-serialized memory and makes about 100k hook calls
// (released + allocated pairs, plus the fill), draining the journal between
// batches of 8192 events, outside the hooks.  scripts/check-instructions
// runs it under
//   valgrind --tool=callgrind --collect-atstart=no
//            --toggle-collect=realm_shadow_allocated
//            --toggle-collect=realm_shadow_released
// so that exactly the instructions executed inside the two hooks (and
// anything they call) are counted, and divides by the hook calls this
// program reports ("events").  No hook may find its journal full (that
// would count the consumer's work): the program exits 1 if one did.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "realm_shadow/hooks.h"
#include "realm_shadow/recorder/tracker.h"

namespace {

constexpr uint64_t kSlotBytes = 256;
constexpr int kPairsPerBatch = 4096;  // 8192 events: half a journal
constexpr int kBatches = 12;          // 98304 events
constexpr int kFill = 1024;

uint64_t hook_calls = 0;

__attribute__((noinline)) void Batch(realm_shadow_memory* m, uint64_t first) {
  for (int i = 0; i < kPairsPerBatch; ++i) {
    const uint64_t slot = (first + i) % kFill;
    realm_shadow_released(m, slot + 1);
    realm_shadow_allocated(m, slot + 1, slot * kSlotBytes, kSlotBytes, 256);
  }
  hook_calls += 2 * kPairsPerBatch;
}

}  // namespace

int main() {
  realm_shadow_memory* m = realm_shadow::RegisterMemory(
      0x1e00000000000001ull, realm_shadow::MemoryKind::kSystem,
      1024 * kSlotBytes, "event-cost", REALM_SHADOW_SERIALIZED);
  if (m == nullptr) {
    std::fprintf(stderr, "tracking is off (REALM_SHADOW=0?)\n");
    return 2;
  }
  for (uint64_t slot = 0; slot < kFill; ++slot)
    realm_shadow_allocated(m, slot + 1, slot * kSlotBytes, kSlotBytes, 256);
  hook_calls += kFill;
  realm_shadow::DrainAll();
  for (int b = 0; b < kBatches; ++b) {
    Batch(m, static_cast<uint64_t>(b) * kPairsPerBatch);
    realm_shadow::DrainAll();
  }
  const realm_shadow::Snapshot s = realm_shadow::TakeSnapshot(m);
  std::printf("events %llu\njournal_overflows %llu\nlive %zu\n",
              static_cast<unsigned long long>(hook_calls),
              static_cast<unsigned long long>(s.counters.journal_overflows),
              s.allocations.size());
  return s.counters.journal_overflows == 0 ? 0 : 1;
}
