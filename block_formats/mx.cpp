// The vectorised MX block scaling (softfloat/mx.hpp). Quantize works through the array
// a chunk of whole blocks at a time: the per-target kernels of mx-inl.h find each
// block's scale and write its values times 2^-s to a buffer on the stack, and the
// array conversions round that buffer to the element format (quantize_generic, nearest
// even, saturating; quantize_packed, which packs as well, for the 4- and 6-bit kinds).
// Dequantize decodes a chunk of elements straight into the output and multiplies each
// block by its 2^s in place (large outputs of the byte kinds: in a stack buffer, then
// streamed out). Blocks longer than the buffer are done in two passes: the
// largest magnitude over the whole block, then its values piece by piece.

// Highway compiles this file once per target, re-including mx-inl.h (and with it
// stream-inl.h) each time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "block_formats/mx-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "block_formats/mx-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <cstring>

#include "block_formats/mx_kernels.hpp"
#include "block_formats/mx_scale.hpp"
#include "runtime/float_environment.hpp"
#include "runtime/parallel.hpp"
#include "simd/prepared_conversions.hpp"
#include "simd/stream_store.hpp"
#include "softfloat/mx.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::block_formats_detail {

HWY_EXPORT(MxScaleBlocks);
HWY_EXPORT(MxMaxMagnitudeBits);
HWY_EXPORT(MxMultiply);
HWY_EXPORT(MxApplyScales);
HWY_EXPORT(MxBlockMaxima);
HWY_EXPORT(MxMultiplyBlocks);
HWY_EXPORT(StreamFloats);

// Declared in block_formats/mx_kernels.hpp (the first three for the two-level scaling, block_formats/nvfp4.cpp).
void mx_block_maxima(const float* in, std::size_t n, std::size_t block_size, std::uint32_t* maxima) {
  HWY_DYNAMIC_DISPATCH(MxBlockMaxima)(in, n, block_size, maxima);
}
void mx_multiply_blocks(const float* in, std::size_t n, std::size_t block_size, const float* factors, float* out) {
  HWY_DYNAMIC_DISPATCH(MxMultiplyBlocks)(in, n, block_size, factors, out);
}
std::uint32_t mx_max_magnitude_bits(const float* in, std::size_t n) {
  return HWY_DYNAMIC_DISPATCH(MxMaxMagnitudeBits)(in, n);
}
// Declared in block_formats/mx_kernels.hpp.
void stream_floats(const float* in, std::size_t n, float* out) { HWY_DYNAMIC_DISPATCH(StreamFloats)(in, n, out); }

namespace {

// The dispatched calls, written where the kernels' names resolve unqualified (the
// static-dispatch form of HWY_DYNAMIC_DISPATCH prefixes the target's namespace).
void mx_scale_blocks(const float* in, std::size_t n, std::size_t block_size, const MxScaleConstants& constants,
                     float* scaled, std::uint8_t* scale_codes) {
  HWY_DYNAMIC_DISPATCH(MxScaleBlocks)(in, n, block_size, constants, scaled, scale_codes);
}
void mx_multiply(const float* in, std::size_t n, float factor, float* out) {
  HWY_DYNAMIC_DISPATCH(MxMultiply)(in, n, factor, out);
}
void mx_apply_scales(float* values, std::size_t n, std::size_t block_size, const std::uint8_t* scale_codes,
                     int exponent_offset) {
  HWY_DYNAMIC_DISPATCH(MxApplyScales)(values, n, block_size, scale_codes, exponent_offset);
}

}  // namespace

}  // namespace softfloat::block_formats_detail

