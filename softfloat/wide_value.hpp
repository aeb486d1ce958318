// Exact intermediates for arithmetic: a 128-bit significand wide enough to hold the
// exact product of two 53-bit significands, exact sums of such values, exact
// quotients and square roots to more bits than any format keeps. The results go
// through narrow() into an ExactValue and from there into round_to_format(), so
// arithmetic rounds exactly once whatever the format.
//
// Why not compute in double and round once? That is exact for + - * / sqrt only
// when 2(M+1)+2 <= 53 and every intermediate stays in double's normal range, never
// for fma, and it would make the result depend on the FPU's rounding mode for the
// inexact operations. Integer arithmetic has neither limit.
#pragma once

#include <bit>
#include <cstdint>

#include "softfloat/exact_value.hpp"
#include "softfloat/portability.hpp"  // unsigned __int128

namespace softfloat::detail {

using uint128 = unsigned __int128;

constexpr int bit_width128(uint128 x) {
  const auto high = std::uint64_t(x >> 64);
  return high != 0 ? 64 + std::bit_width(high) : std::bit_width(std::uint64_t(x));
}

// |value| = (significand + tail) * 2^exponent; tail in (0, 1) iff sticky.
struct WideValue {
  bool negative = false;
  uint128 significand = 0;
  std::int64_t exponent = 0;
  bool sticky = false;
};

constexpr WideValue widen(const ExactValue& x) { return {x.negative, x.significand, x.exponent, x.sticky}; }

// Keeps the top 64 bits of the significand; anything below goes into sticky, which
// is all the rounding routine needs (it keeps at most 53 bits).
constexpr ExactValue narrow(const WideValue& w) {
  ExactValue x;
  x.negative = w.negative;
  if (w.significand == 0) {
    x.kind = ValueClass::zero;
    return x;
  }
  x.kind = ValueClass::finite;
  const int excess = bit_width128(w.significand) - 64;
  uint128 significand = w.significand;
  std::int64_t exponent = w.exponent;
  bool sticky = w.sticky;
  if (excess > 0) {
    sticky = sticky || (significand & ((uint128{1} << excess) - 1)) != 0;
    significand >>= excess;
    exponent += excess;
  }
  x.significand = std::uint64_t(significand);
  x.exponent = int(exponent);
  x.sticky = sticky;
  return x;
}

constexpr WideValue multiply(const ExactValue& a, const ExactValue& b) {
  return {a.negative != b.negative, uint128(a.significand) * b.significand,
          std::int64_t(a.exponent) + b.exponent, false};
}

// a + b for nonzero finite values with significands of at most 106 bits, exact
// except that bits of the smaller operand falling off the 128-bit frame are jammed
// into its last bit. Frame: the larger leading bit sits at bit 125, so a 106-bit
// operand's last bit is at bit 20 or above. Bits fall off only when the smaller
// operand is below 2^-19 of the larger; then the sum keeps its leading bit within
// one place, its rounding position is far above bit 0, and the jammed bit acts
// exactly as the sticky bit it stands for.
constexpr WideValue add(const WideValue& a, const WideValue& b) {
  const std::int64_t lead_a = a.exponent + bit_width128(a.significand) - 1;
  const std::int64_t lead_b = b.exponent + bit_width128(b.significand) - 1;
  const std::int64_t frame = (lead_a > lead_b ? lead_a : lead_b) - 125;  // weight of bit 0
  auto place = [frame](const WideValue& x) {
    const std::int64_t shift = x.exponent - frame;
    // A sticky tail of an operand shifted up stays below its last bit: jam it at bit 0.
    if (shift >= 0) return uint128(x.significand << shift) | uint128(x.sticky && shift > 0);
    if (shift <= -128) return uint128{1};  // all of it is below the frame: only a sticky bit
    const uint128 kept = x.significand >> -shift;
    const bool lost = (x.significand & ((uint128{1} << -shift) - 1)) != 0 || x.sticky;
    return kept | uint128(lost);
  };
  const uint128 sa = place(a), sb = place(b);
  WideValue sum;
  sum.exponent = frame;
  if (a.negative == b.negative) {
    sum.negative = a.negative;
    sum.significand = sa + sb;
  } else if (sa >= sb) {
    sum.negative = a.negative;
    sum.significand = sa - sb;
  } else {
    sum.negative = b.negative;
    sum.significand = sb - sa;
  }
  return sum;
}

// a / b for nonzero finite values: the dividend's leading bit is moved to bit 126,
// so the quotient of a <= 64-bit divisor keeps at least 62 bits; the remainder is
// the sticky bit.
constexpr WideValue divide(const ExactValue& a, const ExactValue& b) {
  const int shift = 126 - (std::bit_width(a.significand) - 1);
  const uint128 dividend = uint128(a.significand) << shift;
  WideValue q;
  q.negative = a.negative != b.negative;
  q.significand = dividend / b.significand;
  q.sticky = dividend % b.significand != 0;
  q.exponent = std::int64_t(a.exponent) - shift - b.exponent;
  return q;
}

// Integer square root of a 128-bit value, bit by bit (exact floor).
constexpr uint128 isqrt(uint128 n, bool& inexact) {
  uint128 root = 0, bit = uint128{1} << 126;
  while (bit > n) bit >>= 2;
  while (bit != 0) {
    if (n >= root + bit) {
      n -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  inexact = n != 0;
  return root;
}

// sqrt(a) for a positive finite value: the significand is shifted left by an even
// amount (with the exponent made even) to 125 or 126 bits, so the root has 63 bits.
constexpr WideValue square_root(const ExactValue& a) {
  int shift = 125 - (std::bit_width(a.significand) - 1);
  if ((std::int64_t(a.exponent) - shift) % 2 != 0) ++shift;
  bool inexact = false;
  WideValue r;
  r.significand = isqrt(uint128(a.significand) << shift, inexact);
  r.sticky = inexact;
  r.exponent = (std::int64_t(a.exponent) - shift) / 2;
  return r;
}

}  // namespace softfloat::detail
