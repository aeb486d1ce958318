// The exact decimal digits of an MPFR value, to compare printed values against.
#pragma once

#include <cstddef>
#include <string>

#include "softfloat/verify/mpfr_reference.hpp"

namespace softfloat::cli_test {

// The exact decimal digits of `x` as MPFR prints them with `digits` significant
// digits (enough to be exact), trailing zeros removed, with the decimal exponent of
// the first digit: 0.1015625 -> {"1015625", -1}.
struct MpfrDigits {
  std::string digits;
  long exponent10 = 0;
};
inline MpfrDigits mpfr_exact_digits(mpfr_srcptr x, std::size_t digits = 1200) {
  mpfr_exp_t exponent = 0;
  char* text = mpfr_get_str(nullptr, &exponent, 10, digits, x, MPFR_RNDN);
  std::string s = text[0] == '-' ? text + 1 : text;
  mpfr_free_str(text);
  s.erase(s.find_last_not_of('0') + 1);
  return {s, long(exponent) - 1};
}

}  // namespace softfloat::cli_test
