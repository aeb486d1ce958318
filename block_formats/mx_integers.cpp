// MX elements as integers (mx_integers.hpp) and the exact scalar loop of
// softfloat::mx_matmul: the definition of softfloat/mx_matmul.hpp in plain C++.
#include "block_formats/mx_integers.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace softfloat::block_formats_detail {

namespace {

// The integer of each 4- or 6-bit code of a float kind, value * 2^shift, from the
// element layout (sign, exponent, mantissa; bias 1 for E2M1 / E2M3, 3 for E3M2):
// a normal code is (2^M + mantissa) * 2^(exponent - 1) on the 2^-M * 2^(1 - bias) grid,
// a subnormal code (exponent 0) the mantissa itself, so value * 2^shift with
// shift = M + bias - 1 is (2^M + m) << (e - 1) or m. E2M1 (M = 1, bias 1, shift 1):
// 0, 1, 2, 3, 4, 6, 8, 12; E2M3 (M = 3, bias 1, shift 3): up to 15 << 2 = 60; E3M2
// (M = 2, bias 3, shift 4): up to 7 << 6 = 448.
template <int kExponentBits, int kMantissaBits>
constexpr std::array<std::int16_t, 1 << (1 + kExponentBits + kMantissaBits)> integer_table() {
  constexpr int kMagnitudes = 1 << (kExponentBits + kMantissaBits);
  std::array<std::int16_t, 2 * kMagnitudes> table{};
  for (int code = 0; code < kMagnitudes; ++code) {
    const int exponent = code >> kMantissaBits;
    const int mantissa = code & ((1 << kMantissaBits) - 1);
    const int magnitude = exponent == 0 ? mantissa : ((1 << kMantissaBits) + mantissa) << (exponent - 1);
    table[std::size_t(code)] = std::int16_t(magnitude);
    table[std::size_t(code + kMagnitudes)] = std::int16_t(-magnitude);
  }
  return table;
}
constexpr auto kE2M1 = integer_table<2, 1>();
constexpr auto kE2M3 = integer_table<2, 3>();
constexpr auto kE3M2 = integer_table<3, 2>();
static_assert(kE2M1[7] == 12 && kE2M1[15] == -12 && kE2M3[31] == 60 && kE3M2[31] == 448);

// A byte of two E2M1 codes to its two int8 integers, low nibble first.
constexpr std::array<std::array<std::int8_t, 2>, 256> e2m1_pair_table() {
  std::array<std::array<std::int8_t, 2>, 256> table{};
  for (int byte = 0; byte < 256; ++byte)
    table[std::size_t(byte)] = {std::int8_t(kE2M1[byte & 0xF]), std::int8_t(kE2M1[byte >> 4])};
  return table;
}
constexpr auto kE2M1Pairs = e2m1_pair_table();

// Twelve bits of the E2M3 stream (two codes) to their two int8 integers, first code
// first: three bytes hold four codes, read as two such halves.
constexpr std::array<std::array<std::int8_t, 2>, 4096> e2m3_pair_table() {
  std::array<std::array<std::int8_t, 2>, 4096> table{};
  for (std::size_t bits = 0; bits < 4096; ++bits)
    table[bits] = {std::int8_t(kE2M3[bits & 0x3F]), std::int8_t(kE2M3[bits >> 6])};
  return table;
}
constexpr auto kE2M3Pairs = e2m3_pair_table();

}  // namespace

int mx_integer_shift(mx::Element element) {
  switch (element) {
    case mx::Element::fp4_e2m1: return 1;
    case mx::Element::fp6_e2m3: return 3;
    case mx::Element::fp6_e3m2: return 4;
    case mx::Element::int8: return 6;
    default: return -1;
  }
}

bool mx_fits_int8(mx::Element element) {
  return element == mx::Element::fp4_e2m1 || element == mx::Element::fp6_e2m3 || element == mx::Element::int8;
}

