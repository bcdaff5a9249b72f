// tests/recorder/soak.cc - the recorder and the shadow map under long runs:
// writer threads and a snapshotting thread on one memory, every snapshot
// checked against the reference model (reference_model.h) at its sequence
// number.  Not part of CI (scripts/soak runs it; the stress tests run the
// short version of this on every build).
//
//   recorder_soak [--events N] [--mode serialized|concurrent|tiny|heap|all]
//                 [--writers W] [--seed S]
//
// Modes (N events each, W writers):
//   serialized  REALM_SHADOW_SERIALIZED, each hook under one mutex (Realm's
//               allocator mutex), a 16384-event journal;
//   concurrent  REALM_SHADOW_CONCURRENT, hooks from every writer at once;
//   tiny        concurrent, a 64-event journal and the drainer every 100 us:
//               the journal fills constantly, writers apply its backlog;
//   heap        concurrent and heap-observed: heap_observer.h's hooks,
//               groups (split, swap, replace) included.
// Every mode also sends, now and then, a redistrict (or a heap split) of
// 100 pieces: a group larger than the tiny journal, applied in its place.
//
// How a snapshot is checked although the writers' events interleave in an
// order no writer knows: the shadow map is wrapped (recorder.h
// ReplaceJournalConsumerForTesting) so that every record it applies is also
// put in a log, in journal order, under the consumer mutex.  The checker
// takes a snapshot (sequence n), replays the log's first n records into its
// own reference model and compares the two.  The log itself is checked
// against what the writers sent: each writer's events carry its number in
// bits 40-47 of their ids and its own address range, and the checker
// regenerates each writer's stream from its seed, so every record must be
// the next one of exactly one writer (no loss, no duplicate, each writer's
// order kept); the only records no writer sent are the placeholders of the
// groups applied in their place (kNoop).
//
// Prints, per mode: events, snapshots checked, records checked, the
// journal's overflows, wall time; exits 1 at the first difference.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "realm_shadow/live/snapshots.h"
#include "realm_shadow/hooks.h"
#include "tests/common/snapshot_compare.h"
#include "tests/recorder/event_generator.h"
#include "tests/recorder/reference_model.h"
#include "tests/recorder/report_events.h"
#include "realm_shadow/recorder/identity_table.h"

namespace realm_shadow::testing {
namespace {

constexpr uint64_t kRegion = 1 << 16;  // each writer's addresses
constexpr uint64_t kMemoryId = 0x1e000000000000a0ull;
constexpr int kBigGroup = 100;         // pieces of the oversized groups
constexpr uint64_t kBigEvery = 20000;  // writer events between two of them
constexpr size_t kMaxBacklog = size_t{1} << 12;  // log records not yet checked

enum class Mode { kSerialized, kConcurrent, kTiny, kHeap };
const char* ModeName(Mode m) {
  switch (m) {
    case Mode::kSerialized: return "serialized";
    case Mode::kConcurrent: return "concurrent";
    case Mode::kTiny: return "tiny";
    case Mode::kHeap: return "heap";
  }
  return "?";
}

// Whether a record's offset is a place in the memory (shifted into the
// writer's range) rather than a flag or an identity id.
bool OffsetIsAPlace(EventType t) {
  switch (t) {
    case EventType::kAllocated:
    case EventType::kDeferred:
    case EventType::kDeferredCompleted:
    case EventType::kRedistrictPiece:
    case EventType::kReserved:
    case EventType::kHeapPlaced:
    case EventType::kFuturePlaced:
      return true;
    default:
      return false;
  }
}

// One writer's events, deterministic for (writer, seed): the writer sends
// them, the checker regenerates them.  A step is one hook call: an event,
// or a group header with its records.
class Stream {
 public:
  Stream(Mode mode, uint32_t writer, uint64_t seed, uint32_t writers)
      : mode_(mode), writer_(writer), writers_(writers),
        plain_(seed, kRegion, 96, 0.04), heap_(seed, kRegion, 48) {}

