// The per-target parts of the MX block scaling (softfloat/mx.hpp), compiled for every
// Highway target by foreach_target.h in block_formats/mx.cpp: the largest magnitude of a block,
// the multiplication of its values by 2^-s before they are rounded to the element
// format (by the array conversion of simd/quantize_floats-inl.h), and the multiplication of
// the decoded elements by 2^s.
//
// Why the float multiplications are exact where it matters (the caller sets the default
// floating-point environment: round to nearest, no DAZ/FTZ):
//   quantize: y = x * 2^-s. A power-of-two factor changes only the exponent, so y is
//     exact whenever it is an fp32 normal number or x and y are both subnormal with y
//     >= x. It can be inexact only when |y| < 2^-126; the element is then +-0 anyway,
//     since every element format's smallest subnormal is at least 2^-16, and the rounded
//     y (|y| <= 2^-126, the sign kept, also when it underflows to -0) still rounds to
//     the zero of x's sign. Overflow cannot happen: |x| < 2^(s + emax_elem + 1) <= 2^16
//     after scaling, also where s was clamped up to -127 (then |x| was smaller still).
//   dequantize: y = element * 2^s. The element's float is exact (simd::dequantize), so
//     the product is the exact value rounded once to nearest even: the scalar
//     definition round_to_format(element * 2^s, binary32), overflow to infinity and
//     the fp32 subnormal range included.

#if defined(SOFTFLOAT_SIMD_MX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_SIMD_MX_INL_H_
#undef SOFTFLOAT_SIMD_MX_INL_H_
#else
#define SOFTFLOAT_SIMD_MX_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "block_formats/mx_scale.hpp"
#include "hwy/highway.h"
#include "simd/prefetch.hpp"
#include "simd/stream-inl.h"

HWY_BEFORE_NAMESPACE();
namespace softfloat::block_formats_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// simd/'s prefetch distance and streaming stores, as the array conversions use them.
using simd::detail::PrefetchAhead;
using simd::detail::HWY_NAMESPACE::StoreFloatBits;
using simd::detail::HWY_NAMESPACE::WithStreamingStores;

using MxDF = hn::ScalableTag<float>;
using MxDI = hn::RebindToSigned<MxDF>;

// The largest |x| of in[0, n) as float bits with the sign cleared, in every lane. On
// these bits the integer order is the order of magnitudes, and NaN bits lie above
// infinity's 0x7F800000, so a result >= 0x7F800000 flags a NaN or an infinity. The bits
// are below 2^31, so a signed max (on every target, SSSE3 included) serves. This is the
// first read of the input in every quantize loop (the multiplications that follow find
// it in L1), so it is the one that prefetches, as the array conversions do.
HWY_INLINE hn::Vec<MxDI> MaxMagnitudeBits(const float* HWY_RESTRICT in, std::size_t n) {
  const MxDF df;
  const MxDI di;
  const std::size_t lanes = hn::Lanes(df);
  const auto magnitude_mask = hn::Set(di, 0x7FFFFFFF);
  auto max0 = hn::Zero(di);
  auto max1 = hn::Zero(di);
  std::size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    PrefetchAhead(in + i);
    PrefetchAhead(in + i + lanes);
    max0 = hn::Max(max0, hn::And(hn::BitCast(di, hn::LoadU(df, in + i)), magnitude_mask));
    max1 = hn::Max(max1, hn::And(hn::BitCast(di, hn::LoadU(df, in + i + lanes)), magnitude_mask));
  }
  if (i + lanes <= n) {
    PrefetchAhead(in + i);
    max0 = hn::Max(max0, hn::And(hn::BitCast(di, hn::LoadU(df, in + i)), magnitude_mask));
    i += lanes;
  }
  if (i < n) {  // the tail, one value at a time
    std::int32_t tail = 0;
    for (; i < n; ++i) {
      std::int32_t u;
      std::memcpy(&u, in + i, sizeof(u));
      u &= 0x7FFFFFFF;
      tail = u > tail ? u : tail;
    }
    max1 = hn::Max(max1, hn::Set(di, tail));
  }
  return hn::MaxOfLanes(di, hn::Max(max0, max1));
}

