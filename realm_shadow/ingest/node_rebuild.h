// realm_shadow/ingest/node_rebuild.h - one node's log lines replayed into
// one ShadowMap per memory, with Realm's semantics, id reuse and what Legion
// Spy and Legate said about each instance life.
//
// Layer ingest.  A NodeRebuild takes the parsed lines (line_grammar.h) of one
// Legion node, in log order, and applies the recorder Events they mean to
// that node's memories (realm_log.h lists the line kinds and the events).
// It keeps, per instance id, the life now open (ids are reused: a
// "creating/reusing local instance" line opens a new life), and binds every
// Legion Spy "Physical Instance" line and every Legate "Instance" line to
// the life of that id open when the line was logged, so an identity never
// leaks from one life of an id to the next.
//
// Guarantees
//  - Events are applied in log order, each exactly once, except releases
//    that must have happened before an allocation that lands on them
//    (applied first, counted as reorderings; realm_log.h).
//  - Only instances owned by the replay's node are ever placed: a line
//    naming another node's instance (a remote proxy, or a log that is not
//    this node's) is counted and changes nothing, so no phantom allocation
//    appears in a memory this node does not own.
//  - Every applied event can be observed with the log's time and line
//    (RebuildOptions::observer), for timelines built on top.
//  - Nothing is fatal: a line that does not fit the state is counted.
//
// Cost: one hash lookup and one ordered-set step per instance line; memory
// proportional to the instances alive plus one record per Legion Spy
// instance.  Not thread-safe; one replay per node, several in parallel.
#ifndef REALM_SHADOW_INGEST_NODE_REBUILD_H_
#define REALM_SHADOW_INGEST_NODE_REBUILD_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "realm_shadow/core/history.h"
#include "realm_shadow/analysis/shadow_map.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/ingest/instance_layout.h"
#include "realm_shadow/ingest/legion_spy.h"
#include "realm_shadow/ingest/legion_spy_shapes.h"
#include "realm_shadow/ingest/line_grammar.h"

namespace realm_shadow {
namespace realm_log {

REALM_SHADOW_HEADER_OF_LAYER(ingest);

// An event as it was applied, and where in the log it came from.
struct AppliedEvent {
  uint32_t node = 0;
  uint64_t memory = 0;
  Event event{EventType::kNoop};
  uint64_t time_us = 0;  // the line's time, on its own process's clock
  uint64_t line = 0;     // 1-based line number in its file
};

// The identity id a rebuild's map gives a live range whose release waits on
// an event the log never names (kReleaseAttribute): no identity table hands
// it out; the dump assembly puts the marker in its place, in the picture
// and in the history's events.
inline constexpr uint32_t kReleaseMaybeSkippedMark = 0xfffffff0u;

struct RebuildOptions {
  // Called for every event applied to a memory's map, in order.
  std::function<void(const AppliedEvent&)> observer;
};

struct RebuildCounts {
  uint64_t lines = 0;               // lines of this node (and their
                                    // continuation lines)
  uint64_t instance_lines = 0;      // "inst" lines understood
  uint64_t memory_lines = 0;        // machine dump "Memory:" lines read
  uint64_t continuation_lines = 0;  // other lines of multi-line entries
  uint64_t other_logger_lines = 0;  // lines of loggers nobody reads
  uint64_t unknown_lines = 0;       // inst lines not understood, garbage
  uint64_t reorderings = 0;         // releases applied before their line
  uint64_t redistricts = 0;
  uint64_t bounded_pieces = 0;      // pieces whose size is an upper bound
  uint64_t tightened_bounds = 0;    // bounds narrowed by a later allocation
  uint64_t checkpoints = 0;         // "CHECKPOINT <label>" lines seen
  // Debug-level lines ("instance layout", "allocation completed") seen;
  // a log without them cannot place anything.
  uint64_t layout_lines = 0;
  uint64_t placement_lines = 0;
  uint64_t created_without_layout = 0;  // "instance created" with no layout
  uint64_t fatal_without_request = 0;   // out-of-memory lines, no request
  uint64_t cancelled_releases = 0;      // destroys whose user event was
                                        // cancelled (-level event=2)
  uint64_t cancelled_requests = 0;      // requests whose precondition was
                                        // poisoned (no failure)
  uint64_t maybe_cancelled_failures = 0;  // "allocation failed" the log
                                          // cannot tell from a cancellation
  // -level poison=2: the poison logger's lines, and its skipped creations,
  // destroys and redistricts.
  uint64_t poison_lines = 0;
  uint64_t skipped_creations = 0;
  uint64_t skipped_destroys = 0;
  uint64_t skipped_redistricts = 0;
  uint64_t external_instances = 0;      // "external=" instances (no range)
  uint64_t remote_proxies = 0;          // "creating proxy ..." lines
  uint64_t foreign_instance_lines = 0;  // lines naming another node's instance
  // Legion Spy.
  uint64_t spy_lines = 0;           // every legion_spy line
  uint64_t spy_unknown_lines = 0;   // kinds legion_spy.h does not print
  uint64_t spy_malformed_lines = 0; // known kinds whose fields do not parse
  uint64_t spy_instances = 0;       // "Physical Instance" of our instances
  uint64_t spy_bound = 0;           // ... bound to a Realm instance life
  uint64_t spy_remote_instances = 0;  // "Physical Instance" of others'
  // Legate's out-of-memory report.
  uint64_t legate_lines = 0;
  uint64_t legate_instances = 0;
  uint64_t legate_bound = 0;

