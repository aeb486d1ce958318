// Decoding one-byte codes to fp32 in registers, for the matrix-vector path, which is
// bound by the bytes of B and must not spend a table gather per element.
//
// For a code c of a format with E exponent and M mantissa bits and bias b, place the
// magnitude bits g = c & magnitude_mask where fp32 keeps its own: the float with bits
// g << (23 - M) has exponent field e (the format's) and the format's mantissa on top of
// fp32's, so its value is 2^(e - 127) * 1.m for e >= 1 and m * 2^(-126 - M) for e = 0
// (an fp32 subnormal). Multiplying by 2^(127 - b) gives 2^(e - b) * 1.m and
// m * 2^(1 - b - M): the format's normal and subnormal values, exactly, since the
// product is a float (the call clears flush-to-zero and denormals-are-zero). The sign
// bit moves to bit 31. What this misses (infinities, NaNs, the smallest codes of a
// format without zero) differs from the true value only on a few codes: those are found by
// comparing with simd::dequantize over all 256 codes, and marked as "the code
// exception_code, and every magnitude from exception_from on", whose lanes the kernel
// takes from the table instead. The kernel checks the whole rule once more, in
// vectors on its own target, against the table before it uses it.
#pragma once

#include <cstdint>

#include "softfloat/format.hpp"

namespace softfloat::matmul_detail {

struct ByteDecode {
  std::uint32_t magnitude_mask;
  std::uint32_t mantissa_shift;  // 23 - M
  float scale;                   // 2^(127 - bias)
  std::uint32_t sign_bit;        // 0 for unsigned formats
  std::uint32_t sign_shift;      // 31 - (E + M): moves the sign bit to bit 31
  std::uint32_t exception_code;  // 256: none
  std::uint32_t exception_from;  // magnitudes >= this come from the table (256: none)
};

// The rule for `format`, whose 256 code values (simd::dequantize) are `table`; false
// when the shift-and-scale step does not apply: a bias outside 0 .. 253, for which the
// scale 2^(127 - bias) is not a normal float.
bool byte_decode_for(const Format& format, const float table[256], ByteDecode& decode);

}  // namespace softfloat::matmul_detail
