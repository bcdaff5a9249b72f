// scripts/trial/realm_random.cc - a randomized Realm program whose runs are
// checked against Realm's own state (scripts/legion-oracle).
//
// From a seed (-seed N) it writes a random program over two small memories,
// the system memory S and the registered memory R (-ll:csize / -ll:rsize, a
// few MiB each), plus the capacity-0 system memory X that Realm keeps for
// external instances, and runs it.  A program is a list of lines:
//
//   event E1                         a user event
//   create S i3 65536 align=64 [after=SPEC]
//                                    (size "fill": the largest hole of
//                                    Realm's heap now; "hole+N": N more)
//   external X|S|R i4 4096 [after=SPEC]   an instance on caller memory
//   destroy i3 [after=SPEC]
//   redistrict i3 i5:1000:32 i6:200000:4096 [after=SPEC]
//   trigger E1 | cancel E1 | poison E1  (poison: trigger on a cancelled event)
//   checkpoint
//
// SPEC is events joined by '+' (merged): E<k>, or r:<name> (the ready event
// of an instance's creation, poisoned when that creation failed).  A
// destroy or redistrict of an instance whose creation has not completed
// also waits on its ready event (Realm requires it).  Lines whose names are
// unknown (a program cut down by the oracle's reducer) are skipped, so any
// subset of a program runs.  -script FILE runs a program instead of
// generating one.
//
// At each checkpoint the program lets Realm's background work settle (at
// least -settle_ms, default 60, then until nothing it reads changes for
// 50 ms), writes "CHECKPOINT k" to Realm's log (logger
// "random", print level) and prints the truth from Realm itself to stdout:
//
//   MEM      alias, memory, kind, capacity
//   INST     every range Realm's current heap holds: instance, offset (its
//            pointer minus the memory's base, the pointer of a zero-byte
//            instance), size (its layout's bytes_used), alignment, state
//            (live, release_pending: destroy waits on its precondition,
//            release_ready: precondition fired, range still held behind
//            older pending requests)
//   WAIT     requests that hold nothing yet: why=precondition (creation
//            waits on its event), deferred (in Realm's pending allocations;
//            planned= the offset of its future heap), redistrict (a piece
//            of a redistrict whose precondition has not fired)
//   FAILED   every failed (or cancelled) request so far, in order
//   EXTERNAL live external instances: they hold nothing of the allocator
//   SUMMARY  live, used, free, largest hole, holes (of the INST ranges)
//
// between "=== TRUTH BEGIN checkpoint=k ===" and "=== TRUTH END ... ===".
// The heap, its pending queues and each instance's state are read from
// Realm's LocalManagedMemory and RegionInstanceImpl under the allocator's
// mutex; every live instance's offset and size are checked against its
// pointer and layout (a mismatch is printed as "TRUTH-ERROR").  On a
// tracked build (realm-shadow linked in) it then dumps every memory to
// -dumps DIR/cp<k>-<alias>.rsd, each dump writing its marker to the log.
//
// Three corners crash Realm itself (assertions in Realm, met by this program
// and reduced to a few lines by the oracle); the program steps around them
// and prints a NOTE when it does: a cancel/poison that would poison the
// destroy of an instance whose deferred creation has not run becomes a
// trigger; a destroy of a request deferred in the heap also waits for a
// checkpoint after it is placed; an external instance in a memory without a
// base is created without its precondition.  At the end it leaves with _exit (the
// log and the dumps are complete): Realm's teardown asserts on merged events
// that still wait.
//
// Built by scripts/legion-oracle (and legion-trial's CMake project) against
// a Legion build tree: it needs Realm's internal headers (realm/mem_impl.h),
// which only a build tree or source checkout has.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "realm.h"
#include "realm/inst_impl.h"
#include "realm/mem_impl.h"
#include "realm/runtime_impl.h"
#include "realm_program.h"

#if __has_include("realm_shadow/live/dump.h") && defined(REALM_SHADOW_ENABLED)
#include "realm_shadow/live/dump.h"
#define RANDOM_TRACKED 1
#else
#define RANDOM_TRACKED 0
#endif

using namespace Realm;
using realm_shadow_trial::IgnoreFailures;

namespace {

enum { TOP_LEVEL_TASK = Processor::TASK_ID_FIRST_AVAILABLE + 0 };

Logger log_random("random");

// ---------------------------------------------------------------- options
struct Options {
  uint64_t seed = 1;
  int ops = 40;
  std::string script;
  std::string dumps;
  int settle_ms = 60;
  int step_ms = 10;
};
Options g_opt;

// ---------------------------------------------------------------- random
// SplitMix64: the same program from the same seed on every platform.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9e3779b97f4a7c15ULL + 0x1234567) {}
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  bool chance(int percent) { return below(100) < uint64_t(percent); }
  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }
};

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// ---------------------------------------------------------------- memories
struct Mem {
  std::string alias;  // S, R, X
  Memory m;
  uintptr_t base = 0;       // pointer of the zero-byte instance
  uintptr_t direct = 0;     // the memory's own base (cross-check)
  RegionInstance zero;      // the zero-byte instance
};
std::vector<Mem> g_mems;

Mem* FindMem(const std::string& alias) {
  for (Mem& m : g_mems)
    if (m.alias == alias) return &m;
  return nullptr;
}

