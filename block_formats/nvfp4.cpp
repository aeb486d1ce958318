// The two-level NVFP4 scaling (softfloat/nvfp4.hpp). Both implementations follow the
// same recipe of fp32 operations: the scalar definition through the library's correctly
// rounded arithmetic (runtime::multiply / divide on binary32 codes) and round_to_format(),
// the vectorised path through the CPU's IEEE fp32 operations (under the default
// environment, which the guard sets: round to nearest, no FTZ/DAZ), the block maxima and
// multiplications of block_formats/mx-inl.h, and the packed E2M1 array conversions. Per block the
// vectorised path does the recipe's few scalar operations in plain C++, which IEEE 754
// rounds exactly as round_to_format() does, so the two agree bit for bit.
#include "softfloat/nvfp4.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_formats/mx_kernels.hpp"
#include "runtime/float_environment.hpp"
#include "runtime/memory_checks.hpp"
#include "simd/prepared_conversions.hpp"
#include "softfloat/arithmetic.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/round_to_format.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::nvfp4 {
namespace {

constexpr float kFloatMax = std::numeric_limits<float>::max();
constexpr float kE4m3TimesE2m1Max = 448.0f * 6.0f;          // 2688, exact
constexpr float kOneSixth = float(1.0 / 6.0);              // fp32 nearest to 1/6, as the CUDA constant
constexpr float kOneOver2688 = float(1.0 / (6.0 * 448.0));  // likewise
constexpr std::uint32_t kQuietNan = 0x7FC00000u;
constexpr std::uint8_t kNanScale = 0x7F;  // E4M3 NaN: the scale of a block holding a NaN or an infinity

softfloat::detail::Caller caller(const char* function) { return {"softfloat::nvfp4::", function}; }
std::string where(const char* function) { return caller(function).text(); }

void check_sizes(const char* function, std::size_t n, std::size_t element_bytes_have, std::size_t scale_count_have) {
  if (element_bytes_have < element_bytes(n))
    throw std::invalid_argument(where(function) + "the element buffer has " + std::to_string(element_bytes_have) +
                                " bytes; " + std::to_string(n) + " values need " + std::to_string(element_bytes(n)));
  if (scale_count_have < scale_count(n))
    throw std::invalid_argument(where(function) + "the scale buffer has " + std::to_string(scale_count_have) +
                                " entries; " + std::to_string(n) + " values need " + std::to_string(scale_count(n)));
}
// The float array, the element bytes and the scales: separate buffers (codes are
// smaller than floats, so neither direction can run in place).
void check_separate(const char* function, const float* values, std::size_t n, const std::uint8_t* elements,
                    const std::uint8_t* scales) {
  const softfloat::detail::Caller at = caller(function);
  const std::size_t value_bytes = softfloat::detail::checked_bytes(at, n, sizeof(float), "values");
  softfloat::detail::check_disjoint(at, values, value_bytes, "float array", elements, element_bytes(n), "elements");
  softfloat::detail::check_disjoint(at, values, value_bytes, "float array", scales, scale_count(n), "scales");
  softfloat::detail::check_disjoint(at, elements, element_bytes(n), "elements", scales, scale_count(n), "scales");
}
void check_quantize(const char* function, const float* in, std::size_t n, const std::uint8_t* elements,
                    std::size_t element_bytes_have, const std::uint8_t* scales, std::size_t scale_count_have,
                    const float* tensor_amax) {
  if (tensor_amax == nullptr) throw std::invalid_argument(where(function) + "tensor_amax is a null pointer");
  if (n > 0 && (in == nullptr || elements == nullptr || scales == nullptr))
    throw std::invalid_argument(where(function) + "null pointer with n = " + std::to_string(n));
  check_sizes(function, n, element_bytes_have, scale_count_have);
  check_separate(function, in, n, elements, scales);
  softfloat::detail::check_disjoint(caller(function), tensor_amax, sizeof(float), "tensor_amax", in,
                                    n * sizeof(float), "float array");
  softfloat::detail::check_disjoint(caller(function), tensor_amax, sizeof(float), "tensor_amax", elements,
                                    element_bytes(n), "elements");
  softfloat::detail::check_disjoint(caller(function), tensor_amax, sizeof(float), "tensor_amax", scales,
                                    scale_count(n), "scales");
}
void check_dequantize(const char* function, const std::uint8_t* elements, std::size_t element_bytes_have,
                      const std::uint8_t* scales, std::size_t scale_count_have, std::size_t n, const float* out) {
  if (n > 0 && (elements == nullptr || scales == nullptr || out == nullptr))
    throw std::invalid_argument(where(function) + "null pointer with n = " + std::to_string(n));
  check_sizes(function, n, element_bytes_have, scale_count_have);
  check_separate(function, out, n, elements, scales);
}

bool is_nan_scale(std::uint8_t code) { return (code & 0x7F) == 0x7F; }

// ---- The scalar definition: fp32 operations through round_to_format(). ----

float f32(std::uint64_t code) { return std::bit_cast<float>(std::uint32_t(code)); }
std::uint64_t code_of(float x) { return std::bit_cast<std::uint32_t>(x); }
float multiply(float a, float b) { return f32(runtime::multiply(code_of(a), code_of(b), binary32_format)); }
float divide(float a, float b) { return f32(runtime::divide(code_of(a), code_of(b), binary32_format)); }
// fminf of two non-NaN values.
float smaller(float a, float b) { return b < a ? b : a; }
float e4m3_value(std::uint8_t code) { return f32(round_to_format(decode(code, E4M3::format), binary32_format)); }

// The recipe's tensor-wide constants.
struct TensorScales {
  float s_enc, s_dec;
};
TensorScales reference_tensor_scales(float amax) {
  float s_enc = smaller(divide(kE4m3TimesE2m1Max, amax), kFloatMax);
  if (amax == 0.0f || s_enc == 0.0f) s_enc = 1.0f;
  return {s_enc, divide(1.0f, s_enc)};
}

// Largest magnitude of a block, and whether it holds a NaN or an infinity.
struct BlockMax {
  float amax;
  bool special;
};
BlockMax block_max(const float* block, std::size_t n) {
  BlockMax result{0.0f, false};
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(block[i])) result.special = true;
    else result.amax = std::max(result.amax, std::fabs(block[i]));
  }
  return result;
}

