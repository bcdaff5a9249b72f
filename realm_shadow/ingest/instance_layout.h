// realm_shadow/ingest/instance_layout.h - Realm's "instance layout" line
// read whole, and what the layout alone says about an instance's bytes: the
// points it covers and, where its fields do not interleave, the bytes each
// point of each field takes (its cell).
//
// Layer ingest.  Pure: a printed layout in, a value out; a text that does
// not read exactly is refused whole (ShapeOfLayout says why), never read in
// part.
//
// The text is what InstanceLayout<N,T>::print writes (Realm 25.03 to
// master, runtime/realm/inst_layout.inl; the replay's line grammar hands it
// over as LogLine::text of a kLayout line):
//   Layout(bytes=B, align=A, fields={FID=LIST+REL, ...}, lists=[LIST, ...])
//   LIST  = [PIECE, ...]                 (one per field group; "[]" empty)
//   PIECE = LO..HI->affine(STRIDES+OFF)  (AffineLayoutPiece, the only kind)
//   LO, HI, STRIDES = <x> in 1-D, <x,y,z> in 3-D (Point's operator<<)
//   OpaqueLayout(bytes=B, align=A)       (no fields, no pieces)
// Fields come in FieldID order; LIST indexes `lists`; REL is the field's
// offset relative to its list's pieces; OFF is printed with its sign
// ("+0", "-4096").  A point p of a piece lies at byte OFF + sum(p[d] *
// STRIDES[d]) + REL.  Coordinates are signed, strides unsigned.
//
// Field sizes are not printed (FieldLayout::size_in_bytes is left out), so
// the layout gives a field's size only through its cell: in a piece whose
// strides chain densely (sorted by stride, each is the previous times the
// previous dimension's extent) every point of a field owns the smallest
// stride's bytes; when, in addition, the byte ranges of every field in
// every piece are disjoint (the fields do not interleave: struct-of-arrays),
// that smallest stride is the field's cell.  Legion's layouts make a SOA
// field's smallest stride its size exactly (region_tree.inl,
// create_layout_internal); Realm's own choose_instance_layout rounds a
// field group up to its alignment, which a cell then includes.  An
// interleaved layout (array-of-structs, hybrid) gives no cell.
#ifndef REALM_SHADOW_INGEST_INSTANCE_LAYOUT_H_
#define REALM_SHADOW_INGEST_INSTANCE_LAYOUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "realm_shadow/ingest/line_grammar.h"

namespace realm_shadow {
namespace realm_log {

REALM_SHADOW_HEADER_OF_LAYER(ingest);

struct LayoutPiece {
  int dims = 0;
  int64_t lo[kMaxSpyDims] = {};
  int64_t hi[kMaxSpyDims] = {};
  uint64_t strides[kMaxSpyDims] = {};
  int64_t offset = 0;
};

struct LayoutField {
  uint64_t id = 0;
  uint64_t list = 0;
  uint64_t relative_offset = 0;
};

// A layout as printed.
struct InstanceLayout {
  bool opaque = false;
  uint64_t bytes = 0;
  uint64_t alignment = 0;
  std::vector<LayoutField> fields;
  std::vector<std::vector<LayoutPiece>> lists;
};

// Reads `printed` ("Layout(...)" or "OpaqueLayout(...)"); false, with
// `layout` unspecified, when it is not exactly Realm's form.
bool ParseInstanceLayout(std::string_view printed, InstanceLayout* layout);

// One field of a layout: the points of its piece list and its cell.
struct FieldCell {
  uint64_t id = 0;
  uint64_t points = 0;
  bool points_known = false;  // false: the volume overflows 64 bits
  uint64_t cell = 0;          // bytes per point; 0: the layout does not tell
};

// What a layout says of the instance's bytes (24 B per field, kept per
// instance life by the replay).
struct LayoutShape {
  bool read = false;    // false: not Realm's form, or opaque (`why`)
  std::string why;      // why `read` is false, or why no cell is known
  uint64_t bytes = 0;
  // The points the layout covers: the volume of one list's pieces, when
  // every list used by a field covers the same number (as in every layout
  // Legion and Realm make).
  bool points_known = false;
  uint64_t points = 0;
  std::vector<FieldCell> fields;  // in the layout's (FieldID) order
};

// The shape of a printed layout.  Linear in its pieces and fields, plus a
// sort of their byte ranges.
LayoutShape ShapeOfLayout(std::string_view printed);

}  // namespace realm_log
}  // namespace realm_shadow

#endif  // REALM_SHADOW_INGEST_INSTANCE_LAYOUT_H_
