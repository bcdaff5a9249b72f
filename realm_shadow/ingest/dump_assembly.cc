#include "realm_shadow/ingest/dump_assembly.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/ingest/realm_log.h"

namespace realm_shadow {
namespace realm_log {
namespace {

// How many instance ids a note lists before it says "and N more".
constexpr size_t kListedInNote = 8;

class IdList {
 public:
  void Add(uint64_t id) {
    if (count_++ < kListedInNote) absl::StrAppend(&text_, " ", HexId(id));
  }
  std::string Text() const {
    return count_ > kListedInNote
               ? absl::StrCat(text_, " and ", count_ - kListedInNote, " more")
               : text_;
  }
  size_t count() const { return count_; }

 private:
  std::string text_;
  size_t count_ = 0;
};

// Identities numbered per dump: equal identities share one id.
class IdentityTable {
 public:
  uint32_t Intern(Identity identity) {
    std::string key = AllocationKindName(identity.kind);
    for (const auto& [k, v] : identity.attributes)
      absl::StrAppend(&key, "\x1f", k, "\x1e", v);
    auto [it, inserted] = ids_.try_emplace(std::move(key), 0);
    if (inserted) {
      identity.id = static_cast<uint32_t>(all_.size() + 1);
      it->second = identity.id;
      all_.push_back(std::move(identity));
    }
    return it->second;
  }
  const Identity& Get(uint32_t id) const { return all_[id - 1]; }

 private:
  absl::flat_hash_map<std::string, uint32_t> ids_;
  std::vector<Identity> all_;
};

Identity SizeMarker(const char* value) {
  Identity identity;
  identity.attributes.emplace_back(kSizeAttribute, value);
  identity.attributes.emplace_back(
      "why", std::string(value) == kSizeUpperBound
                 ? "redistricted piece: the log never gives its size; it ends "
                   "at or before the next piece or the old instance's end"
                 : "announced without a layout: the log never gives its size");
  return identity;
}

// `identity` with the marking of a range that may be given back already
// (kHeldAttribute), before its "why" when it has one.
Identity HeldMarker(Identity identity) {
  auto why = std::find_if(identity.attributes.begin(),
                          identity.attributes.end(),
                          [](const auto& kv) { return kv.first == "why"; });
  const bool alone = why == identity.attributes.end() &&
                     identity.attributes.empty();
  identity.attributes.insert(why, {kHeldAttribute, kHeldMaybeGivenBack});
  if (alone)
    identity.attributes.emplace_back(
        "why",
        "its release fired while requests may wait in Realm's allocator, "
        "which keeps the range until their turn: the log does not show "
        "that queue");
  return identity;
}

// `identity` with the marking of a release that may have been skipped
// (kReleaseAttribute), before its "why" when it has one.
Identity ReleaseMaybeSkippedMarker(Identity identity) {
  auto why = std::find_if(identity.attributes.begin(),
                          identity.attributes.end(),
                          [](const auto& kv) { return kv.first == "why"; });
  identity.attributes.insert(why, {kReleaseAttribute, kReleaseMaybeSkipped});
  return identity;
}

// The marker of a redistrict's piece waiting on its precondition, in a log
// with debug lines (where every create logs its layout right after its
// announce, so an announce with none is a piece): its size is unknown, and
// so is the instance it is carved from, whose release Realm holds pending.
Identity WaitingPieceMarker() {
  Identity identity = SizeMarker(kSizeUnknown);
  identity.attributes.insert(identity.attributes.begin() + 1,
                             {kWaitsOnAttribute, kWaitsOnUnnamedRedistrict});
  identity.attributes.back().second =
      "a piece of a redistrict waiting on its precondition: Realm logged "
      "only its announce, neither its size nor the instance redistricted";
  return identity;
}

// What Legion Spy and Legate say of instance lives, as Identities.
class Describer {
 public:
  Describer(const SpyCatalog& catalog, const SpyShapes& shapes,
            IdentityTable* table)
      : catalog_(catalog), shapes_(shapes), table_(table) {}

  // Legate records from logs other than the owner's, by (node, instance):
  // they belong to the owner's last life of the id.
  void AddLateLegate(uint32_t node, uint64_t instance,
                     const LegateInstance* record) {
    late_legate_[{node, instance}] = record;
  }