// ---------------------------------------------------------------- generator
// Knows only what the program asked for, never what Realm did: it keeps the
// names alive, the events not yet triggered and each request's size, and
// picks the next line at random.
struct GenInst {
  std::string mem;
  uint64_t size;
  bool external;
  bool gone;  // destroyed or redistricted (by this program)
  bool pending_destroy;
  std::string destroy_spec;  // the destroy's events, while pending
};

std::vector<std::string> Generate(uint64_t seed, int nops, size_t cap_s,
                                  size_t cap_r) {
  Rng rng(seed);
  std::vector<std::string> out;
  std::map<std::string, GenInst> insts;
  std::vector<std::string> order;  // names in creation order
  std::vector<std::string> open_events, fired_events;
  int next_inst = 1, next_event = 1;
  int since_checkpoint = 0;
  int checkpoint_every = 3 + int(rng.below(5));

  auto cap_of = [&](const std::string& mem) -> uint64_t {
    return mem == "S" ? cap_s : mem == "R" ? cap_r : 0;
  };
  auto new_event = [&]() {
    std::string e = "E" + std::to_string(next_event++);
    out.push_back("event " + e);
    open_events.push_back(e);
    return e;
  };
  auto live_names = [&](bool allow_external) {
    std::vector<std::string> v;
    for (const std::string& n : order) {
      const GenInst& g = insts[n];
      if (!g.gone && (allow_external || !g.external)) v.push_back(n);
    }
    return v;
  };
  // A precondition: none, an open event, a fired one, an instance's ready
  // event, or two merged.
  auto spec = [&](int none_percent) -> std::string {
    if (rng.chance(none_percent)) return "";
    int k = int(rng.below(100));
    if (k < 10 && !fired_events.empty()) return rng.pick(fired_events);
    if (k < 20 && !order.empty()) return "r:" + rng.pick(order);
    if (k < 30) {
      std::string a = open_events.empty() ? new_event() : rng.pick(open_events);
      std::string b = new_event();
      return a + "+" + b;
    }
    if (open_events.empty() || rng.chance(25)) return new_event();
    return rng.pick(open_events);
  };
  auto with_spec = [](std::string line, const std::string& s) {
    if (!s.empty()) line += " after=" + s;
    return line;
  };
  auto random_size = [&](const std::string& mem) -> uint64_t {
    uint64_t cap = cap_of(mem);
    int k = int(rng.below(100));
    if (k < 5) return 0;
    if (k < 10) return cap + 1 + rng.below(cap / 2 + 1);  // instant failure
    // a pending destroy's size: a request that may wait for that release
    if (k < 30) {
      std::vector<std::string> pend;
      for (const std::string& n : order)
        if (insts[n].pending_destroy && insts[n].mem == mem) pend.push_back(n);
      if (!pend.empty()) {
        uint64_t s = insts[rng.pick(pend)].size;
        if (s > 0) return s - std::min<uint64_t>(s, rng.below(64));
      }
    }
    // log-uniform in [1 KiB, cap / 2]
    double lo = 10, hi = std::log2(double(std::max<uint64_t>(cap / 2, 2048)));
    double e = lo + (hi - lo) * double(rng.below(1000000)) / 1e6;
    uint64_t s = uint64_t(std::exp2(e));
    if (rng.chance(35)) return s | 1;  // odd: alignment padding after it
    return (s + 1023) & ~uint64_t(1023);
  };
  auto random_align = [&]() -> uint64_t {
    static const uint64_t choices[] = {32, 32, 32, 16, 64, 128, 256, 4096, 65536};
    return choices[rng.below(sizeof choices / sizeof choices[0])];
  };

  for (int i = 0; i < nops; i++) {
    if (since_checkpoint >= checkpoint_every) {
      out.push_back("checkpoint");
      since_checkpoint = 0;
      checkpoint_every = 3 + int(rng.below(5));
    }
    since_checkpoint++;
    std::vector<std::string> live = live_names(true);
    std::vector<std::string> managed = live_names(false);
    int k = int(rng.below(100));
    if (k < 34 || live.empty()) {  // create
      std::string mem = rng.chance(65) ? "S" : "R";
      uint64_t size = random_size(mem);
      std::string size_text = std::to_string(size);
      // a pending destroy in the memory: a request that does not fit now and
      // may once it is released (Realm defers it), or one that fills the
      // largest hole (so that later requests must wait)
      uint64_t pend = 0;
      for (const std::string& n : order)
        if (insts[n].pending_destroy && insts[n].mem == mem && !insts[n].external)
          pend = std::max(pend, insts[n].size);
      int how = int(rng.below(100));
      if (pend > 0 && how < 30) {
        size = 1 + rng.below(pend);
        size_text = "hole+" + std::to_string(size);
      } else if (how < 40) {
        size_text = "fill";
        size = cap_of(mem) / 4;
      }
      std::string name = "i" + std::to_string(next_inst++);
      std::string line = "create " + mem + " " + name + " " + size_text +
                         " align=" + std::to_string(random_align());
      out.push_back(with_spec(line, spec(62)));
      insts[name] = GenInst{mem, size, false, false, false, ""};
      order.push_back(name);
    } else if (k < 38) {  // external
      std::string mem = rng.chance(60) ? "X" : (rng.chance(50) ? "S" : "R");
      uint64_t size = 256 + rng.below(64 * 1024);
      std::string name = "i" + std::to_string(next_inst++);
      out.push_back(with_spec("external " + mem + " " + name + " " +
                                  std::to_string(size),
                              spec(80)));
      insts[name] = GenInst{mem, size, true, false, false, ""};
      order.push_back(name);
    } else if (k < 60) {  // destroy
      std::string name = rng.pick(live);
      std::string s = spec(45);
      out.push_back(with_spec("destroy " + name, s));
      insts[name].gone = true;
      bool open = false;
      for (const std::string& e : Split(s, '+'))
        open |= std::find(open_events.begin(), open_events.end(), e) != open_events.end();
      insts[name].pending_destroy = open;
      insts[name].destroy_spec = s;
    } else if (k < 70 && !managed.empty()) {  // redistrict
      std::string name = rng.pick(managed);
      GenInst& old = insts[name];
      int pieces = 1 + int(rng.below(3));
      std::string line = "redistrict " + name;
      uint64_t left = old.size;
      for (int p = 0; p < pieces; p++) {
        uint64_t size;
        if (rng.chance(12)) {
          size = old.size / 2 + 1 + rng.below(old.size + 1);  // may not fit
        } else if (rng.chance(8)) {
          size = 0;
        } else {
          size = left ? 1 + rng.below(left / 2 + 1) : 0;
          if (rng.chance(40)) size |= 1;
        }
        left -= std::min(left, size);
        uint64_t align = rng.chance(70) ? 32 : (rng.chance(50) ? 256 : 4096);
        std::string piece = "i" + std::to_string(next_inst++);
        line += " " + piece + ":" + std::to_string(size) + ":" + std::to_string(align);
        insts[piece] = GenInst{old.mem, size, false, false, false, ""};
        order.push_back(piece);
      }
      out.push_back(with_spec(line, spec(55)));
      old.gone = true;
    } else if (k < 76) {
      new_event();
    } else if (!open_events.empty()) {  // trigger, cancel or poison
      size_t at = rng.below(open_events.size());
      std::string e = open_events[at];
      open_events.erase(open_events.begin() + at);
      fired_events.push_back(e);
      int how = int(rng.below(100));
      out.push_back((how < 72 ? "trigger " : how < 90 ? "cancel " : "poison ") + e);
      for (const std::string& n : order)
        for (const std::string& x : Split(insts[n].destroy_spec, '+'))
          if (x == e) insts[n].pending_destroy = false;
    } else {
      new_event();
    }
  }
  out.push_back("checkpoint");
  // fire what is left, in a random order, so the last picture is settled
  while (!open_events.empty()) {
    size_t at = rng.below(open_events.size());
    std::string e = open_events[at];
    open_events.erase(open_events.begin() + at);
    out.push_back((rng.chance(85) ? "trigger " : "cancel ") + e);
  }
  out.push_back("checkpoint");
  return out;
}

