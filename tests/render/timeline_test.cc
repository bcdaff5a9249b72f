// tests/render/timeline_test.cc - the timeline's text (render/timeline.h) of
// a history recorded here.
#include "realm_shadow/render/timeline.h"

#include <string>

#include <gtest/gtest.h>

#include "realm_shadow/analysis/history_cursor.h"
#include "realm_shadow/analysis/history_recorder.h"
#include "realm_shadow/analysis/shadow_map.h"
#include "tests/render/text_helpers.h"

namespace realm_shadow {
namespace {

using testing::ContainsText;

// Two allocations and a deferred request that fails, in a 4 KiB memory:
// instance 1 carries identity 7 (in the history's table), instance 2
// identity 9 (not in it: a table cut short), the request identity 7.
MemoryHistory ThreeLives() {
  ShadowMap map(4096, /*addressed=*/false);
  HistoryRecorder recorder(64, map);
  const Event events[] = {
      {EventType::kAllocated, 1, 0, 256, 1},
      {EventType::kAttachIdentity, 1, 7, 0, 1},
      {EventType::kAllocated, 2, 256, 256, 1},
      {EventType::kAttachIdentity, 2, 9, 0, 1},
      {EventType::kDeferred, 3, kNoOffset, 8192, 64},
      {EventType::kAttachIdentity, 3, 7, 0, 1},
      {EventType::kDeferredFailed, 3},
  };
  int64_t time = 1000;
  for (const Event& e : events) recorder.Apply(&map, &e, 1, time += 1000);
  MemoryHistory h;
  recorder.Export(&h);
  h.memory_id = 0x1e00000000000000ull;
  for (HistoryCheckpoint& c : h.checkpoints) {
    c.state.memory_id = h.memory_id;
    c.state.kind = MemoryKind::kSystem;
    c.state.capacity = 4096;
  }
  Identity identity;
  identity.id = 7;
  identity.kind = AllocationKind::kRegionInstance;
  identity.attributes = {{"task", "stencil\nstep"},
                         {"why", "prose the notes carry"}};
  h.identities.push_back(identity);
  return h;
}

// The timeline printed identities with a copy of its own: "why" and control
// characters as they came, and nothing for an identity its table lacked.
// It now prints them as every other text does (render/report.h
// IdentityText), the kind first.
TEST(FormatTimeline, IdentitiesAsEveryTextPrintsThem) {
  const MemoryHistory h = ThreeLives();
  const absl::StatusOr<Snapshot> end = StateAt(h, h.end_sequence());
  ASSERT_TRUE(end.ok()) << end.status();
  const std::string text = FormatTimeline(*end, h, TimelineOptions{});
  // Instance 1 lives to the end; so does 2, whose identity is missing.
  EXPECT_TRUE(ContainsText(text, " region_instance task=stencil?step\n")) << text;
  EXPECT_TRUE(ContainsText(text, " identity#9\n")) << text;
  EXPECT_FALSE(ContainsText(text, "why=")) << text;
  // The failure names the request's identity the same way.
  EXPECT_TRUE(ContainsText(text, "(eventual) request 8 KiB (8192 B) align 64 "
                             "region_instance task=stencil?step\n"))
      << text;
}

}  // namespace
}  // namespace realm_shadow