  // The identity of one life (0: nothing known), and its kind.
  uint32_t Identify(const RebuildState& st, uint64_t instance,
                    const InstanceLife& life, const char* size_marker,
                    bool final_life, AllocationKind* kind,
                    IngestSummary* summary) {
    const SpyInstance* spy = life.spy ? &st.spy[life.spy - 1] : nullptr;
    const LegateInstance* legate =
        life.legate ? &st.legate[life.legate - 1] : nullptr;
    if (legate == nullptr && final_life) {
      auto it = late_legate_.find({st.node, instance});
      if (it != late_legate_.end()) {
        if (it->second->size == life.size || life.size == 0) {
          legate = it->second;
          ++summary->legate_attached;
        } else if (counted_mismatch_.insert({st.node, instance}).second) {
          ++summary->legate_size_mismatches;
        }
      }
    }
    Identity identity =
        size_marker ? SizeMarker(size_marker) : Identity{};
    std::vector<std::pair<std::string, std::string>> attrs;
    if (spy != nullptr) {
      if (spy->has_region)
        attrs.emplace_back(kRegionsAttribute,
                           catalog_.RegionText(spy->region_index_space,
                                               spy->region_field_space,
                                               spy->region_tree));
      else
        attrs.emplace_back(kRegionsAttribute,
                           absl::StrCat("tree ", spy->tree, ", field space ",
                                        spy->field_space));
      if (!spy->fields.empty())
        attrs.emplace_back(kFieldsAttribute,
                           catalog_.FieldsText(spy->field_space, spy->fields));
      if (spy->has_creator) {
        const ResolvedCreator c = catalog_.ResolveCreator(spy->creator);
        attrs.emplace_back(kCreatorAttribute,
                           absl::StrCat(c.creator, " on processor ",
                                        HexId(spy->processor)));
        if (!c.task.empty()) attrs.emplace_back(kTaskAttribute, c.task);
        if (!c.provenance.empty())
          attrs.emplace_back(kProvenanceAttribute, c.provenance);
      }
      if (spy->redop != 0)
        attrs.emplace_back(kReductionAttribute, absl::StrCat(spy->redop));
    }
    if (legate != nullptr) {
      if (!legate->store.empty())
        attrs.emplace_back(kStoreAttribute,
                           legate->multiple_stores
                               ? legate->store + " (and other stores)"
                               : legate->store);
      if (!legate->elements.empty())
        attrs.emplace_back(kElementsAttribute, legate->elements);
      bool has_provenance = false;
      for (const auto& kv : attrs) has_provenance |= kv.first == kProvenanceAttribute;
      if (!has_provenance && !legate->created_for.empty())
        attrs.emplace_back(kProvenanceAttribute, legate->created_for);
    }
    std::vector<std::pair<std::string, std::string>> figures =
        WasteFigureAttributes(life.layout.get(), spy, shapes_,
                              &summary->waste_figures);
    *kind = (spy != nullptr || legate != nullptr)
                ? AllocationKind::kRegionInstance
                : AllocationKind::kUnknown;
    if (attrs.empty() && size_marker == nullptr && figures.empty()) return 0;
    identity.kind = *kind;
    identity.attributes.insert(identity.attributes.begin(), attrs.begin(),
                               attrs.end());
    for (auto& figure : figures)
      identity.attributes.push_back(std::move(figure));
    return table_->Intern(std::move(identity));
  }

 private:
  const SpyCatalog& catalog_;
  const SpyShapes& shapes_;
  IdentityTable* table_;
  std::map<std::pair<uint32_t, uint64_t>, const LegateInstance*> late_legate_;
  std::set<std::pair<uint32_t, uint64_t>> counted_mismatch_;
};

std::string LinesNote(const RebuildCounts& c, uint64_t leading_unknown) {
  std::string note = absl::StrCat(
      "lines read: ", c.lines + leading_unknown,
      " (instance lines: ", c.instance_lines,
      ", machine-dump memory lines: ", c.memory_lines,
      ", other lines of multi-line entries skipped: ", c.continuation_lines,
      ", other loggers' lines skipped: ", c.other_logger_lines,
      ", unrecognized lines skipped: ", c.unknown_lines + leading_unknown);
  if (c.spy_lines > 0)
    absl::StrAppend(&note, ", Legion Spy lines: ", c.spy_lines,
                    " (of kinds legion_spy.h does not print, skipped: ",
                    c.spy_unknown_lines, "; malformed, skipped: ",
                    c.spy_malformed_lines, ")");
  if (c.legate_lines > 0)
    absl::StrAppend(&note, ", Legate mapper lines: ", c.legate_lines);
  note += ")";
  return note;
}

// Where a memory's kind and capacity come from: its node's own machine
// lines, else node 0's machine dump, else its node's Legion Spy lines.
struct MemoryFacts {
  std::string kind_name;
  uint64_t capacity = 0;
  bool known = false;
};

// Instances of one node that are not (yet) allocations, by memory: each
// list sorted as its note names them.
struct OpenInstances {
  // Announced with no layout and no outcome, by (announce order, id): a
  // redistrict waiting on its precondition, or a creation cut off by the end.
  std::map<uint64_t, std::vector<std::pair<uint64_t, uint64_t>>> waiting;
  // Announced with a layout and no outcome.
  std::map<uint64_t, std::vector<uint64_t>> sized_no_outcome;
  // Created with their size but no placement (no debug-level lines).
  std::map<uint64_t, std::vector<uint64_t>> unplaced;
};

OpenInstances OpenInstancesOf(const RebuildState& st) {
  OpenInstances open;
  for (const auto& [id, life] : st.instances) {
    if (life.phase == Phase::kAnnounced && !life.have_layout)
      open.waiting[life.memory].emplace_back(life.announce_order, id);
    if (life.phase == Phase::kAnnounced && life.have_layout)
      open.sized_no_outcome[life.memory].push_back(id);
    if (life.phase == Phase::kUnplaced) open.unplaced[life.memory].push_back(id);
  }
  for (auto& [memory, list] : open.waiting) std::sort(list.begin(), list.end());
  for (auto& [memory, list] : open.sized_no_outcome)
    std::sort(list.begin(), list.end());
  for (auto& [memory, list] : open.unplaced) std::sort(list.begin(), list.end());
  return open;
}

// The steps of AssembleDump (dump_assembly.h says what it decides), in the
// order their notes appear in the dump.  Each step reads what the steps
// before it settled: the logs' roles, then the run's facts (names, machine),
// then each node's memories.  Identities are numbered in the order the
// memories are described, so the steps run in this order only.
class DumpAssembler {
 public:
  DumpAssembler(const std::vector<ReplayedLog>& logs, IngestSummary* summary)
      : logs_(logs),
        summary_(*summary),
        describer_(catalog_, shapes_, &table_) {
    dump_.source = "ingest-realm-log";
    std::set<std::string> files;
    for (const ReplayedLog& log : logs) files.insert(log.file);
    several_files_ = files.size() > 1;
  }

