// whatif/compile.h - a memory's history turned into the steps a replay
// runs (replay.h): which request entered the allocator when, which release
// was requested, became ready or was cancelled, which range was split.
//
// The history holds what the shadow applied (core/event.h); the
// replay needs what the program asked of the allocator.  How each event
// kind is read (snapshot.h gives their meaning):
//  - allocated, heap_placed of an id with no request waiting: a request
//    that entered and was placed at once, at the recorded offset.
//  - deferred with a plan, future_placed with an offset for an id with no
//    request yet: a request that entered and was deferred.  deferred or
//    future_placed without a plan (kNoOffset): a request waiting on its
//    creation precondition, which enters at the next event that shows it
//    in a heap or failed.  From a log that is also a request Realm
//    deferred: the log names neither precondition nor plan, and Realm
//    plans nothing for a request whose precondition has not fired, so a
//    request read as deferred would take room Realm never gave it
//    (docs/replay.md, what it cannot know).
//  - deferred_completed, heap_placed of a waiting id: its placement.
//    deferred_failed, request_failed, allocation_failed: its failure.
//    From a log, a placement inside a range of known size that a later
//    event releases or redistricts is applied after that release: Realm
//    logs the requests a release serves before the release itself.
//  - release_requested 0 / 1 / 2: a release requested (not ready / ready),
//    ready, or cancelled; released and heap_removed: ready (if not yet).
//  - redistrict (and heap_split) groups: a split of the old life's range.
//    Deferred redistricts as the decision hooks report them (the old
//    release requested, the pieces deferred with no plan, later the old
//    released and the pieces completed) are recognised by that pattern;
//    as heap observation reports them (the pieces waiting, the old release
//    requested, later the split) by the split; a request guessed a piece
//    that way is a request again once the old range is released whole.
//    A one-piece redistrict of an instance into itself is a log's tighter
//    bound on a piece's size, replayed as that split and left out of the
//    self-check (the last piece of a split whose release is queued takes
//    the tighter size from its placement on instead; one that only the
//    placements its queued release served and that release follow is
//    that release's order, no bound).  Of two pieces a
//    log places at one start, the later is the zero-byte one.
//  - a placement outside the memory's range (its capacity known, 0
//    included): an external instance, whose "offset" Realm makes its
//    address minus the memory's base; it holds nothing of the allocator
//    and is not replayed (counted in a note).  Realm destroys failed and
//    cancelled instances too: their release changes nothing.
//  - reserved / reservation_ended: not requests to Realm's allocator (a
//    pool's backing instance is one, and replays as one); counted.
//  - attach_identity: the identity of the life, and whether its size is
//    only an upper bound (realm_log.h's "size" attribute).
// A history that starts later than the run (a base snapshot after the ring
// wrapped) starts from that snapshot: its live allocations are placed where
// it shows them, its pending requests enter first, then its pending
// releases are requested (ScriptNotes says so).
//
// Cost: O(events) with a hash lookup each, plus a look ahead of at most a
// redistrict's pieces at a release; from a log, an ordered-set lookup per
// placement and, when it lies in a range of known size, a look ahead of
// at most 256 events.
#ifndef WHATIF_COMPILE_H_
#define WHATIF_COMPILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/core/event.h"
#include "realm_shadow/core/identity.h"
#include "whatif/replay.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(whatif);
namespace whatif {

// The steps of `events`, the events that follow `base` (base.sequence is
// the first one's number), with the identities they refer to.  from_log:
// the events were rebuilt from a Realm log (ingest-realm-log).
// InvalidArgument when the events cannot be read as one run (a request
// completed or released that no earlier event made, and the base does not
// hold either: a history with a hole in it).
absl::StatusOr<ReplayScript> CompileEvents(const Snapshot& base,
                                           const std::vector<Event>& events,
                                           const std::vector<Identity>& identities,
                                           bool from_log);

}  // namespace whatif
}  // namespace realm_shadow

#endif  // WHATIF_COMPILE_H_