// ---------------------------------------------------------------- interpreter
struct Life {
  std::string name;
  std::string mem;
  RegionInstance inst;
  Event ready;             // creation's ready event (redistrict pieces: the
                           // redistrict's), NO_EVENT when unknown
  Event precondition;      // creation (or redistrict) precondition
  size_t bytes = 0, align = 0;
  bool external = false;
  uintptr_t ext_base = 0;
  bool piece = false;
  bool destroy_requested = false;
  Event destroy_on;        // the destroy's (or redistrict's) precondition
  std::set<std::string> destroy_events;  // the user events it waits on
  bool released = false;   // its id may be reused: never look at it again
  bool failed = false;     // recorded in g_failures
};

std::vector<std::unique_ptr<Life>> g_lives;
std::map<std::string, Life*> g_by_name;
std::map<std::string, UserEvent> g_events;
std::set<std::string> g_fired;
std::vector<std::string> g_failures;  // FAILED lines' bodies, in order
UserEvent g_cancelled;                 // cancelled at start: poison source
// A destroy of a request deferred in the heap also waits on a gate, opened at
// a checkpoint once the request's ready event has triggered.
struct Gate {
  UserEvent gate;
  Event watch;
};
std::vector<Gate> g_gates;
std::vector<void*> g_buffers;
int g_checkpoint = 0;

InstanceLayoutGeneric* Layout(size_t bytes, size_t align) {
  const std::vector<size_t> field_sizes(1, 1);
  InstanceLayoutConstraints constraints(field_sizes, 0 /*SOA*/);
  const int dim_order[1] = {0};
  InstanceLayoutGeneric* l = InstanceLayoutGeneric::choose_instance_layout<1, int>(
      IndexSpace<1>(Rect<1>(0, static_cast<int>(bytes) - 1)), constraints,
      dim_order);
  if (align) l->alignment_reqd = align;
  return l;
}

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llx", (unsigned long long)v);
  return buf;
}

bool Triggered(Event e, bool* poisoned) {
  bool p = false;
  bool t = !e.exists() || e.has_triggered_faultaware(p);
  if (poisoned) *poisoned = t && p;
  return t;
}

