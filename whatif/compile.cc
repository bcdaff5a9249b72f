// whatif/compile.cc - see compile.h.
#include "whatif/compile.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "realm_shadow/core/identity.h"

namespace realm_shadow {
namespace whatif {
namespace {

enum class Phase : uint8_t { kWaiting, kPending, kPlaced, kFailed, kGone };
enum class Release : uint8_t { kNone, kPending, kReady };

constexpr uint32_t kNoStep = UINT32_MAX;

struct LifeInfo {
  Phase phase = Phase::kPending;
  Release release = Release::kNone;
  uint32_t release_step = kNoStep;  // the kRelease step, while it is pending
  uint32_t wait_step = kNoStep;     // the kRequestWaits step
  uint32_t request_step = kNoStep;  // the step that made the request
  uint32_t piece_of = kNoLife;      // provisionally a piece of this life's split
  // Its split's pieces were announced while it still waited on its creation
  // precondition (Realm's delayed redistrict): the release joins Realm's
  // queue when the life is placed, not when it was requested.
  bool delayed_split = false;
  // Its release step is already the split of its announced pieces (made
  // when one of them failed before the split's group: SplitAtAPiecesFailure).
  bool split_made = false;
  // The lives provisionally taken for pieces of this one's split lie in
  // [first_piece, last_piece] (kNoLife: none): the requests shown right
  // before (or after) its release request, so a plain release unlinks them
  // in a walk of a few lives.
  uint32_t first_piece = kNoLife;
  uint32_t last_piece = kNoLife;
};

std::string Hex(uint64_t v) { return HexId(v); }

class Compiler {
 public:
  Compiler(const Snapshot& base, const std::vector<Event>& events,
           const std::vector<Identity>& identities, bool from_log, ReplayScript* out)
      : base_(base), events_(events), identities_(identities), from_log_(from_log), s_(*out) {
    for (const Identity& id : identities) {
      for (const auto& [key, value] : id.attributes)
        if (key == kSizeAttribute && (value == kSizeUpperBound || value == kSizeUnknown))
          size_unknown_identities_.push_back(id.id);
    }
    std::sort(size_unknown_identities_.begin(), size_unknown_identities_.end());
  }

  bool Run(std::string* error) {
    s_.memory_id = base_.memory_id;
    s_.node = base_.node;
    s_.kind = base_.kind;
    s_.memory_name = base_.name;
    s_.capacity = base_.capacity;
    s_.capacity_known = base_.capacity_known;
    s_.first_sequence = base_.sequence;
    s_.end_sequence = base_.sequence + events_.size();
    s_.log_times = from_log_;
    s_.identities = identities_;
    seq_ = base_.sequence;
    FromBase();
    for (size_t k = 0; k < events_.size(); ++k, ++seq_) {
      index_ = k;
      if (!Apply(events_[k], error)) return false;
      if (!postponed_.empty() && group_left_ == 0 && !ApplyPostponed(error)) return false;
    }
    // A blocker the look-ahead found released is gone by now; what is
    // left (none in a rebuild's history) applies at the end.
    for (auto& [e, blocker] : postponed_) info_[blocker].phase = Phase::kGone;
    if (!ApplyPostponed(error)) return false;
    Finish();
    return true;
  }

 private:
  // ---- lives and steps ------------------------------------------------------

  uint32_t NewLife(uint64_t instance, uint64_t size, uint64_t alignment, Phase phase) {
    // The id's earlier life is over (ids are reused only once destroyed).
    if (!not_replayed_.empty()) not_replayed_.erase(instance);
    auto& open = open_[instance];
    // A failed life is forgotten once its id is used again.
    open.erase(std::remove_if(open.begin(), open.end(),
                              [&](uint32_t l) { return info_[l].phase == Phase::kFailed; }),
               open.end());
    ReplayLife l;
    l.instance = instance;
    l.size = size;
    l.alignment = alignment;
    s_.lives.push_back(l);
    LifeInfo li;
    li.phase = phase;
    info_.push_back(li);
    const uint32_t life = static_cast<uint32_t>(s_.lives.size() - 1);
    open.push_back(life);
    return life;
  }

  uint32_t Find(uint64_t instance, std::initializer_list<Phase> phases) const {
    auto it = open_.find(instance);
    if (it == open_.end()) return kNoLife;
    for (auto l = it->second.rbegin(); l != it->second.rend(); ++l)
      for (Phase p : phases)
        if (info_[*l].phase == p) return *l;
    return kNoLife;
  }
  uint32_t Placed(uint64_t instance) const { return Find(instance, {Phase::kPlaced}); }
  uint32_t Waiting(uint64_t instance) const {
    return Find(instance, {Phase::kWaiting, Phase::kPending});
  }

  void Close(uint32_t life) {
    if (!known_ranges_.empty()) known_ranges_.erase({s_.lives[life].recorded_offset, life});
    info_[life].phase = Phase::kGone;
    if (candidate_old_ == life) candidate_old_ = kNoLife;
    auto it = open_.find(s_.lives[life].instance);
    if (it == open_.end()) return;
    auto& v = it->second;
    v.erase(std::remove(v.begin(), v.end(), life), v.end());
    if (v.empty()) open_.erase(it);
  }

  uint32_t AddStep(StepKind kind, uint32_t life, bool ready = false) {
    s_.steps.push_back(ReplayStep::Of(kind, life, seq_, ready));
    dead_.push_back(false);
    return static_cast<uint32_t>(s_.steps.size() - 1);
  }

  // What the run recorded for the life at this event.
  ReplayLife& Outcome(uint32_t life, RecordedOutcome outcome, Phase phase) {
    ReplayLife& l = s_.lives[life];
    l.recorded = outcome;
    l.recorded_sequence = seq_;
    info_[life].phase = phase;
    return l;
  }
  void Placement(uint32_t life, uint64_t offset) {
    Outcome(life, RecordedOutcome::kPlaced, Phase::kPlaced).recorded_offset = offset;
    if (from_log_ && s_.lives[life].size > 0) known_ranges_.insert({offset, life});
  }