// Element i of the packed array: element 0 in the low nibble.
std::uint32_t read_nibble(const std::uint8_t* bytes, std::size_t i) { return (bytes[i / 2] >> (4 * (i % 2))) & 0xFu; }

// ---- The vectorised path's per-block arithmetic: the same steps in native fp32. ----

TensorScales native_tensor_scales(float amax) {
  float s_enc = std::fmin(kE4m3TimesE2m1Max / amax, kFloatMax);
  if (amax == 0.0f || s_enc == 0.0f) s_enc = 1.0f;
  return {s_enc, 1.0f / s_enc};
}

namespace sd = softfloat::simd::detail;
namespace bfd = softfloat::block_formats_detail;

constexpr std::size_t kChunk = 2048;  // values per stack buffer: a multiple of 16
constexpr std::size_t kChunkBlocks = kChunk / kBlockSize;

// Pass 1 of quantize: amax over the blocks without NaN or infinity, as float bits.
// The whole array's largest magnitude is one streaming reduction that keeps up with
// memory; only when it flags a NaN or an infinity somewhere (bits >= 0x7F800000) are
// the blocks' maxima needed, to leave out the blocks holding one. `maxima` has room
// for kChunkBlocks entries.
std::uint32_t finite_blocks_amax_bits(const float* in, std::size_t n, std::uint32_t* maxima) {
  const std::uint32_t largest = bfd::mx_max_magnitude_bits(in, n);
  if (largest < 0x7F800000u) return largest;
  std::uint32_t amax_bits = 0;
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t count = std::min(kChunk, n - i);
    bfd::mx_block_maxima(in + i, count, kBlockSize, maxima);
    for (std::size_t b = 0; b < (count + kBlockSize - 1) / kBlockSize; ++b)
      if (maxima[b] < 0x7F800000u) amax_bits = std::max(amax_bits, maxima[b]);
  }
  return amax_bits;
}

}  // namespace

