#include "realm_shadow/ingest/legion_spy.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/ingest/internal/first_wins.h"

namespace realm_shadow {
namespace realm_log {
namespace {

constexpr int kMaxSteps = 32;

// "Close" -> "close", "Mapping" -> "inline mapping": the operation's kind
// as a person names it.
std::string OperationKindName(std::string_view kind) {
  if (kind == "Mapping") return "inline mapping";
  return absl::AsciiStrToLower(std::string(kind));
}

}  // namespace

void SpyCatalog::Add(const LogLine& line) {
  const uint64_t* ids = line.ids;
  const std::string text(line.text);
  switch (line.kind) {
    case LineKind::kSpyTaskName:
      KeepFirst(task_names_, ids[0], text);
      return;
    case LineKind::kSpyTask: {
      SpyOperation op;
      op.context = ids[0];
      op.task_id = ids[1];
      op.task = true;
      op.index = line.event == 1;
      op.name = text;
      KeepFirst(operations_, ids[2], op);
      return;
    }
    case LineKind::kSpyOperation: {
      SpyOperation op;
      op.context = ids[0];
      op.name = OperationKindName(line.text);
      KeepFirst(operations_, ids[1], op);
      return;
    }
    case LineKind::kSpySliceOf:
      KeepFirst(part_of_, ids[1], ids[0]);
      return;
    case LineKind::kSpyReplicate:
      KeepFirst(replicated_, ids[1], ids[0]);
      return;
    case LineKind::kSpyShard:
      KeepFirst(shard_of_, ids[1], ids[0]);
      return;
    case LineKind::kSpyInternalOp:
      KeepFirst(created_by_, ids[0], ids[1]);
      return;
    case LineKind::kSpyProvenance:
      if (!text.empty()) KeepFirst(provenance_, ids[0], text);
      return;
    case LineKind::kSpyFieldSpaceName:
      KeepFirst(field_space_names_, ids[0], text);
      return;
    case LineKind::kSpyFieldName:
      KeepFirst(field_names_, std::make_pair(ids[0], ids[1]), text);
      return;
    case LineKind::kSpyIndexSpaceName:
      KeepFirst(index_space_names_, ids[0], text);
      return;
    case LineKind::kSpyPartition:
      KeepFirst(partitions_, ids[1], std::make_pair(ids[0], ids[2]));
      return;
    case LineKind::kSpyPartitionName:
      KeepFirst(partition_names_, ids[0], text);
      return;
    case LineKind::kSpySubspace:
      KeepFirst(subspaces_, ids[1], std::make_pair(ids[0], text));
      return;
    case LineKind::kSpyRegionName:
      KeepFirst(region_names_, std::make_tuple(ids[0], ids[1], ids[2]), text);
      return;
    default:
      return;
  }
}

uint64_t SpyCatalog::Merge(const SpyCatalog& o) {
  return MergeFirst(task_names_, o.task_names_) +
         MergeFirst(operations_, o.operations_) +
         MergeFirst(part_of_, o.part_of_) +
         MergeFirst(shard_of_, o.shard_of_) +
         MergeFirst(replicated_, o.replicated_) +
         MergeFirst(created_by_, o.created_by_) +
         MergeFirst(provenance_, o.provenance_) +
         MergeFirst(field_space_names_, o.field_space_names_) +
         MergeFirst(field_names_, o.field_names_) +
         MergeFirst(index_space_names_, o.index_space_names_) +
         MergeFirst(partitions_, o.partitions_) +
         MergeFirst(partition_names_, o.partition_names_) +
         MergeFirst(subspaces_, o.subspaces_) +
         MergeFirst(region_names_, o.region_names_);
}

size_t SpyCatalog::size() const {
  return task_names_.size() + operations_.size() + part_of_.size() +
         shard_of_.size() + replicated_.size() + created_by_.size() +
         provenance_.size() + field_space_names_.size() +
         field_names_.size() + index_space_names_.size() +
         partitions_.size() + partition_names_.size() + subspaces_.size() +
         region_names_.size();
}

ResolvedCreator SpyCatalog::ResolveCreator(uint64_t uid) const {
  ResolvedCreator r;
  auto note_provenance = [&](uint64_t u) {
    if (!r.provenance.empty()) return;
    auto it = provenance_.find(u);
    if (it != provenance_.end()) r.provenance = it->second;
  };
  // What the creator itself is.
  std::string head;
  enum { kTask, kPoint, kShard, kOther } shape = kOther;
  if (auto op = operations_.find(uid); op != operations_.end()) {
    if (op->second.task)
      shape = kTask;
    else
      head = absl::StrCat(op->second.name, " (UID ", uid, ")");
  } else if (part_of_.count(uid)) {
    shape = kPoint;
  } else if (shard_of_.count(uid)) {
    shape = kShard;
  } else if (created_by_.count(uid)) {
    head = absl::StrCat("operation (UID ", uid, ")");
  } else {
    r.creator = absl::StrCat("operation UID ", uid,
                             " (not described in the log)");
    return r;
  }
  // Walk to the task it ran for.
  uint64_t at = uid;
  for (int step = 0; step < kMaxSteps; ++step) {
    note_provenance(at);
    auto op = operations_.find(at);
    if (op != operations_.end()) {
      if (op->second.task) {
        std::string name = op->second.name;
        if (name.empty()) {
          auto tn = task_names_.find(op->second.task_id);
          name = tn != task_names_.end()
                     ? tn->second
                     : absl::StrCat("task id ", op->second.task_id);
        }
        r.task = name;
        switch (shape) {
          case kTask:
            r.creator = absl::StrCat("task ", name, " (UID ", uid, ")");
            break;
          case kPoint:
            r.creator = absl::StrCat("point task ", name, " (UID ", uid,
                                     ") of index task UID ", at);
            break;
          case kShard:
            r.creator = absl::StrCat("shard of task ", name, " (UID ", uid,
                                     ")");
            break;
          case kOther:
            r.creator =
                absl::StrCat(head, " in task ", name, " (UID ", at, ")");
            break;
        }
        return r;
      }
      at = op->second.context;
      continue;
    }
    if (auto p = part_of_.find(at); p != part_of_.end()) {
      at = p->second;
      continue;
    }
    if (auto s = shard_of_.find(at); s != shard_of_.end()) {
      auto t = replicated_.find(s->second);
      if (t == replicated_.end()) break;
      at = t->second;
      continue;
    }
    if (auto c = created_by_.find(at); c != created_by_.end()) {
      at = c->second;
      continue;
    }
    break;
  }
  r.creator = head.empty() ? absl::StrCat("operation UID ", uid) : head;
  r.creator += " (its task is not in the log)";
  return r;
}

std::string SpyCatalog::IndexSpaceText(uint64_t is, uint64_t fs, uint64_t tree,
                                       int depth) const {
  if (auto r = region_names_.find(std::make_tuple(is, fs, tree));
      r != region_names_.end())
    return r->second;
  if (depth < kMaxSteps) {
    auto sub = subspaces_.find(is);
    if (sub != subspaces_.end()) {
      auto part = partitions_.find(sub->second.first);
      if (part != partitions_.end()) {
        auto name = partition_names_.find(sub->second.first);
        return absl::StrCat(
            IndexSpaceText(part->second.first, fs, tree, depth + 1), "/",
            name != partition_names_.end()
                ? name->second
                : absl::StrCat("partition ", sub->second.first),
            "[", sub->second.second, "]");
      }
    }
  }
  if (auto n = index_space_names_.find(is); n != index_space_names_.end())
    return n->second;
  return absl::StrCat("index space ", is);
}

std::string SpyCatalog::RegionText(uint64_t is, uint64_t fs,
                                   uint64_t tree) const {
  auto fs_name = field_space_names_.find(fs);
  return absl::StrCat(IndexSpaceText(is, fs, tree, 0), " (tree ", tree,
                      ", index space ", is, ", field space ",
                      fs_name != field_space_names_.end()
                          ? fs_name->second
                          : absl::StrCat(fs),
                      ")");
}

std::string SpyCatalog::FieldsText(uint64_t fs,
                                   const std::vector<uint64_t>& fields) const {
  std::string out;
  for (uint64_t fid : fields) {
    if (!out.empty()) out += ", ";
    auto it = field_names_.find(std::make_pair(fs, fid));
    if (it != field_names_.end())
      out += it->second;
    else
      absl::StrAppend(&out, "fid ", fid);
  }
  return out;
}

}  // namespace realm_log
}  // namespace realm_shadow
