#include "realm_shadow/faces/realm_log.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "realm_shadow/analysis/history.h"
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
  int64_t time_ns = -1;  // the seconds on the line (-1: none readable)
  std::string_view logger;
  std::string_view message;
};

// "12.345678" seconds as nanoseconds, exactly (digits past the ninth
// dropped); false when it is not a plain decimal number.
bool ParseSecondsNs(std::string_view text, int64_t* ns) {
  const size_t dot = text.find('.');
  uint64_t whole = 0;
  if (!ParseDecimal(text.substr(0, dot), &whole) || whole > 9'000'000'000)
    return false;
  uint64_t fraction = 0;
  if (dot != std::string_view::npos) {
    std::string digits(text.substr(dot + 1, 9));
    if (!digits.empty() && !ParseDecimal(digits, &fraction)) return false;
    for (size_t i = digits.size(); i < 9; ++i) fraction *= 10;
  }
  *ns = static_cast<int64_t>(whole * 1'000'000'000 + fraction);
  return true;
}

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
  if (!ParseSecondsNs(Trim(line.substr(close + 1, level_open - close - 1)),
                      &out->time_ns))
    out->time_ns = -1;
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
  // Every event applied, in order, with the line and time of each line
  // that gave some (the memory's history, clock kLogTime).
  std::vector<EventRecord> events;
  std::vector<HistoryMark> marks;
  std::vector<uint64_t> mark_lines;
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
  int64_t line_time_ns = 0;   // of the last prefixed line with a time
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
    if (m.mark_lines.empty() || m.mark_lines.back() != counts.lines) {
      m.marks.push_back(HistoryMark{m.events.size(), line_time_ns});
      m.mark_lines.push_back(counts.lines);
    }
    m.events.push_back(HistoryRecordOf(e));
  }

  // Every event of the log for memory m, from the empty memory at the
  // log's start: each line's own time, per node (history.h, kLogTime).
  MemoryHistory HistoryOf(const MemoryState& m, const Snapshot& picture) const {
    MemoryHistory h;
    h.memory_id = m.id;
    h.node = m.node;
    h.clock = HistoryClock::kLogTime;
    HistoryCheckpoint base;
    base.state.memory_id = m.id;
    base.state.node = m.node;
    base.state.kind = picture.kind;
    base.state.name = picture.name;
    base.state.capacity = picture.capacity;
    base.state.capacity_known = picture.capacity_known;
    base.state.addressed = picture.addressed;
    h.checkpoints.push_back(std::move(base));
    h.events = m.events;
    h.marks = m.marks;
    h.lines = m.mark_lines;
    for (const auto& [id, identity] : identities) h.identities.push_back(identity);
    std::sort(h.identities.begin(), h.identities.end(),
              [](const Identity& a, const Identity& b) { return a.id < b.id; });
    return h;
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
    ++counts.unknown_lines;
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
      if (p.time_ns >= 0) line_time_ns = p.time_ns;
      if (!node_known) {
        node = p.node;
        node_known = true;
      }
      in_multiline = true;
      if (p.logger == "inst") {
        OnInstanceLine(p.message);
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
    dump.histories.push_back(s.HistoryOf(m, snap));
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
    for (MemoryHistory& h : dump.histories) merged.histories.push_back(std::move(h));
  }
  std::sort(merged.memories.begin(), merged.memories.end(),
            [](const Snapshot& a, const Snapshot& b) {
              return a.memory_id != b.memory_id ? a.memory_id < b.memory_id
                                                : a.node < b.node;
            });
  *out = std::move(merged);
  return true;
}

}  // namespace realm_shadow
