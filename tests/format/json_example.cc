// tests/format/json_example.cc - prints the JSON of the sample dump, for
// check_json.py (an independent parser: Python's json module).
#include <cstdio>

#include "realm_shadow/format/dump.h"
#include "tests/format/sample_dump.h"

int main() {
  const std::string json =
      realm_shadow::DumpToJson(realm_shadow::testing_dump::SampleDump());
  std::fwrite(json.data(), 1, json.size(), stdout);
  return 0;
}