  DumpFile Assemble() {
    ChooseNodeLogs();
    MergeRunFacts();
    CheckNodesAgainstMachineDump();
    NoteNodesWithoutLog();
    JoinRemoteSpyRecords();
    GatherLegateRecords();
    for (const ReplayedLog* log : used_) AddLog(*log);
    NoteRunWide();
    std::sort(dump_.memories.begin(), dump_.memories.end(),
              [](const Snapshot& a, const Snapshot& b) {
                return a.memory_id != b.memory_id ? a.memory_id < b.memory_id
                                                  : a.node < b.node;
              });
    // Realm's log and Legion Spy's lines say nothing of validity: no
    // allocation is pinned because none is known to be (snapshot.h).
    for (Snapshot& s : dump_.memories) s.gc_state_known = false;
    return std::move(dump_);
  }

 private:
  // A log's notes start with its file's name when several files are read.
  std::string Prefix(const ReplayedLog& log) const {
    return several_files_ ? log.file + ": " : std::string();
  }
  static std::string NameOf(const ReplayedLog& log) {
    return log.file.empty() ? std::string("the log") : log.file;
  }
  // A note that is also printed at once.
  void Warn(const std::string& warning) {
    dump_.notes.push_back(warning);
    summary_.warnings.push_back(warning);
  }

  // ---- which log is each node's ------------------------------------------

  // The first log of a node is its log; a second one is left out; a log
  // with no line of any node (Legate's report on stderr) only lends its
  // records.  A truncated file is warned about once.
  void ChooseNodeLogs() {
    std::set<std::string> truncated_noted;
    for (const ReplayedLog& log : logs_) {
      const RebuildState& st = log.rebuild->state();
      const RebuildCounts& c = st.counts;
      if (log.truncated && truncated_noted.insert(log.file).second) {
        ++summary_.truncated_logs;
        Warn(NameOf(log) +
             " ends in the middle of a line (the file was cut, or the run was "
             "killed while writing it): that last line was not read; the rest "
             "is rebuilt up to it");
      }
      const bool node_lines = c.instance_lines > 0 || c.spy_lines > 0 ||
                              c.memory_lines > 0 || c.checkpoints > 0;
      if (!node_lines) {
        used_.push_back(&log);  // lends its Legate records, nothing else
        continue;
      }
      auto [it, inserted] = node_log_.emplace(st.node, &log);
      if (!inserted) {
        ++summary_.duplicate_logs;
        Warn(absl::StrCat(
            NameOf(log), ": a second log of node ", st.node, " (",
            NameOf(*it->second),
            " is read as that node's): two logs of the same rank, or of two "
            "runs; left out (give each rank's log once)"));
        continue;
      }
      used_.push_back(&log);
    }
    summary_.logs = node_log_.size();
    dump_.node = node_log_.empty()
                     ? (logs_.empty() ? 0 : logs_[0].rebuild->state().node)
                     : node_log_.begin()->first;
  }

  // ---- the run's facts: names, machine, memories -------------------------

  // Legion Spy's names from every log (the first to give one wins, a
  // contradiction is a run mismatch), and the machine dump's memories and
  // nodes (the first log to list one wins).
  void MergeRunFacts() {
    uint64_t catalog_conflicts = 0;
    for (const ReplayedLog* log : used_) {
      const RebuildState& st = log->rebuild->state();
      catalog_conflicts += catalog_.Merge(st.catalog);
      summary_.shape_mismatches += shapes_.Merge(st.shapes);
      for (const auto& [id, listed] : st.machine_memories)
        machine_.try_emplace(id, listed, log);
      for (uint64_t n : st.machine_nodes)
        machine_nodes_.try_emplace(static_cast<uint32_t>(n), log);
    }
    if (catalog_conflicts > 0) {
      ++summary_.run_mismatches;
      dump_.notes.push_back(absl::StrCat(
          catalog_conflicts,
          " Legion Spy name(s) or operation(s) are given differently by "
          "different logs (the first was kept): are the logs of one run?"));
    }
  }

  // A node the machine dump does not list, or a memory whose capacity in
  // its node's Legion Spy lines differs from the machine dump's, is a log
  // of another run: noted, still rebuilt from its own lines.
  void CheckNodesAgainstMachineDump() {
    for (const auto& [node, log] : node_log_) {
      const RebuildState& st = log->rebuild->state();
      if (!machine_nodes_.empty() && !machine_nodes_.count(node)) {
        ++summary_.run_mismatches;
        dump_.notes.push_back(absl::StrCat(
            NameOf(*log), ": node ", node, " is not among the nodes the "
            "machine dump of ", NameOf(*machine_nodes_.begin()->second),
            " lists: a log of another run?"));
      }
      for (const auto& [id, listed] : st.spy_memories) {
        if (MemoryOwnerNode(id) != node) continue;
        auto m = machine_.find(id);
        if (m == machine_.end() || m->second.second == log) continue;
        if (m->second.first.capacity != listed.capacity) {
          ++summary_.run_mismatches;
          Warn(absl::StrCat(
              NameOf(*log), ": memory ", HexId(id), " has capacity ",
              listed.capacity, " B in its Legion Spy lines, but the machine "
              "dump of ", NameOf(*m->second.second), " says ",
              m->second.first.capacity,
              " B: the logs are of different runs (its memories are rebuilt "
              "from its own lines)"));
        }
      }
    }
  }

