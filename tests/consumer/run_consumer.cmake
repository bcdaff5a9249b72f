# run_consumer.cmake - cmake -P script behind the consumer.find_package test.
# Inputs: MAIN_BUILD, PROJECT_DIR, WORK_DIR, GENERATOR, CXX_COMPILER,
# C_COMPILER, BUILD_TYPE, EXTRA_FLAGS.
foreach(var MAIN_BUILD PROJECT_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "run_consumer.cmake: ${var} not set")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(step name)
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${name}: ok")
  set(STEP_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

# The library's component only: the test must not depend on the tools
# being built.
step("install" ${CMAKE_COMMAND} --install ${MAIN_BUILD} --prefix ${prefix}
  --component Development)

# The installed tree must carry the headers in their layers and the package.
foreach(f include/realm_shadow/hooks.h
          include/realm_shadow/live/snapshots.h
          include/realm_shadow/format/dump.h
          include/realm_shadow/realm_sites.h
          include/realm_shadow/heap_observer.h
          include/legion_glue/identity.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "install: ${f} missing")
  endif()
endforeach()
file(GLOB_RECURSE config ${prefix}/*/RealmShadowConfig.cmake)
if(NOT config)
  message(FATAL_ERROR "install: RealmShadowConfig.cmake missing")
endif()

set(gen_args)
if(GENERATOR)
  set(gen_args -G ${GENERATOR})
endif()
step("configure consumer" ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${WORK_DIR}/build
  ${gen_args}
  -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  -DCMAKE_C_COMPILER=${C_COMPILER}
  -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
  "-DCMAKE_CXX_FLAGS=${EXTRA_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${EXTRA_FLAGS}")
step("build consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
# The consumer runs with dump-on-failure on, into the work directory.
step("run consumer" ${CMAKE_COMMAND} -E env REALM_SHADOW_DUMP_DIR=${WORK_DIR}
  ${WORK_DIR}/build/shadow_consumer ${WORK_DIR}/consumer.rsd)
message(STATUS "${STEP_OUTPUT}")

# The consumer's instant failure must have been dumped by the failure
# observer: proof that the package keeps on_failure.o in a static link.
file(GLOB failure_dumps ${WORK_DIR}/realm-shadow-node*-mem*-1.rsd)
if(NOT failure_dumps)
  message(FATAL_ERROR "no dump on failure in ${WORK_DIR}: the package's link "
                      "options did not keep the dump-on-failure observer")
endif()
# Headers of targets that are not exported must not be installed.
if(EXISTS ${prefix}/include/realm_shadow/model OR
   EXISTS ${prefix}/include/realm_shadow/tools)
  message(FATAL_ERROR "install: headers of unexported targets installed")
endif()
message(STATUS "dump on failure: ${failure_dumps}")
