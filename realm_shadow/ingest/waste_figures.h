// realm_shadow/ingest/waste_figures.h - the figures of what an instance's
// bytes hold (the '#' attributes of core/identity.h), from Realm's
// "instance layout" and Legion Spy's lines, for analysis/waste.h to read.
//
// Layer ingest.  One instance life at a time; each figure is written only
// when every link it needs is in the logs, else left out and its reason
// put in kFiguresUnknownAttribute ("#unknown") and counted:
//  #points        the layout's points (instance_layout.h);
//  field sizes    Legion Spy's "Field Creation" of the instance's field
//                 space, else the field's cell in the layout (fields that do
//                 not interleave), else unknown; a size larger than the
//                 field's cell contradicts the layout: unknown;
//  #field_bytes, #bytes_per_point  from the sizes of every field the layout
//                 holds (all known, or neither figure);
//  #region_points the points of the instance's domain (the EXPR of its
//                 "Physical Instance" line), else of its one creation
//                 region's index space;
//  #requested_bytes_per_point  the sizes of the fields it holds that its
//                 creator's requirements on its creation regions name (a
//                 creator, a requirement on each creation region, and the
//                 sizes of those fields all needed).
// Cost: a few hash lookups per field; an instance's domain is evaluated
// once per run (legion_spy_shapes.h remembers it).
#ifndef REALM_SHADOW_INGEST_WASTE_FIGURES_H_
#define REALM_SHADOW_INGEST_WASTE_FIGURES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "realm_shadow/ingest/instance_layout.h"
#include "realm_shadow/ingest/legion_spy_shapes.h"
#include "realm_shadow/ingest/node_rebuild.h"

namespace realm_shadow {
namespace realm_log {

REALM_SHADOW_HEADER_OF_LAYER(ingest);

// How many instance lives got each figure, and how many did not.
struct WasteFigureCounts {
  uint64_t lives = 0;  // with a layout line, described
  uint64_t points = 0, points_unknown = 0;
  uint64_t field_bytes = 0, field_bytes_unknown = 0;
  uint64_t sizes_from_spy = 0;     // every size from Field Creation
  uint64_t sizes_from_layout = 0;  // some from the layout's cells
  uint64_t region_points = 0, region_points_unknown = 0;
  uint64_t requested = 0, requested_unknown = 0;

  WasteFigureCounts& operator+=(const WasteFigureCounts& other);
};

// The figures of one life: `layout` from its "instance layout" line (null:
// none, and nothing is written), `spy` its Legion Spy record (null: none).
std::vector<std::pair<std::string, std::string>> WasteFigureAttributes(
    const LayoutShape* layout, const SpyInstance* spy, const SpyShapes& shapes,
    WasteFigureCounts* counts);

}  // namespace realm_log
}  // namespace realm_shadow

#endif  // REALM_SHADOW_INGEST_WASTE_FIGURES_H_