void decode_mx_integers(const std::uint8_t* elements, mx::Element element, std::size_t count, std::int16_t* out) {
  switch (element) {
    case mx::Element::fp4_e2m1:  // two a byte, element 0 in the low nibble
      for (std::size_t i = 0; i < count / 2; ++i) {
        out[2 * i] = kE2M1[elements[i] & 0xF];
        out[2 * i + 1] = kE2M1[elements[i] >> 4];
      }
      return;
    case mx::Element::fp6_e2m3:
    case mx::Element::fp6_e3m2: {  // four in three bytes, a little-endian bit stream
      const auto& table = element == mx::Element::fp6_e2m3 ? kE2M3 : kE3M2;
      for (std::size_t i = 0; i < count / 4; ++i) {
        const std::uint32_t bits = std::uint32_t(elements[3 * i]) | std::uint32_t(elements[3 * i + 1]) << 8 |
                                   std::uint32_t(elements[3 * i + 2]) << 16;
        for (int e = 0; e < 4; ++e) out[4 * i + std::size_t(e)] = table[(bits >> (6 * e)) & 0x3F];
      }
      return;
    }
    default:  // MXINT8: the two's complement code is the integer
      for (std::size_t i = 0; i < count; ++i) out[i] = std::int8_t(elements[i]);
      return;
  }
}

void decode_mx_int8(const std::uint8_t* elements, mx::Element element, std::size_t count, std::int8_t* out) {
  switch (element) {
    case mx::Element::fp4_e2m1:
      for (std::size_t i = 0; i < count / 2; ++i) std::memcpy(out + 2 * i, kE2M1Pairs[elements[i]].data(), 2);
      return;
    case mx::Element::fp6_e2m3:
      for (std::size_t i = 0; i < count / 4; ++i) {
        const std::uint32_t bits = std::uint32_t(elements[3 * i]) | std::uint32_t(elements[3 * i + 1]) << 8 |
                                   std::uint32_t(elements[3 * i + 2]) << 16;
        std::memcpy(out + 4 * i, kE2M3Pairs[bits & 0xFFF].data(), 2);
        std::memcpy(out + 4 * i + 2, kE2M3Pairs[bits >> 12].data(), 2);
      }
      return;
    default:  // MXINT8
      std::memcpy(out, elements, count);
      return;
  }
}

bool mx_block_factor(std::uint8_t code, const std::int8_t* integers, int shift, float& factor) {
  if (code == 0xFF) {
    factor = std::numeric_limits<float>::quiet_NaN();
    return true;
  }
  if (std::abs(int(code) - 127) <= kMxScaleReach) {
    // A normal fp32 power of two, built from its exponent field.
    factor = std::bit_cast<float>(std::uint32_t(int(code) - shift) << 23);
    return true;
  }
  factor = 1.0f;
  return std::all_of(integers, integers + 32, [](std::int8_t v) { return v == 0; });
}

float mx_block_value(std::int32_t dot, std::uint8_t code_a, std::uint8_t code_b, int shift) {
  if (code_a == 0xFF || code_b == 0xFF) return std::numeric_limits<float>::quiet_NaN();
  // |dot| < 2^23 and the exponent lies in [-266, 254]: the fp64 product is exact, and
  // the conversion to fp32 is the one rounding.
  return float(std::ldexp(double(dot), int(code_a) + int(code_b) - 254 - shift));
}

void mx_matmul_exact_scalar(const MxRows& a, const MxRows& b, float* c, std::size_t ldc, std::size_t row_begin,
                            std::size_t row_end, std::size_t column_begin, std::size_t column_end) {
  const std::size_t k = a.blocks * 32;
  const int shift = mx_integer_shift(a.element) + mx_integer_shift(b.element);
  const std::size_t columns = column_end - column_begin;
  std::vector<std::int16_t> b_integers(columns * k), a_integers(k);
  for (std::size_t j = 0; j < columns; ++j)
    decode_mx_integers(b.elements + (column_begin + j) * b.row_bytes, b.element, k, b_integers.data() + j * k);
  for (std::size_t i = row_begin; i < row_end; ++i) {
    decode_mx_integers(a.elements + i * a.row_bytes, a.element, k, a_integers.data());
    const std::uint8_t* a_scales = a.scales + i * a.blocks;
    for (std::size_t j = 0; j < columns; ++j) {
      const std::int16_t* column = b_integers.data() + j * k;
      const std::uint8_t* b_scales = b.scales + (column_begin + j) * b.blocks;
      float sum = 0.0f;
      for (std::size_t t = 0; t < a.blocks; ++t) {
        std::int32_t dot = 0;  // |dot| <= 32 * 448 * 448 < 2^23
        for (std::size_t p = t * 32; p < t * 32 + 32; ++p) dot += std::int32_t(a_integers[p]) * column[p];
        sum += mx_block_value(dot, a_scales[t], b_scales[t], shift);
      }
      c[i * ldc + column_begin + j] = sum;
    }
  }
}

}  // namespace softfloat::block_formats_detail