  // Nodes the machine dump lists (with a memory of some capacity) whose log
  // is not here: named, never shown as empty memories.
  void NoteNodesWithoutLog() {
    std::map<uint32_t, uint64_t> missing;
    for (const auto& [id, entry] : machine_)
      if (!node_log_.count(MemoryOwnerNode(id)) && entry.first.capacity > 0)
        ++missing[MemoryOwnerNode(id)];
    for (const auto& [node, count] : missing)
      dump_.notes.push_back(absl::StrCat(
          "the machine dump lists node ", node, " (", count,
          " memory(ies) with a capacity), whose log was not given: not "
          "rebuilt"));
  }

  // ---- Legion Spy records other nodes logged -----------------------------

  // A record of another node's instance (a remote copy) joins its owner's
  // record by Legion's instance event; one the owner's log lacks is listed
  // per owner, one of a node without a log only counted.
  void JoinRemoteSpyRecords() {
    for (const auto& [node, log] : node_log_) {
      const RebuildState& st = log->rebuild->state();
      std::map<uint32_t, IdList> unmatched;
      for (const SpyInstance& r : st.spy) {
        if (r.owned) continue;
        ++summary_.spy_remote;
        const uint32_t owner = InstanceOwnerNode(r.instance);
        auto owner_log = node_log_.find(owner);
        if (owner_log == node_log_.end()) {
          ++summary_.spy_remote_no_log;
          continue;
        }
        const RebuildState& os = owner_log->second->rebuild->state();
        auto it = os.spy_by_event.find(r.event);
        if (it != os.spy_by_event.end() && os.spy[it->second].owned) {
          ++summary_.spy_remote_joined;
        } else {
          ++summary_.spy_remote_unmatched;
          unmatched[owner].Add(r.instance);
        }
      }
      for (const auto& [owner, ids] : unmatched)
        dump_.notes.push_back(absl::StrCat(
            NameOf(*log), ": Legion Spy names ", ids.count(),
            " instance(s) of node ", owner, " that node ", owner,
            "'s log never names (a truncated log, or one of another run):",
            ids.Text()));
    }
  }

  // ---- identities --------------------------------------------------------

  // Legate records no replay bound (logged outside their owner's log) are
  // handed to the describer, to join the owner's last life of the id.
  void GatherLegateRecords() {
    for (const ReplayedLog* log : used_) {
      const RebuildState& st = log->rebuild->state();
      summary_.legate_instances += st.counts.legate_instances;
      summary_.legate_attached += st.counts.legate_bound;
      for (const LegateInstance& r : st.legate)
        if (!r.bound)
          describer_.AddLateLegate(InstanceOwnerNode(r.instance), r.instance,
                                   &r);
    }
  }

  // ---- per node: notes and memories --------------------------------------

  // Every input gets its line counts; a node's own log also its notes and
  // its memories.
  void AddLog(const ReplayedLog& log) {
    const RebuildState& st = log.rebuild->state();
    auto nl = node_log_.find(st.node);
    const bool is_node_log = nl != node_log_.end() && nl->second == &log;
    dump_.notes.push_back(Prefix(log) +
                          LinesNote(st.counts, log.leading_unknown_lines));
    if (!is_node_log) return;
    NoteReplay(log);
    NoteLegionSpy(log);
    AddNodeMemories(log);
  }

  // What the replay could not read or had to settle: a cut, a merged file,
  // reorderings, fatal lines without a request, other nodes' instances,
  // missing debug-level lines (a warning when the whole log lacks them).
  void NoteReplay(const ReplayedLog& log) {
    const RebuildCounts& c = log.rebuild->state().counts;
    const std::string pre = Prefix(log);
    if (log.cut_before_line > 0)
      dump_.notes.push_back(pre + absl::StrCat("read up to line ",
                                               log.cut_before_line,
                                               " (the rest was not applied)"));
    if (log.nodes_in_file > 1)
      dump_.notes.push_back(pre + absl::StrCat(
          "the file holds the lines of ", log.nodes_in_file,
          " nodes (a merged output): each node's lines are replayed apart"));
    if (c.reorderings > 0)
      dump_.notes.push_back(pre + absl::StrCat(
          c.reorderings,
          " release(s) were logged after the allocation they made room for "
          "(another thread); applied first, as they must have happened "
          "(reordering, not an anomaly)"));
    if (c.fatal_without_request > 0)
      dump_.notes.push_back(pre + absl::StrCat(
          c.fatal_without_request,
          " fatal out-of-memory line(s) found no request without an outcome "
          "in their memory"));
    NotePoison(log.rebuild->state(), pre);
    if (c.remote_proxies > 0 || c.foreign_instance_lines > 0)
      dump_.notes.push_back(pre + absl::StrCat(
          c.remote_proxies,
          " remote proxy line(s) (other nodes' instances this node learned "
          "of) and ", c.foreign_instance_lines,
          " instance line(s) naming another node's instance: counted, never "
          "allocations here"));
    if (c.created_without_layout > 0) {
      if (c.layout_lines == 0 && c.placement_lines == 0) {
        ++summary_.logs_without_debug_lines;
        Warn(NameOf(log) + ": " + MissingDebugLinesMessage());
      } else {
        dump_.notes.push_back(pre + absl::StrCat(
            c.created_without_layout,
            " instance(s) were created with no \"instance layout\" line: "
            "their placement is unknown (debug-level lines missing for "
            "part of the log?)"));
      }
    }
  }