namespace softfloat::mx {
namespace {

namespace sd = softfloat::simd::detail;
namespace bfd = softfloat::block_formats_detail;

// Values per stack buffer: 8 KiB of floats, which stays in L1 between the passes; a
// multiple of 4, so that a chunk inside a long block starts on a byte boundary.
constexpr std::size_t kChunk = 2048;

// MXINT8 stores two's complement; the grid format's codes are sign-magnitude (bit 7 the
// sign, bits 0..6 the multiple of 1/64). -0 becomes 0.
void sign_magnitude_to_twos_complement(std::uint8_t* codes, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t magnitude = codes[i] & 0x7F;
    codes[i] = (codes[i] & 0x80) != 0 ? std::uint8_t(0u - magnitude) : magnitude;
  }
}

// The random stream of values [i, ...) of the array.
RandomStream stream_at(const Options& options, std::size_t i) {
  return {options.random.seed, options.random.offset + i};
}

// The element rounding of a call, prepared once: the grid format, the call's rounding,
// saturating overflow.
sd::PreparedQuantize element_rounding(Element element, const Options& options) {
  return sd::PreparedQuantize(element_format(element), options.rounding, Overflow::saturate);
}

// Rounds scaled[0, count) to the element kind and stores the codes of values [i, i + count)
// of the array (i is a multiple of the packing group, so it starts on a byte boundary).
void store_elements(const float* scaled, std::size_t count, std::size_t i, std::uint8_t* elements, Element element,
                    const sd::PreparedQuantize& rounding, const Options& options) {
  if (element_bits(element) != 8) {
    sd::quantize_packed_prepared(rounding, element_bits(element), scaled, count,
                                 elements + element_bytes(element, i), stream_at(options, i));
    return;
  }
  rounding(scaled, count, elements + i, stream_at(options, i));
  if (element == Element::int8) sign_magnitude_to_twos_complement(elements + i, count);
}

// The exact float of every element of values [i, i + count): the array conversions for the
// float kinds, int8 -> float (exact) for MXINT8, whose 2^-6 goes into the scale factor.
void load_elements(const std::uint8_t* elements, std::size_t i, std::size_t count, float* out, Element element,
                   const sd::PreparedDequantize& decoding) {
  if (element == Element::int8) {
    for (std::size_t j = 0; j < count; ++j) out[j] = float(std::int8_t(elements[i + j]));
  } else if (element_bits(element) != 8) {
    sd::dequantize_packed_prepared(decoding, element_bits(element), elements + element_bytes(element, i), count, out);
  } else {
    decoding(elements + i, count, out);
  }
}

// Values [begin, end) of the array; begin is a multiple of the block size.
void quantize_range(const float* in, std::size_t begin, std::size_t end, std::uint8_t* elements,
                    std::uint8_t* scales, Element element, const Options& options) {
  const std::size_t block_size = options.block_size;
  const sd::PreparedQuantize rounding = element_rounding(element, options);
  const bfd::MxScaleConstants constants = bfd::mx_scale_constants(element, options.rule);
  softfloat::detail::ScopedDefaultFloatEnvironment environment;
  HWY_ALIGN float scaled[kChunk];
  if (block_size <= kChunk) {
    const std::size_t step = kChunk / block_size * block_size;
    for (std::size_t i = begin; i < end; i += step) {
      const std::size_t count = std::min(step, end - i);
      bfd::mx_scale_blocks(in + i, count, block_size, constants, scaled, scales + i / block_size);
      store_elements(scaled, count, i, elements, element, rounding, options);
    }
    return;
  }
  for (std::size_t block = begin; block < end; block += block_size) {
    const std::size_t block_end = std::min(end, block + block_size);
    const std::uint32_t largest = bfd::mx_max_magnitude_bits(in + block, block_end - block);
    const bfd::MxBlockScale scale = bfd::mx_block_scale(largest, constants);
    scales[block / block_size] = scale.code;
    for (std::size_t i = block; i < block_end; i += kChunk) {
      const std::size_t count = std::min(kChunk, block_end - i);
      if (scale.code == 0xFF) std::memset(scaled, 0, count * sizeof(float));  // element codes 0
      else bfd::mx_multiply(in + i, count, scale.factor, scaled);
      store_elements(scaled, count, i, elements, element, rounding, options);
    }
  }
}

// Fake quantization of values [begin, end), begin a multiple of the block size: the
// scaled values of a chunk rounded to the element grid and decoded again in place (the
// grid's exact values, MXINT8's k / 64 included), then times 2^s.
void round_trip_range(const float* in, std::size_t begin, std::size_t end, float* out, Element element,
                      const Options& options) {
  const std::size_t block_size = options.block_size;
  const sd::PreparedQuantize rounding = element_rounding(element, options);
  const sd::PreparedDequantize decoding(element_format(element));
  const bfd::MxScaleConstants constants = bfd::mx_scale_constants(element, options.rule);
  softfloat::detail::ScopedDefaultFloatEnvironment environment;
  HWY_ALIGN float scaled[kChunk];
  std::uint8_t scale_codes[kChunk];
  std::uint8_t codes[kChunk];
  auto round = [&](std::size_t i, std::size_t count) {
    rounding(scaled, count, codes, stream_at(options, i));
    decoding(codes, count, scaled);
    // MXINT8 stores two's complement, which has no -0: x + 0 turns -0 into +0 and keeps
    // every other value (round to nearest, pinned above).
    if (element == Element::int8)
      for (std::size_t j = 0; j < count; ++j) scaled[j] += 0.0f;
  };
  if (block_size <= kChunk) {
    const std::size_t step = kChunk / block_size * block_size;
    for (std::size_t i = begin; i < end; i += step) {
      const std::size_t count = std::min(step, end - i);
      bfd::mx_scale_blocks(in + i, count, block_size, constants, scaled, scale_codes);
      round(i, count);
      std::memcpy(out + i, scaled, count * sizeof(float));
      bfd::mx_apply_scales(out + i, count, block_size, scale_codes, 0);
    }
    return;
  }
  for (std::size_t block = begin; block < end; block += block_size) {
    const std::size_t block_end = std::min(end, block + block_size);
    const std::uint32_t largest = bfd::mx_max_magnitude_bits(in + block, block_end - block);
    const bfd::MxBlockScale scale = bfd::mx_block_scale(largest, constants);
    for (std::size_t i = block; i < block_end; i += kChunk) {
      const std::size_t count = std::min(kChunk, block_end - i);
      if (scale.code == 0xFF) std::memset(scaled, 0, count * sizeof(float));
      else bfd::mx_multiply(in + i, count, scale.factor, scaled);
      round(i, count);
      std::memcpy(out + i, scaled, count * sizeof(float));
      bfd::mx_apply_scales(out + i, count, count, &scale.code, 0);
    }
  }
}

// Values [begin, end) of the array, begin a multiple of the block size, decoded and
// scaled in place in out, or with `stream` in a stack buffer that then goes to out with
// streaming stores (simd/stream_store.hpp).
void dequantize_range(const std::uint8_t* elements, const std::uint8_t* scales, std::size_t begin, std::size_t end,
                      float* out, Element element, const Options& options, bool stream) {
  const std::size_t block_size = options.block_size;
  const sd::PreparedDequantize decoding(element_format(element));
  const int exponent_offset = element == Element::int8 ? -6 : 0;
  softfloat::detail::ScopedDefaultFloatEnvironment environment;
  HWY_ALIGN float buffer[kChunk];
  // Values [i, i + count) of block `block` onwards, blocks of `size` values.
  auto decode = [&](std::size_t i, std::size_t count, std::size_t size, std::size_t block) {
    float* values = stream ? buffer : out + i;
    load_elements(elements, i, count, values, element, decoding);
    bfd::mx_apply_scales(values, count, size, scales + block, exponent_offset);
    if (stream) bfd::stream_floats(buffer, count, out + i);
  };
  if (block_size <= kChunk) {
    const std::size_t step = kChunk / block_size * block_size;
    for (std::size_t i = begin; i < end; i += step) decode(i, std::min(step, end - i), block_size, i / block_size);
    return;
  }
  for (std::size_t block = begin; block < end; block += block_size) {
    const std::size_t block_end = std::min(end, block + block_size);
    // Each piece lies in one block: handed over as one block of `count` values.
    for (std::size_t i = block; i < block_end; i += kChunk) {
      const std::size_t count = std::min(kChunk, block_end - i);
      decode(i, count, count, block / block_size);
    }
  }
}

}  // namespace

