#include "realm_shadow/faces/realm_log.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/analysis/internal/shadow_map.h"
#include "realm_shadow/analysis/snapshot.h"
#include "realm_shadow/faces/human_size.h"

namespace realm_shadow {
namespace {

// ---------------------------------------------------------------------------
// Token helpers.  Every parse is bounds-checked; a line that does not parse
// is counted as unknown, never trusted in part.

bool ParseDecimal(std::string_view text, uint64_t* value) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *value = v;
  return true;
}

bool ParseHex(std::string_view text, uint64_t* value) {
  std::string ignored;
  return ParseHexId(text, value, &ignored);
}

// The token after "key=" up to a space, comma or ')'.
bool FieldAfter(std::string_view text, std::string_view key,
                std::string_view* value) {
  size_t at = 0;
  while (true) {
    at = text.find(key, at);
    if (at == std::string_view::npos) return false;
    // Keys must start a word: "inst=" must not match inside "xinst=".
    if (at == 0 || text[at - 1] == ' ' || text[at - 1] == '(' ||
        text[at - 1] == ',')
      break;
    ++at;
  }
  size_t begin = at + key.size();
  size_t end = begin;
  while (end < text.size() && text[end] != ' ' && text[end] != ',' &&
         text[end] != ')')
    ++end;
  *value = text.substr(begin, end - begin);
  return true;
}

bool HexField(std::string_view text, std::string_view key, uint64_t* value) {
  std::string_view token;
  return FieldAfter(text, key, &token) && ParseHex(token, value);
}

bool DecimalField(std::string_view text, std::string_view key,
                  uint64_t* value) {
  std::string_view token;
  return FieldAfter(text, key, &token) && ParseDecimal(token, value);
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ' ||
                           text.back() == '\t'))
    text.remove_suffix(1);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  return text;
}

// "[0 - 7feafe037bc0]    0.117453 {1}{inst}: msg"
struct PrefixedLine {
  uint32_t node = 0;
  std::string_view logger;
  std::string_view message;
};

bool SplitPrefix(std::string_view line, PrefixedLine* out) {
  if (line.empty() || line[0] != '[') return false;
  const size_t dash = line.find(" - ");
  const size_t close = line.find(']');
  if (dash == std::string_view::npos || close == std::string_view::npos ||
      dash > close)
    return false;
  uint64_t node = 0;
  if (!ParseDecimal(line.substr(1, dash - 1), &node) || node > UINT32_MAX)
    return false;
  const size_t level_open = line.find('{', close);
  if (level_open == std::string_view::npos) return false;
  const size_t level_close = line.find('}', level_open);
  if (level_close == std::string_view::npos) return false;
  const size_t logger_open = level_close + 1;
  if (logger_open >= line.size() || line[logger_open] != '{') return false;
  const size_t logger_close = line.find('}', logger_open);
  if (logger_close == std::string_view::npos) return false;
  out->node = static_cast<uint32_t>(node);
  out->logger = line.substr(logger_open + 1, logger_close - logger_open - 1);
  std::string_view rest = line.substr(logger_close + 1);
  if (StartsWith(rest, ":")) rest.remove_prefix(1);
  out->message = Trim(rest);
  return true;
}

// ---------------------------------------------------------------------------

enum class Phase : uint8_t {
  kAnnounced,  // "creating/reusing local instance", nothing else yet
  kLive,       // placed
  kDeferred,   // waiting (kDeferred applied)
  kFailed,     // failed; Realm still destroys it
  kGone,       // released
};

struct InstanceLife {
  uint64_t memory = 0;
  Phase phase = Phase::kAnnounced;
  bool have_layout = false;
  uint64_t size = 0;
  uint64_t alignment = 1;
  uint64_t offset = 0;
  bool release_requested = false;
  uint64_t release_wait_on = 0;  // the destroy's precondition event
  bool bounded = false;  // size is an upper bound (redistrict piece)
  uint64_t announce_order = 0;
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
  // Live ranges by (offset, instance): finds the pending destroys a new
  // allocation lands on, and the bounded pieces it narrows.
  std::set<std::pair<uint64_t, uint64_t>> live;
  std::vector<uint64_t> failed_unknown_size;  // failed redistrict pieces
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
};

}  // namespace

struct RealmLogReader::State {
  RealmLogCounts counts;
  uint32_t node = 0;
  bool node_known = false;
  bool saw_realm = false;
  bool in_multiline = false;  // after a prefixed line, before the next
  uint64_t announce_counter = 0;
  std::map<uint64_t, MemoryState> memories;
  absl::flat_hash_map<uint64_t, InstanceLife> instances;
  // Releases applied early (reordering) whose line has not been read yet.
  absl::flat_hash_set<uint64_t> released_early;
  std::vector<RedistrictGroup> open_groups;
  absl::flat_hash_map<uint32_t, Identity> identities;
  uint32_t next_identity = 1;
  uint32_t bound_identity = 0;
  uint32_t unknown_identity = 0;

