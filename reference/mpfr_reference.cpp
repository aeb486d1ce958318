// MPFR reference rounding (see mpfr_reference.hpp). Written from the format's
// definition, deliberately without the library's rounding routine.
#include "softfloat/verify/mpfr_reference.hpp"

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

// A magnitude beyond max: `to_max` (saturation, or IEEE directed rounding toward
// zero or toward the other infinity) gives max; otherwise infinity, else NaN, else max.
std::uint64_t overflow_code(const Format& f, bool negative, bool to_max) {
  const std::uint64_t sign = negative ? sign_code(f) : 0;
  if (to_max || f.specials == Specials::finite) return sign | largest_finite_code(f);
  if (has_infinity(f)) return infinity_code(f, negative);
  return nan_code(f, negative, std::uint64_t{1} << 63);
}
std::uint64_t overflow(const Format& f, bool negative, mpfr_rnd_t rnd) {
  const bool toward_finite = rnd == MPFR_RNDZ || (rnd == MPFR_RNDU && negative) || (rnd == MPFR_RNDD && !negative);
  return overflow_code(f, negative, toward_finite);
}

std::uint64_t zero(const Format& f, bool negative) {
  if (!f.has_zero) return negative ? sign_code(f) : 0;  // no zero (E8M0): the smallest value of that sign
  const bool negative_zero_exists = f.is_signed && f.specials != Specials::fnuz && f.specials != Specials::p3109;
  return negative && negative_zero_exists ? sign_code(f) : 0;
}

// What an operation's result became on the format's grid.
enum class GridResult { nan, negative_in_unsigned, infinite, number };

// Rounds the result of `operation` onto the format's grid with MPFR's `rnd`: M + 1
// bits, the format's smallest exponent (with subnormals or without), and no upper
// limit, so that a value beyond max stays an ordinary number for the caller's
// overflow rule. `rounded` must have precision M + 1; for GridResult::infinite it
// holds the signed infinity.
GridResult round_onto_grid(mpfr_ptr rounded, const std::function<int(mpfr_ptr, mpfr_rnd_t)>& operation,
                           const Format& f, mpfr_rnd_t rnd) {
  const int m = f.mantissa_bits;
  const long min_normal_exponent = (f.has_zero ? 1 : 0) - f.bias;  // of 1.0 * 2^e
  // MPFR writes x = 0.1b... * 2^E, one above our 1.b... * 2^e. The smallest
  // positive value is 2^(min_normal_exponent - M) with subnormals, else the
  // smallest normal; emax is left wide open so that the format's own threshold
  // decides overflow. MPFR's recipe: compute at M + 1 bits in the wide range
  // (inputs must lie in the current range), narrow the range, then check_range and
  // subnormalize, which use the ternary value so that nothing is rounded twice.
  const long smallest = f.has_subnormals() ? min_normal_exponent - m : min_normal_exponent;
  int ternary = operation(rounded, rnd);
  if (mpfr_nan_p(rounded)) return GridResult::nan;  // invalid operation
  // An unsigned format has no negative numbers, however small.
  if (mpfr_signbit(rounded) && !f.is_signed && !mpfr_zero_p(rounded)) return GridResult::negative_in_unsigned;
  if (mpfr_inf_p(rounded)) return GridResult::infinite;
  ExponentRange range(smallest + 1, mpfr_get_emax());
  ternary = mpfr_check_range(rounded, ternary, rnd);
  // Only subnormals have fewer bits: a format without them (":nozero", or M = 0) keeps
  // M + 1 bits down to its smallest binade, where mpfr_subnormalize would cut them.
  if (f.has_subnormals()) mpfr_subnormalize(rounded, ternary, rnd);
  return GridResult::number;
}

bool beyond_max(mpfr_srcptr rounded, const Format& f) {
  Mpfr max_value(f.mantissa_bits + 1);
  exact_value_of(max_value.get(), largest_finite_code(f), f);
  return mpfr_cmpabs(rounded, max_value.get()) > 0;
}

