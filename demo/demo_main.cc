// realm_shadow_demo - the main job on built-in data: a Legate-like workload
// on model system, framebuffer and zero-copy memories, run until a deferred
// allocation fails (see model/workload.h for the scenario: a
// 192 MiB array deferred behind the releases of a task that then faults).
// The failure writes its dump and prints the failure report (dump on
// failure, REALM_SHADOW_DUMP_DIR); at the end every memory is dumped to one
// file too.
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
#include "realm_shadow/dump/dump.h"
#include "realm_shadow/dump/on_failure.h"
#include "absl/strings/numbers.h"
#include "model/workload.h"
#include "realm_shadow/analysis/snapshots.h"

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
    if (key == legion::kStoreKey) store.store = value;
    else if (key == legion::kShapeKey) store.shape = value;
    else if (key == legion::kTypeKey) store.type = value;
    else if (key == legion::kTransformKey) store.transform = value;
    else if (key == legion::kPartitionKey) store.partition = value;
    else if (key == legion::kProvenanceKey) store.provenance = value;
    else if (key == legion::kCreatorKey) facts.creator = value;
    else facts.extra.emplace_back(key, value);
  }
  facts.extra.insert(facts.extra.begin(),
                     {"role", realm_shadow::model::InstanceRoleName(d.role)});
  const uint32_t id = legion::InternLegateStore(store, facts.kind, &facts);
  legion::AttachIdentity(d.shadow, d.instance, id,
                         d.collectable ? legion::GcState::kCollectable
                                       : legion::GcState::kValid);
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
  return result.failed ? 0 : 3;
}
