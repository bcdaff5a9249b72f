// realm_shadow_demo - the main job on built-in data: a Legate-like workload
// on model system, framebuffer and zero-copy memories, run until a deferred
// allocation fails (see testing/workload.h for the scenario: a
// 192 MiB array deferred behind the releases of a task that then faults).
// The failure writes its dump and prints the failure report (dump on
// failure, REALM_SHADOW_DUMP_DIR); at the end every memory is dumped to one
// file too.  Then, from the history the failure's dump carries: its trace
// (OUT_DIR/demo-failure-trace.json, for ui.perfetto.dev), its page with
// the time strip (OUT_DIR/demo-failure.html), and, last, the timeline of
// the memory that failed: how it got there; and its replay: whether best
// fit, or any other placement, would have avoided it, and the smallest
// capacity under each.
//
// Every instance the workload creates carries its Legion/Legate identity,
// interned and attached through legion_glue (what Legion's
// create_physical_instance, create_task_local_instance, create_future_instance
// and create_memory_pool would do), so the reports name the blockers as
// stores, tiles, task-local buffers, futures and pool backing.  One thread
// drives the memories and attaches, so the memories stay SERIALIZED.
//
// usage: realm_shadow_demo OUT_DIR [SEED]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "legion_glue/identity.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/live/on_failure.h"
#include "absl/strings/numbers.h"
#include "realm_shadow/page/html_page.h"
#include "realm_shadow/render/timeline.h"
#include "realm_shadow/render/trace.h"
#include "testing/workload.h"
#include "realm_shadow/live/snapshots.h"
#include "whatif/from_dump.h"
#include "whatif/report.h"
#include "realm_shadow/live/dump.h"