  // ---- a log's order of a release and the placements it made room for ----

  // Realm serves the requests queued behind a release before it logs the
  // release's "deallocation completed" (mem_impl.cc release_storage_
  // immediate, reuse_storage_immediate: the successful allocations are
  // notified first), and the rebuild applies a redistrict's old range
  // only once its group is complete: a placement the log records inside
  // a range of known size that a later event of the history releases or
  // redistricts was made after that release.  It is applied there.
  // Cost: an ordered-set lookup per placement of a log, and a look ahead
  // of at most kBlockerLookAhead events when one overlaps.
  static constexpr size_t kBlockerLookAhead = 256;

  // The placed life of known size whose range [offset, offset + size)
  // overlaps and whose release or redistrict a later event gives, or
  // kNoLife.
  uint32_t ReleasedLater(uint64_t offset, uint64_t size) const {
    if (known_ranges_.empty() || size == 0) return kNoLife;
    auto it = known_ranges_.lower_bound({offset + size, 0});
    while (it != known_ranges_.begin()) {
      --it;
      const ReplayLife& l = s_.lives[it->second];
      if (it->first + l.size <= offset) break;
      if ((!l.size_known && !release_first_.count(it->second)) ||
          info_[it->second].phase != Phase::kPlaced)
        continue;
      const size_t end = std::min(events_.size(), index_ + 1 + kBlockerLookAhead);
      for (size_t k = index_ + 1; k < end; ++k) {
        const Event& n = events_[k];
        if (n.instance == l.instance &&
            (n.type == EventType::kReleased || n.type == EventType::kRedistrict))
          return it->second;
      }
    }
    return kNoLife;
  }

  // Whether the next events after this one, past a repeated request of
  // its release and the placements a release serves, release `life`: the
  // rebuild's reading, as a tighter bound, of placements Realm made in
  // the piece's room once its queued release was applied.
  bool ReleasedNext(uint32_t life) const {
    const uint64_t instance = s_.lives[life].instance;
    const size_t end = std::min(events_.size(), index_ + 1 + kBlockerLookAhead);
    for (size_t k = index_ + 1; k < end; ++k) {
      const Event& n = events_[k];
      switch (n.type) {
        case EventType::kReleased:
        case EventType::kHeapRemoved:
          if (n.instance == instance) return true;
          return false;
        case EventType::kReleaseRequested:
          if (n.instance != instance) return false;
          break;
        case EventType::kDeferredCompleted:
        case EventType::kDeferredFailed:
        case EventType::kAttachIdentity:
          break;
        default:
          return false;
      }
    }
    return false;
  }

  // The placement of `e` (of `size`) waits for the release of a range it
  // lies in: true when postponed.
  bool Postponed(const Event& e, uint64_t size, bool again = false) {
    if (!from_log_ || applying_postponed_) return false;
    const uint32_t blocker = ReleasedLater(e.offset, size);
    if (blocker == kNoLife) return false;
    postponed_.push_back({e, blocker});
    if (!again) ++postponed_count_;
    return true;
  }

  bool ApplyPostponed(std::string* error) {
    std::vector<std::pair<Event, uint32_t>> now;
    for (auto it = postponed_.begin(); it != postponed_.end();) {
      if (info_[it->second].phase == Phase::kGone) {
        now.push_back(*it);
        it = postponed_.erase(it);
      } else {
        ++it;
      }
    }
    for (const auto& [e, blocker] : now) {
      (void)blocker;
      // A second range it lies in, released later still, postpones it again.
      if (Postponed(e, PlacementSize(e), /*again=*/true)) continue;
      applying_postponed_ = true;
      const bool ok = Apply(e, error);
      applying_postponed_ = false;
      if (!ok) return false;
    }
    return true;
  }

  // The size a placement event places: the waiting request's, or its own.
  uint64_t PlacementSize(const Event& e) const {
    const uint32_t waiting = Waiting(e.instance);
    return waiting != kNoLife ? s_.lives[waiting].size : e.size;
  }
  void Failure(uint32_t life, bool eventual) {
    // Realm destroys a failed instance; its release changes nothing.
    Outcome(life, RecordedOutcome::kFailed, Phase::kFailed).recorded_eventual = eventual;
  }

  // A waiting request shows in a heap or fails: it entered now.
  void Enters(uint32_t life) {
    if (info_[life].phase == Phase::kWaiting) {
      AddStep(StepKind::kRequestEnters, life);
      info_[life].phase = Phase::kPending;
    }
  }

  // ---- a log's upper bounds --------------------------------------------------

  // A log gives a redistricted piece only its start: its size is bounded
  // by the next piece or the old range's end.  A placement the log records
  // at `offset`, inside a piece's bound, shows that the piece ends there
  // (Realm never overlaps two ranges; a piece whose release made the room
  // was released first, by the rebuild): replayed as the split of the
  // piece to that size, before the request, as the rebuild's own tighter
  // bounds are (but for a last piece whose release is queued: FlushSplit).
  // A piece that starts there is a zero-byte one (Realm gives those
  // offset 0).  Cost: one ordered-map lookup per placement of a log with
  // bounded pieces, none otherwise.
  void NarrowBoundAt(uint64_t offset, uint64_t size) {
    if (bounded_.empty() || size == 0) return;
    auto it = bounded_.upper_bound(offset);
    if (it == bounded_.begin()) return;
    --it;
    const uint64_t start = it->first;
    const uint32_t piece = it->second;
    const ReplayLife old = s_.lives[piece];
    if (info_[piece].phase != Phase::kPlaced || old.recorded_offset != start) {
      bounded_.erase(it);  // released or split since
      return;
    }
    if (start + old.size <= offset || info_[piece].release != Release::kNone) return;
    ++bound_refinements_;
    it->second = SplitToBound(piece, offset - start);
  }

