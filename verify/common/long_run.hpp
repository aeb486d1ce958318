// The suites that run a sample everywhere and a long run in the exhaustive one are one
// binary: the long run is the same binary with SOFTFLOAT_LONG_RUN=1 in its environment,
// which its ctests (softfloat_add_long_run in verify/CMakeLists.txt, label exhaustive)
// set. One compilation serves both, and both runs are the same code.
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace softfloat::test_support {

// `quick` normally, `long_run` when SOFTFLOAT_LONG_RUN is 1; any other value is a
// misconfigured run and throws rather than silently running the sample.
inline long case_count(long quick, long long_run) {
  const char* value = std::getenv("SOFTFLOAT_LONG_RUN");
  if (value == nullptr || std::string_view(value) == "0") return quick;
  if (std::string_view(value) == "1") return long_run;
  throw std::invalid_argument(std::string("SOFTFLOAT_LONG_RUN must be 0 or 1, not \"") + value + "\"");
}

}  // namespace softfloat::test_support