  MemoryState& Memory(uint64_t id) {
    auto it = memories.find(id);
    if (it == memories.end()) {
      it = memories.emplace(id, MemoryState{}).first;
      it->second.id = id;
      it->second.node = static_cast<uint32_t>((id >> 40) & 0xffff);
    }
    return it->second;
  }

  uint32_t SizeIdentity(const char* value) {
    uint32_t& slot = (std::string(value) == kSizeUpperBound) ? bound_identity
                                                              : unknown_identity;
    if (slot == 0) {
      Identity identity;
      identity.id = next_identity++;
      identity.kind = AllocationKind::kUnknown;
      identity.attributes.emplace_back(kSizeAttribute, value);
      identity.attributes.emplace_back(
          "why", std::string(value) == kSizeUpperBound
                     ? "redistricted piece: the log never gives its size; "
                       "it ends at or before the next piece or the old "
                       "instance's end"
                     : "announced without a layout: the log never gives "
                       "its size");
      slot = identity.id;
      identities.emplace(slot, std::move(identity));
    }
    return slot;
  }

  void Apply(MemoryState& m, const Event& e) {
    m.has_instances = true;
    m.map.Apply(e);
  }

  void AddLive(MemoryState& m, uint64_t instance, uint64_t offset) {
    m.live.emplace(offset, instance);
  }
  void RemoveLive(MemoryState& m, uint64_t instance, uint64_t offset) {
    m.live.erase({offset, instance});
  }

  // Before [offset, offset + size) is placed: releases whose destroy was
  // requested and that it overlaps must have happened already; bounded
  // pieces it overlaps end before it.
  void MakeRoom(MemoryState& m, uint64_t instance, uint64_t offset,
                uint64_t size) {
    if (size == 0) return;
    const uint64_t end = offset + size < offset ? UINT64_MAX : offset + size;
    std::vector<std::pair<uint64_t, uint64_t>> overlapping;
    auto it = m.live.lower_bound({offset, 0});
    if (it != m.live.begin()) {
      auto before = std::prev(it);
      // Walk back over ranges that may reach into ours; live ranges rarely
      // overlap, so this is one step in practice.
      for (int steps = 0; steps < 4; ++steps) {
        auto found = instances.find(before->second);
        if (found != instances.end() &&
            before->first + found->second.size > offset)
          overlapping.push_back(*before);
        if (before == m.live.begin()) break;
        --before;
      }
    }
    for (; it != m.live.end() && it->first < end; ++it) {
      overlapping.push_back(*it);
    }
    for (const auto& [other_offset, other] : overlapping) {
      if (other == instance) continue;
      auto found = instances.find(other);
      if (found == instances.end()) continue;
      InstanceLife& life = found->second;
      if (life.size == 0 || life.phase != Phase::kLive) continue;
      if (life.release_requested) {
        Event release{EventType::kReleased, other};
        Apply(m, release);
        life.phase = Phase::kGone;
        RemoveLive(m, other, other_offset);
        released_early.insert(other);
        ++m.reorderings;
        ++counts.reorderings;
      } else if (life.bounded && other_offset < offset) {
        // The piece must end where this allocation begins.
        const uint64_t tighter = offset - other_offset;
        if (tighter < life.size) {
          Apply(m, Event{EventType::kRedistrict, other, 0, 0, 1});
          Apply(m, Event{EventType::kRedistrictPiece, other, other_offset,
                         tighter, 1});
          Apply(m, Event{EventType::kAttachIdentity, other,
                         SizeIdentity(kSizeUpperBound), 0, 0});
          life.size = tighter;
          ++counts.tightened_bounds;
        }
      }
    }
  }

  void FlushGroup(RedistrictGroup& group) {
    MemoryState& m = Memory(group.memory);
    std::vector<RedistrictGroup::Piece> placed;
    for (const auto& piece : group.pieces)
      if (piece.placed) placed.push_back(piece);
    std::sort(placed.begin(), placed.end(),
              [](const auto& a, const auto& b) { return a.offset < b.offset; });
    auto old_it = instances.find(group.old_instance);
    if (old_it != instances.end()) {
      RemoveLive(m, group.old_instance, old_it->second.offset);
      old_it->second.phase = Phase::kGone;
    }
    Apply(m, Event{EventType::kRedistrict, group.old_instance, 0, 0,
                   static_cast<uint32_t>(placed.size())});
    for (size_t i = 0; i < placed.size(); ++i) {
      const uint64_t limit =
          i + 1 < placed.size() ? placed[i + 1].offset : group.old_end;
      const uint64_t bound =
          limit > placed[i].offset ? limit - placed[i].offset : 0;
      Apply(m, Event{EventType::kRedistrictPiece, placed[i].instance,
                     placed[i].offset, bound, 1});
      Apply(m, Event{EventType::kAttachIdentity, placed[i].instance,
                     SizeIdentity(kSizeUpperBound), 0, 0});
      InstanceLife& life = instances[placed[i].instance];
      life.memory = group.memory;
      life.phase = Phase::kLive;
      life.offset = placed[i].offset;
      life.size = bound;
      life.alignment = 1;
      life.bounded = true;
      life.release_requested = false;
      AddLive(m, placed[i].instance, placed[i].offset);
      ++counts.bounded_pieces;
    }
    for (const auto& piece : group.pieces) {
      if (!piece.failed) continue;
      Apply(m, Event{EventType::kAllocationFailed, piece.instance, 0, 0, 0});
      InstanceLife& life = instances[piece.instance];
      life.memory = group.memory;
      life.phase = Phase::kFailed;
      m.failed_unknown_size.push_back(piece.instance);
    }
    // Pieces neither placed nor failed go back to waiting (announced).
    ++counts.redistricts;
  }