  // The split of a bounded piece to a tighter `size` at its start, now:
  // the new life that holds it.
  uint32_t SplitToBound(uint32_t piece, uint64_t size) {
    const ReplayLife old = s_.lives[piece];
    const uint32_t narrowed = NewLife(old.instance, size, old.alignment, Phase::kPending);
    s_.lives[narrowed].size_known = false;
    s_.lives[narrowed].identity = old.identity;
    const uint32_t st = AddStep(StepKind::kRedistrict, piece, true);
    s_.steps[st].first_piece = narrowed;
    s_.steps[st].piece_count = 1;
    Placement(narrowed, old.recorded_offset);
    s_.lives[narrowed].recorded = RecordedOutcome::kLiveAtBase;  // a split, not a placement
    if (last_pieces_.count(piece)) last_pieces_.insert(narrowed);
    Close(piece);
    return narrowed;
  }

  // ... and was placed there.  A split requested while it waited is queued
  // now (allocate_storage_immediate's DELAYEDREDISTRICT): its release step
  // moves here, where the split will rewrite it.
  void EntersPlaced(uint32_t life, uint64_t offset) {
    if (from_log_) NarrowBoundAt(offset, s_.lives[life].size);
    Enters(life);
    Placement(life, offset);
    QueueDelayedSplit(life);
  }
  // (Also for a piece placed by its parent's split: a split of the piece
  // requested while the parent's split waited queues once the piece is.)
  void QueueDelayedSplit(uint32_t life) {
    LifeInfo& li = info_[life];
    if (li.delayed_split && li.release == Release::kPending && li.release_step != kNoStep) {
      dead_[li.release_step] = true;
      li.release_step = AddStep(StepKind::kRelease, life, false);
    }
    li.delayed_split = false;
  }

  // A destroy of a piece requested before the split made it (its old
  // instance still waited: Realm's delayed destroy) joins the queue once
  // the piece exists; at its request the replay had no piece to release
  // (oracle seed 254 of a master run: the piece was held to the end).
  void RequeueEarlyRelease(uint32_t piece, uint32_t split_step) {
    LifeInfo& li = info_[piece];
    if (li.release == Release::kNone || li.release_step == kNoStep || li.release_step > split_step)
      return;
    dead_[li.release_step] = true;
    li.release_step = AddStep(StepKind::kRelease, piece, li.release == Release::kReady);
  }

  // The life whose split `life` is provisionally a piece of, while that
  // life still holds its range: a guess its plain release disproved (a
  // request deferred with no plan right after a release request, as a
  // split's pieces are, that was a request all the same) is dropped.
  // (Not for the old life of a delayed split, whose pieces, placed with
  // it, the split's own rules read.)
  uint32_t PieceOf(uint32_t life) {
    uint32_t& old = info_[life].piece_of;
    if (old != kNoLife && info_[old].phase == Phase::kGone && !info_[life].delayed_split)
      old = kNoLife;
    return old;
  }

  bool Unknown(const Event& e, std::string* error) {
    *error = "event " + std::to_string(EventNumber(seq_)) + " (" + EventTypeName(e.type) + " of " +
             Hex(e.instance) +
             ") concerns a request no earlier event made and the base does not "
             "hold: the history has a hole in it";
    return false;
  }

  // ---- the base -------------------------------------------------------------

  void FromBase() {
    if (base_.sequence > 0)
      s_.notes.push_back("the history starts after event " + std::to_string(base_.sequence) +
                         ", not at the start of the run: replayed from the snapshot "
                         "there (its allocations where it shows them, under every "
                         "policy; its pending requests enter first, then its queued "
                         "releases are requested again)");
    for (const Allocation& a : base_.allocations) {
      const uint32_t life = NewLife(a.instance, a.size, a.alignment(), Phase::kPlaced);
      ReplayLife& l = s_.lives[life];
      l.recorded = RecordedOutcome::kLiveAtBase;
      l.recorded_offset = a.offset;
      l.identity = a.identity;
      l.size_known = !SizeUnknown(a.identity);
      s_.base_lives.push_back(life);
    }
    std::vector<PendingRequest> pending = base_.pending;
    std::sort(pending.begin(), pending.end(), [](const auto& a, const auto& b) {
      return a.sequence < b.sequence;
    });
    for (const PendingRequest& p : pending) {
      const bool waits = p.planned_offset == kNoOffset;
      const uint32_t life = NewLife(p.instance, p.size, p.alignment,
                                    waits ? Phase::kWaiting : Phase::kPending);
      s_.lives[life].identity = p.identity;
      s_.lives[life].size_known = !SizeUnknown(p.identity);
      const uint32_t st = AddStep(waits ? StepKind::kRequestWaits : StepKind::kRequest, life);
      if (waits) info_[life].wait_step = st;
    }
    for (uint32_t life : s_.base_lives) {
      const Allocation* a = nullptr;
      for (const Allocation& x : base_.allocations)
        if (x.instance == s_.lives[life].instance && x.offset == s_.lives[life].recorded_offset) a = &x;
      if (!a || a->state == AllocationState::kLive) continue;
      const bool ready = a->state == AllocationState::kReleaseReady;
      const uint32_t st = AddStep(StepKind::kRelease, life, ready);
      info_[life].release = ready ? Release::kReady : Release::kPending;
      info_[life].release_step = st;
    }
  }

  bool SizeUnknown(uint32_t identity) const {
    return identity != 0 && std::binary_search(size_unknown_identities_.begin(),
                                                size_unknown_identities_.end(), identity);
  }

  // ---- events -----------------------------------------------------------------