#if HWY_TARGET != HWY_SCALAR
// Blocks handled together by the group paths below: one per lane. On the x86 targets,
// NEON and EMU128 the lane count is a compile-time constant; on SVE MaxLanes is only
// the bound for the longest vectors the architecture allows (64 floats), and the group
// paths run only where the vectors have that length (WholeBlockGroups).
constexpr std::size_t kGroupBlocks = hn::MaxLanes(MxDF());

// The lane-wise largest magnitude bits over a block of `block_size` values, a multiple of
// the lane count: one vector per block, not yet reduced across its lanes.
HWY_INLINE hn::Vec<MxDI> BlockLaneMaxima(const float* HWY_RESTRICT in, std::size_t block_size) {
  const MxDF df;
  const MxDI di;
  const std::size_t lanes = hn::Lanes(df);
  const auto magnitude_mask = hn::Set(di, 0x7FFFFFFF);
  PrefetchAhead(in);
  auto max = hn::And(hn::BitCast(di, hn::LoadU(df, in)), magnitude_mask);
  for (std::size_t i = lanes; i < block_size; i += lanes) {
    PrefetchAhead(in + i);
    max = hn::Max(max, hn::And(hn::BitCast(di, hn::LoadU(df, in + i)), magnitude_mask));
  }
  return max;
}

// The largest magnitude bits of kBlocks consecutive blocks (block_size a multiple of the
// lane count), spread over lanes / kBlocks lanes each, in block order. Reducing every
// block across its lanes on its own (MaxOfLanes: log2(lanes) shuffles and maxima, and a
// move to a general register for the scale) costs more than the block's other work;
// instead each halving step takes two vectors of partial maxima, pairs adjacent lanes
// (ConcatEven / ConcatOdd) and keeps the larger, which halves the lanes per block and
// packs both vectors into one. After log2(lanes) steps over lanes blocks, lane b holds
// block b's maximum: one shuffle pair and one max per block instead of a reduction each.
template <std::size_t kBlocks>
HWY_INLINE hn::Vec<MxDI> FoldedBlockMaxima(const float* HWY_RESTRICT in, std::size_t block_size) {
  if constexpr (kBlocks == 1) {
    return BlockLaneMaxima(in, block_size);
  } else {
    const MxDI di;
    const auto lo = FoldedBlockMaxima<kBlocks / 2>(in, block_size);
    const auto hi = FoldedBlockMaxima<kBlocks / 2>(in + kBlocks / 2 * block_size, block_size);
    return hn::Max(hn::ConcatEven(di, hi, lo), hn::ConcatOdd(di, hi, lo));
  }
}

// Whether the group paths take blocks of this size, and how many whole groups of
// blocks of in[0, n) they cover (written as a division so that nothing overflows).
// FoldedBlockMaxima folds kGroupBlocks blocks into one vector of that many lanes, so
// on SVE vectors shorter than the longest (qemu's 512 bits: 16 lanes, not 64) every
// block takes the one-block path.
HWY_INLINE std::size_t WholeBlockGroups(std::size_t n, std::size_t block_size) {
  const std::size_t lanes = hn::Lanes(MxDF());
  if (lanes != kGroupBlocks || block_size % lanes != 0) return 0;
  return n / kGroupBlocks / block_size;
}
#endif