  void FlushAllGroups() {
    for (auto& group : open_groups) FlushGroup(group);
    open_groups.clear();
  }

  // A piece's outcome line: true when it belonged to an open group.
  bool ResolvePiece(uint64_t instance, bool failed, uint64_t offset) {
    for (size_t g = 0; g < open_groups.size(); ++g) {
      RedistrictGroup& group = open_groups[g];
      for (auto& piece : group.pieces) {
        if (piece.instance != instance || piece.placed || piece.failed)
          continue;
        piece.failed = failed;
        piece.placed = !failed;
        piece.offset = offset;
        bool all = true;
        for (const auto& p : group.pieces) all = all && (p.placed || p.failed);
        if (all) {
          FlushGroup(group);
          open_groups.erase(open_groups.begin() + static_cast<long>(g));
        }
        return true;
      }
    }
    return false;
  }

  void OnInstanceLine(std::string_view msg) {
    uint64_t inst = 0;
    if (StartsWith(msg, "creating new local instance:") ||
        StartsWith(msg, "reusing local instance:")) {
      const size_t colon = msg.find(':');
      if (!ParseHex(Trim(msg.substr(colon + 1)), &inst)) {
        ++counts.unknown_lines;
        return;
      }
      ++counts.instance_lines;
      InstanceLife& life = instances[inst];
      if (life.phase == Phase::kLive || life.phase == Phase::kDeferred) {
        // A new life of an id still held: the release line is missing.
        // Leave the old life to the map (the next placement is a
        // duplicate, counted there).
      }
      life = InstanceLife{};
      life.memory = RealmMemoryOfInstance(inst);
      life.announce_order = ++announce_counter;
      Memory(life.memory).has_instances = true;
      return;
    }
    if (StartsWith(msg, "instance layout:")) {
      uint64_t bytes = 0, align = 0;
      if (!HexField(msg, "inst=", &inst) ||
          !DecimalField(msg, "bytes=", &bytes) ||
          !DecimalField(msg, "align=", &align)) {
        ++counts.unknown_lines;
        return;
      }
      ++counts.instance_lines;
      InstanceLife& life = instances[inst];
      if (life.phase != Phase::kAnnounced) {
        life = InstanceLife{};
        life.announce_order = ++announce_counter;
      }
      life.memory = RealmMemoryOfInstance(inst);
      life.have_layout = true;
      life.size = bytes;
      life.alignment = align == 0 ? 1 : align;
      return;
    }
    if (StartsWith(msg, "allocation completed:")) {
      uint64_t offset = 0;
      if (!HexField(msg, "inst=", &inst) ||
          !DecimalField(msg, "offset=", &offset)) {
        ++counts.unknown_lines;
        return;
      }
      ++counts.instance_lines;
      if (ResolvePiece(inst, false, offset)) return;
      InstanceLife& life = instances[inst];
      life.memory = RealmMemoryOfInstance(inst);
      MemoryState& m = Memory(life.memory);
      if (life.phase == Phase::kDeferred) {
        MakeRoom(m, inst, offset, life.size);
        Apply(m, Event{EventType::kDeferredCompleted, inst, offset, 0, 0});
      } else {
        if (!life.have_layout) {
          // Placed with no layout and no redistrict seen: the size is not
          // in the log.  Shown as zero bytes with the "unknown" identity.
          life.size = 0;
          life.alignment = 1;
        }
        MakeRoom(m, inst, offset, life.size);
        Apply(m, Event{EventType::kAllocated, inst, offset, life.size,
                       NarrowAlignment(life.alignment)});
        if (!life.have_layout)
          Apply(m, Event{EventType::kAttachIdentity, inst,
                         SizeIdentity(kSizeUnknown), 0, 0});
      }
      life.phase = Phase::kLive;
      life.offset = offset;
      life.release_requested = false;
      AddLive(m, inst, offset);
      return;
    }
    if (StartsWith(msg, "allocation failed:")) {
      if (!HexField(msg, "inst=", &inst)) {
        ++counts.unknown_lines;
        return;
      }
      ++counts.instance_lines;
      if (ResolvePiece(inst, true, 0)) return;
      InstanceLife& life = instances[inst];
      life.memory = RealmMemoryOfInstance(inst);
      MemoryState& m = Memory(life.memory);
      if (life.phase == Phase::kDeferred) {
        Apply(m, Event{EventType::kDeferredFailed, inst, 0, 0, 0});
      } else {
        Apply(m, Event{EventType::kAllocationFailed, inst, 0,
                       life.have_layout ? life.size : 0,
                       NarrowAlignment(life.alignment)});
      }
      life.phase = Phase::kFailed;
      return;
    }
    if (StartsWith(msg, "instance created:")) {
      uint64_t bytes = 0;
      if (!HexField(msg, "inst=", &inst) ||
          !DecimalField(msg, "bytes=", &bytes)) {
        ++counts.unknown_lines;
        return;
      }
      ++counts.instance_lines;
      InstanceLife& life = instances[inst];
      if (life.phase != Phase::kAnnounced) return;  // confirms an outcome
      life.memory = RealmMemoryOfInstance(inst);
      if (!life.have_layout) {
        life.size = bytes;
        life.alignment = 1;
        life.have_layout = true;
      }
      MemoryState& m = Memory(life.memory);
      Apply(m, Event{EventType::kDeferred, inst, kNoOffset, life.size,
                     NarrowAlignment(life.alignment)});
      life.phase = Phase::kDeferred;
      return;
    }
    if (StartsWith(msg, "instance destroyed:")) {
      uint64_t wait_on = 0;
      if (!HexField(msg, "inst=", &inst) ||
          !HexField(msg, "wait_on=", &wait_on)) {
        ++counts.unknown_lines;
        return;
      }
      ++counts.instance_lines;
      auto found = instances.find(inst);
      const uint64_t memory = RealmMemoryOfInstance(inst);
      MemoryState& m = Memory(memory);
      if (found == instances.end()) {
        // Never seen: the map counts it (unknown instance) on release.
        return;
      }
      InstanceLife& life = found->second;
      if (life.phase == Phase::kLive || life.phase == Phase::kDeferred) {
        Apply(m, Event{EventType::kReleaseRequested, inst, 0, 0,
                       wait_on == 0 ? 1u : 0u});
        life.release_requested = true;
        life.release_wait_on = wait_on;
      }
      return;
    }
    if (StartsWith(msg, "deallocation completed:")) {
      if (!HexField(msg, "inst=", &inst)) {
        ++counts.unknown_lines;
        return;
      }
      ++counts.instance_lines;
      if (released_early.erase(inst) > 0) return;  // applied already
      const uint64_t memory = RealmMemoryOfInstance(inst);
      MemoryState& m = Memory(memory);
      auto found = instances.find(inst);
      if (found == instances.end() || found->second.phase == Phase::kGone) {
        Apply(m, Event{EventType::kReleased, inst});  // the map counts it
        return;
      }
      InstanceLife& life = found->second;
      if (life.phase == Phase::kLive && !life.release_requested) {
        // No destroy line: a redistrict, if new instances wait unplaced in
        // this memory (in the order they were announced).
        std::vector<std::pair<uint64_t, uint64_t>> waiting;
        for (const auto& [id, other] : instances) {
          if (other.phase == Phase::kAnnounced && !other.have_layout &&
              other.memory == memory)
            waiting.emplace_back(other.announce_order, id);
        }
        for (const auto& group : open_groups)
          for (const auto& piece : group.pieces)
            waiting.erase(std::remove_if(waiting.begin(), waiting.end(),
                                         [&](const auto& w) {
                                           return w.second == piece.instance;
                                         }),
                          waiting.end());
        if (!waiting.empty()) {
          std::sort(waiting.begin(), waiting.end());
          RedistrictGroup group;
          group.memory = memory;
          group.old_instance = inst;
          group.old_offset = life.offset;
          group.old_end = life.offset + life.size;
          for (const auto& w : waiting) {
            RedistrictGroup::Piece piece;
            piece.instance = w.second;
            group.pieces.push_back(piece);
          }
          open_groups.push_back(std::move(group));
          return;
        }
        ++m.released_without_destroy;
      }
      if (life.phase == Phase::kLive) RemoveLive(m, inst, life.offset);
      Apply(m, Event{EventType::kReleased, inst});
      life.phase = Phase::kGone;
      return;
    }
    if (StartsWith(msg, "releasing local instance:")) {
      ++counts.instance_lines;
      return;
    }
    // Realm's fatal line when nobody asked for the allocation result:
    // "instance allocation failed - out of memory in mem 1e00000000000000",
    // then abort().  It names the memory, not the instance: the request is
    // the most recent one in that memory still without an outcome.
    constexpr std::string_view kOutOfMemory =
        "instance allocation failed - out of memory in mem ";
    if (StartsWith(msg, kOutOfMemory)) {
      uint64_t memory = 0;
      if (!ParseHex(Trim(msg.substr(kOutOfMemory.size())), &memory)) {
        ++counts.unknown_lines;
        return;
      }
      ++counts.instance_lines;
      FailLatestRequest(memory);
      return;
    }
    ++counts.unknown_lines;
  }

