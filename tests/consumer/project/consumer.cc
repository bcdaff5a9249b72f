// A consumer of the installed package: registers a memory as Realm's site
// does, reports a heap's changes through its HeapObserver, attaches a Legion
// identity, takes a snapshot, checks it, dumps it and reads the dump back.
// Exits non-zero on any mismatch, with a line saying which.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "legion_glue/identity.h"
#include "legion_glue/mapper.h"
#include "realm_shadow/realm_sites.h"
#include "realm_shadow/analysis/analysis.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/live/snapshots.h"

#define CHECK(cond)                                                    \
  do {                                                                 \
    if (!(cond)) {                                                     \
      std::fprintf(stderr, "consumer: check failed: %s (line %d)\n",   \
                   #cond, __LINE__);                                   \
      return 1;                                                        \
    }                                                                  \
  } while (0)

// A heap with the members the observer reads (Realm's BasicRangeAllocator
// has them), changed by hand below.
struct Heap {
  struct Range { uint64_t first, last; };
  static const unsigned SENTINEL = 0;
  std::map<uint64_t, unsigned> allocated;
  std::vector<Range> ranges{{0, 0}};
  realm_shadow::HeapObserver shadow_observer;
};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DUMP_FILE\n", argv[0]);
    return 2;
  }
  static_assert(REALM_SHADOW_ENABLED == 1,
                "RealmShadow::realm_shadow turns tracking on for its users");
  const uint64_t mem = 0x1e00000000000000ull;
  Heap current;
  realm_shadow_memory* m = realm_shadow_register_memory(
      mem, realm_shadow_kind_from_realm_name(realm_shadow_realm_kind_name(2)),
      1 << 20, "consumer sysmem",
      REALM_SHADOW_CONCURRENT | REALM_SHADOW_HEAP_OBSERVED);
  CHECK(m != nullptr);
  current.shadow_observer.Attach(m, REALM_SHADOW_HEAP_CURRENT, current);
  const uint64_t a = 0x4000000000000000ull, b = a + 1, c = a + 2;
  current.shadow_observer.Placed(a, 0, 4096, 64);
  current.shadow_observer.Placed(b, 4096, 8192, 64);
  current.shadow_observer.Removed(a);
  realm_shadow_request_failed(m, c, 2 << 20, 64, 0);

  realm_shadow::legion::LegionInstanceDescription d;
  d.fields = "velocity";
  d.creator = "task consumer (UID 1)";
  realm_shadow::legion::AttachIdentity(
      m, b, realm_shadow::legion::InternLegionIdentity(d),
      realm_shadow::legion::GcState::kValid);

  realm_shadow::Snapshot s = realm_shadow::TakeSnapshot(m);
  CHECK(s.allocations.size() == 1);
  CHECK(s.allocations[0].instance == b && s.allocations[0].offset == 4096);
  CHECK(s.allocations[0].pinned());
  CHECK(s.failures.size() == 1 && s.failures[0].size == (2u << 20));
  const realm_shadow::FreeSummary sum = realm_shadow::Summarize(s);
  CHECK(sum.total_free == (1u << 20) - 8192);
  CHECK(sum.largest_hole == (1u << 20) - 4096 - 8192);

  CHECK(realm_shadow::legion::dump_memory_state(mem, argv[1]));
  const absl::StatusOr<realm_shadow::DumpFile> read = realm_shadow::ReadDump(argv[1]);
  CHECK(read.ok());
  const realm_shadow::DumpFile& file = *read;
  CHECK(file.memories.size() == 1);
  CHECK(file.memories[0].allocations.size() == 1);
  CHECK(file.memories[0].identities.size() == 1);
  std::printf("consumer: %zu live, %llu free, largest hole %llu, dump %s\n",
              s.allocations.size(),
              static_cast<unsigned long long>(sum.total_free),
              static_cast<unsigned long long>(sum.largest_hole), argv[1]);
  return 0;
}