// The code of a nonzero value on the grid (round_onto_grid) with |value| <= max.
std::uint64_t encode(mpfr_srcptr rounded, const Format& f) {
  const int m = f.mantissa_bits;
  const long min_normal_exponent = (f.has_zero ? 1 : 0) - f.bias;
  const bool negative = mpfr_signbit(rounded) != 0;
  // |rounded| = z * 2^e exactly.
  mpz_t z;
  mpz_init(z);
  const long e = mpfr_get_z_2exp(z, rounded);
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

// nearest_away, nearest_zero and odd, which MPFR does not offer: the two
// neighbours of the exact result on the grid are its RNDD and RNDU roundings, and
// the choice between them needs only exact comparisons.
GridResult round_between_neighbours(mpfr_ptr chosen, const std::function<int(mpfr_ptr, mpfr_rnd_t)>& operation,
                                    const Format& f, Rounding mode) {
  const int m = f.mantissa_bits;
  Mpfr below(m + 1), above(m + 1);
  const GridResult kind = round_onto_grid(below.get(), operation, f, MPFR_RNDD);
  if (kind != GridResult::number) {
    mpfr_set(chosen, below.get(), MPFR_RNDN);
    return kind;
  }
  round_onto_grid(above.get(), operation, f, MPFR_RNDU);
  // Exact: the value itself. Its sign, if it is zero, is MPFR's round-to-nearest one:
  // an exact zero sum of opposite signs is +0 in every mode but toward -infinity
  // (IEEE 754 6.3), and RNDD gave -0 here.
  if (mpfr_equal_p(below.get(), above.get())) return round_onto_grid(chosen, operation, f, MPFR_RNDN);
  const bool negative = mpfr_signbit(below.get()) != 0;
  bool take_above = false;
  if (mode == Rounding::odd) {
    // The neighbours are k * gap and (k + 1) * gap in magnitude, the gap being a
    // power of two (the grid's spacing next to the neighbour nearer zero, or the
    // smallest positive value when that neighbour is zero): exactly one of them is
    // an odd multiple of it, and zero counts as even. With M = 0 the neighbours of
    // x in (2^e, 2^(e+1)) are 1 * 2^e (odd) and 2 * 2^e.
    Mpfr gap(64), half_multiple(64);
    mpfr_sub(gap.get(), above.get(), below.get(), MPFR_RNDN);                 // exact: a power of two
    mpfr_div(half_multiple.get(), below.get(), gap.get(), MPFR_RNDN);         // exact: k < 2^53
    mpfr_div_2ui(half_multiple.get(), half_multiple.get(), 1, MPFR_RNDN);     // k / 2, exact
    take_above = mpfr_integer_p(half_multiple.get()) != 0;                    // k even: the odd one is above
  } else {
    // The midpoint has at most M + 2 significant bits. The exact result is compared
    // with it through a rounding at M + 2 bits: rounding is monotone and the midpoint
    // is representable, so a rounded value other than the midpoint is on the same
    // side as the exact one, and a rounded value equal to it is exact exactly when
    // the ternary value is 0 (otherwise the ternary value says on which side).
    Mpfr midpoint(m + 3), exact(m + 2);
    mpfr_add(midpoint.get(), below.get(), above.get(), MPFR_RNDN);  // exact at M + 3 bits
    mpfr_div_2ui(midpoint.get(), midpoint.get(), 1, MPFR_RNDN);
    const int ternary = operation(exact.get(), MPFR_RNDN);
    int side = mpfr_cmp(exact.get(), midpoint.get());
    if (side == 0) side = ternary > 0 ? -1 : ternary < 0 ? 1 : 0;
    if (side != 0) {
      take_above = side > 0;
    } else {  // a tie: away from zero is above for positives, below for negatives
      const bool away = mode == Rounding::nearest_away;
      take_above = away != negative;
    }
  }
  mpfr_set(chosen, take_above ? above.get() : below.get(), MPFR_RNDN);
  return kind;
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
  Mpfr rounded(f.mantissa_bits + 1);
  switch (round_onto_grid(rounded.get(), operation, f, rnd)) {
    case GridResult::nan:
    case GridResult::negative_in_unsigned: return nan_code(f, false, 0);
    case GridResult::infinite: {
      const bool negative = mpfr_signbit(rounded.get()) != 0;
      return has_infinity(f) ? infinity_code(f, negative) : overflow(f, negative, MPFR_RNDN);
    }
    case GridResult::number: break;
  }
  const bool negative = mpfr_signbit(rounded.get()) != 0;
  if (mpfr_zero_p(rounded.get())) return zero(f, negative);  // underflow (E8M0: to its smallest value)
  if (beyond_max(rounded.get(), f)) return overflow(f, negative, rnd);
  return encode(rounded.get(), f);
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

std::uint64_t reference_compute(const std::function<int(mpfr_ptr, mpfr_rnd_t)>& operation, const Format& f,
                                Rounding mode, Overflow policy) {
  mpfr_rnd_t rnd = MPFR_RNDN;
  bool between_neighbours = false;
  switch (mode) {
    case Rounding::nearest_even: rnd = MPFR_RNDN; break;
    case Rounding::toward_zero: rnd = MPFR_RNDZ; break;
    case Rounding::away_from_zero: rnd = MPFR_RNDA; break;
    case Rounding::up: rnd = MPFR_RNDU; break;
    case Rounding::down: rnd = MPFR_RNDD; break;
    case Rounding::nearest_away:
    case Rounding::nearest_zero:
    case Rounding::odd: between_neighbours = true; break;
    case Rounding::stochastic:
    case Rounding::stochastic_equal:
      throw std::invalid_argument("reference_compute: stochastic rounding has no single correct result");
  }
  const bool saturate = policy == Overflow::saturate;
  Mpfr rounded(f.mantissa_bits + 1);
  const GridResult kind = between_neighbours ? round_between_neighbours(rounded.get(), operation, f, mode)
                                             : round_onto_grid(rounded.get(), operation, f, rnd);
  const bool negative = mpfr_signbit(rounded.get()) != 0;
  switch (kind) {
    case GridResult::nan:
    case GridResult::negative_in_unsigned: return nan_code(f, false, 0);
    case GridResult::infinite:
      // An exact infinity: kept where the format has one, unless saturating;
      // otherwise the format's round-to-nearest overflow code, whatever the mode.
      if (saturate) return overflow_code(f, negative, true);
      return has_infinity(f) ? infinity_code(f, negative) : overflow(f, negative, MPFR_RNDN);
    case GridResult::number: break;
  }
  if (mpfr_zero_p(rounded.get())) return zero(f, negative);
  if (beyond_max(rounded.get(), f)) {
    // IEEE 754 7.4: roundTowardZero, and rounding toward the infinity of the other
    // sign, carry an overflow to the largest finite magnitude. So does round-to-odd:
    // truncation (RNDZ, which stops at max) with a sticky last bit, and of the two
    // neighbours of a value beyond max only max itself is finite.
    const bool toward_finite = mode == Rounding::toward_zero || mode == Rounding::odd ||
                               (mode == Rounding::up && negative) || (mode == Rounding::down && !negative);
    return overflow_code(f, negative, saturate || toward_finite);
  }
  return encode(rounded.get(), f);
}

std::uint64_t reference_round(mpfr_srcptr x, const Format& f, Rounding mode, Overflow policy) {
  if (mpfr_nan_p(x)) throw std::invalid_argument("reference_round: NaN has no magnitude; use the float overloads");
  return reference_compute([x](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_set(out, x, r); }, f, mode, policy);
}

// NaN does not depend on the mode or the policy: the round-to-nearest overloads
// encode it.
std::uint64_t reference_round(float x, const Format& f, Rounding mode, Overflow policy) {
  if (x != x) return reference_round(x, f);
  Mpfr value(24);
  mpfr_set_flt(value.get(), x, MPFR_RNDN);  // exact
  return reference_round(value.get(), f, mode, policy);
}

std::uint64_t reference_round(double x, const Format& f, Rounding mode, Overflow policy) {
  if (x != x) return reference_round(x, f);
  Mpfr value(53);
  mpfr_set_d(value.get(), x, MPFR_RNDN);  // exact
  return reference_round(value.get(), f, mode, policy);
}

double reference_value(std::uint64_t code, const Format& f) {
  Mpfr value(f.mantissa_bits + 1);
  exact_value_of(value.get(), code, f);
  return mpfr_get_d(value.get(), MPFR_RNDN);
}

}  // namespace softfloat::verify