  // The fatal out-of-memory line: the newest request of `memory` that has a
  // layout and no outcome fails at once; failing that, the newest deferred
  // one fails eventually.  Neither: the line is only counted.
  void FailLatestRequest(uint64_t memory) {
    uint64_t instant = 0, deferred = 0;
    uint64_t instant_order = 0, deferred_order = 0;
    for (const auto& [id, life] : instances) {
      if (life.memory != memory) continue;
      if (life.phase == Phase::kAnnounced && life.have_layout &&
          life.announce_order > instant_order) {
        instant = id;
        instant_order = life.announce_order;
      } else if (life.phase == Phase::kDeferred &&
                 life.announce_order > deferred_order) {
        deferred = id;
        deferred_order = life.announce_order;
      }
    }
    MemoryState& m = Memory(memory);
    if (instant_order != 0) {
      InstanceLife& life = instances[instant];
      Apply(m, Event{EventType::kAllocationFailed, instant, 0, life.size,
                     NarrowAlignment(life.alignment)});
      life.phase = Phase::kFailed;
    } else if (deferred_order != 0) {
      Apply(m, Event{EventType::kDeferredFailed, deferred, 0, 0, 0});
      instances[deferred].phase = Phase::kFailed;
    } else {
      ++counts.fatal_without_request;
    }
  }

