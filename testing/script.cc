// testing/script.cc - see script.h.
#include "testing/script.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "absl/strings/numbers.h"
#include "realm_shadow/core/memory_kind.h"

namespace realm_shadow {
namespace model {

namespace {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%" PRIx64, v);
  return buf;
}

// A script's number: 1 to 20 decimal digits, no sign or space (which
// SimpleAtoi alone would take), at most 2^64 - 1.
bool ParseU64(const std::string& s, uint64_t* out) {
  return !s.empty() && s.size() <= 20 &&
         std::all_of(s.begin(), s.end(),
                     [](char c) { return c >= '0' && c <= '9'; }) &&
         absl::SimpleAtoi(s, out);
}

std::vector<std::string> SplitWords(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    parts.push_back(s.substr(start, p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return parts;
}

// Realm's kind name as the one table records it (memory_kinds.h).
realm_shadow_memory_kind KindOf(const std::string& realm_kind) {
  return static_cast<realm_shadow_memory_kind>(ParseMemoryKind(realm_kind));
}

}  // namespace

struct ScriptRunner::Handle {
  std::string name;
  Memory* memory = nullptr;
  uint64_t instance = 0;
  uint64_t size = 0;
  bool failed = false;
  bool destroyed = false;
};

struct ScriptRunner::Memory {
  std::string alias;
  std::string realm_kind;
  std::unique_ptr<ModelMemory> model;
  // The latest handle given each instance id (ids are reused).
  std::map<uint64_t, Handle*> handle_of_instance;
};

int CapacitiesFromCommandLine(const std::string& command_line,
                              ScriptOptions* options) {
  static const std::pair<const char*, const char*> kFlags[] = {
      {"-ll:csize", "SYSTEM_MEM"},
      {"-ll:rsize", "REGDMA_MEM"},
      {"-ll:fsize", "GPU_FB_MEM"},
      {"-ll:zsize", "Z_COPY_MEM"}};
  const std::vector<std::string> words = SplitWords(command_line);
  int found = 0;
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    for (const auto& [flag, kind] : kFlags) {
      uint64_t mib;
      if (words[i] == flag && ParseU64(words[i + 1], &mib) && mib < (uint64_t{1} << 44)) {
        options->capacity_by_kind[kind] = mib << 20;
        ++found;
      }
    }
  }
  return found;
}

ScriptRunner::ScriptRunner(ScriptOptions options) : options_(std::move(options)) {}
ScriptRunner::~ScriptRunner() = default;

ModelMemory* ScriptRunner::memory(const std::string& alias) {
  for (auto& m : memories_)
    if (m->alias == alias) return m->model.get();
  return nullptr;
}

ScriptRunner::Handle* ScriptRunner::HandleOf(const Memory& m, uint64_t instance) {
  auto it = m.handle_of_instance.find(instance);
  return it == m.handle_of_instance.end() ? nullptr : it->second;
}

ScriptResult ScriptRunner::RunText(const std::string& script) {
  std::istringstream in(script);
  return Run(in);
}

ScriptResult ScriptRunner::Run(std::istream& script) {
  result_ = ScriptResult{};
  std::string line;
  int lineno = 0;
  while (std::getline(script, line)) {
    ++lineno;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const std::vector<std::string> words = SplitWords(line);
    if (words.empty()) continue;
    std::string error;
    if (!Execute(words, &error)) {
      result_.ok = false;
      result_.error_line = lineno;
      result_.error = error;
      break;
    }
  }
  return std::move(result_);
}

bool ScriptRunner::Execute(const std::vector<std::string>& w, std::string* error) {
  const std::string& op = w[0];
  auto need = [&](size_t n) {
    if (w.size() >= n) return true;
    *error = "'" + op + "' needs " + std::to_string(n - 1) + " operands";
    return false;
  };
  if (op == "mem") {
    if (!need(3)) return false;
    if (memory(w[1])) { *error = "memory alias declared twice: " + w[1]; return false; }
    uint64_t capacity = 0;
    if (w.size() >= 4) {
      if (!ParseU64(w[3], &capacity)) { *error = "bad capacity: " + w[3]; return false; }
    } else {
      auto it = options_.capacity_by_kind.find(w[2]);
      if (it == options_.capacity_by_kind.end()) {
        *error = "no capacity known for " + w[2];
        return false;
      }
      capacity = it->second;
    }
    uint64_t index;
    if (w[2] == "SYSTEM_MEM") {
      index = 0;
    } else if (w[2] == "REGDMA_MEM") {
      index = 2;
    } else {
      index = 3 + memories_.size();
    }
    for (auto& m : memories_)
      if ((m->model->memory_id() & 0xff) == index) {
        *error = "a second " + w[2] + " is not supported";
        return false;
      }
    auto m = std::make_unique<Memory>();
    m->alias = w[1];
    m->realm_kind = w[2];
    ModelMemoryOptions mo;
    mo.events = &events_;
    mo.observe_heaps = options_.observe_heaps;
    m->model = std::make_unique<ModelMemory>((uint64_t{0x1e} << 56) | index,
                                             KindOf(w[2]), capacity, w[2], mo);
    Memory* mp = m.get();
    m->model->set_outcome_observer(
        [this, mp](uint64_t instance, AllocationResult r, uint64_t) {
          // Failures during a create or redistrict belong to instances
          // that have no handle yet (their id may still name an older
          // handle); those calls record them when they return.
          if (in_request_) return;
          if (r != AllocationResult::kEventualFailure &&
              r != AllocationResult::kCancelled)
            return;
          if (Handle* h = HandleOf(*mp, instance)) h->failed = true;
        });
    memories_.push_back(std::move(m));
    return true;
  }
  if (op == "zero") {
    if (!need(3)) return false;
    return Create({"create", w[1], w[2], "0"}, error);
  }
  if (op == "create") return need(4) && Create(w, error);
  if (op == "redistrict") return need(3) && Redistrict(w, error);
  if (op == "destroy") {
    if (!need(2)) return false;
    auto it = handle_by_name_.find(w[1]);
    if (it == handle_by_name_.end()) { *error = "unknown instance name: " + w[1]; return false; }
    Event after = kNoEvent;
    for (size_t i = 2; i < w.size(); ++i) {
      if (w[i].rfind("after=", 0) == 0) {
        if (!ParseAfter(w[i], &after, error)) return false;
      } else {
        *error = "unexpected operand: " + w[i];
        return false;
      }
    }
    Handle* h = it->second;
    h->destroyed = true;
    h->memory->model->Destroy(h->instance, after);
    return true;
  }
  if (op == "event") {
    if (!need(2)) return false;
    if (event_by_name_.count(w[1])) { *error = "event declared twice: " + w[1]; return false; }
    event_by_name_[w[1]] = events_.NewEvent();
    return true;
  }
  if (op == "trigger" || op == "poison") {
    if (!need(2)) return false;
    auto e = event_by_name_.find(w[1]);
    if (e == event_by_name_.end()) { *error = "unknown event: " + w[1]; return false; }
    const bool ok = op == "trigger" ? events_.Trigger(e->second) : events_.Poison(e->second);
    if (!ok) { *error = "event already fired: " + w[1]; return false; }
    return true;
  }
  if (op == "checkpoint") {
    if (!need(2)) return false;
    Checkpoint(w[1]);
    return true;
  }
  *error = "unknown op: " + op;
  return false;
}

bool ScriptRunner::ParseAfter(const std::string& word, Event* after,
                              std::string* error) {
  auto e = event_by_name_.find(word.substr(6));  // past "after="
  if (e == event_by_name_.end()) { *error = "unknown event: " + word; return false; }
  *after = e->second;
  return true;
}

bool ScriptRunner::Create(const std::vector<std::string>& w, std::string* error) {
  Memory* m = nullptr;
  for (auto& mm : memories_)
    if (mm->alias == w[1]) m = mm.get();
  if (!m) { *error = "unknown memory alias: " + w[1]; return false; }
  uint64_t alignment = options_.default_alignment;
  Event after = kNoEvent;
  for (size_t i = 4; i < w.size(); ++i) {
    if (w[i].rfind("align=", 0) == 0) {
      if (!ParseU64(w[i].substr(6), &alignment)) { *error = "bad alignment: " + w[i]; return false; }
    } else if (w[i].rfind("after=", 0) == 0) {
      if (!ParseAfter(w[i], &after, error)) return false;
    } else {
      *error = "unexpected operand: " + w[i];
      return false;
    }
  }
  const RangeAllocator& heap = m->model->current_heap();
  uint64_t size = 0;
  const std::string& spec = w[3];
  if (spec.rfind("hole+", 0) == 0) {
    uint64_t extra;
    if (!ParseU64(spec.substr(5), &extra)) { *error = "bad size: " + spec; return false; }
    const uint64_t usable = heap.largest_usable(alignment);
    size = usable + extra;
    result_.narration.push_back(
        "# size hole+: largest_hole=" + std::to_string(heap.largest_free()) +
        " usable=" + std::to_string(usable) +
        " free=" + std::to_string(heap.free_bytes()) +
        " -> request " + std::to_string(size));
  } else if (spec == "frag") {
    const uint64_t largest = heap.largest_free();
    const uint64_t free = heap.free_bytes();
    const uint64_t a = alignment > 1 ? alignment : 1;
    size = (largest + free) / 2 / a * a;
    const bool between = largest < size && size < free;
    result_.narration.push_back(
        "# size frag: largest_hole=" + std::to_string(largest) +
        " free=" + std::to_string(free) + " -> request " + std::to_string(size) +
        " (largest < req < free: " + (between ? "yes" : "no") + ")");
  } else if (!ParseU64(spec, &size)) {
    *error = "bad size: " + spec;
    return false;
  }
  in_request_ = true;
  const CreateResult r = m->model->Create(size, alignment, after);
  in_request_ = false;
  if (r.instance == 0) { *error = "instance ids exhausted in " + w[1]; return false; }
  auto h = std::make_unique<Handle>();
  h->name = w[2];
  h->memory = m;
  h->instance = r.instance;
  h->size = size;
  h->failed = r.result == AllocationResult::kInstantFailure;
  m->handle_of_instance[r.instance] = h.get();
  handle_by_name_[h->name] = h.get();
  handles_.push_back(std::move(h));
  return true;
}

bool ScriptRunner::Redistrict(const std::vector<std::string>& w, std::string* error) {
  auto it = handle_by_name_.find(w[1]);
  if (it == handle_by_name_.end()) { *error = "unknown instance name: " + w[1]; return false; }
  Handle* old = it->second;
  Memory* m = old->memory;
  std::vector<std::string> names;
  std::vector<PieceRequest> pieces;
  Event after = kNoEvent;
  for (size_t i = 2; i < w.size(); ++i) {
    if (w[i].rfind("after=", 0) == 0) {
      if (!ParseAfter(w[i], &after, error)) return false;
      continue;
    }
    const std::vector<std::string> parts = SplitOn(w[i], ':');
    PieceRequest p;
    p.alignment = options_.default_alignment;
    if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() ||
        !ParseU64(parts[1], &p.size) ||
        (parts.size() == 3 && !ParseU64(parts[2], &p.alignment))) {
      *error = "bad piece (want name:size[:align]): " + w[i];
      return false;
    }
    names.push_back(parts[0]);
    pieces.push_back(p);
  }
  if (pieces.empty()) { *error = "redistrict needs at least one piece"; return false; }
  in_request_ = true;
  const RedistrictResult r = m->model->Redistrict(old->instance, pieces, after);
  in_request_ = false;
  if (r.instances.size() != pieces.size()) {
    *error = "cannot redistrict " + w[1] + " (not live, or being destroyed)";
    return false;
  }
  old->destroyed = true;
  for (size_t i = 0; i < pieces.size(); ++i) {
    auto h = std::make_unique<Handle>();
    h->name = names[i];
    h->memory = m;
    h->instance = r.instances[i];
    h->size = pieces[i].size;
    h->failed = m->model->State(r.instances[i]) == InstanceState::kFailed;
    m->handle_of_instance[h->instance] = h.get();
    handle_by_name_[h->name] = h.get();
    handles_.push_back(std::move(h));
  }
  return true;
}

void ScriptRunner::Checkpoint(const std::string& label) {
  ScriptCheckpoint cp;
  cp.label = label;
  const std::string ck = "checkpoint=" + label;
  cp.lines.push_back("=== TRUTH BEGIN " + ck + " ===");
  for (auto& m : memories_) {
    const ModelMemory& mm = *m->model;
    const std::string mem = "mem=" + Hex(mm.memory_id());
    cp.lines.push_back("MEM " + ck + " alias=" + m->alias + " " + mem + " kind=" +
                       m->realm_kind + " capacity=" + std::to_string(mm.capacity()));
    std::vector<InstanceView> views = mm.Instances();
    views.erase(std::remove_if(views.begin(), views.end(),
                               [](const InstanceView& v) { return !v.holds_range; }),
                views.end());
    std::sort(views.begin(), views.end(), [](const InstanceView& a, const InstanceView& b) {
      if (a.offset != b.offset) return a.offset < b.offset;
      if (a.size != b.size) return a.size < b.size;
      return a.instance < b.instance;
    });
    uint64_t used = 0;
    for (const InstanceView& v : views) {
      const Handle* h = HandleOf(*m, v.instance);
      const char* state = v.state == InstanceState::kLive ? "live" : "pending_destroy";
      cp.lines.push_back("INST " + ck + " " + mem + " inst=" + Hex(v.instance) +
                         " offset=" + std::to_string(v.offset) +
                         " size=" + std::to_string(v.size) +
                         " end=" + std::to_string(v.offset + v.size) +
                         " align=" + std::to_string(v.alignment) + " state=" + state +
                         " name=" + (h ? h->name : std::string("?")));
      used += v.size;
    }
    uint64_t free = 0, largest = 0, holes = 0;
    mm.current_heap().ForEachFreeRange([&](const RangeAllocator::Range& r) {
      cp.lines.push_back("HOLE " + ck + " " + mem + " offset=" + std::to_string(r.first) +
                         " size=" + std::to_string(r.size()));
      free += r.size();
      largest = std::max(largest, r.size());
      ++holes;
    });
    for (const auto& h : handles_) {
      if (h->memory != m.get()) continue;
      const char* state = nullptr;
      if (h->failed) {
        state = "failed";
      } else if (!h->destroyed || HandleOf(*m, h->instance) == h.get()) {
        const InstanceState s = mm.State(h->instance);
        if (HandleOf(*m, h->instance) == h.get() &&
            (s == InstanceState::kAwaitingCreate || s == InstanceState::kPending ||
             s == InstanceState::kPendingPiece))
          state = "pending_alloc";
      }
      if (!state) continue;
      cp.lines.push_back("NOTALLOC " + ck + " " + mem + " inst=" + Hex(h->instance) +
                         " size=" + std::to_string(h->size) + " state=" + state +
                         " name=" + h->name);
    }
    cp.lines.push_back("SUMMARY " + ck + " " + mem + " live=" + std::to_string(views.size()) +
                       " used=" + std::to_string(used) + " free=" + std::to_string(free) +
                       " largest_hole=" + std::to_string(largest) +
                       " holes=" + std::to_string(holes));
  }
  cp.lines.push_back("=== TRUTH END " + ck + " ===");
  result_.checkpoints.push_back(std::move(cp));
  if (options_.on_checkpoint) options_.on_checkpoint(label, *this);
}

std::vector<ScriptCheckpoint> ParseTruthBlocks(std::istream& in) {
  std::vector<ScriptCheckpoint> blocks;
  std::string line;
  bool inside = false;
  const std::string begin = "=== TRUTH BEGIN checkpoint=";
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(begin, 0) == 0) {
      ScriptCheckpoint cp;
      std::string rest = line.substr(begin.size());
      const size_t sp = rest.find(' ');
      cp.label = rest.substr(0, sp);
      cp.lines.push_back(line);
      blocks.push_back(std::move(cp));
      inside = true;
      continue;
    }
    if (!inside) continue;
    blocks.back().lines.push_back(line);
    if (line.rfind("=== TRUTH END", 0) == 0) inside = false;
  }
  return blocks;
}

}  // namespace model
}  // namespace realm_shadow
