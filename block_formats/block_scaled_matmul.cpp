// Matrix multiply with block-scaled weights (softfloat/block_scaled_matmul.hpp): the
// arguments, and a kernel per element width, each decoding in registers: E2M1 and the
// 6-bit elements by runtime dispatch of block_scaled_matvec-inl.h, one-byte elements by
// matmul's half rule with column scales (matmul/kernels.hpp), or else a block of rows
// decoded into cache and accumulated by matmul's fp32 chain.

// Highway compiles this file once per target, re-including the kernel each time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_formats/block_scaled_matvec-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "block_formats/block_scaled_matvec-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_formats/packed_codes.hpp"
#include "matmul/kernels.hpp"
#include "runtime/float_environment.hpp"
#include "softfloat/block_scaled_matmul.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/nvfp4.hpp"
#include "softfloat/simd.hpp"

namespace softfloat {
namespace block_formats_detail {
HWY_EXPORT(AccumulateE2m1Rows);
HWY_EXPORT(E2m1SumsToColumns);
HWY_EXPORT(DecodeScaleRowInOrder);
HWY_EXPORT(AccumulateSixBitRows);
}  // namespace block_formats_detail

namespace {

namespace bsd = block_formats_detail;

constexpr std::size_t kMxBlockRows = 32;
constexpr std::size_t kNvfp4BlockRows = nvfp4::kBlockSize;
// NVIDIA's recipe's 1 / 2688 in fp32 (nvfp4.cpp's kOneOver2688).
constexpr float kOneOver2688 = float(1.0 / (6.0 * 448.0));

[[noreturn]] void refuse(const char* function, const std::string& why) {
  throw std::invalid_argument(std::string(function) + ": " + why);
}

// The element and scaling pairs the layout supports.
void check_kind(const char* function, mx::Element element, WeightScaling scaling) {
  if (element == mx::Element::int8) refuse(function, "MXINT8 weights are not supported (use an MX float element)");
  if (scaling == WeightScaling::nvfp4 && element != mx::Element::fp4_e2m1)
    refuse(function, "NVFP4 scaling needs E2M1 elements (mxfp4_e2m1)");
}

void check_weights(const char* function, const BlockScaledWeights& w) {
  check_kind(function, w.element, w.scaling);
  if (w.elements.size() < w.k * w.row_bytes())
    refuse(function, "the element span holds " + std::to_string(w.elements.size()) + " bytes; k x n needs " +
                         std::to_string(w.k * w.row_bytes()));
  if (w.scales.size() < w.scale_count())
    refuse(function, "the scale span holds " + std::to_string(w.scales.size()) + " codes; the layout needs " +
                         std::to_string(w.scale_count()));
  if (w.scaling == WeightScaling::nvfp4 && !(std::isfinite(w.tensor_amax) && w.tensor_amax >= 0.0f))
    refuse(function, "tensor_amax must be finite and not negative");
}

// The values of the first `count` codes of `format` (count <= 256), in code order.
void code_values(const Format& format, int count, float* values) {
  std::uint8_t codes[256];
  for (int c = 0; c < count; ++c) codes[c] = std::uint8_t(c);
  simd::dequantize(codes, std::size_t(count), values, format);
}

// The values of the 16 E2M1 codes, made once per process.
const float* e2m1_values() {
  static const auto values = [] {
    std::array<float, 16> v{};
    code_values(mx::element_format(mx::Element::fp4_e2m1), 16, v.data());
    return v;
  }();
  return values.data();
}

// One row of C for E2M1 weights, the sums in the kernel's layout (AccumulateE2m1Rows).
void matvec_e2m1(const float* x, const BlockScaledWeights& w, float* y) {
  const float* values = e2m1_values();
  const std::size_t n = w.n;
  // Room for each layout: nibble lanes fill whole chunks of 128 columns, byte lanes of
  // 64, the even and odd halves (n + 1) / 2 each.
  std::vector<float> sums((n + 127) / 128 * 128 + 1, 0.0f);  // the chains start from +0
  const bsd::UnscaledChainWindow window =
      w.scaling == WeightScaling::mx ? bsd::unscaled_chain_window(x, w.k) : bsd::UnscaledChainWindow{};
  const auto rows = [&](std::size_t p0, std::size_t count, const std::uint8_t* scale_codes) {
    HWY_DYNAMIC_DISPATCH(bsd::AccumulateE2m1Rows)(x + p0, w.elements.data() + p0 * w.row_bytes(), w.row_bytes(),
                                                  count, n, values, scale_codes, w.scaling == WeightScaling::nvfp4,
                                                  window, sums.data());
  };
  if (w.scaling == WeightScaling::none) {
    rows(0, w.k, nullptr);
  } else {
    const std::size_t block = w.block_rows();
    for (std::size_t p0 = 0; p0 < w.k; p0 += block)
      rows(p0, std::min(block, w.k - p0), w.scales.data() + p0 / block * n);
  }
  HWY_DYNAMIC_DISPATCH(bsd::E2m1SumsToColumns)(sums.data(), n, y);
}

// One row of C for one-byte elements (E4M3, E5M2) with MX scales or none, decoded in
// registers by matmul's half rule, each block's scale row decoded once: false (y
// untouched) where the rule does not fit the format on this target, or where a block's
// scale would take some weight past fp32's range (that block's products are then
// infinities, which the decoded path below gives).
bool matvec_bytes_in_registers(const float* x, const BlockScaledWeights& w, float* y) {
  const Format format = mx::element_format(w.element);
  const matmul_detail::ByteCodeRules& rules = matmul_detail::byte_code_rules(format);
  if (!rules.half_applies) return false;
  const float* table = rules.table;
  const matmul_detail::HalfByteDecode& half = rules.half;
  const std::size_t n = w.n, block = w.block_rows();
  if (w.scaling == WeightScaling::none) {
    std::fill(y, y + n, 0.0f);
    return matmul_detail::matvec_column_scaled_bytes(x, w.elements.data(), n, w.k, n, table, half, nullptr, y);
  }
  // The largest finite weight times each block's largest scale must stay finite.
  const float largest = rules.largest_finite;
  std::fill(y, y + n, 0.0f);
  std::vector<float> scale_row(n);
  for (std::size_t p0 = 0; p0 < w.k; p0 += block) {
    const float top = HWY_DYNAMIC_DISPATCH(bsd::DecodeScaleRowInOrder)(w.scales.data() + p0 / block * n, n, false,
                                                                       scale_row.data());
    // Past fp32's range, or x times the rule's scale overflows: the caller starts again.
    if (!std::isfinite(largest * top) ||
        !matmul_detail::matvec_column_scaled_bytes(x + p0, w.elements.data() + p0 * n, n, std::min(block, w.k - p0),
                                                   n, table, half, scale_row.data(), y))
      return false;
  }
  return true;
}

// One row of C for 6-bit elements (E2M3, E3M2), MX-scaled or plain, decoded in
// registers (six_bit_matvec-inl.h).
void matvec_six_bit(const float* x, const BlockScaledWeights& w, float* y) {
  const Format format = mx::element_format(w.element);
  float values[64];
  code_values(format, 64, values);
  const std::size_t n = w.n, block = w.block_rows(), row_bytes = w.row_bytes();
  std::fill(y, y + n, 0.0f);
  for (std::size_t p0 = 0; p0 < w.k; p0 += block) {
    const std::uint8_t* scale_codes = w.scaling == WeightScaling::none ? nullptr : w.scales.data() + p0 / block * n;
    HWY_DYNAMIC_DISPATCH(bsd::AccumulateSixBitRows)(x + p0, w.elements.data() + p0 * row_bytes, row_bytes, row_bytes,
                                                    std::min(block, w.k - p0), n, format.mantissa_bits, format.bias,
                                                    values, scale_codes, y);
  }
}

// One row of C for one-byte elements where matvec_bytes_in_registers declines: each
// block of rows decoded to fp32 (value times scale, exact; an extreme scale's products
// infinite, as the definition's), then the same chain.
void matvec_decoded_bytes(const float* x, const BlockScaledWeights& w, float* y) {
  const std::size_t n = w.n, block = w.block_rows();
  const Format format = mx::element_format(w.element);
  std::fill(y, y + n, 0.0f);
  // A block of rows, at most 32 (none: 32 at a time too), decoded into cache.
  const std::size_t rows_per_pass = std::min<std::size_t>(std::min<std::size_t>(block, 32), w.k);
  std::vector<float> rows(rows_per_pass * n), scale_row(n, 1.0f);
  for (std::size_t p0 = 0; p0 < w.k; p0 += rows_per_pass) {
    const std::size_t count = std::min(rows_per_pass, w.k - p0);
    if (w.scaling != WeightScaling::none)
      HWY_DYNAMIC_DISPATCH(bsd::DecodeScaleRowInOrder)(w.scales.data() + p0 / block * n, n, false, scale_row.data());
    for (std::size_t r = 0; r < count; ++r) {
      float* row = rows.data() + r * n;
      simd::dequantize(w.elements.data() + (p0 + r) * w.row_bytes(), n, row, format);
      if (w.scaling != WeightScaling::none)
        for (std::size_t j = 0; j < n; ++j) row[j] *= scale_row[j];
    }
    matmul_detail::matvec_rows_fp32(x + p0, rows.data(), n, count, n, y);
  }
}

// One row of C, by the element's kernel.
void matvec(const float* x, const BlockScaledWeights& w, float* y) {
  switch (mx::element_bits(w.element)) {
    case 4: return matvec_e2m1(x, w, y);
    case 6: return matvec_six_bit(x, w, y);
    default:
      if (!matvec_bytes_in_registers(x, w, y)) matvec_decoded_bytes(x, w, y);
  }
}

}  // namespace

std::size_t BlockScaledWeights::block_rows() const {
  switch (scaling) {
    case WeightScaling::mx: return kMxBlockRows;
    case WeightScaling::nvfp4: return kNvfp4BlockRows;
    case WeightScaling::none: break;
  }
  return std::max<std::size_t>(k, 1);
}

std::size_t BlockScaledWeights::scale_count() const {
  if (scaling == WeightScaling::none) return 0;
  return (k + block_rows() - 1) / block_rows() * n;
}

void matmul(const float* A, const BlockScaledWeights& W, float* C, std::size_t m, MatmulSummation summation) {
  static_cast<void>(summation);  // every order is the in-order chain here (see the header)
  constexpr const char* kFunction = "softfloat::matmul (block-scaled weights)";
  check_weights(kFunction, W);
  if (m > 0 && W.n > 0 && C == nullptr) refuse(kFunction, "C is null");
  if (m > 0 && W.k > 0 && A == nullptr) refuse(kFunction, "A is null");
  if (m == 0 || W.n == 0) return;
  detail::ScopedDefaultFloatEnvironment environment;
  const float g = W.tensor_amax * kOneOver2688;
  for (std::size_t i = 0; i < m; ++i) {
    float* y = C + i * W.n;
    matvec(A + i * W.k, W, y);
    if (W.scaling == WeightScaling::nvfp4)
      for (std::size_t j = 0; j < W.n; ++j) y[j] *= g;
  }
}

BlockScaledMatrix quantize_weights(const float* w, std::size_t k, std::size_t n, mx::Element element,
                                   WeightScaling scaling, mx::ScaleRule rule) {
  constexpr const char* kFunction = "softfloat::quantize_weights";
  if (w == nullptr && k * n > 0) refuse(kFunction, "w is null");
  BlockScaledMatrix q{element, scaling, k, n, {}, {}, 0.0f};
  const BlockScaledWeights shape{element, scaling, k, n, {}, {}, 0.0f};
  check_kind(kFunction, element, scaling);
  if (scaling == WeightScaling::nvfp4 && k % kNvfp4BlockRows != 0)
    refuse(kFunction, "NVFP4 weights need k a multiple of 16 (pad W with zero rows); k = " + std::to_string(k));
  const std::size_t row_bytes = shape.row_bytes();
  const int bits = mx::element_bits(element);
  q.elements.assign(k * row_bytes, 0);
  q.scales.assign(shape.scale_count(), 0);
  if (scaling == WeightScaling::none) {
    const Format format = mx::element_format(element);
    std::vector<std::uint8_t> codes(n);
    for (std::size_t p = 0; p < k; ++p) {
      simd::quantize(w + p * n, n, codes.data(), format, Rounding::nearest_even, Overflow::saturate);
      for (std::size_t j = 0; j < n; ++j) block_formats_detail::write_bits(q.elements.data() + p * row_bytes, j, bits, codes[j]);
    }
    return q;
  }
  // W's columns as rows (the blocks run along k), quantized, then laid out again.
  std::vector<float> columns(n * k);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j) columns[j * k + p] = w[p * n + j];
  if (scaling == WeightScaling::nvfp4) {
    std::vector<std::uint8_t> elements(nvfp4::element_bytes(n * k)), scales(nvfp4::scale_count(n * k));
    nvfp4::quantize(columns.data(), n * k, elements.data(), elements.size(), scales.data(), scales.size(),
                    &q.tensor_amax);
    const std::size_t blocks = k / kNvfp4BlockRows;
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t p = 0; p < k; ++p)
        block_formats_detail::write_bits(q.elements.data() + p * row_bytes, j, bits, block_formats_detail::read_bits(elements.data(), j * k + p, bits));
      for (std::size_t t = 0; t < blocks; ++t) q.scales[t * n + j] = scales[j * blocks + t];
    }
    return q;
  }
  mx::Options options;
  options.block_size = kMxBlockRows;
  options.rule = rule;
  const std::size_t column_bytes = mx::element_bytes(element, k), blocks = mx::scale_count(k, options);
  std::vector<std::uint8_t> elements(column_bytes), scales(blocks);
  for (std::size_t j = 0; j < n; ++j) {
    if (k == 0) break;
    mx::quantize(columns.data() + j * k, k, elements.data(), column_bytes, scales.data(), blocks, element, options);
    for (std::size_t p = 0; p < k; ++p)
      block_formats_detail::write_bits(q.elements.data() + p * row_bytes, j, bits, block_formats_detail::read_bits(elements.data(), p, bits));
    for (std::size_t t = 0; t < blocks; ++t) q.scales[t * n + j] = scales[t];
  }
  return q;
}

}  // namespace softfloat
#endif  // HWY_ONCE