  bool Apply(const Event& e, std::string* error) {
    if (group_left_ > 0) return GroupRecord(e, error);
    switch (e.type) {
      case EventType::kAllocated:
      case EventType::kHeapPlaced:
        return Placed(e, error);
      case EventType::kDeferred:
      case EventType::kFuturePlaced:
        return Deferred(e);
      case EventType::kDeferredCompleted: {
        const uint32_t life = Waiting(e.instance);
        if (life == kNoLife) return Unknown(e, error);
        if (Postponed(e, s_.lives[life].size)) return true;
        if (External(e.offset, s_.lives[life].size)) {
          SkipExternal(e.instance, life);
          return true;
        }
        EntersPlaced(life, e.offset);
        return true;
      }
      case EventType::kDeferredFailed:
      case EventType::kRequestFailed:
      case EventType::kAllocationFailed:
        return Failed(e, error);
      case EventType::kRequestCancelled: {
        // Realm destroys a cancelled instance too: its destroy, logged
        // "deallocation completed" like any other, releases nothing.
        not_replayed_.insert(e.instance);
        const uint32_t life = Waiting(e.instance);
        if (life == kNoLife) return true;  // a piece of a poisoned redistrict
        if (info_[life].phase == Phase::kWaiting) AddStep(StepKind::kRequestCancelled, life);
        s_.lives[life].recorded = RecordedOutcome::kCancelled;
        Close(life);
        return true;
      }
      case EventType::kReleaseRequested:
        return ReleaseRequested(e);
      case EventType::kReleased:
      case EventType::kHeapRemoved:
        return Released(e, error);
      case EventType::kRedistrict:
      case EventType::kHeapSplit:
        group_type_ = e.type;
        group_old_ = e.instance;
        group_left_ = e.aux;
        group_.clear();
        if (group_left_ == 0) return FlushSplit(error);
        return true;
      case EventType::kHeapSwapped:
      case EventType::kHeapReplaced:
        // A reordering's or a rebuild's difference: its records are
        // placements and removals, read one by one.
        group_type_ = e.type;
        group_left_ = e.aux;
        return true;
      case EventType::kReserved:
      case EventType::kReservationEnded:
        ++reservations_;
        return true;
      case EventType::kAttachIdentity: {
        uint32_t life = Waiting(e.instance);
        if (life == kNoLife) life = Placed(e.instance);
        if (life == kNoLife) return true;
        s_.lives[life].identity = static_cast<uint32_t>(e.offset);
        if (SizeUnknown(static_cast<uint32_t>(e.offset))) s_.lives[life].size_known = false;
        return true;
      }
      case EventType::kRedistrictPiece:
      case EventType::kNoop:
      case EventType::kFutureReset:
        return true;
    }
    return true;
  }

  bool GroupRecord(const Event& e, std::string* error) {
    // A redistrict's pieces may have other events between them (a log
    // attaches each piece's identity right after it): those apply once the
    // split is made.
    if (group_type_ == EventType::kRedistrict && e.type != EventType::kRedistrictPiece) {
      between_.push_back(e);
      return true;
    }
    --group_left_;
    if (group_type_ == EventType::kRedistrict || group_type_ == EventType::kHeapSplit) {
      group_.push_back(e);
      if (group_left_ > 0) return true;
      if (!FlushSplit(error)) return false;
      std::vector<Event> between;
      between.swap(between_);
      for (const Event& b : between)
        if (!Apply(b, error)) return false;
      return true;
    }
    // heap_swapped / heap_replaced records.
    if (e.type == EventType::kHeapRemoved) return Released(e, error);
    if (e.type == EventType::kHeapPlaced) {
      // A replaced heap names what stays too: nothing to do for those.
      const uint32_t placed = Placed(e.instance);
      if (placed != kNoLife && s_.lives[placed].recorded_offset == e.offset) return true;
      return Placed(e, error);
    }
    return true;
  }

  // A placement outside the memory's range is an external instance's
  // (Realm's "offset" for it is its address minus the memory's base; a
  // log records it so): it holds nothing of Realm's allocator, and is not
  // replayed.  Its id is kept until released or reused.
  bool External(uint64_t offset, uint64_t size) const {
    return s_.capacity_known && (offset > s_.capacity || size > s_.capacity - offset);
  }
  void SkipExternal(uint64_t instance, uint32_t waiting) {
    ++externals_;
    not_replayed_.insert(instance);
    if (waiting == kNoLife) return;
    if (info_[waiting].request_step != kNoStep) dead_[info_[waiting].request_step] = true;
    if (info_[waiting].release_step != kNoStep) dead_[info_[waiting].release_step] = true;
    s_.lives[waiting].recorded = RecordedOutcome::kCancelled;
    Close(waiting);
  }

  bool Placed(const Event& e, std::string* error) {
    (void)error;
    const uint32_t waiting = Waiting(e.instance);
    if (group_left_ == 0 && Postponed(e, waiting != kNoLife ? s_.lives[waiting].size : e.size))
      return true;
    if (External(e.offset, waiting != kNoLife ? s_.lives[waiting].size : e.size)) {
      SkipExternal(e.instance, waiting != kNoLife && PieceOf(waiting) == kNoLife ? waiting
                                                                                         : kNoLife);
      return true;
    }
    // Heap observation places a split's pieces in the split's group, or in
    // a swap's after the old range's removal (removals come first), never
    // while the old range is live: a request placed so was no piece (one
    // waiting on its own precondition, shown right before a destroy of a
    // waiting instance, which reads like a delayed redistrict's
    // announcement; oracle seeds 289, 303, 350, 398 of a master run).
    if (waiting != kNoLife && e.type == EventType::kHeapPlaced &&
        PieceOf(waiting) != kNoLife && info_[PieceOf(waiting)].phase == Phase::kPlaced)
      info_[waiting].piece_of = kNoLife;
    if (waiting != kNoLife && PieceOf(waiting) == kNoLife) {
      EntersPlaced(waiting, e.offset);
      return true;
    }
    if (from_log_) NarrowBoundAt(e.offset, e.size);
    const uint32_t life = NewLife(e.instance, e.size, e.aux, Phase::kPending);
    info_[life].request_step = AddStep(StepKind::kRequest, life);
    Placement(life, e.offset);
    return true;
  }

