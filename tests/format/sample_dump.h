// tests/format/sample_dump.h - a small dump that sets every field of the
// format to a distinct value, for the round-trip, corruption and JSON tests
// and the fuzz seed corpus.
#ifndef REALM_SHADOW_TESTS_DUMP_SAMPLE_DUMP_H_
#define REALM_SHADOW_TESTS_DUMP_SAMPLE_DUMP_H_

#include <string>

#include "realm_shadow/analysis/history_recorder.h"
#include "realm_shadow/analysis/shadow_map.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/analysis/history_cursor.h"

namespace realm_shadow {
namespace testing_dump {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kFbId = 0x1e00000000000000ull;
inline constexpr uint64_t kSysId = 0x1e00000000000001ull;
inline constexpr uint64_t kDynId = 0x1e00000000000007ull;

inline Allocation MakeAllocation(uint64_t instance, uint64_t offset,
                                 uint64_t size, uint8_t alignment_log2,
                                 AllocationKind kind, uint32_t identity = 0,
                                 AllocationState state = AllocationState::kLive,
                                 uint8_t flags = 0) {
  return Allocation{offset, size, instance, identity, alignment_log2, state,
                    flags, kind};
}

// A 1 MiB framebuffer with two holes ([4K,8K) and [12K,1M) minus a pool),
// a system memory of unknown capacity, and an addressed (dynamic
// framebuffer) memory.
inline DumpFile SampleDump() {
  DumpFile d;
  d.node = 3;
  d.created_unix_ns = 1732890000123456789ull;
  d.source = "tracker";
  d.notes = {"capacity of system memory unknown", "second \"note\"\n"};

  Snapshot fb;
  fb.memory_id = kFbId;
  fb.kind = MemoryKind::kFramebuffer;
  fb.capacity = 1024 * kKiB;
  fb.node = 3;
  fb.name = "GPU0 FB \"main\" \xce\xbb-\xe2\x82\xac";  // quotes, lambda, euro
  fb.sequence = 42;
  fb.allocations = {
      MakeAllocation(0x4000000000000001ull, 0, 4 * kKiB, 8,
                     AllocationKind::kRegionInstance, 1, AllocationState::kLive,
                     kPinned),
      MakeAllocation(0x4000000000000002ull, 8 * kKiB, 4 * kKiB, 12,
                     AllocationKind::kFuture, 0,
                     AllocationState::kReleasePending, kWasDeferred),
      MakeAllocation(0x4000000000000003ull, 16 * kKiB, 16 * kKiB, 6,
                     AllocationKind::kDeferredBuffer, 2,
                     AllocationState::kReleaseReady, kFromRedistrict),
  };
  PendingRequest p;
  p.instance = 0x4000000000000009ull;
  p.size = 2048 * kKiB;
  p.alignment = 256;
  p.planned_offset = kNoOffset;
  p.sequence = 40;
  p.identity = 2;
  p.flags = 1;
  fb.pending.push_back(p);
  p.instance = 0x400000000000000aull;
  p.size = 1;
  p.planned_offset = 64 * kKiB;
  p.identity = 0;
  p.flags = 0;
  fb.pending.push_back(p);
  fb.reservations = {{7, 512 * kKiB, 64 * kKiB, 5}, {8, kNoOffset, kKiB, 6}};
  Failure f;
  f.instance = 0x400000000000000bull;
  f.size = 1000 * kKiB;
  f.alignment = 4096;
  f.sequence = 41;
  f.eventual = true;
  f.identity = 1;
  fb.failures.push_back(f);
  f.instance = 0x400000000000000cull;
  f.size = 0;  // a failure never requested (anomaly)
  f.eventual = false;
  f.identity = 0;
  fb.failures.push_back(f);
  Anomaly an;
  an.kind = AnomalyKind::kOverlap;
  an.sequence = 17;
  an.instance = 0x4000000000000005ull;
  an.offset = 100;
  an.size = 200;
  an.other_instance = 0x4000000000000001ull;
  fb.anomalies.push_back(an);
  an.kind = AnomalyKind::kTrackingPaused;
  an.offset = kNoOffset;
  fb.anomalies.push_back(an);
  for (int t = 0; t < kEventTypeCount; ++t) fb.counters.by_type[t] = 100 + t;
  for (int k = 0; k < kAnomalyKindCount; ++k)
    fb.counters.anomalies[k] = 200 + k;
  fb.counters.failures = 2;
  fb.counters.cancelled = 3;
  fb.counters.peak_used = 900 * kKiB;
  fb.counters.journal_overflows = 1;
  Identity id1;
  id1.id = 1;
  id1.kind = AllocationKind::kRegionInstance;
  id1.attributes = {{"fields", "density,velocity"},
                    {"provenance", "stencil.py:42 \"halo\"\t\\"},
                    {"regions", "lr[0] \xf0\x9f\x98\x80"}};  // emoji
  Identity id2;
  id2.id = 2;
  id2.kind = AllocationKind::kDeferredBuffer;
  id2.attributes = {{"creator", "task \x01\x7f bad \xff\xfe utf8"}};
  fb.identities = {id1, id2};

  Snapshot sys;
  sys.memory_id = kSysId;
  sys.kind = MemoryKind::kSystem;
  sys.capacity = 0;
  sys.capacity_known = false;
  sys.node = 3;
  sys.name = "";
  sys.sequence = 0;
  sys.exact = false;

  Snapshot dyn;
  dyn.memory_id = kDynId;
  dyn.kind = MemoryKind::kDynamicFramebuffer;
  dyn.capacity = 1ull << 40;
  dyn.addressed = true;
  dyn.node = 3;
  dyn.name = "GPU0 dynamic";
  dyn.sequence = 2;
  dyn.allocations = {MakeAllocation(0x4000000000000020ull, 0x7f0000000000ull,
                                    4096, 12, AllocationKind::kExternal)};
  d.memories = {fb, sys, dyn};
  // The pools section: one pool inside the framebuffer's first allocation,
  // one sub-allocation naming an identity.
  Pool pool;
  pool.pool = 0x4000000000000001ull;
  pool.memory_id = kFbId;
  pool.backing_instance = 0x4000000000000001ull;
  pool.offset = 0;
  pool.size = 4 * kKiB;
  pool.suballocations = {{0x5000000000000001ull, 0, 1024, 2},
                         {0x5000000000000002ull, 2048, 512, 0}};
  d.pools = {pool};
  return d;
}

// A dump of one heap-observed framebuffer with a history that sets every
// field of the hist section: a 6-event window over 24 events, so that the
// base moved and the checkpoints fall every 1-2 events, one of them inside
// a heap_replaced group; failed, early-released and released ids in the
// checkpoints; two identities; times that go back once (a log's threads).
inline DumpFile SampleHistoryDump() {
  DumpFile d;
  d.node = 2;
  d.created_unix_ns = 1732890000999000000ull;
  d.source = "tracker";
  ShadowMap map(64 * kKiB, false);
  map.set_heap_observed(true);
  HistoryRecorder recorder(6, map);
  constexpr uint32_t kPending = ReleaseAux(ReleaseState::kPending);
  constexpr uint32_t kReady = ReleaseAux(ReleaseState::kReady);
  const Event events[] = {
      {EventType::kHeapPlaced, 1, 0, 4096, 64},
      {EventType::kHeapPlaced, 2, 4096, 4096, 64},
      {EventType::kAttachIdentity, 1, 7, 1, 1},
      {EventType::kRequestFailed, 3, 0, 1 << 20, 64},
      {EventType::kReleaseRequested, 9, 0, 0, kReady},  // early release
      {EventType::kHeapRemoved, 2},
      {EventType::kFuturePlaced, 4, 8192, 2048, 64},
      {EventType::kAttachIdentity, 4, 8, 0, 2},
      {EventType::kReleaseRequested, 1, 0, 0, kPending},
      {EventType::kReserved, 30, kNoOffset, 512, 0},
      {EventType::kHeapRemoved, 5},
      {EventType::kHeapPlaced, 6, 16384, 100, 8},
      {EventType::kReleaseRequested, 6, 0, 0, kReady},
      {EventType::kHeapRemoved, 6},
      {EventType::kReleased, 3},
      {EventType::kRequestFailed, 8, 1, 1 << 20, 64},  // eventual
      {EventType::kHeapReplaced, 0, 0, 0, 3},
      {EventType::kHeapPlaced, 1, 0, 4096, 64},
      {EventType::kHeapPlaced, 5, 4096, 1024, 64},
      {EventType::kHeapPlaced, 4, 8192, 2048, 64},
      {EventType::kHeapPlaced, 7, 20000, 300, 4},
      {EventType::kFutureReset},
      {EventType::kHeapPlaced, 9, 30000, 10, 1},
      {EventType::kHeapRemoved, 77},  // unknown: an anomaly
      {EventType::kReservationEnded, 30},
  };
  int64_t time = 1000;
  for (const Event& e : events) {
    recorder.Apply(&map, &e, 1, time);
    time = time == 5000 ? 4000 : time + 1000;  // once backwards
  }
  MemoryHistory h;
  recorder.Export(&h);
  h.memory_id = kFbId;
  h.node = 2;
  h.clock_origin_unix_ns = 1732890000000000000ull;
  for (HistoryCheckpoint& c : h.checkpoints) {
    c.state.memory_id = kFbId;
    c.state.kind = MemoryKind::kFramebuffer;
    c.state.node = 2;
    c.state.name = "GPU0 FB";
  }
  for (uint32_t id : {7u, 8u}) {
    Identity identity;
    identity.id = id;
    identity.kind = id == 7 ? AllocationKind::kRegionInstance
                            : AllocationKind::kDeferredBuffer;
    identity.attributes = {{"region", "r" + std::to_string(id)}};
    h.identities.push_back(identity);
  }
  d.memories.push_back(StateAt(h, h.end_sequence()).value());
  d.histories.push_back(h);
  return d;
}

}  // namespace testing_dump
}  // namespace realm_shadow

#endif  // REALM_SHADOW_TESTS_DUMP_SAMPLE_DUMP_H_
