// scripts/trial/mapper_trial.cc - a Legion program whose mapper derives from
// realm_shadow::legion::ShadowReportingMapper<DefaultMapper>
// (legion_glue/mapper.h), for scripts/legion-trial: an instance creation
// fails, and the mapper prints the memory's failure report, blockers
// included, at that moment, then maps the region elsewhere and the run goes
// on to a normal end.
//
// The failure is made in the registered memory (-ll:rsize 4: a 4 MiB
// REGDMA_MEM that nothing else uses):
//   1. four 1 MiB regions are filled, one after the other, each in an
//      instance the mapper makes in that memory: r0 and r2 with
//      LEGION_GC_NEVER_PRIORITY (pinned), r1 and r3 collectable;
//   2. r1 and r3 are destroyed, leaving 2 MiB free in two 1 MiB holes;
//   3. a task needs a 2 MiB region there: Legion collects what it may, Realm
//      still finds no hole of 2 MiB, create_physical_instance fails, and
//      ShadowReportingMapper::shadow_create_physical_instance prints the
//      report (fragmentation, and blockers: none, since the only window
//      holds a pinned instance) and writes a dump; the mapper then places
//      the region in system memory.
// Built by scripts/legion-trial against a tracked Legion build (its
// CMakeLists.txt finds Legion from the build tree), not by realm-shadow's
// CMake.  Run with -ll:rsize 4 -ll:cpu 1 and REALM_SHADOW_DUMP_DIR=<dir>.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include "legion.h"
#include "legion_glue/mapper.h"
#include "mappers/default_mapper.h"

#ifndef REALM_SHADOW_LEGION_GLUE_HAVE_LEGION
#error "build with REALM_SHADOW_WITH_LEGION=1 and Legion's headers"
#endif

using namespace Legion;
using namespace Legion::Mapping;

// Every member of the mixin is compiled here, not only those this program
// calls (a class template's members are otherwise compiled only when used).
template class realm_shadow::legion::ShadowReportingMapper<DefaultMapper>;