  bool Deferred(const Event& e) {
    const uint32_t waiting = Waiting(e.instance);
    if (waiting != kNoLife) {
      // A plan for a request the heap already knows: it enters if it was
      // waiting (not if it is a piece of a queued split).
      if (e.offset != kNoOffset && PieceOf(waiting) == kNoLife) Enters(waiting);
      return true;
    }
    // future_placed of a placed id with no release: the future heap's copy.
    if (e.type == EventType::kFuturePlaced) {
      const uint32_t placed = Placed(e.instance);
      if (placed != kNoLife && info_[placed].release == Release::kNone) return true;
    }
    // No plan: the request waits on its creation precondition and enters
    // the allocator at the event that shows it placed or failed.  From a
    // log that is also where a request Realm deferred lands: the log names
    // no plan and no precondition (Realm logs "allocation completed" only
    // when the request is served), so every request without a plan enters
    // at its outcome (docs/replay.md, what it cannot know).
    const bool waits = e.offset == kNoOffset;
    const uint32_t life = NewLife(e.instance, e.size, e.aux, waits ? Phase::kWaiting : Phase::kPending);
    const uint32_t st = AddStep(waits ? StepKind::kRequestWaits : StepKind::kRequest, life);
    info_[life].request_step = st;
    if (waits) {
      info_[life].wait_step = st;
      // Right after the release of a placed life was requested, not ready
      // (or more pieces of it): maybe a piece of that life's deferred split
      // (the decision hooks' pattern, confirmed at the release).  A log
      // names a split's pieces only in its redistrict group, and heap
      // observation announces them before the old release (ReleaseRequested):
      // a request it shows waiting after a release request is no piece of it.
      if (!from_log_ && e.type == EventType::kDeferred && candidate_old_ != kNoLife &&
          last_wait_or_release_ + 1 == seq_ &&
          info_[candidate_old_].phase == Phase::kPlaced &&
          info_[candidate_old_].release == Release::kPending)
        LinkPiece(life, candidate_old_);
      last_wait_or_release_ = seq_;
    }
    return true;
  }

  bool Failed(const Event& e, std::string* error) {
    uint32_t life = Waiting(e.instance);
    if (life != kNoLife) {
      if (!from_log_) SplitAtAPiecesFailure(life);
      const bool eventual = info_[life].phase == Phase::kPending &&
                            (e.type == EventType::kDeferredFailed ||
                             (e.type == EventType::kRequestFailed && e.offset == 1));
      Enters(life);
      Failure(life, eventual);
      MarkMaybeCancelled(life, e);
      info_[life].piece_of = kNoLife;
      return true;
    }
    if (e.type == EventType::kDeferredFailed) return Unknown(e, error);
    // A request that failed at once.  From a log, a failed redistrict piece
    // has no size: it cannot be replayed.
    if (e.type == EventType::kAllocationFailed && e.size == 0 && from_log_) {
      ++unknown_size_failures_;
      not_replayed_.insert(e.instance);  // Realm destroys it too
      return true;
    }
    life = NewLife(e.instance, e.size, e.aux, Phase::kPending);
    AddStep(StepKind::kRequest, life);
    Failure(life, false);
    MarkMaybeCancelled(life, e);
    return true;
  }

  // A log's failure it cannot tell from a cancellation (event.h
  // kFailureMaybeCancelled): the replay still asks for it (Realm may have),
  // but the run's failures do not count it (replay.h).
  void MarkMaybeCancelled(uint32_t life, const Event& e) {
    s_.lives[life].recorded_maybe_cancelled =
        (e.type == EventType::kAllocationFailed || e.type == EventType::kDeferredFailed) &&
        (e.offset & kFailureMaybeCancelled) != 0;
  }

  bool ReleaseRequested(const Event& e) {
    const ReleaseState release = EventReleaseState(e);
    // Cancelled: the life whose release is queued.
    if (release == ReleaseState::kCancelled) {
      for (uint32_t life : LivesOf(e.instance)) {
        if (info_[life].release != Release::kNone && info_[life].release_step != kNoStep) {
          AddStep(StepKind::kReleaseCancelled, life);
          info_[life].release = Release::kNone;
          info_[life].release_step = kNoStep;
          return true;
        }
      }
      return true;
    }
    const bool ready = release == ReleaseState::kReady;
    // A queued release becoming ready.
    for (uint32_t life : LivesOf(e.instance)) {
      if (info_[life].release == Release::kPending) {
        if (ready) {
          AddStep(StepKind::kReleaseReady, life);
          info_[life].release = Release::kReady;
        }
        return true;
      }
    }
    uint32_t life = Placed(e.instance);
    if (life == kNoLife || info_[life].release != Release::kNone) {
      const uint32_t waiting = Waiting(e.instance);
      if (waiting != kNoLife && info_[waiting].release == Release::kNone) life = waiting;
      else if (life != kNoLife && info_[life].release != Release::kNone) return true;
    }
    if (life == kNoLife) {
      // A failed instance's destroy releases nothing, but for one the log
      // cannot tell from a cancellation: the replay asks for that one
      // (Realm may have), and one it placed is released where Realm
      // destroyed the instance, not held to the end.
      const uint32_t failed = Find(e.instance, {Phase::kFailed});
      if (failed != kNoLife && s_.lives[failed].recorded_maybe_cancelled &&
          info_[failed].release == Release::kNone) {
        info_[failed].release_step = AddStep(StepKind::kRelease, failed, ready);
        info_[failed].release = ready ? Release::kReady : Release::kPending;
      }
      return true;
    }
    info_[life].release_step = AddStep(StepKind::kRelease, life, ready);
    info_[life].release = ready ? Release::kReady : Release::kPending;
    const bool old_waits = info_[life].phase == Phase::kWaiting || info_[life].phase == Phase::kPending;
    candidate_old_ = info_[life].phase == Phase::kPlaced ? life : kNoLife;
    last_wait_or_release_ = seq_;
    // Heap observation announces a split's pieces just before the old
    // release: the waiting requests of the events right before this one,
    // also when the old life itself still waits (a delayed redistrict).
    // A log names a split's pieces only in its redistrict group.
    if (!from_log_ && (candidate_old_ != kNoLife || old_waits)) {
      uint64_t expect = seq_;
      for (size_t k = s_.steps.size() - 1; k-- > 0;) {
        const ReplayStep& st = s_.steps[k];
        if (dead_[k] || st.kind != StepKind::kRequestWaits || st.sequence + 1 != expect) break;
        if (st.life != life && info_[st.life].phase == Phase::kWaiting &&
            info_[st.life].piece_of == kNoLife) {
          LinkPiece(st.life, life);
          info_[life].delayed_split = old_waits;
        }
        expect = st.sequence;
      }
    }
    return true;
  }

