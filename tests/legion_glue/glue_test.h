// tests/legion_glue/glue_test.h - what every test of the glue starts from:
// an empty tracker and an empty pool table, and one registered memory, m_,
// concurrent as the glue's memories are (Legion's mapper and runtime report
// from several threads), holding the allocations the fixture starts with.
// Both are emptied again after each test, so no memory, identity or pool
// carries from one test into the next.
#ifndef REALM_SHADOW_TESTS_LEGION_GLUE_GLUE_TEST_H_
#define REALM_SHADOW_TESTS_LEGION_GLUE_GLUE_TEST_H_

#include <cstdint>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "legion_glue/pools.h"
#include "realm_shadow/recorder/recorder.h"

namespace realm_shadow::testing {

// An allocation m_ holds when a test starts (realm_shadow_allocated).
struct StartingAllocation {
  uint64_t instance;
  uint64_t offset;
  uint64_t size;
  uint64_t alignment;
};

class GlueTest : public ::testing::Test {
 protected:
  // Node 0's system memory as Realm numbers it: the memory of most of the
  // glue's tests.
  static constexpr uint64_t kSys = 0x1e00000000000000ull;

  GlueTest(uint64_t memory_id, MemoryKind kind, uint64_t capacity,
           const char* name, std::vector<StartingAllocation> starting = {})
      : memory_id_(memory_id),
        kind_(kind),
        capacity_(capacity),
        name_(name),
        starting_(std::move(starting)) {}
  // kSys, of `capacity` bytes.
  GlueTest(uint64_t capacity, const char* name,
           std::vector<StartingAllocation> starting = {})
      : GlueTest(kSys, MemoryKind::kSystem, capacity, name,
                 std::move(starting)) {}

  // A fixture's own SetUp calls this first, under ASSERT_NO_FATAL_FAILURE.
  void SetUp() override {
    ResetTrackerForTesting();
    legion::Pools().Clear();
    m_ = RegisterMemory(memory_id_, kind_, capacity_, name_,
                        REALM_SHADOW_CONCURRENT);
    ASSERT_NE(m_, nullptr);
    for (const StartingAllocation& a : starting_)
      realm_shadow_allocated(m_, a.instance, a.offset, a.size, a.alignment);
  }
  void TearDown() override {
    legion::Pools().Clear();
    ResetTrackerForTesting();
  }

  realm_shadow_memory* m_ = nullptr;

 private:
  uint64_t memory_id_;
  MemoryKind kind_;
  uint64_t capacity_;
  const char* name_;
  std::vector<StartingAllocation> starting_;
};

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_LEGION_GLUE_GLUE_TEST_H_
