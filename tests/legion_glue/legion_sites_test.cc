// The Legion identity sites (legion_glue/legion_sites.h) against stand-ins
// shaped like Legion's objects: what each site attaches, the GC state as it
// changes (a valid instance is pinned and never a blocker), the creator
// lookup, field names only where they can be read without waiting, pools.
#include "legion_glue/legion_sites.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/live/snapshots.h"
#include "tests/legion_glue/glue_test.h"

namespace realm_shadow {
namespace legion {
namespace {

constexpr uint64_t kA = 0x4000000000000001ull;
constexpr uint64_t kB = 0x4000000000000002ull;

// ---- stand-ins with Legion's member names -----------------------------------

struct Memory { uint64_t id; };
struct Instance {
  uint64_t id;
  bool exists() const { return id != 0; }
};
struct Space {
  unsigned id;
  unsigned get_id() const { return id; }
};
struct Region {
  unsigned tree, index, fields;
  unsigned get_tree_id() const { return tree; }
  Space get_index_space() const { return {index}; }
  Space get_field_space() const { return {fields}; }
};
struct FieldConstraint {
  std::vector<unsigned> set;
  const std::vector<unsigned>& get_field_set() const { return set; }
};
struct Constraints { FieldConstraint field_constraint; };
struct FieldSpaceNode {
  bool owner = true;
  std::map<unsigned, std::string> names;
  mutable int lookups = 0;
  bool is_owner() const { return owner; }
  bool retrieve_semantic_information(unsigned fid, unsigned tag,
                                     const void*& result, size_t& size,
                                     bool can_fail, bool wait_until) {
    ++lookups;
    EXPECT_EQ(tag, 0u);
    EXPECT_TRUE(can_fail);
    EXPECT_FALSE(wait_until);
    auto it = names.find(fid);
    if (it == names.end()) return false;
    result = it->second.c_str();
    size = it->second.size() + 1;  // Legion keeps the NUL
    return true;
  }
};
struct Provenance { std::string_view human; };
struct Operation {
  enum OpKind { TASK_OP_KIND, MAP_OP_KIND };
  OpKind kind = TASK_OP_KIND;
  long long uid = 15;
  const char* name = "calc_new_currents";
  Provenance* provenance = nullptr;
  long long get_unique_op_id() const { return uid; }
  const char* get_logging_name() const { return name; }
  OpKind get_operation_kind() const { return kind; }
  Provenance* get_provenance() const { return provenance; }
};
struct MappingCallInfo { Operation* const operation; };
struct TaskContext {
  long long uid;
  const char* name;
  long long get_unique_id() const { return uid; }
  const char* get_task_name() const { return name; }
};

class LegionSitesTest : public testing::GlueTest {
 protected:
  LegionSitesTest()
      : GlueTest(4096, "SYSTEM_MEM",
                 {{kA, 0, 1024, 64}, {kB, 1024, 1024, 64}}) {}
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(GlueTest::SetUp());
    node_.names = {{101, "voltage"}};
    constraints_.field_constraint.set = {101, 102};
  }
  const Allocation* Find(const Snapshot& s, uint64_t instance) {
    for (const Allocation& a : s.allocations)
      if (a.instance == instance) return &a;
    return nullptr;
  }
  std::string Attr(const Snapshot& s, uint64_t instance, const char* key) {
    const Allocation* a = Find(s, instance);
    if (a == nullptr || a->identity == 0) return "<none>";
    const Identity* id = s.FindIdentity(a->identity);
    return id == nullptr ? "<none>" : IdentityAttribute(*id, key);
  }
  void Create(uint64_t instance, MappingCallInfo* call, long long uid = 15) {
    site::RegionInstanceCreated(Memory{kSys}, Instance{instance}, regions_,
                                constraints_, &node_, uid, call);
  }

