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
#include "softfloat/rounding.hpp"

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

// Every deterministic softfloat::Rounding with either Overflow policy, still from
// MPFR alone. The directed modes and nearest_even are MPFR_RNDZ / RNDU / RNDD / RNDA
// / RNDN; nearest_away, nearest_zero and odd choose between the two neighbours on
// the format's grid (the RNDD and RNDU results, the grid unbounded above so that a
// neighbour beyond max is an ordinary number) by the exact comparison of the value
// with their midpoint, resp. by which neighbour is an odd multiple of the gap
// between them. A chosen value beyond max overflows: standard gives +-max for
// toward_zero, for up on negatives and for down on positives (IEEE 754 7.4) and for
// odd (truncation with a sticky bit: max is the only finite neighbour), else
// infinity, else NaN, else max; saturate gives +-max, for infinite input too.
// Infinite input keeps the format's rule under standard (infinity where it exists,
// otherwise the round-to-nearest overflow code, whatever the mode); NaN, zeros and
// negative input to unsigned formats do not depend on the mode. Stochastic modes
// have no single correct result: std::invalid_argument.
std::uint64_t reference_round(mpfr_srcptr x, const Format& format, Rounding mode, Overflow policy);
std::uint64_t reference_round(float x, const Format& format, Rounding mode, Overflow policy);
std::uint64_t reference_round(double x, const Format& format, Rounding mode, Overflow policy);
// The same for the result of `operation` (as in reference_compute above). The
// operation is called with outputs of precision M + 1 and M + 2 and must round into
// whatever precision its first argument has.
std::uint64_t reference_compute(const std::function<int(mpfr_ptr, mpfr_rnd_t)>& operation, const Format& format,
                                Rounding mode, Overflow policy);

// The value of `code` as a double, through MPFR (exact when double holds it).
double reference_value(std::uint64_t code, const Format& format);

}  // namespace softfloat::verify
