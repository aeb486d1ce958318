// The block scales of block-scaled weights as fp32 values, per Highway target: MX's
// E8M0 and NVFP4's E4M3 codes decoded by integer operations rather than gathered from
// a 256-entry table (a gather costs about as much as the 16 rows it would serve).
// Included by the per-target kernels of block_scaled_matvec-inl.h,
// e2m1_nibble_lanes-inl.h, e2m1_byte_lanes-inl.h and six_bit_matvec-inl.h.

#if defined(SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALES_INL_H_
#undef SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALES_INL_H_
#else
#define SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALES_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "matmul/float_vectors-inl.h"
#include "simd/prefetch.hpp"

HWY_BEFORE_NAMESPACE();
namespace softfloat::block_formats_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// matmul's fp32 accumulation vectors, which the kernels that include this file use too.
using matmul_detail::HWY_NAMESPACE::DF;
using matmul_detail::HWY_NAMESPACE::VF;
using DU = hn::RebindToUnsigned<DF>;
using VU = hn::Vec<DU>;

// E8M0 (MX): 2^(code - 127). Codes 1 .. 254 are fp32's biased exponent itself, so the
// value's bits are code << 23; code 0 is 2^-127, the subnormal 0x00400000; 0xFF is NaN.
// Worked value: code 124 -> bits 0x3E000000 = 2^-3.
template <class D>
HWY_INLINE hn::Vec<hn::RebindToFloat<D>> E8m0Values(D du, hn::Vec<D> code) {
  const hn::RebindToFloat<D> df;
  auto bits = hn::ShiftLeft<23>(code);
  bits = hn::IfThenElse(hn::Eq(code, hn::Zero(du)), hn::Set(du, 0x00400000u), bits);
  bits = hn::IfThenElse(hn::Eq(code, hn::Set(du, 0xFFu)), hn::Set(du, 0x7FC00000u), bits);
  return hn::BitCast(df, bits);
}

// The normal rule alone, for magnitudes 8 .. 0x7E (E4m3NotNormalPositive says when a
// vector of codes holds nothing else).
template <class D>
HWY_INLINE hn::Vec<hn::RebindToFloat<D>> E4m3NormalValues(D du, hn::Vec<D> magnitude) {
  return hn::BitCast(hn::RebindToFloat<D>(), hn::Add(hn::ShiftLeft<20>(magnitude), hn::Set(du, 120u << 23)));
}

// Whether every code is positive and normal (8 .. 0x7E), as NVFP4's recipe makes the
// scale of every block that is not all zeros: then E4m3NormalValues is the value.
template <class D>
HWY_INLINE hn::Mask<D> E4m3NotNormalPositive(D du, hn::Vec<D> code) {
  return hn::Gt(hn::Sub(code, hn::Set(du, 8u)), hn::Set(du, 0x7Eu - 8u));
}

// E4M3 (NVFP4): magnitude bits m = code & 0x7F hold exponent field e = m >> 3 and
// mantissa f = m & 7. Normal (e > 0): fp32 bits (m << 20) + (120 << 23), which puts f
// in the top of fp32's mantissa and rebiases e by 127 - 7. Subnormal (e = 0): f * 2^-9,
// exact through int to float. m = 0x7F is NaN. The sign is code bit 7, moved to bit 31.
// Worked value: code 0x41 = 0 1000 001 -> (0x41 << 20) + (120 << 23) = 0x40100000 = 2.25.
template <class D>
HWY_INLINE hn::Vec<hn::RebindToFloat<D>> E4m3Values(D du, hn::Vec<D> code) {
  const hn::RebindToFloat<D> df;
  const hn::RebindToSigned<D> di;
  const auto magnitude = hn::And(code, hn::Set(du, 0x7Fu));
  const auto normal = E4m3NormalValues(du, magnitude);
  const auto subnormal = hn::Mul(hn::ConvertTo(df, hn::BitCast(di, magnitude)), hn::Set(df, 0x1p-9f));
  auto value = hn::IfThenElse(hn::RebindMask(df, hn::Lt(magnitude, hn::Set(du, 8u))), subnormal, normal);
  value = hn::IfThenElse(hn::RebindMask(df, hn::Eq(magnitude, hn::Set(du, 0x7Fu))), hn::NaN(df), value);
  return hn::Or(value, hn::BitCast(df, hn::ShiftLeft<24>(hn::And(code, hn::Set(du, 0x80u)))));
}

// One row of scale codes (column order, n of them) as values, values[j] scaling column
// j (the one-byte elements' kernel, matvec-inl.h's ColumnScaledRows). e4m3: NVFP4's
// E4M3 codes, else MX's E8M0. Returns the largest of them, NaNs left out
// (0 if all are NaN), for the caller's overflow test.
HWY_NOINLINE float DecodeScaleRowInOrder(const std::uint8_t* HWY_RESTRICT codes, std::size_t n, bool e4m3,
                                         float* HWY_RESTRICT values) {
  const auto decode = [e4m3](auto d, auto code) { return e4m3 ? E4m3Values(d, code) : E8m0Values(d, code); };
  const DF df;
  const DU du;
  const hn::Rebind<std::uint8_t, DU> d8;
  const std::size_t lanes = hn::Lanes(df);
  VF top = hn::Zero(df);
  std::size_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const VF v = decode(du, hn::PromoteTo(du, hn::LoadU(d8, codes + j)));
    top = hn::IfThenElse(hn::IsNaN(v), top, hn::Max(top, v));  // NaN codes left out
    hn::StoreU(v, df, values + j);
  }
  float largest = hn::GetLane(hn::MaxOfLanes(df, top));
  const hn::CappedTag<std::uint32_t, 1> du1;
  const hn::RebindToFloat<decltype(du1)> df1;
  for (; j < n; ++j) {
    const auto v = decode(du1, hn::Set(du1, codes[j]));
    hn::StoreU(v, df1, values + j);
    if (!std::isnan(values[j])) largest = std::max(largest, values[j]);
  }
  return largest;
}

