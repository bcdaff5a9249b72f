// tests/legion_glue/glue_test.h - what every test of the glue starts from:
// an empty tracker and an empty pool table, and one registered memory, m_,
// concurrent as the glue's memories are (Legion's mapper and runtime report
// from several threads).  Both are emptied again after each test, so no
// memory, identity or pool carries from one test into the next.
#ifndef REALM_SHADOW_TESTS_LEGION_GLUE_GLUE_TEST_H_
#define REALM_SHADOW_TESTS_LEGION_GLUE_GLUE_TEST_H_

#include <cstdint>

#include <gtest/gtest.h>

#include "legion_glue/pools.h"
#include "realm_shadow/recorder/recorder.h"

namespace realm_shadow::testing {

class GlueTest : public ::testing::Test {
 protected:
  GlueTest(uint64_t memory_id, MemoryKind kind, uint64_t capacity,
           const char* name)
      : memory_id_(memory_id), kind_(kind), capacity_(capacity), name_(name) {}

  // A fixture's own SetUp calls this first, under ASSERT_NO_FATAL_FAILURE.
  void SetUp() override {
    ResetTrackerForTesting();
    legion::Pools().Clear();
    m_ = RegisterMemory(memory_id_, kind_, capacity_, name_,
                        REALM_SHADOW_CONCURRENT);
    ASSERT_NE(m_, nullptr);
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
};

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_LEGION_GLUE_GLUE_TEST_H_
