// The MPFR reference: the correctly rounded code of a value in any Format, computed
// by GNU MPFR at the format's precision (M + 1 bits) with its exponent range and
// subnormalization, then the format's own overflow threshold. It shares no rounding
// code with the library (only the Format description), so the two check each other.
// Installed as softfloat::verify for users who define formats of their own.
#pragma once

#include <mpfr.h>

#include <cstdint>
#include <functional>

#include "softfloat/format.hpp"

namespace softfloat::verify {

// An mpfr_t that frees itself.
class Mpfr {
 public:
  explicit Mpfr(mpfr_prec_t precision = 256) { mpfr_init2(value_, precision); }
  ~Mpfr() { mpfr_clear(value_); }
  Mpfr(const Mpfr&) = delete;
  Mpfr& operator=(const Mpfr&) = delete;
  mpfr_ptr get() { return value_; }
  mpfr_srcptr get() const { return value_; }

 private:
  mpfr_t value_;
};

// The largest finite magnitude code, counted from the conventions' definitions
// (restated here, independently of Format::max_finite_magnitude in the library):
// IEEE reserves exponent all ones; fn and P3109 the all-ones magnitude (NaN,
// resp. infinity); finite and fnuz formats use every magnitude for numbers.
std::uint64_t largest_finite_code(const Format& format);

// The exact value of `code` in `format`, written to `out` (NaN, +-infinity or a
// finite number). `out` must have at least M + 1 bits of precision.
void exact_value_of(mpfr_t out, std::uint64_t code, const Format& format);

// The code of the exact value `x` rounded to `format` with MPFR's rounding `rnd`
// (MPFR_RNDN, RNDZ, RNDU, RNDD or RNDA). `x` must not be NaN.
std::uint64_t reference_round(mpfr_srcptr x, const Format& format, mpfr_rnd_t rnd = MPFR_RNDN);

// The code of the result of `operation`, which must compute into its first
// argument (whose precision is M + 1) with the given rounding and return MPFR's
// ternary value, e.g. [&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_div(out, a, b, r); }.
// The result is rounded once to the format, subnormals and overflow included; an
// invalid operation (MPFR NaN) gives the format's default NaN.
std::uint64_t reference_compute(const std::function<int(mpfr_ptr, mpfr_rnd_t)>& operation, const Format& format,
                                mpfr_rnd_t rnd = MPFR_RNDN);

// The same for float and double arguments, NaN included (quiet, sign kept, top
// payload bits kept where the format has several NaN codes).
std::uint64_t reference_round(float x, const Format& format, mpfr_rnd_t rnd = MPFR_RNDN);
std::uint64_t reference_round(double x, const Format& format, mpfr_rnd_t rnd = MPFR_RNDN);

// The value of `code` as a double, through MPFR (exact when double holds it).
double reference_value(std::uint64_t code, const Format& format);

}  // namespace softfloat::verify
