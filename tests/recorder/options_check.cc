// Prints the options the recorder read from the environment, for the
// ctest cases in this directory that set them (tests/recorder/CMakeLists.txt).
#include <cstdio>

#include "realm_shadow/recorder/recorder.h"

int main() {
  const realm_shadow::TrackerOptions& o = realm_shadow::Options();
  std::printf("tracking %d journal_events %zu history_events %zu node %u\n",
              o.tracking, o.journal_events, o.history_events, o.node);
  return 0;
}
