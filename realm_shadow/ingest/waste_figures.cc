#include "realm_shadow/ingest/waste_figures.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "realm_shadow/core/identity.h"

namespace realm_shadow {
namespace realm_log {
namespace {

struct Sizes {
  bool known = false;
  std::vector<uint64_t> size;  // per layout field
  bool from_spy = false;       // some size is Field Creation's
  bool from_layout = false;    // some size is a layout cell
  std::string why;
};

// Each field's size: Legion Spy's, else the layout's cell.
Sizes FieldSizes(const LayoutShape& layout, const SpyInstance* spy,
                 const SpyShapes& shapes) {
  Sizes s;
  for (const FieldCell& f : layout.fields) {
    uint64_t size = 0;
    if (spy != nullptr && shapes.FieldSize(spy->field_space, f.id, &size)) {
      if (f.cell != 0 && size > f.cell) {
        s.why = absl::StrCat("field ", f.id, " of ", size,
                             " B (Field Creation) exceeds its cell of ",
                             f.cell, " B in the layout");
        return s;
      }
      s.from_spy = true;
    } else if (f.cell != 0) {
      size = f.cell;
      s.from_layout = true;
    } else {
      s.why = absl::StrCat("field ", f.id, ": no Field Creation line, and ",
                           layout.why.empty() ? "the layout gives no cell"
                                              : layout.why);
      return s;
    }
    s.size.push_back(size);
  }
  s.known = true;
  return s;
}

}  // namespace

WasteFigureCounts& WasteFigureCounts::operator+=(const WasteFigureCounts& o) {
  for (auto [mine, theirs] :
       {std::pair{&lives, &o.lives}, {&points, &o.points},
        {&points_unknown, &o.points_unknown}, {&field_bytes, &o.field_bytes},
        {&field_bytes_unknown, &o.field_bytes_unknown},
        {&sizes_from_spy, &o.sizes_from_spy},
        {&sizes_from_layout, &o.sizes_from_layout},
        {&region_points, &o.region_points},
        {&region_points_unknown, &o.region_points_unknown},
        {&requested, &o.requested},
        {&requested_unknown, &o.requested_unknown}})
    *mine += *theirs;
  return *this;
}

std::vector<std::pair<std::string, std::string>> WasteFigureAttributes(
    const LayoutShape* layout, const SpyInstance* spy, const SpyShapes& shapes,
    WasteFigureCounts* counts) {
  std::vector<std::pair<std::string, std::string>> attrs;
  if (layout == nullptr) return attrs;
  ++counts->lives;
  std::vector<std::string> unknown;

  // The layout's points.
  if (layout->read && layout->points_known) {
    attrs.emplace_back(kPointsAttribute, absl::StrCat(layout->points));
    ++counts->points;
  } else {
    unknown.push_back(absl::StrCat(
        "points: ", !layout->read ? layout->why
                                  : "its piece lists cover different points"));
    ++counts->points_unknown;
  }

  // The fields' sizes, their bytes and bytes per point.
  Sizes sizes;
  if (layout->read) sizes = FieldSizes(*layout, spy, shapes);
  else sizes.why = layout->why;
  uint64_t field_bytes = 0, per_point = 0;
  bool bytes_known = sizes.known;
  for (size_t i = 0; bytes_known && i < layout->fields.size(); ++i) {
    uint64_t bytes = 0;
    bytes_known = layout->fields[i].points_known &&
                  !__builtin_mul_overflow(sizes.size[i],
                                          layout->fields[i].points, &bytes) &&
                  !__builtin_add_overflow(field_bytes, bytes, &field_bytes) &&
                  !__builtin_add_overflow(per_point, sizes.size[i], &per_point);
  }
  if (sizes.known && !bytes_known) sizes.why = "their bytes overflow 64 bits";
  if (bytes_known && field_bytes > layout->bytes) {
    bytes_known = false;
    sizes.why = absl::StrCat("the fields' ", field_bytes,
                             " B exceed the layout's ", layout->bytes, " B");
  }
  if (bytes_known) {
    attrs.emplace_back(kFieldBytesAttribute, absl::StrCat(field_bytes));
    attrs.emplace_back(kBytesPerPointAttribute, absl::StrCat(per_point));
    attrs.emplace_back(kFieldSizesFromAttribute,
                       !sizes.from_layout ? "Legion Spy"
                       : sizes.from_spy   ? "Legion Spy and layout"
                                          : "layout");
    ++counts->field_bytes;
    ++(sizes.from_layout ? counts->sizes_from_layout : counts->sizes_from_spy);
  } else {
    unknown.push_back("field_bytes, bytes_per_point: " + sizes.why);
    ++counts->field_bytes_unknown;
  }

  // The region's points and the requested fields need Legion Spy.
  if (spy == nullptr) {
    unknown.push_back(
        "region_points, requested_bytes_per_point: no Legion Spy record of "
        "the instance");
    ++counts->region_points_unknown;
    ++counts->requested_unknown;
  } else {
    uint64_t points = 0;
    std::string why;
    bool known = shapes.ExpressionPoints(spy->expression, &points, &why);
    if (!known && spy->creation_regions.size() == 1) {
      std::string why_space;
      known = shapes.IndexSpacePoints(std::get<0>(spy->creation_regions[0]),
                                      &points, &why_space);
      if (!known) absl::StrAppend(&why, ", and ", why_space);
    }
    if (known) {
      attrs.emplace_back(kRegionPointsAttribute, absl::StrCat(points));
      ++counts->region_points;
    } else {
      unknown.push_back("region_points: " + why);
      ++counts->region_points_unknown;
    }

    // Requested: the union over the creation regions.
    std::vector<uint64_t> requested;
    why.clear();
    known = spy->has_creator && !spy->creation_regions.empty();
    if (!spy->has_creator) why = "no Physical Instance Creator line";
    else if (spy->creation_regions.empty())
      why = "no Physical Instance Creation Region line";
    for (const auto& [space, field_space, tree] : spy->creation_regions) {
      std::vector<uint64_t> fields;
      if (!known) break;
      known = shapes.RequestedFields(spy->creator, space, field_space, tree,
                                     &fields, &why);
      requested.insert(requested.end(), fields.begin(), fields.end());
    }
    uint64_t requested_per_point = 0;
    if (known && !bytes_known) {
      known = false;
      why = "the fields' sizes are unknown";
    }
    for (size_t i = 0; known && i < layout->fields.size(); ++i)
      if (std::find(requested.begin(), requested.end(),
                    layout->fields[i].id) != requested.end())
        requested_per_point += sizes.size[i];
    if (known) {
      attrs.emplace_back(kRequestedBytesPerPointAttribute,
                         absl::StrCat(requested_per_point));
      ++counts->requested;
    } else {
      unknown.push_back("requested_bytes_per_point: " + why);
      ++counts->requested_unknown;
    }
  }
  if (!unknown.empty())
    attrs.emplace_back(kFiguresUnknownAttribute, absl::StrJoin(unknown, "; "));
  return attrs;
}

}  // namespace realm_log
}  // namespace realm_shadow