  // "Memory:1e00000000000000, SYSTEM_MEM, capacity: 16777216"
  bool OnMemoryLine(std::string_view line) {
    if (!StartsWith(line, "Memory:")) return false;
    std::string_view rest = line.substr(7);
    const size_t c1 = rest.find(',');
    if (c1 == std::string_view::npos) return false;
    const size_t c2 = rest.find(',', c1 + 1);
    if (c2 == std::string_view::npos) return false;
    uint64_t id = 0, capacity = 0;
    std::string_view cap = rest.substr(c2 + 1);
    const size_t colon = cap.find(':');
    if (!ParseHex(Trim(rest.substr(0, c1)), &id) ||
        colon == std::string_view::npos ||
        !ParseDecimal(Trim(cap.substr(colon + 1)), &capacity))
      return false;
    MemoryState& m = Memory(id);
    m.listed = true;
    m.kind_name = std::string(Trim(rest.substr(c1 + 1, c2 - c1 - 1)));
    m.kind = ParseMemoryKind(m.kind_name);
    m.capacity = capacity;
    m.capacity_known = true;
    m.map.set_capacity(capacity, true);
    ++counts.memory_lines;
    return true;
  }

  void Feed(std::string_view raw) {
    ++counts.lines;
    std::string_view line = raw;
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
      line.remove_suffix(1);
    PrefixedLine p;
    if (SplitPrefix(line, &p)) {
      saw_realm = true;
      if (!node_known) {
        node = p.node;
        node_known = true;
      }
      in_multiline = true;
      if (p.logger == "inst") {
        OnInstanceLine(p.message);
      } else if (p.logger == "event" &&
                 StartsWith(p.message, "user event cancelled:")) {
        // -level event=2: a destroy waiting on exactly this user event
        // will not happen (Realm keeps the range).  A destroy waiting on
        // an event merged from it is not seen here.
        uint64_t event = 0;
        if (HexField(p.message, "event=", &event) && event != 0) {
          ++counts.instance_lines;
          for (auto& [id, life] : instances) {
            if (!life.release_requested || life.release_wait_on != event ||
                life.phase != Phase::kLive)
              continue;
            Apply(Memory(life.memory),
                  Event{EventType::kReleaseRequested, id, 0, 0, 2});
            life.release_requested = false;
            life.release_wait_on = 0;
            ++counts.cancelled_releases;
          }
        } else {
          ++counts.other_logger_lines;
        }
      } else if (p.logger == "app" && StartsWith(p.message, "CHECKPOINT ")) {
        ++counts.checkpoints;
        ++counts.other_logger_lines;
      } else {
        ++counts.other_logger_lines;
      }
      return;
    }
    std::string_view body = Trim(line);
    if (OnMemoryLine(body)) {
      saw_realm = true;
      return;
    }
    if (in_multiline) {
      ++counts.continuation_lines;
    } else {
      ++counts.unknown_lines;
    }
  }
};

RealmLogReader::RealmLogReader() : state_(std::make_unique<State>()) {}
RealmLogReader::~RealmLogReader() = default;

void RealmLogReader::FeedLine(std::string_view line) { state_->Feed(line); }