  std::vector<uint32_t> LivesOf(uint64_t instance) const {
    auto it = open_.find(instance);
    if (it == open_.end()) return {};
    return std::vector<uint32_t>(it->second.rbegin(), it->second.rend());
  }

  bool Released(const Event& e, std::string* error) {
    uint32_t life = Placed(e.instance);
    if (life == kNoLife) {
      // A pending or waiting request released: cancelled (decision hooks).
      const uint32_t waiting = Waiting(e.instance);
      if (waiting != kNoLife) {
        if (info_[waiting].release == Release::kNone)
          AddStep(StepKind::kRelease, waiting, true);
        else if (info_[waiting].release == Release::kPending)
          AddStep(StepKind::kReleaseReady, waiting);
        s_.lives[waiting].recorded = RecordedOutcome::kCancelled;
        Close(waiting);
        return true;
      }
      const uint32_t failed = Find(e.instance, {Phase::kFailed});
      if (failed != kNoLife) {
        // (A maybe-cancelled one the replay may hold: ReleaseRequested.)
        if (s_.lives[failed].recorded_maybe_cancelled) {
          if (info_[failed].release == Release::kNone) AddStep(StepKind::kRelease, failed, true);
          else if (info_[failed].release == Release::kPending) AddStep(StepKind::kReleaseReady, failed);
        }
        Close(failed);
        return true;
      }
      if (not_replayed_.erase(e.instance) > 0) return true;  // a failed piece
      return Unknown(e, error);
    }
    if (e.type == EventType::kReleased && DecisionSplit(life)) return true;
    if (e.type == EventType::kHeapRemoved && group_type_ == EventType::kHeapSwapped &&
        SwappedSplit(life))
      return true;
    if (info_[life].release == Release::kNone) AddStep(StepKind::kRelease, life, true);
    else if (info_[life].release == Release::kPending) AddStep(StepKind::kReleaseReady, life);
    UnlinkPieces(life);
    Close(life);
    return true;
  }

  void LinkPiece(uint32_t piece, uint32_t old) {
    info_[piece].piece_of = old;
    LifeInfo& o = info_[old];
    if (o.first_piece == kNoLife || piece < o.first_piece) o.first_piece = piece;
    if (o.last_piece == kNoLife || piece > o.last_piece) o.last_piece = piece;
  }
  // A plain release of `old` disproves every provisional piece of its split
  // (oracle seed 259 of a master run: a request waiting on its own
  // precondition, shown right before a destroy, stayed a "piece" of the
  // destroyed instance and was replayed as a new request when placed).
  void UnlinkPieces(uint32_t old) {
    LifeInfo& o = info_[old];
    if (o.first_piece == kNoLife) return;
    for (uint32_t l = o.first_piece; l <= o.last_piece; ++l)
      if (info_[l].piece_of == old) info_[l].piece_of = kNoLife;
    o.first_piece = o.last_piece = kNoLife;
  }

  // Realm's release reordering applies a queued split in the heap it swaps
  // in: the swap removes the old range and places the pieces it can
  // (heap_placed records of the same group).  A release of a life with
  // pieces announced is that split (oracle seed 40 of a master run), not a
  // release followed by requests of their own.
  bool SwappedSplit(uint32_t old) {
    const std::vector<uint32_t> pieces = AnnouncedPieces(old);
    if (pieces.empty() || info_[old].release_step == kNoStep || info_[old].split_made) return false;
    RewriteAsSplit(old, pieces);
    for (uint32_t p : pieces) info_[p].piece_of = kNoLife;  // placed by the records that follow
    Close(old);
    return true;
  }

  // The decision hooks' deferred redistrict: `old` is released and the
  // events right after complete or fail exactly the requests deferred with
  // no plan right after its release was requested.
  bool DecisionSplit(uint32_t old) {
    const std::vector<uint32_t> pieces = AnnouncedPieces(old);
    if (pieces.empty() || info_[old].release_step == kNoStep) return false;
    size_t k = index_ + 1;
    for (uint32_t p : pieces) {
      if (k >= events_.size()) return false;
      const Event& n = events_[k++];
      if (n.instance != s_.lives[p].instance ||
          (n.type != EventType::kDeferredCompleted && n.type != EventType::kDeferredFailed))
        return false;
    }
    RewriteAsSplit(old, pieces);
    for (uint32_t p : pieces) info_[p].piece_of = kNoLife;  // completed by the events
    Close(old);
    return true;
  }

  // The old life's queued release becomes a split into `pieces` (their
  // wait steps go; they are consecutive lives, as made); the split happens
  // now.  Pieces keep waiting until their placements are read.  At least
  // one piece (a split into nothing is a release).
  void RewriteAsSplit(uint32_t old, const std::vector<uint32_t>& pieces) {
    assert(!pieces.empty());
    ReplayStep& st = s_.steps[info_[old].release_step];
    const bool was_ready = st.ready;
    st.kind = StepKind::kRedistrict;
    st.first_piece = pieces.front();
    st.piece_count = static_cast<uint32_t>(pieces.size());
    for (uint32_t p : pieces) {
      if (info_[p].wait_step != kNoStep) dead_[info_[p].wait_step] = true;
      info_[p].phase = Phase::kPending;  // in the split
    }
    if (!was_ready) AddStep(StepKind::kReleaseReady, old);
  }