// A precondition from a SPEC; names not known are left out.  With
// `events_only` the ready events (r:) are left out too, and the user events
// kept are added to *names.
Event Spec(const std::string& spec, bool events_only = false,
           std::set<std::string>* names = nullptr) {
  std::vector<Event> evs;
  for (const std::string& part : Split(spec, '+')) {
    if (part.rfind("r:", 0) == 0) {
      if (events_only) continue;
      auto it = g_by_name.find(part.substr(2));
      if (it != g_by_name.end() && it->second->ready.exists())
        evs.push_back(it->second->ready);
    } else {
      auto it = g_events.find(part);
      if (it != g_events.end()) {
        evs.push_back(it->second);
        if (names) names->insert(part);
      }
    }
  }
  if (evs.empty()) return Event::NO_EVENT;
  if (evs.size() == 1) return evs[0];
  return Event::merge_events(evs.data(), evs.size());
}

Life* NewLife(const std::string& name, const std::string& mem) {
  g_lives.emplace_back(new Life);
  Life* l = g_lives.back().get();
  l->name = name;
  l->mem = mem;
  g_by_name[name] = l;
  return l;
}

void RecordFailure(Life* l, const char* cause) {
  if (l->failed) return;
  l->failed = true;
  Mem* m = FindMem(l->mem);
  g_failures.push_back("mem=" + Hex(m->m.id) + " inst=" + Hex(l->inst.id) +
                       " size=" + std::to_string(l->bytes) + " align=" +
                       std::to_string(l->align) + " cause=" + cause +
                       " name=" + l->name);
}

size_t InstOffset(const Life* l) {
  RegionInstanceImpl* impl = get_runtime()->get_instance_impl(l->inst);
  return impl->metadata.inst_offset;
}

// Looks at a life that is not released: records its failure.
void Classify(Life* l) {
  if (l->released || l->failed) return;
  size_t off = InstOffset(l);
  if (off == RegionInstanceImpl::INSTOFFSET_FAILED) {
    bool poisoned = false;
    Triggered(l->precondition, &poisoned);
    RecordFailure(l, poisoned ? "cancelled" : "failed");
  }
}

// A destroy or redistrict has fired (not poisoned): the life is released.
void SettleReleases() {
  for (auto& up : g_lives) {
    Life* l = up.get();
    if (l->released || !l->destroy_requested) continue;
    Classify(l);
    bool poisoned = false;
    if (Triggered(l->destroy_on, &poisoned)) {
      if (poisoned) {
        l->destroy_requested = false;  // cancelled: the instance stays
      } else {
        l->released = true;
      }
    }
  }
}

// The largest free range of a memory's current heap (Realm's own), for the
// sizes "fill" (exactly that) and "hole+N" (N more: it does not fit now).
size_t LargestHole(const Mem& m) {
  MemoryImpl* mi = get_runtime()->get_memory_impl(m.m);
  LocalManagedMemory* lm = dynamic_cast<LocalManagedMemory*>(mi);
  if (!lm) return 0;
  std::vector<std::pair<size_t, size_t>> ranges;
  {
    AutoLock<> al(lm->allocator_mutex);
    for (auto& [tag, idx] : lm->current_allocator.allocated)
      if (idx != LocalManagedMemory::RangeAllocator::SENTINEL)
        ranges.emplace_back(lm->current_allocator.ranges[idx].first,
                            lm->current_allocator.ranges[idx].last);
  }
  std::sort(ranges.begin(), ranges.end());
  size_t at = 0, largest = 0;
  for (auto& [first, last] : ranges) {
    if (first > at) largest = std::max(largest, first - at);
    at = std::max(at, last);
  }
  size_t cap = m.m.capacity();
  if (cap > at) largest = std::max(largest, cap - at);
  return largest;
}

// Whether poisoning user event `name` would poison the destroy (or
// redistrict) of an instance whose deferred creation has not run yet.
bool PoisonCrashesRealm(const std::string& name) {
  for (auto& up : g_lives) {
    Life* l = up.get();
    if (l->released || !l->destroy_requested || !l->destroy_events.count(name))
      continue;
    size_t off = InstOffset(l);
    if (off == RegionInstanceImpl::INSTOFFSET_DELAYEDDESTROY ||
        off == RegionInstanceImpl::INSTOFFSET_DELAYEDREDISTRICT ||
        off == RegionInstanceImpl::INSTOFFSET_DELAYEDALLOC)
      return true;
  }
  return false;
}

bool Usable(const Life* l) {
  return l && !l->released && !l->destroy_requested;
}

