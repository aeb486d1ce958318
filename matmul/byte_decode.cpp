// The shift-and-scale rule of byte_decode.hpp for a format, with its exceptional codes
// found by comparison with the format's table of values.
#include "matmul/byte_decode.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace softfloat::matmul_detail {

namespace {
// The rule applied to one code, in scalar arithmetic (the caller keeps the default
// floating-point environment, so the product is rounded to nearest with subnormals).
std::uint32_t rule_bits(const ByteDecode& d, std::uint32_t code) {
  const float shifted = std::bit_cast<float>((code & d.magnitude_mask) << d.mantissa_shift);
  const std::uint32_t sign = (code & d.sign_bit) << d.sign_shift;
  return std::bit_cast<std::uint32_t>(shifted * d.scale) | sign;
}
}  // namespace

bool byte_decode_for(const Format& format, const float table[256], ByteDecode& decode) {
  const int exponent_bits = format.exponent_bits, mantissa_bits = format.mantissa_bits;
  // The scale 2^(127 - bias) must be a normal float, and the magnitude must fit fp32's
  // exponent and mantissa fields.
  if (format.total_bits() > 8 || mantissa_bits > 23 || exponent_bits > 8) return false;
  if (format.bias < 0 || format.bias > 253) return false;
  decode.magnitude_mask = std::uint32_t(format.magnitude_mask());
  decode.mantissa_shift = std::uint32_t(23 - mantissa_bits);
  decode.scale = std::ldexp(1.0f, 127 - format.bias);
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

}  // namespace softfloat::matmul_detail
