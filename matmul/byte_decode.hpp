// Decoding one-byte codes to fp32 in registers, for the matrix-vector path, which is
// bound by the bytes of B and must not spend a table gather per element. Two rules, each
// checked against the format's table (simd::dequantize) on all 256 codes; the codes a
// rule misses (infinities, NaNs, the smallest codes of a format without zero) are marked
// as "the code exception_code, and every magnitude from exception_from on", whose lanes
// the kernel takes from the table instead. The kernel checks its rule once more, in
// vectors on its own target, against the table before it uses it.
//
// The fp32 rule (ByteDecode), for a format with E exponent and M mantissa bits and bias
// b, code c with magnitude bits g = c & magnitude_mask (exponent field e, mantissa m):
//   e >= 1: fp32 bits (g << (23 - M)) + ((127 - b) << 23): exponent field e + 127 - b,
//           the format's mantissa on top of fp32's, so the value 2^(e - b) * 1.m;
//   e = 0:  float(g) * 2^(1 - b - M) = m * 2^(1 - b - M), a product of a small integer
//           and a normal power of two, exact;
// the sign bit moved to bit 31. Everything is built in the integer domain or from normal
// floats: an fp32 subnormal operand (the shifted bits of a subnormal code, as an earlier
// rule multiplied) costs a microcode assist of about 150 cycles on Intel cores.
//
// The half rule (HalfByteDecode), for 8-bit formats with E <= 5: the code's fields
// placed where fp16 keeps its own, h = sign << 15 | g << (10 - M), is an fp16 code
// whose value is the format's times 2^(b - 15) (subnormals land on fp16 subnormals, as
// both have exponent field 0), and the F16C conversion (vcvtph2ps; Highway's
// PromoteTo) turns it into fp32 exactly, subnormals, infinities and NaNs included, in
// one instruction. E5M2 is fp16's top byte (h = c << 8, scale 1: no exceptions);
// E4M3 is h = (sign-extended c << 7) & 0b1'0'1111'111'0000000, times 2^(15 - 7) = 256,
// missing only the NaNs 0x7F / 0xFF (h = 0x3F80, 1.875 * 256 = 480).
#pragma once

#include <cstdint>

#include "softfloat/format.hpp"

namespace softfloat::matmul_detail {

struct ByteDecode {
  std::uint32_t magnitude_mask;
  std::uint32_t mantissa_shift;   // 23 - M
  std::uint32_t exponent_offset;  // (127 - bias) << 23, modulo 2^32
  std::uint32_t first_normal;     // 1 << M: smaller magnitudes are subnormal
  float subnormal_scale;          // 2^(1 - bias - M)
  std::uint32_t sign_bit;         // 0 for unsigned formats
  std::uint32_t sign_shift;       // 31 - (E + M): moves the sign bit to bit 31
  std::uint32_t exception_code;   // 256: none
  std::uint32_t exception_from;   // magnitudes >= this come from the table (256: none)
  friend bool operator==(const ByteDecode&, const ByteDecode&) = default;
};

// The fp32 rule for `format`, whose 256 code values (simd::dequantize) are `table`;
// false when it does not apply: a format wider than a byte, or a subnormal scale
// 2^(1 - bias - M) that is not a normal float.
bool byte_decode_for(const Format& format, const float table[256], ByteDecode& decode);

struct HalfByteDecode {
  bool sign_extend;               // signed formats (sign bit 7): sign-extend, then mask
  std::uint32_t half_shift;       // 10 - M
  std::uint32_t half_mask;        // the bits of h kept after the shift: sign, exponent, mantissa
  float scale;                    // 2^(15 - bias)
  std::uint32_t exception_from;   // magnitudes >= this come from the table (256: none)
  friend bool operator==(const HalfByteDecode&, const HalfByteDecode&) = default;
};

// The half rule for `format` (table as above); false when it does not apply: a format
// of other than 8 bits, E > 5, a scale outside 2^-100 .. 2^100, or an exceptional code
// below the largest magnitudes (the kernel tests one magnitude bound only).
bool half_byte_decode_for(const Format& format, const float table[256], HalfByteDecode& decode);

// The fp32 value of the fp16 code h, as F16C converts it: exact, NaNs keep their payload
// (shifted up by 13) and are made quiet.
float half_to_float(std::uint16_t h);

// A one-byte format's 256 code values (simd::dequantize's) and which of the two rules
// above apply to it. Deriving the rules checks each on all 256 codes, which had cost a
// matrix-vector product of 16 x 16 E5M2 codes 2.4 of its 3.0 us on the Zen 4 EPYC.
struct ByteCodeRules {
  alignas(64) float table[256] = {};
  bool half_applies = false;
  HalfByteDecode half{};
  bool fp32_applies = false;
  ByteDecode fp32{};
  float largest_finite = 0.0f;  // the largest finite magnitude among the values
};
// byte_code_rules(format), derived once per thread and format (runtime/remembered.hpp):
// the reference stays valid until this thread's next call.
const ByteCodeRules& byte_code_rules(const Format& format);

}  // namespace softfloat::matmul_detail
