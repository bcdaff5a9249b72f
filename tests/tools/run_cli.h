// tests/tools/run_cli.h - the realm-shadow command run as a process, for
// the tests of its subcommands.
#ifndef REALM_SHADOW_TESTS_FACES_RUN_CLI_H_
#define REALM_SHADOW_TESTS_FACES_RUN_CLI_H_

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/common/contains_text.h"

namespace realm_shadow::testing {

// The build's command, or the one $REALM_SHADOW_CLI names (to run these
// tests against another build of it).
inline const std::string kCli = [] {
  const char* other = std::getenv("REALM_SHADOW_CLI");
  return std::string(other != nullptr && *other != '\0' ? other : REALM_SHADOW_CLI);
}();

struct Result {
  int status = -1;
  std::string output;  // stdout and stderr together
};

inline Result RunCli(const std::string& args) {
  Result r;
  const std::string command = "'" + kCli + "' " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    r.output.append(buffer, n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return r;
}

// The whatif tests' spelling of ContainsText.
inline ::testing::AssertionResult Contains(const std::string& text,
                                           const std::string& part) {
  return ContainsText(text, part);
}

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_FACES_RUN_CLI_H_