  std::vector<Region> regions_ = {{1, 2, 3}, {1, 4, 3}};
  Constraints constraints_;
  FieldSpaceNode node_;
};

TEST_F(LegionSitesTest, RegionInstanceCarriesRegionsFieldsCreatorProvenance) {
  Provenance where{"circuit.cc:212"};
  Operation op;
  op.provenance = &where;
  MappingCallInfo call{&op};
  Create(kA, &call);
  const Snapshot s = TakeSnapshot(m_);
  const Allocation* a = Find(s, kA);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->kind, AllocationKind::kRegionInstance);
  EXPECT_FALSE(a->pinned());  // a new PhysicalManager starts collectable
  EXPECT_EQ(Attr(s, kA, kRegionsAttribute), "(1,2,3) (1,4,3)");
  EXPECT_EQ(Attr(s, kA, kFieldsAttribute), "voltage, fid 102");
  EXPECT_EQ(Attr(s, kA, kCreatorAttribute), "task calc_new_currents (UID 15)");
  EXPECT_EQ(Attr(s, kA, kProvenanceAttribute), "circuit.cc:212");
}

TEST_F(LegionSitesTest, CreatorFallsBackToTheOperationOrItsUid) {
  Operation op;
  op.kind = Operation::MAP_OP_KIND;
  op.name = "Inline Mapping";
  MappingCallInfo call{&op};
  Create(kA, &call);
  Create(kB, &call, /*uid=*/99);  // the call maps another operation
  Snapshot s = TakeSnapshot(m_);
  EXPECT_EQ(Attr(s, kA, kCreatorAttribute), "Inline Mapping (UID 15)");
  EXPECT_EQ(Attr(s, kB, kCreatorAttribute), "op UID 99");
  Create(kA, static_cast<MappingCallInfo*>(nullptr));  // no mapper call
  s = TakeSnapshot(m_);
  EXPECT_EQ(Attr(s, kA, kCreatorAttribute), "op UID 15");
  MappingCallInfo empty{nullptr};
  Create(kB, &empty);
  s = TakeSnapshot(m_);
  EXPECT_EQ(Attr(s, kB, kCreatorAttribute), "op UID 15");
}

TEST_F(LegionSitesTest, FieldNamesOnlyOnTheOwnerNodeNeverWaiting) {
  node_.owner = false;
  Create(kA, static_cast<MappingCallInfo*>(nullptr));
  EXPECT_EQ(node_.lookups, 0);
  EXPECT_EQ(Attr(TakeSnapshot(m_), kA, kFieldsAttribute), "fid 101, fid 102");
  site::RegionInstanceCreated(Memory{kSys}, Instance{kB}, regions_,
                              constraints_,
                              static_cast<FieldSpaceNode*>(nullptr), 15,
                              static_cast<MappingCallInfo*>(nullptr));
  EXPECT_EQ(Attr(TakeSnapshot(m_), kB, kFieldsAttribute), "fid 101, fid 102");
}

TEST_F(LegionSitesTest, GcStatePinsAndUnpinsKeepingTheIdentity) {
  Create(kA, static_cast<MappingCallInfo*>(nullptr));
  Create(kB, static_cast<MappingCallInfo*>(nullptr));
  site::GcStateChanged(Memory{kSys}, Instance{kA}, true);  // acquired
  Snapshot s = TakeSnapshot(m_);
  ASSERT_TRUE(Find(s, kA)->pinned());
  EXPECT_FALSE(Find(s, kB)->pinned());
  EXPECT_EQ(Attr(s, kA, kFieldsAttribute), "voltage, fid 102");
  // 3 KiB does not fit in 2 KiB free: the only window may not use kA.
  BlockerWindow w = FindBlockers(s, 3072, 64);
  ASSERT_TRUE(w.found);
  for (const Allocation& b : w.blockers) EXPECT_NE(b.instance, kA);
  // Both valid (GC_NEVER for kB): no window at all.
  site::GcStateChanged(Memory{kSys}, Instance{kB}, true);
  EXPECT_FALSE(FindBlockers(TakeSnapshot(m_), 3072, 64).found);
  // Collectable again: blocker candidates, identities kept.
  site::GcStateChanged(Memory{kSys}, Instance{kA}, false);
  site::GcStateChanged(Memory{kSys}, Instance{kB}, false);
  s = TakeSnapshot(m_);
  EXPECT_FALSE(Find(s, kA)->pinned());
  EXPECT_EQ(Attr(s, kA, kCreatorAttribute), "op UID 15");
  w = FindBlockers(s, 4096, 64);
  ASSERT_TRUE(w.found);
  ASSERT_EQ(w.blockers.size(), 2u);
  EXPECT_EQ(w.blockers[0].instance, kA);
}

TEST_F(LegionSitesTest, UntrackedMemoryOrNoInstanceDoesNothing) {
  const uint64_t before = TakeSnapshot(m_).sequence;
  site::GcStateChanged(Memory{0x1e000000000000ffull}, Instance{kA}, true);
  Create(kA, static_cast<MappingCallInfo*>(nullptr));
  site::RegionInstanceCreated(Memory{0x1e000000000000ffull}, Instance{kA},
                              regions_, constraints_, &node_, 15,
                              static_cast<MappingCallInfo*>(nullptr));
  site::TaskLocalInstanceCreated(Memory{kSys}, Instance{0}, 15,
                                 static_cast<TaskContext*>(nullptr));
  EXPECT_EQ(TakeSnapshot(m_).sequence, before + 1);  // only the one Create
}

TEST_F(LegionSitesTest, TaskLocalAndFutureInstancesArePinnedWithTheirTask) {
  TaskContext task{15, "calc_new_currents"};
  site::TaskLocalInstanceCreated(Memory{kSys}, Instance{kA}, 15, &task);
  site::FutureInstanceCreated(Memory{kSys}, Instance{kB}, 16, &task);
  const Snapshot s = TakeSnapshot(m_);
  EXPECT_EQ(Find(s, kA)->kind, AllocationKind::kDeferredBuffer);
  EXPECT_TRUE(Find(s, kA)->pinned());
  EXPECT_EQ(Attr(s, kA, kCreatorAttribute), "task calc_new_currents (UID 15)");
  EXPECT_EQ(Find(s, kB)->kind, AllocationKind::kFuture);
  EXPECT_EQ(Attr(s, kB, kCreatorAttribute), "op UID 16");
}

TEST_F(LegionSitesTest, PoolsDeclareSubAllocateFreeAndEnd) {
  TaskContext task{15, "leaf"};
  site::PoolCreated(Memory{kSys}, Instance{kA}, 1024, 15, &task);
  PoolRecord pool;
  ASSERT_TRUE(Pools().Find(kA, &pool));
  EXPECT_EQ(pool.size, 1024u);
  EXPECT_EQ(pool.backing_instance, kA);
  const uint64_t sub = 0x4000000000000010ull;
  site::PoolSubAllocated(Instance{kA}, Instance{sub}, 128, 256, 15, &task);
  ASSERT_TRUE(Pools().Find(kA, &pool));
  ASSERT_EQ(pool.suballocations.size(), 1u);
  EXPECT_EQ(pool.suballocations[0].offset, 128u);
  EXPECT_EQ(pool.suballocations[0].size, 256u);
  site::PoolSubAllocationFreed(Instance{sub});
  ASSERT_TRUE(Pools().Find(kA, &pool));
  EXPECT_TRUE(pool.suballocations.empty());
  std::map<Instance, int, bool (*)(const Instance&, const Instance&)> backing(
      [](const Instance& x, const Instance& y) { return x.id < y.id; });
  backing[Instance{kA}] = 0;
  site::PoolReleased(backing);
  EXPECT_FALSE(Pools().Find(kA, &pool));
  // A sub-allocation outside any pool, or of an unknown pool: refused quietly.
  site::PoolSubAllocated(Instance{kB}, Instance{sub}, 0, 8, 15, &task);
  site::PoolSubAllocationFreed(Instance{sub});
}

}  // namespace
}  // namespace legion
}  // namespace realm_shadow