// mx_block_scale() (block_formats/mx_scale.hpp) in vector lanes for the common case, a block
// whose largest magnitude is an fp32 normal number and whose s stays below 127, so that
// s and 2^-s follow from the exponent field alone: s = field - 127 - emax_elem (+ 1 when
// the mantissa field exceeds the rule's threshold), clamped below at -127, and
// 2^-s has the exponent field 127 - s. Keeping the block's max in vector lanes avoids a
// round trip through a general register on the way from the max to the multiplication.
// Lane-wise: the group path passes one block's max per lane. Returns false (and the
// caller takes mx_block_scale) when any lane holds a zero, fp32-subnormal, NaN or
// infinite maximum or s = 127.
HWY_INLINE bool CommonBlockScale(hn::Vec<MxDI> max, const MxScaleConstants& c, hn::Vec<MxDI>& s) {
  const MxDI di;
  // round_up_above: the rule's threshold (mx_scale.hpp), 0x7FFFFFFF for floor.
  const auto round_up = hn::Gt(hn::And(max, hn::Set(di, 0x7FFFFF)), hn::Set(di, c.round_up_above));
  s = hn::Sub(hn::ShiftRight<23>(max), hn::Set(di, 127 + c.max_exponent));
  s = hn::Sub(s, hn::VecFromMask(di, round_up));  // the mask lanes are -1
  s = hn::Max(s, hn::Set(di, -127));
  const auto rare = hn::Or(hn::Or(hn::Lt(max, hn::Set(di, 0x00800000)), hn::Gt(max, hn::Set(di, 0x7F7FFFFF))),
                           hn::Gt(s, hn::Set(di, 126)));
  return hn::AllFalse(di, rare);
}

// out[0, n) = in[0, n) * factor: whole vectors, then the tail one value at a time (the
// same IEEE multiplication).
HWY_INLINE void MultiplyValues(const float* HWY_RESTRICT in, std::size_t n, hn::Vec<MxDF> factor,
                               float* HWY_RESTRICT out) {
  const MxDF df;
  const std::size_t lanes = hn::Lanes(df);
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Mul(hn::LoadU(df, in + i), factor), df, out + i);
  if (i == n) return;
  const float f = hn::GetLane(factor);
  for (; i < n; ++i) out[i] = in[i] * f;
}

// out = in times factors[b] over block b, for `blocks` blocks of block_size values, a
// multiple of the lane count: whole vectors only, without MultiplyValues' tail checks,
// which cost more than the one or two multiplications of a block of 16 or 32 values.
HWY_INLINE void MultiplyWholeBlocks(const float* HWY_RESTRICT in, std::size_t blocks, std::size_t block_size,
                                    const float* HWY_RESTRICT factors, float* HWY_RESTRICT out) {
  const MxDF df;
  const std::size_t lanes = hn::Lanes(df);
  for (std::size_t b = 0; b < blocks; ++b, in += block_size, out += block_size) {
    const auto factor = hn::Set(df, factors[b]);
    for (std::size_t i = 0; i < block_size; i += lanes) hn::StoreU(hn::Mul(hn::LoadU(df, in + i), factor), df, out + i);
  }
}

// 2^-s as floats, for the common case's s (fp32 exponent field 127 - s).
HWY_INLINE hn::Vec<MxDF> InverseScaleFactors(hn::Vec<MxDI> s) {
  const MxDI di;
  return hn::BitCast(MxDF(), hn::ShiftLeft<23>(hn::Sub(hn::Set(di, 127), s)));
}

// Quantize, first half, for one block of `count` values: its scale code and its values
// times 2^-s in scaled[]. A block with a NaN scale gets +0 values, so that its element
// codes are 0.
HWY_INLINE void ScaleBlock(const float* HWY_RESTRICT in, std::size_t count, const MxScaleConstants& c,
                           float* HWY_RESTRICT scaled, std::uint8_t* HWY_RESTRICT scale_code) {
  const MxDF df;
  const auto max = MaxMagnitudeBits(in, count);
  hn::Vec<MxDI> s;
  if (HWY_LIKELY(CommonBlockScale(max, c, s))) {
    *scale_code = std::uint8_t(hn::GetLane(s) + 127);
    MultiplyValues(in, count, InverseScaleFactors(s), scaled);
    return;
  }
  const MxBlockScale scale = mx_block_scale(std::uint32_t(hn::GetLane(max)), c);
  *scale_code = scale.code;
  if (scale.code == 0xFF) std::memset(scaled, 0, count * sizeof(float));
  else MultiplyValues(in, count, hn::Set(df, scale.factor), scaled);
}

