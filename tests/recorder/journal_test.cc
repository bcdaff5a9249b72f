// The journal alone: order, wrap-around, groups, overflow and the commit
// marks of concurrent slots.
#include "realm_shadow/recorder/internal/journal.h"

#include <gtest/gtest.h>

#include <vector>

namespace realm_shadow {
namespace {

std::vector<Event> Drain(MemoryJournal& j) {
  std::vector<Event> out;
  j.Consume([&](const Event& e) { out.push_back(e); });
  return out;
}

TEST(Journal, CapacityIsAPowerOfTwoAtLeast64) {
  EXPECT_EQ(MemoryJournal(1, false).capacity(), 64u);
  EXPECT_EQ(MemoryJournal(100, false).capacity(), 128u);
  EXPECT_EQ(MemoryJournal(4096, true).capacity(), 4096u);
}

TEST(Journal, ConsumesInAppendOrderAcrossManyLaps) {
  for (bool concurrent : {false, true}) {
    MemoryJournal j(64, concurrent);
    uint64_t next_expected = 0;
    for (uint64_t round = 0; round < 50; ++round) {
      for (uint64_t i = 0; i < 40; ++i) {
        const uint64_t n = round * 40 + i;
        j.Append(EventType::kAllocated, n, n * 2, n * 3, 8);
      }
      for (const Event& e : Drain(j)) {
        ASSERT_EQ(e.instance, next_expected);
        ASSERT_EQ(e.offset, next_expected * 2);
        ASSERT_EQ(e.size, next_expected * 3);
        ASSERT_EQ(e.aux, 8u);
        ASSERT_EQ(e.type, EventType::kAllocated);
        ++next_expected;
      }
    }
    EXPECT_EQ(next_expected, 2000u);
    EXPECT_EQ(j.consumed(), 2000u);
    EXPECT_EQ(j.overflow_count(), 0u);
  }
}

struct Collector {
  MemoryJournal* journal;
  std::vector<Event> seen;

