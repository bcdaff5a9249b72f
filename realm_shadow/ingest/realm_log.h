// realm_shadow/ingest/realm_log.h - rebuilding memory state from the logs of
// an unmodified Legion/Realm run (-level inst=1, optionally machine=1,
// event=2 and poison=2, and with -lg:spy -level legion_spy=2 the Legion
// identity of every instance).
//
// Layer ingest.  The reader turns Realm's "inst" logger lines into recorder
// Events and applies them to one ShadowMap per memory, so a rebuilt memory is
// exactly what the tracker would have shown for the same events, and every
// tool (report, page, diff) reads it the same way.  Three parts, each in
// ingest/: the line grammar (one line -> a typed record), the replay (one
// node's records -> Events per memory, instance lives, identity bindings),
// and the dump assembly (every node's replay -> one DumpFile).
//
// What the log says and how it is read (see the fixtures' INDEX.txt):
//  - "creating new/reusing local instance: I" opens a new life of id I
//    (ids are reused, the most recently freed first).
//  - "instance layout: inst=I layout=Layout(bytes=B, align=A, ...)" gives the
//    request's size and alignment; it precedes the outcome.
//  - "allocation completed: inst=I offset=O": placed (kAllocated, or
//    kDeferredCompleted when I was deferred).
//  - "instance created: inst=I ... ready=E" with no outcome yet: deferred
//    (kDeferred); after an outcome it only confirms it.
//  - "instance created: inst=I external=memory(base=A, size=S)": an
//    instance on memory the program attached.  Realm's allocator holds none
//    of it; the "allocation completed" before it logs its address minus
//    the memory's base (~1.4e14 in the capacity-0 memory Realm keeps for
//    them, an underflowed ~1.8e19 in another).  It is no allocation, as in
//    the tracker's dump: a note lists it with its size.  A placement past
//    the memory's end is held back until this line says what it is.  With no layout line
//    before it the log lacks Realm's debug-level lines: I is live with B
//    bytes at an unknown place (PendingRequest kPlacementUnknown), and the
//    dump says what is missing and how to get it.
//  - "allocation failed: inst=I": kAllocationFailed, or kDeferredFailed.
//    Realm logs the same line when it cancels a request whose precondition
//    was poisoned, without asking its allocator (inst_impl.cc
//    notify_allocation with ALLOC_CANCELLED: no failure).  Read as a
//    cancellation (kRequestCancelled) where that is certain:
//     - the thread's line before it is the poison logger's "poisoned
//       deferred instance creation skipped" (DeferredCreate::
//       event_triggered logs it, then cancels at once on that thread), or
//       it is a new instance of a redistrict in the run of failures that
//       follows "poisoned deferred instance redistrict skipped";
//     - a deferred request that fitted the heap when it was made and fits
//       it now, with no request queued in the allocator before it (the
//       allocator would have placed it);
//     - a redistrict's piece failing with no release of its old instance
//       before it, in a log with debug lines.
//    Read as a refusal, a fact, where that is certain: a redistrict's piece
//    failing after its old instance's release (Realm released it: the
//    precondition fired unpoisoned), the fatal out-of-memory line, and a
//    deferred request's failure in a log that shows the poison logger on
//    (any of its lines before it): Realm logs every deferred creation it
//    skips, so a deferred request that fails without that line was asked
//    of the allocator (deferred on its precondition, which fired
//    unpoisoned, or by the allocator itself, which never cancels).
//    Otherwise it cannot be told (an instant failure: a precondition
//    poisoned before the request cancels it at once, with no poison line;
//    a deferred one in a log without poison lines): the failure event
//    carries kFailureMaybeCancelled (event.h), and the failure is marked
//    maybe_cancelled wherever it is listed.
//    Either way Realm poisons the instance's ready event (the "ready=E" of
//    its "instance created" line), which skips a destroy waiting on it.
//  - "instance allocation failed - out of memory in mem M" (fatal, Realm
//    aborts next; logged when nobody asked for the allocation result): the
//    newest request in M with a layout and no outcome fails
//    (kAllocationFailed), else the newest deferred one (kDeferredFailed).
//  - "instance destroyed: inst=I wait_on=E": kReleaseRequested (ready when
//    E is 0); for a failed instance nothing (Realm destroys those too).
//  - "deallocation completed: inst=I": kReleased.
//  - With -level event=2, "{2}{event}: user event cancelled: event=E" (or
//    a trigger of E logged "(poisoned)"), and with -level poison=2 "event
//    merger poisoned: after=E", "event merger early poison: after=E",
//    "merging events - E already poisoned": E is poisoned, and so is every
//    event merged from it ("event merging: event=M wait_on=E"; Realm
//    poisons a merge as soon as one input is), and so is the ready event of
//    every failed or cancelled request; a destroy that waits on any of them
//    is skipped (mem_impl.cc: the deletion is cancelled, Realm keeps the
//    range for good, "POSSIBLE LEAK"; a release_requested event with aux 2,
//    counted in the notes).  A destroy of a request still waiting keeps no
//    release for its placement.
//  - -level poison=2 names instances by their RegionInstanceImpl address,
//    not their id ("poisoned deferred instance destruction skipped -
//    POSSIBLE LEAK - inst=0x7f..."): an address is tied to an id by a
//    skipped creation and the failure after it (one object per id slot),
//    and a skipped destroy or redistrict of a known address cancels that
//    instance's requested release; one of an address never tied is only
//    counted (its precondition's poisoning, in the event lines, does it).
//  - "creating proxy for remotely-created instance: I": another node's
//    instance; counted, never an allocation.
//  - Redistrict: the new instances get only "creating/reusing" lines (no
//    layout), logged together (one run); the old one gets "deallocation
//    completed" with no "instance destroyed" before it; then one
//    "allocation completed" (or "allocation failed") per piece.  Read as
//    kRedistrict + kRedistrictPiece.  The pieces are the run announced
//    right before the release, else the only run waiting, else the run of
//    the first waiting instance whose outcome follows it.
//  - The machine=1 dump, a multi-line entry, gives each memory's kind and
//    capacity ("Memory:1e00000000000000, SYSTEM_MEM, capacity: 16777216");
//    node 0 writes it for every node.  Legion Spy's "Memory M C K" gives a
//    node's own memories.  "IB Memory" lines (internal) are skipped.
//  - An instance's memory and owner node come from its id bits:
//    0x1e << 56 | ((I >> 46) & 0xffff) << 40 | ((I >> 22) & 0xff).
//  - Legion Spy: "Physical Instance EVENT I M REDOP ..." names the
//    instance life of I open at that line; its Field, Creator and Creation
//    Region lines, and the naming and operation lines anywhere in the run,
//    give its regions, fields, creating operation and task
//    (legion_spy.h).
//  - Legate's out-of-memory report (BaseMapper, on stderr and in the log):
//    each instance it lists gets its store's allocation site and element
//    range (line_grammar.h).
//
// What the log cannot tell, and what the reader does about it:
//  - Redistricted pieces' sizes appear nowhere.  A piece ends at or before
//    the next piece's offset (the next that begins after it: a zero-byte
//    piece may share its offset), and the last at or before the old
//    instance's end (the old size is known from its own layout line), so
//    each piece is given that upper bound as its size and an Identity with
//    attribute "size" = "upper bound" (kSizeAttribute / kSizeUpperBound).
//    Holes next to such a piece are therefore lower bounds.  A later
//    allocation inside a bounded piece tightens the bound (applied as a
//    one-piece redistrict of the piece into itself, its requested release
//    kept), whether or not its release was requested.  Piece alignment is
//    unknown (reported as 1).
//  - A failed piece's size is unknown: its Failure has size 0 and the note
//    lists it.
//  - A redistrict waiting on its precondition shows only the new instances'
//    "reusing" lines: they are waiting requests of unknown size and
//    alignment (kDeferred of 0 B at alignment 0; Identity "size" =
//    "unknown"), applied at the next CHECKPOINT line or when the input is
//    settled (the moments a cut is taken: the whole log's history there
//    equals the cut; a create's layout, on the line after its announce,
//    would otherwise take it back).  Realm logs nothing of the instance
//    redistricted until the precondition fires (RegionInstanceImpl::
//    redistrict announces the pieces; the old instance's deferred destroy
//    logs only when it runs), and the pieces' ids say nothing of it: so
//    the pieces also carry "waits_on" = kWaitsOnUnnamedRedistrict (its
//    release is pending, which instance is not in the log), and every
//    live instance stays live until the log shows its range released.  A
//    piece destroyed while it waits keeps the request: released pending
//    once placed (Realm queues it behind the redistrict), or dropped when
//    the redistrict's last piece fails (that destroy must wait on the
//    redistrict's ready event, which Realm then poisons).
//  - A release whose precondition fires while requests are queued in
//    Realm's allocator: Realm keeps the range (release ready) until the
//    releases queued before it go or the allocator's queue is served
//    (mem_impl.cc release_storage_immediate, attempt_release_reordering),
//    and logs "deallocation completed" when it fires either way.  Whether
//    a deferred request waits in that queue or on its own precondition is
//    not in the log (both log only "instance created" with no outcome).
//    The reader keeps Realm's order of releases (one per destroy, in log
//    order) and gives the range back at that line where that is certain:
//    no request may be queued (none deferred but those that fitted the
//    heap with nothing queued, and fit it still; or no other release
//    pending, since Realm queues a request only while one is, and serves
//    its queue once they fire, barring a release cancelled meanwhile), or
//    it is the oldest release and fired after its destroy (Realm then also
//    gives back the ready ones behind it).  Otherwise the range stays, release ready,
//    and its identity says "held" = kHeldMaybeGivenBack (identity.h):
//    held, or given back already.  Every range release ready in a rebuilt
//    dump or at any moment of its history carries that marking, and the
//    holes beside it are lower bounds.  It is shown free once the log
//    says so: an allocation lands on it (a redistrict's piece landed on at
//    its start included: not narrowed to zero bytes), or the older
//    releases go.  When
//    Realm reuses its id meanwhile, it stays until the new life enters
//    the map (which keeps one entry per id), and is shown free from then.
//    A redistrict whose old instance's release fires while requests may
//    be queued is read as done (Realm may keep the old range and hold the
//    pieces back): not marked.
//  - A failure that may be a cancellation (above: an instant one, or a
//    deferred one in a log without poison lines): refused by the allocator,
//    or cancelled by a poisoned precondition; the log reads the same.
//    Shown as a failure marked maybe_cancelled ("refused by the allocator,
//    or cancelled by a poisoned precondition: the log cannot tell"): in the
//    dump (flag bit), its JSON, the report, the timeline, the page and the
//    replay, which leaves it out of the run's failures; counted in a note.
//  - A destroy whose precondition was poisoned by nothing the log names
//    (without -level event=2 and poison=2, or on an event the log never
//    logs, such as a redistrict's new instances' ready events; a destroy on
//    an event already poisoned is skipped without a line): shown release
//    pending, as the log leaves it, while Realm keeps the range for good; a
//    note counts the releases pending on an event and says each may be
//    such a one.  In a log with Realm's event lines, a live range whose
//    destroy waits on an event no line names (no "user event created",
//    trigger, merge or instance's "ready=") is also marked: its identity
//    says "release" = kReleaseMaybeSkipped (identity.h), at every moment
//    of the history too (the map carries kReleaseMaybeSkippedMark through
//    a kAttachIdentity event, which the assembly turns into the marker),
//    until the release fires or is cancelled.  Not for a redistrict's
//    piece (its size marking is the one it carries).
//  - Releases logged after the allocation they made room for (another
//    thread wrote them later): when an allocation lands on an instance whose
//    destroy was requested and not yet completed, that release must already
//    have happened; it is applied first and counted as a reordering, not an
//    anomaly, and its later "deallocation completed" line is consumed.
//  - Capacity without machine=1 or Legion Spy: unknown
//    (Snapshot::capacity_known false).
// Lines of other loggers, continuation lines of multi-line entries and lines
// the reader does not know are counted and skipped, never fatal; the counts
// go into the dump's notes.
//
// Cost: one hash lookup and one ordered-set step per instance line; memory
// proportional to the instances alive in the log.  Several logs are read in
// parallel, one thread per log (bench/ingest_benchmark.cc measures it).
//
// History: every event applied is kept, in order, with the time and number
// of the line that gave it (MemoryHistory, clock kLogTime; the base is the
// empty memory before the first event, nothing is dropped), so timeline,
// at, trace and the page's time strip read a stock run's whole history.
// Times are that rank's seconds since its own process start: the logs of
// two nodes are kept apart by (node, memory) and their clocks are not
// aligned.  The history's last moment is the map's state; the size markers
// (upper bound, unknown) are in its identities, and the history cursor puts
// them on every moment's pieces (history_cursor.h); the identities joined
// from Legion Spy are in the dump's picture only.  32 B per event and 24 B
// per line that made one.
#ifndef REALM_SHADOW_INGEST_REALM_LOG_H_
#define REALM_SHADOW_INGEST_REALM_LOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "realm_shadow/format/dump.h"
#include "realm_shadow/ingest/dump_assembly.h"
#include "realm_shadow/ingest/node_rebuild.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(ingest);

