// realm_shadow/core/identity.h - what an allocation is in Legion's and
// Legate's terms: its kind and its ordered attributes, with the one set of
// attribute keys every source writes and every tool reads.
//
// Layer core: plain values.  The table that interns an identity into the
// 32-bit id events carry is the recorder's (recorder/identity_table.h);
// dumps carry the identities themselves (Snapshot::identities).
#ifndef REALM_SHADOW_CORE_IDENTITY_H_
#define REALM_SHADOW_CORE_IDENTITY_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(core);

// What a live allocation is, as far as we know (legion_glue attaches it).
// Values are part of the dump format: append only.
enum class AllocationKind : uint8_t {
  kUnknown = 0,
  kRegionInstance = 1,
  kDeferredBuffer = 2,
  kDeferredValue = 3,
  kFuture = 4,
  kPoolBacking = 5,
  kPoolSubAllocation = 6,
  kExternal = 7,
};
inline constexpr int kAllocationKindCount = 8;
const char* AllocationKindName(AllocationKind kind);

// Attribute keys every source uses (legion_glue, the Realm-log reader), so
// that tools can group and search by them (report --by, the page).  One
// name each, here; the sources write no key of their own spelling.
inline constexpr char kRegionsAttribute[] = "regions";
inline constexpr char kFieldsAttribute[] = "fields";
inline constexpr char kCreatorAttribute[] = "creator";  // the operation
inline constexpr char kTaskAttribute[] = "task";        // its task's name
inline constexpr char kProvenanceAttribute[] = "provenance";
inline constexpr char kStoreAttribute[] = "store";          // Legate store
inline constexpr char kElementsAttribute[] = "elements";    // its range
inline constexpr char kReductionAttribute[] = "redop";      // reduction op
inline constexpr char kShapeAttribute[] = "shape";          // Legate store shape
inline constexpr char kTypeAttribute[] = "type";            // element type
inline constexpr char kTransformAttribute[] = "transform";  // store transform
inline constexpr char kPartitionAttribute[] = "partition";
inline constexpr char kPoolAttribute[] = "pool";            // owning pool
// Why Legion keeps an instance (the allocation's pinned flag says that it
// does), in words, and the GC priority its mapper gave it (a decimal
// integer; LEGION_GC_NEVER_PRIORITY, INT_MIN, never collected), for a source
// that knows them.  legion_glue's sites see only the valid flag and write
// neither; absent, the remedies say what the allocation's kind implies
// (analysis/remedies.h).
inline constexpr char kGcReasonAttribute[] = "gc_reason";
inline constexpr char kGcPriorityAttribute[] = "gc_priority";
// What a rebuilt dump says of a size the log does not give: "size" is
// "upper bound" (the range it may take at most) or "unknown".
inline constexpr char kSizeAttribute[] = "size";
inline constexpr char kSizeUpperBound[] = "upper bound";
inline constexpr char kSizeUnknown[] = "unknown";
// What a rebuilt dump says of a range whose release is ready: "held" is
// kHeldMaybeGivenBack.  Realm logs "deallocation completed" when a
// release's precondition fires, and keeps the range (release ready) while
// requests wait in its allocator's queue behind older releases
// (mem_impl.cc release_storage_immediate); which requests wait there, and
// which on their own precondition, the log does not say.  So a range is
// shown held, release ready, and may be free already.
inline constexpr char kHeldAttribute[] = "held";
inline constexpr char kHeldMaybeGivenBack[] =
    "release ready, or given back already: the log cannot tell";
// What a rebuilt dump says of a release pending on an event the log never
// names (with Realm's event lines on: no "user event created", trigger,
// merge or instance's "ready=" names it; a redistrict's new instances'
// ready events are such): "release" is kReleaseMaybeSkipped.  Realm skips
// a destroy whose precondition is poisoned, silently when it already was,
// and keeps the range for good; the log cannot say whether that event was.
inline constexpr char kReleaseAttribute[] = "release";
inline constexpr char kReleaseMaybeSkipped[] =
    "pending, or skipped for good: it waits on an event the log never names, "
    "which Realm may have poisoned";