#if HWY_TARGET != HWY_SCALAR
// The same for kGroupBlocks whole blocks at once: their maxima folded into one vector,
// the scales of all of them in its lanes, and each block multiplied by its lane's
// factor. A group with a rare block (CommonBlockScale) goes block by block.
HWY_INLINE void ScaleBlockGroup(const float* HWY_RESTRICT in, std::size_t block_size, const MxScaleConstants& c,
                                float* HWY_RESTRICT scaled, std::uint8_t* HWY_RESTRICT scale_codes) {
  const MxDF df;
  const MxDI di;
  hn::Vec<MxDI> s;
  if (HWY_UNLIKELY(!CommonBlockScale(FoldedBlockMaxima<kGroupBlocks>(in, block_size), c, s))) {
    for (std::size_t b = 0; b < kGroupBlocks; ++b)
      ScaleBlock(in + b * block_size, block_size, c, scaled + b * block_size, scale_codes + b);
    return;
  }
  const hn::Rebind<std::uint8_t, MxDI> d8;
  hn::StoreU(hn::DemoteTo(d8, hn::Add(s, hn::Set(di, 127))), d8, scale_codes);  // codes 0..253
  HWY_ALIGN float factors[kGroupBlocks];
  hn::Store(InverseScaleFactors(s), df, factors);
  MultiplyWholeBlocks(in, kGroupBlocks, block_size, factors, scaled);
}
#endif

// Quantize, first half: for each block of `block_size` values of in[0, n) (the last one
// may be shorter), its scale code and its values times 2^-s in scaled[]: whole groups of
// blocks together where the block size allows, the rest block by block.
HWY_NOINLINE void MxScaleBlocks(const float* HWY_RESTRICT in, std::size_t n, std::size_t block_size,
                                const MxScaleConstants constants, float* HWY_RESTRICT scaled,
                                std::uint8_t* HWY_RESTRICT scale_codes) {
  const MxScaleConstants c = constants;  // a local copy, kept in registers
  std::size_t begin = 0, block = 0;
#if HWY_TARGET != HWY_SCALAR
  for (std::size_t g = WholeBlockGroups(n, block_size); g > 0; --g) {
    ScaleBlockGroup(in + begin, block_size, c, scaled + begin, scale_codes + block);
    begin += kGroupBlocks * block_size;
    block += kGroupBlocks;
  }
#endif
  for (; begin < n; begin += block_size, ++block) {
    const std::size_t count = n - begin < block_size ? n - begin : block_size;
    ScaleBlock(in + begin, count, c, scaled + begin, scale_codes + block);
  }
}

// The same in two steps, for blocks longer than the caller's buffer: the largest
// magnitude of the whole block, then its values piece by piece.
HWY_NOINLINE std::uint32_t MxMaxMagnitudeBits(const float* HWY_RESTRICT in, std::size_t n) {
  return std::uint32_t(hn::GetLane(MaxMagnitudeBits(in, n)));
}
HWY_NOINLINE void MxMultiply(const float* HWY_RESTRICT in, std::size_t n, float factor, float* HWY_RESTRICT out) {
  MultiplyValues(in, n, hn::Set(MxDF(), factor), out);
}

