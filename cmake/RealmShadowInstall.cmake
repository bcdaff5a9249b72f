# cmake/RealmShadowInstall.cmake - install rules and the CMake package, so
# that an application or a Legion build does
#
#   find_package(RealmShadow CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE RealmShadow::realm_shadow)
#
# Included once by the top-level CMakeLists.txt after the library targets
# exist.  Installs:
#   lib/                          librealm_shadow, librealm_shadow_legion_glue
#   include/realm_shadow/...      every header of the library, by layer
#   include/legion_glue/...       the glue headers and INTEGRATION.md
#   lib/cmake/RealmShadow/        RealmShadowConfig.cmake, ...ConfigVersion,
#                                 RealmShadowTargets.cmake
# Everything here is in the install component "Development"
# (cmake --install <build> --component Development installs the library
# without the tools).  The exported targets are RealmShadow::realm_shadow, RealmShadow::legion_glue
# and, when Legion was found, RealmShadow::legion.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(REALM_SHADOW_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/RealmShadow)
set(REALM_SHADOW_INSTALL_RULES ON)

set(_realm_shadow_export realm_shadow realm_shadow_legion_glue)
if(TARGET realm_shadow_legion)
  list(APPEND _realm_shadow_export realm_shadow_legion)
endif()
install(TARGETS ${_realm_shadow_export}
  EXPORT RealmShadowTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Development
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Headers keep the source tree's layout: code includes
# "realm_shadow/recorder/tracker.h" whether built here or installed.  Only
# the library's layers are installed: the tools, the model memory and the
# GPU memories are separate targets that are not exported.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/realm_shadow/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/realm_shadow
  COMPONENT Development
  FILES_MATCHING PATTERN "*.h"
  PATTERN "tools" EXCLUDE
  PATTERN "model" EXCLUDE
  PATTERN "gpu" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/legion_glue/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/legion_glue
  COMPONENT Development
  FILES_MATCHING PATTERN "*.h" PATTERN "*.md"
  PATTERN "examples" EXCLUDE)

install(EXPORT RealmShadowTargets
  NAMESPACE RealmShadow::
  DESTINATION ${REALM_SHADOW_INSTALL_CMAKEDIR}
  COMPONENT Development)

# Whether the installed library is static decides what a consumer must also
# link (absl is a private dependency of a static archive).
get_target_property(_realm_shadow_type realm_shadow TYPE)
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
