// The general accumulator path: any Acc format, one running sum per element of C in k
// order, each step a fused multiply-add rounded to Acc by the one rounding routine.
// The product of two decoded inputs and its sum with the running value are exact
// (softfloat/wide_value.hpp, as in runtime::fma); round_to_format() then rounds once.
//
// Two implementations of that one definition:
//   accumulate_exact_scalar: the definition itself, one ExactValue step at a time; it
//     models the accumulator register and is the reference the tests hold the vector
//     path to.
//   the vector path (accumulate-inl.h, compiled per Highway target and dispatched at
//     run time): the sums of a row's columns in vector lanes, each step in double
//     arithmetic rounded to odd and then rounded to Acc by the array conversion; the
//     same bits, by the argument at the top of accumulate-inl.h, for every Acc that
//     accumulator_in_lanes() admits: those that quantize from double may take through
//     a float rounded to odd (double_input_via_float: at most 21 mantissa bits, smallest
//     quantum at least 2^-147, the vector algorithm's range) and that dequantize in
//     lanes. Wider or other Acc (FP32 itself, binary64, formats beyond fp32's range)
//     keep the scalar definition; so do the elements whose sum met an infinity or NaN,
//     computed again one by one.

// Highway compiles this file once per target, re-including accumulate-inl.h each time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "matmul/accumulate-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "matmul/accumulate-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "matmul/column_parts.hpp"
#include "matmul/kernels.hpp"
#include "runtime/float_environment.hpp"
#include "simd/array_constants.hpp"
#include "softfloat/arithmetic.hpp"
#include "softfloat/exact_value.hpp"
#include "softfloat/round_to_format.hpp"

namespace softfloat::matmul_detail {

HWY_EXPORT(AccumulateRows);
HWY_EXPORT(AccumulatorReadsPast);

namespace {

// Columns of B decoded at a time by the scalar definition: k x 512 floats.
constexpr std::size_t kColumnBlock = 512;

// One step of the definition: sum = round(x * y + sum) to Acc, as an Acc value.
ExactValue accumulate_step(float x, float y, const ExactValue& sum, const Format& accumulator) {
  const ExactValue step = detail::exact_fma(decode(x), decode(y), sum, Rounding::nearest_even);
  return decode(round_to_format(step, accumulator), accumulator);
}

float output_value(const ExactValue& sum) {
  return std::bit_cast<float>(std::uint32_t(round_to_format(sum, binary32_format)));
}

// The definition for one element: a_row (k floats) times column j of b (k rows of
// `width` floats).
float scalar_element(const float* a_row, const float* b, std::size_t width, std::size_t j, std::size_t k,
                     const Format& accumulator) {
  ExactValue sum{};  // +0
  for (std::size_t p = 0; p < k; ++p) sum = accumulate_step(a_row[p], b[p * width + j], sum, accumulator);
  return output_value(sum);
}

// The vector path's blocks: B's columns in blocks of about 2^18 floats (1 MiB, in L2)
// whatever k, padded by the dispatched target's vector so that a tail vector may read
// past the last row; A's rows in groups of 64 (the kernel takes four at a time).
constexpr std::size_t kBlockFloats = std::size_t{1} << 18;
constexpr std::size_t kRowGroup = 64;

void accumulate_in_lanes(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m,
                         std::size_t n, std::size_t k, const Format& accumulator,
                         const simd::detail::QuantizeConstants& quantize,
                         const simd::detail::DequantizeConstants& dequantize) {
  const std::size_t block = std::min(n, std::max<std::size_t>(64, kBlockFloats / std::max<std::size_t>(k, 1) / 64 * 64));
  const std::size_t rows = std::min(m, kRowGroup);
  std::vector<float> a_rows(rows * k), b_block(k * block + HWY_DYNAMIC_DISPATCH(AccumulatorReadsPast)());
  std::vector<std::uint8_t> special(rows * block);
  for (std::size_t j0 = 0; j0 < n; j0 += block) {
    const std::size_t width = std::min(block, n - j0);
    for (std::size_t p = 0; p < k; ++p) b.decode_row(p, j0, width, b_block.data() + p * width);
    for (std::size_t i0 = 0; i0 < m; i0 += rows) {
      const std::size_t count = std::min(rows, m - i0);
      for (std::size_t r = 0; r < count; ++r) a.decode_row(i0 + r, 0, k, a_rows.data() + r * k);
      float* out = s + i0 * lds + j0;
      const bool done = HWY_DYNAMIC_DISPATCH(AccumulateRows)(a_rows.data(), count, b_block.data(), width, k, out,
                                                             lds, special.data(), quantize, dequantize);
      if (!done) std::fill(special.begin(), special.end(), std::uint8_t{1});
      for (std::size_t r = 0; r < count; ++r)
        for (std::size_t j = 0; j < width; ++j)
          if (special[r * width + j])
            out[r * lds + j] = scalar_element(a_rows.data() + r * k, b_block.data(), width, j, k, accumulator);
    }
  }
}

}  // namespace

bool accumulator_in_lanes(const Format& accumulator) {
  return simd::detail::double_input_via_float(accumulator, Rounding::nearest_even) &&
         simd::detail::dequantize_supported(accumulator);
}

void accumulate_exact_scalar(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m,
                             std::size_t n, std::size_t k, const Format& accumulator) {
  const std::size_t block = std::min(n, kColumnBlock);
  std::vector<float> a_row(k), b_block(k * block);
  std::vector<ExactValue> sums(block);
  for (std::size_t j0 = 0; j0 < n; j0 += block) {
    const std::size_t width = std::min(block, n - j0);
    for (std::size_t p = 0; p < k; ++p) b.decode_row(p, j0, width, b_block.data() + p * width);
    for (std::size_t i = 0; i < m; ++i) {
      a.decode_row(i, 0, k, a_row.data());
      std::fill(sums.begin(), sums.end(), ExactValue{});  // +0
      for (std::size_t p = 0; p < k; ++p) {
        const float* b_row = b_block.data() + p * width;
        for (std::size_t j = 0; j < width; ++j) sums[j] = accumulate_step(a_row[p], b_row[j], sums[j], accumulator);
      }
      float* out = s + i * lds + j0;
      for (std::size_t j = 0; j < width; ++j) out[j] = output_value(sums[j]);
    }
  }
}

void accumulate_exact(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m,
                      std::size_t n, std::size_t k, const Format& accumulator) {
  if (!accumulator_in_lanes(accumulator)) return accumulate_exact_scalar(a, b, s, lds, m, n, k, accumulator);
  // TwoSum and the middle path of the rounding need round to nearest without FTZ / DAZ
  // (for_column_parts gives each worker the same environment).
  const softfloat::detail::ScopedDefaultFloatEnvironment environment;
  const simd::detail::QuantizeConstants quantize =
      simd::detail::quantize_constants(accumulator, Rounding::nearest_even, Overflow::standard);
  const simd::detail::DequantizeConstants dequantize = simd::detail::dequantize_constants(accumulator);
  for_column_parts(n, 64, double(m) * double(n) * double(k), [&](std::size_t begin, std::size_t end) {
    accumulate_in_lanes(a, b.from_column(begin), s + begin, lds, m, end - begin, k, accumulator, quantize,
                        dequantize);
  });
}

}  // namespace softfloat::matmul_detail
#endif  // HWY_ONCE