namespace {

enum TaskIds { TOP_LEVEL_TASK_ID, FILL_TASK_ID };
enum FieldIds { FID_VALUE = 100 };
// What the mapper does with a task's region (its mapping tag).
enum Placement : MappingTagID {
  IN_SYSTEM = 0,       // the DefaultMapper's choice
  IN_REGMEM_PINNED,    // registered memory, LEGION_GC_NEVER_PRIORITY
  IN_REGMEM,           // registered memory, collectable
  IN_REGMEM_OR_SYSTEM  // registered memory, else (reported) system memory
};

constexpr coord_t kMiBOfInt64 = (1 << 20) / sizeof(int64_t);

class TrialMapper
    : public realm_shadow::legion::ShadowReportingMapper<DefaultMapper> {
 public:
  TrialMapper(MapperRuntime* rt, Machine machine, Processor local)
      : ShadowReportingMapper(rt, machine, local, "mapper_trial") {
    Machine::MemoryQuery regmem(machine);
    regmem.local_address_space().only_kind(Memory::REGDMA_MEM).has_affinity_to(
        local);
    regmem_ = regmem.first();
    Machine::MemoryQuery sysmem(machine);
    sysmem.local_address_space().only_kind(Memory::SYSTEM_MEM).has_affinity_to(
        local);
    sysmem_ = sysmem.first();
  }

  void map_task(const MapperContext ctx, const Task& task,
                const MapTaskInput& input, MapTaskOutput& output) override {
    if (task.tag == IN_SYSTEM || !regmem_.exists()) {
      DefaultMapper::map_task(ctx, task, input, output);
      return;
    }
    const VariantInfo chosen = default_find_preferred_variant(
        task, ctx, true /*needs tight bound*/, true /*cache*/,
        task.target_proc.kind());
    output.chosen_variant = chosen.variant;
    output.target_procs.push_back(task.target_proc);
    for (unsigned idx = 0; idx < task.regions.size(); idx++) {
      const RegionRequirement& req = task.regions[idx];
      const std::vector<LogicalRegion> regions(1, req.region);
      const GCPriority priority =
          task.tag == IN_REGMEM_PINNED ? LEGION_GC_NEVER_PRIORITY : 0;
      PhysicalInstance instance;
      size_t footprint = 0;
      LayoutConstraintSet constraints;
      default_policy_select_constraints(ctx, constraints, regmem_, req);
      // Reports (blockers, dump) when it fails, and returns false.
      bool made = shadow_create_physical_instance(
          ctx, regmem_, constraints, regions, instance, true /*acquire*/,
          priority, false /*tight bounds*/, &footprint);
      if (!made && task.tag == IN_REGMEM_OR_SYSTEM && sysmem_.exists()) {
        std::fprintf(stderr,
                     "mapper_trial: %zu B did not fit in the registered "
                     "memory; placing region requirement %u of %s in system "
                     "memory instead\n",
                     footprint, idx, task.get_task_name());
        LayoutConstraintSet fallback;
        default_policy_select_constraints(ctx, fallback, sysmem_, req);
        made = shadow_create_physical_instance(ctx, sysmem_, fallback, regions,
                                               instance, true, 0, false,
                                               &footprint);
      }
      if (!made) {
        // Reported already; fail the way the DefaultMapper does (its report
        // asserts in a debug build and only logs in a release one).
        DefaultMapper::default_report_failed_instance_creation(
            task, idx, task.target_proc, sysmem_, footprint);
        std::abort();
      }
      output.chosen_instances[idx].push_back(instance);
    }
  }

 private:
  Memory regmem_, sysmem_;
};

void CreateMappers(Machine machine, Runtime* runtime,
                   const std::set<Processor>& local_procs) {
  for (Processor proc : local_procs)
    runtime->replace_default_mapper(
        new TrialMapper(runtime->get_mapper_runtime(), machine, proc), proc);
}

void FillTask(const Task* task, const std::vector<PhysicalRegion>& regions,
              Context, Runtime* runtime) {
  const FieldAccessor<LEGION_WRITE_DISCARD, int64_t, 1> value(regions[0],
                                                              FID_VALUE);
  const Rect<1> rect = runtime->get_index_space_domain(
      task->regions[0].region.get_index_space());
  for (PointInRectIterator<1> p(rect); p(); p++) value[*p] = p[0];
}

void Fill(Context ctx, Runtime* runtime, LogicalRegion region,
          MappingTagID placement) {
  TaskLauncher fill(FILL_TASK_ID, TaskArgument(), Predicate::TRUE_PRED,
                    0 /*mapper*/, placement);
  fill.add_region_requirement(
      RegionRequirement(region, LEGION_WRITE_DISCARD, LEGION_EXCLUSIVE, region));
  fill.add_field(0, FID_VALUE);
  runtime->execute_task(ctx, fill).get_void_result();
}

LogicalRegion Region(Context ctx, Runtime* runtime, FieldSpace fs,
                     coord_t elements) {
  const IndexSpace is =
      runtime->create_index_space(ctx, Rect<1>(0, elements - 1));
  return runtime->create_logical_region(ctx, is, fs);
}

void TopLevelTask(const Task*, const std::vector<PhysicalRegion>&,
                  Context ctx, Runtime* runtime) {
  const FieldSpace fs = runtime->create_field_space(ctx);
  {
    FieldAllocator fields = runtime->create_field_allocator(ctx, fs);
    fields.allocate_field(sizeof(int64_t), FID_VALUE);
  }
  LogicalRegion r[4];
  for (int i = 0; i < 4; i++) {
    r[i] = Region(ctx, runtime, fs, kMiBOfInt64);
    Fill(ctx, runtime, r[i], i % 2 == 0 ? IN_REGMEM_PINNED : IN_REGMEM);
  }
  runtime->destroy_logical_region(ctx, r[1]);
  runtime->destroy_logical_region(ctx, r[3]);
  const LogicalRegion big = Region(ctx, runtime, fs, 2 * kMiBOfInt64);
  Fill(ctx, runtime, big, IN_REGMEM_OR_SYSTEM);
  std::printf("mapper_trial: done\n");
}

}  // namespace

int main(int argc, char** argv) {
  Runtime::set_top_level_task_id(TOP_LEVEL_TASK_ID);
  {
    TaskVariantRegistrar registrar(TOP_LEVEL_TASK_ID, "top_level");
    registrar.add_constraint(ProcessorConstraint(Processor::LOC_PROC));
    Runtime::preregister_task_variant<TopLevelTask>(registrar, "top_level");
  }
  {
    TaskVariantRegistrar registrar(FILL_TASK_ID, "fill");
    registrar.add_constraint(ProcessorConstraint(Processor::LOC_PROC));
    registrar.set_leaf();
    Runtime::preregister_task_variant<FillTask>(registrar, "fill");
  }
  Runtime::add_registration_callback(CreateMappers);
  return Runtime::start(argc, argv);
}