void Run(const std::string& line) {
  std::vector<std::string> w = Split(line, ' ');
  if (w.empty() || w[0][0] == '#') return;
  log_random.print() << "OP " << line;
  std::string after;
  if (w.back().rfind("after=", 0) == 0) {
    after = w.back().substr(6);
    w.pop_back();
  }
  const std::string& op = w[0];
  SettleReleases();
  if (op == "event" && w.size() == 2) {
    if (!g_events.count(w[1])) g_events[w[1]] = UserEvent::create_user_event();
  } else if ((op == "trigger" || op == "cancel" || op == "poison") && w.size() == 2) {
    auto it = g_events.find(w[1]);
    if (it == g_events.end() || g_fired.count(w[1])) return;
    g_fired.insert(w[1]);
    if (op != "trigger" && PoisonCrashesRealm(w[1])) {
      // Realm asserts (remove_pending_release: "it != pending_releases.end()")
      // when a destroy's precondition is poisoned before the deferred
      // creation of its instance has run: the release it removes was never
      // queued.  The run goes on with a trigger instead.
      log_random.print() << "OP trigger " << w[1] << " (for " << op
                         << ": it would poison the destroy of an instance "
                            "whose creation has not run; Realm asserts)";
      std::printf("NOTE %s %s made a trigger: Realm would assert\n", op.c_str(),
                  w[1].c_str());
      it->second.trigger();
      usleep(g_opt.step_ms * 1000);
      return;
    }
    if (op == "trigger") it->second.trigger();
    else if (op == "cancel") it->second.cancel();
    else it->second.trigger(g_cancelled);
    usleep(g_opt.step_ms * 1000);
  } else if ((op == "create" || op == "external") && w.size() >= 4) {
    Mem* m = FindMem(w[1]);
    if (!m || g_by_name.count(w[2])) return;
    size_t bytes = w[3] == "fill"                 ? LargestHole(*m)
                   : w[3].rfind("hole+", 0) == 0 ? LargestHole(*m) +
                                                       std::strtoull(w[3].c_str() + 5, nullptr, 10)
                                                 : std::strtoull(w[3].c_str(), nullptr, 10);
    size_t align = 32;
    if (w.size() >= 5 && w[4].rfind("align=", 0) == 0)
      align = std::strtoull(w[4].c_str() + 6, nullptr, 10);
    if (bytes > (size_t(1) << 31)) return;
    Event pre = Spec(after);
    if (op == "external" && pre.exists() && !m->direct) {
      // Realm asserts (allocate_storage_immediate: "mem_base != 0") when the
      // deferred creation of an external instance runs in a memory of
      // capacity 0 (no base): created at once instead
      std::printf("NOTE external %s: no precondition in a memory without a "
                  "base: Realm would assert\n", w[2].c_str());
      pre = Event::NO_EVENT;
    }
    std::unique_ptr<InstanceLayoutGeneric> layout(Layout(bytes, align));
    Life* l = NewLife(w[2], w[1]);
    l->bytes = layout->bytes_used;
    l->align = layout->alignment_reqd;
    l->precondition = pre;
    if (op == "create") {
      l->ready = RegionInstance::create_instance(l->inst, m->m, *layout,
                                                 IgnoreFailures(), pre);
    } else {
      void* buf = std::aligned_alloc(4096, (bytes + 4095) & ~size_t(4095));
      g_buffers.push_back(buf);
      l->external = true;
      l->ext_base = reinterpret_cast<uintptr_t>(buf);
      ExternalMemoryResource res(buf, bytes);
      l->ready = RegionInstance::create_external_instance(
          l->inst, m->m, *layout, res, IgnoreFailures(), pre);
    }
  } else if (op == "destroy" && w.size() == 2) {
    auto it = g_by_name.find(w[1]);
    if (it == g_by_name.end() || !Usable(it->second)) return;
    Life* l = it->second;
    Classify(l);
    if (l->failed) {
      // Realm destroys failed instances too (they hold nothing); a
      // precondition on it would queue a release of a range never held
      l->inst.destroy();
      l->destroy_requested = true;
      l->destroy_on = Event::NO_EVENT;
      return;
    }
    // a destroy before the creation has run waits on user events only, so
    // that poisoning it can be kept from crashing Realm (PoisonCrashesRealm)
    bool early = !Triggered(l->ready, nullptr);
    l->destroy_events.clear();
    Event pre = Spec(after, early, &l->destroy_events);
    if (early) pre = Event::merge_events(pre, l->ready);
    if (early && InstOffset(l) == RegionInstanceImpl::INSTOFFSET_UNALLOCATED &&
        !l->external) {
      // Realm asserts (metadata.cc initiate_cleanup: "state == STATE_VALID")
      // when a destroy waiting on the ready event of a request deferred in
      // its heap fires while that request is being placed (a release
      // reordering places it): the destroy also waits for a checkpoint
      // after the request is placed (or failed)
      g_gates.push_back(Gate{UserEvent::create_user_event(), l->ready});
      pre = Event::merge_events(pre, g_gates.back().gate);
      std::printf("NOTE destroy %s of a deferred request also waits for a "
                  "checkpoint after it is placed: Realm would assert\n",
                  l->name.c_str());
    }
    l->destroy_requested = true;
    l->destroy_on = pre;
    l->inst.destroy(pre);
  } else if (op == "redistrict" && w.size() >= 3) {
    auto it = g_by_name.find(w[1]);
    if (it == g_by_name.end() || !Usable(it->second) || it->second->external) return;
    Life* old = it->second;
    Classify(old);
    if (old->failed) return;
    std::vector<std::string> names;
    std::vector<std::unique_ptr<InstanceLayoutGeneric>> layouts;
    for (size_t i = 2; i < w.size(); i++) {
      std::vector<std::string> f = Split(w[i], ':');
      if (f.size() != 3 || g_by_name.count(f[0])) continue;
      names.push_back(f[0]);
      layouts.emplace_back(Layout(std::strtoull(f[1].c_str(), nullptr, 10),
                                  std::strtoull(f[2].c_str(), nullptr, 10)));
    }
    if (names.empty()) return;
    bool early = !Triggered(old->ready, nullptr);
    old->destroy_events.clear();
    Event pre = Spec(after, early, &old->destroy_events);
    if (early) pre = Event::merge_events(pre, old->ready);
    std::vector<RegionInstance> pieces(names.size());
    std::vector<const InstanceLayoutGeneric*> lp;
    std::vector<ProfilingRequestSet> prs(names.size(), IgnoreFailures());
    for (auto& l : layouts) lp.push_back(l.get());
    old->destroy_requested = true;
    old->destroy_on = pre;
    Event done = old->inst.redistrict(pieces.data(), lp.data(), lp.size(),
                                      prs.data(), pre);
    for (size_t i = 0; i < names.size(); i++) {
      Life* l = NewLife(names[i], old->mem);
      l->inst = pieces[i];
      l->piece = true;
      l->ready = done;  // the last piece's: the redistrict is done
      l->precondition = pre;
      l->bytes = layouts[i]->bytes_used;
      l->align = layouts[i]->alignment_reqd;
    }
  } else if (op == "checkpoint") {
    // handled by the caller
  }
}

