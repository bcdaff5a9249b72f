// The one identity line every text prints (core/identity.h): attributes in
// order, "why" and the figures ('#' keys) left out.
#include "realm_shadow/core/identity.h"

#include <gtest/gtest.h>

namespace realm_shadow {
namespace {

TEST(IdentityText, AttributesInOrderWithoutProseOrFigures) {
  Identity id;
  id.kind = AllocationKind::kRegionInstance;
  id.attributes = {{kRegionsAttribute, "all_nodes[0]"},
                   {"why", "long prose the notes carry"},
                   {kPointsAttribute, "2048"},
                   {kTaskAttribute, "calc_new_currents"},
                   {kFieldBytesAttribute, "49152"},
                   {kFiguresUnknownAttribute, "region_points: ..."}};
  EXPECT_EQ(IdentityText(id),
            " regions=all_nodes[0] task=calc_new_currents");
  EXPECT_EQ(IdentityText(id, true),
            " region_instance regions=all_nodes[0] task=calc_new_currents");
  // Figures only: nothing to print.
  Identity figures;
  figures.attributes = {{kPointsAttribute, "10"}};
  EXPECT_EQ(IdentityText(figures), "");
  // A control character in a name is not printed as is.
  Identity odd;
  odd.attributes = {{"task", "a\nb"}};
  EXPECT_EQ(IdentityText(odd), " task=a?b");
}

TEST(IdentityText, FigureKeysAreTheHashKeys) {
  for (const char* key :
       {kPointsAttribute, kFieldBytesAttribute, kBytesPerPointAttribute,
        kRegionPointsAttribute, kRequestedBytesPerPointAttribute,
        kFieldSizesFromAttribute, kFiguresUnknownAttribute}) {
    EXPECT_TRUE(IsFigureAttribute(key)) << key;
    EXPECT_FALSE(IsPrintedAttribute(key)) << key;
  }
  EXPECT_FALSE(IsFigureAttribute(""));
  EXPECT_TRUE(IsPrintedAttribute(kTaskAttribute));
  EXPECT_FALSE(IsPrintedAttribute("why"));
  EXPECT_FALSE(IsFigureAttribute("why"));
}

}  // namespace
}  // namespace realm_shadow
