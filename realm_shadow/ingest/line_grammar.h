// realm_shadow/ingest/line_grammar.h - one line of a Legion/Realm
// log as a typed record: Realm's instance and machine lines, Legion Spy's
// instance, naming and operation lines, and Legate's out-of-memory report.
//
// Layer ingest.  The grammar is pure: a line in, a LogLine out, no state, no
// allocation; the record's strings are views into the line.  It never
// trusts a line in part: a line whose fields do not parse is kMalformed
// (counted by the replay), never a record with some fields guessed.  The
// fuzz target tests/fuzz/realm_log_grammar_fuzz.cc feeds it arbitrary bytes.
//
// Formats (Realm's Logger, Legion's legion_spy.h, Legate's BaseMapper; see
// docs/cli.md and the fixtures' INDEX.txt):
//   prefix    "[NODE - THREADHEX]  SECONDS {LEVEL}{LOGGER}: MESSAGE"; the
//             machine dump's entries continue on unprefixed lines
//             ("Memory:1e00000000000000, SYSTEM_MEM, capacity: 8388608").
//   inst      Realm's instance lines (realm_log.h lists them).
//   legion_spy  "Physical Instance EVENT INST MEM REDOP EXPR FSPACE TREE",
//             its Field / Creator / Creation Region lines, the names of
//             tasks, fields, field spaces, index spaces, partitions and
//             regions, and the operations that let a creator UID be resolved
//             to a task.  Ids printed with Legion's IDFMT are hex, the others
//             decimal, as legion_spy.h prints them.
//   legate.mapper  the report BaseMapper prints before it aborts on an
//             allocation failure: "Failed to allocate N bytes on memory M
//             ...", "LogicalStore allocated at P:", "Instance I [at address
//             A] of size S covering elements E", "created for an operation
//             launched at P".  Sizes may carry digit separators ("8,388,608").
//
// Cost: one pass over the prefix and a dispatch on the message's first
// bytes; lines of kinds the replay does not use (most Legion Spy lines) stop
// at the dispatch.  About 100 ns per line on the fixtures' mix.  The shape
// lines (index space rects and points, fields, requirements) are read
// whole: on circuit-1rank-spy, where they are 26k of 31k lines, 920
// instructions per line against 520 when they stopped at the dispatch
// (callgrind, RelWithDebInfo).
#ifndef REALM_SHADOW_INGEST_LINE_GRAMMAR_H_
#define REALM_SHADOW_INGEST_LINE_GRAMMAR_H_

#include <cstdint>
#include <string_view>

#include "realm_shadow/layers.h"

namespace realm_shadow {
namespace realm_log {

REALM_SHADOW_HEADER_OF_LAYER(ingest);

// What a line is.  The fields a kind sets are listed with it; `ids` are
// Legion ids in the order given.
enum class LineKind : uint8_t {
  kEmpty = 0,          // nothing but whitespace
  kUnprefixed,         // no Realm prefix: a continuation line, or garbage
  kMachineMemory,      // unprefixed "Memory:M, KIND, capacity: C": memory,
                       // bytes = capacity, text = the kind's name
  kMalformed,          // a known kind whose fields do not parse
  kOtherLogger,        // a prefixed line of a logger nobody reads
  kCheckpoint,         // "CHECKPOINT label" ({app}, {random}): text = label

  // Realm's machine dump ({machine}).
  kMachineNode,        // "Node N:": ids[0] = N
  kMachineOther,       // any other {machine} line

  // Realm's "inst" logger.
  kCreateLocal,        // "creating new local instance: I" / "reusing ...":
                       // instance; ids[0] = 1 when reused
  kRemoteProxy,        // "creating proxy for remotely-created instance: I"
  kLayout,             // "instance layout: inst=I layout=Layout(bytes=B,
                       // align=A, ...)": instance, bytes, alignment; text =
                       // the layout as printed ("Layout(...)" or
                       // "OpaqueLayout(...)"), which instance_layout.h reads
  kAllocated,          // "allocation completed: inst=I offset=O": instance,
                       // offset
  kAllocationFailed,   // "allocation failed: inst=I": instance
  kCreated,            // "instance created: inst=I bytes=B ready=E":
                       // instance, bytes, event; an external instance
                       // ("external=memory(base=A, size=S)" for bytes):
                       // ids[0] = 1, bytes = S
  kDestroyed,          // "instance destroyed: inst=I wait_on=E": instance,
                       // event
  kDeallocated,        // "deallocation completed: inst=I": instance
  kReleasing,          // "releasing local instance: I": instance
  kOutOfMemory,        // fatal "instance allocation failed - out of memory
                       // in mem M": memory
  kInstOther,          // an inst line of a kind not listed here