  RebuildCounts& operator+=(const RebuildCounts& other);
};

// What Legion Spy said of one physical instance (one "Physical Instance"
// line and the lines that refer to its event).
struct SpyInstance {
  uint64_t event = 0;     // Legion's unique instance event, the same on
                          // every node
  uint64_t instance = 0;  // Realm instance id
  uint64_t memory = 0;
  uint64_t redop = 0;
  uint64_t expression = 0;  // the instance's domain (legion_spy_shapes.h)
  uint64_t field_space = 0, tree = 0;
  std::vector<uint64_t> fields;
  bool has_creator = false;
  uint64_t creator = 0;    // operation UID
  uint64_t processor = 0;
  bool has_region = false;
  uint64_t region_index_space = 0, region_field_space = 0, region_tree = 0;
  // Every "Creation Region" line's (index space, field space, tree): the
  // mapper may make an instance for several regions (the fields above are
  // the last's).
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> creation_regions;
  uint64_t line = 0;
  bool owned = false;  // logged by the instance's owner node
  bool bound = false;  // owned and joined to a Realm instance life
};

// One instance of Legate's out-of-memory report.
struct LegateInstance {
  uint64_t instance = 0;
  uint64_t address = kNoAddress;
  uint64_t size = 0;
  std::string elements;
  std::string store;        // "LogicalStore allocated at <store>"
  std::string created_for;  // "created for an operation launched at <...>"
  bool multiple_stores = false;
  uint64_t line = 0;
  bool bound = false;
};

// Legate's "Failed to allocate" line and the stores it names.
struct LegateFailure {
  uint64_t bytes = 0;
  uint64_t memory = 0;
  uint64_t uid = 0;
  std::string operation;            // "Task cupynumeric::BinaryOpTask[x.py:16]"
  std::vector<std::string> stores;  // "corresponding to a LogicalStore ..."
  uint64_t line = 0;
};

enum class Phase : uint8_t {
  kAnnounced,     // "creating/reusing local instance", nothing else yet
  kLive,          // placed
  kDeferred,      // waiting (kDeferred applied)
  kUnplaced,      // created, its placement not in the log (no debug lines):
                  // holds memory somewhere
  kFailedUnsized, // failed before its size was logged (no debug lines)
  kFailed,        // failed or cancelled; Realm still destroys it
  kGone,          // released
  kBeyondEnd,     // "allocation completed" past the memory's end: an
                  // external instance, unless its "instance created" line
                  // says otherwise (held back until then)
  kExternal,      // on memory the program attached ("external=" on its
                  // "instance created" line): holds no allocator range
};

// The open life of one instance id.
struct InstanceLife {
  uint64_t memory = 0;
  Phase phase = Phase::kAnnounced;
  bool have_layout = false;
  uint64_t size = 0;
  uint64_t alignment = 1;
  uint64_t offset = 0;
  // What its "instance layout" line says of its bytes (null: no layout).
  std::shared_ptr<const LayoutShape> layout;
  bool release_requested = false;
  uint64_t release_wait_on = 0;  // the destroy's precondition event
  // The announce run right after its destroy line: a "deallocation
  // completed" read in it fired with the destroy (its precondition had
  // triggered), not later.
  uint64_t destroy_run = 0;
  // Its release fired while requests may wait in Realm's allocator: Realm
  // may still hold the range (release ready), or have given it back.
  bool maybe_held = false;
  // Its release waits on an event the log never names: the map's range
  // carries kReleaseMaybeSkippedMark until the release fires or goes.
  bool release_on_unnamed_event = false;
  // "ready=E" of its "instance created" line: Realm poisons E when the
  // request fails or is cancelled (inst_impl.cc notify_allocation), so a
  // destroy waiting on it is skipped.
  uint64_t ready_event = 0;
  // kFailedUnsized: its failure, once applied, is marked maybe cancelled.
  bool failure_maybe_cancelled = false;
  bool bounded = false;  // size is an upper bound (redistrict piece)
  // Announced with no layout and shown waiting (kDeferred, size unknown):
  // a piece of a redistrict waiting on its precondition.
  bool shown_waiting = false;
  // Deferred while it fitted the memory's current heap and no request
  // waited in the allocator: Realm's allocator did not defer it, its
  // precondition did, so its failure is a cancellation (the precondition
  // was poisoned; the allocator was never asked).
  bool waits_on_precondition = false;
  uint64_t announce_order = 0;
  // Announce lines with no other inst line (nor a line of the program's
  // own loggers) between them make one run: a redistrict logs its pieces'
  // announces together, a create its layout right after its announce.
  uint64_t announce_run = 0;
  uint32_t spy = 0;     // 1 + index into RebuildState::spy, 0: none
  uint32_t legate = 0;  // 1 + index into RebuildState::legate, 0: none
};

struct MemoryState {
  uint64_t id = 0;
  uint32_t node = 0;
  bool listed = false;  // seen in the machine dump
  MemoryKind kind = MemoryKind::kOther;
  std::string kind_name;
  uint64_t capacity = 0;
  bool capacity_known = false;
  bool has_instances = false;
  ShadowMap map{0, false, false};
  // Every event applied, with its line's time and number (clock kLogTime):
  // the base is the empty memory before the first event, nothing dropped.
  // 32 B per event and 24 B per line that made one.
  MemoryHistory history;
  // Live ranges by (offset, instance): finds the pending destroys a new
  // allocation lands on, and the bounded pieces it narrows.
  std::set<std::pair<uint64_t, uint64_t>> live;
  std::vector<uint64_t> failed_unknown_size;  // failed redistrict pieces
  // Deferred requests that may wait in Realm's allocator (not known to wait
  // on their precondition only): a request behind them may be deferred by
  // the allocator even where it fits.
  std::set<uint64_t> maybe_queued;
  // Deferred requests known to wait on their precondition (not queued when
  // deferred): the allocator may queue one once it fires, if it no longer
  // fits then (MayHoldQueuedRequests).
  std::set<uint64_t> on_precondition;
  // The releases requested in this memory and not known given back, in
  // the order of their destroys: a superset of Realm's pending_releases,
  // in its order (mem_impl.cc), so that the oldest here is Realm's oldest
  // when Realm still queues it.  `fired`: its "deallocation completed"
  // was read and the range is shown held (InstanceLife::maybe_held).
  struct QueuedRelease {
    uint64_t instance = 0;
    uint64_t life = 0;  // the life's announce_order (ids are reused)
    bool fired = false;
  };
  std::deque<QueuedRelease> releases;
  // Ranges shown held (maybe_held) whose id Realm reused meanwhile: the
  // new life is not in the map yet (announced, or failed), so the range
  // stays until it enters, or the log shows it free.
  struct HeldRange {
    uint64_t offset = 0;
    uint64_t size = 0;
    uint64_t life = 0;
  };
  std::map<uint64_t, HeldRange> held_reused;
  // A release was cancelled while requests may have waited in Realm's
  // allocator: Realm's queue may then outlive every pending release.
  bool release_cancelled_while_queued = false;
  // External instances attached now (instance -> bytes): not allocations.
  std::map<uint64_t, uint64_t> external;
  uint64_t reorderings = 0;
  uint64_t released_without_destroy = 0;
};

struct RedistrictGroup {
  uint64_t memory = 0;
  uint64_t old_instance = 0;
  uint64_t old_offset = 0;
  uint64_t old_end = 0;
  struct Piece {
    uint64_t instance = 0;
    bool placed = false;
    bool failed = false;
    uint64_t offset = 0;
  };
  std::vector<Piece> pieces;
  // Several redistricts wait in this memory: the pieces are the run of
  // the first waiting instance whose outcome comes next (Realm logs a
  // redistrict's outcomes right after its old instance's release).
  bool run_unknown = false;
};

// A memory the machine dump or Legion Spy lists: kind and capacity.
struct ListedMemory {
  std::string kind_name;
  uint64_t capacity = 0;
};

// Everything a replay knows; the dump assembly reads it.
struct RebuildState {
  uint32_t node = 0;
  RebuildCounts counts;
  std::map<uint64_t, MemoryState> memories;
  absl::flat_hash_map<uint64_t, InstanceLife> instances;
  // Releases applied early (reordering) whose line has not been read yet.
  absl::flat_hash_set<uint64_t> released_early;
  std::vector<RedistrictGroup> open_groups;
  uint64_t announce_counter = 0;
  // Legion Spy.
  std::vector<SpyInstance> spy;
  absl::flat_hash_map<uint64_t, uint32_t> spy_by_event;  // event -> index
  std::vector<uint32_t> spy_unbound;  // owned records with no Realm life
  SpyCatalog catalog;
  SpyShapes shapes;
  std::map<uint64_t, ListedMemory> spy_memories;  // "Memory M C K" lines
  // Legate.
  std::vector<LegateInstance> legate;
  std::vector<LegateFailure> legate_failures;
  std::string legate_store;  // the "LogicalStore allocated at" in force
  // The machine dump (written by node 0 for every node).
  std::map<uint64_t, ListedMemory> machine_memories;
  std::set<uint64_t> machine_nodes;  // "Node N:" entries
  uint64_t last_line = 0;
};

class NodeRebuild {
 public:
  NodeRebuild(uint32_t node, const RebuildOptions* options);
  NodeRebuild(const NodeRebuild&) = delete;
  NodeRebuild& operator=(const NodeRebuild&) = delete;

