// The rounding directions and overflow policies that the mode-by-mode suites walk
// through, with their names for messages. The stochastic modes are left out: they
// have no single correct result to compare with.
#pragma once

#include "softfloat/rounding.hpp"

namespace softfloat::test_support {

inline constexpr Rounding kDeterministicRoundings[] = {
    Rounding::nearest_even, Rounding::nearest_away, Rounding::nearest_zero, Rounding::toward_zero,
    Rounding::away_from_zero, Rounding::up, Rounding::down, Rounding::odd};
inline constexpr Overflow kOverflowPolicies[] = {Overflow::standard, Overflow::saturate};

// The enumerators' own spelling (the names the command line and Python share).
constexpr const char* name_of(Rounding mode) {
  switch (mode) {
    case Rounding::nearest_even: return "nearest_even";
    case Rounding::nearest_away: return "nearest_away";
    case Rounding::nearest_zero: return "nearest_zero";
    case Rounding::toward_zero: return "toward_zero";
    case Rounding::away_from_zero: return "away_from_zero";
    case Rounding::up: return "up";
    case Rounding::down: return "down";
    case Rounding::odd: return "odd";
    case Rounding::stochastic: return "stochastic";
    case Rounding::stochastic_equal: return "stochastic_equal";
  }
  return "unknown rounding";
}
constexpr const char* name_of(Overflow policy) {
  return policy == Overflow::saturate ? "saturate" : "standard";
}

}  // namespace softfloat::test_support
