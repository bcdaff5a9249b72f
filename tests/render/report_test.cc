// tests/render/report_test.cc - the report's texts (render/report.h) on
// pictures built by hand.
#include "realm_shadow/render/report.h"

#include <string>

#include <gtest/gtest.h>

#include "tests/analysis/snapshot_builder.h"

namespace realm_shadow {
namespace {

using testing::Alloc;
using testing::MakeSnapshot;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Identity MakeIdentity(uint32_t id, AllocationKind kind,
                      std::vector<std::pair<std::string, std::string>> attributes) {
  Identity identity;
  identity.id = id;
  identity.kind = kind;
  identity.attributes = std::move(attributes);
  return identity;
}

// ---- identities -------------------------------------------------------------

TEST(IdentityText, FindsByIdInASortedTable) {
  const std::vector<Identity> table = {
      MakeIdentity(3, AllocationKind::kFuture, {{"task", "a"}}),
      MakeIdentity(8, AllocationKind::kRegionInstance, {{"task", "b"}})};
  EXPECT_EQ(FindIdentityById(table, 8), &table[1]);
  EXPECT_EQ(FindIdentityById(table, 3), &table[0]);
  EXPECT_EQ(FindIdentityById(table, 5), nullptr);
  EXPECT_EQ(FindIdentityById(table, 0), nullptr);  // "none"
  EXPECT_EQ(FindIdentityById({}, 3), nullptr);
}

TEST(IdentityText, NoneMissingAndKnown) {
  const std::vector<Identity> table = {MakeIdentity(
      3, AllocationKind::kRegionInstance,
      {{"task", "stencil"}, {"why", "long prose"}, {"fields", "a,b"}})};
  EXPECT_EQ(IdentityText(table, 0), "");
  EXPECT_EQ(IdentityText(table, 9), " identity#9");
  EXPECT_EQ(IdentityText(table, 9, /*with_kind=*/true), " identity#9");
  EXPECT_EQ(IdentityText(table, 3), " task=stencil fields=a,b");
  EXPECT_EQ(IdentityText(table, 3, /*with_kind=*/true),
            " region_instance task=stencil fields=a,b");
}

// An allocation line is one line whatever its identity's names hold: the
// report wrote keys and values as they came, newlines included, where the
// failure report already wrote '?'.
TEST(FormatAllocationLine, IdentityOnOneLineWithoutWhy) {
  Snapshot s = MakeSnapshot(1024, {Alloc(0, 256, 0x40)});
  s.allocations[0].identity = 3;
  s.allocations[0].kind = AllocationKind::kRegionInstance;
  s.identities = {MakeIdentity(3, AllocationKind::kRegionInstance,
                               {{"provenance", "solver.py:12\nx = y"},
                                {"why", "prose the notes carry"}})};
  const std::string line = FormatAllocationLine(s, s.allocations[0]);
  EXPECT_EQ(line,
            "instance 0x40 [0, 256) size 256 B align 1 live region_instance "
            "provenance=solver.py:12?x = y");
}

TEST(FormatAllocationLine, MissingIdentityIsNamed) {
  Snapshot s = MakeSnapshot(1024, {Alloc(0, 256, 0x40)});
  s.allocations[0].identity = 5;
  EXPECT_TRUE(Contains(FormatAllocationLine(s, s.allocations[0]),
                       "live unknown identity#5"));
}

}  // namespace
}  // namespace realm_shadow
