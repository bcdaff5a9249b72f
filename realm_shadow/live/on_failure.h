// realm_shadow/live/on_failure.h - dump on failure: when an allocation fails
// (instant or eventual), write that memory's dump and print a short report
// to stderr, in the runtime's vocabulary.
//
// Layer live.  Off unless the environment asks for it:
//   REALM_SHADOW_DUMP_DIR=dir   where dumps go; unset or empty: off
//   REALM_SHADOW_DUMP_LIMIT=n   dumps per memory per run (default 4); the
//                               report is still printed after the limit
//   REALM_SHADOW_DUMP_EVERY_MS=n  also dump every n ms (periodic.cc): each
//                               memory whose events moved since its last
//                               periodic dump, into
//                               <dir>/realm-shadow-node<N>-periodic-<k>.rsd
//                               (at most 1000 files per run)
// Dumps are named <dir>/realm-shadow-node<N>-mem<hexid>-<k>.rsd, k counting
// from 1 per memory, N from REALM_SHADOW_NODE (recorder/recorder.h Options()).  Every
// dump is announced through the log sink (log_sink.h) so that it can be
// lined up with the host's log.
//
// Installation is automatic: on_failure.cc holds a static initializer that
// calls InstallDumpOnFailure() when the library is loaded.  In a shared
// library that always happens; a static archive must be linked so that the
// object is kept (link with -Wl,-u,realm_shadow_live_on_failure_anchor, or
// call InstallDumpOnFailure() yourself).
//
// Cost: nothing on the allocation path.  At a failure, one snapshot of the
// memory (live x 32 B), the report's analysis of it (holes, cause, blockers:
// linear), and one streamed write through a 64 KiB stack buffer with its
// fsync and rename, all on the failing thread, at most
// REALM_SHADOW_DUMP_LIMIT times per memory.  Measured stall
// (bench/on_failure_benchmark.cc, BM_DumpOnFailure, RelWithDebInfo, 2-vCPU
// KVM guest at load 8, dumps on the guest's disk): 5.3 ms at 1k live
// allocations (0.4 ms of it CPU: the rest is waiting for fsync), 18.8 ms at
// 100k (6.2 ms CPU), of which the report is 0.06 ms and 7.8 ms
// (BM_FailureReport; 2.7 ms CPU) and the rest the snapshot and the file.
//
// Why on the failing thread, and not handed to another one:
//  - The dump must exist before the process may end.  Without a profiling
//    request Realm aborts right after it reports the failure, on this
//    thread; a writer elsewhere would lose that race unless this thread
//    waited for it, which is the same stall.
//  - The picture must be the memory at the failure.  The snapshot has to be
//    taken before this thread goes back into Realm, which may then release
//    or place more; only the analysis and the write could move, and they
//    are what the abort would cut short.
//  - Who waits: with the heap-observer integration (realm_sites.h,
//    AllocationOutcome at notify_allocation) this thread holds no Realm
//    lock, so only it waits.  A decision-hook caller may hold the memory's
//    allocator_mutex: then that memory's other allocations wait as long,
//    at most REALM_SHADOW_DUMP_LIMIT (default 4) times per memory per run.
#ifndef REALM_SHADOW_LIVE_ON_FAILURE_H_
#define REALM_SHADOW_LIVE_ON_FAILURE_H_

#include <cstdint>
#include <string>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(live);

// Reads REALM_SHADOW_DUMP_DIR and REALM_SHADOW_DUMP_LIMIT and, when a
// directory is named, installs the failure observer (recorder/recorder.h
// SetFailureObserver).  Returns whether it is on.  Calling it again rereads
// the environment (tests change it); per-memory dump counts are kept.
bool InstallDumpOnFailure();

// The periodic writer (REALM_SHADOW_DUMP_EVERY_MS); InstallDumpOnFailure
// starts it when the environment asks.  Start is idempotent and false for
// an empty dir or a zero period; Stop joins the thread (also at exit).
bool StartPeriodicDumps(const std::string& dir, unsigned period_ms);
void StopPeriodicDumps();


}  // namespace realm_shadow

extern "C" {
// Referenced by a linker -u option to keep on_failure.o in a static link.
extern const int realm_shadow_live_on_failure_anchor;
}

#endif  // REALM_SHADOW_LIVE_ON_FAILURE_H_