  // The next step; *records gets a group's records (or a redistrict's
  // pieces).
  Event Next(std::vector<Event>* records) {
    records->clear();
    if (++count_ % kBigEvery == 0) big_ = 1;
    if (big_ > 0) return Big(records);
    Event e;
    if (mode_ == Mode::kHeap) {
      // A step that no id can tag (a reset of the future heap, an empty
      // swap or replacement) comes from writer 0 only: from two writers the
      // checker could not tell whose it was.
      do {
        e = heap_.Next();
        *records = heap_.Records();
      } while (writer_ != 0 && records->empty() && Untagged(e.type));
    } else {
      e = plain_.Next();
      if (e.type == EventType::kRedistrict)
        for (uint32_t i = 0; i < e.aux; ++i) records->push_back(plain_.Next());
    }
    if (e.type == EventType::kAttachIdentity) e.aux = static_cast<uint32_t>(e.offset);
    Own(&e);
    for (Event& r : *records) Own(&r);
    return e;
  }

 private:
  static bool Untagged(EventType t) {
    return t == EventType::kFutureReset || t == EventType::kHeapSwapped ||
           t == EventType::kHeapReplaced;
  }
  // Ids get the writer's number in bits 40-47; places move into its range.
  void Own(Event* e) const {
    if (!Untagged(e->type)) e->instance |= uint64_t{writer_ + 1} << 40;
    if (OffsetIsAPlace(e->type) && e->offset != kNoOffset) e->offset += writer_ * kRegion;
  }
  // A block in the writer's own area past every writer's range, split into
  // kBigGroup pieces, whose pieces then go: three steps.
  Event Big(std::vector<Event>* records) {
    const uint64_t base = (writers_ + writer_) * kRegion;
    const uint64_t id = (uint64_t{writer_ + 1} << 40) | 0x0000008000000000ull | big_count_;
    const bool heap = mode_ == Mode::kHeap;
    switch (big_++) {
      case 1:
        return Event{heap ? EventType::kHeapPlaced : EventType::kAllocated, id, base,
                     kBigGroup * 64, 64};
      case 2:
        for (int i = 0; i < kBigGroup; ++i)
          records->push_back(Event{EventType::kRedistrictPiece, id + 1 + i,
                                   base + 64 * i, 64, 1});
        return Event{heap ? EventType::kHeapSplit : EventType::kRedistrict, id, 0, 0,
                     kBigGroup};
      default: {
        const int i = big_ - 4;  // 0 .. kBigGroup - 1
        if (i == kBigGroup - 1) {
          big_ = 0;
          big_count_ += kBigGroup + 1;
        }
        return Event{heap ? EventType::kHeapRemoved : EventType::kReleased, id + 1 + i, 0,
                     0, 0};
      }
    }
  }