// The memory an instance id belongs to (see the bit layout above).
inline uint64_t RealmMemoryOfInstance(uint64_t instance) {
  return realm_log::MemoryOfInstance(instance);
}

using RealmLogCounts = realm_log::RebuildCounts;
using IngestSummary = realm_log::IngestSummary;

// Reads one stream of lines (one log, or several nodes' lines merged: each
// node's lines are replayed apart, by the node in their prefix).
class RealmLogReader {
 public:
  // `options` (may be null) must outlive the reader.
  explicit RealmLogReader(const realm_log::RebuildOptions* options = nullptr);
  ~RealmLogReader();
  RealmLogReader(const RealmLogReader&) = delete;
  RealmLogReader& operator=(const RealmLogReader&) = delete;

  // One line, without its newline (a trailing '\r' is ignored).
  void FeedLine(std::string_view line);
  // Any bytes: split into lines; a last line without newline is fed too.
  void FeedText(std::string_view text);

  // The state so far as a dump (source "ingest-realm-log", the node from
  // the lines' prefix, notes on what the log could not tell).  May be
  // called at any point, e.g. at each CHECKPOINT line; reading goes on.
  DumpFile Dump(IngestSummary* summary = nullptr);

  // Summed over the nodes of the stream.
  RealmLogCounts counts() const;
  // The node given by the first line's "[node - thread]" prefix (0 if none).
  uint32_t node() const;
  // Whether any line was recognisably from Realm's logger.
  bool saw_realm_lines() const;
  // Lines fed so far.
  uint64_t lines() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

struct IngestOptions {
  // Stop before this 1-based line of each log (0: read everything), e.g. at
  // the line that marks a dump taken during the run.
  uint64_t stop_before_line = 0;
  // Logs read at once; 0: one per core.
  unsigned threads = 0;
  // Observes every applied event; called from the reading threads, so it
  // must be thread-safe when several logs are read.  May be null.
  const realm_log::RebuildOptions* rebuild = nullptr;
};

// Reads each log (one per node of a run: `run_%.log` as Realm expands it,
// and any file of Legate's out-of-memory report) and assembles one dump,
// memories kept apart by (node, memory id) (dump_assembly.h).
// An error of one line naming the file when a log cannot be read (NotFound)
// or holds no Realm line at all (InvalidArgument); everything else (a second
// log of one node, a log of another run, a truncated log) is a note and a
// warning in *summary (which may be null).
absl::StatusOr<DumpFile> IngestRealmLogs(const std::vector<std::string>& paths,
                                         const IngestOptions& options = {},
                                         IngestSummary* summary = nullptr);

// The log lined up with one dump: for each memory of the dump at
// `dump_path`, the state rebuilt from `log_path` up to (not including) that
// memory's marker line for this dump (realm_shadow/log_sink.h: "dump memory=M
// sequence=S ... file=PATH", written through Realm's logger when the dump
// was taken).  A marker names the dump when its file is the dump's absolute
// path, or, failing any such marker, has the same file name.  When a file
// was written more than once, the marker whose sequence equals the dump's
// is used, else the last one (and a note says so).  The result holds only
// the dump's memories, in the dump's node, with notes naming each cut.
// An error of one line when a file cannot be read, or NotFound when no
// marker of the dump is in the log (the run had no -level realm_shadow=2, or
// the dump is from another run).
//
// Realm goes on allocating while a snapshot is taken: the instances the log
// names between the dump's begin line ("dump begin ...", written right
// before the snapshot) and its marker may be on either side of it.  They
// are listed in a note "<memory>: in flight while the snapshot was taken
// (...): <ids>" (kInFlightNote), which compare.h reads.
inline constexpr const char* kInFlightNote =
    "in flight while the snapshot was taken";
absl::StatusOr<DumpFile> IngestRealmLogAtDump(const std::string& log_path,
                                              const std::string& dump_path);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_INGEST_REALM_LOG_H_