// What a rebuilt dump says a waiting request waits on when the log cannot
// name it: "waits_on" is kWaitsOnUnnamedRedistrict for the pieces of a
// redistrict whose precondition has not fired.  Realm logs only the
// pieces' announces then, nothing of the instance redistricted, so which
// of the memory's instances Realm holds release pending is not in the log.
inline constexpr char kWaitsOnAttribute[] = "waits_on";
inline constexpr char kWaitsOnUnnamedRedistrict[] =
    "a redistrict of one live instance in this memory, which the log does "
    "not say: that instance's release is pending";

// ---- Figures: what the instance's bytes hold ---------------------------------
// Keys starting with '#' are figures for tools to read and group, never
// printed in an identity line (IdentityText leaves them out).  Each value
// is an unsigned decimal integer; an absent key is a figure nobody knows
// (kFiguresUnknownAttribute says why).  Every source that writes them (the
// Realm-log reader from Realm's "instance layout" and Legion Spy's lines, a
// tracked build from what the Legion sites record) writes them with these
// meanings, so that analysis/waste.h reads one set:
//
//   allocation bytes = padding                       (size - #field_bytes)
//                    + inflation    (#points - #region_points) * #bytes_per_point
//                    + unrequested  (#bytes_per_point - #requested_bytes_per_point)
//                                   * #region_points
//                    + useful       #requested_bytes_per_point * #region_points
//
// The points the instance's layout covers: the sum of the volumes of the
// bounds of one piece list's pieces (every field's list covers the same
// points in the layouts Legion and Realm make; when they do not, unknown).
inline constexpr char kPointsAttribute[] = "#points";
// The bytes of the layout that hold field data: over the fields it holds,
// each field's size times the points of its piece list.  The rest of the
// allocation is padding (alignment of field blocks and of the instance's
// end, element padding inside interleaved fields).
inline constexpr char kFieldBytesAttribute[] = "#field_bytes";
// The bytes one point holds: the sum of the sizes of the fields it holds.
inline constexpr char kBytesPerPointAttribute[] = "#bytes_per_point";
// The points of the region(s) the instance was made for (Legion's instance
// domain: the index space expression of its creation regions), which its
// layout's bounds may exceed (a bounding box over a sparse region, padding).
inline constexpr char kRegionPointsAttribute[] = "#region_points";
// The bytes per point of the fields it holds that its creator asked for:
// the sum of the sizes of the fields its creating operation's requirements
// on the creation region name, among those the instance holds.
inline constexpr char kRequestedBytesPerPointAttribute[] =
    "#requested_bytes_per_point";
// Where the field sizes came from: "Legion Spy" (Field Creation lines),
// "layout" (the field's cell in a layout whose fields do not interleave:
// for Legion's layouts its size exactly; a Realm program's field group
// padded to an alignment above its size counts that padding as field
// bytes), "Legion Spy and layout", or "Legion" (a tracked build's sites).
inline constexpr char kFieldSizesFromAttribute[] = "#field_sizes_from";
// Why figures are absent: "figure: reason; figure: reason".
inline constexpr char kFiguresUnknownAttribute[] = "#unknown";

// Whether an attribute is one of the figures above (its key starts with
// '#'), and whether it is printed in identity lines: "why" (long prose the
// notes carry) and the figures are not.
inline bool IsFigureAttribute(const std::string& key) {
  return !key.empty() && key[0] == '#';
}
inline bool IsPrintedAttribute(const std::string& key) {
  return key != "why" && !IsFigureAttribute(key);
}

// Legion / Legate identity attached to allocations (see legion_glue).
struct Identity {
  uint32_t id = 0;
  AllocationKind kind = AllocationKind::kUnknown;
  // Ordered key/value pairs: "fields", "regions", "provenance", "store",
  // "shape", "partition", "creator", ...
  std::vector<std::pair<std::string, std::string>> attributes;
};

// An identity as every text prints it (report, failure report, timeline,
// trace): " key=value" per attribute, in order, on one line (a control
// character in a name becomes '?'), the attributes IsPrintedAttribute
// refuses ("why", the figures) left out; with_kind puts " region_instance"
// (AllocationKindName) first.
std::string IdentityText(const Identity& identity, bool with_kind = false);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_CORE_IDENTITY_H_
