// MPFR reference rounding (see mpfr_reference.hpp). Written from the format's
// definition, deliberately without the library's rounding routine.
#include "verify/reference/mpfr_reference.hpp"

#include <bit>
#include <functional>
#include <stdexcept>

namespace softfloat::verify {
namespace {

// Restores MPFR's exponent range when the reference returns.
struct ExponentRange {
  mpfr_exp_t saved_min = mpfr_get_emin(), saved_max = mpfr_get_emax();
  ExponentRange(mpfr_exp_t min, mpfr_exp_t max) {
    mpfr_set_emin(min);
    mpfr_set_emax(max);
  }
  ~ExponentRange() {
    mpfr_set_emin(saved_min);
    mpfr_set_emax(saved_max);
  }
};

std::uint64_t sign_code(const Format& f) {
  return f.is_signed ? std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits) : 0;
}
std::uint64_t all_ones_magnitude(const Format& f) {
  return (std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits)) - 1;
}
// NaN by convention: IEEE keeps sign, sets the quiet bit and keeps the top payload
// bits; fn has one NaN per sign; fnuz and P3109 have 0x80 only; finite formats have
// none and the library documents +0.
std::uint64_t nan_code(const Format& f, bool negative, std::uint64_t payload_left_aligned) {
  const std::uint64_t sign = negative ? sign_code(f) : 0;
  const int m = f.mantissa_bits;
  switch (f.specials) {
    case Specials::ieee: {
      const std::uint64_t exponent_ones = all_ones_magnitude(f) - f.mantissa_mask();
      return sign | exponent_ones | (std::uint64_t{1} << (m - 1)) | (payload_left_aligned >> (64 - m));
    }
    case Specials::fn: return sign | all_ones_magnitude(f);
    case Specials::fnuz:
    case Specials::p3109: return sign_code(f);
    case Specials::finite: return 0;
  }
  throw std::logic_error("unknown Specials");
}
std::uint64_t infinity_code(const Format& f, bool negative) {
  const std::uint64_t sign = negative ? sign_code(f) : 0;
  return sign | (f.specials == Specials::ieee ? all_ones_magnitude(f) - f.mantissa_mask() : all_ones_magnitude(f));
}
bool has_infinity(const Format& f) { return f.specials == Specials::ieee || f.specials == Specials::p3109; }

// A magnitude beyond max: IEEE directed rounding toward zero (or toward the other
// infinity) gives max; otherwise infinity, else NaN, else max.
std::uint64_t overflow(const Format& f, bool negative, mpfr_rnd_t rnd) {
  const std::uint64_t sign = negative ? sign_code(f) : 0;
  const bool toward_finite = rnd == MPFR_RNDZ || (rnd == MPFR_RNDU && negative) || (rnd == MPFR_RNDD && !negative);
  if (toward_finite || f.specials == Specials::finite) return sign | largest_finite_code(f);
  if (has_infinity(f)) return infinity_code(f, negative);
  return nan_code(f, negative, std::uint64_t{1} << 63);
}

std::uint64_t zero(const Format& f, bool negative) {
  if (!f.has_zero) return negative ? sign_code(f) : 0;  // no zero (E8M0): the smallest value of that sign
  const bool negative_zero_exists = f.is_signed && f.specials != Specials::fnuz && f.specials != Specials::p3109;
  return negative && negative_zero_exists ? sign_code(f) : 0;
}

}  // namespace

std::uint64_t largest_finite_code(const Format& f) {
  switch (f.specials) {
    case Specials::ieee: return all_ones_magnitude(f) - f.mantissa_mask() - 1;  // exponent all ones is special
    case Specials::fn:
    case Specials::p3109: return all_ones_magnitude(f) - 1;  // all-ones is NaN (fn) or infinity (p3109)
    case Specials::finite:
    case Specials::fnuz: return all_ones_magnitude(f);
  }
  throw std::logic_error("unknown Specials");
}
void exact_value_of(mpfr_t out, std::uint64_t code, const Format& f) {
  const int m = f.mantissa_bits;
  const bool negative = f.is_signed && (code & sign_code(f)) != 0;
  const std::uint64_t magnitude = code & all_ones_magnitude(f);
  const std::uint64_t field = magnitude >> m, fraction = magnitude & f.mantissa_mask();
  const bool is_nan = (f.specials == Specials::ieee && magnitude > infinity_code(f, false)) ||
                      (f.specials == Specials::fn && magnitude == all_ones_magnitude(f)) ||
                      ((f.specials == Specials::fnuz || f.specials == Specials::p3109) && code == sign_code(f));
  if (is_nan) return mpfr_set_nan(out);
  if (has_infinity(f) && magnitude == infinity_code(f, false)) return mpfr_set_inf(out, negative ? -1 : 1);
  if (field == 0 && f.has_zero) {  // zero and subnormals: fraction * 2^(1 - bias - M)
    mpfr_set_ui_2exp(out, fraction, 1 - f.bias - m, MPFR_RNDN);
  } else {  // normal: (2^M + fraction) * 2^(field - bias - M)
    mpfr_set_ui_2exp(out, (std::uint64_t{1} << m) | fraction, long(field) - f.bias - m, MPFR_RNDN);
  }
  if (negative) mpfr_neg(out, out, MPFR_RNDN);
}

