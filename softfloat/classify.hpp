// Comparison, classification and neighbours of Float values: IEEE 754 semantics
// (NaN is unordered, -0 == +0), computed on the codes. Every convention keeps the
// magnitude codes in the order of their values (infinity sits above max), so an
// order on codes is an order on values.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <functional>

#include "softfloat/float.hpp"
#include "softfloat/round_to_format.hpp"

namespace softfloat {

template <FloatType F> constexpr bool isnan(F x) { return F::format.is_nan(x.bits()); }
template <FloatType F> constexpr bool isinf(F x) { return F::format.is_infinite(x.bits()); }
template <FloatType F> constexpr bool isfinite(F x) { return !isnan(x) && !isinf(x); }
template <FloatType F> constexpr bool is_zero(F x) { return F::format.is_zero(x.bits()); }
// The sign bit. The lone NaN of fnuz and P3109 formats sits at the negative-zero
// code but has no sign: signbit is false for it.
template <FloatType F> constexpr bool signbit(F x) {
  return F::format.is_negative(x.bits()) && !(isnan(x) && F::format.nan_at_negative_zero());
}
template <FloatType F> constexpr bool isnormal(F x) {
  return isfinite(x) && !is_zero(x) && (F::format.magnitude(x.bits()) >> F::format.mantissa_bits != 0 || !F::format.has_zero);
}
// (is_zero and is_subnormal: glibc defines iszero and issubnormal as macros.)
template <FloatType F> constexpr bool is_subnormal(F x) { return isfinite(x) && !is_zero(x) && !isnormal(x); }
// FP_NAN, FP_INFINITE, FP_ZERO, FP_SUBNORMAL or FP_NORMAL, as std::fpclassify.
template <FloatType F> constexpr int fpclassify(F x) {
  if (isnan(x)) return FP_NAN;
  if (isinf(x)) return FP_INFINITE;
  if (is_zero(x)) return FP_ZERO;
  return isnormal(x) ? FP_NORMAL : FP_SUBNORMAL;
}

namespace detail {
// A key that orders non-NaN codes by value: the magnitude, negated for negative
// numbers; both zeros map to 0.
template <FloatType F> constexpr std::int64_t order_key(F x) {
  const auto magnitude = std::int64_t(F::format.magnitude(x.bits()));
  return F::format.is_negative(x.bits()) ? -magnitude : magnitude;
}
}  // namespace detail

template <FloatType F> constexpr bool operator==(F a, F b) {
  return !isnan(a) && !isnan(b) && detail::order_key(a) == detail::order_key(b);
}
template <FloatType F> constexpr std::partial_ordering operator<=>(F a, F b) {
  if (isnan(a) || isnan(b)) return std::partial_ordering::unordered;
  return detail::order_key(a) <=> detail::order_key(b);
}

template <FloatType F> constexpr F abs(F x) {
  if (isnan(x) || !F::format.is_signed) return x;
  return F::from_bits(typename F::storage_type(round_to_format([&] {
    auto value = decode(x.bits(), F::format);
    value.negative = false;
    return value;
  }(), F::format)));
}
// IEEE 754-2019 minimumNumber / maximumNumber: a NaN operand is ignored, -0 < +0.
template <FloatType F> constexpr F min(F a, F b) {
  if (isnan(a)) return b;
  if (isnan(b)) return a;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
template <FloatType F> constexpr F max(F a, F b) {
  if (isnan(a)) return b;
  if (isnan(b)) return a;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}

// IEEE nextUp: the least value above x. NaN stays NaN; +infinity stays; the next
// value above max is +infinity where the format has one, and max stays max where
// it has none; -0 and +0 go to the smallest positive value.
template <FloatType F> constexpr F next_up(F x) {
  using S = typename F::storage_type;
  constexpr Format f = F::format;
  if (isnan(x)) return x;
  const std::uint64_t magnitude = f.magnitude(x.bits());
  if (f.is_negative(x.bits()) && !is_zero(x)) {  // toward zero: magnitude - 1
    if (isinf(x)) return F::lowest();
    if (magnitude == 1) return F::from_bits(S(f.zero_code(true)));
    return F::from_bits(S(f.sign_bit() | (magnitude - 1)));
  }
  if (is_zero(x)) return F::min_subnormal();
  if (isinf(x) || magnitude == f.max_finite_magnitude()) return f.has_infinity() ? F::from_bits(S(f.infinity_magnitude())) : x;
  return F::from_bits(S(magnitude + 1));
}
// IEEE nextDown: the greatest value below x (the mirror image of next_up).
template <FloatType F> constexpr F next_down(F x) {
  using S = typename F::storage_type;
  constexpr Format f = F::format;
  if (isnan(x)) return x;
  const std::uint64_t magnitude = f.magnitude(x.bits());
  if (!f.is_negative(x.bits()) && !is_zero(x)) {  // toward zero: magnitude - 1
    if (isinf(x)) return F::max();
    if (magnitude == 0) return x;  // the smallest value of a format without zero
    if (magnitude == 1 && f.has_zero) return F::from_bits(S(f.zero_code(false)));
    return F::from_bits(S(magnitude - 1));
  }
  if (!f.is_signed) return x;  // +0 of an unsigned format has nothing below
  if (is_zero(x)) return F::from_bits(S(f.sign_bit() | 1));
  if (isinf(x) || magnitude == f.max_finite_magnitude())
    return f.has_infinity() ? F::from_bits(S(f.sign_bit() | f.infinity_magnitude())) : x;
  return F::from_bits(S(f.sign_bit() | (magnitude + 1)));
}

// The unit in the last place of x: the gap between |x| and the next larger
// magnitude, 2^(quantum of x's binade). Always representable: the quantum is never
// below the smallest subnormal (or the smallest value where there are none).
// ulp(0) is the smallest positive value; ulp of an infinity is +infinity and of NaN
// is NaN.
template <FloatType F> constexpr F ulp(F x) {
  constexpr Format f = F::format;
  if (isnan(x)) return x;
  if (isinf(x)) return abs(x);
  if (is_zero(x)) return F::min_subnormal();
  const std::uint64_t field = f.magnitude(x.bits()) >> f.mantissa_bits;
  const int binade = (field == 0 && f.has_zero ? 1 : int(field)) - f.bias;
  return F::from_exact(ExactValue{ValueClass::finite, false, 1, binade - f.mantissa_bits});
}

}  // namespace softfloat

// Hashes agree with ==: -0 and +0 hash alike (NaN, unequal to itself, may hash anyhow).
template <int E, int M, int B, bool I, softfloat::Specials S, bool G, bool Z>
struct std::hash<softfloat::Float<E, M, B, I, S, G, Z>> {
  std::size_t operator()(softfloat::Float<E, M, B, I, S, G, Z> x) const noexcept {
    using Storage = typename softfloat::Float<E, M, B, I, S, G, Z>::storage_type;
    const Storage bits = softfloat::is_zero(x) ? Storage{0} : x.bits();
    return std::hash<Storage>{}(bits);
  }
};