void RealmLogReader::FeedText(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    state_->Feed(text.substr(begin, end - begin));
    begin = end + 1;
  }
}

const RealmLogCounts& RealmLogReader::counts() const {
  return state_->counts;
}
uint32_t RealmLogReader::node() const { return state_->node; }
bool RealmLogReader::saw_realm_lines() const { return state_->saw_realm; }

DumpFile RealmLogReader::Dump() {
  State& s = *state_;
  s.FlushAllGroups();
  DumpFile dump;
  dump.node = s.node;
  dump.source = "ingest-realm-log";
  const RealmLogCounts& c = s.counts;
  dump.notes.push_back(absl::StrCat(
      "lines read: ", c.lines, " (instance lines: ", c.instance_lines,
      ", machine-dump memory lines: ", c.memory_lines,
      ", other lines of multi-line entries skipped: ", c.continuation_lines,
      ", other loggers' lines skipped: ", c.other_logger_lines,
      ", unrecognized lines skipped: ", c.unknown_lines, ")"));
  if (c.reorderings > 0)
    dump.notes.push_back(absl::StrCat(
        c.reorderings,
        " release(s) were logged after the allocation they made room for "
        "(another thread); applied first, as they must have happened "
        "(reordering, not an anomaly)"));
  if (c.fatal_without_request > 0)
    dump.notes.push_back(absl::StrCat(
        c.fatal_without_request,
        " fatal out-of-memory line(s) found no request without an outcome "
        "in their memory"));
  dump.notes.push_back(
      "not in Realm's log: Legion/Legate identity of instances (kind, "
      "fields, regions, provenance), what a pending release waits on");

  // Announced instances with no layout and no outcome: a redistrict waiting
  // on its precondition (or a creation cut off by the end of the log).
  std::map<uint64_t, std::vector<std::pair<uint64_t, uint64_t>>> waiting;
  for (const auto& [id, life] : s.instances) {
    if (life.phase == Phase::kAnnounced && !life.have_layout)
      waiting[life.memory].emplace_back(life.announce_order, id);
  }
  std::map<uint64_t, std::vector<uint64_t>> sized_no_outcome;
  for (const auto& [id, life] : s.instances) {
    if (life.phase == Phase::kAnnounced && life.have_layout)
      sized_no_outcome[life.memory].push_back(id);
  }

  for (auto& [id, m] : s.memories) {
    const bool worth_showing =
        m.has_instances || (m.listed && m.capacity_known && m.capacity > 0);
    if (!worth_showing) continue;
    Snapshot snap;
    m.map.CopyTo(&snap);
    snap.memory_id = id;
    snap.kind = m.kind;
    snap.name = m.kind_name;
    snap.node = m.node;
    snap.capacity = m.capacity;
    snap.capacity_known = m.capacity_known;
    snap.addressed = m.kind == MemoryKind::kDynamicFramebuffer;
    const std::string mem = HexId(id);
    if (!m.capacity_known)
      dump.notes.push_back(
          mem + ": capacity unknown (the log never said; run with "
                "-level inst=1,machine=1 to log it)");
    auto w = waiting.find(id);
    if (w != waiting.end()) {
      std::sort(w->second.begin(), w->second.end());
      std::string list;
      for (const auto& [order, inst] : w->second) {
        PendingRequest request;
        request.instance = inst;
        request.size = 0;
        request.sequence = snap.sequence;
        request.identity = s.SizeIdentity(kSizeUnknown);
        snap.pending.push_back(request);
        absl::StrAppend(&list, " ", HexId(inst));
      }
      dump.notes.push_back(
          mem + ": announced but not placed, size unknown (a redistrict "
                "waiting on its precondition; its old instance stays live "
                "here until the log shows its range released):" + list);
    }
    auto sz = sized_no_outcome.find(id);
    if (sz != sized_no_outcome.end()) {
      std::string list;
      std::sort(sz->second.begin(), sz->second.end());
      for (uint64_t inst : sz->second) absl::StrAppend(&list, " ", HexId(inst));
      dump.notes.push_back(mem + ": requested, outcome not in the log:" + list);
    }
    std::string bounded;
    for (const Allocation& a : snap.allocations) {
      auto life = s.instances.find(a.instance);
      if (life != s.instances.end() && life->second.bounded &&
          life->second.phase == Phase::kLive && life->second.memory == id)
        absl::StrAppend(&bounded, " ", HexId(a.instance), "<=", a.size);
    }
    if (!bounded.empty())
      dump.notes.push_back(
          mem + ": sizes are upper bounds for these redistricted pieces (the "
                "log never gives them; each ends at or before the next piece "
                "or the old instance's end; holes beside them are lower "
                "bounds):" + bounded);
    if (!m.failed_unknown_size.empty()) {
      std::string list;
      for (uint64_t inst : m.failed_unknown_size)
        absl::StrAppend(&list, " ", HexId(inst));
      dump.notes.push_back(mem + ": failed redistricted pieces, size unknown:" +
                           list);
    }
    if (m.released_without_destroy > 0)
      dump.notes.push_back(absl::StrCat(
          mem, ": ", m.released_without_destroy,
          " release(s) with no \"instance destroyed\" line and no redistrict "
          "in sight"));
    // Identities referenced by this memory's picture.
    std::set<uint32_t> used;
    for (const Allocation& a : snap.allocations)
      if (a.identity) used.insert(a.identity);
    for (const PendingRequest& p : snap.pending)
      if (p.identity) used.insert(p.identity);
    for (const Failure& f : snap.failures)
      if (f.identity) used.insert(f.identity);
    for (uint32_t identity : used) {
      if (snap.FindIdentity(identity)) continue;
      auto it = s.identities.find(identity);
      if (it != s.identities.end()) snap.identities.push_back(it->second);
    }
    dump.memories.push_back(std::move(snap));
  }
  return dump;
}