  // One prefixed line of this node, and the unprefixed lines that follow
  // it (continuations of its entry: the machine dump's "Memory:" lines).
  void Feed(const LogLine& line, uint64_t line_number);
  void FeedContinuation(const LogLine& line, uint64_t line_number);

  // Settles what the end of the input decides (open redistricts, failures
  // whose size never came).  Reading may go on afterwards.
  void Settle();

  const RebuildState& state() const { return state_; }

 private:
  MemoryState& Memory(uint64_t id);
  void Apply(MemoryState& m, const Event& e);
  void OnInstanceLine(const LogLine& line);
  // One step of an instance's life each, by the "inst" line that logs it
  // (realm_log.h lists them and what they mean).
  void OnAnnounced(uint64_t inst);
  void OnLayout(uint64_t inst, uint64_t bytes, uint64_t alignment,
                std::string_view printed);
  void OnPlaced(uint64_t inst, uint64_t offset);
  void OnAllocationFailed(uint64_t inst);
  void OnCreated(uint64_t inst, uint64_t bytes, bool external, uint64_t ready);
  void OnDestroyed(uint64_t inst, uint64_t wait_on);
  void OnDeallocated(uint64_t inst);
  bool OpenRedistrict(uint64_t memory, uint64_t old_instance,
                      const InstanceLife& old);
  void OnSpyLine(const LogLine& line);
  void OnLegateLine(const LogLine& line);
  void MakeRoom(MemoryState& m, uint64_t instance, uint64_t offset,
                uint64_t size);
  void ApplyRequestedRelease(MemoryState& m, uint64_t instance,
                             const InstanceLife& life);
  void ShowWaitingPieces();
  bool MayHoldQueuedRequests(const MemoryState& m, uint64_t firing) const;
  void FireRelease(MemoryState& m, uint64_t instance, InstanceLife& life);
  void GiveBack(MemoryState& m, uint64_t instance, InstanceLife& life);
  void CatchUp(MemoryState& m);
  void ForgetQueuedRelease(MemoryState& m, uint64_t instance, uint64_t life);
  void GiveBackReused(MemoryState& m, uint64_t instance);
  uint64_t LiveSize(const MemoryState& m, uint64_t offset,
                    uint64_t instance) const;
  void Dequeue(MemoryState& m, uint64_t instance);
  void UnmarkRelease(MemoryState& m, uint64_t instance, InstanceLife& life);
  void Withdraw(MemoryState& m, uint64_t instance, InstanceLife& life);
  void CancelRequest(MemoryState& m, uint64_t instance, InstanceLife& life);
  bool FitsNow(const MemoryState& m, uint64_t size, uint64_t alignment) const;
  void FlushGroup(RedistrictGroup& group);
  bool ResolvePiece(uint64_t instance, bool failed, uint64_t offset);
  void FailLatestRequest(uint64_t memory);
  void OnUserEventCancelled(uint64_t event);
  void PoisonEvent(uint64_t event);
  void CancelRelease(uint64_t instance, InstanceLife& life);
  void OnEventMerged(uint64_t merged, uint64_t input);
  void OnPoisonLine(const LogLine& line);
  void Failed(InstanceLife& life);
  void ApplyUnsizedFailure(uint64_t inst, InstanceLife& life, uint64_t bytes);
  void FollowCancellingThread(const LogLine& line);
  bool Ours(uint64_t instance);