// Asks for the next block's scale codes of columns first .. first + bytes - 1 into L2, a
// call ahead: the E2M1 kernels read one block's scale row per call, and the rows of
// BlockScaledWeights' scales lie row_bytes (n) apart, as the next band of codes lies
// rows * stride on (simd/prefetch.hpp). Without it the AVX-512 kernel waited on the
// scale loads that open each chunk: about 6% of its samples for MXFP4 at 8192 x 8192 on
// the Zen 4 EPYC.
HWY_INLINE void PrefetchNextScaleRow(const std::uint8_t* scale_codes, std::size_t first, std::size_t bytes,
                                     std::size_t row_bytes) {
  for (std::size_t b = 0; b < bytes; b += 64) simd::detail::PrefetchIntoL2(scale_codes, row_bytes + first + b);
}

// How the rows' scale codes are read: none (plain E2M1), E8M0 (MX), E4M3 (NVFP4).
enum class ScaleKind { none, e8m0, e4m3 };

template <ScaleKind kKind, class D>
HWY_INLINE hn::Vec<hn::RebindToFloat<D>> ScaleValues(D du, hn::Vec<D> code) {
  if constexpr (kKind == ScaleKind::e4m3) return E4m3Values(du, code);
  return E8m0Values(du, code);
}

// One vector of running sums y with its E8M0 scales s, every one of them in the
// unscaled chain's window (unscaled_chain.hpp): z = y / s, and the lanes that may run
// the unscaled chain from z: |y| and |z| at most 2^125, and z * s == y (z exact). 1 / s
// is 2^(127 - e): the bits (254 << 23) - s's bits, for s in the window.
HWY_INLINE hn::Mask<DF> UnscaleInWindow(VF y, VF s, VF& z) {
  const DF df;
  const DU du;
  z = hn::Mul(y, hn::BitCast(df, hn::Sub(hn::Set(du, 254u << 23), hn::BitCast(du, s))));
  const VF limit = hn::Set(df, 0x1p125f);
  const auto bounded = hn::And(hn::Le(hn::Abs(y), limit), hn::Le(hn::Abs(z), limit));
  return hn::And(bounded, hn::Eq(hn::Mul(z, s), y));
}
// The same for scales s of any code: the lanes whose s lies in the window [lo, hi] too
// (NaN's and 2^-127's codes never do).
HWY_INLINE hn::Mask<DF> Unscale(VF y, VF s, VF lo, VF hi, VF& z) {
  const auto in_window = hn::And(hn::Ge(s, lo), hn::Le(s, hi));
  return hn::And(in_window, UnscaleInWindow(y, s, z));
}

// x86 with AVX2 or AVX-512 only: the E2M1 kernels that keep chunks of sums in arrays
// of vectors (arrays that SVE's sizeless vectors cannot form).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// The values s[k] of a chunk's eight vectors of scale codes (the E2M1 kernels' nibble
// and byte lanes). in_window: the codes are E8M0 and all lie in the unscaled chain's
// window, whose codes, 1 .. 253, are fp32's biased exponents, so that each value's bits
// are its code shifted up by 23 (code 124: 0x3E000000 = 2^-3). NVFP4's usual E4M3
// scales, positive and normal, take two operations a vector; the rest ScaleValues.
template <ScaleKind kKind>
HWY_INLINE void ChunkScaleValues(const VU (&codes)[8], bool in_window, VF (&s)[8]) {
  const DU du;
  if (kKind == ScaleKind::e8m0 && in_window) {
    for (int k = 0; k < 8; ++k) s[k] = hn::BitCast(DF(), hn::ShiftLeft<23>(codes[k]));
    return;
  }
  if constexpr (kKind == ScaleKind::e4m3) {
    auto unusual = E4m3NotNormalPositive(du, codes[0]);
    for (int k = 1; k < 8; ++k) unusual = hn::Or(unusual, E4m3NotNormalPositive(du, codes[k]));
    if (hn::AllFalse(du, unusual)) {
      for (int k = 0; k < 8; ++k) s[k] = E4m3NormalValues(du, codes[k]);
      return;
    }
  }
  for (int k = 0; k < 8; ++k) s[k] = ScaleValues<kKind>(du, codes[k]);
}

// A chunk's eight vectors of sums y continued by the unscaled chain, their E8M0 scales s
// all in its window: where every lane passes UnscaleInWindow, y / s, then steps() (the
// rows' steps without scales), then times s, and true; else y untouched and false (the
// caller takes the scaled steps, whose bits are the same).
template <class Steps>
HWY_INLINE bool UnscaledChunkSteps(VF (&y)[8], const VF (&s)[8], Steps&& steps) {
  VF z[8];
  auto ok = UnscaleInWindow(y[0], s[0], z[0]);
  for (int k = 1; k < 8; ++k) ok = hn::And(ok, UnscaleInWindow(y[k], s[k], z[k]));
  if (!hn::AllTrue(DF(), ok)) return false;
  for (int k = 0; k < 8; ++k) y[k] = z[k];
  steps();
  for (int k = 0; k < 8; ++k) y[k] = hn::Mul(y[k], s[k]);
  return true;
}
#endif  // HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace softfloat::block_formats_detail
HWY_AFTER_NAMESPACE();

#endif  // SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALES_INL_H_ toggle
