// The common case of Float's float conversions in a few integer operations: float ->
// code to nearest even for |x| normal in the format and below 2^max_exponent, and code
// -> float for normal codes. These are the SIMD fast path's formulas for one value
// (simd/quantize-inl.h has the derivation); every other input goes to
// round_to_format(), and both give its bits (all 2^32 floats and every code are
// checked against the MPFR-verified table in verify/exhaustive). The constants follow
// from the format's fields; a format whose normal range is not inside fp32's (or with
// M = 0, more than 22 mantissa bits, or no zero code) does not use the path.
//
//   encode: a = |x| bits, shift = 23 - M, lsb = (a >> shift) & 1,
//           code = (a + lsb + 2^(shift - 1) - 1 + ((bias - 127) << 23)) >> shift  (mod 2^32)
//   decode: bits = (g << shift) + ((127 - bias) << 23) for the magnitude g of a normal code
#pragma once

#include <cstdint>

#include "softfloat/format.hpp"

namespace softfloat::detail {

struct FastFloatPath {
  bool usable = false;
  std::uint32_t abs_mask = 0;     // 0x7FFFFFFF, or all ones for unsigned formats (negatives fail)
  std::uint32_t low = 0;          // float bits of the smallest normal: a - low < span takes the path
  std::uint32_t span = 0;         // up to 2^max_exponent, below which no rounding overflows
  std::uint32_t shift = 0;        // 23 - M
  std::uint32_t encode_add = 0;   // 2^(shift - 1) - 1 + ((bias - 127) << 23)
  std::uint32_t decode_add = 0;   // (127 - bias) << 23
  std::uint32_t sign_shift = 0;   // 31 - (E + M): the float's sign to the code's sign bit
  std::uint32_t sign_bit = 0;     // 0 for unsigned formats
  std::uint32_t magnitude_mask = 0;
  std::uint32_t normal_low = 0;   // magnitude of the smallest normal code (1 << M)
  std::uint32_t normal_span = 0;  // normal codes: g - normal_low < normal_span
};

constexpr FastFloatPath fast_float_path(const Format& f) {
  FastFloatPath p;
  const int m = f.mantissa_bits;
  const int low_field = f.min_normal_exponent() + 127, high_field = f.max_exponent() + 127;
  if (!f.valid() || !f.has_zero || m < 1 || m > 22 || f.total_bits() > 32 || low_field < 1 || high_field > 254 ||
      high_field <= low_field)
    return p;
  p.usable = true;
  p.abs_mask = f.is_signed ? 0x7FFFFFFFu : 0xFFFFFFFFu;
  p.low = std::uint32_t(low_field) << 23;
  p.span = (std::uint32_t(high_field) << 23) - p.low;
  p.shift = std::uint32_t(23 - m);
  p.encode_add = ((std::uint32_t{1} << (p.shift - 1)) - 1) + (std::uint32_t(f.bias - 127) << 23);
  p.decode_add = std::uint32_t(127 - f.bias) << 23;
  p.sign_shift = f.is_signed ? std::uint32_t(31 - (f.exponent_bits + m)) : 0;
  p.sign_bit = std::uint32_t(f.sign_bit());
  p.magnitude_mask = std::uint32_t(f.magnitude_mask());
  p.normal_low = std::uint32_t{1} << m;
  p.normal_span = std::uint32_t(f.max_finite_magnitude()) + 1 - p.normal_low;
  return p;
}

// The code of float bits u if the fast path takes them (true), else false.
constexpr bool fast_encode(const FastFloatPath& p, std::uint32_t u, std::uint32_t& code) {
  const std::uint32_t a = u & p.abs_mask;
  if (a - p.low >= p.span) return false;
  const std::uint32_t magnitude = (a + ((a >> p.shift) & 1u) + p.encode_add) >> p.shift;
  code = magnitude | ((u >> p.sign_shift) & p.sign_bit);
  return true;
}

// The float bits of `code` if it is normal (true), else false.
constexpr bool fast_decode(const FastFloatPath& p, std::uint32_t code, std::uint32_t& bits) {
  const std::uint32_t g = code & p.magnitude_mask;
  if (g - p.normal_low >= p.normal_span) return false;
  bits = ((g << p.shift) + p.decode_add) | ((code & p.sign_bit) << p.sign_shift);
  return true;
}

}  // namespace softfloat::detail
