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

// The enumerators' own spelling, for messages.
inline const char* name_of(Rounding mode) { return rounding_name(mode).data(); }
inline const char* name_of(Overflow policy) { return overflow_name(policy).data(); }

}  // namespace softfloat::test_support
