// whatif/report.h - one memory's what-if replay as `realm-shadow replay`
// prints it, as JSON, and as the page's side-panel table.
//
// ReplayMemory runs what the command asks: the self-check (realm at the
// run's capacity, always, when the capacity is known), each policy at the
// replay's capacity, and with min_capacity FindMinCapacity per policy.
// Text and JSON say the same things (docs/cli.md): per policy whether every
// failure of the run is avoided, the first failure (event, time, request,
// identity), peak used, peak largest-hole deficit, fragmentation at the
// run's first failure, the smallest capacity and how it was searched; and
// always the lower bound, the peak of live bytes.
#ifndef WHATIF_REPORT_H_
#define WHATIF_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "realm_shadow/page/html_page.h"
#include "whatif/replay.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(whatif);
namespace whatif {

struct ReplayQuestion {
  std::vector<PlacementPolicy> policies;  // empty: every policy
  uint64_t capacity = 0;                  // 0: the run's
  bool min_capacity = false;
  // Keep each policy's map at the moment the page shows (the run's first
  // failure, else the policy's own, else the end).
  bool maps = false;
};

struct PolicyAnswer {
  ReplayResult result;
  bool min_searched = false;
  MinCapacity min;
};

struct MemoryAnswer {
  ReplayScript script;
  uint64_t capacity = 0;      // the replay's
  bool self_checked = false;  // realm at the run's capacity was run
  ReplayResult self_check;
  uint64_t lower_bound = 0;
  std::vector<PolicyAnswer> policies;
};

// The answer, or InvalidArgument when the script cannot be replayed at all
// (no capacity known and none given, a script RunReplay refuses).
absl::StatusOr<MemoryAnswer> ReplayMemory(ReplayScript script,
                                          const ReplayQuestion& question);

// "self-check: 48/48 placements as recorded" (+ "; 3 not checkable: sizes
// unknown", + "; 2 differ: ..." listing the first).
std::string FormatSelfCheck(const ReplayScript& script, const SelfCheck& check);
// The first failure of a result on one line, or "none".
std::string FormatFirstFailure(const ReplayScript& script, const ReplayResult& r);
// The whole answer as text (docs/cli.md has a sample).
std::string FormatMemoryAnswer(const MemoryAnswer& answer);
// As one JSON object.
std::string MemoryAnswerJson(const MemoryAnswer& answer);
// As the page's table (with the maps when the question asked for them).
PageReplay ToPageReplay(const MemoryAnswer& answer);

}  // namespace whatif
}  // namespace realm_shadow

#endif  // WHATIF_REPORT_H_
