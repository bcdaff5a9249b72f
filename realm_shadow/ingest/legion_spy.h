// realm_shadow/ingest/legion_spy.h - what Legion Spy's lines say
// about the objects an instance belongs to: names of tasks, fields, field
// spaces, index spaces, partitions and regions, and the operations that let
// a creator's UID be traced to the task it ran for.
//
// Layer ingest.  A SpyCatalog collects the naming and operation lines of one log
// (SpyCatalog::Add); the catalogs of a run's logs are merged (a slice logged
// on one node belongs to an index task logged on another: UIDs are unique
// across nodes), then the dump assembly describes each instance with it.
// What the log does not name stays an id; nothing is guessed.
//
// Resolution of a creator UID to a task, as Legion logs it: a point task is
// a "Slice Point" of a slice, a slice an "Index Slice" of an index task or a
// "Slice Slice" of another slice, a point may be a "Point Point" copy of a
// remote point; a shard is a "Replicate Shard" of a replicated task; an
// internal operation (close, refinement) has an "Internal Operation Creator";
// any other operation (copy, fill, inline mapping) runs in its context task.
// Each step is a hash lookup; chains are cut at 32 steps.
#ifndef REALM_SHADOW_INGEST_LEGION_SPY_H_
#define REALM_SHADOW_INGEST_LEGION_SPY_H_

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "realm_shadow/ingest/line_grammar.h"

namespace realm_shadow {
namespace realm_log {

REALM_SHADOW_HEADER_OF_LAYER(ingest);

struct SpyOperation {
  uint64_t context = 0;  // the UID of the task it runs in
  uint64_t task_id = 0;
  bool task = false;     // a task (top, individual, index)
  bool index = false;    // an index task launch
  std::string name;      // the task's name, or the operation's kind

  bool operator==(const SpyOperation& o) const {
    return context == o.context && task_id == o.task_id && task == o.task &&
           index == o.index && name == o.name;
  }
};

// A creator traced to the task it ran for.
struct ResolvedCreator {
  std::string creator;  // "point task calc_new_currents (UID 26) of index
                        // task UID 12", "close (UID 78) in task top_level"
  std::string task;     // the task's name: "calc_new_currents"; "" unknown
  std::string provenance;  // the nearest "Operation Provenance" on the way
};

class SpyCatalog {
 public:
  // One line of a naming or operation kind (others are ignored).
  void Add(const LogLine& line);
  // Adds what `other` knows and this one does not; returns how many
  // entries disagreed with what this one already had (kept as they were).
  uint64_t Merge(const SpyCatalog& other);

  ResolvedCreator ResolveCreator(uint64_t uid) const;
  // "all_nodes/owned[0] (tree 2, index space 6, field space 2)".
  std::string RegionText(uint64_t index_space, uint64_t field_space,
                         uint64_t tree) const;
  // "capacitance, leakage, fid 7": names where the log gives them.
  std::string FieldsText(uint64_t field_space,
                         const std::vector<uint64_t>& fields) const;

  size_t size() const;

 private:
  std::string IndexSpaceText(uint64_t index_space, uint64_t field_space,
                             uint64_t tree, int depth) const;

  absl::flat_hash_map<uint64_t, std::string> task_names_;      // task id
  absl::flat_hash_map<uint64_t, SpyOperation> operations_;     // UID
  absl::flat_hash_map<uint64_t, uint64_t> part_of_;            // slice/point
  absl::flat_hash_map<uint64_t, uint64_t> shard_of_;           // shard UID -> repl
  absl::flat_hash_map<uint64_t, uint64_t> replicated_;         // repl -> UID
  absl::flat_hash_map<uint64_t, uint64_t> created_by_;         // internal op
  absl::flat_hash_map<uint64_t, std::string> provenance_;      // UID
  absl::flat_hash_map<uint64_t, std::string> field_space_names_;
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, std::string> field_names_;
  absl::flat_hash_map<uint64_t, std::string> index_space_names_;
  // partition -> (parent index space, color)
  absl::flat_hash_map<uint64_t, std::pair<uint64_t, uint64_t>> partitions_;
  absl::flat_hash_map<uint64_t, std::string> partition_names_;
  // child index space -> (partition, color as printed)
  absl::flat_hash_map<uint64_t, std::pair<uint64_t, std::string>> subspaces_;
  absl::flat_hash_map<std::tuple<uint64_t, uint64_t, uint64_t>, std::string>
      region_names_;  // (index space, field space, tree)
};

}  // namespace realm_log
}  // namespace realm_shadow

#endif  // REALM_SHADOW_INGEST_LEGION_SPY_H_
