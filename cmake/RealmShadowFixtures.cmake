# The real logs of real runs (Legion and Realm programs, one per case; see
# their INDEX.txt) that the tests and the demo (scripts/demo) read,
# unpacked into the build tree.  Kept compressed in the repository (tests/data/fixtures.tar.xz,
# 0.3 MiB for 10 MiB of logs); unpacked again when the archive changes.
set(RS_FIXTURES_ARCHIVE ${PROJECT_SOURCE_DIR}/tests/data/fixtures.tar.xz)
set(RS_FIXTURES_DIR ${PROJECT_BINARY_DIR}/fixtures)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${RS_FIXTURES_ARCHIVE})
file(SHA256 ${RS_FIXTURES_ARCHIVE} _rs_fixtures_hash)
if(NOT EXISTS ${RS_FIXTURES_DIR}/.sha256 OR
   NOT "${_rs_fixtures_hash}" STREQUAL "$CACHE{RS_FIXTURES_UNPACKED}")
  file(REMOVE_RECURSE ${RS_FIXTURES_DIR})
  file(ARCHIVE_EXTRACT INPUT ${RS_FIXTURES_ARCHIVE} DESTINATION ${RS_FIXTURES_DIR})
  file(WRITE ${RS_FIXTURES_DIR}/.sha256 "${_rs_fixtures_hash}\n")
  set(RS_FIXTURES_UNPACKED ${_rs_fixtures_hash} CACHE INTERNAL "")
endif()
set(RS_REALM_LOGS ${RS_FIXTURES_DIR}/realm-logs)
set(RS_SPY_LOGS ${RS_FIXTURES_DIR}/legion-spy)