  // Requests Realm cancelled and destroys it skipped (their preconditions
  // poisoned), and the failures the log cannot tell from cancellations.
  void NotePoison(const RebuildState& st, const std::string& pre) {
    const RebuildCounts& c = st.counts;
    if (c.cancelled_requests > 0)
      dump_.notes.push_back(pre + absl::StrCat(
          c.cancelled_requests, " request(s) cancelled by a poisoned "
          "precondition (Realm logs \"allocation failed\"; no failure)"));
    if (c.cancelled_releases > 0)
      dump_.notes.push_back(pre + absl::StrCat(
          c.cancelled_releases, " destroy(s) skipped, their precondition "
          "poisoned: Realm keeps the range for good (its words: possible "
          "leak); the instances are live"));
    if (c.maybe_cancelled_failures > 0)
      dump_.notes.push_back(pre + absl::StrCat(
          c.maybe_cancelled_failures, " failure(s) ", kMaybeCancelledText,
          c.poison_lines > 0 ? " (instant failures: Realm cancels a request "
                               "whose precondition was poisoned before it "
                               "with no poison line)"
                             : " (-level poison=2 tells a deferred request's)"));
    // Releases still pending on an event: Realm may have found it
    // poisoned without a line that names it (a destroy on an event already
    // poisoned is skipped silently; a redistrict's new instances' ready
    // events are never logged).
    uint64_t waiting = 0;
    for (const auto& [id, life] : st.instances)
      if (life.phase == Phase::kLive && life.release_requested &&
          life.release_wait_on != 0)
        ++waiting;
    if (waiting > 0)
      dump_.notes.push_back(pre + absl::StrCat(
          waiting, " release(s) shown pending wait on an event the log does "
          "not show fired: Realm skips a destroy whose precondition is "
          "poisoned and keeps the range for good (possible leak); the log "
          "names that poisoning only with -level event=2,poison=2, and not "
          "for every event (a redistrict's new instances' ready events are "
          "never logged), so a release shown pending may be skipped"));
  }

  // How much of the node's instances Legion Spy named, and the ones it
  // named that no Realm life took (an anomaly: no identity attached).
  void NoteLegionSpy(const ReplayedLog& log) {
    const RebuildState& st = log.rebuild->state();
    const RebuildCounts& c = st.counts;
    const std::string pre = Prefix(log);
    if (c.spy_lines == 0)
      dump_.notes.push_back(pre +
                            "no Legion Spy lines: Legion identity of instances "
                            "(regions, fields, creating task) is not in this "
                            "log; run with -lg:spy -level legion_spy=2 to get "
                            "it");
    summary_.spy_instances += c.spy_instances;
    summary_.spy_attached += c.spy_bound;
    summary_.spy_unknown_lines += c.spy_unknown_lines;
    if (!st.spy_unbound.empty()) {
      IdList ids;
      for (uint32_t i : st.spy_unbound) ids.Add(st.spy[i].instance);
      summary_.spy_never_logged += ids.count();
      dump_.notes.push_back(pre + absl::StrCat(
          "Legion Spy names ", ids.count(),
          " instance(s) of this node that Realm's log never shows alive "
          "when it names them (anomaly; no identity attached):",
          ids.Text()));
    }
    if (c.spy_instances > 0)
      dump_.notes.push_back(pre + absl::StrCat(
          "Legion Spy named ", c.spy_instances, " instance(s) of this node; ",
          c.spy_bound, " joined to the Realm instance life they were made "
          "for (identities attached)"));
  }

  // Each memory of the node worth showing (it had instances, or a known
  // capacity above zero) becomes a picture with its identities, the
  // requests the log leaves open, its notes and its history.
  void AddNodeMemories(const ReplayedLog& log) {
    const RebuildState& st = log.rebuild->state();
    const OpenInstances open = OpenInstancesOf(st);
    for (const auto& [id, m] : st.memories) {
      const MemoryFacts facts = FactsOf(id, m);
      const bool worth_showing =
          m.has_instances || (facts.known && facts.capacity > 0);
      if (!worth_showing) continue;
      Snapshot snap = PictureOf(id, m, facts);
      const std::string mem = Prefix(log) + HexId(id);
      if (!facts.known)
        dump_.notes.push_back(
            mem + ": capacity unknown (the log never said; run with "
                  "-level inst=1,machine=1 to log it)");
      const std::string bounded = DescribeInstances(st, id, &snap);
      if (auto w = open.waiting.find(id); w != open.waiting.end())
        AddWaitingRedistricts(mem, w->second);
      NoteExternal(mem, m);
      if (auto u = open.unplaced.find(id); u != open.unplaced.end())
        AddUnplaced(st, mem, u->second, &snap);
      if (auto sz = open.sized_no_outcome.find(id);
          sz != open.sized_no_outcome.end()) {
        std::string list;
        for (uint64_t inst : sz->second) absl::StrAppend(&list, " ", HexId(inst));
        dump_.notes.push_back(mem + ": requested, outcome not in the log:" +
                              list);
      }
      NoteUnsizedPieces(mem, bounded, m);
      NoteMaybeHeld(mem, snap);
      NameFailedRequest(st, id, &snap);
      ListIdentities(&snap);
      if (!m.history.checkpoints.empty())
        dump_.histories.push_back(
            HistoryOf(id, m, snap, st.counts.layout_lines > 0, &table_));
      dump_.memories.push_back(std::move(snap));
    }
  }