std::size_t element_bytes(std::size_t n) { return n / 2 + n % 2; }
std::size_t scale_count(std::size_t n) { return n / kBlockSize + (n % kBlockSize != 0 ? 1 : 0); }

void scalar_quantize(const float* in, std::size_t n, std::uint8_t* elements, std::size_t element_bytes_have,
                     std::uint8_t* scales, std::size_t scale_count_have, float* tensor_amax, Rounding rounding,
                     RandomStream random) {
  check_quantize("scalar_quantize", in, n, elements, element_bytes_have, scales, scale_count_have, tensor_amax);
  float amax = 0.0f;
  for (std::size_t begin = 0; begin < n; begin += kBlockSize) {
    const BlockMax block = block_max(in + begin, std::min(kBlockSize, n - begin));
    if (!block.special) amax = std::max(amax, block.amax);
  }
  *tensor_amax = amax;
  if (n == 0) return;
  const TensorScales tensor = reference_tensor_scales(amax);
  const float per_block = multiply(tensor.s_enc, kOneSixth);
  std::memset(elements, 0, element_bytes(n));
  for (std::size_t begin = 0; begin < n; begin += kBlockSize) {
    const std::size_t end = std::min(n, begin + kBlockSize);
    const BlockMax block = block_max(in + begin, end - begin);
    if (block.special) {
      scales[begin / kBlockSize] = kNanScale;
      continue;  // elements stay 0
    }
    const std::uint8_t scale = std::uint8_t(round_to_format(decode(multiply(block.amax, per_block)), E4M3::format,
                                                            Rounding::nearest_even, Overflow::saturate));
    scales[begin / kBlockSize] = scale;
    const float factor = smaller(divide(1.0f, multiply(e4m3_value(scale), tensor.s_dec)), kFloatMax);
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t bits = is_stochastic(rounding) ? random_bits(random.seed, random.offset + i) : 0;
      const std::uint64_t code =
          round_to_format(decode(multiply(in[i], factor)), E2M1::format, rounding, Overflow::saturate, bits);
      elements[i / 2] = std::uint8_t(elements[i / 2] | code << (4 * (i % 2)));
    }
  }
}

void scalar_dequantize(const std::uint8_t* elements, std::size_t element_bytes_have, const std::uint8_t* scales,
                       std::size_t scale_count_have, float tensor_amax, std::size_t n, float* out) {
  check_dequantize("scalar_dequantize", elements, element_bytes_have, scales, scale_count_have, n, out);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t scale = scales[i / kBlockSize];
    float value = std::bit_cast<float>(kQuietNan);
    if (!is_nan_scale(scale)) {
      const float factor = multiply(multiply(e4m3_value(scale), tensor_amax), kOneOver2688);
      const float element = f32(round_to_format(decode(read_nibble(elements, i), E2M1::format), binary32_format));
      value = multiply(element, factor);
      if (std::isnan(value)) value = std::bit_cast<float>(kQuietNan);
    }
    out[i] = value;
  }
}

