// Writers and snapshotting threads at once.  Every snapshot must be the
// state after a prefix of the memory's events: each writer thread owns its
// own instances and address range and follows a fixed pattern (allocate
// c = 0, 1, 2, ...; once K are live, release the oldest before the next),
// so the part of a snapshot that belongs to thread t tells exactly how many
// of t's events it contains, and those counts must add up to the
// snapshot's sequence number.  Run with caller-serialized writers (a mutex
// around each hook, as Realm's allocator mutex) and with unserialized ones.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "realm_shadow/hooks.h"
#include "realm_shadow/live/snapshots.h"

#if defined(__SANITIZE_THREAD__)
#define REALM_SHADOW_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define REALM_SHADOW_UNDER_TSAN 1
#endif
#endif

namespace realm_shadow {
namespace {

#ifdef REALM_SHADOW_UNDER_TSAN
constexpr uint64_t kEventsPerWriter = 20000;
#else
constexpr uint64_t kEventsPerWriter = 300000;
#endif
constexpr uint64_t kLiveWindow = 48;  // K
constexpr uint64_t kSlotBytes = 256;
constexpr uint64_t kRegionBytes = kLiveWindow * kSlotBytes;

uint64_t InstanceOf(uint64_t thread, uint64_t c) { return (thread << 40) | c; }
uint64_t OffsetOf(uint64_t thread, uint64_t c) {
  return thread * kRegionBytes + (c % kLiveWindow) * kSlotBytes;
}
uint64_t SizeOf(uint64_t c) { return 1 + (c * 37) % (kSlotBytes - 1); }

void Writer(realm_shadow_memory* m, uint64_t thread, std::mutex* serialize) {
  uint64_t next = 0, oldest = 0, done = 0;
  while (done < kEventsPerWriter) {
    std::unique_lock<std::mutex> lock;
    if (serialize) lock = std::unique_lock<std::mutex>(*serialize);
    if (next - oldest == kLiveWindow) {
      realm_shadow_released(m, InstanceOf(thread, oldest++));
    } else {
      realm_shadow_allocated(m, InstanceOf(thread, next), OffsetOf(thread, next),
                             SizeOf(next), 1);
      ++next;
    }
    ++done;
  }
}

// Events of thread t in a picture whose live part for t is [lo, hi):
// hi allocations and lo releases.  Empty string when consistent.
std::string Check(const Snapshot& s, uint64_t threads,
                  std::vector<uint64_t>* last_counts) {
  std::vector<uint64_t> lo(threads, UINT64_MAX), hi(threads, 0), count(threads, 0);
  for (const Allocation& a : s.allocations) {
    const uint64_t t = a.instance >> 40;
    const uint64_t c = a.instance & ((uint64_t{1} << 40) - 1);
    if (t >= threads) return "foreign instance";
    if (a.offset != OffsetOf(t, c) || a.size != SizeOf(c))
      return "allocation " + std::to_string(c) + " of thread " +
             std::to_string(t) + " has the wrong range";
    lo[t] = std::min(lo[t], c);
    hi[t] = std::max(hi[t], c + 1);
    ++count[t];
  }
  uint64_t total = 0;
  for (uint64_t t = 0; t < threads; ++t) {
    uint64_t events = 0;
    if (count[t] == 0) {
      // Only the very beginning has nothing live for t.
      events = 0;
    } else {
      if (hi[t] - lo[t] != count[t]) return "live set of a thread is not a prefix state";
      if (count[t] != kLiveWindow && lo[t] != 0 && count[t] != kLiveWindow - 1)
        return "live window size impossible";
      events = hi[t] + lo[t];
    }
    if (events < (*last_counts)[t]) return "a thread's events went backwards";
    (*last_counts)[t] = events;
    total += events;
  }
  if (total != s.sequence)
    return "events seen " + std::to_string(total) + " != sequence " +
           std::to_string(s.sequence);
  return "";
}

void RunStress(bool serialized, size_t journal_events, bool drainer) {
  ResetTrackerForTesting();
  const uint64_t threads = 3;
  realm_shadow_memory* m = RegisterMemory(
      0x1e00000000000007ull, MemoryKind::kDynamicFramebuffer,
      threads * kRegionBytes, "stress",
      serialized ? REALM_SHADOW_SERIALIZED : REALM_SHADOW_CONCURRENT,
      journal_events);
  ASSERT_NE(m, nullptr);
  if (drainer) StartDrainer(100);
  std::mutex serialize;
  std::atomic<bool> writing{true};
  std::vector<std::string> errors;
  std::atomic<uint64_t> snapshots{0};
  std::thread snapshotter([&] {
    std::vector<uint64_t> last(threads, 0);
    while (writing.load()) {
      const Snapshot s = TakeSnapshot(m);
      const std::string e = Check(s, threads, &last);
      if (!e.empty() && errors.size() < 5) errors.push_back(e);
      snapshots.fetch_add(1);
    }
  });
  std::vector<std::thread> writers;
  for (uint64_t t = 0; t < threads; ++t)
    writers.emplace_back(Writer, m, t, serialized ? &serialize : nullptr);
  for (auto& w : writers) w.join();
  writing = false;
  snapshotter.join();
  StopDrainer();
  for (const auto& e : errors) ADD_FAILURE() << e;
  const Snapshot final_state = TakeSnapshot(m);
  EXPECT_EQ(final_state.sequence, threads * kEventsPerWriter);
  std::vector<uint64_t> last(threads, 0);
  EXPECT_EQ(Check(final_state, threads, &last), "");
  EXPECT_EQ(final_state.anomalies.size(), 0u);
  EXPECT_GT(snapshots.load(), 0u);
  ::testing::Test::RecordProperty("snapshots", static_cast<int>(snapshots.load()));
}

TEST(Stress, SerializedWritersWithSnapshotsInALoop) { RunStress(true, 1 << 14, false); }
TEST(Stress, SerializedWritersTinyJournalAndDrainer) { RunStress(true, 64, true); }
TEST(Stress, ConcurrentWritersWithSnapshotsInALoop) { RunStress(false, 1 << 14, false); }
TEST(Stress, ConcurrentWritersTinyJournalAndDrainer) { RunStress(false, 64, true); }

}  // namespace
}  // namespace realm_shadow
