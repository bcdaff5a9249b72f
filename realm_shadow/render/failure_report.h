// realm_shadow/render/failure_report.h - the report of one failed
// allocation, as the live side prints it at the moment of failure and the
// command prints it from a dump.
//
// Layer render: text from a snapshot, nothing live.  Cost: the holes, the
// cause and the blocker window of one snapshot (linear in its allocations).
#ifndef REALM_SHADOW_RENDER_FAILURE_REPORT_H_
#define REALM_SHADOW_RENDER_FAILURE_REPORT_H_

#include <cstdint>
#include <string>

#include "realm_shadow/core/snapshot.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(render);

// The report printed at a failure, several lines ending in '\n': the memory,
// the request (from the snapshot's most recent failure of `instance`),
// capacity, used, total free, largest hole, fragmentation, the cause
// (fragmentation or exhaustion) and the blocker window with its
// allocations' kinds and identities.  The CLI and legion_glue print the same
// text.
// Sizes are written by FormatHumanSize / FormatSizeExact (snapshot.h), as in
// every other report.
std::string FormatFailureReport(const Snapshot& snapshot, uint64_t instance);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_RENDER_FAILURE_REPORT_H_