  // The waiting requests announced right before the old release are not
  // all the split's: a request waiting on its own precondition may have
  // been shown just before the pieces (oracle seed 19 of a master run).
  // The split's pieces are the ones its group places and then the ones
  // whose failures follow the group at once (split_range stops at the
  // first piece that does not fit); the others are requests of their own.
  // When neither names an announced one, all stay (a split none of whose
  // pieces the history shows).
  void KeepTheSplitsPieces(const std::vector<const Event*>& placed,
                           std::vector<uint32_t>* announced) {
    if (announced->empty()) return;
    absl::flat_hash_set<uint64_t> split;
    for (const Event* r : placed) split.insert(r->instance);
    for (size_t k = index_ + 1; k < events_.size(); ++k) {
      const Event& n = events_[k];
      if (n.type != EventType::kRequestFailed) break;
      split.insert(n.instance);
    }
    std::vector<uint32_t> kept;
    for (uint32_t l : *announced)
      if (split.contains(s_.lives[l].instance)) kept.push_back(l);
    if (kept.empty() || kept.size() == announced->size()) return;
    for (uint32_t l : *announced)
      if (!split.contains(s_.lives[l].instance)) info_[l].piece_of = kNoLife;
    announced->swap(kept);
  }

  // A piece announced for a split fails before the split's group: Realm
  // planned the split in its future heap when the release was requested
  // (ready), and failed at once the pieces that plan could not place; the
  // group comes when the current heap catches up.  The release step is the
  // split, of every announced piece; the group places the pieces it names.
  void SplitAtAPiecesFailure(uint32_t life) {
    const uint32_t old = PieceOf(life);
    if (old == kNoLife || info_[life].phase != Phase::kWaiting) return;
    if (info_[old].phase != Phase::kPlaced || info_[old].release_step == kNoStep ||
        info_[old].split_made)
      return;
    RewriteAsSplit(old, AnnouncedPieces(old));
    info_[old].split_made = true;
  }
  std::vector<uint32_t> AnnouncedPieces(uint32_t old) const {
    std::vector<uint32_t> pieces;
    for (uint32_t l = old + 1; l < s_.lives.size(); ++l)
      if (info_[l].piece_of == old && info_[l].phase == Phase::kWaiting) pieces.push_back(l);
    return pieces;
  }

  bool FlushSplit(std::string* error) {
    const uint32_t old = Placed(group_old_);
    if (old != kNoLife && info_[old].split_made) {
      // The split is made (SplitAtAPiecesFailure): its pieces are placed.
      for (const Event& r : group_) {
        for (uint32_t l = old + 1; l < s_.lives.size(); ++l) {
          if (info_[l].piece_of != old || s_.lives[l].instance != r.instance ||
              info_[l].phase != Phase::kPending)
            continue;
          Placement(l, r.offset);
          info_[l].piece_of = kNoLife;
          break;
        }
      }
      for (uint32_t l = old + 1; l < s_.lives.size(); ++l)
        if (info_[l].piece_of == old) info_[l].piece_of = kNoLife;
      Close(old);
      return true;
    }
    std::vector<const Event*> placed;
    for (const Event& r : group_) placed.push_back(&r);
    // A log's tighter bound: one piece, the same instance, the same start.
    // Never looser than what the replay holds already: a zero-byte piece
    // (one placed outside its old range) stays zero bytes whatever room
    // the rebuild's bound gives it.
    if (from_log_ && group_type_ == EventType::kRedistrict && placed.size() == 1 &&
        placed[0]->instance == group_old_ && old != kNoLife) {
      ReplayLife& piece = s_.lives[old];
      if (placed[0]->size >= piece.size) return true;  // no tighter
      ++bound_refinements_;
      if (!piece.size_known && info_[old].release != Release::kNone && ReleasedNext(old)) {
        // Not a bound: the placements that follow were served by the
        // piece's release, which the log gives after them (ReleasedLater).
        --bound_refinements_;
        release_first_.insert(old);
        return true;
      }
      if (!piece.size_known && piece.recorded_offset == placed[0]->offset &&
          last_pieces_.count(old) && info_[old].release != Release::kNone) {
        // Its release is queued: Realm's queue owns the range, and a split
        // now would leave the bound's room held.  A piece's size never
        // changes, so the bound holds from its placement on; the last
        // piece of a split has none after it for the model's split rule
        // to move.
        piece.size = placed[0]->size;
        return true;
      }
      bounded_[placed[0]->offset] = SplitToBound(old, placed[0]->size);
      return true;
    }
    if (old == kNoLife) {
      if (group_type_ == EventType::kHeapSplit && placed.empty()) return true;
      for (const Event* r : placed) {
        Event as_placed = *r;
        as_placed.type = EventType::kHeapPlaced;
        if (!Placed(as_placed, error)) return false;
      }
      s_.notes.push_back("event " + std::to_string(EventNumber(seq_)) + ": a split of " + Hex(group_old_) +
                         ", which the replay does not hold; its pieces replay as requests");
      return true;
    }
    // The pieces announced as waiting with the old release (heap
    // observation), in order: the placed ones lead, the rest failed.
    std::vector<uint32_t> announced = AnnouncedPieces(old);
    if (!from_log_) KeepTheSplitsPieces(placed, &announced);
    bool use_announced = !announced.empty() && announced.size() >= placed.size() &&
                         info_[old].release_step != kNoStep;
    for (size_t i = 0; use_announced && i < placed.size(); ++i)
      use_announced = s_.lives[announced[i]].instance == placed[i]->instance;
    if (use_announced) {
      const uint32_t split_step = info_[old].release_step;
      RewriteAsSplit(old, announced);
      for (size_t i = 0; i < placed.size(); ++i) {
        Placement(announced[i], placed[i]->offset);
        QueueDelayedSplit(announced[i]);
        RequeueEarlyRelease(announced[i], split_step);
      }
      for (size_t i = placed.size(); i < announced.size(); ++i) info_[announced[i]].piece_of = kNoLife;
      Close(old);
      return true;
    }
    // An immediate split: new consecutive lives.  From a log, pieces of a
    // split that waited were shown as requests of unknown size: these are
    // the same requests, made by the split.
    if (from_log_) {
      for (const Event* r : placed) {
        const uint32_t w = Waiting(r->instance);
        if (w == kNoLife) continue;
        if (info_[w].request_step != kNoStep) dead_[info_[w].request_step] = true;
        s_.lives[w].recorded = RecordedOutcome::kCancelled;
        Close(w);
      }
    }
    // A log's piece outside the old range is a zero-byte one: Realm gives
    // those offset 0 (split_range), and the rebuild's bound for it, up to
    // the next piece's start, is room of the old range's pieces.
    const uint64_t old_start = s_.lives[old].recorded_offset;
    const uint64_t old_end = old_start + s_.lives[old].size;
    // Two pieces at one start (the old range starts at 0): one of them is
    // a zero-byte piece, which the log cannot tell apart; the later one
    // replays as it (both are upper bounds, not checked; the room is the
    // same either way, only which destroy frees it differs).
    std::vector<uint32_t> pieces;
    for (size_t i = 0; i < placed.size(); ++i) {
      const Event* r = placed[i];
      bool zero = from_log_ && (r->offset < old_start || r->offset >= old_end);
      for (size_t j = 0; from_log_ && !zero && j < i; ++j) zero = placed[j]->offset == r->offset;
      pieces.push_back(NewLife(r->instance, zero ? 0 : r->size, r->aux, Phase::kPending));
    }
    // A release requested before the group (queued, or ready: heap
    // observation shows the request, then the split) was the split; a step
    // after it found the old range already given back and replayed the
    // pieces as requests of their own (oracle seed 334 of a master run).
    const bool requested = info_[old].release_step != kNoStep && info_[old].release != Release::kNone;
    if (requested && pieces.empty()) {
      // A split into nothing (every piece failed, or a log's release
      // written as a redistrict with no piece): the release, ready.
      if (info_[old].release == Release::kPending) AddStep(StepKind::kReleaseReady, old);
    } else if (requested) {
      RewriteAsSplit(old, pieces);
    } else if (!pieces.empty()) {
      const uint32_t st = AddStep(StepKind::kRedistrict, old, true);
      s_.steps[st].first_piece = pieces.front();
      s_.steps[st].piece_count = static_cast<uint32_t>(pieces.size());
    } else {
      AddStep(StepKind::kRelease, old, true);
    }
    for (size_t i = 0; i < placed.size(); ++i) {
      Placement(pieces[i], placed[i]->offset);
      if (from_log_) {
        s_.lives[pieces[i]].size_known = false;
        bounded_[placed[i]->offset] = pieces[i];
      }
    }
    if (from_log_ && !pieces.empty()) last_pieces_.insert(pieces.back());
    Close(old);
    return true;
  }