namespace {

namespace legion = realm_shadow::legion;
using realm_shadow::AllocationKind;
using realm_shadow::model::InstanceDescription;
using realm_shadow::model::InstanceRole;

AllocationKind KindOf(InstanceRole role) {
  switch (role) {
    case InstanceRole::kArray:
    case InstanceRole::kTile: return AllocationKind::kRegionInstance;
    case InstanceRole::kTaskLocalBuffer:
    case InstanceRole::kStagingBuffer: return AllocationKind::kDeferredBuffer;
    case InstanceRole::kFuture: return AllocationKind::kFuture;
    case InstanceRole::kPoolBacking: return AllocationKind::kPoolBacking;
  }
  return AllocationKind::kUnknown;
}

// Interns the description as a Legate store held by a Legion instance and
// attaches it with its GC state: valid while the program holds it,
// collectable once dropped (the blocker query may propose those).
void AttachDescription(const InstanceDescription& d) {
  legion::LegateStoreDescription store;
  legion::LegionInstanceDescription facts;
  facts.kind = KindOf(d.role);
  for (const auto& [key, value] : d.attributes) {
    if (key == realm_shadow::kStoreAttribute) store.store = value;
    else if (key == realm_shadow::kShapeAttribute) store.shape = value;
    else if (key == realm_shadow::kTypeAttribute) store.type = value;
    else if (key == realm_shadow::kTransformAttribute) store.transform = value;
    else if (key == realm_shadow::kPartitionAttribute) store.partition = value;
    else if (key == realm_shadow::kProvenanceAttribute) store.provenance = value;
    else if (key == realm_shadow::kCreatorAttribute) facts.creator = value;
    else facts.extra.emplace_back(key, value);
  }
  facts.extra.insert(facts.extra.begin(),
                     {"role", realm_shadow::model::InstanceRoleName(d.role)});
  const uint32_t id = legion::InternLegateStore(store, facts.kind, &facts);
  legion::AttachIdentity(d.shadow, d.instance, id,
                         d.collectable ? legion::GcState::kCollectable
                                       : legion::GcState::kValid);
}

// The failed memory's run again under every placement policy, with the
// smallest capacity under each: would another allocator have saved it?
int ShowReplay(const realm_shadow::DumpFile& dump, const realm_shadow::Snapshot& memory,
               const std::string& path) {
  namespace whatif = realm_shadow::whatif;
  whatif::ReplayQuestion question;
  question.min_capacity = true;
  absl::StatusOr<whatif::ReplayScript> script = whatif::ScriptOfDumpMemory(dump, memory);
  absl::StatusOr<whatif::MemoryAnswer> replayed =
      script.ok() ? whatif::ReplayMemory(*std::move(script), question)
                  : absl::StatusOr<whatif::MemoryAnswer>(script.status());
  if (!replayed.ok()) {
    std::fprintf(stderr, "realm_shadow_demo: replay: %s\n",
                 std::string(replayed.status().message()).c_str());
    return 1;
  }
  const whatif::MemoryAnswer& answer = *replayed;
  std::printf("\nwould another placement, or more memory, have avoided it "
              "(realm-shadow replay %s --min-capacity):\n%s",
              path.c_str(), whatif::FormatMemoryAnswer(answer).c_str());
  for (const whatif::PolicyAnswer& p : answer.policies)
    if (p.result.policy == realm_shadow::model::PlacementPolicy::kBestFit)
      std::printf("best-fit would %s the failure%s\n",
                  p.result.failed() ? "not have avoided" : "have avoided",
                  p.min.found ? ("; under it the run needs " +
                                 realm_shadow::FormatSizeExact(p.min.capacity))
                                    .c_str()
                              : "");
  return 0;
}

// The failure's dump (the first one dump on failure wrote for the memory),
// its trace and page, and its timeline; 1 when any of it cannot be made.
int ShowHistory(const std::string& out_dir, uint64_t memory_id) {
  char name[96];
  std::snprintf(name, sizeof name, "/realm-shadow-node%u-mem%llx-1.rsd",
                realm_shadow::Options().node, (unsigned long long)memory_id);
  const std::string path = out_dir + name;
  absl::StatusOr<realm_shadow::DumpFile> read = realm_shadow::ReadDump(path);
  if (!read.ok()) {
    std::fprintf(stderr, "realm_shadow_demo: %s\n", std::string(read.status().message()).c_str());
    return 1;
  }
  const realm_shadow::DumpFile dump = *std::move(read);
  const std::string trace = out_dir + "/demo-failure-trace.json";
  const std::string page = out_dir + "/demo-failure.html";
  absl::Status made = realm_shadow::WriteTrace({dump}, {path}, trace).status();
  if (made.ok()) made = realm_shadow::WriteHtmlMap({dump}, page);
  if (!made.ok()) {
    std::fprintf(stderr, "realm_shadow_demo: %s\n", std::string(made.message()).c_str());
    return 1;
  }
  std::printf("trace of the failure's history (ui.perfetto.dev): %s\n", trace.c_str());
  std::printf("page with the time strip: %s\n", page.c_str());
  for (const realm_shadow::Snapshot& s : dump.memories) {
    const realm_shadow::MemoryHistory* h = realm_shadow::FindHistory(dump, s);
    if (s.memory_id != memory_id || h == nullptr) continue;
    std::printf("\nhow it got there (realm-shadow timeline %s):\n%s", path.c_str(),
                realm_shadow::FormatTimeline(s, *h, realm_shadow::TimelineOptions()).c_str());
    return ShowReplay(dump, s, path);
  }
  std::fprintf(stderr, "realm_shadow_demo: %s has no history of the memory that failed\n",
               path.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::fprintf(stderr, "usage: %s OUT_DIR [SEED]\n", argv[0]);
    return argc < 2 ? 2 : 0;
  }
  const std::string out_dir = argv[1];
  // Dump on failure into OUT_DIR unless the user chose a directory.
  setenv("REALM_SHADOW_DUMP_DIR", out_dir.c_str(), /*overwrite=*/0);
  realm_shadow::InstallDumpOnFailure();
  realm_shadow::StartDrainer(1000);

  realm_shadow::model::WorkloadOptions options;
  if (argc > 2 && !absl::SimpleAtoi(argv[2], &options.seed)) {
    std::fprintf(stderr, "realm_shadow_demo: SEED '%s' is not a number\n", argv[2]);
    return 2;
  }
  options.describe = AttachDescription;
  realm_shadow::model::Workload workload(options);
  const auto& result = workload.Run();
  realm_shadow::StopDrainer();

  std::printf("workload: %llu task launches, %llu creates, %llu destroys, "
              "%llu redistricts, %llu deferred\n",
              (unsigned long long)result.steps,
              (unsigned long long)result.creates,
              (unsigned long long)result.destroys,
              (unsigned long long)result.redistricts,
              (unsigned long long)result.deferred);
  if (result.closing_ran)
    std::printf("closing: the task in flight faulted; its poisoned completion "
                "cancelled %llu destroys (%llu of dropped arrays and tiles) "
                "that a deferred request counted on\n",
                (unsigned long long)result.cancelled_destroys,
                (unsigned long long)result.dropped_instances);
  if (result.failed) {
    std::printf("stopped at an %s failure: %llu bytes (alignment %llu) in "
                "memory 0x%016llx; free %llu, largest free %llu\n",
                result.failed_after_deferral ? "eventual (deferred)" : "instant",
                (unsigned long long)result.failed_size,
                (unsigned long long)result.failed_alignment,
                (unsigned long long)result.failed_memory,
                (unsigned long long)result.free_at_failure,
                (unsigned long long)result.largest_free_at_failure);
  } else {
    std::printf("no failure within %llu steps\n",
                (unsigned long long)options.max_steps);
  }
  const std::string all = out_dir + "/demo-all-memories.rsd";
  if (const absl::Status dumped = realm_shadow::DumpAllMemories(all); !dumped.ok()) {
    std::fprintf(stderr, "realm_shadow_demo: %s\n", std::string(dumped.message()).c_str());
    return 1;
  }
  std::printf("all memories: %s\n", all.c_str());
  if (!result.failed) return 3;
  return ShowHistory(out_dir, result.failed_memory);
}
