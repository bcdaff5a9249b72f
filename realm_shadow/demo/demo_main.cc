// realm_shadow_demo - the main job on built-in data: a Legate-like workload
// on model system, framebuffer and zero-copy memories, run until a
// (deferred) allocation fails.  The failure writes its dump and prints the
// failure report (dump on failure, REALM_SHADOW_DUMP_DIR); at the end every
// memory is dumped to one file too.
//
// usage: realm_shadow_demo OUT_DIR [SEED]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "realm_shadow/dump/dump.h"
#include "realm_shadow/dump/on_failure.h"
#include "realm_shadow/model/workload.h"
#include "realm_shadow/recorder/tracker.h"

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
  if (argc > 2) options.seed = std::strtoull(argv[2], nullptr, 10);
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
  std::string error;
  if (!realm_shadow::DumpAllMemories(all, &error)) {
    std::fprintf(stderr, "realm_shadow_demo: %s\n", error.c_str());
    return 1;
  }
  std::printf("all memories: %s\n", all.c_str());
  return result.failed ? 0 : 3;
}
