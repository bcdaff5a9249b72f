#include "realm_shadow/ingest/instance_layout.h"

#include <algorithm>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace realm_shadow {
namespace realm_log {
namespace {

// A cursor over the printed layout: each step consumes exactly what it
// reads or fails.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  bool Literal(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }
  bool Peek(char c) const { return at_ < text_.size() && text_[at_] == c; }
  bool AtEnd() const {
    size_t i = at_;
    while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\r')) ++i;
    return i == text_.size();
  }
  bool Unsigned(uint64_t* v) {
    const size_t begin = at_;
    uint64_t x = 0;
    while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
      const uint64_t d = static_cast<uint64_t>(text_[at_] - '0');
      if (x > (UINT64_MAX - d) / 10) return false;
      x = x * 10 + d;
      ++at_;
    }
    *v = x;
    return at_ > begin;
  }
  // An optional '-' (or '+' when `sign_required`, as showpos prints it).
  bool Signed(int64_t* v, bool sign_required = false) {
    bool negative = false;
    if (Peek('-')) {
      negative = true;
      ++at_;
    } else if (Peek('+')) {
      ++at_;
    } else if (sign_required) {
      return false;
    }
    uint64_t magnitude = 0;
    if (!Unsigned(&magnitude)) return false;
    if (magnitude > (negative ? uint64_t{1} << 63 : uint64_t{INT64_MAX}))
      return false;
    *v = negative ? static_cast<int64_t>(0 - magnitude)
                  : static_cast<int64_t>(magnitude);
    return true;
  }

 private:
  std::string_view text_;
  size_t at_ = 0;
};

// "<x>" or "<x,y,...>": signed coordinates, or unsigned strides.
template <typename T>
bool ReadPoint(Cursor& c, T* out, int* dims) {
  if (!c.Literal("<")) return false;
  int n = 0;
  do {
    if (n == kMaxSpyDims) return false;
    if constexpr (std::is_signed_v<T>) {
      if (!c.Signed(&out[n])) return false;
    } else {
      if (!c.Unsigned(&out[n])) return false;
    }
    ++n;
  } while (c.Literal(","));
  *dims = n;
  return c.Literal(">");
}

bool ReadPiece(Cursor& c, LayoutPiece* p) {
  int hi_dims = 0, stride_dims = 0;
  return ReadPoint(c, p->lo, &p->dims) && c.Literal("..") &&
         ReadPoint(c, p->hi, &hi_dims) && hi_dims == p->dims &&
         c.Literal("->affine(") && ReadPoint(c, p->strides, &stride_dims) &&
         stride_dims == p->dims && c.Signed(&p->offset, true) &&
         c.Literal(")");
}

// The number of points of a piece (0 when some dimension is empty); false
// when it overflows 64 bits.
bool Volume(const LayoutPiece& p, uint64_t* volume) {
  uint64_t v = 1;
  for (int d = 0; d < p.dims; ++d) {
    if (p.hi[d] < p.lo[d]) {
      *volume = 0;
      return true;
    }
    const uint64_t extent =
        static_cast<uint64_t>(p.hi[d]) - static_cast<uint64_t>(p.lo[d]) + 1;
    if (extent == 0 || __builtin_mul_overflow(v, extent, &v)) return false;
  }
  *volume = v;
  return true;
}

// Where a non-empty piece's points lie, for one field: the byte of its
// lowest point and the bytes from there to past its highest, when the
// strides chain densely (else false).  `cell` is the smallest stride.
struct PieceSpan {
  int64_t start = 0;
  uint64_t span = 0;
  uint64_t cell = 0;
};

bool SpanOf(const LayoutPiece& p, PieceSpan* out) {
  // The dimensions that step (extent > 1), by stride.
  std::pair<uint64_t, uint64_t> stepping[kMaxSpyDims];  // (stride, extent)
  int n = 0;
  uint64_t smallest = UINT64_MAX;
  int64_t start = p.offset;
  for (int d = 0; d < p.dims; ++d) {
    const uint64_t extent =
        static_cast<uint64_t>(p.hi[d]) - static_cast<uint64_t>(p.lo[d]) + 1;
    if (extent > 1) stepping[n++] = {p.strides[d], extent};
    smallest = std::min(smallest, p.strides[d]);
    int64_t step = 0;
    if (p.strides[d] > static_cast<uint64_t>(INT64_MAX) ||
        __builtin_mul_overflow(p.lo[d], static_cast<int64_t>(p.strides[d]),
                               &step) ||
        __builtin_add_overflow(start, step, &start))
      return false;
  }
  // At most 9: an insertion sort (std::sort's 16-element path draws a
  // false -Warray-bounds from g++ 12 on so small an array).
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && stepping[j] < stepping[j - 1]; --j)
      std::swap(stepping[j], stepping[j - 1]);
  uint64_t expected = n > 0 ? stepping[0].first : smallest;
  if (expected == 0) return false;
  out->cell = expected;
  for (int i = 0; i < n; ++i) {
    if (stepping[i].first != expected ||
        __builtin_mul_overflow(expected, stepping[i].second, &expected))
      return false;
  }
  out->start = start;
  out->span = expected;
  return true;
}