  // Makes the journal's overflow handler drain it into `seen` (the
  // recorder's drains it into the memory's consumer).
  void ConsumeOnOverflow() {
    journal->SetOverflowHandler(
        [](void* ctx) {
          auto* col = static_cast<Collector*>(ctx);
          col->journal->Consume([&](const Event& e) { col->seen.push_back(e); });
        },
        this);
  }
};

TEST(Journal, AFullJournalCallsTheOverflowHandlerAndLosesNothing) {
  for (bool concurrent : {false, true}) {
    MemoryJournal j(64, concurrent);
    Collector c{&j, {}};
    c.ConsumeOnOverflow();
    for (uint64_t n = 0; n < 1000; ++n)
      j.Append(EventType::kReleased, n, 0, 0, 0);
    j.Consume([&](const Event& e) { c.seen.push_back(e); });
    ASSERT_EQ(c.seen.size(), 1000u);
    for (uint64_t n = 0; n < 1000; ++n) ASSERT_EQ(c.seen[n].instance, n);
    EXPECT_GT(j.overflow_count(), 0u);
  }
}

// The writer's room ends exactly at capacity past the consumer: it fills
// every free slot without the handler, calls it for the next record only,
// and after a drain uses the freed slots at once (its view of the tail is
// refreshed, not kept).  Groups take count + 1 slots.
TEST(Journal, TheWriterUsesEveryFreeSlotAndNoMore) {
  for (bool concurrent : {false, true}) {
    MemoryJournal j(64, concurrent);
    Collector c{&j, {}};
    c.ConsumeOnOverflow();
    uint64_t n = 0;
    for (; n < 64; ++n) j.Append(EventType::kReleased, n, 0, 0, 0);
    EXPECT_EQ(j.overflow_count(), 0u) << concurrent;
    j.Append(EventType::kReleased, n++, 0, 0, 0);  // slot 65: full
    EXPECT_EQ(j.overflow_count(), 1u) << concurrent;
    EXPECT_EQ(c.seen.size(), 64u) << concurrent;
    for (; n < 128; ++n) j.Append(EventType::kReleased, n, 0, 0, 0);
    EXPECT_EQ(j.overflow_count(), 1u) << concurrent;
    j.Consume([&](const Event& e) { c.seen.push_back(e); });  // all 128
    // A group of 63 + 1 fits the emptied ring exactly; one more record
    // does not.
    j.AppendGroup(EventType::kHeapSwapped, 0, 63, [&](uint32_t i) {
      return Event{EventType::kHeapRemoved, 1000 + i, 0, 0, 0};
    });
    EXPECT_EQ(j.overflow_count(), 1u) << concurrent;
    j.Append(EventType::kReleased, n++, 0, 0, 0);
    EXPECT_EQ(j.overflow_count(), 2u) << concurrent;
    j.Consume([&](const Event& e) { c.seen.push_back(e); });
    ASSERT_EQ(c.seen.size(), 128u + 64u + 1u) << concurrent;
    for (uint64_t i = 0; i < 128; ++i) ASSERT_EQ(c.seen[i].instance, i);
    EXPECT_EQ(c.seen[128].type, EventType::kHeapSwapped);
    EXPECT_EQ(c.seen[191].instance, 1062u);
    EXPECT_EQ(c.seen[192].instance, 128u);
  }
}

TEST(Journal, GroupsArriveWholeAndInOrder) {
  for (EventType header : {EventType::kRedistrict, EventType::kHeapSwapped}) {
    MemoryJournal j(64, true);
    j.Append(EventType::kAllocated, 1, 0, 100, 1);
    j.AppendGroup(header, 1, 3, [](uint32_t i) {
      return Event{EventType::kRedistrictPiece, 10 + i, i * 30, 30, 1};
    });
    const auto events = Drain(j);
    ASSERT_EQ(events.size(), 5u);
    EXPECT_EQ(events[1].type, header);
    EXPECT_EQ(events[1].aux, 3u);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(events[2 + i].type, EventType::kRedistrictPiece);
      EXPECT_EQ(events[2 + i].instance, 10u + i);
    }
  }
}

// A consumer stops in front of a placeholder until it is published, then
// reads it as one kNoop: a group applied directly keeps its place.
TEST(Journal, PlaceholderHoldsTheConsumerUntilPublished) {
  for (bool concurrent : {false, true}) {
    MemoryJournal j(64, concurrent);
    j.Append(EventType::kAllocated, 1, 0, 100, 1);
    const uint64_t at = j.ClaimPlaceholder();
    EXPECT_EQ(at, 1u);
    if (concurrent) j.Append(EventType::kReleased, 1, 0, 0, 0);  // claimed after
    auto first = Drain(j);
    ASSERT_EQ(first.size(), 1u) << concurrent;
    EXPECT_EQ(j.consumed(), at);
    j.PublishPlaceholder(at);
    if (!concurrent) j.Append(EventType::kReleased, 1, 0, 0, 0);
    auto rest = Drain(j);
    ASSERT_EQ(rest.size(), 2u) << concurrent;
    EXPECT_EQ(rest[0].type, EventType::kNoop);
    EXPECT_EQ(rest[1].type, EventType::kReleased);
  }
}

TEST(Journal, SerializedConsumerSeesNothingBeyondThePublishedHead) {
  MemoryJournal j(64, false);
  EXPECT_TRUE(Drain(j).empty());
  j.Append(EventType::kReserved, 5, 0, 10, 0);
  EXPECT_EQ(Drain(j).size(), 1u);
  EXPECT_TRUE(Drain(j).empty());
  EXPECT_EQ(j.appended(), 1u);
}

}  // namespace
}  // namespace realm_shadow

namespace realm_shadow {
namespace {

// The ring starts on a cache line, so that no 32-byte slot straddles two
// (it used to start wherever new[] put it: 16-byte aligned).
TEST(Journal, TheRingStartsOnACacheLine) {
  for (size_t capacity : {64, 100, 1 << 14}) {
    for (int i = 0; i < 8; ++i) {  // several allocations, not one lucky one
      MemoryJournal j(capacity, i % 2 == 0);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(j.ring_address()) % 64, 0u)
          << capacity;
    }
  }
}

}  // namespace
}  // namespace realm_shadow