  void Finish() {
    // Dead steps out, in order.
    size_t w = 0;
    for (size_t r = 0; r < s_.steps.size(); ++r)
      if (!dead_[r]) s_.steps[w++] = s_.steps[r];
    s_.steps.resize(w);
    // One note per kind of event the replay reads otherwise than as a
    // request, with how many.
    auto note = [&](uint64_t count, const char* what) {
      if (count) s_.notes.push_back(std::to_string(count) + what);
    };
    note(reservations_,
         " reservation event(s) (pools, upper bounds): not requests to "
         "Realm's allocator; the instances that hold them replay as "
         "the allocations they are");
    note(unknown_size_failures_, " failed redistrict piece(s) of unknown size: not replayed");
    note(externals_,
         " external instance(s) (placed outside the memory's range: "
         "an address, not an offset): they hold nothing of Realm's "
         "allocator and are not replayed");
    note(postponed_count_,
         " placement(s) the log records before the release that made "
         "their room (Realm serves the requests queued behind a release "
         "before it logs the release): replayed after it");
    note(bound_refinements_,
         " tighter bound(s) on a piece's size from later placements: "
         "replayed as splits of the piece, or, for a last piece whose "
         "release is queued, at that size from its placement on");
  }

  const Snapshot& base_;
  const std::vector<Event>& events_;
  const std::vector<Identity>& identities_;
  const bool from_log_;
  ReplayScript& s_;
  std::vector<uint32_t> size_unknown_identities_;
  std::vector<LifeInfo> info_;
  absl::flat_hash_map<uint64_t, absl::InlinedVector<uint32_t, 2>> open_;
  std::vector<bool> dead_;
  uint64_t seq_ = 0;
  size_t index_ = 0;
  // The open split group.
  EventType group_type_ = EventType::kNoop;
  uint64_t group_old_ = 0;
  uint32_t group_left_ = 0;
  std::vector<Event> group_;
  std::vector<Event> between_;
  // Pieces announced right after a release request.
  uint32_t candidate_old_ = kNoLife;
  uint64_t last_wait_or_release_ = UINT64_MAX - 1;
  uint64_t reservations_ = 0;
  uint64_t unknown_size_failures_ = 0;
  uint64_t externals_ = 0;
  // Ids of those failed pieces and of external instances, until released
  // or reused.
  absl::flat_hash_set<uint64_t> not_replayed_;
  uint64_t bound_refinements_ = 0;
  // A log's pieces placed last in their split: bounded by the old range's
  // end, no piece after them for the model's split rule to move.
  absl::flat_hash_set<uint32_t> last_pieces_;
  // A log's pieces whose tighter bound was the order of their release
  // (ReleasedNext): the placements in their room wait for that release.
  absl::flat_hash_set<uint32_t> release_first_;
  // A log's placed pieces of upper-bound size, by their start.
  std::map<uint64_t, uint32_t> bounded_;
  // A log's placed lives of more than 0 bytes, by (offset, life).
  std::set<std::pair<uint64_t, uint32_t>> known_ranges_;
  // Placements that wait for the release of the range they lie in
  // (ReleasedLater), with that range's life.
  std::vector<std::pair<Event, uint32_t>> postponed_;
  bool applying_postponed_ = false;
  uint64_t postponed_count_ = 0;
};

}  // namespace

absl::StatusOr<ReplayScript> CompileEvents(const Snapshot& base,
                                           const std::vector<Event>& events,
                                           const std::vector<Identity>& identities,
                                           bool from_log) {
  ReplayScript script;
  Compiler c(base, events, identities, from_log, &script);
  std::string error;
  if (!c.Run(&error)) return absl::InvalidArgumentError(error);
  return script;
}

}  // namespace whatif
}  // namespace realm_shadow