// For the two-level scaling of softfloat/nvfp4.hpp, whose block factors are worked out
// between the two passes: the largest magnitude (as in MaxMagnitudeBits) of each block
// of in[0, n), and out = in times the factor of its block.
HWY_NOINLINE void MxBlockMaxima(const float* HWY_RESTRICT in, std::size_t n, std::size_t block_size,
                                std::uint32_t* HWY_RESTRICT maxima) {
  std::size_t begin = 0, block = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::RebindToUnsigned<MxDI> du;
  for (std::size_t g = WholeBlockGroups(n, block_size); g > 0; --g) {
    hn::StoreU(hn::BitCast(du, FoldedBlockMaxima<kGroupBlocks>(in + begin, block_size)), du, maxima + block);
    begin += kGroupBlocks * block_size;
    block += kGroupBlocks;
  }
#endif
  for (; begin < n; begin += block_size, ++block) {
    const std::size_t count = n - begin < block_size ? n - begin : block_size;
    maxima[block] = std::uint32_t(hn::GetLane(MaxMagnitudeBits(in + begin, count)));
  }
}
HWY_NOINLINE void MxMultiplyBlocks(const float* HWY_RESTRICT in, std::size_t n, std::size_t block_size,
                                   const float* HWY_RESTRICT factors, float* HWY_RESTRICT out) {
  const MxDF df;
  std::size_t begin = 0, block = 0;
  if (block_size % hn::Lanes(df) == 0) {
    block = n / block_size;
    begin = block * block_size;
    MultiplyWholeBlocks(in, block, block_size, factors, out);
  }
  for (; begin < n; begin += block_size, ++block) {
    const std::size_t count = n - begin < block_size ? n - begin : block_size;
    MultiplyValues(in + begin, count, hn::Set(df, factors[block]), out + begin);
  }
}

// Dequantize: values[0, n) (decoded elements, in place) times 2^(s + exponent_offset) of
// their block (exponent_offset = -6 folds MXINT8's implicit 2^-6 into the factor). NaN
// elements stay as they are (the multiplication would keep them on x86, but the result
// of a NaN operand is not pinned down everywhere); every value of a block with a NaN
// scale (0xFF) becomes the quiet NaN 0x7FC00000.
HWY_NOINLINE void MxApplyScales(float* HWY_RESTRICT values, std::size_t n, std::size_t block_size,
                                const std::uint8_t* HWY_RESTRICT scale_codes, int exponent_offset) {
  const MxDF df;
  const std::size_t lanes = hn::Lanes(df);
  for (std::size_t begin = 0, block = 0; begin < n; begin += block_size, ++block) {
    const std::size_t end = n - begin < block_size ? n : begin + block_size;
    const std::uint8_t code = scale_codes[block];
    if (HWY_UNLIKELY(code == 0xFF)) {
      const std::uint32_t nan_bits = 0x7FC00000u;
      for (std::size_t i = begin; i < end; ++i) std::memcpy(values + i, &nan_bits, sizeof(nan_bits));
      continue;
    }
    const float factor = power_of_two(int(code) - 127 + exponent_offset);
    const auto f = hn::Set(df, factor);
    std::size_t i = begin;
    for (; i + lanes <= end; i += lanes) {
      const auto v = hn::LoadU(df, values + i);
      hn::StoreU(hn::IfThenElse(hn::IsNaN(v), v, hn::Mul(v, f)), df, values + i);
    }
    for (; i < end; ++i)
      if (!std::isnan(values[i])) values[i] *= factor;
  }
}

// out[0, n) = in[0, n) with streaming stores (stream_floats, block_formats/mx_kernels.hpp).
HWY_NOINLINE void StreamFloats(const float* HWY_RESTRICT in, std::size_t n, float* HWY_RESTRICT out) {
  const MxDF df;
  const std::size_t lanes = hn::Lanes(df);
  WithStreamingStores(n, out, true, [&](auto kStream, std::size_t begin, std::size_t end) {
    std::size_t i = begin;
    for (; i + lanes <= end; i += lanes) StoreFloatBits<decltype(kStream)::value>(hn::LoadU(df, in + i), out + i);
    for (; i < end; ++i) out[i] = in[i];
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace softfloat::block_formats_detail
HWY_AFTER_NAMESPACE();

#endif  // include guard
