#include "realm_shadow/ingest/node_rebuild.h"

#include <algorithm>

namespace realm_shadow {
namespace realm_log {

RebuildCounts& RebuildCounts::operator+=(const RebuildCounts& o) {
  for (auto [mine, theirs] :
       {std::pair{&lines, &o.lines}, {&instance_lines, &o.instance_lines},
        {&memory_lines, &o.memory_lines},
        {&continuation_lines, &o.continuation_lines},
        {&other_logger_lines, &o.other_logger_lines},
        {&unknown_lines, &o.unknown_lines}, {&reorderings, &o.reorderings},
        {&redistricts, &o.redistricts}, {&bounded_pieces, &o.bounded_pieces},
        {&tightened_bounds, &o.tightened_bounds},
        {&checkpoints, &o.checkpoints}, {&layout_lines, &o.layout_lines},
        {&placement_lines, &o.placement_lines},
        {&created_without_layout, &o.created_without_layout},
        {&fatal_without_request, &o.fatal_without_request},
        {&cancelled_releases, &o.cancelled_releases},
        {&cancelled_requests, &o.cancelled_requests},
        {&maybe_cancelled_failures, &o.maybe_cancelled_failures},
        {&poison_lines, &o.poison_lines},
        {&skipped_creations, &o.skipped_creations},
        {&skipped_destroys, &o.skipped_destroys},
        {&skipped_redistricts, &o.skipped_redistricts},
        {&external_instances, &o.external_instances},
        {&remote_proxies, &o.remote_proxies},
        {&foreign_instance_lines, &o.foreign_instance_lines},
        {&spy_lines, &o.spy_lines}, {&spy_unknown_lines, &o.spy_unknown_lines},
        {&spy_malformed_lines, &o.spy_malformed_lines},
        {&spy_instances, &o.spy_instances}, {&spy_bound, &o.spy_bound},
        {&spy_remote_instances, &o.spy_remote_instances},
        {&legate_lines, &o.legate_lines},
        {&legate_instances, &o.legate_instances},
        {&legate_bound, &o.legate_bound}})
    *mine += *theirs;
  return *this;
}

NodeRebuild::NodeRebuild(uint32_t node, const RebuildOptions* options)
    : options_(options) {
  state_.node = node;
}

namespace {

// A memory's kind and capacity as the machine dump or Legion Spy lists them.
// A dynamic framebuffer (GPU_DYNAMIC_MEM) places each instance at the device
// address cuMemAlloc returned (0x7f... on a 64-bit Linux, far past its cap
// of -cuda:dynfb_max bytes), so its map is addressed, as the tracker
// registers it (realm_sites.h): no beyond_capacity anomaly per instance, no
// holes, free = cap - used.  The listing comes before any instance line
// (Realm prints the machine at start-up); should it come later, the map is
// rebuilt addressed from its own checkpoint, keeping what it holds.
void SetListedKind(MemoryState& m, const std::string& kind_name,
                   uint64_t capacity) {
  m.kind_name = kind_name;
  m.kind = ParseMemoryKind(kind_name);
  m.capacity = capacity;
  m.capacity_known = true;
  if (m.kind != MemoryKind::kDynamicFramebuffer) {
    m.map.set_capacity(capacity, true);
    return;
  }
  HistoryCheckpoint now;
  m.map.SaveCheckpoint(&now);
  now.state.capacity = capacity;
  now.state.capacity_known = true;
  now.state.addressed = true;
  m.map = ShadowMap::FromCheckpoint(now);
}

}  // namespace

MemoryState& NodeRebuild::Memory(uint64_t id) {
  auto it = state_.memories.find(id);
  if (it == state_.memories.end()) {
    it = state_.memories.emplace(id, MemoryState{}).first;
    it->second.id = id;
    it->second.node = MemoryOwnerNode(id);
  }
  return it->second;
}

void NodeRebuild::Apply(MemoryState& m, const Event& e) {
  // A new life of an id whose old range is shown held enters the map,
  // which keeps one entry per id: that range is shown given back first.
  if (!m.held_reused.empty() &&
      (e.type == EventType::kAllocated || e.type == EventType::kDeferred) &&
      m.held_reused.count(e.instance))
    GiveBackReused(m, e.instance);
  m.has_instances = true;
  const uint64_t time_us = time_ ? LineTimeMicros(*time_) : 0;
  if (time_ != nullptr && static_cast<int64_t>(time_us * 1000) >= last_time_ns_)
    last_time_ns_ = static_cast<int64_t>(time_us * 1000);
  MemoryHistory& h = m.history;
  if (h.checkpoints.empty()) {
    h.checkpoints.emplace_back();
    m.map.SaveCheckpoint(&h.checkpoints.back());
  }
  // One mark per line that made events (a line makes one or a few).
  if (h.lines.empty() || h.lines.back() != line_) {
    h.marks.push_back(HistoryMark{h.end_sequence(), last_time_ns_});
    h.lines.push_back(line_);
  }
  h.events.push_back(HistoryRecordOf(e));
  m.map.Apply(e);
  if (options_ != nullptr && options_->observer)
    options_->observer(AppliedEvent{state_.node, m.id, e, time_us, line_});
}

// Instances of other nodes never enter this node's maps.
bool NodeRebuild::Ours(uint64_t instance) {
  if (InstanceOwnerNode(instance) == state_.node) return true;
  ++state_.counts.foreign_instance_lines;
  return false;
}

// Before [offset, offset + size) is placed: releases whose destroy was
// requested and that it overlaps must have happened already; bounded
// pieces it overlaps end before it.
void NodeRebuild::MakeRoom(MemoryState& m, uint64_t instance, uint64_t offset,
                          uint64_t size) {
  if (size == 0) return;
  auto& instances = state_.instances;
  const uint64_t end = offset + size < offset ? UINT64_MAX : offset + size;
  std::vector<std::pair<uint64_t, uint64_t>> overlapping;
  auto it = m.live.lower_bound({offset, 0});
  if (it != m.live.begin()) {
    auto before = std::prev(it);
    // Walk back over ranges that may reach into ours; live ranges rarely
    // overlap, so this is one step in practice.
    for (int steps = 0; steps < 4; ++steps) {
      if (before->first + LiveSize(m, before->first, before->second) > offset)
        overlapping.push_back(*before);
      if (before == m.live.begin()) break;
      --before;
    }
  }
  for (; it != m.live.end() && it->first < end; ++it) overlapping.push_back(*it);
  for (const auto& [other_offset, other] : overlapping) {
    if (other == instance) continue;
    if (auto held = m.held_reused.find(other);
        held != m.held_reused.end() && held->second.offset == other_offset) {
      // An older life's range shown held: given back already.
      const bool oldest = !m.releases.empty() &&
                          m.releases.front().life == held->second.life;
      if (held->second.size == 0) continue;
      GiveBackReused(m, other);
      if (oldest) CatchUp(m);
      continue;
    }
    auto found = instances.find(other);
    if (found == instances.end()) continue;
    InstanceLife& life = found->second;
    if (life.size == 0 || life.phase != Phase::kLive) continue;
    // A bounded piece that begins before it, or where it does, ends where
    // it begins (at the same offset: a zero-byte piece), its release
    // requested or not: narrowing keeps what the log says; taking the
    // release as early would lose a piece Realm still holds.
    // A piece whose release fired (shown held) that an allocation lands on
    // at its start is given back: narrowing it to zero bytes would say
    // the piece was empty all along.
    if (life.bounded && other_offset <= offset &&
        !(life.maybe_held && other_offset == offset)) {
      const uint64_t tighter = offset - other_offset;
      if (tighter < life.size) {
        Apply(m, Event{EventType::kRedistrict, other, 0, 0, 1});
        Apply(m, Event{EventType::kRedistrictPiece, other, other_offset,
                       tighter, 1});
        if (life.release_requested) ApplyRequestedRelease(m, other, life);
        life.size = tighter;
        ++state_.counts.tightened_bounds;
      }
    } else if (life.release_requested) {
      // Given back already: a range shown held since its release fired
      // (maybe_held), or a release whose line comes later (a reordering).
      // The oldest release going lets Realm give back the ready ones
      // behind it (CatchUp).
      const bool line_read = life.maybe_held;
      const bool oldest = !m.releases.empty() &&
                          m.releases.front().life == life.announce_order;
      GiveBack(m, other, life);
      if (!line_read) {
        state_.released_early.insert(other);
        ++m.reorderings;
        ++state_.counts.reorderings;
      }
      if (oldest) CatchUp(m);
    }
  }
}

// Whether Realm's allocator may hold requests in its queue in this memory
// (its pending_allocs, which the log never shows) once the release of
// `firing` fires: a deferred request not known to wait on its precondition
// only, or one known to that no longer fits the heap (its precondition may
// fire now, and the allocator queue it).  None while no other release is
// pending: Realm queues a request only while a release it may wait for is
// pending (attempt_deferrable_allocation), and serves the queue's head once
// every release requested before it has fired (the oldest one's catch-up)
// - unless a release was cancelled meanwhile, which skips that catch-up
// (remove_pending_release).  A request waiting on its own precondition
// has its destroy held apart (INSTOFFSET_DELAYEDDESTROY), no such release.
// Cost: one pass over the memory's queued releases, and one FitsNow per
// request waiting on its precondition.
bool NodeRebuild::MayHoldQueuedRequests(const MemoryState& m,
                                        uint64_t firing) const {
  if (!m.release_cancelled_while_queued) {
    bool pending = false;
    for (const auto& r : m.releases)
      pending = pending || (!r.fired && r.instance != firing &&
                            !m.on_precondition.count(r.instance));
    if (!pending) return false;
  }
  if (!m.maybe_queued.empty()) return true;
  for (uint64_t id : m.on_precondition) {
    auto it = state_.instances.find(id);
    if (it != state_.instances.end() &&
        !FitsNow(m, it->second.size, it->second.alignment))
      return true;
  }
  return false;
}

// "deallocation completed" of a live range whose release was requested:
// its precondition fired (Realm logs the line then, whether or not it
// gives the range back, mem_impl.cc release_storage_immediate).  Realm
// gives it back at once when it is the oldest release it queues and fired
// after its destroy (and the ready ones behind it with it), or when no
// request waits in its allocator; otherwise it keeps the range, release
// ready, until those requests or older releases go, unless a reordering of
// the ready releases serves the queue at once.  Whether requests wait
// there is not in the log: then the range stays shown held, release ready,
// marked as maybe given back already (the dump's kHeldAttribute), until
// the log shows it free (an allocation lands on it, or the older
// releases go).
void NodeRebuild::FireRelease(MemoryState& m, uint64_t instance,
                              InstanceLife& life) {
  auto it = std::find_if(m.releases.begin(), m.releases.end(),
                         [&](const auto& r) {
                           return r.life == life.announce_order;
                         });
  const bool with_destroy =
      life.release_wait_on == 0 || announce_run_ == life.destroy_run;
  UnmarkRelease(m, instance, life);  // it fired: it was not skipped
  if (it == m.releases.end() || !MayHoldQueuedRequests(m, instance)) {
    GiveBack(m, instance, life);
    return;
  }
  if (it == m.releases.begin() && !with_destroy) {
    GiveBack(m, instance, life);
    CatchUp(m);
    return;
  }
  it->fired = true;
  life.maybe_held = true;
  if (life.release_wait_on != 0)
    Apply(m, Event{EventType::kReleaseRequested, instance, 0, 0,
                   ReleaseAux(ReleaseState::kReady)});
}

// The live range of `instance` goes back to the allocator.
void NodeRebuild::GiveBack(MemoryState& m, uint64_t instance,
                           InstanceLife& life) {
  m.live.erase({life.offset, instance});
  Apply(m, Event{EventType::kReleased, instance});
  life.phase = Phase::kGone;
  life.maybe_held = false;
  ForgetQueuedRelease(m, instance, life.announce_order);
}

// The range an older life of `instance` held, shown held since its
// release fired (MemoryState::held_reused), goes back.
void NodeRebuild::GiveBackReused(MemoryState& m, uint64_t instance) {
  auto it = m.held_reused.find(instance);
  if (it == m.held_reused.end()) return;
  const MemoryState::HeldRange held = it->second;
  m.held_reused.erase(it);
  m.live.erase({held.offset, instance});
  Apply(m, Event{EventType::kReleased, instance});
  ForgetQueuedRelease(m, instance, held.life);
}

// The size of the live range at `offset` of `instance`: its life's, or an
// older life's whose range is shown held (0 when neither is known).
uint64_t NodeRebuild::LiveSize(const MemoryState& m, uint64_t offset,
                               uint64_t instance) const {
  if (auto held = m.held_reused.find(instance);
      held != m.held_reused.end() && held->second.offset == offset)
    return held->second.size;
  auto it = state_.instances.find(instance);
  return it == state_.instances.end() ? 0 : it->second.size;
}

// The oldest release went: Realm gives back the ready ones behind it, in
// order, up to the first whose precondition has not fired (mem_impl.cc
// release_storage_immediate's catch-up); a range it held is free now.
void NodeRebuild::CatchUp(MemoryState& m) {
  while (!m.releases.empty() && m.releases.front().fired) {
    const MemoryState::QueuedRelease front = m.releases.front();
    auto held = m.held_reused.find(front.instance);
    auto it = state_.instances.find(front.instance);
    if (held != m.held_reused.end() && held->second.life == front.life)
      GiveBackReused(m, front.instance);
    else if (it != state_.instances.end() && it->second.maybe_held &&
             it->second.announce_order == front.life)
      GiveBack(m, front.instance, it->second);
    else
      m.releases.pop_front();
  }
}

void NodeRebuild::ForgetQueuedRelease(MemoryState& m, uint64_t instance,
                                      uint64_t life) {
  auto it = std::find_if(m.releases.begin(), m.releases.end(),
                         [&](const auto& r) {
                           return r.instance == instance && r.life == life;
                         });
  if (it != m.releases.end()) m.releases.erase(it);
}

// A release on an event the log never names fired or was cancelled: its
// range loses the mark (kReleaseMaybeSkippedMark).
void NodeRebuild::UnmarkRelease(MemoryState& m, uint64_t instance,
                                InstanceLife& life) {
  if (!life.release_on_unnamed_event) return;
  life.release_on_unnamed_event = false;
  if (life.phase == Phase::kLive)
    Apply(m, Event{EventType::kAttachIdentity, instance, 0, 0, 0});
}

// A deferred request leaves the requests that may wait in the allocator
// (placed, failed, cancelled, or its id reused).
void NodeRebuild::Dequeue(MemoryState& m, uint64_t instance) {
  m.maybe_queued.erase(instance);
  m.on_precondition.erase(instance);
}

// The release of `instance`, requested before its range was in the map (or
// before the map redrew it): pending, or ready when the destroy waited on
// nothing or its precondition fired (a range shown held).
void NodeRebuild::ApplyRequestedRelease(MemoryState& m, uint64_t instance,
                                        const InstanceLife& life) {
  Apply(m, Event{EventType::kReleaseRequested, instance, 0, 0,
                 ReleaseAux(life.release_wait_on == 0 || life.maybe_held
                                ? ReleaseState::kReady
                                : ReleaseState::kPending)});
}

// The instances announced with no layout and no outcome since the last
// call: pieces of a redistrict waiting on its precondition (a create logs
// its layout on the line after its announce; a redistrict's pieces get
// nothing until the precondition fires).  Each enters the map as a waiting
// request of unknown size and alignment (kDeferred, size 0, alignment 0),
// so the history holds it from here on.  Called at a checkpoint line and
// when the input is settled: the moments a cut is taken, so that the whole
// log's history and the log cut there give the same state.
void NodeRebuild::ShowWaitingPieces() {
  for (uint64_t inst : announced_) {
    auto it = state_.instances.find(inst);
    if (it == state_.instances.end()) continue;
    InstanceLife& life = it->second;
    if (life.phase != Phase::kAnnounced || life.have_layout ||
        life.shown_waiting)
      continue;
    Apply(Memory(life.memory), Event{EventType::kDeferred, inst, kNoOffset, 0, 0});
    life.shown_waiting = true;
  }
  announced_.clear();
}

// A piece shown waiting leaves the queue (its outcome follows, or it was a
// create whose layout came after a checkpoint).
void NodeRebuild::Withdraw(MemoryState& m, uint64_t instance,
                           InstanceLife& life) {
  if (!life.shown_waiting) return;
  Apply(m, Event{EventType::kRequestCancelled, instance});
  life.shown_waiting = false;
}

// A request Realm cancelled (its precondition was poisoned): no failure,
// the allocator was never asked.  The instance is still destroyed later.
void NodeRebuild::CancelRequest(MemoryState& m, uint64_t instance,
                                InstanceLife& life) {
  Apply(m, Event{EventType::kRequestCancelled, instance});
  life.shown_waiting = false;
  Dequeue(m, instance);
  ++state_.counts.cancelled_requests;
  Failed(life);
}

// A request failed or was cancelled: Realm poisons its ready event
// (inst_impl.cc notify_allocation), so destroys waiting on it are skipped.
void NodeRebuild::Failed(InstanceLife& life) {
  life.phase = Phase::kFailed;
  if (life.ready_event != 0) PoisonEvent(life.ready_event);
}

// Whether `size` bytes at `alignment` fit a hole of the memory's current
// heap, as the map holds it.  False when that cannot be told: capacity
// unknown, a bounded piece (the holes beside it are lower bounds), or
// instances of unknown placement.
bool NodeRebuild::FitsNow(const MemoryState& m, uint64_t size,
                          uint64_t alignment) const {
  if (!m.capacity_known || state_.counts.created_without_layout > 0)
    return false;
  if (size == 0) return true;
  const uint64_t align = alignment == 0 ? 1 : alignment;
  auto fits = [&](uint64_t begin, uint64_t end) {
    if (begin > UINT64_MAX - (align - 1)) return false;
    const uint64_t start = (begin + align - 1) / align * align;
    return start <= end && end - start >= size;
  };
  uint64_t covered = 0;  // end of the ranges walked so far
  for (const auto& [offset, id] : m.live) {
    auto it = state_.instances.find(id);
    if (it == state_.instances.end()) continue;
    if (it->second.bounded && !m.held_reused.count(id)) return false;
    const uint64_t size = LiveSize(m, offset, id);
    if (size == 0) continue;
    if (offset > covered && fits(covered, offset)) return true;
    covered = std::max(covered, offset + size);
  }
  return covered < m.capacity && fits(covered, m.capacity);
}

void NodeRebuild::FlushGroup(RedistrictGroup& group) {
  MemoryState& m = Memory(group.memory);
  auto& instances = state_.instances;
  std::vector<RedistrictGroup::Piece> placed;
  for (const auto& piece : group.pieces)
    if (piece.placed) placed.push_back(piece);
  std::sort(placed.begin(), placed.end(),
            [](const auto& a, const auto& b) { return a.offset < b.offset; });
  const bool last_piece_failed =
      !group.pieces.empty() && group.pieces.back().failed;
  // Pieces shown waiting leave the queue before the group (a group's
  // records follow its header with nothing between).
  for (const auto& piece : group.pieces) {
    if (!piece.placed && !piece.failed) continue;
    auto it = instances.find(piece.instance);
    if (it != instances.end()) Withdraw(m, piece.instance, it->second);
  }
  auto old_it = instances.find(group.old_instance);
  if (old_it != instances.end()) {
    m.live.erase({old_it->second.offset, group.old_instance});
    old_it->second.phase = Phase::kGone;
  }
  // A group's records follow its header with nothing between: a piece's
  // id whose older range is shown held makes way before it.
  for (const auto& piece : placed) GiveBackReused(m, piece.instance);
  Apply(m, Event{EventType::kRedistrict, group.old_instance, 0, 0,
                 static_cast<uint32_t>(placed.size())});
  for (size_t i = 0; i < placed.size(); ++i) {
    // The next piece that begins after this one: pieces at one offset (a
    // zero-byte piece beside another) bound nothing of each other.
    size_t next = i + 1;
    while (next < placed.size() && placed[next].offset == placed[i].offset)
      ++next;
    const uint64_t limit =
        next < placed.size() ? placed[next].offset : group.old_end;
    const uint64_t bound =
        limit > placed[i].offset ? limit - placed[i].offset : 0;
    Apply(m, Event{EventType::kRedistrictPiece, placed[i].instance,
                   placed[i].offset, bound, 1});
    InstanceLife& life = instances[placed[i].instance];
    life.memory = group.memory;
    life.phase = Phase::kLive;
    life.offset = placed[i].offset;
    life.size = bound;
    life.alignment = 1;
    life.bounded = true;
    m.live.emplace(placed[i].offset, placed[i].instance);
    ++state_.counts.bounded_pieces;
    // Destroyed while it waited (Realm queued that release behind the
    // redistrict): its release is requested now that it holds a range,
    // unless the destroy's precondition was poisoned since.  Realm
    // requires a destroy of an instance not yet ready to wait on its ready
    // event, which for a redistrict's pieces is the last piece's: poisoned
    // when that piece failed (inst_impl.cc RegionInstanceImpl::redistrict),
    // and the destroy with it (mem_impl.cc: a poisoned release is dropped).
    if (life.release_requested && life.release_wait_on != 0 &&
        (poisoned_.count(life.release_wait_on) || last_piece_failed)) {
      life.release_requested = false;
      life.release_wait_on = 0;
      ForgetQueuedRelease(m, placed[i].instance, life.announce_order);
      ++state_.counts.cancelled_releases;
    }
    if (life.release_requested) ApplyRequestedRelease(m, placed[i].instance, life);
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
  ++state_.counts.redistricts;
}

void NodeRebuild::Settle() {
  for (auto& group : state_.open_groups) FlushGroup(group);
  state_.open_groups.clear();
  ShowWaitingPieces();
  // Placements past the memory's end whose "instance created" line never
  // came: what the log says, an allocation (the map notes the range).
  std::vector<std::pair<uint64_t, uint64_t>> beyond;
  for (const auto& [id, life] : state_.instances)
    if (life.phase == Phase::kBeyondEnd) beyond.emplace_back(life.announce_order, id);
  std::sort(beyond.begin(), beyond.end());
  for (const auto& [order, id] : beyond) {
    InstanceLife& life = state_.instances[id];
    MemoryState& m = Memory(life.memory);
    Apply(m, Event{EventType::kAllocated, id, life.offset, life.size,
                   NarrowAlignment(life.alignment)});
    life.phase = Phase::kLive;
    m.live.emplace(life.offset, id);
  }
  // Failures whose size the log never gave (no debug lines, and no
  // "instance created" after them).
  for (auto& [id, life] : state_.instances)
    if (life.phase == Phase::kFailedUnsized) ApplyUnsizedFailure(id, life, 0);
}

// A failure logged before its size (no debug lines), applied once the size
// comes (0: never).
void NodeRebuild::ApplyUnsizedFailure(uint64_t inst, InstanceLife& life,
                                      uint64_t bytes) {
  const uint64_t maybe_cancelled =
      life.failure_maybe_cancelled ? kFailureMaybeCancelled : 0;
  Apply(Memory(life.memory), Event{EventType::kAllocationFailed, inst,
                                   maybe_cancelled, bytes, bytes == 0 ? 0u : 1u});
  if (maybe_cancelled != 0) ++state_.counts.maybe_cancelled_failures;
  life.phase = Phase::kFailed;
}

// A piece's outcome line: true when it belonged to an open group.
bool NodeRebuild::ResolvePiece(uint64_t instance, bool failed, uint64_t offset) {
  auto& groups = state_.open_groups;
  for (size_t g = 0; g < groups.size(); ++g) {
    RedistrictGroup& group = groups[g];
    for (auto& piece : group.pieces) {
      if (piece.instance != instance || piece.placed || piece.failed) continue;
      piece.failed = failed;
      piece.placed = !failed;
      piece.offset = offset;
      bool all = true;
      for (const auto& p : group.pieces) all = all && (p.placed || p.failed);
      if (all) {
        FlushGroup(group);
        groups.erase(groups.begin() + static_cast<long>(g));
      }
      return true;
    }
  }
  // A group waiting to learn its run adopts this instance's.
  auto life = state_.instances.find(instance);
  if (life == state_.instances.end() || life->second.phase != Phase::kAnnounced ||
      life->second.have_layout)
    return false;
  for (RedistrictGroup& group : groups) {
    if (!group.run_unknown || group.memory != life->second.memory) continue;
    std::vector<std::pair<uint64_t, uint64_t>> run;
    for (const auto& [id, other] : state_.instances)
      if (other.phase == Phase::kAnnounced && !other.have_layout &&
          other.memory == group.memory &&
          other.announce_run == life->second.announce_run)
        run.emplace_back(other.announce_order, id);
    std::sort(run.begin(), run.end());
    for (const auto& [order, id] : run) {
      RedistrictGroup::Piece piece;
      piece.instance = id;
      group.pieces.push_back(piece);
    }
    group.run_unknown = false;
    return ResolvePiece(instance, failed, offset);
  }
  return false;
}

// Realm's fatal line when nobody asked for the allocation result names the
// memory, not the instance: the newest request of that memory with a size
// and no outcome fails at once; failing that, the newest deferred one fails
// eventually.  Neither: the line is only counted.
void NodeRebuild::FailLatestRequest(uint64_t memory) {
  uint64_t instant = 0, deferred = 0;
  uint64_t instant_order = 0, deferred_order = 0;
  for (const auto& [id, life] : state_.instances) {
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
    InstanceLife& life = state_.instances[instant];
    Apply(m, Event{EventType::kAllocationFailed, instant, 0, life.size,
                   NarrowAlignment(life.alignment)});
    Failed(life);
  } else if (deferred_order != 0) {
    Apply(m, Event{EventType::kDeferredFailed, deferred, 0, 0, 0});
    Failed(state_.instances[deferred]);
    Dequeue(m, deferred);
  } else {
    ++state_.counts.fatal_without_request;
  }
}

// -level event=2: `event` is poisoned, and with it every event merged from
// it (Realm poisons a merge as soon as one input is); a destroy waiting on
// any of them will not happen (Realm keeps the range: a release_requested
// event with aux 2).
// "event merging: event=M wait_on=E": M waits on E (among others); a
// poisoned E poisons M.
void NodeRebuild::OnEventMerged(uint64_t merged, uint64_t input) {
  merged_into_[input].push_back(merged);
  if (poisoned_.count(input)) OnUserEventCancelled(merged);
}

void NodeRebuild::OnUserEventCancelled(uint64_t event) {
  ++state_.counts.instance_lines;
  PoisonEvent(event);
}

void NodeRebuild::PoisonEvent(uint64_t event) {
  std::vector<uint64_t> todo{event};
  absl::flat_hash_set<uint64_t> now;
  while (!todo.empty()) {
    const uint64_t e = todo.back();
    todo.pop_back();
    if (!poisoned_.insert(e).second) continue;
    now.insert(e);
    if (auto it = merged_into_.find(e); it != merged_into_.end())
      todo.insert(todo.end(), it->second.begin(), it->second.end());
  }
  std::vector<std::pair<uint64_t, uint64_t>> cancelled;  // (order, id)
  for (const auto& [id, life] : state_.instances)
    if (life.release_requested &&
        (life.phase == Phase::kLive || life.phase == Phase::kDeferred) &&
        now.count(life.release_wait_on))
      cancelled.emplace_back(life.announce_order, id);
  std::sort(cancelled.begin(), cancelled.end());
  for (const auto& [order, id] : cancelled)
    CancelRelease(id, state_.instances[id]);
}

// A live instance's requested release will not happen (its precondition
// was poisoned): Realm keeps the range for good ("POSSIBLE LEAK").
// A waiting request keeps no release in the map (snapshot.h): its
// placement, later, comes with none.
void NodeRebuild::CancelRelease(uint64_t instance, InstanceLife& life) {
  MemoryState& m = Memory(life.memory);
  UnmarkRelease(m, instance, life);
  // Realm drops it from its list without the catch-up: requests it queued
  // may wait on with no release pending.
  if (MayHoldQueuedRequests(m, 0)) m.release_cancelled_while_queued = true;
  if (life.phase == Phase::kLive)
    Apply(m, Event{EventType::kReleaseRequested, instance, 0, 0,
                   ReleaseAux(ReleaseState::kCancelled)});
  ForgetQueuedRelease(m, instance, life.announce_order);
  life.release_requested = false;
  life.release_wait_on = 0;
  ++state_.counts.cancelled_releases;
}

// -level poison=2: the poison logger's instance lines (line_grammar.h).  A
// skipped creation or redistrict makes the thread's next "allocation
// failed" lines certain cancellations (Feed); a skipped destroy or
// redistrict of an instance whose address is known cancels its release.
// A skipped destroy of an address never tied to an id is only counted: its
// precondition's poisoning, which the event lines give, cancels it.
void NodeRebuild::OnPoisonLine(const LogLine& line) {
  const uint64_t address = line.ids[0];
  switch (line.kind) {
    case LineKind::kCreationSkipped:
    case LineKind::kRedistrictSkipped: {
      const bool redistrict = line.kind == LineKind::kRedistrictSkipped;
      ++(redistrict ? state_.counts.skipped_redistricts
                    : state_.counts.skipped_creations);
      cancelling_threads_[std::string(line.thread)].push_back(
          SkippedOnThread{redistrict, address});
      if (!redistrict) return;
      break;
    }
    case LineKind::kDestructionSkipped:
      ++state_.counts.skipped_destroys;
      break;
    default:
      return;
  }
  auto known = instance_at_address_.find(address);
  if (known == instance_at_address_.end()) return;
  auto life = state_.instances.find(known->second);
  if (life != state_.instances.end() && life->second.phase == Phase::kLive &&
      life->second.release_requested)
    CancelRelease(known->second, life->second);
}

// Lines that name no instance of this node are counted (a fatal line fails
// its memory's newest request); the rest go to the instance's handler, by
// the step of its life they log.
void NodeRebuild::OnInstanceLine(const LogLine& line) {
  RebuildCounts& counts = state_.counts;
  switch (line.kind) {
    case LineKind::kMalformed:
    case LineKind::kInstOther:
      ++counts.unknown_lines;
      return;
    case LineKind::kRemoteProxy:
      // Another node's instance this node learned of: never an allocation.
      ++counts.instance_lines;
      ++counts.remote_proxies;
      return;
    case LineKind::kReleasing:
      ++counts.instance_lines;
      return;
    case LineKind::kOutOfMemory:
      ++counts.instance_lines;
      FailLatestRequest(line.memory);
      return;
    default:
      break;
  }
  ++counts.instance_lines;
  if (!Ours(line.instance)) return;
  switch (line.kind) {
    case LineKind::kCreateLocal:
      OnAnnounced(line.instance);
      return;
    case LineKind::kLayout:
      OnLayout(line.instance, line.bytes, line.alignment, line.text);
      return;
    case LineKind::kAllocated:
      OnPlaced(line.instance, line.offset);
      return;
    case LineKind::kAllocationFailed:
      OnAllocationFailed(line.instance);
      return;
    case LineKind::kCreated:
      OnCreated(line.instance, line.bytes, line.ids[0] == 1, line.event);
      return;
    case LineKind::kDestroyed:
      OnDestroyed(line.instance, line.event);
      return;
    case LineKind::kDeallocated:
      OnDeallocated(line.instance);
      return;
    default:
      return;
  }
}

// "creating new/reusing local instance": a new life of the id, numbered in
// announce order.
void NodeRebuild::OnAnnounced(uint64_t inst) {
  InstanceLife& life = state_.instances[inst];
  if (life.phase == Phase::kLive || life.phase == Phase::kDeferred) {
    // A new life of an id still held: the release line is missing.
    // Leave the old life to the map (the next placement is a
    // duplicate, counted there).
  }
  MemoryState& m = Memory(MemoryOfInstance(inst));
  if (life.phase == Phase::kAnnounced) Withdraw(m, inst, life);
  Dequeue(m, inst);
  // Realm reuses the id of an instance whose range it may still hold
  // (release ready): the range stays, apart from the new life, until that
  // enters the map (which keeps one entry per id) or the log shows it free.
  if (life.phase == Phase::kLive && life.maybe_held) {
    GiveBackReused(m, inst);
    m.held_reused[inst] =
        MemoryState::HeldRange{life.offset, life.size, life.announce_order};
  } else {
    ForgetQueuedRelease(m, inst, life.announce_order);
  }
  life = InstanceLife{};
  life.memory = MemoryOfInstance(inst);
  life.announce_order = ++state_.announce_counter;
  life.announce_run = announce_run_;
  m.has_instances = true;
  announced_.push_back(inst);
}

// "instance layout": the request's size and alignment, before its outcome.
void NodeRebuild::OnLayout(uint64_t inst, uint64_t bytes, uint64_t alignment,
                           std::string_view printed) {
  ++state_.counts.layout_lines;
  InstanceLife& life = state_.instances[inst];
  // A create whose layout came after a checkpoint showed it waiting.
  if (life.phase == Phase::kAnnounced)
    Withdraw(Memory(MemoryOfInstance(inst)), inst, life);
  if (life.phase != Phase::kAnnounced) {
    // No "creating/reusing" line before it (a log cut at its start):
    // a new life all the same.
    life = InstanceLife{};
    life.announce_order = ++state_.announce_counter;
  }
  life.memory = MemoryOfInstance(inst);
  life.have_layout = true;
  life.size = bytes;
  life.alignment = alignment == 0 ? 1 : alignment;
  life.layout = std::make_shared<const LayoutShape>(ShapeOfLayout(printed));
}

// "allocation completed": a redistrict's piece, a deferred request
// completing, or a placement (with size unknown when no layout came).
void NodeRebuild::OnPlaced(uint64_t inst, uint64_t offset) {
  ++state_.counts.placement_lines;
  if (ResolvePiece(inst, false, offset)) return;
  InstanceLife& life = state_.instances[inst];
  life.memory = MemoryOfInstance(inst);
  MemoryState& m = Memory(life.memory);
  // An external instance created on a precondition logs its address once
  // that fires, after its "instance created ... external=" line: it holds
  // nothing of the allocator still (its destroy releases nothing).
  if (life.phase == Phase::kExternal) return;
  if (life.phase == Phase::kAnnounced) Withdraw(m, inst, life);
  if (life.phase == Phase::kDeferred) {
    Dequeue(m, inst);
    MakeRoom(m, inst, offset, life.size);
    Apply(m, Event{EventType::kDeferredCompleted, inst, offset, 0, 0});
    if (life.release_requested) {
      // Destroyed while it waited: the placed range's release is requested
      // (its "deallocation completed" is a release, not a redistrict).
      ApplyRequestedRelease(m, inst, life);
      life.phase = Phase::kLive;
      life.offset = offset;
      m.live.emplace(offset, inst);
      return;
    }
  } else {
    if (!life.have_layout && life.phase != Phase::kUnplaced) {
      // Placed with no layout and no redistrict seen: the size is not
      // in the log.  Shown as zero bytes with size "unknown".
      life.size = 0;
      life.alignment = 1;
    }
    // Past the memory's end: Realm's allocator cannot have placed it.  An
    // external instance logs its absolute address here (minus the
    // memory's base: ~1.4e14 in the capacity-0 memory, an underflowed
    // ~1.8e19 elsewhere), which its "instance created" line, next, tells.
    if (m.capacity_known &&
        (offset > m.capacity || life.size > m.capacity - offset)) {
      life.phase = Phase::kBeyondEnd;
      life.offset = offset;
      return;
    }
    MakeRoom(m, inst, offset, life.size);
    Apply(m, Event{EventType::kAllocated, inst, offset, life.size,
                   NarrowAlignment(life.alignment)});
  }
  life.phase = Phase::kLive;
  life.offset = offset;
  life.release_requested = false;
  m.live.emplace(offset, inst);
}

// "allocation failed": a redistrict's piece, a deferred request failing,
// or an immediate failure (its size waits for "instance created" when the
// log has no layout line).  Realm logs the same line for a request it
// cancelled (its precondition poisoned): read as a cancellation where that
// is certain, as a refusal where that is, and otherwise as a failure marked
// maybe cancelled (kFailureMaybeCancelled; realm_log.h says when).
void NodeRebuild::OnAllocationFailed(uint64_t inst) {
  // A skipped creation or redistrict logged right before it on its thread.
  const bool cancelled = certainly_cancelled_;
  if (!cancelled && ResolvePiece(inst, true, 0)) return;
  InstanceLife& life = state_.instances[inst];
  life.memory = MemoryOfInstance(inst);
  MemoryState& m = Memory(life.memory);
  if (cancelled) {
    m.has_instances = true;
    CancelRequest(m, inst, life);
    return;
  }
  // Realm's poison logger (-level poison=2) logs every deferred creation it
  // skips; in a log that shows it on, a deferred request failing without
  // that line was refused by the allocator.
  const uint64_t maybe_cancelled =
      state_.counts.poison_lines > 0 && life.phase == Phase::kDeferred
          ? 0
          : kFailureMaybeCancelled;
  if (life.phase == Phase::kDeferred) {
    Dequeue(m, inst);
    // Fits the heap now with nothing queued in the allocator before it: the
    // allocator would have placed it, so it never asked: the precondition
    // was poisoned.
    if (life.waits_on_precondition && m.maybe_queued.empty() &&
        FitsNow(m, life.size, life.alignment)) {
      CancelRequest(m, inst, life);
      return;
    }
    Apply(m, Event{EventType::kDeferredFailed, inst, maybe_cancelled, 0, 0});
  } else if (life.phase == Phase::kAnnounced && !life.have_layout &&
             state_.counts.layout_lines > 0) {
    // A log with debug lines gives every create a layout: this is a piece
    // of a redistrict that never ran (no "deallocation completed" of its
    // old instance opened a group), its precondition poisoned.
    CancelRequest(m, inst, life);
    return;
  } else if (!life.have_layout) {
    // No debug lines: the size comes with "instance created", which
    // Realm logs after the failure.
    m.has_instances = true;
    life.phase = Phase::kFailedUnsized;
    life.failure_maybe_cancelled = true;
    return;
  } else {
    Apply(m, Event{EventType::kAllocationFailed, inst, maybe_cancelled,
                   life.size, NarrowAlignment(life.alignment)});
  }
  if (maybe_cancelled != 0) ++state_.counts.maybe_cancelled_failures;
  Failed(life);
}

// "instance created": deferred when no outcome came yet; the size of a
// failure logged without it; with no layout before it, live at an unknown
// place; after an outcome, only a confirmation.
void NodeRebuild::OnCreated(uint64_t inst, uint64_t bytes, bool external,
                            uint64_t ready) {
  InstanceLife& life = state_.instances[inst];
  if (ready != 0) named_events_.insert(ready);
  if (ready != 0 && life.phase != Phase::kGone) {
    life.ready_event = ready;
    // Logged after its failure (an instant one): already poisoned.
    if (life.phase == Phase::kFailed || life.phase == Phase::kFailedUnsized)
      PoisonEvent(ready);
  }
  if (external) {
    // Memory the program attached: Realm's allocator holds none of it.
    // A placement applied already (capacity unknown, or inside it) is
    // taken back.
    MemoryState& m = Memory(MemoryOfInstance(inst));
    if (life.phase == Phase::kLive) {
      Apply(m, Event{EventType::kReleased, inst});
      m.live.erase({life.offset, inst});
    }
    if (life.phase == Phase::kAnnounced) Withdraw(m, inst, life);
    life.memory = MemoryOfInstance(inst);
    life.phase = Phase::kExternal;
    life.size = bytes;
    m.external[inst] = bytes;
    m.has_instances = true;
    ++state_.counts.external_instances;
    return;
  }
  if (life.phase == Phase::kBeyondEnd) {
    // Not external after all: what the log says, an allocation past the
    // end (the map notes the range).
    MemoryState& m = Memory(life.memory);
    Apply(m, Event{EventType::kAllocated, inst, life.offset, life.size,
                   NarrowAlignment(life.alignment)});
    life.phase = Phase::kLive;
    m.live.emplace(life.offset, inst);
    return;
  }
  if (life.phase == Phase::kFailedUnsized) {
    ApplyUnsizedFailure(inst, life, bytes);
    return;
  }
  if (life.phase != Phase::kAnnounced) return;  // confirms an outcome
  life.memory = MemoryOfInstance(inst);
  MemoryState& m = Memory(life.memory);
  if (!life.have_layout) {
    // Realm logs the layout (debug) before the outcome; without it the
    // log lacks debug lines and says nothing of where this instance
    // is: it holds `bytes` somewhere, placed or still deferred.
    ++state_.counts.created_without_layout;
    life.size = bytes;
    life.alignment = 1;
    life.phase = Phase::kUnplaced;
    m.has_instances = true;
    return;
  }
  // Realm's allocator defers a request only when it does not fit the
  // current heap or others wait before it; one that fits and finds none
  // waits on its precondition.
  life.waits_on_precondition =
      m.maybe_queued.empty() && FitsNow(m, life.size, life.alignment);
  (life.waits_on_precondition ? m.on_precondition : m.maybe_queued)
      .insert(inst);
  Apply(m, Event{EventType::kDeferred, inst, kNoOffset, life.size,
                 NarrowAlignment(life.alignment)});
  life.phase = Phase::kDeferred;
}

// "instance destroyed": the release of a live or deferred instance is
// requested, waiting on `wait_on` (ready when 0); an unplaced one and a
// redistrict's piece still waiting only remember it.  A failed or unknown
// instance changes nothing.
void NodeRebuild::OnDestroyed(uint64_t inst, uint64_t wait_on) {
  auto found = state_.instances.find(inst);
  MemoryState& m = Memory(MemoryOfInstance(inst));
  if (found == state_.instances.end()) {
    // Never seen: the map counts it (unknown instance) on release.
    return;
  }
  InstanceLife& life = found->second;
  if (life.phase == Phase::kLive || life.phase == Phase::kDeferred) {
    Apply(m, Event{EventType::kReleaseRequested, inst, 0, 0,
                   ReleaseAux(wait_on == 0 ? ReleaseState::kReady
                                           : ReleaseState::kPending)});
    life.release_requested = true;
    life.release_wait_on = wait_on;
    life.destroy_run = announce_run_ + 1;
    m.releases.push_back(
        MemoryState::QueuedRelease{inst, life.announce_order, false});
    // Waiting on an event already poisoned: it will not happen
    // (mem_impl.cc: a poisoned precondition silently cancels the deletion).
    if (wait_on != 0 && poisoned_.count(wait_on)) {
      CancelRelease(inst, life);
    } else if (wait_on != 0 && event_lines_ > 0 &&
               life.phase == Phase::kLive && !life.bounded &&
               !named_events_.count(wait_on)) {
      // An event the log never names (a redistrict's new instance's ready
      // event): Realm may have poisoned it, even before this line, and
      // then skips the destroy without a word.  Marked, not guessed.
      life.release_on_unnamed_event = true;
      Apply(m, Event{EventType::kAttachIdentity, inst, kReleaseMaybeSkippedMark,
                     0, 0});
    }
  } else if (life.phase == Phase::kUnplaced ||
             life.phase == Phase::kAnnounced) {
    // Holds no range the map knows yet (placed at an unknown place, or a
    // redistrict's piece still waiting): remembered, applied when placed.
    // Queued here now, no later than Realm queues it.
    life.release_requested = true;
    life.release_wait_on = wait_on;
    life.destroy_run = announce_run_ + 1;
    m.releases.push_back(
        MemoryState::QueuedRelease{inst, life.announce_order, false});
  }
}

// "deallocation completed": the range comes back, unless it was applied
// early (a reordering) or it is the old instance of a redistrict (a live
// instance with no destroy while new ones wait unplaced in its memory).
void NodeRebuild::OnDeallocated(uint64_t inst) {
  if (state_.released_early.erase(inst) > 0) return;  // applied already
  const uint64_t memory = MemoryOfInstance(inst);
  MemoryState& m = Memory(memory);
  auto found = state_.instances.find(inst);
  if (found == state_.instances.end() || found->second.phase == Phase::kGone) {
    Apply(m, Event{EventType::kReleased, inst});  // the map counts it
    return;
  }
  InstanceLife& life = found->second;
  Dequeue(m, inst);
  if (life.phase == Phase::kExternal) {
    m.external.erase(inst);
    life.phase = Phase::kGone;
    return;
  }
  if (life.phase == Phase::kUnplaced) {
    life.phase = Phase::kGone;
    return;
  }
  if (life.phase == Phase::kLive && life.release_requested) {
    FireRelease(m, inst, life);
    return;
  }
  if (life.phase == Phase::kLive) {
    if (OpenRedistrict(memory, inst, life)) return;
    ++m.released_without_destroy;
    m.live.erase({life.offset, inst});
  }
  Apply(m, Event{EventType::kReleased, inst});
  life.phase = Phase::kGone;
  ForgetQueuedRelease(m, inst, life.announce_order);
}

// A live instance of `memory` released with no destroy line: a redistrict
// when new instances, in no open group yet, wait unplaced in that memory;
// the pieces are one run of them (announced together), in the order they
// were announced: the run announced right before this line when there is
// one (a redistrict that ran at once), else the only run, else the run of
// the first waiting instance whose outcome follows (ResolvePiece).  False
// when none wait.
bool NodeRebuild::OpenRedistrict(uint64_t memory, uint64_t old_instance,
                                 const InstanceLife& old) {
  std::vector<std::pair<uint64_t, uint64_t>> waiting;
  for (const auto& [id, other] : state_.instances) {
    if (other.phase == Phase::kAnnounced && !other.have_layout &&
        other.memory == memory)
      waiting.emplace_back(other.announce_order, id);
  }
  for (const auto& group : state_.open_groups)
    for (const auto& piece : group.pieces)
      waiting.erase(std::remove_if(waiting.begin(), waiting.end(),
                                   [&](const auto& w) {
                                     return w.second == piece.instance;
                                   }),
                    waiting.end());
  if (waiting.empty()) return false;
  std::sort(waiting.begin(), waiting.end());
  RedistrictGroup group;
  group.memory = memory;
  group.old_instance = old_instance;
  group.old_offset = old.offset;
  group.old_end = old.offset + old.size;
  // The newest run still open (nothing since its announces): a redistrict
  // that ran at once.
  const bool just_announced =
      state_.instances[waiting.back().second].announce_run == announce_run_;
  const uint64_t run =
      just_announced ? announce_run_
                     : state_.instances[waiting.front().second].announce_run;
  const bool one_run =
      state_.instances[waiting.back().second].announce_run ==
      state_.instances[waiting.front().second].announce_run;
  if (!just_announced && !one_run) {
    group.run_unknown = true;  // ResolvePiece finds the run
    state_.open_groups.push_back(std::move(group));
    return true;
  }
  waiting.erase(std::remove_if(waiting.begin(), waiting.end(),
                               [&](const auto& w) {
                                 return state_.instances[w.second].announce_run != run;
                               }),
                waiting.end());
  for (const auto& w : waiting) {
    RedistrictGroup::Piece piece;
    piece.instance = w.second;
    group.pieces.push_back(piece);
  }
  state_.open_groups.push_back(std::move(group));
  return true;
}

void NodeRebuild::OnSpyLine(const LogLine& line) {
  RebuildCounts& counts = state_.counts;
  ++counts.spy_lines;
  switch (line.kind) {
    case LineKind::kSpyUnknown:
      ++counts.spy_unknown_lines;
      return;
    case LineKind::kMalformed:
      ++counts.spy_malformed_lines;
      return;
    case LineKind::kSpyKnown:
      return;
    case LineKind::kSpyInstance: {
      SpyInstance record;
      record.event = line.event;
      record.instance = line.instance;
      record.memory = line.memory;
      record.redop = line.ids[0];
      record.expression = line.ids[1];
      record.field_space = line.ids[2];
      record.tree = line.ids[3];
      record.line = line_;
      record.owned = InstanceOwnerNode(line.instance) == state_.node;
      const uint32_t index = static_cast<uint32_t>(state_.spy.size());
      if (record.owned) {
        // The life of this id open now is the one Legion made it for.
        ++counts.spy_instances;
        auto life = state_.instances.find(line.instance);
        if (life != state_.instances.end() &&
            life->second.phase != Phase::kGone &&
            life->second.phase != Phase::kFailed &&
            life->second.phase != Phase::kFailedUnsized) {
          life->second.spy = index + 1;
          record.bound = true;
          ++counts.spy_bound;
        } else {
          state_.spy_unbound.push_back(index);
        }
      } else {
        ++counts.spy_remote_instances;
      }
      state_.spy_by_event[line.event] = index;
      state_.spy.push_back(std::move(record));
      return;
    }
    case LineKind::kSpyInstanceField:
    case LineKind::kSpyInstanceCreator:
    case LineKind::kSpyCreationRegion: {
      auto it = state_.spy_by_event.find(line.event);
      if (it == state_.spy_by_event.end()) {
        ++counts.spy_malformed_lines;  // refers to no Physical Instance
        return;
      }
      SpyInstance& record = state_.spy[it->second];
      if (line.kind == LineKind::kSpyInstanceField) {
        record.fields.push_back(line.ids[0]);
      } else if (line.kind == LineKind::kSpyInstanceCreator) {
        record.has_creator = true;
        record.creator = line.ids[0];
        record.processor = line.ids[1];
      } else {
        record.creation_regions.emplace_back(line.ids[0], line.ids[1],
                                             line.ids[2]);
        record.has_region = true;
        record.region_index_space = line.ids[0];
        record.region_field_space = line.ids[1];
        record.region_tree = line.ids[2];
      }
      return;
    }
    case LineKind::kSpyMemory: {
      ListedMemory& listed = state_.spy_memories[line.memory];
      listed.capacity = line.bytes;
      listed.kind_name = RealmMemoryKindName(line.ids[0]);
      // Legion Spy lists the node's own memories: their capacity when the
      // machine dump (node 0's log only, debug level) did not give it.
      if (MemoryOwnerNode(line.memory) != state_.node) return;
      MemoryState& m = Memory(line.memory);
      if (m.listed || m.capacity_known) return;
      SetListedKind(m, listed.kind_name, line.bytes);
      return;
    }
    case LineKind::kSpyFieldCreation:
    case LineKind::kSpyIndexSpaceRect:
    case LineKind::kSpyIndexSpacePoint:
    case LineKind::kSpyEmptyIndexSpace:
    case LineKind::kSpyExpression:
    case LineKind::kSpyExpressionOp:
    case LineKind::kSpyRequirement:
    case LineKind::kSpyRequirementField:
      state_.shapes.Add(line);
      return;
    default:
      state_.catalog.Add(line);
      return;
  }
}

void NodeRebuild::OnLegateLine(const LogLine& line) {
  RebuildCounts& counts = state_.counts;
  ++counts.legate_lines;
  switch (line.kind) {
    case LineKind::kLegateFailed: {
      LegateFailure failure;
      failure.bytes = line.bytes;
      failure.memory = line.memory;
      failure.uid = line.ids[0];
      failure.operation = std::string(line.text);
      failure.line = line_;
      state_.legate_failures.push_back(std::move(failure));
      state_.legate_store.clear();
      return;
    }
    case LineKind::kLegateRequestStore:
      if (!state_.legate_failures.empty())
        state_.legate_failures.back().stores.emplace_back(line.text);
      return;
    case LineKind::kLegateStore:
      state_.legate_store = std::string(line.text);
      return;
    case LineKind::kLegateInstance: {
      ++counts.legate_instances;
      LegateInstance record;
      record.instance = line.instance;
      record.address = line.offset;
      record.size = line.bytes;
      record.elements = std::string(line.text);
      record.store = state_.legate_store;
      record.multiple_stores = line.ids[0] == 1;
      record.line = line_;
      // Bound here when this log is the owner's; else the assembly joins it
      // to the owner's last life of the id.
      if (InstanceOwnerNode(line.instance) == state_.node) {
        auto life = state_.instances.find(line.instance);
        if (life != state_.instances.end() &&
            (life->second.phase == Phase::kLive ||
             life->second.phase == Phase::kUnplaced)) {
          life->second.legate = static_cast<uint32_t>(state_.legate.size()) + 1;
          record.bound = true;
          ++counts.legate_bound;
        }
      }
      state_.legate.push_back(std::move(record));
      return;
    }
    case LineKind::kLegateCreatedFor:
      if (!state_.legate.empty() && state_.legate.back().created_for.empty())
        state_.legate.back().created_for = std::string(line.text);
      return;
    case LineKind::kMalformed:
      ++counts.unknown_lines;
      return;
    default:
      return;
  }
}

void NodeRebuild::Feed(const LogLine& line, uint64_t line_number) {
  RebuildCounts& counts = state_.counts;
  ++counts.lines;
  time_ = &line;
  line_ = line_number;
  state_.last_line = line_number;
  const std::string_view logger = line.logger;
  certainly_cancelled_ = false;
  if (!cancelling_threads_.empty()) FollowCancellingThread(line);
  if (logger == "inst") {
    OnInstanceLine(line);
    if (line.kind != LineKind::kCreateLocal) ++announce_run_;
  } else if (logger == "poison") {
    ++counts.poison_lines;
    if (line.kind == LineKind::kUserEventCancelled)
      OnUserEventCancelled(line.event);
    else
      OnPoisonLine(line);
  } else if (logger == "legion_spy") {
    OnSpyLine(line);
  } else if (logger.substr(0, 6) == "legate") {
    OnLegateLine(line);
  } else if (line.kind == LineKind::kUserEventCancelled) {
    OnUserEventCancelled(line.event);
  } else if (line.kind == LineKind::kEventNamed) {
    ++event_lines_;
    named_events_.insert(line.event);
    ++counts.other_logger_lines;  // read for its event's name only
  } else if (line.kind == LineKind::kEventMerged) {
    ++event_lines_;
    named_events_.insert(line.event);
    OnEventMerged(line.event, line.ids[0]);
  } else {
    // A line of the program's own (not Realm's event logger, whose lines
    // other threads write while a redistrict logs its announces) ends a
    // run of announces: two redistricts called one after the other.
    if (logger != "event") ++announce_run_;
    if (line.kind == LineKind::kCheckpoint) {
      ++counts.checkpoints;
      ShowWaitingPieces();
    }
    if (line.kind == LineKind::kMachineNode)
      state_.machine_nodes.insert(line.ids[0]);
    ++counts.other_logger_lines;
  }
  time_ = nullptr;  // `line` is the caller's
}

// A thread that logged a skipped creation or redistrict: its next line, an
// "allocation failed", is a cancellation (after a skipped redistrict, each
// of the run of such lines, one per new instance: Realm cancels them one
// after the other).  Any other line of the thread ends it (a later failure
// of the thread is another request's), except another skip, which nests
// (a cancellation's poisoned ready event may skip a creation at once).
void NodeRebuild::FollowCancellingThread(const LogLine& line) {
  auto it = cancelling_threads_.find(std::string(line.thread));
  if (it == cancelling_threads_.end()) return;
  std::vector<SkippedOnThread>& skipped = it->second;
  if (line.kind == LineKind::kAllocationFailed) {
    if (!skipped.back().redistrict) {
      certainly_cancelled_ = true;
      instance_at_address_[skipped.back().address] = line.instance;
      skipped.pop_back();
    } else {
      // The run may begin with the eventual failures of requests queued in
      // the allocator (mem_impl.cc reuse_storage_immediate fails those
      // first): only the redistrict's new instances, announced with no
      // layout, are its cancellations.
      auto life = state_.instances.find(line.instance);
      certainly_cancelled_ = life != state_.instances.end() &&
                             life->second.phase == Phase::kAnnounced &&
                             !life->second.have_layout;
    }
    if (skipped.empty()) cancelling_threads_.erase(it);
  } else if (line.kind != LineKind::kCreationSkipped &&
             line.kind != LineKind::kRedistrictSkipped) {
    cancelling_threads_.erase(it);
  }
}

void NodeRebuild::FeedContinuation(const LogLine& line, uint64_t line_number) {
  time_ = nullptr;
  ++state_.counts.lines;
  line_ = line_number;
  state_.last_line = line_number;
  if (line.kind != LineKind::kMachineMemory) {
    ++state_.counts.continuation_lines;
    return;
  }
  // "Memory:M, KIND, capacity: C" of the machine dump, which lists every
  // node's memories; the map of a memory of this node gets its capacity.
  ++state_.counts.memory_lines;
  ListedMemory& listed = state_.machine_memories[line.memory];
  listed.kind_name = std::string(line.text);
  listed.capacity = line.bytes;
  if (MemoryOwnerNode(line.memory) != state_.node) return;
  MemoryState& m = Memory(line.memory);
  m.listed = true;
  SetListedKind(m, listed.kind_name, line.bytes);
}

}  // namespace realm_log
}  // namespace realm_shadow
