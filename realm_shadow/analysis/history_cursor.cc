// The history cursor: a history's moments walked forward (history_cursor.h).
#include "realm_shadow/analysis/history_cursor.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "realm_shadow/analysis/internal/coverage_index.h"
#include "realm_shadow/analysis/shadow_map.h"
#include "realm_shadow/core/identity.h"

namespace realm_shadow {
namespace {

// The id of the history's identity that marks a size as `size` (null: no
// size marking) and, when `held`, a range as maybe given back already
// (kHeldAttribute): an identity whose only attributes besides "why" are
// those and, for a waiting piece, what it waits on.  0 if the history has
// none.
uint32_t MarkerId(const MemoryHistory& h, const char* size, bool held) {
  for (const Identity& identity : h.identities) {
    bool size_marked = false, held_marked = false, other = false;
    for (const auto& [key, text] : identity.attributes) {
      if (size != nullptr && key == kSizeAttribute && text == size)
        size_marked = true;
      else if (held && key == kHeldAttribute && text == kHeldMaybeGivenBack)
        held_marked = true;
      else if (key != "why" && key != kWaitsOnAttribute)
        other = true;
    }
    if (size_marked == (size != nullptr) && held_marked == held && !other)
      return identity.id;
  }
  return 0;
}

// A history rebuilt from Realm's log (clock kLogTime) holds facts the log
// never gives as the rebuild's conventions: a redistricted piece's size is
// an upper bound (kFromRedistrict), a waiting piece's size and alignment
// are unknown (a request of 0 B at alignment 0), and so is the instance it
// is carved from (the marker says so); a range whose release is ready may
// be given back already (Realm keeps it while requests wait in its
// allocator, which the log does not show).  Its picture at any moment
// marks them as the rebuilt dump does, with the markers the history's
// identities hold.
void MarkWhatTheLogCannotTell(const MemoryHistory& h, Snapshot* out) {
  if (h.clock != HistoryClock::kLogTime) return;
  const uint32_t bound = MarkerId(h, kSizeUpperBound, false);
  const uint32_t held = MarkerId(h, nullptr, true);
  const uint32_t bound_held = MarkerId(h, kSizeUpperBound, true);
  for (Allocation& a : out->allocations) {
    if (a.identity != 0) continue;
    const bool piece = (a.flags & kFromRedistrict) != 0;
    if (a.state == AllocationState::kReleaseReady)
      a.identity = piece ? bound_held : held;
    else if (piece)
      a.identity = bound;
  }
  if (const uint32_t unknown = MarkerId(h, kSizeUnknown, false))
    for (PendingRequest& p : out->pending)
      if (p.identity == 0 && p.size == 0 && p.alignment == 0 &&
          p.planned_offset == kNoOffset)
        p.identity = unknown;
}

}  // namespace

struct HistoryCursor::Impl : AllocationObserver {
  explicit Impl(const MemoryHistory& h) : history(h) {}

  void Placed(const Allocation& a) override {
    if (figures_on) coverage.Add(a.offset, a.size);
    if (user != nullptr) user->Placed(a);
  }
  void Removed(const Allocation& a) override {
    if (figures_on) coverage.Remove(a.offset, a.size);
    if (user != nullptr) user->Removed(a);
  }
  void Changed(const Allocation& before, const Allocation& after) override {
    if (user != nullptr) user->Changed(before, after);
  }
  void Failed(const Failure& f) override {
    if (user != nullptr) user->Failed(f);
  }

  const MemoryHistory& history;
  std::optional<ShadowMap> map;
  CoverageIndex coverage;
  bool figures_on = false;
  AllocationObserver* user = nullptr;
  Event last{EventType::kNoop};
};

HistoryCursor::HistoryCursor(const MemoryHistory& history)
    : impl_(new Impl(history)) {}
HistoryCursor::~HistoryCursor() = default;

void HistoryCursor::set_figures(bool on) { impl_->figures_on = on; }
void HistoryCursor::set_observer(AllocationObserver* observer) {
  impl_->user = observer;
}

absl::Status HistoryCursor::Start(uint64_t sequence) {
  Impl& r = *impl_;
  const MemoryHistory& h = r.history;
  if (!h.Contains(sequence))
    return absl::OutOfRangeError("moment " + std::to_string(sequence) +
                                 " is outside " + DescribeWindow(h));
  // The last checkpoint at or before the moment, then the events from it.
  auto it = std::upper_bound(
      h.checkpoints.begin(), h.checkpoints.end(), sequence,
      [](uint64_t s, const HistoryCheckpoint& c) { return s < c.state.sequence; });
  const HistoryCheckpoint& checkpoint = *(it - 1);
  r.map.emplace(ShadowMap::FromCheckpoint(checkpoint));
  for (uint64_t s = checkpoint.state.sequence; s < sequence; ++s)
    r.map->Apply(h.EventAt(s));
  // What is live at the moment, told as placements, then every change.
  const Snapshot& base = h.checkpoints[0].state;
  r.coverage.Reset(base.capacity, base.capacity_known, base.addressed);
  if (r.figures_on || r.user != nullptr) {
    Snapshot now;
    r.map->CopyTo(&now);
    for (const Allocation& a : now.allocations) r.Placed(a);
  }
  r.map->set_observer(&r);
  return absl::OkStatus();
}

bool HistoryCursor::Step() {
  Impl& r = *impl_;
  const uint64_t s = r.map->sequence();
  if (s >= r.history.end_sequence()) return false;
  r.last = r.history.EventAt(s);
  r.map->Apply(r.last);
  return true;
}

uint64_t HistoryCursor::sequence() const { return impl_->map->sequence(); }
const Event& HistoryCursor::last_event() const { return impl_->last; }
MemoryFigures HistoryCursor::figures() const {
  return impl_->coverage.Figures(impl_->map->live_count());
}
size_t HistoryCursor::live_count() const { return impl_->map->live_count(); }

void HistoryCursor::CopyTo(Snapshot* out) const {
  const MemoryHistory& h = impl_->history;
  const Snapshot& base = h.checkpoints[0].state;
  impl_->map->CopyTo(out);
  out->memory_id = h.memory_id;
  out->node = h.node;
  out->kind = base.kind;
  out->name = base.name;
  out->exact = base.exact;
  out->counters.journal_overflows = base.counters.journal_overflows;
  if (!out->exact) MarkNotExact(out);
  MarkWhatTheLogCannotTell(h, out);
  // The identities the picture refers to, from the history's table.
  std::vector<uint32_t> ids;
  for (const Allocation& a : out->allocations)
    if (a.identity) ids.push_back(a.identity);
  for (const PendingRequest& p : out->pending)
    if (p.identity) ids.push_back(p.identity);
  for (const Failure& f : out->failures)
    if (f.identity) ids.push_back(f.identity);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  out->identities.clear();
  for (uint32_t id : ids) {
    auto it = std::lower_bound(
        h.identities.begin(), h.identities.end(), id,
        [](const Identity& i, uint32_t v) { return i.id < v; });
    if (it != h.identities.end() && it->id == id) out->identities.push_back(*it);
  }
}

absl::StatusOr<Snapshot> StateAt(const MemoryHistory& history, uint64_t sequence) {
  HistoryCursor replay(history);
  if (absl::Status started = replay.Start(sequence); !started.ok()) return started;
  Snapshot out;
  replay.CopyTo(&out);
  return out;
}

}  // namespace realm_shadow