  RebuildState state_;
  // Instances announced with no layout since the last ShowWaitingPieces, in
  // announce order (most get their layout on the next line).
  std::vector<uint64_t> announced_;
  uint64_t announce_run_ = 0;    // bumped by every other inst line and
                                 // every line of the program's loggers
  // -level event=2: the events merged from each event, and the events known
  // poisoned (cancelled, triggered poisoned, or merged from one of those).
  absl::flat_hash_map<uint64_t, std::vector<uint64_t>> merged_into_;
  absl::flat_hash_set<uint64_t> poisoned_;
  // Events the log names (created, triggered, merged, an instance's ready
  // event), with Realm's event lines on (event_lines_ > 0).
  absl::flat_hash_set<uint64_t> named_events_;
  uint64_t event_lines_ = 0;
  // -level poison=2.  Threads whose next "allocation failed" lines are
  // cancellations: one line after a skipped creation, every such line up to
  // another line of the thread after a skipped redistrict (Realm cancels
  // the new instances one after the other).
  struct SkippedOnThread {
    bool redistrict = false;
    uint64_t address = 0;  // the RegionInstanceImpl the poison line names
  };
  absl::flat_hash_map<std::string, std::vector<SkippedOnThread>>
      cancelling_threads_;
  // Realm's RegionInstanceImpl address -> instance id (one per id slot),
  // learned from a skipped creation and the failure that follows it.
  absl::flat_hash_map<uint64_t, uint64_t> instance_at_address_;
  bool certainly_cancelled_ = false;  // the line being fed is such a failure
  const RebuildOptions* options_;
  const LogLine* time_ = nullptr;  // the line being applied, for its time
  uint64_t line_ = 0;
  // The time of the last line that had one, in ns: a line without a
  // readable time keeps it, so that the history's times ascend.
  int64_t last_time_ns_ = 0;
};

}  // namespace realm_log
}  // namespace realm_shadow

#endif  // REALM_SHADOW_INGEST_NODE_REBUILD_H_
