// The rules of byte_decode.hpp for a format, with their exceptional codes found by
// comparison with the format's table of values. Each scalar rule here mirrors its
// vector form in matvec-inl.h operation for operation.
#include "matmul/byte_decode.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "runtime/remembered.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::matmul_detail {

namespace {
// The fp32 rule applied to one code (ScaledByteRows::Load).
std::uint32_t rule_bits(const ByteDecode& d, std::uint32_t code) {
  const std::uint32_t magnitude = code & d.magnitude_mask;
  const std::uint32_t sign = (code & d.sign_bit) << d.sign_shift;
  if (magnitude < d.first_normal)
    return std::bit_cast<std::uint32_t>(float(int(magnitude)) * d.subnormal_scale) | sign;
  return ((magnitude << d.mantissa_shift) + d.exponent_offset) | sign;
}

// The half rule's fp16 code for one code (HalfByteRows::Load).
std::uint16_t half_code(const HalfByteDecode& d, std::uint32_t code) {
  const std::uint32_t extended = d.sign_extend ? std::uint32_t(std::int32_t(std::int8_t(code))) : code;
  return std::uint16_t((extended << d.half_shift) & d.half_mask);
}
std::uint32_t half_rule_bits(const HalfByteDecode& d, std::uint32_t code) {
  const float value = half_to_float(half_code(d, code));
  return std::bit_cast<std::uint32_t>(std::isnan(value) ? value : value * d.scale);
}
}  // namespace

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000) << 16, field = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  if (field == 0x1F)  // infinity, or NaN made quiet with its payload
    return std::bit_cast<float>(sign | 0x7F800000 | (mantissa << 13) | (mantissa != 0 ? 0x400000 : 0));
  // Field 0: mantissa * 2^-24, exact (a normal power of two times a small integer).
  // Otherwise 2^(field - 15) * 1.mantissa: the exponent field rebiased by 127 - 15 and
  // the mantissa on top of fp32's. Worked value: 0x3C01 -> (15 + 112) << 23 | 1 << 13 =
  // 0x3F802000 = 1 + 2^-10.
  const std::uint32_t magnitude = field == 0 ? std::bit_cast<std::uint32_t>(float(mantissa) * 0x1p-24f)
                                             : (field + 112) << 23 | mantissa << 13;
  return std::bit_cast<float>(magnitude | sign);
}

bool byte_decode_for(const Format& format, const float table[256], ByteDecode& decode) {
  const int exponent_bits = format.exponent_bits, mantissa_bits = format.mantissa_bits;
  if (format.total_bits() > 8 || mantissa_bits > 23 || exponent_bits > 8) return false;
  // The subnormals' scale must be a normal float.
  const int subnormal_exponent = 1 - format.bias - mantissa_bits;
  if (subnormal_exponent < -126 || subnormal_exponent > 127) return false;
  decode.magnitude_mask = std::uint32_t(format.magnitude_mask());
  decode.mantissa_shift = std::uint32_t(23 - mantissa_bits);
  decode.exponent_offset = std::uint32_t(127 - format.bias) << 23;
  decode.first_normal = std::uint32_t{1} << mantissa_bits;
  decode.subnormal_scale = std::ldexp(1.0f, subnormal_exponent);
  decode.sign_bit = std::uint32_t(format.sign_bit());
  decode.sign_shift = std::uint32_t(31 - exponent_bits - mantissa_bits);
  decode.exception_code = 256;
  decode.exception_from = 256;
  // The exceptional code of smallest magnitude goes to exception_code, the smallest
  // magnitude among the others to exception_from.
  int smallest = -1;
  for (std::uint32_t code = 0; code < 256; ++code) {
    if (rule_bits(decode, code) == std::bit_cast<std::uint32_t>(table[code])) continue;
    if (smallest < 0 || (code & decode.magnitude_mask) < (std::uint32_t(smallest) & decode.magnitude_mask))
      smallest = int(code);
  }
  if (smallest < 0) return true;
  decode.exception_code = std::uint32_t(smallest);
  for (std::uint32_t code = 0; code < 256; ++code) {
    if (code == decode.exception_code) continue;
    if (rule_bits(decode, code) != std::bit_cast<std::uint32_t>(table[code]))
      decode.exception_from = std::min(decode.exception_from, code & decode.magnitude_mask);
  }
  return true;
}

bool half_byte_decode_for(const Format& format, const float table[256], HalfByteDecode& decode) {
  const int exponent_bits = format.exponent_bits, mantissa_bits = format.mantissa_bits;
  if (format.total_bits() != 8 || exponent_bits > 5 || mantissa_bits > 10) return false;
  const int scale_exponent = 15 - format.bias;
  if (scale_exponent < -100 || scale_exponent > 100) return false;
  const std::uint32_t magnitude_mask = std::uint32_t(format.magnitude_mask());
  decode.sign_extend = format.is_signed;
  decode.half_shift = std::uint32_t(10 - mantissa_bits);
  decode.half_mask = (format.is_signed ? 0x8000u : 0u) | (magnitude_mask << decode.half_shift);
  decode.scale = std::ldexp(1.0f, scale_exponent);
  decode.exception_from = 256;
  for (std::uint32_t code = 0; code < 256; ++code)
    if (half_rule_bits(decode, code) != std::bit_cast<std::uint32_t>(table[code]))
      decode.exception_from = std::min(decode.exception_from, code & magnitude_mask);
  // Exceptions among the small magnitudes would send most lanes to the table.
  return decode.exception_from > magnitude_mask / 2;
}

const ByteCodeRules& byte_code_rules(const Format& format) {
  thread_local detail::Remembered<Format, ByteCodeRules, 4> remembered;
  return remembered.get(format, [&] {
    ByteCodeRules rules;
    std::uint8_t codes[256];
    for (int c = 0; c < 256; ++c) codes[c] = std::uint8_t(c);
    simd::dequantize(codes, 256, rules.table, format);
    rules.half_applies = half_byte_decode_for(format, rules.table, rules.half);
    rules.fp32_applies = byte_decode_for(format, rules.table, rules.fp32);
    for (const float v : rules.table)
      if (std::isfinite(v)) rules.largest_finite = std::max(rules.largest_finite, std::fabs(v));
    return rules;
  });
}

}  // namespace softfloat::matmul_detail
