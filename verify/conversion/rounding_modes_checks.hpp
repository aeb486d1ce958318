// The check shared by the rounding-mode suites of this folder: one input converted
// by the library in every deterministic rounding direction and both overflow
// policies (Float::from_exact), each code compared with
// verify::reference_round(x, format, mode, policy), which is built from MPFR alone.
#pragma once

#include <limits>
#include <type_traits>

#include "verify/common/rounding_modes.hpp"
#include "verify/conversion/conversion_test_support.hpp"

namespace softfloat::conversion_test {

using test_support::kDeterministicRoundings;
using test_support::kOverflowPolicies;
using test_support::name_of;

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

template <class F, class Source>
void check_every_mode(MismatchLog& log, Source x) {
  const ExactValue exact = decode(x);
  for (Rounding mode : kDeterministicRoundings) {
    for (Overflow policy : kOverflowPolicies) {
      log.check(std::uint64_t(F::from_exact(exact, mode, policy).bits()),
                verify::reference_round(x, F::format, mode, policy),
                [&] { return describe(x) + " " + name_of(mode) + " " + name_of(policy); });
    }
  }
}
template <class F, class Source>
void check_every_mode_both_signs(MismatchLog& log, Source x) {
  check_every_mode<F>(log, x);
  check_every_mode<F>(log, -x);
}

// The Source value nearest to an exact value.
template <class Source>
Source nearest_source(mpfr_srcptr x) {
  if constexpr (std::is_same_v<Source, float>) return mpfr_get_flt(x, MPFR_RNDN);
  else return mpfr_get_d(x, MPFR_RNDN);
}

}  // namespace softfloat::conversion_test