void quantize(const float* in, std::size_t n, std::uint8_t* elements, std::size_t element_bytes_have,
              std::uint8_t* scales, std::size_t scale_count_have, float* tensor_amax, Rounding rounding,
              RandomStream random) {
  check_quantize("quantize", in, n, elements, element_bytes_have, scales, scale_count_have, tensor_amax);
  softfloat::detail::ScopedDefaultFloatEnvironment environment;
  std::uint32_t maxima[kChunkBlocks];
  const float amax = std::bit_cast<float>(finite_blocks_amax_bits(in, n, maxima));
  *tensor_amax = amax;
  if (n == 0) return;
  const TensorScales tensor = native_tensor_scales(amax);
  const float per_block = tensor.s_enc * kOneSixth;
  // Pass 2, a chunk at a time: block_amax * per_block rounded to E4M3 codes by the array
  // conversion, their values back as floats, the block factors, the scaled values, and
  // the packed E2M1 elements.
  alignas(64) float scaled[kChunk];
  float block_values[kChunkBlocks];
  std::uint8_t* chunk_scales = nullptr;
  // The conversions of every chunk, prepared once (simd/prepared_conversions.hpp).
  const sd::PreparedQuantize scale_rounding(E4M3::format, Rounding::nearest_even, Overflow::saturate);
  const sd::PreparedDequantize scale_decoding(E4M3::format);
  const sd::PreparedQuantize element_rounding(E2M1::format, rounding, Overflow::saturate);
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t count = std::min(kChunk, n - i);
    const std::size_t blocks = (count + kBlockSize - 1) / kBlockSize;
    chunk_scales = scales + i / kBlockSize;
    block_formats_detail::mx_block_maxima(in + i, count, kBlockSize, maxima);
    bool any_special = false;
    for (std::size_t b = 0; b < blocks; ++b) {
      const bool special = maxima[b] >= 0x7F800000u;
      any_special |= special;
      block_values[b] = special ? 0.0f : std::bit_cast<float>(maxima[b]) * per_block;
    }
    scale_rounding(block_values, blocks, chunk_scales);
    scale_decoding(chunk_scales, blocks, block_values);
    // The factors, in place of the scale values. The quotient is never NaN (the scale
    // values and S_dec are finite and positive; a zero scale gives +infinity), so the
    // comparison is fmin's result, and unlike the call to fminf it vectorises.
    for (std::size_t b = 0; b < blocks; ++b) {
      const float factor = 1.0f / (block_values[b] * tensor.s_dec);
      block_values[b] = factor < kFloatMax ? factor : kFloatMax;
    }
    block_formats_detail::mx_multiply_blocks(in + i, count, kBlockSize, block_values, scaled);
    if (any_special) {
      for (std::size_t b = 0; b < blocks; ++b) {
        if (maxima[b] < 0x7F800000u) continue;
        chunk_scales[b] = kNanScale;
        const std::size_t begin = b * kBlockSize;
        std::memset(scaled + begin, 0, std::min(kBlockSize, count - begin) * sizeof(float));
      }
    }
    sd::quantize_packed_prepared(element_rounding, 4, scaled, count, elements + i / 2,
                                 RandomStream{random.seed, random.offset + i});
  }
}

void dequantize(const std::uint8_t* elements, std::size_t element_bytes_have, const std::uint8_t* scales,
                std::size_t scale_count_have, float tensor_amax, std::size_t n, float* out) {
  check_dequantize("dequantize", elements, element_bytes_have, scales, scale_count_have, n, out);
  softfloat::detail::ScopedDefaultFloatEnvironment environment;
  float factors[kChunkBlocks];
  const sd::PreparedDequantize element_decoding(E2M1::format);
  const sd::PreparedDequantize scale_decoding(E4M3::format);
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t count = std::min(kChunk, n - i);
    const std::size_t blocks = (count + kBlockSize - 1) / kBlockSize;
    sd::dequantize_packed_prepared(element_decoding, 4, elements + i / 2, count, out + i);
    scale_decoding(scales + i / kBlockSize, blocks, factors);
    for (std::size_t b = 0; b < blocks; ++b) factors[b] = (factors[b] * tensor_amax) * kOneOver2688;
    block_formats_detail::mx_multiply_blocks(out + i, count, kBlockSize, factors, out + i);
    // A NaN scale or amax, or an infinite factor (0 * infinity): NaN results become the
    // one quiet NaN, as in the scalar definition.
    for (std::size_t b = 0; b < blocks; ++b) {
      if (std::isfinite(factors[b])) continue;
      const std::size_t begin = i + b * kBlockSize, end = std::min(n, begin + kBlockSize);
      for (std::size_t j = begin; j < end; ++j)
        if (std::isnan(out[j]) || is_nan_scale(scales[j / kBlockSize])) out[j] = std::bit_cast<float>(kQuietNan);
    }
  }
}

}  // namespace softfloat::nvfp4
