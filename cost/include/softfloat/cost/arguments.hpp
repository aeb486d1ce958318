// The argument checks that every cost function shares: a rate, a size or a count that
// cannot describe a machine or a model throws std::invalid_argument naming the
// function, the argument and the value, instead of giving an infinite or negative time.
#pragma once

#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace softfloat::cost::detail {

[[noreturn]] inline void reject_argument(const char* function, const char* what, const std::string& rule,
                                         double value) {
  std::ostringstream message;
  message << "softfloat::cost::" << function << ": " << what << " must be " << rule << "; got " << value;
  throw std::invalid_argument(message.str());
}

// Rates (FLOP/s, bytes/s) and capacities: finite and above zero, since a time is a
// quantity divided by them.
inline double require_positive(double value, const char* function, const char* what) {
  if (!(value > 0) || !std::isfinite(value)) reject_argument(function, what, "a positive finite number", value);
  return value;
}

// Amounts (bytes, FLOPs, parameters, tokens): finite and not negative; zero is allowed
// and costs nothing.
inline double require_non_negative(double value, const char* function, const char* what) {
  if (!(value >= 0) || !std::isfinite(value)) reject_argument(function, what, "a finite number >= 0", value);
  return value;
}

// Counts of things that do the work (cores, devices, layers, heads): at least one.
inline std::uint64_t require_at_least_one(std::uint64_t count, const char* function, const char* what) {
  if (count == 0) reject_argument(function, what, "at least 1", 0);
  return count;
}

}  // namespace softfloat::cost::detail