  // Kind and capacity: the node's own machine lines (or Legion Spy's, which
  // the replay took when those were missing), else node 0's machine dump.
  MemoryFacts FactsOf(uint64_t id, const MemoryState& m) const {
    MemoryFacts facts;
    if (m.capacity_known) {
      facts = {m.kind_name, m.capacity, true};
    } else if (auto it = machine_.find(id); it != machine_.end()) {
      facts = {it->second.first.kind_name, it->second.first.capacity, true};
    }
    return facts;
  }

  // The replay's map of the memory as a picture with its kind, node and
  // capacity (0 and not known when nobody said).
  static Snapshot PictureOf(uint64_t id, const MemoryState& m,
                            const MemoryFacts& facts) {
    Snapshot snap;
    m.map.CopyTo(&snap);
    snap.memory_id = id;
    snap.name = facts.known ? facts.kind_name : m.kind_name;
    snap.kind = ParseMemoryKind(snap.name);
    snap.node = m.node;
    snap.capacity = facts.known ? facts.capacity : 0;
    snap.capacity_known = facts.known;
    snap.addressed = snap.kind == MemoryKind::kDynamicFramebuffer;
    return snap;
  }

  // Identities on the live allocations and deferred requests whose life the
  // replay knows in this memory; a size the log never gave is marked.
  // Returns the list of bounded pieces (" ID<=SIZE" each) for their note.
  std::string DescribeInstances(const RebuildState& st, uint64_t memory_id,
                                Snapshot* snap) {
    auto life_of = [&](uint64_t instance) -> const InstanceLife* {
      auto it = st.instances.find(instance);
      return it != st.instances.end() && it->second.memory == memory_id
                 ? &it->second
                 : nullptr;
    };
    std::string bounded;
    for (Allocation& a : snap->allocations) {
      ++summary_.live;
      // Release ready: Realm may have given the range back already
      // (NodeRebuild::FireRelease), as the history marks it.
      const bool held = a.state == AllocationState::kReleaseReady;
      // Its release waits on an event the log never names: the map's mark.
      const bool maybe_skipped = a.identity == kReleaseMaybeSkippedMark;
      if (maybe_skipped) a.identity = 0;
      const InstanceLife* life = life_of(a.instance);
      if (life == nullptr || life->phase != Phase::kLive) {
        if (maybe_skipped)
          a.identity = table_.Intern(ReleaseMaybeSkippedMarker(Identity{}));
        if (held)
          a.identity = table_.Intern(HeldMarker(
              (a.flags & kFromRedistrict) ? SizeMarker(kSizeUpperBound)
                                          : Identity{}));
        continue;
      }
      const char* marker = life->bounded       ? kSizeUpperBound
                           : !life->have_layout ? kSizeUnknown
                                                : nullptr;
      if (life->bounded)
        absl::StrAppend(&bounded, " ", HexId(a.instance), "<=", a.size);
      AllocationKind kind = a.kind;
      uint32_t identity = describer_.Identify(
          st, a.instance, *life, marker, true, &kind, &summary_);
      if (held)
        identity = table_.Intern(
            HeldMarker(identity != 0 ? table_.Get(identity) : Identity{}));
      if (maybe_skipped)
        identity = table_.Intern(ReleaseMaybeSkippedMarker(
            identity != 0 ? table_.Get(identity) : Identity{}));
      if (identity == 0) continue;
      a.identity = identity;
      if (kind != AllocationKind::kUnknown) a.kind = kind;
      if (life->spy) ++summary_.live_with_identity;
    }
    for (PendingRequest& p : snap->pending) {
      const InstanceLife* life = life_of(p.instance);
      if (life != nullptr && life->phase == Phase::kAnnounced &&
          life->shown_waiting) {
        p.identity = table_.Intern(st.counts.layout_lines > 0
                                       ? WaitingPieceMarker()
                                       : SizeMarker(kSizeUnknown));
        continue;
      }
      if (life == nullptr || life->phase != Phase::kDeferred) continue;
      AllocationKind kind;
      if (uint32_t identity = describer_.Identify(st, p.instance, *life,
                                                  nullptr, true, &kind,
                                                  &summary_))
        p.identity = identity;
    }
    return bounded;
  }

  // Instances of a redistrict waiting on its precondition: in the map as
  // pending requests of unknown size (NodeRebuild::ShowWaitingPieces; the
  // old instance stays live until its range is released).
  void AddWaitingRedistricts(
      const std::string& mem,
      const std::vector<std::pair<uint64_t, uint64_t>>& waiting) {
    std::string list;
    for (const auto& [order, inst] : waiting)
      absl::StrAppend(&list, " ", HexId(inst));
    dump_.notes.push_back(
        mem + ": announced but not placed, size unknown (a redistrict "
              "waiting on its precondition; its old instance is one of the "
              "live ones here, which the log does not say: shown live, "
              "Realm holds it release pending until the redistrict runs):" +
              list);
  }

