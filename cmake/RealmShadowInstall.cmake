# cmake/RealmShadowInstall.cmake - install rules and the CMake package, so
# that an application or a Legion build does
#
#   find_package(RealmShadow CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE RealmShadow::realm_shadow)
#
# Included once by the top-level CMakeLists.txt after the library targets
# exist.  Installs:
#   lib/                          a library per layer (realm_shadow_core,
#                                 _recorder, _analysis, _format, _render,
#                                 _live) and realm_shadow_legion_glue
#   include/realm_shadow/...      the public headers of the library, by layer
#   include/legion_glue/...       the glue headers (headers only: the
#                                 documents stay in the source tree)
#   lib/cmake/RealmShadow/        RealmShadowConfig.cmake, ...ConfigVersion,
#                                 RealmShadowTargets.cmake
# Everything here is in the install component "Development"
# (cmake --install <build> --component Development installs the library
# without the tools).  The exported targets are RealmShadow::realm_shadow
# (every installed layer; or one layer: RealmShadow::realm_shadow_hooks,
# _core, _recorder, _analysis, _format, _render, _live),
# RealmShadow::legion_glue and, when Legion was found, RealmShadow::legion.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(REALM_SHADOW_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/RealmShadow)
set(REALM_SHADOW_INSTALL_RULES ON)

set(_realm_shadow_export
  realm_shadow_hooks realm_shadow_core realm_shadow_recorder
  realm_shadow_analysis realm_shadow_format realm_shadow_render
  realm_shadow_live realm_shadow realm_shadow_legion_glue)
if(TARGET realm_shadow_legion)
  list(APPEND _realm_shadow_export realm_shadow_legion)
endif()
install(TARGETS ${_realm_shadow_export}
  EXPORT RealmShadowTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Development
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The public headers only, in their layers: code includes
# "realm_shadow/live/snapshots.h" whether built here or installed.
# Internals (*/internal/), the offline side (ingest, page), the model and
# the GPU memories stay in the source tree.
function(realm_shadow_install_headers subdir)
  list(TRANSFORM ARGN PREPEND ${PROJECT_SOURCE_DIR}/${subdir}/)
  install(FILES ${ARGN}
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${subdir}
    COMPONENT Development)
endfunction()
realm_shadow_install_headers(realm_shadow
  hooks.h realm_sites.h heap_observer.h layers.h log_sink.h memory_kinds.h)
foreach(layer core recorder analysis format render live)
  file(GLOB _headers RELATIVE ${PROJECT_SOURCE_DIR}/realm_shadow/${layer}
       ${PROJECT_SOURCE_DIR}/realm_shadow/${layer}/*.h)
  realm_shadow_install_headers(realm_shadow/${layer} ${_headers})
endforeach()
realm_shadow_install_headers(legion_glue
  identity.h legion_sites.h mapper.h pools.h)

install(EXPORT RealmShadowTargets
  NAMESPACE RealmShadow::
  DESTINATION ${REALM_SHADOW_INSTALL_CMAKEDIR}
  COMPONENT Development)

# Whether the installed library is static decides what a consumer must also
# link (absl is a private dependency of a static archive).
get_target_property(_realm_shadow_type realm_shadow_recorder TYPE)
if(_realm_shadow_type STREQUAL "STATIC_LIBRARY")
  set(REALM_SHADOW_STATIC ON)
else()
  set(REALM_SHADOW_STATIC OFF)
endif()
if(TARGET realm_shadow_legion)
  set(REALM_SHADOW_WITH_LEGION_TARGET ON)
else()
  set(REALM_SHADOW_WITH_LEGION_TARGET OFF)
endif()

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/RealmShadowConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/RealmShadowConfig.cmake
  INSTALL_DESTINATION ${REALM_SHADOW_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/RealmShadowConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/RealmShadowConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/RealmShadowConfigVersion.cmake
  DESTINATION ${REALM_SHADOW_INSTALL_CMAKEDIR}
  COMPONENT Development)