// ---------------------------------------------------------------- truth
struct HeapRange { size_t first, last; };

void OpenGates() {
  std::vector<Gate> closed;
  for (Gate& g : g_gates) {
    if (Triggered(g.watch, nullptr)) g.gate.trigger();
    else closed.push_back(g);
  }
  g_gates.swap(closed);
}

// A fingerprint of everything the truth reads: each heap, its pending
// queues, and every instance's state.
uint64_t Fingerprint() {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ULL; };
  for (Mem& m : g_mems) {
    LocalManagedMemory* lm =
        dynamic_cast<LocalManagedMemory*>(get_runtime()->get_memory_impl(m.m));
    if (!lm) continue;
    AutoLock<> al(lm->allocator_mutex);
    for (auto& [tag, idx] : lm->current_allocator.allocated) {
      mix(tag.id);
      mix(idx);
    }
    for (auto& pa : lm->pending_allocs) mix(pa.inst->me.id);
    for (auto& pr : lm->pending_releases) mix(pr.inst->me.id * 2 + pr.is_ready);
  }
  for (auto& up : g_lives) {
    if (up->released) continue;
    mix(InstOffset(up.get()));
    bool poisoned = false;
    mix(Triggered(up->ready, &poisoned) * 2 + poisoned);
  }
  return h;
}

// Lets Realm's background work settle: at least -settle_ms, then until
// nothing the truth reads has changed for 5 polls 10 ms apart (at most 5 s).
void Settle() {
  usleep(g_opt.settle_ms * 1000);
  uint64_t last = Fingerprint();
  int stable = 0;
  for (int i = 0; i < 500 && stable < 5; i++) {
    usleep(10000);
    uint64_t now = Fingerprint();
    stable = now == last ? stable + 1 : 0;
    last = now;
  }
}