bool IngestRealmLogs(const std::vector<std::string>& paths, DumpFile* out,
                     std::string* error) {
  DumpFile merged;
  merged.source = "ingest-realm-log";
  std::map<std::pair<uint32_t, uint64_t>, std::string> seen;
  bool first = true;
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      *error = path + ": cannot open";
      return false;
    }
    RealmLogReader reader;
    std::string line;
    while (std::getline(in, line)) reader.FeedLine(line);
    if (in.bad()) {
      *error = path + ": read error";
      return false;
    }
    if (!reader.saw_realm_lines()) {
      *error = path +
               ": not a Realm log (no line of the form \"[node - thread] "
               "seconds {level}{logger}: message\")";
      return false;
    }
    DumpFile dump = reader.Dump();
    if (first) {
      merged.node = dump.node;
      first = false;
    }
    for (const std::string& note : dump.notes)
      merged.notes.push_back(paths.size() > 1 ? path + ": " + note : note);
    for (Snapshot& snap : dump.memories) {
      auto key = std::make_pair(snap.node, snap.memory_id);
      auto [it, inserted] = seen.emplace(key, path);
      if (!inserted) {
        *error = path + ": node " + std::to_string(snap.node) + " memory " +
                 HexId(snap.memory_id) + " is also in " + it->second +
                 " (give each node's log once)";
        return false;
      }
      merged.memories.push_back(std::move(snap));
    }
  }
  std::sort(merged.memories.begin(), merged.memories.end(),
            [](const Snapshot& a, const Snapshot& b) {
              return a.memory_id != b.memory_id ? a.memory_id < b.memory_id
                                                : a.node < b.node;
            });
  *out = std::move(merged);
  return true;
}