  Mode mode_;
  uint32_t writer_, writers_;
  EventGenerator plain_;
  HeapEventGenerator heap_;
  uint64_t count_ = 0;
  int big_ = 0;
  uint64_t big_count_ = 0;
};

// The records the wrapped shadow map applied, in journal order.
struct Log {
  std::mutex mutex;
  std::deque<Event> records;
  std::atomic<uint64_t> appended{0}, taken{0};
};
Log* g_log = nullptr;

void* CreateLogged(const MemoryDescription& memory) {
  return ShadowMapConsumer().create(memory);
}
void ApplyLogged(void* state, const Event* events, size_t count) {
  ShadowMapConsumer().apply(state, events, count);
  std::lock_guard<std::mutex> lock(g_log->mutex);
  g_log->records.insert(g_log->records.end(), events, events + count);
  g_log->appended.fetch_add(count, std::memory_order_release);
}
void DestroyLogged(void* state) { ShadowMapConsumer().destroy(state); }
void IdentitiesLogged(const void* state, std::vector<uint32_t>* out) {
  ShadowMapConsumer().identities(state, out);
}
constexpr JournalConsumer kLoggedShadowMap = {&CreateLogged, &ApplyLogged, &DestroyLogged,
                                              &IdentitiesLogged};

void Send(Mode mode, realm_shadow_memory* m, const Event& e, const std::vector<Event>& records) {
  if (mode == Mode::kHeap) {
    ReportHeap(m, e, records);
  } else {
    Report(m, e, records);
  }
}

struct Result {
  uint64_t events = 0, snapshots = 0, records = 0, placeholders = 0, overflows = 0;
  double seconds = 0;
  std::string error;
};

// The checker's side: each writer's expected records, regenerated.
class Expected {
 public:
  Expected(Mode mode, uint32_t writers, uint64_t seed) {
    for (uint32_t w = 0; w < writers; ++w) streams_.emplace_back(mode, w, seed + w, writers);
    queues_.resize(writers);
  }
  // Takes `r` as the next record of its writer; false (with *why) if it is
  // no writer's next.  A record without a writer's tag (a heap reset, the
  // header of a swap or a replacement) may be the next of several writers:
  // `next`, the record after it, tells whose group it heads.
  bool Take(const Event& r, const Event* next, std::string* why, bool* placeholder) {
    *placeholder = false;
    const uint32_t tag = static_cast<uint32_t>((r.instance >> 40) & 0xff);
    for (uint32_t w = 0; w < queues_.size(); ++w) {
      if (tag != 0 && tag != w + 1) continue;
      Fill(w);
      if (!Same(queues_[w].front(), r)) continue;
      if (tag == 0 && IsGroupHeader(r.type) && r.aux > 0 &&
          (next == nullptr || queues_[w].size() < 2 || !Same(queues_[w][1], *next)))
        continue;
      queues_[w].pop_front();
      return true;
    }
    if (r.type == EventType::kNoop && r.instance == 0) {  // a group applied in place
      *placeholder = true;
      return true;
    }
    *why = "record " + Show(r) + " is no writer's next (writer " + std::to_string(tag) +
           (tag >= 1 && tag <= queues_.size() ? " expected " + Show(queues_[tag - 1].front())
                                              : std::string()) +
           ")";
    return false;
  }
  // Every writer sent `sent[w]` steps: all their records must have been
  // seen.  (The queue may hold a step the checker generated ahead, to match
  // an untagged record, that the writer never sent.)
  bool AllSeen(const std::vector<uint64_t>& sent, std::string* why) {
    for (uint32_t w = 0; w < queues_.size(); ++w) {
      const uint64_t unseen = generated_[w] >= sent[w] ? queued_steps(w) - (generated_[w] - sent[w])
                                                       : sent[w] - generated_[w];
      if (unseen != 0 || generated_[w] < sent[w]) {
        *why = "writer " + std::to_string(w) + ": " + std::to_string(unseen) +
               " steps sent never reached the shadow map" +
               (queues_[w].empty() ? std::string() : ", first " + Show(queues_[w].front()));
        return false;
      }
    }
    return true;
  }