void quantize(const float* in, std::size_t n, std::uint8_t* elements, std::size_t element_bytes_have,
              std::uint8_t* scales, std::size_t scale_count_have, Element element, const Options& options) {
  detail::check_quantize_arguments("quantize", in, n, elements, element_bytes_have, scales, scale_count_have, element,
                                   options);
  if (n == 0) return;
  // Threads get whole blocks, so each share starts on a block (and byte) boundary. A
  // single block stays on this thread (and keeps parallel_for's rounding of shares up
  // to a multiple of the block size far from overflow).
  if (options.block_size >= n) return quantize_range(in, 0, n, elements, scales, element, options);
  softfloat::detail::parallel_for(n, options.block_size, [&](std::size_t begin, std::size_t end) {
    quantize_range(in, begin, end, elements, scales, element, options);
  });
}

void dequantize(const std::uint8_t* elements, std::size_t element_bytes_have, const std::uint8_t* scales,
                std::size_t scale_count_have, std::size_t n, float* out, Element element, const Options& options) {
  detail::check_dequantize_arguments("dequantize", elements, element_bytes_have, scales, scale_count_have, n, out,
                                     element, options);
  if (n == 0) return;
  const bool stream = element_bits(element) == 8 && sd::stream_output(n * sizeof(float));
  if (options.block_size >= n) return dequantize_range(elements, scales, 0, n, out, element, options, stream);
  softfloat::detail::parallel_for(n, options.block_size, [&](std::size_t begin, std::size_t end) {
    dequantize_range(elements, scales, begin, end, out, element, options, stream);
  });
}

void round_trip(const float* in, std::size_t n, float* out, Element element, const Options& options) {
  detail::check_round_trip_arguments("round_trip", in, n, out, element, options);
  if (n == 0) return;
  if (options.block_size >= n) return round_trip_range(in, 0, n, out, element, options);
  softfloat::detail::parallel_for(n, options.block_size, [&](std::size_t begin, std::size_t end) {
    round_trip_range(in, begin, end, out, element, options);
  });
}

void quantize(std::span<const float> in, std::span<std::uint8_t> elements, std::span<std::uint8_t> scales,
              Element element, const Options& options) {
  quantize(in.data(), in.size(), elements.data(), elements.size(), scales.data(), scales.size(), element, options);
}

void dequantize(std::span<const std::uint8_t> elements, std::span<const std::uint8_t> scales, std::span<float> out,
                Element element, const Options& options) {
  dequantize(elements.data(), elements.size(), scales.data(), scales.size(), out.size(), out.data(), element,
             options);
}

}  // namespace softfloat::mx
#endif  // HWY_ONCE