  // Instances created with no placement in the log: pending requests of
  // unknown placement with their sizes, so the memory's use is still
  // counted while its holes are not.
  void AddUnplaced(const RebuildState& st, const std::string& mem,
                   const std::vector<uint64_t>& unplaced, Snapshot* snap) {
    uint64_t bytes = 0;
    for (uint64_t inst : unplaced) {
      const InstanceLife& life = st.instances.at(inst);
      PendingRequest request;
      request.instance = inst;
      request.size = life.size;
      request.alignment = life.alignment;
      request.sequence = snap->sequence;
      request.flags = kPlacementUnknown;
      AllocationKind kind;
      request.identity = describer_.Identify(st, inst, life, nullptr, true,
                                             &kind, &summary_);
      snap->pending.push_back(request);
      bytes += life.size;
    }
    dump_.notes.push_back(absl::StrCat(
        mem, ": ", unplaced.size(), " live instance(s), ",
        FormatSizeExact(bytes),
        " by their sizes, of unknown placement (no debug-level lines): "
        "holes, free space and fragmentation of this memory are "
        "unknown"));
  }

  // External instances: on memory the program attached (Realm logs their
  // address as an "allocation completed" offset); Realm's allocator holds
  // none of it, and neither does the picture, as the tracker's.
  void NoteExternal(const std::string& mem, const MemoryState& m) {
    if (m.external.empty()) return;
    std::string list;
    for (const auto& [inst, bytes] : m.external)
      absl::StrAppend(&list, " ", HexId(inst), " (", bytes, " B)");
    dump_.notes.push_back(
        mem + ": external instances (memory the program attached; they hold "
              "nothing of the allocator's space and are not allocations "
              "here):" + list);
  }

  // Redistricted pieces the log gives no size for (bounded ones live,
  // failed ones), and releases no destroy or redistrict explains.
  void NoteUnsizedPieces(const std::string& mem, const std::string& bounded,
                         const MemoryState& m) {
    if (!bounded.empty())
      dump_.notes.push_back(
          mem + ": sizes are upper bounds for these redistricted pieces "
                "(the log never gives them; each ends at or before the next "
                "piece or the old instance's end; holes beside them are "
                "lower bounds):" + bounded);
    if (!m.failed_unknown_size.empty()) {
      std::string list;
      for (uint64_t inst : m.failed_unknown_size)
        absl::StrAppend(&list, " ", HexId(inst));
      dump_.notes.push_back(mem + ": failed redistricted pieces, size unknown:" +
                            list);
    }
    if (m.released_without_destroy > 0)
      dump_.notes.push_back(absl::StrCat(
          mem, ": ", m.released_without_destroy,
          " release(s) with no \"instance destroyed\" line and no redistrict "
          "in sight"));
  }

  // Ranges whose release is ready: Realm may hold them still, or have
  // given them back (kHeldAttribute).
  void NoteMaybeHeld(const std::string& mem, const Snapshot& snap) {
    IdList ids;
    uint64_t bytes = 0;
    for (const Allocation& a : snap.allocations)
      if (a.state == AllocationState::kReleaseReady) {
        ids.Add(a.instance);
        bytes += a.size;
      }
    if (ids.count() == 0) return;
    dump_.notes.push_back(absl::StrCat(
        mem, ": ", ids.count(), " range(s), ", FormatSizeExact(bytes),
        ", shown held, release ready, that Realm may have given back "
        "already (their releases fired while requests may wait in its "
        "allocator's queue, which the log does not show; holes beside them "
        "are lower bounds):", ids.Text()));
  }

  // Legate's "Failed to allocate" names the request of the most recent
  // failure of its memory: its stores, operation and footprint.
  void NameFailedRequest(const RebuildState& st, uint64_t id, Snapshot* snap) {
    for (const ReplayedLog* other : used_) {
      for (const LegateFailure& lf : other->rebuild->state().legate_failures) {
        if (lf.memory != id || MemoryOwnerNode(lf.memory) != st.node ||
            snap->failures.empty())
          continue;
        Identity identity;
        identity.kind = AllocationKind::kRegionInstance;
        std::string stores;
        for (const std::string& s : lf.stores)
          absl::StrAppend(&stores, stores.empty() ? "" : "; ", s);
        if (!stores.empty())
          identity.attributes.emplace_back(kStoreAttribute, stores);
        if (!lf.operation.empty())
          identity.attributes.emplace_back(
              kCreatorAttribute,
              absl::StrCat(lf.operation, " (UID ", lf.uid, ")"));
        identity.attributes.emplace_back(
            "requested", absl::StrCat(lf.bytes, " B (Legate's footprint)"));
        snap->failures.back().identity = table_.Intern(std::move(identity));
      }
    }
  }

  // The identities the picture refers to, in id order.
  void ListIdentities(Snapshot* snap) const {
    std::set<uint32_t> referenced;
    for (const Allocation& a : snap->allocations)
      if (a.identity) referenced.insert(a.identity);
    for (const PendingRequest& p : snap->pending)
      if (p.identity) referenced.insert(p.identity);
    for (const Failure& f : snap->failures)
      if (f.identity) referenced.insert(f.identity);
    snap->identities.clear();
    for (uint32_t identity : referenced)
      snap->identities.push_back(table_.Get(identity));
  }