  // Realm's "event" logger (-level event=2) and "poison" logger (-level
  // poison=2).
  kUserEventCancelled, // "user event cancelled: event=E", "user event
                       // trigger: event=E wait_on=W (poisoned)", and on the
                       // poison logger "event merger poisoned: after=E",
                       // "event merger early poison: after=E", "merging
                       // events - E already poisoned": event E is poisoned
  kEventMerged,        // "event merging: event=M wait_on=E" (one line per
                       // input E of M): event = M, ids[0] = E
  kEventNamed,         // "user event created: event=E", "user event
                       // trigger: event=E wait_on=W" (not poisoned): the
                       // log names event E
  // The poison logger's instance lines name a RegionInstanceImpl by its
  // address (Realm prints the pointer, "inst=0x7f..."), not by id: ids[0] =
  // that address.  Realm keeps one such object per id slot, and logs a
  // skipped creation right before that instance's "allocation failed" on
  // the same thread, which ties the address to an id.
  kCreationSkipped,    // "poisoned deferred instance creation skipped -
                       // inst=P": the next line of the thread is the
                       // cancelled instance's "allocation failed"
  kDestructionSkipped, // "poisoned deferred instance destruction skipped -
                       // POSSIBLE LEAK - inst=P": a destroy whose
                       // precondition was poisoned; the range stays held
  kRedistrictSkipped,  // "poisoned deferred instance redistrict skipped -
                       // POSSIBLE LEAK - inst=P" (P: the old instance):
                       // the old instance keeps its range, and the new
                       // instances' "allocation failed" lines follow on
                       // the thread (cancellations)
  kPoisonOther,        // any other line of the poison logger

  // Legion Spy ({legion_spy}).
  kSpyInstance,        // "Physical Instance": event, instance, memory;
                       // ids = redop, expr, field space, tree
  kSpyInstanceField,   // event; ids[0] = field id
  kSpyInstanceCreator, // event; ids[0] = creator UID, ids[1] = processor
  kSpyCreationRegion,  // event; ids = index space, field space, tree
  kSpyMemory,          // "Memory M C K": memory, bytes = capacity,
                       // ids[0] = Realm memory kind number
  kSpyTaskName,        // "Task ID Name T NAME": ids[0] = T, text
  kSpyTask,            // "Top Task" / "Individual Task" / "Index Task":
                       // ids = context UID, task id, UID; text = name;
                       // event = 1 for an index task
  kSpySliceOf,         // "Index Slice INDEX SLICE", "Slice Slice S1 S2",
                       // "Slice Point SLICE POINT ...", "Point Point P1 P2",
                       // "Index Point INDEX POINT ...": ids[0] = the
                       // owner (index task, slice or original point),
                       // ids[1] = the part (slice or point)
  kSpyReplicate,       // "Replicate Task UID REPL": ids[0] = UID, ids[1] = REPL
  kSpyShard,           // "Replicate Shard REPL SID UID": ids[0] = REPL,
                       // ids[1] = shard UID
  kSpyInternalOp,      // "Internal Operation Creator OP CREATOR IDX":
                       // ids[0] = OP, ids[1] = CREATOR
  kSpyOperation,       // "<Kind> Operation CONTEXT UID ...": ids[0] =
                       // context UID, ids[1] = UID; text = "<Kind>"
  kSpyProvenance,      // "Operation Provenance UID TEXT": ids[0], text
  kSpyFieldSpaceName,  // ids[0] = field space, text
  kSpyFieldName,       // ids[0] = field space, ids[1] = field id, text
  kSpyIndexSpaceName,  // ids[0] = index space, text
  kSpyPartition,       // "Index Partition PARENT P ... COLOR": ids[0] =
                       // parent index space, ids[1] = P, ids[2] = color
  kSpyPartitionName,   // ids[0] = partition, text
  kSpySubspace,        // "Index Subspace P CHILD OWNER DIM C0 C1 ...":
                       // ids[0] = P, ids[1] = CHILD; text = the color's
                       // coordinates (dim of them), as printed
  kSpyRegionName,      // "Logical Region Name IS FS TREE NAME": ids =
                       // index space, field space, tree; text
  // The shapes of regions and the fields operations ask for (read into
  // legion_spy_shapes.h).  Coordinates and sources stay text: their count
  // varies (ReadIntegers reads them; the grammar checks them).
  kSpyFieldCreation,   // "Field Creation FS FID SIZE [PROVENANCE]": ids[0] =
                       // field space, ids[1] = field id, bytes = size
  kSpyIndexSpaceRect,  // "Index Space Rect IS DIM LO0 HI0 LO1 HI1 ...":
                       // ids[0] = IS, ids[1] = DIM (1..9); text = the
                       // coordinates, 2 x LEGION_MAX_DIM of them (the first
                       // 2 x DIM meaningful)
  kSpyIndexSpacePoint, // "Index Space Point IS DIM X0 X1 ...": ids[0] = IS,
                       // ids[1] = DIM; text = LEGION_MAX_DIM coordinates
  kSpyEmptyIndexSpace, // "Empty Index Space IS": ids[0] = IS
  kSpyExpression,      // "Index Space Expression IS EXPR": ids[0] = IS,
                       // ids[1] = the expression id
  kSpyExpressionOp,    // "Index Space Union|Intersection R N S1 ... SN",
                       // "Index Space Difference R LEFT RIGHT": ids[0] = R,
                       // ids[1] = 'U', 'I' or 'D', ids[2] = the number of
                       // sources; text = the sources
  kSpyRequirement,     // "Logical Requirement UID IDX REGION IS|IP FS TREE
                       // PRIV COH REDOP PARENT": ids[0] = UID, ids[1] = IDX,
                       // ids[2] = 1 for a region (0: a partition), ids[3] =
                       // the index space or partition, ids[4] = field space,
                       // ids[5] = tree
  kSpyRequirementField,// "Logical Requirement Field UID IDX FID": ids[0] =
                       // UID, ids[1] = IDX, ids[2] = field id
  kSpyKnown,           // a Legion Spy line the reader does not need
  kSpyUnknown,         // a Legion Spy line of a kind legion_spy.h lacks

