// tests/common/log_program.h - the Realm log excerpts the tests feed the
// log readers.
//
// Each excerpt is a file under tests/data/log_programs/<test>/<name>.log,
// kept byte for byte as the test had it (most are the oracle's minimal
// programs, reduced by scripts/legion-oracle from runs of
// scripts/trial/realm_random.cc): data, not code, so a test names the
// excerpt it reads and several tests read one excerpt without retyping it.
// The files are in the repository: a clone runs them with nothing beside it.
// A missing or unreadable file is said on stderr and read as empty, which
// fails every test that reads it (an empty log rebuilds no memory), never
// the test binary as a whole.
#ifndef REALM_SHADOW_TESTS_COMMON_LOG_PROGRAM_H_
#define REALM_SHADOW_TESTS_COMMON_LOG_PROGRAM_H_

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

inline std::string LogProgram(const std::string& name) {
  // REALM_SHADOW_LOG_PROGRAMS: tests/data/log_programs, from the area's
  // CMakeLists.txt
  const std::string path =
      std::string(REALM_SHADOW_LOG_PROGRAMS) + "/" + name + ".log";
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "no log program " << path << "\n";
    return std::string();
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

#endif  // REALM_SHADOW_TESTS_COMMON_LOG_PROGRAM_H_
