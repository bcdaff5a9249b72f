// scripts/trial/realm_program.h - what the trial Realm programs share:
//  - RunTopLevelTask, their main(): start Realm, run one task on the first
//    CPU processor of this node (registered there only: the trials are
//    one-process programs), wait for the shutdown the task asks for and
//    return its status;
//  - IgnoreFailures, the profiling request that makes Realm report a failed
//    allocation (its ready event poisoned) instead of aborting the run,
//    which it does when nobody asked for InstanceStatus.
#ifndef REALM_SHADOW_SCRIPTS_TRIAL_REALM_PROGRAM_H_
#define REALM_SHADOW_SCRIPTS_TRIAL_REALM_PROGRAM_H_

#include <cassert>

#include "realm.h"

namespace realm_shadow_trial {

inline Realm::ProfilingRequestSet IgnoreFailures() {
  using namespace Realm;
  ProfilingRequestSet prs;
  prs.add_request(Processor::NO_PROC, 0 /*nobody listens*/)
      .add_measurement<ProfilingMeasurements::InstanceStatus>();
  return prs;
}

inline int RunTopLevelTask(int argc, char** argv,
                           Realm::Processor::TaskFuncID task_id,
                           Realm::Processor::TaskFuncPtr task) {
  using namespace Realm;
  Runtime rt;
  rt.init(&argc, &argv);
  Processor p = Machine::ProcessorQuery(Machine::get_machine())
                    .only_kind(Processor::LOC_PROC)
                    .first();
  assert(p.exists());
  Processor::register_task_by_kind(p.kind(), false /*!global*/, task_id,
                                   CodeDescriptor(task), ProfilingRequestSet())
      .external_wait();
  rt.collective_spawn(p, task_id, 0, 0);
  return rt.wait_for_shutdown();
}

}  // namespace realm_shadow_trial

#endif  // REALM_SHADOW_SCRIPTS_TRIAL_REALM_PROGRAM_H_