  // Legate's out-of-memory report ({legate.mapper}, error level).
  kLegateFailed,       // "Failed to allocate B bytes on memory M (of kind
                       // K) for ... of OP[PROV] (UID U)": bytes, memory,
                       // ids[0] = U; text = the operation and provenance
  kLegateRequestStore, // "corresponding to a LogicalStore allocated at P"
  kLegateStore,        // "LogicalStore allocated at P:": text = P
  kLegateInstance,     // "Instance I [at address A] of size S covering
                       // elements E [of multiple stores]": instance,
                       // offset = A (kNoAddress when absent), bytes = S,
                       // text = E; ids[0] = 1 when "of multiple stores"
  kLegateCreatedFor,   // "created for an operation launched at P": text
  kLegateOther,        // any other legate.mapper line
};

inline constexpr uint64_t kNoAddress = UINT64_MAX;
// The most dimensions an index space or a layout has (LEGION_MAX_DIM and
// REALM_MAX_DIM are at most 9).
inline constexpr int kMaxSpyDims = 9;

struct LogLine {
  LineKind kind = LineKind::kEmpty;
  // The Realm prefix, when the line has one.
  bool prefixed = false;
  uint8_t level = 0;         // 1 debug, 2 info, 3 print, 4 warning, 5 error
  uint32_t node = 0;
  std::string_view time;     // seconds since that process started, as
                             // printed; LineTimeMicros reads them
  std::string_view thread;   // the prefix's thread, in hex as printed: the
                             // lines of one thread are in their true order
  std::string_view logger;
  std::string_view message;  // after "{LEVEL}{LOGGER}: "
  // Fields (see LineKind for which a kind sets).
  uint64_t instance = 0;
  uint64_t memory = 0;
  uint64_t event = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint64_t alignment = 0;
  uint64_t ids[6] = {0, 0, 0, 0, 0, 0};
  std::string_view text;
};

// Parses one line (without its newline; a trailing '\r' is ignored).
// Never fails: what it cannot read is kUnprefixed, kMalformed, kSpyUnknown,
// kInstOther or kOtherLogger.
LogLine ParseLogLine(std::string_view line);

// Reads the space-separated signed decimal integers of `text` (a
// coordinate list, a list of expression ids) into `out`: their count, or
// -1 when a token is not one or there are more than `max`.
int ReadIntegers(std::string_view text, int64_t* out, int max);

// The line's time in microseconds since its process started (0 when the
// prefix has none).  Parsed on demand: the replay needs it only for the
// events it applies, and it is a third of a prefix's cost.
uint64_t LineTimeMicros(const LogLine& line);

// The name of a kind, for counts in notes and tests ("spy_instance", ...).
const char* LineKindName(LineKind kind);

// Realm instance id bits: owner node (61-46), creator node (45-30), memory
// index (29-22), index (21-0); a memory id: tag 0x1e (63-56), owner node
// (55-40), index (7-0).
inline uint32_t InstanceOwnerNode(uint64_t instance) {
  return static_cast<uint32_t>((instance >> 46) & 0xffff);
}
inline uint32_t MemoryOwnerNode(uint64_t memory) {
  return static_cast<uint32_t>((memory >> 40) & 0xffff);
}
inline uint64_t MemoryOfInstance(uint64_t instance) {
  return (uint64_t{0x1e} << 56) | (uint64_t{InstanceOwnerNode(instance)} << 40) |
         ((instance >> 22) & 0xff);
}

}  // namespace realm_log
}  // namespace realm_shadow

#endif  // REALM_SHADOW_INGEST_LINE_GRAMMAR_H_