 private:
  static bool Same(const Event& a, const Event& b) {
    return a.type == b.type && a.instance == b.instance && a.offset == b.offset &&
           a.size == b.size && a.aux == b.aux;
  }
  static std::string Show(const Event& e) {
    return std::string(EventTypeName(e.type)) + "(" + HexId(e.instance) + ", " +
           std::to_string(e.offset) + ", " + std::to_string(e.size) + ", " +
           std::to_string(e.aux) + ")";
  }
  // Generates the writer's next step when its queue is empty.
  void Fill(uint32_t w) {
    if (!queues_[w].empty()) return;
    std::vector<Event> records;
    const Event e = streams_[w].Next(&records);
    ++generated_[w];
    queues_[w].push_back(e);
    queues_[w].insert(queues_[w].end(), records.begin(), records.end());
  }
  // Steps in the queue: at most one (a step is generated once the queue is
  // empty), partly taken or not.
  uint64_t queued_steps(uint32_t w) const { return queues_[w].empty() ? 0 : 1; }
  std::vector<Stream> streams_;
  std::vector<std::deque<Event>> queues_;
  std::vector<uint64_t> generated_ = std::vector<uint64_t>(256, 0);
};

Result RunMode(Mode mode, uint64_t events, uint32_t writers, uint64_t seed) {
  Result result;
  ResetTrackerForTesting();
  Log log;
  g_log = &log;
  ReplaceJournalConsumerForTesting(&kLoggedShadowMap);
  for (int k = 1; k <= 5; ++k) {  // identities 1..5, kind = id
    Identity identity;
    identity.kind = static_cast<AllocationKind>(k);
    identity.attributes = {{"name", "identity" + std::to_string(k)}};
    InternIdentity(identity);
  }
  const bool heap = mode == Mode::kHeap;
  const unsigned flags = mode == Mode::kSerialized ? REALM_SHADOW_SERIALIZED
                         : heap ? (REALM_SHADOW_CONCURRENT | REALM_SHADOW_HEAP_OBSERVED)
                                : REALM_SHADOW_CONCURRENT;
  const uint64_t capacity = 2 * writers * kRegion;
  realm_shadow_memory* m = RegisterMemory(kMemoryId, MemoryKind::kSystem, capacity, "soak",
                                          flags, mode == Mode::kTiny ? 64 : 16384);
  if (mode == Mode::kTiny) StartDrainer(100);
  const auto start = std::chrono::steady_clock::now();

  std::mutex allocator_mutex;  // serialized mode: Realm's
  std::atomic<bool> stop{false};
  std::vector<uint64_t> sent(writers, 0);
  std::vector<std::thread> threads;
  const uint64_t per_writer = events / writers;
  for (uint32_t w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      Stream stream(mode, w, seed + w, writers);
      std::vector<Event> records;
      uint64_t done = 0;
      while (done < per_writer && !stop.load(std::memory_order_relaxed)) {
        // The checker is the slowest part: keep its backlog bounded.
        while (log.appended.load(std::memory_order_relaxed) -
                   log.taken.load(std::memory_order_relaxed) > kMaxBacklog &&
               !stop.load(std::memory_order_relaxed))
          std::this_thread::yield();
        const Event e = stream.Next(&records);
        if (mode == Mode::kSerialized) {
          std::lock_guard<std::mutex> lock(allocator_mutex);
          Send(mode, m, e, records);
        } else {
          Send(mode, m, e, records);
        }
        done += 1 + records.size();
        ++sent[w];
      }
    });
  }

