// The printing checks shared by the 8-bit and 16-bit sweeps (see print_test.cpp):
// the printed text reads back to the same code through parse<F> and through MPFR, and
// no decimal with one significant digit fewer reads back to it.
#pragma once

#include <sstream>
#include <string>

#include "verify/arithmetic/arithmetic_test_support.hpp"

namespace softfloat::arithmetic_test {

inline std::uint64_t reference_parse(const std::string& text, const Format& f) {
  return verify::reference_compute(
      [&](mpfr_ptr out, mpfr_rnd_t r) {
        char* end = nullptr;
        const int ternary = mpfr_strtofr(out, text.c_str(), &end, 0, r);
        if (*end != '\0') mpfr_set_nan(out);  // not a number MPFR reads in full
        return ternary;
      },
      f);
}

// Significant digits of a printed decimal ("0.000123" -> 3, "65500" -> 3, "1.5e-07" -> 2).
inline int significant_digits(const std::string& text) {
  std::string digits;
  for (char c : text.substr(0, text.find_first_of("eE"))) {
    if (c >= '0' && c <= '9') digits += c;
  }
  const auto first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 0;
  digits = digits.substr(first);
  return int(digits.find_last_not_of('0') + 1);
}

// The decimal with `digits` significant digits next to |x| on the side `rnd` picks,
// with x's sign: "-0.123e5".
inline std::string decimal_beside(mpfr_srcptr x, int digits, mpfr_rnd_t rnd) {
  Mpfr magnitude(64);
  mpfr_abs(magnitude.get(), x, MPFR_RNDN);
  mpfr_exp_t exponent = 0;
  char* raw = mpfr_get_str(nullptr, &exponent, 10, std::size_t(digits), magnitude.get(), rnd);
  std::string text = std::string(mpfr_signbit(x) ? "-" : "") + "0." + raw + "e" + std::to_string(exponent);
  mpfr_free_str(raw);
  return text;
}

// Checks the printed text of one code. `check_shortest` is false where the library
// prints a hex float (values beyond long double's range).
template <class F>
void check_printed(MismatchLog& log, std::uint64_t code, bool check_shortest = true) {
  using S = typename F::storage_type;
  constexpr Format f = F::format;
  const F x = F::from_bits(S(code));
  const std::string text = to_string(x);
  std::ostringstream stream;
  stream << x;
  log.check_true(stream.str() == text, [&] { return hex(code) + ": operator<< '" + stream.str() + "', to_string '" + text + "'"; });
  Mpfr value(64);
  verify::exact_value_of(value.get(), code, f);
  if (mpfr_nan_p(value.get())) {
    log.check_true(isnan(parse<F>(text)), [&] { return hex(code) + " prints '" + text + "', which does not read as NaN"; });
    return;
  }
  log.check(parse<F>(text).bits(), code, [&] { return hex(code) + " prints '" + text + "', parse<F> reads it as"; });
  log.check(reference_parse(text, f), code, [&] { return hex(code) + " prints '" + text + "', MPFR reads it as"; });
  if (!check_shortest || !mpfr_regular_p(value.get())) return;
  const int digits = significant_digits(text);
  if (digits <= 1) return;
  for (mpfr_rnd_t side : {MPFR_RNDD, MPFR_RNDU}) {
    const std::string shorter = decimal_beside(value.get(), digits - 1, side);
    log.check_true(reference_parse(shorter, f) != code,
                   [&] { return hex(code) + " prints '" + text + "' but the shorter '" + shorter + "' reads back too"; });
  }
}

template <class F>
void check_every_code() {
  MismatchLog log(format_name(F::format) + " printing, every code");
  for (std::uint64_t code : all_codes(F::format)) check_printed<F>(log, code);
  EXPECT_TRUE(log.result());
}

}  // namespace softfloat::arithmetic_test
