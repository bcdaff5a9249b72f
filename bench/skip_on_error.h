// bench/skip_on_error.h - how a benchmark stops on an error of the library
// (a dump that cannot be read or written, a log that does not ingest): it
// is skipped with the error's message, so the table shows why a row is
// missing instead of a time for work that was not done.
#ifndef REALM_SHADOW_BENCH_SKIP_ON_ERROR_H_
#define REALM_SHADOW_BENCH_SKIP_ON_ERROR_H_

#include <string>

#include <benchmark/benchmark.h>

#include "absl/status/status.h"

namespace realm_shadow_bench {

// False when `status` is OK; else skips the benchmark with its message and
// returns true (the caller returns or breaks out of its loop).
inline bool SkipOnError(benchmark::State& state, const absl::Status& status) {
  if (status.ok()) return false;
  state.SkipWithError(std::string(status.message()).c_str());
  return true;
}

}  // namespace realm_shadow_bench

#endif  // REALM_SHADOW_BENCH_SKIP_ON_ERROR_H_
