// realm_shadow/ingest/legion_spy_shapes.h - what Legion Spy's lines say
// about the shape of an instance's data: the points of index spaces and of
// the expressions Legion builds from them, the size of each field, and the
// fields each operation's region requirements name.
//
// Layer ingest.  Like SpyCatalog (legion_spy.h): each log's lines are
// collected apart (Add), the logs' shapes merged (Merge: a node logs the
// index spaces and fields it creates, and an instance of another node may
// name them), then asked.  What the logs do not say stays unknown, with the
// reason; nothing is guessed.
//
// Points, as Legion logs them (legion_spy.h):
//  - an index space: the union of its "Index Space Rect" and "Index Space
//    Point" lines (the rectangles of its iterator; a rectangle logged twice
//    counts once), none after "Empty Index Space";
//  - an expression: an index space's ("Index Space Expression IS EXPR"), or
//    the union, intersection or difference of expressions ("Index Space
//    Union|Intersection|Difference").  An instance's domain (the EXPR of its
//    "Physical Instance" line) is one.
// Evaluated on demand and remembered: 1-D sets as sorted disjoint intervals
// (each operation a linear merge: circuit's sparse spaces, 16k points, cost
// microseconds), N-D sets as disjoint rectangles (each operation pairwise,
// at most kMaxRectSteps rectangle steps per expression asked, past which
// the points are unknown).  An expression built more than 64 levels deep,
// or from itself, is unknown.  Not thread-safe (the memo).
//
// Requested fields: an operation's "Logical Requirement" lines on a region
// (index space, field space, tree) and their "Logical Requirement Field"
// lines; the fields of every requirement of the operation on that region.
#ifndef REALM_SHADOW_INGEST_LEGION_SPY_SHAPES_H_
#define REALM_SHADOW_INGEST_LEGION_SPY_SHAPES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "realm_shadow/ingest/line_grammar.h"

namespace realm_shadow {
namespace realm_log {

REALM_SHADOW_HEADER_OF_LAYER(ingest);

// The most rectangle steps (a pair compared, a piece cut) one question about
// an N-D expression may take: 4M, about 50 ms.
inline constexpr uint64_t kMaxRectSteps = uint64_t{1} << 22;

// A set of points: disjoint rectangles of `dims` dimensions (0: the empty
// set, of any dimension), `coordinates` holding each rectangle's lo[dims]
// then hi[dims]; 1-D sets sorted, adjacent intervals merged.
struct PointSet {
  int dims = 0;
  std::vector<int64_t> coordinates;
  size_t rects() const {
    return dims == 0 ? 0 : coordinates.size() / (2 * static_cast<size_t>(dims));
  }
};

class SpyShapes {
 public:
  // One line of a shape kind (kSpyFieldCreation ... kSpyRequirementField;
  // others are ignored).
  void Add(const LogLine& line);
  // Adds what `other` knows and this one does not (an index space's
  // rectangles, an operation's requirements, as wholes); returns how many
  // entries disagreed with what this one had (kept as they were).
  uint64_t Merge(const SpyShapes& other);

  // The size "Field Creation" gave the field; false when no line did.
  bool FieldSize(uint64_t field_space, uint64_t field, uint64_t* size) const;

  // The points of an expression or an index space; false, with `why`, when
  // the logs do not give them.
  bool ExpressionPoints(uint64_t expression, uint64_t* points,
                        std::string* why) const;
  bool IndexSpacePoints(uint64_t index_space, uint64_t* points,
                        std::string* why) const;

  // The fields operation `uid`'s requirements on the region (index space,
  // field space, tree) name, sorted, each once; false, with `why`, when it
  // logged no requirement on that region, or one without fields.
  bool RequestedFields(uint64_t uid, uint64_t index_space,
                       uint64_t field_space, uint64_t tree,
                       std::vector<uint64_t>* fields, std::string* why) const;

 private:
  struct IndexSpace {
    bool empty = false;  // "Empty Index Space"
    int dims = 0;        // of its rectangles (0: none logged)
    bool mixed_dims = false;
    std::vector<int64_t> coordinates;  // lo[dims], hi[dims] per line

    bool operator==(const IndexSpace& o) const {
      return empty == o.empty && dims == o.dims &&
             mixed_dims == o.mixed_dims && coordinates == o.coordinates;
    }
  };
  struct Operation {
    char kind = 'U';  // 'U'nion, 'I'ntersection, 'D'ifference
    std::vector<uint64_t> sources;
    bool operator==(const Operation& o) const {
      return kind == o.kind && sources == o.sources;
    }
  };
  struct Requirement {
    uint64_t index = 0;
    bool region = false;  // a region (not a partition)
    uint64_t handle = 0, field_space = 0, tree = 0;
    std::vector<uint64_t> fields;
    bool operator==(const Requirement& o) const {
      return index == o.index && region == o.region && handle == o.handle &&
             field_space == o.field_space && tree == o.tree &&
             fields == o.fields;
    }
  };
  // An expression's points, or why not.
  struct Evaluated {
    std::shared_ptr<const PointSet> set;  // null: unknown
    std::string why;
  };

  const Evaluated& Evaluate(uint64_t expression, int depth,
                            uint64_t* steps) const;
  Evaluated EvaluateSpace(uint64_t index_space, uint64_t* steps) const;

  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, uint64_t> field_sizes_;
  absl::flat_hash_map<uint64_t, IndexSpace> spaces_;
  absl::flat_hash_map<uint64_t, uint64_t> space_of_expression_;
  absl::flat_hash_map<uint64_t, Operation> operations_;  // by result
  absl::flat_hash_map<uint64_t, std::vector<Requirement>> requirements_;
  mutable absl::flat_hash_map<uint64_t, Evaluated> evaluated_;
  mutable Evaluated too_deep_;
};

}  // namespace realm_log
}  // namespace realm_shadow

#endif  // REALM_SHADOW_INGEST_LEGION_SPY_SHAPES_H_