void Truth(int k) {
  OpenGates();
  Settle();
  SettleReleases();
  for (auto& up : g_lives) Classify(up.get());
  log_random.print() << "CHECKPOINT " << k;
  std::ostringstream out;
  out << "=== TRUTH BEGIN checkpoint=" << k << " ===\n";
  // every life of each id, oldest first (ids are reused)
  std::map<uint64_t, std::vector<Life*>> lives_of;
  for (auto& up : g_lives) lives_of[up->inst.id].push_back(up.get());
  for (Mem& m : g_mems) {
    MemoryImpl* mi = get_runtime()->get_memory_impl(m.m);
    LocalManagedMemory* lm = dynamic_cast<LocalManagedMemory*>(mi);
    const char* kind = m.m.kind() == Memory::SYSTEM_MEM ? "SYSTEM_MEM"
                       : m.m.kind() == Memory::REGDMA_MEM ? "REGDMA_MEM"
                                                          : "OTHER";
    out << "MEM checkpoint=" << k << " alias=" << m.alias << " mem=" << Hex(m.m.id)
        << " kind=" << kind << " capacity=" << m.m.capacity() << "\n";
    std::map<uint64_t, HeapRange> heap;
    struct PA { uint64_t id; size_t bytes, align; bool planned; size_t at; };
    std::vector<PA> pend_allocs;
    std::map<uint64_t, bool> pend_rel;  // id -> ready
    std::set<uint64_t> redistrict_wait;
    if (lm) {
      AutoLock<> al(lm->allocator_mutex);
      for (auto& [tag, idx] : lm->current_allocator.allocated) {
        if (idx == LocalManagedMemory::RangeAllocator::SENTINEL)
          heap[tag.id] = HeapRange{0, 0};
        else
          heap[tag.id] = HeapRange{lm->current_allocator.ranges[idx].first,
                                   lm->current_allocator.ranges[idx].last};
      }
      for (auto& pa : lm->pending_allocs) {
        size_t first = 0, size = 0;
        bool planned = lm->future_allocator.lookup(pa.inst->me, first, size);
        pend_allocs.push_back(PA{pa.inst->me.id, pa.bytes, pa.alignment, planned, first});
      }
      for (auto& pr : lm->pending_releases) {
        pend_rel[pr.inst->me.id] = pr.is_ready;
        for (RegionInstance t : pr.redistrict_tags) redistrict_wait.insert(t.id);
      }
    }
    std::set<const Life*> shown;
    std::vector<std::pair<size_t, std::string>> insts;
    size_t used = 0;
    std::vector<HeapRange> ranges;
    for (auto& [id, r] : heap) {
      auto rel = pend_rel.find(id);
      const char* state = rel == pend_rel.end() ? "live"
                          : rel->second         ? "release_ready"
                                                : "release_pending";
      size_t offset = r.first, size = r.last - r.first;
      // the life this range is: the newest of its id with that size that
      // has not failed (a recycled id's older life holds a range whose
      // release is queued)
      Life* l = nullptr;
      auto lv = lives_of.find(id);
      if (lv != lives_of.end())
        for (auto it = lv->second.rbegin(); it != lv->second.rend(); ++it)
          if (!(*it)->failed && !(*it)->external && (*it)->bytes == size &&
              (*it)->mem == m.alias) {
            l = *it;
            break;
          }
      if (id == m.zero.id) {
        // the zero-byte instance that gives the base
      } else if (!l) {
        out << "TRUTH-ERROR checkpoint=" << k << " heap range [" << r.first << ", "
            << r.last << ") of instance " << Hex(id) << " matches no request\n";
      } else {
        shown.insert(l);
        if (!l->released && l == lv->second.back()) {
          uintptr_t p = reinterpret_cast<uintptr_t>(l->inst.pointer_untyped(0, 0));
          if (p - m.base != offset && size > 0)
            out << "TRUTH-ERROR checkpoint=" << k << " inst=" << Hex(id)
                << " pointer-base=" << (p - m.base) << " heap first=" << offset << "\n";
        }
      }
      std::ostringstream s;
      s << "INST checkpoint=" << k << " mem=" << Hex(m.m.id) << " inst=" << Hex(id)
        << " offset=" << offset << " size=" << size << " end=" << offset + size
        << " align=" << (l ? l->align : 32) << " state=" << state
        << " name=" << (l ? l->name : id == m.zero.id ? "zero" : "?")
        << ((l && l->piece) ? " from=redistrict" : "") << "\n";
      insts.emplace_back(offset * 2 + (size ? 1 : 0), s.str());
      used += size;
      if (size) ranges.push_back(r);
    }
    std::sort(insts.begin(), insts.end());
    for (auto& [key, s] : insts) out << s;
    // requests that hold nothing
    std::set<uint64_t> deferred;
    for (const PA& pa : pend_allocs) {
      deferred.insert(pa.id);
      Life* l = lives_of.count(pa.id) ? lives_of[pa.id].back() : nullptr;
      out << "WAIT checkpoint=" << k << " mem=" << Hex(m.m.id) << " inst=" << Hex(pa.id)
          << " size=" << pa.bytes << " align=" << pa.align << " why=deferred planned="
          << (pa.planned ? std::to_string(pa.at) : std::string("-"))
          << " release=" << (pend_rel.count(pa.id) ? "pending" : "none")
          << " name=" << (l ? l->name : "?") << "\n";
    }
    for (auto& up : g_lives) {
      Life* l = up.get();
      if (l->released || l->failed || l->external || l->mem != m.alias) continue;
      if (shown.count(l) || deferred.count(l->inst.id)) continue;
      size_t off = InstOffset(l);
      const char* why = nullptr;
      if (off == RegionInstanceImpl::INSTOFFSET_DELAYEDALLOC ||
          off == RegionInstanceImpl::INSTOFFSET_DELAYEDDESTROY ||
          off == RegionInstanceImpl::INSTOFFSET_DELAYEDREDISTRICT)
        why = "precondition";
      else if (l->piece && redistrict_wait.count(l->inst.id))
        why = "redistrict";
      else if (l->piece && off == RegionInstanceImpl::INSTOFFSET_UNALLOCATED)
        why = "redistrict";
      if (!why) {
        out << "TRUTH-ERROR checkpoint=" << k << " inst=" << Hex(l->inst.id)
            << " name=" << l->name << " neither held, waiting nor failed (offset "
            << off << ")\n";
        continue;
      }
      out << "WAIT checkpoint=" << k << " mem=" << Hex(m.m.id) << " inst="
          << Hex(l->inst.id) << " size=" << l->bytes << " align=" << l->align
          << " why=" << why << " planned=- release="
          << (l->destroy_requested ? "pending" : "none") << " name=" << l->name << "\n";
    }
    for (const std::string& f : g_failures)
      if (f.find("mem=" + Hex(m.m.id) + " ") == 0)
        out << "FAILED checkpoint=" << k << " " << f << "\n";
    for (auto& up : g_lives) {
      Life* l = up.get();
      if (!l->external || l->released || l->failed || l->mem != m.alias) continue;
      bool waiting = !Triggered(l->ready, nullptr);
      out << "EXTERNAL checkpoint=" << k << " mem=" << Hex(m.m.id) << " inst="
          << Hex(l->inst.id) << " address=0x" << Hex(l->ext_base) << " size=" << l->bytes
          << " state=" << (waiting ? "waiting" : l->destroy_requested ? "release_pending" : "live")
          << " in_heap=" << (heap.count(l->inst.id) ? 1 : 0) << " name=" << l->name << "\n";
    }
    // holes of the held ranges
    std::sort(ranges.begin(), ranges.end(),
              [](const HeapRange& a, const HeapRange& b) { return a.first < b.first; });
    size_t cap = m.m.capacity(), at = 0, largest = 0, holes = 0;
    for (const HeapRange& r : ranges) {
      if (r.first > at) {
        out << "HOLE checkpoint=" << k << " mem=" << Hex(m.m.id) << " offset=" << at
            << " size=" << r.first - at << "\n";
        largest = std::max(largest, r.first - at);
        holes++;
      }
      at = std::max(at, r.last);
    }
    if (cap > at) {
      out << "HOLE checkpoint=" << k << " mem=" << Hex(m.m.id) << " offset=" << at
          << " size=" << cap - at << "\n";
      largest = std::max(largest, cap - at);
      holes++;
    }
    out << "SUMMARY checkpoint=" << k << " mem=" << Hex(m.m.id) << " live=" << heap.size()
        << " used=" << used << " free=" << (cap > used ? cap - used : 0)
        << " largest_hole=" << largest << " holes=" << holes << "\n";
  }
  out << "=== TRUTH END checkpoint=" << k << " ===\n";
  std::fputs(out.str().c_str(), stdout);
  std::fflush(stdout);
#if RANDOM_TRACKED
  if (!g_opt.dumps.empty()) {
    for (Mem& m : g_mems) {
      std::string path = g_opt.dumps + "/cp" + std::to_string(k) + "-" + m.alias + ".rsd";
      if (realm_shadow_dump_memory_state(m.m.id, path.c_str()) != 0)
        std::printf("DUMP-NOT-WRITTEN checkpoint=%d alias=%s\n", k, m.alias.c_str());
    }
    std::fflush(stdout);
  }
#endif
}

