#include "realm_shadow/ingest/legion_spy_shapes.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "realm_shadow/ingest/internal/first_wins.h"

namespace realm_shadow {
namespace realm_log {
namespace {

// Expressions built on expressions: a chain longer than this is unknown.
constexpr int kMaxDepth = 64;

// ---- point sets ------------------------------------------------------------

// One rectangle of a set, as a view.
struct Rect {
  const int64_t* lo;
  const int64_t* hi;
};

Rect RectOf(const PointSet& s, size_t i) {
  const int64_t* at = s.coordinates.data() + i * 2 * static_cast<size_t>(s.dims);
  return {at, at + s.dims};
}

void Append(PointSet* s, const int64_t* lo, const int64_t* hi) {
  s->coordinates.insert(s->coordinates.end(), lo, lo + s->dims);
  s->coordinates.insert(s->coordinates.end(), hi, hi + s->dims);
}

bool Overlap(int dims, Rect a, Rect b) {
  for (int d = 0; d < dims; ++d)
    if (a.hi[d] < b.lo[d] || b.hi[d] < a.lo[d]) return false;
  return true;
}

// 1-D: sorts the intervals and merges those that overlap or touch.
void NormalizeIntervals(PointSet* s) {
  std::vector<std::pair<int64_t, int64_t>> v;
  for (size_t i = 0; i < s->rects(); ++i) {
    const Rect r = RectOf(*s, i);
    if (r.lo[0] <= r.hi[0]) v.emplace_back(r.lo[0], r.hi[0]);
  }
  std::sort(v.begin(), v.end());
  s->coordinates.clear();
  for (const auto& [lo, hi] : v) {
    const size_t n = s->coordinates.size();
    if (n > 0 && (s->coordinates[n - 1] == INT64_MAX ||
                  lo <= s->coordinates[n - 1] + 1)) {
      s->coordinates[n - 1] = std::max(s->coordinates[n - 1], hi);
    } else {
      s->coordinates.push_back(lo);
      s->coordinates.push_back(hi);
    }
  }
}

// Appends the parts of `r` outside `cut` to `out` (at most 2 x dims).
void Subtract(int dims, Rect r, Rect cut, PointSet* out) {
  int64_t lo[kMaxSpyDims], hi[kMaxSpyDims];
  std::copy(r.lo, r.lo + dims, lo);
  std::copy(r.hi, r.hi + dims, hi);
  for (int d = 0; d < dims; ++d) {
    if (lo[d] < cut.lo[d]) {
      const int64_t keep = hi[d];
      hi[d] = cut.lo[d] - 1;
      Append(out, lo, hi);
      hi[d] = keep;
      lo[d] = cut.lo[d];
    }
    if (hi[d] > cut.hi[d]) {
      const int64_t keep = lo[d];
      lo[d] = cut.hi[d] + 1;
      Append(out, lo, hi);
      lo[d] = keep;
      hi[d] = cut.hi[d];
    }
  }
}

// `a` minus `b`, N-D, rectangle by rectangle; false past the step budget.
bool DifferenceRects(const PointSet& a, const PointSet& b, PointSet* out,
                     uint64_t* steps) {
  out->dims = a.dims;
  out->coordinates.clear();
  const int dims = a.dims;
  for (size_t i = 0; i < a.rects(); ++i) {
    PointSet pieces{dims, {}};
    const Rect r = RectOf(a, i);
    Append(&pieces, r.lo, r.hi);
    for (size_t j = 0; j < b.rects() && pieces.rects() > 0; ++j) {
      PointSet next{dims, {}};
      for (size_t k = 0; k < pieces.rects(); ++k) {
        if (++*steps > kMaxRectSteps) return false;
        const Rect p = RectOf(pieces, k);
        if (Overlap(dims, p, RectOf(b, j)))
          Subtract(dims, p, RectOf(b, j), &next);
        else
          Append(&next, p.lo, p.hi);
      }
      pieces = std::move(next);
    }
    out->coordinates.insert(out->coordinates.end(), pieces.coordinates.begin(),
                            pieces.coordinates.end());
  }
  return true;
}

// Makes an N-D set's rectangles disjoint (lines of one space logged twice,
// a union's sources overlapping).
bool NormalizeRects(PointSet* s, uint64_t* steps) {
  PointSet out{s->dims, {}};
  for (size_t i = 0; i < s->rects(); ++i) {
    PointSet one{s->dims, {}}, rest;
    const Rect r = RectOf(*s, i);
    bool empty = false;
    for (int d = 0; d < s->dims; ++d) empty |= r.hi[d] < r.lo[d];
    if (empty) continue;
    Append(&one, r.lo, r.hi);
    if (!DifferenceRects(one, out, &rest, steps)) return false;
    out.coordinates.insert(out.coordinates.end(), rest.coordinates.begin(),
                           rest.coordinates.end());
  }
  *s = std::move(out);
  return true;
}

bool Normalize(PointSet* s, uint64_t* steps) {
  if (s->dims == 1) {
    NormalizeIntervals(s);
    return true;
  }
  return NormalizeRects(s, steps);
}

// 1-D intersection and difference of normalized sets: linear sweeps.
PointSet IntersectIntervals(const PointSet& a, const PointSet& b) {
  PointSet out{1, {}};
  size_t i = 0, j = 0;
  while (i < a.rects() && j < b.rects()) {
    const Rect x = RectOf(a, i), y = RectOf(b, j);
    const int64_t lo = std::max(x.lo[0], y.lo[0]);
    const int64_t hi = std::min(x.hi[0], y.hi[0]);
    if (lo <= hi) Append(&out, &lo, &hi);
    if (x.hi[0] < y.hi[0]) ++i; else ++j;
  }
  return out;
}

PointSet DifferenceIntervals(const PointSet& a, const PointSet& b) {
  PointSet out{1, {}};
  size_t j = 0;
  for (size_t i = 0; i < a.rects(); ++i) {
    const Rect x = RectOf(a, i);
    int64_t lo = x.lo[0];
    const int64_t hi = x.hi[0];
    bool left = true;  // [lo, hi] still has points
    while (j < b.rects() && RectOf(b, j).hi[0] < lo) ++j;
    for (size_t k = j; k < b.rects() && left; ++k) {
      const Rect y = RectOf(b, k);
      if (y.lo[0] > hi) break;
      if (y.lo[0] > lo) {
        const int64_t end = y.lo[0] - 1;
        Append(&out, &lo, &end);
      }
      if (y.hi[0] >= hi) left = false; else lo = y.hi[0] + 1;
    }
    if (left) Append(&out, &lo, &hi);
  }
  return out;
}

// a op b on normalized sets of one dimension (0 for an empty set of any);
// false past the step budget.
bool Combine(char op, const PointSet& a, const PointSet& b, PointSet* out,
             uint64_t* steps) {
  if (a.dims == 0 || b.dims == 0) {
    // The empty set: a union is the other, an intersection empty, a
    // difference its left.
    *out = op == 'U' ? (a.dims == 0 ? b : a)
                     : op == 'I' ? PointSet{} : a;
    return true;
  }
  if (op == 'U') {
    // 1-D: both, merged; N-D: a and what of b lies outside it.
    PointSet rest;
    if (a.dims == 1)
      rest = b;
    else if (!DifferenceRects(b, a, &rest, steps))
      return false;
    *out = a;
    out->coordinates.insert(out->coordinates.end(), rest.coordinates.begin(),
                            rest.coordinates.end());
    if (a.dims == 1) NormalizeIntervals(out);
    return true;
  }
  if (a.dims == 1) {
    *out = op == 'I' ? IntersectIntervals(a, b) : DifferenceIntervals(a, b);
    return true;
  }
  if (op == 'D') return DifferenceRects(a, b, out, steps);
  out->dims = a.dims;
  out->coordinates.clear();
  for (size_t i = 0; i < a.rects(); ++i)
    for (size_t j = 0; j < b.rects(); ++j) {
      if (++*steps > kMaxRectSteps) return false;
      const Rect x = RectOf(a, i), y = RectOf(b, j);
      if (!Overlap(a.dims, x, y)) continue;
      int64_t lo[kMaxSpyDims], hi[kMaxSpyDims];
      for (int d = 0; d < a.dims; ++d) {
        lo[d] = std::max(x.lo[d], y.lo[d]);
        hi[d] = std::min(x.hi[d], y.hi[d]);
      }
      Append(out, lo, hi);
    }
  return true;
}

// The number of points of a normalized set; false past 64 bits.
bool Count(const PointSet& s, uint64_t* points) {
  uint64_t total = 0;
  for (size_t i = 0; i < s.rects(); ++i) {
    const Rect r = RectOf(s, i);
    uint64_t volume = 1;
    for (int d = 0; d < s.dims; ++d) {
      const uint64_t extent =
          static_cast<uint64_t>(r.hi[d]) - static_cast<uint64_t>(r.lo[d]) + 1;
      if (extent == 0 || __builtin_mul_overflow(volume, extent, &volume))
        return false;
    }
    if (__builtin_add_overflow(total, volume, &total)) return false;
  }
  *points = total;
  return true;
}

std::string OperationName(char kind) {
  return kind == 'U' ? "union" : kind == 'I' ? "intersection" : "difference";
}

}  // namespace

void SpyShapes::Add(const LogLine& line) {
  const uint64_t* ids = line.ids;
  switch (line.kind) {
    case LineKind::kSpyFieldCreation:
      KeepFirst(field_sizes_, std::make_pair(ids[0], ids[1]), line.bytes);
      return;
    case LineKind::kSpyIndexSpaceRect:
    case LineKind::kSpyIndexSpacePoint: {
      int64_t c[2 * kMaxSpyDims];
      if (ReadIntegers(line.text, c, 2 * kMaxSpyDims) < 0) return;
      IndexSpace& space = spaces_[ids[0]];
      const int dims = static_cast<int>(ids[1]);
      if (space.dims != 0 && space.dims != dims) space.mixed_dims = true;
      space.dims = dims;
      if (line.kind == LineKind::kSpyIndexSpaceRect) {
        // LO0 HI0 LO1 HI1 ...: lo[] then hi[] here.
        for (int d = 0; d < dims; ++d) space.coordinates.push_back(c[2 * d]);
        for (int d = 0; d < dims; ++d)
          space.coordinates.push_back(c[2 * d + 1]);
      } else {
        for (int k = 0; k < 2; ++k)
          space.coordinates.insert(space.coordinates.end(), c, c + dims);
      }
      return;
    }
    case LineKind::kSpyEmptyIndexSpace:
      spaces_[ids[0]].empty = true;
      return;
    case LineKind::kSpyExpression:
      KeepFirst(space_of_expression_, ids[1], ids[0]);
      return;
    case LineKind::kSpyExpressionOp: {
      // The grammar checked there are exactly ids[2] of them.
      std::vector<int64_t> sources(ids[2]);
      const int n = ReadIntegers(line.text, sources.data(),
                                 static_cast<int>(sources.size()));
      if (n != static_cast<int>(sources.size())) return;
      Operation op;
      op.kind = static_cast<char>(ids[1]);
      for (int64_t source : sources)
        op.sources.push_back(static_cast<uint64_t>(source));
      KeepFirst(operations_, ids[0], op);
      return;
    }
    case LineKind::kSpyRequirement: {
      Requirement r;
      r.index = ids[1];
      r.region = ids[2] == 1;
      r.handle = ids[3];
      r.field_space = ids[4];
      r.tree = ids[5];
      requirements_[ids[0]].push_back(r);
      return;
    }
    case LineKind::kSpyRequirementField: {
      // Its requirement's line comes first; the last of that index wins
      // (an operation logs each requirement once).
      std::vector<Requirement>& list = requirements_[ids[0]];
      for (auto it = list.rbegin(); it != list.rend(); ++it)
        if (it->index == ids[1]) {
          it->fields.push_back(ids[2]);
          return;
        }
      Requirement orphan;  // its requirement line is missing
      orphan.index = ids[1];
      orphan.fields.push_back(ids[2]);
      list.push_back(orphan);
      return;
    }
    default:
      return;
  }
}

uint64_t SpyShapes::Merge(const SpyShapes& o) {
  evaluated_.clear();
  return MergeFirst(field_sizes_, o.field_sizes_) +
         MergeFirst(spaces_, o.spaces_) +
         MergeFirst(space_of_expression_, o.space_of_expression_) +
         MergeFirst(operations_, o.operations_) +
         MergeFirst(requirements_, o.requirements_);
}

bool SpyShapes::FieldSize(uint64_t field_space, uint64_t field,
                          uint64_t* size) const {
  auto it = field_sizes_.find({field_space, field});
  if (it == field_sizes_.end()) return false;
  *size = it->second;
  return true;
}

SpyShapes::Evaluated SpyShapes::EvaluateSpace(uint64_t index_space,
                                              uint64_t* steps) const {
  Evaluated e;
  auto it = spaces_.find(index_space);
  if (it == spaces_.end()) {
    e.why = absl::StrCat("index space ", index_space,
                         " has no Rect or Point line in the logs");
    return e;
  }
  const IndexSpace& space = it->second;
  if (space.empty) {
    e.set = std::make_shared<const PointSet>();
    return e;
  }
  if (space.mixed_dims) {
    e.why = absl::StrCat("index space ", index_space,
                         " is logged with two dimensions");
    return e;
  }
  auto set = std::make_shared<PointSet>();
  set->dims = space.dims;
  set->coordinates = space.coordinates;
  if (!Normalize(set.get(), steps)) {
    e.why = absl::StrCat("index space ", index_space, " has too many rectangles");
    return e;
  }
  e.set = std::move(set);
  return e;
}

const SpyShapes::Evaluated& SpyShapes::Evaluate(uint64_t expression, int depth,
                                                uint64_t* steps) const {
  if (auto it = evaluated_.find(expression); it != evaluated_.end())
    return it->second;
  Evaluated e;
  if (auto space = space_of_expression_.find(expression);
      space != space_of_expression_.end()) {
    e = EvaluateSpace(space->second, steps);
  } else if (auto op = operations_.find(expression); op != operations_.end()) {
    if (depth >= kMaxDepth) {
      // Not remembered here (the expressions above it are, as unknown).
      too_deep_.why = absl::StrCat("expressions are built more than ",
                                   kMaxDepth, " levels deep");
      return too_deep_;
    }
    // While its sources are evaluated it stands as unknown: an expression
    // built from itself (a log of two runs) ends there, not in a loop.
    evaluated_[expression].why =
        absl::StrCat("expression ", expression, " is built from itself");
    // Sources are copied out: evaluating one may grow the memo.
    const Operation operation = op->second;
    std::shared_ptr<const PointSet> acc;
    for (uint64_t source : operation.sources) {
      const Evaluated s = Evaluate(source, depth + 1, steps);
      if (s.set == nullptr) {
        e.why = s.why;
        break;
      }
      if (acc == nullptr) {
        acc = s.set;
        continue;
      }
      if (acc->dims != 0 && s.set->dims != 0 && acc->dims != s.set->dims) {
        e.why = absl::StrCat("the ", OperationName(operation.kind),
                             " of expression ", expression,
                             " mixes dimensions");
        break;
      }
      auto next = std::make_shared<PointSet>();
      if (!Combine(operation.kind, *acc, *s.set, next.get(), steps)) {
        e.why = absl::StrCat("the ", OperationName(operation.kind),
                             " of expression ", expression,
                             " takes too many rectangle steps");
        break;
      }
      acc = std::move(next);
    }
    if (e.why.empty()) e.set = acc ? acc : std::make_shared<const PointSet>();
  } else {
    e.why = absl::StrCat("expression ", expression, " is not in the logs");
  }
  return evaluated_.insert_or_assign(expression, std::move(e)).first->second;
}

namespace {

// The points of an evaluated set, or why not.
template <typename Evaluated>
bool PointsOf(const Evaluated& e, const char* what, uint64_t id,
              uint64_t* points, std::string* why) {
  if (e.set == nullptr) {
    *why = e.why;
    return false;
  }
  if (!Count(*e.set, points)) {
    *why = absl::StrCat(what, " ", id, " has more than 2^64 points");
    return false;
  }
  return true;
}

}  // namespace

bool SpyShapes::ExpressionPoints(uint64_t expression, uint64_t* points,
                                 std::string* why) const {
  uint64_t steps = 0;
  return PointsOf(Evaluate(expression, 0, &steps), "expression", expression,
                  points, why);
}

bool SpyShapes::IndexSpacePoints(uint64_t index_space, uint64_t* points,
                                 std::string* why) const {
  uint64_t steps = 0;
  return PointsOf(EvaluateSpace(index_space, &steps), "index space",
                  index_space, points, why);
}

bool SpyShapes::RequestedFields(uint64_t uid, uint64_t index_space,
                                uint64_t field_space, uint64_t tree,
                                std::vector<uint64_t>* fields,
                                std::string* why) const {
  fields->clear();
  auto it = requirements_.find(uid);
  if (it == requirements_.end()) {
    *why = absl::StrCat("operation ", uid, " logged no requirement");
    return false;
  }
  bool found = false;
  for (const Requirement& r : it->second) {
    if (!r.region || r.handle != index_space || r.field_space != field_space ||
        r.tree != tree)
      continue;
    found = true;
    if (r.fields.empty()) {
      *why = absl::StrCat("requirement ", r.index, " of operation ", uid,
                          " names no field");
      return false;
    }
    fields->insert(fields->end(), r.fields.begin(), r.fields.end());
  }
  if (!found) {
    *why = absl::StrCat("no requirement of operation ", uid,
                        " names the region (index space ", index_space,
                        ", field space ", field_space, ", tree ", tree, ")");
    return false;
  }
  std::sort(fields->begin(), fields->end());
  fields->erase(std::unique(fields->begin(), fields->end()), fields->end());
  return true;
}

}  // namespace realm_log
}  // namespace realm_shadow