  // The checker: snapshots in a loop, each against the reference replayed to
  // its sequence number.
  ReferenceMemory reference(capacity, false, heap);
  Expected expected(mode, writers, seed);
  std::vector<Event> batch;
  auto check = [&](const Snapshot& s) -> bool {
    batch.clear();
    {
      std::lock_guard<std::mutex> lock(log.mutex);
      const uint64_t want = s.sequence - reference.sequence();
      if (want > log.records.size()) {
        result.error = "snapshot at " + std::to_string(s.sequence) + " but only " +
                       std::to_string(reference.sequence() + log.records.size()) +
                       " records logged";
        return false;
      }
      batch.assign(log.records.begin(), log.records.begin() + want);
      log.records.erase(log.records.begin(), log.records.begin() + want);
    }
    log.taken.fetch_add(batch.size(), std::memory_order_relaxed);
    for (size_t i = 0; i < batch.size(); ++i) {
      bool placeholder = false;
      const Event* next = i + 1 < batch.size() ? &batch[i + 1] : nullptr;
      if (!expected.Take(batch[i], next, &result.error, &placeholder)) return false;
      result.placeholders += placeholder;
      reference.Apply(batch[i]);
    }
    result.records += batch.size();
    const std::string difference =
        CompareSnapshots(s, reference.ToSnapshot(), SnapshotFields::kState);
    if (!difference.empty()) {
      result.error = "snapshot " + std::to_string(result.snapshots) + " at sequence " +
                     std::to_string(s.sequence) + ": " + difference;
      return false;
    }
    ++result.snapshots;
    return true;
  };
  Snapshot s;
  bool ok = true;
  std::atomic<int> running{static_cast<int>(writers)};
  std::thread joiner([&] {
    for (auto& t : threads) t.join();
    running = 0;
  });
  while (ok && running.load() > 0) {
    TakeSnapshotInto(m, &s);
    ok = check(s);
  }
  if (!ok) stop = true;
  joiner.join();
  StopDrainer();
  if (ok) {
    TakeSnapshotInto(m, &s);
    ok = check(s);
  }
  if (ok && !expected.AllSeen(sent, &result.error)) ok = false;
  if (ok && !log.records.empty()) {
    result.error = std::to_string(log.records.size()) + " records past the last snapshot";
    ok = false;
  }
  result.events = s.sequence;
  result.overflows = DescribeMemory(m).journal_overflows;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ResetTrackerForTesting();
  ReplaceJournalConsumerForTesting(&ShadowMapConsumer());
  g_log = nullptr;
  return result;
}

int Main(int argc, char** argv) {
  uint64_t events = 100000000, seed = 1;
  uint32_t writers = 2;
  std::string mode_name = "all";
  constexpr const char* kUsage =
      "usage: recorder_soak [--events N] [--mode serialized|concurrent|tiny|heap|all]\n"
      "                     [--writers W] [--seed S]\n";
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 == argc) {  // a flag without its value runs nothing rather than the default
      std::fprintf(stderr, "recorder_soak: %s needs a value\n%s", flag.c_str(), kUsage);
      return 2;
    }
    const std::string value = argv[i + 1];
    bool ok = true;
    if (flag == "--events") ok = absl::SimpleAtoi(value, &events);
    else if (flag == "--writers") ok = absl::SimpleAtoi(value, &writers) && writers >= 1 && writers <= 200;
    else if (flag == "--seed") ok = absl::SimpleAtoi(value, &seed);
    else if (flag == "--mode") mode_name = value;
    else ok = false;
    if (!ok) {
      std::fprintf(stderr, "recorder_soak: bad %s %s\n%s", flag.c_str(), value.c_str(), kUsage);
      return 2;
    }
  }
  std::vector<Mode> modes;
  for (Mode m : {Mode::kSerialized, Mode::kConcurrent, Mode::kTiny, Mode::kHeap})
    if (mode_name == "all" || mode_name == ModeName(m)) modes.push_back(m);
  if (modes.empty()) {
    std::fprintf(stderr, "recorder_soak: --mode serialized|concurrent|tiny|heap|all\n");
    return 2;
  }
  int failures = 0;
  for (Mode mode : modes) {
    const Result r = RunMode(mode, events, writers, seed);
    std::printf("soak %-10s writers %u: %llu events, %llu snapshots checked, %llu records "
                "checked (%llu placeholders), %llu journal overflows, %.1f s%s%s\n",
                ModeName(mode), writers, static_cast<unsigned long long>(r.events),
                static_cast<unsigned long long>(r.snapshots),
                static_cast<unsigned long long>(r.records),
                static_cast<unsigned long long>(r.placeholders),
                static_cast<unsigned long long>(r.overflows), r.seconds,
                r.error.empty() ? "" : ": FAILED: ", r.error.c_str());
    std::fflush(stdout);
    if (!r.error.empty()) ++failures;
  }
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace realm_shadow::testing

int main(int argc, char** argv) { return realm_shadow::testing::Main(argc, argv); }