void top_level_task(const void*, size_t, const void*, size_t, Processor) {
  // the memories: S (the system memory with a capacity), R (registered),
  // X (the capacity-0 system memory for external instances)
  Machine::MemoryQuery q(Machine::get_machine());
  q.local_address_space();
  for (Memory m : q) {
    std::string alias;
    if (m.kind() == Memory::SYSTEM_MEM) alias = m.capacity() > 0 ? "S" : "X";
    else if (m.kind() == Memory::REGDMA_MEM) alias = "R";
    else continue;
    if (FindMem(alias)) continue;
    Mem mem;
    mem.alias = alias;
    mem.m = m;
    g_mems.push_back(mem);
  }
  std::sort(g_mems.begin(), g_mems.end(),
            [](const Mem& a, const Mem& b) { return a.m.id < b.m.id; });
  g_cancelled = UserEvent::create_user_event();
  g_cancelled.cancel();
  for (Mem& m : g_mems) {
    std::unique_ptr<InstanceLayoutGeneric> layout(Layout(0, 32));
    Event e = RegionInstance::create_instance(m.zero, m.m, *layout, IgnoreFailures());
    bool poisoned = false;
    e.wait_faultaware(poisoned);
    m.base = poisoned ? 0 : reinterpret_cast<uintptr_t>(m.zero.pointer_untyped(0, 0));
    MemoryImpl* mi = get_runtime()->get_memory_impl(m.m);
    m.direct = reinterpret_cast<uintptr_t>(mi->get_direct_ptr(0, 0));
    if (poisoned || m.base != m.direct) {
      m.base = m.direct;
      std::printf("NOTE alias=%s zero-byte instance %s; base from the memory\n",
                  m.alias.c_str(), poisoned ? "failed" : "disagrees");
    }
    std::printf("MEMORY alias=%s mem=%s capacity=%zu zero=%s\n", m.alias.c_str(),
                Hex(m.m.id).c_str(), m.m.capacity(), Hex(m.zero.id).c_str());
  }
  std::vector<std::string> program;
  if (!g_opt.script.empty()) {
    std::ifstream in(g_opt.script);
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) program.push_back(line);
  } else {
    Mem* s = FindMem("S");
    Mem* r = FindMem("R");
    program = Generate(g_opt.seed, g_opt.ops, s ? s->m.capacity() : 0,
                       r ? r->m.capacity() : 0);
  }
  std::printf("SEED %llu\n", (unsigned long long)g_opt.seed);
  for (const std::string& line : program) std::printf("PROGRAM %s\n", line.c_str());
  std::fflush(stdout);
  for (const std::string& line : program) {
    if (line == "checkpoint") Truth(++g_checkpoint);
    else Run(line);
  }
  Settle();
  OpenGates();
  Settle();
  log_random.print() << "done";
  std::printf("DONE checkpoints=%d\n", g_checkpoint);
  std::fflush(stdout);
  // Realm's teardown asserts on merged events still waiting (a merge with
  // the ready event of a request that never completes): the log (-logfile
  // writes every line at once) and the dumps are complete, so leave now
  std::fflush(stderr);
  _exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; i++) {
    std::string a = argv[i];
    if (a == "-seed") g_opt.seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "-ops") g_opt.ops = std::atoi(argv[++i]);
    else if (a == "-script") g_opt.script = argv[++i];
    else if (a == "-dumps") g_opt.dumps = argv[++i];
    else if (a == "-settle_ms") g_opt.settle_ms = std::atoi(argv[++i]);
    else if (a == "-step_ms") g_opt.step_ms = std::atoi(argv[++i]);
  }
  return realm_shadow_trial::RunTopLevelTask(argc, argv, TOP_LEVEL_TASK,
                                              top_level_task);
}