  // The whole run's history on this node's own clock, its checkpoints
  // described as the picture is.  Identities are joined to the picture
  // after the replay (Legion Spy's records come from the whole log), so the
  // history's events carry none.
  // The size markers go into its identities when it has redistricted
  // pieces or waiting ones: the history cursor marks them with these at
  // every moment (history_cursor.h), as the picture marks them at the end.
  // Waiting pieces are marked as the picture marks them: with what they
  // wait on when the log has debug lines (`pieces_are_redistricts`).
  static MemoryHistory HistoryOf(uint64_t id, const MemoryState& m,
                                 const Snapshot& snap,
                                 bool pieces_are_redistricts,
                                 IdentityTable* table) {
    MemoryHistory h = m.history;
    bool pieces = false, waiting = false, ready = false;
    for (size_t i = 0; i < h.events.size() && !(pieces && waiting && ready);
         ++i) {
      const Event e = DecodeEvent(h.events[i]);
      pieces = pieces || e.type == EventType::kRedistrictPiece;
      waiting = waiting || (e.type == EventType::kDeferred && e.aux == 0);
      ready = ready || (e.type == EventType::kReleaseRequested &&
                        EventReleaseState(e) == ReleaseState::kReady);
    }
    const Identity markers[] = {
        SizeMarker(kSizeUpperBound),
        pieces_are_redistricts ? WaitingPieceMarker() : SizeMarker(kSizeUnknown),
        HeldMarker(Identity{}), HeldMarker(SizeMarker(kSizeUpperBound))};
    // A release on an event the log never names: the map's mark on its
    // range becomes the marker, in the events that attach it.
    bool skipped = false;
    for (EventRecord& r : h.events) {
      const Event e = DecodeEvent(r);
      if (e.type != EventType::kAttachIdentity ||
          e.offset != kReleaseMaybeSkippedMark)
        continue;
      r.offset = table->Intern(ReleaseMaybeSkippedMarker(Identity{}));
      skipped = true;
    }
    const Identity skipped_marker = ReleaseMaybeSkippedMarker(Identity{});
    for (const auto& [used, identity] :
         {std::pair{pieces, &markers[0]}, {waiting, &markers[1]},
          {ready, &markers[2]}, {pieces && ready, &markers[3]},
          {skipped, &skipped_marker}}) {
      if (!used) continue;
      const uint32_t marker = table->Intern(*identity);
      auto at = std::lower_bound(
          h.identities.begin(), h.identities.end(), marker,
          [](const Identity& i, uint32_t v) { return i.id < v; });
      if (at == h.identities.end() || at->id != marker)
        h.identities.insert(at, table->Get(marker));
    }
    h.memory_id = id;
    h.node = m.node;
    h.clock = HistoryClock::kLogTime;
    h.window_events = 0;
    for (HistoryCheckpoint& c : h.checkpoints) {
      c.state.memory_id = id;
      c.state.kind = snap.kind;
      c.state.name = snap.name;
      c.state.node = snap.node;
      c.state.capacity = snap.capacity;
      c.state.capacity_known = snap.capacity_known;
      c.state.addressed = snap.addressed;
    }
    return h;
  }

  // ---- the whole run -----------------------------------------------------

  // Remote records, what the log never says, Legate records not attached.
  void NoteRunWide() {
    if (summary_.spy_remote > 0)
      dump_.notes.push_back(absl::StrCat(
          "Legion Spy lines of other nodes' instances (remote copies): ",
          summary_.spy_remote, ", of which ", summary_.spy_remote_joined,
          " joined to their owner's record by Legion's instance event, ",
          summary_.spy_remote_unmatched, " not in their owner's log, ",
          summary_.spy_remote_no_log, " of nodes whose log was not given"));
    dump_.notes.push_back("not in Realm's log: what a pending release waits on");
    if (summary_.legate_size_mismatches > 0)
      dump_.notes.push_back(absl::StrCat(
          summary_.legate_size_mismatches,
          " instance(s) of Legate's report have a size different from Realm's "
          "instance of that id (another life of the id?): not attached"));
  }

  const std::vector<ReplayedLog>& logs_;
  IngestSummary& summary_;
  DumpFile dump_;
  bool several_files_ = false;
  // The logs' roles: each node's own log, and every input whose records
  // are used (node logs and auxiliary inputs), in the order given.
  std::map<uint32_t, const ReplayedLog*> node_log_;
  std::vector<const ReplayedLog*> used_;
  // The run's facts, merged over the used inputs.
  SpyCatalog catalog_;
  SpyShapes shapes_;
  std::map<uint64_t, std::pair<ListedMemory, const ReplayedLog*>> machine_;
  std::map<uint32_t, const ReplayedLog*> machine_nodes_;
  // Identities, numbered per dump.
  IdentityTable table_;
  Describer describer_;
};

}  // namespace

std::string MissingDebugLinesMessage() {
  return "the log has no debug-level lines of Realm's inst logger (no "
         "\"instance layout\", no \"allocation completed ... offset=\"), so "
         "no instance can be placed: sizes are shown, placements are "
         "unknown, and so are holes, free space and fragmentation.  Those "
         "lines are compiled out below Realm's DEBUG output level (the "
         "default of Legion's Makefile builds is higher; a CMake build's "
         "default is DEBUG, or configure with -DLegion_OUTPUT_LEVEL=DEBUG) "
         "and dropped by -level inst=2; rebuild that way and run with "
         "-level inst=1";
}

DumpFile AssembleDump(const std::vector<ReplayedLog>& logs,
                      IngestSummary* summary_out) {
  IngestSummary local;
  return DumpAssembler(logs, summary_out ? summary_out : &local).Assemble();
}

}  // namespace realm_log
}  // namespace realm_shadow