// Each field's cell, when every piece chains densely and no two fields'
// bytes overlap; else every cell stays 0 and `why` says why.
void FindCells(const InstanceLayout& layout, LayoutShape* shape) {
  struct Range {
    uint64_t begin, end;
  };
  std::vector<Range> ranges;
  std::vector<uint64_t> list_cell(layout.lists.size(), 0);
  std::vector<PieceSpan> spans;
  for (size_t l = 0; l < layout.lists.size(); ++l) {
    for (const LayoutPiece& p : layout.lists[l]) {
      uint64_t volume = 0;
      if (!Volume(p, &volume)) {
        shape->why = "a piece's volume overflows 64 bits";
        return;
      }
      if (volume == 0) continue;
      PieceSpan s;
      if (!SpanOf(p, &s)) {
        shape->why = "a piece's strides do not chain densely";
        return;
      }
      if (list_cell[l] != 0 && list_cell[l] != s.cell) {
        shape->why = "the pieces of one list have different strides";
        return;
      }
      list_cell[l] = s.cell;
      spans.push_back(s);
    }
  }
  for (const LayoutField& f : layout.fields) {
    for (const LayoutPiece& p : layout.lists[f.list]) {
      uint64_t volume = 0;
      Volume(p, &volume);
      if (volume == 0) continue;
      PieceSpan s;
      SpanOf(p, &s);
      // Its last point must start inside the layout (an interleaved field's
      // cells run past the end by the fields after it: caught as overlap).
      int64_t begin = 0;
      uint64_t end = 0;
      if (f.relative_offset > static_cast<uint64_t>(INT64_MAX) ||
          __builtin_add_overflow(s.start,
                                 static_cast<int64_t>(f.relative_offset),
                                 &begin) ||
          begin < 0 ||
          __builtin_add_overflow(static_cast<uint64_t>(begin), s.span, &end) ||
          end - s.cell >= layout.bytes) {
        shape->why = absl::StrCat("field ", f.id,
                                  " lies outside the layout's bytes");
        return;
      }
      ranges.push_back({static_cast<uint64_t>(begin), end});
    }
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].begin < ranges[i - 1].end) {
      shape->why = "its fields interleave (not struct-of-arrays)";
      return;
    }
  for (size_t i = 0; i < layout.fields.size(); ++i)
    shape->fields[i].cell = list_cell[layout.fields[i].list];
}

}  // namespace

bool ParseInstanceLayout(std::string_view printed, InstanceLayout* layout) {
  *layout = InstanceLayout();
  Cursor c(printed);
  if (c.Literal("OpaqueLayout(bytes=")) {
    layout->opaque = true;
    return c.Unsigned(&layout->bytes) && c.Literal(", align=") &&
           c.Unsigned(&layout->alignment) && c.Literal(")") && c.AtEnd();
  }
  if (!c.Literal("Layout(bytes=") || !c.Unsigned(&layout->bytes) ||
      !c.Literal(", align=") || !c.Unsigned(&layout->alignment) ||
      !c.Literal(", fields={"))
    return false;
  if (!c.Peek('}')) {
    do {
      LayoutField f;
      if (!c.Unsigned(&f.id) || !c.Literal("=") || !c.Unsigned(&f.list) ||
          !c.Literal("+") || !c.Unsigned(&f.relative_offset))
        return false;
      layout->fields.push_back(f);
    } while (c.Literal(", "));
  }
  if (!c.Literal("}, lists=[")) return false;
  if (!c.Peek(']')) {
    do {
      if (!c.Literal("[")) return false;
      std::vector<LayoutPiece>& list = layout->lists.emplace_back();
      if (!c.Peek(']')) {
        do {
          if (!ReadPiece(c, &list.emplace_back())) return false;
        } while (c.Literal(", "));
      }
      if (!c.Literal("]")) return false;
    } while (c.Literal(", "));
  }
  if (!c.Literal("])") || !c.AtEnd()) return false;
  for (const LayoutField& f : layout->fields)
    if (f.list >= layout->lists.size()) return false;
  return true;
}

LayoutShape ShapeOfLayout(std::string_view printed) {
  LayoutShape shape;
  InstanceLayout layout;
  if (!ParseInstanceLayout(printed, &layout)) {
    shape.why = "the layout is not in Realm's printed form";
    return shape;
  }
  shape.bytes = layout.bytes;
  if (layout.opaque) {
    shape.why = "an opaque layout (no fields, no pieces)";
    return shape;
  }
  shape.read = true;
  std::vector<uint64_t> list_points(layout.lists.size(), 0);
  std::vector<bool> list_known(layout.lists.size(), true);
  for (size_t l = 0; l < layout.lists.size(); ++l)
    for (const LayoutPiece& p : layout.lists[l]) {
      uint64_t volume = 0;
      if (!Volume(p, &volume) ||
          __builtin_add_overflow(list_points[l], volume, &list_points[l]))
        list_known[l] = false;
    }
  shape.points_known = !layout.fields.empty();
  bool first = true;
  for (const LayoutField& f : layout.fields) {
    FieldCell cell;
    cell.id = f.id;
    cell.points = list_points[f.list];
    cell.points_known = list_known[f.list];
    shape.fields.push_back(cell);
    if (!cell.points_known || (!first && cell.points != shape.points))
      shape.points_known = false;
    if (first) shape.points = cell.points;
    first = false;
  }
  if (!shape.points_known) shape.points = 0;
  FindCells(layout, &shape);
  return shape;
}

}  // namespace realm_log
}  // namespace realm_shadow