std::uint64_t reference_round(mpfr_srcptr x, const Format& f, mpfr_rnd_t rnd) {
  if (mpfr_nan_p(x)) throw std::invalid_argument("reference_round: NaN has no magnitude; use the float overloads");
  return reference_compute([x](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_set(out, x, r); }, f, rnd);
}

std::uint64_t reference_compute(const std::function<int(mpfr_ptr, mpfr_rnd_t)>& operation, const Format& f,
                                mpfr_rnd_t rnd) {
  const int m = f.mantissa_bits;
  const long min_normal_exponent = (f.has_zero ? 1 : 0) - f.bias;  // of 1.0 * 2^e
  Mpfr rounded(m + 1);
  {
    // MPFR writes x = 0.1b... * 2^E, one above our 1.b... * 2^e. The smallest
    // positive value is 2^(min_normal_exponent - M) with subnormals, else the
    // smallest normal; emax is left wide open so that the format's own threshold
    // decides overflow below. MPFR's recipe: compute at M + 1 bits in the wide range
    // (inputs must lie in the current range), narrow the range, then check_range and
    // subnormalize, which use the ternary value so that nothing is rounded twice.
    const long smallest = f.has_subnormals() ? min_normal_exponent - m : min_normal_exponent;
    int ternary = operation(rounded.get(), rnd);
    if (mpfr_nan_p(rounded.get())) return nan_code(f, false, 0);  // invalid operation: the default NaN
    // An unsigned format has no negative numbers, however small.
    if (mpfr_signbit(rounded.get()) && !f.is_signed && !mpfr_zero_p(rounded.get())) return nan_code(f, false, 0);
    if (mpfr_inf_p(rounded.get())) {
      const bool negative = mpfr_signbit(rounded.get()) != 0;
      return has_infinity(f) ? infinity_code(f, negative) : overflow(f, negative, MPFR_RNDN);
    }
    ExponentRange range(smallest + 1, mpfr_get_emax());
    ternary = mpfr_check_range(rounded.get(), ternary, rnd);
    mpfr_subnormalize(rounded.get(), ternary, rnd);
  }
  const bool negative = mpfr_signbit(rounded.get()) != 0;
  if (mpfr_zero_p(rounded.get())) return zero(f, negative);  // underflow (E8M0: to its smallest value)

  Mpfr max_value(m + 1);
  exact_value_of(max_value.get(), largest_finite_code(f), f);
  if (mpfr_cmpabs(rounded.get(), max_value.get()) > 0) return overflow(f, negative, rnd);

  // Encode the rounded value: |rounded| = z * 2^e exactly.
  mpz_t z;
  mpz_init(z);
  const long e = mpfr_get_z_2exp(z, rounded.get());
  mpz_abs(z, z);
  const long lead = e + long(mpz_sizeinbase(z, 2)) - 1;
  std::uint64_t field = 0;
  long quantum = 0;
  if (lead < min_normal_exponent) {  // subnormal: exponent field 0, quantum fixed
    quantum = min_normal_exponent - m;
  } else {
    field = std::uint64_t(lead + f.bias);
    quantum = lead - m;
  }
  // significand in units of the quantum (exact: rounding left no bits below it)
  if (e >= quantum) mpz_mul_2exp(z, z, e - quantum);
  else mpz_fdiv_q_2exp(z, z, quantum - e);
  const std::uint64_t units = mpz_get_ui(z);
  mpz_clear(z);
  const std::uint64_t fraction = field == 0 && f.has_zero ? units : units - (std::uint64_t{1} << m);
  return (negative ? sign_code(f) : 0) | (field << m) | fraction;
}

std::uint64_t reference_round(float x, const Format& f, mpfr_rnd_t rnd) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  if (x != x) return f.has_nan() ? nan_code(f, bits >> 31, std::uint64_t(bits & 0x7fffff) << 41) : 0;
  Mpfr value(24);
  mpfr_set_flt(value.get(), x, MPFR_RNDN);  // exact
  return reference_round(value.get(), f, rnd);
}

std::uint64_t reference_round(double x, const Format& f, mpfr_rnd_t rnd) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  if (x != x) return f.has_nan() ? nan_code(f, bits >> 63, (bits & 0xfffffffffffffull) << 12) : 0;
  Mpfr value(53);
  mpfr_set_d(value.get(), x, MPFR_RNDN);  // exact
  return reference_round(value.get(), f, rnd);
}

double reference_value(std::uint64_t code, const Format& f) {
  Mpfr value(f.mantissa_bits + 1);
  exact_value_of(value.get(), code, f);
  return mpfr_get_d(value.get(), MPFR_RNDN);
}

}  // namespace softfloat::verify