namespace {

// The message of a line of Realm's "realm_shadow" logger, or "".
std::string_view ShadowLoggerMessage(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
    line.remove_suffix(1);
  PrefixedLine p;
  if (!SplitPrefix(line, &p) || p.logger != "realm_shadow") return {};
  return p.message;
}

std::string NormalPath(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

}  // namespace

bool IngestRealmLogAtDump(const std::string& log_path,
                          const std::string& dump_path, DumpFile* out,
                          std::string* error) {
  absl::StatusOr<DumpFile> read = ReadDump(dump_path);
  if (!read.ok()) {
    *error = std::string(read.status().message());
    return false;
  }
  const DumpFile dumped = *std::move(read);
  std::ifstream in(log_path, std::ios::binary);
  if (!in) {
    *error = log_path + ": cannot open";
    return false;
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (in.bad()) {
    *error = log_path + ": read error";
    return false;
  }

  // Every marker of the log, by line; then those naming this dump, by exact
  // path, else by file name.
  struct Found {
    size_t line;
    DumpMarker marker;
  };
  std::vector<Found> markers;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view message = ShadowLoggerMessage(lines[i]);
    DumpMarker m;
    if (!message.empty() && ParseDumpMarker(message, &m))
      markers.push_back({i, std::move(m)});
  }
  const std::string want = NormalPath(dump_path);
  std::vector<Found> mine;
  for (const Found& f : markers)
    if (f.marker.file == want) mine.push_back(f);
  bool by_name = false;
  if (mine.empty()) {
    for (const Found& f : markers)
      if (BaseName(f.marker.file) == BaseName(dump_path)) mine.push_back(f);
    by_name = !mine.empty();
  }
  if (mine.empty()) {
    *error = log_path + ": no dump marker names " + dump_path + " (" +
             std::to_string(markers.size()) +
             " marker(s) in the log; was the run made with -level "
             "realm_shadow=2, and is the dump from this run?)";
    return false;
  }

  DumpFile result;
  result.source = "ingest-realm-log";
  result.node = dumped.node;
  for (const Snapshot& want_memory : dumped.memories) {
    const Found* chosen = nullptr;
    bool sequence_matched = false;
    for (const Found& f : mine) {
      if (f.marker.memory_id != want_memory.memory_id) continue;
      if (f.marker.sequence == want_memory.sequence) {
        chosen = &f;
        sequence_matched = true;
      } else if (!sequence_matched) {
        chosen = &f;  // the last so far
      }
    }
    const std::string mem = HexId(want_memory.memory_id);
    if (chosen == nullptr) {
      result.notes.push_back(mem + ": no marker for this memory in " +
                             log_path + "; not rebuilt");
      continue;
    }
    RealmLogReader reader;
    for (size_t i = 0; i < chosen->line; ++i) reader.FeedLine(lines[i]);
    // A failure dump is written at the failure, inside Realm's
    // notify_allocation and before Realm logs the outcome: the log states
    // that failure in a line after the marker.  That one line (the failed
    // instance's outcome, the newest failure of the dumped memory) is
    // applied too; nothing else after the marker is.
    std::string late_failure;
    if (chosen->marker.reason == "failure" && !want_memory.failures.empty()) {
      const uint64_t failed = want_memory.failures.back().instance;
      for (size_t i = chosen->line + 1; i < lines.size(); ++i) {
        PrefixedLine p;
        if (!SplitPrefix(lines[i], &p) || p.logger != "inst") continue;
        uint64_t inst = 0;
        const bool outcome =
            (StartsWith(p.message, "allocation failed:") &&
             HexField(p.message, "inst=", &inst) && inst == failed) ||
            (StartsWith(p.message, "instance allocation failed - out of "
                                   "memory in mem ") &&
             RealmMemoryOfInstance(failed) == want_memory.memory_id);
        if (!outcome) continue;
        reader.FeedLine(lines[i]);
        late_failure = "; the failure line of " + HexId(failed) + " (line " +
                       std::to_string(i + 1) +
                       ", logged after the dump was taken at the failure) "
                       "applied too";
        break;
      }
    }
    DumpFile cut = reader.Dump();
    // The instances the log names between the dump's begin line and its
    // marker: Realm went on allocating while the snapshot was taken, so each
    // of them may be on either side of it.
    std::string in_flight;
    size_t begin_line = chosen->line;
    for (size_t i = chosen->line; i-- > 0;) {
      const std::string_view message = ShadowLoggerMessage(lines[i]);
      DumpMarker begin;
      if (!message.empty() && ParseDumpBegin(message, &begin) &&
          begin.memory_id == chosen->marker.memory_id &&
          begin.file == chosen->marker.file) {
        begin_line = i;
        break;
      }
    }
    std::set<uint64_t> flying;
    for (size_t i = begin_line + 1; i < chosen->line; ++i) {
      PrefixedLine p;
      uint64_t inst = 0;
      if (SplitPrefix(lines[i], &p) && p.logger == "inst" &&
          (HexField(p.message, "inst=", &inst) ||
           (p.message.rfind(':') != std::string_view::npos &&
            ParseHex(Trim(p.message.substr(p.message.rfind(':') + 1)),
                     &inst))) &&
          RealmMemoryOfInstance(inst) == want_memory.memory_id)
        flying.insert(inst);
    }
    for (uint64_t inst : flying) absl::StrAppend(&in_flight, " ", HexId(inst));
    Snapshot picture;
    bool found = false;
    for (Snapshot& s : cut.memories) {
      if (s.memory_id == want_memory.memory_id) {
        picture = std::move(s);
        found = true;
        break;
      }
    }
    if (!found) {
      // The log had nothing of this memory yet: an empty picture.
      picture.memory_id = want_memory.memory_id;
      picture.node = static_cast<uint32_t>((want_memory.memory_id >> 40) & 0xffff);
      picture.capacity_known = false;
    }
    result.memories.push_back(std::move(picture));
    result.notes.push_back(
        mem + ": log cut before line " + std::to_string(chosen->line + 1) +
        " (the marker of " + chosen->marker.file + ", reason " +
        chosen->marker.reason + ", sequence " +
        std::to_string(chosen->marker.sequence) + ")" +
        (by_name ? "; matched by file name only" : "") + late_failure +
        (sequence_matched
             ? ""
             : "; the dump's sequence " +
                   std::to_string(want_memory.sequence) +
                   " matches no marker: the last one was used"));
    if (!in_flight.empty())
      result.notes.push_back(absl::StrCat(
          mem, ": ", kInFlightNote, " (log lines ", begin_line + 2, "-",
          chosen->line, ", between the dump's begin line and its marker):",
          in_flight));
    for (const std::string& note : cut.notes)
      result.notes.push_back(mem + " cut: " + note);
  }
  std::sort(result.memories.begin(), result.memories.end(),
            [](const Snapshot& a, const Snapshot& b) {
              return a.memory_id < b.memory_id;
            });
  *out = std::move(result);
  return true;
}

}  // namespace realm_shadow
