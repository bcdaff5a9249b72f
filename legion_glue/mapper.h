// legion_glue/mapper.h - the mapper's side: dump a memory's state at any
// time, and report a failed instance creation with its blockers before
// failing.
//
// What it is for: a Legion mapper is where placement decisions are made and
// where an out-of-memory is first seen.  Upstream Legion has no
// dump_memory_state (it was proposed as MapperRuntime::dump_memory_state(
// Memory, const char*)); this is that call, plus a DefaultMapper mixin that
// prints what blocks the request instead of only its size.
//
// Two layers in one header:
//  - Without Legion (always): functions taking a 64-bit Realm memory id.
//    They need only realm_shadow and are tested without Legion.
//  - With Legion (REALM_SHADOW_WITH_LEGION=1 and <legion.h> on the include
//    path; the RealmShadow::legion target sets both): overloads taking
//    Realm::Memory, and ShadowReportingMapper<Base>.
//
// Guarantees and cost
//  - dump_memory_state may be called from any mapper call at any time, on
//    any thread: it takes a consistent snapshot (live/snapshots.h) while Realm goes
//    on allocating, adds the memory's pools (pools.h), and writes the
//    file atomically (dump.h).  Cost: the snapshot copy (32 B per live
//    allocation: 3.2 MB at 100k) and a streamed write of about that size.
//  - It never aborts: a bad memory id or an unwritable path returns false
//    and prints one line to stderr.
//  - The failure report is the one the dump-on-failure observer prints
//    (realm_shadow/render/failure_report.h FormatFailureReport), followed
//    by one line per pool in the memory (pools.h FormatPoolUsage).
#ifndef REALM_SHADOW_LEGION_GLUE_MAPPER_H_
#define REALM_SHADOW_LEGION_GLUE_MAPPER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(legion_glue);

namespace legion {

// Writes one memory's state to `filename`.  false (and a line on stderr) if
// the memory is not tracked or the file cannot be written.
bool dump_memory_state(uint64_t memory_id, const char* filename);
// Every tracked memory in one file.
bool dump_all_memories(const char* filename);

// The blocker report for the memory's most recent failure, or, when no
// failure is recorded (the request failed on another node, or tracking was
// off), for a request of `footprint` bytes at `alignment` judged against the
// memory as it is now.  Followed by the memory's pool lines.
std::string failure_report(uint64_t memory_id, size_t footprint = 0,
                           size_t alignment = 1);

// What a mapper calls when an instance cannot be created: dumps the memory
// to REALM_SHADOW_DUMP_DIR (or the working directory) as
// realm-shadow-node<N>-mem<hex>-mapper-<k>.rsd, prints `what`, the report
// and the dump's path to stderr.  Returns the dump's path ("" if none was
// written).  Does not abort: the caller fails as it would have.
std::string report_failed_instance_creation(uint64_t memory_id,
                                            size_t footprint,
                                            const std::string& what);

}  // namespace legion
}  // namespace realm_shadow

// ---- with Legion ------------------------------------------------------------
#if defined(REALM_SHADOW_WITH_LEGION) && REALM_SHADOW_WITH_LEGION
#if defined(__has_include)
#if __has_include(<legion.h>)
#define REALM_SHADOW_LEGION_GLUE_HAVE_LEGION 1
#endif
#endif
#endif

#ifdef REALM_SHADOW_LEGION_GLUE_HAVE_LEGION
#include <legion.h>
#include <vector>

#include "mappers/default_mapper.h"

namespace realm_shadow {
namespace legion {

inline bool dump_memory_state(Realm::Memory memory, const char* filename) {
  return dump_memory_state(static_cast<uint64_t>(memory.id), filename);
}
inline std::string failure_report(Realm::Memory memory, size_t footprint = 0,
                                  size_t alignment = 1) {
  return failure_report(static_cast<uint64_t>(memory.id), footprint,
                        alignment);
}

// A DefaultMapper (or any subclass of it) that reports a failed instance
// creation with the memory's blockers before failing the way the
// DefaultMapper does.
//
//   class MyMapper : public realm_shadow::legion::ShadowReportingMapper<
//                        Legion::Mapping::DefaultMapper> { ... };
//
// Where it reports:
//  - default_report_failed_instance_creation, as called from the mapper's
//    own code (this class hides the DefaultMapper's, which is not virtual:
//    calls made inside DefaultMapper's own map_task still bind to the
//    DefaultMapper's, and there the dump-on-failure observer, enabled by
//    REALM_SHADOW_DUMP_DIR, prints the same report at Realm's failure);
//  - shadow_create_physical_instance: create_physical_instance that reports
//    when it returns false; use it in place of
//    runtime->create_physical_instance in a custom mapper (and then, to fail,
//    Base::default_report_failed_instance_creation, or the report prints
//    twice).
// scripts/trial/mapper_trial.cc compiles every member against Legion (an
// explicit instantiation) and scripts/legion-trial runs it: a creation fails
// in a small memory, the report prints, the mapper places the region
// elsewhere.
template <class Base>
class ShadowReportingMapper : public Base {
 public:
  using Base::Base;

  void default_report_failed_instance_creation(
      const Legion::Task& task, unsigned index, Realm::Processor target_proc,
      Realm::Memory target_memory, size_t footprint = 0) const {
    report_failed_instance_creation(
        static_cast<uint64_t>(target_memory.id), footprint,
        std::string(this->get_mapper_name()) + ": region requirement " +
            std::to_string(index) + " of task " + task.get_task_name() +
            " (UID " + std::to_string(task.get_unique_id()) + ")");
    Base::default_report_failed_instance_creation(task, index, target_proc,
                                                  target_memory, footprint);
  }

  bool shadow_create_physical_instance(
      Legion::Mapping::MapperContext ctx, Realm::Memory target_memory,
      const Legion::LayoutConstraintSet& constraints,
      const std::vector<Legion::LogicalRegion>& regions,
      Legion::Mapping::PhysicalInstance& result, bool acquire = true,
      Legion::GCPriority priority = 0, bool tight_region_bounds = false,
      size_t* footprint = nullptr) const {
    size_t bytes = 0;
    const bool ok = this->runtime->create_physical_instance(
        ctx, target_memory, constraints, regions, result, acquire, priority,
        tight_region_bounds, &bytes);
    if (footprint != nullptr) *footprint = bytes;
    if (!ok)
      report_failed_instance_creation(
          static_cast<uint64_t>(target_memory.id), bytes,
          std::string(this->get_mapper_name()) +
              ": create_physical_instance failed");
    return ok;
  }

  // Dumps every tracked memory; any mapper call may use it (for example
  // every N-th map_task, or in select_tasks_to_map when a memory runs low).
  bool shadow_dump_all(const char* filename) const {
    return dump_all_memories(filename);
  }
};

}  // namespace legion
}  // namespace realm_shadow
#endif  // REALM_SHADOW_LEGION_GLUE_HAVE_LEGION

#endif  // REALM_SHADOW_LEGION_GLUE_MAPPER_H_
