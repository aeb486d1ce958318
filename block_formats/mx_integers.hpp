// The exact integer view of MX elements that softfloat::mx_matmul multiplies
// (softfloat/mx_matmul.hpp): each element kind's values times 2^shift are integers, so
// a block's dot product is an exact int32, and the block's value is that integer times
// 2^(sa - 127 + sb - 127 - shift_a - shift_b). Shared by the exact scalar loop and the
// AVX512-VNNI and AMX kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "softfloat/mx.hpp"

namespace softfloat::block_formats_detail {

// One operand as mx_matmul reads it, checked: `rows` rows of k values (k a multiple of
// 32), row r's elements at elements + r * row_bytes, its k / 32 scales at
// scales + r * blocks.
struct MxRows {
  const std::uint8_t* elements = nullptr;
  const std::uint8_t* scales = nullptr;
  mx::Element element = mx::Element::fp4_e2m1;
  std::size_t row_bytes = 0;
  std::size_t blocks = 0;
};

// log2 of the power of two that makes the kind's values integers: E2M1 1 (values * 2 in
// [-12, 12]), E2M3 3 ([-60, 60]), E3M2 4 ([-448, 448]), MXINT8 6 (the code itself).
// -1 for the kinds mx_matmul refuses (MXFP8).
int mx_integer_shift(mx::Element element);

// Whether every value of the kind times 2^shift fits int8 (E2M1, E2M3, MXINT8).
bool mx_fits_int8(mx::Element element);

// The `count` integers (value * 2^shift) of a row's packed elements; count is a
// multiple of 4 (whole bytes for every packing).
void decode_mx_integers(const std::uint8_t* elements, mx::Element element, std::size_t count, std::int16_t* out);

// The same as int8 for the kinds that fit it (mx_fits_int8), by byte-wide tables.
void decode_mx_int8(const std::uint8_t* elements, mx::Element element, std::size_t count, std::int8_t* out);

// x_t of the definition: fl(D * 2^(code_a - 127 + code_b - 127 - shift)), NaN when a
// scale code is 0xFF. Exact unless the value leaves fp32's normal range.
float mx_block_value(std::int32_t dot, std::uint8_t code_a, std::uint8_t code_b, int shift);

// The kernels' factor of one block, 2^(code - 127 - shift) (NaN for the NaN scale
// 0xFF), for scaling a block's int32 sum D in fp32: D * factor_b is exact and
// fma(D * factor_b, factor_a, s) = fl(s + x_t) when both codes lie within
// kMxScaleReach of 127 (the factors are then in [2^-60, 2^54] and D * factor_b *
// factor_a, with at most 20 significant bits, stays in fp32's normal range). A block
// whose `integers` (its 32 elements) are all zero gets factor 1 whatever its scale (D
// = 0). False when the block needs the exact scalar loop: a nonzero block whose scale
// is outside that reach.
inline constexpr int kMxScaleReach = 54;
bool mx_block_factor(std::uint8_t code, const std::int8_t* integers, int shift, float& factor);

// C[i][j] (at c + i * ldc + j) for rows [row_begin, row_end) and columns
// [column_begin, column_end), by the definition: exact int32 block sums, each block's
// value rounded once to fp32, the blocks added in k order.
void mx_matmul_exact_scalar(const MxRows& a, const MxRows& b, float* c, std::size_t ldc, std::size_t row_begin,
                            std::size_t row_end, std::size_t column_begin, std::size_t column_end);

// Whether the CPU has AVX512-VNNI (with AVX512F / BW) and the build compiled the kernel.
bool mx_vnni_supported();

// The whole product C (m x n, dense) by the vpdpbusd kernel, both kinds int8 kinds,
// split among threads by columns; tiles whose scales leave the kernel's exact range
// are computed by mx_matmul_exact_scalar.
void mx_matmul_vnni(const MxRows& a, const MxRows& b, float* c, std::size_t m, std::size_t n, std::size_t k);

// Whether the CPU has AMX-INT8 tiles this process may use and the build compiled the
// kernel.
bool mx_amx_int8_supported();

// The whole product C (m x n, dense) by TDPBSSD on one-block tiles, both kinds int8
// kinds, split among threads by columns; tiles whose scales leave the kernel's exact
// range are computed by mx_matmul_exact_scalar.
void mx_matmul_amx_int8(const MxRows& a, const MxRows& b, float* c, std::size_t m, std::size_t n, std::size_t k);

}  // namespace softfloat::block_formats_detail
