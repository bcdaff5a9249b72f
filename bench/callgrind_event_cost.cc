// bench/callgrind_event_cost.cc - instructions per hot-path event, for
// scripts/check-instructions.
//
// Usage: realm_shadow_event_cost [hooks|heap] [serialized|concurrent]
//                                [LIVE [BATCHES]]
// Registers one memory and makes about 100k events (release + allocation
// pairs, plus the fill of LIVE allocations, 1024 by default), draining the
// journal between BATCHES (12) batches of 8192 events, outside the counted
// code.  The same run counted in the consumer instead
// (--toggle-collect='realm_shadow::DrainAll()') gives the consumer's
// instructions per event, with REALM_SHADOW_HISTORY=0 and without: what
// history adds to it (docs/benchmarks.md).  `hooks`: the event hooks
// (realm_shadow_released / realm_shadow_allocated), as a decision-point
// integration calls them.  `heap`: a HeapObserver in a heap, as Realm's
// BasicRangeAllocator carries it (Removed / Placed, with their inline test
// of the observer, in the noinline functions HeapRemoved / HeapPlaced,
// which call realm_shadow_heap_removed / _placed).
// scripts/check-instructions runs it under
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=F ...
// for the two hook functions F of the mode, so that exactly the
// instructions executed inside them (and anything they call) are counted,
// and divides by the events this program reports ("events").  No event may find its
// journal full (that would count the consumer's work): the program exits 1
// if one did.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <cstring>
#include <map>
#include <vector>

#include "realm_shadow/heap_observer.h"
#include "realm_shadow/hooks.h"
#include "realm_shadow/live/snapshots.h"
#include "tests/sites/realm_stand_ins.h"

namespace {

constexpr uint64_t kSlotBytes = 256;
constexpr int kPairsPerBatch = 4096;  // 8192 events: half a journal
int batches = 12;  // 98304 events
uint64_t fill = 1024;

uint64_t hook_calls = 0;

// The members a HeapObserver needs from its heap; the ranges themselves are
// not kept: only the reports are measured.
realm_shadow::testing::RealmHeapMembers<uint64_t> heap;

extern "C" __attribute__((noinline)) void HeapRemoved(uint64_t tag) {
  heap.shadow_observer.Removed(tag);
}
extern "C" __attribute__((noinline)) void HeapPlaced(uint64_t tag,
                                                     uint64_t first,
                                                     uint64_t size) {
  heap.shadow_observer.Placed(tag, first, size, 256);
}

bool observe_heap = false;

__attribute__((noinline)) void Batch(realm_shadow_memory* m, uint64_t first) {
  for (int i = 0; i < kPairsPerBatch; ++i) {
    const uint64_t slot = (first + i) % fill;
    if (observe_heap) {
      HeapRemoved(slot + 1);
      HeapPlaced(slot + 1, slot * kSlotBytes, kSlotBytes);
    } else {
      realm_shadow_released(m, slot + 1);
      realm_shadow_allocated(m, slot + 1, slot * kSlotBytes, kSlotBytes, 256);
    }
  }
  hook_calls += 2 * kPairsPerBatch;
}

}  // namespace

int main(int argc, char** argv) {
  observe_heap = argc > 1 && std::strcmp(argv[1], "heap") == 0;
  const bool concurrent = argc > 2 && std::strcmp(argv[2], "concurrent") == 0;
  if (argc > 3) fill = std::strtoull(argv[3], nullptr, 10);
  if (argc > 4) batches = std::atoi(argv[4]);
  if (fill == 0 || batches <= 0) {
    std::fprintf(stderr, "usage: %s [hooks|heap] [serialized|concurrent] [LIVE > 0 [BATCHES > 0]]\n", argv[0]);
    return 2;
  }
  unsigned flags = concurrent ? REALM_SHADOW_CONCURRENT : REALM_SHADOW_SERIALIZED;
  if (observe_heap) flags |= REALM_SHADOW_HEAP_OBSERVED;
  realm_shadow_memory* m = realm_shadow::RegisterMemory(
      0x1e00000000000001ull, realm_shadow::MemoryKind::kSystem,
      fill * kSlotBytes, "event-cost", flags);
  if (m == nullptr) {
    std::fprintf(stderr, "tracking is off (REALM_SHADOW=0?)\n");
    return 2;
  }
  heap.shadow_observer.Attach(m, REALM_SHADOW_HEAP_CURRENT, heap);
  for (uint64_t slot = 0; slot < fill; ++slot) {
    // The fill goes through the mode's own hooks: every event counted in
    // "events" runs inside a function callgrind collects.
    if (observe_heap)
      HeapPlaced(slot + 1, slot * kSlotBytes, kSlotBytes);
    else
      realm_shadow_allocated(m, slot + 1, slot * kSlotBytes, kSlotBytes, 256);
    if ((slot + 1) % kPairsPerBatch == 0) realm_shadow::DrainAll();  // a journal holds 16384
  }
  hook_calls += fill;
  realm_shadow::DrainAll();
  for (int b = 0; b < batches; ++b) {
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
