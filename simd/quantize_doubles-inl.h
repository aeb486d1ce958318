// The per-target conversion double -> code: each double rounded to odd into a float
// (DoublesRoundedToOdd, below), then the float algorithm of quantize_floats-inl.h on
// that float. Rounding to odd first keeps the information a second rounding needs, so
// the two steps give the bits of rounding the double itself where
// double_input_via_float admits the format (array_constants.hpp).
//
// Worked example: the double x = 1 + 2^-8 + 2^-40 to bf16 (M = 7), nearest even.
//   x's bits: 0x3FF0100000001000. DemoteTo rounds to nearest: f = 0x3F808000 (1 + 2^-8;
//   the 2^-40 lies below half a float ulp, 2^-24). Promoted back, f < x: no overshoot,
//   so nothing is subtracted; f != x, so the last bit is set: 0x3F808001. An odd float
//   stands for the open gap between its even neighbours (here 0x3F808000 and
//   0x3F808002, where x lies), and every point and midpoint of bf16's grid is an even
//   float, so that gap lies on one side of each.
//   The float algorithm then rounds 0x3F808001 to bf16: the 16 bits dropped are
//   0x8001, above half (0x8000), so the code is 0x3F81 (1 + 2^-7), which is x rounded
//   to bf16 (x lies above the midpoint 1 + 2^-8 between 1 and 1 + 2^-7).
//   Why round to odd: the float nearest x, 0x3F808000, is that midpoint itself, and
//   rounding it to bf16 would tie to even and give 0x3F80 (1.0), the wrong answer.
//   round_to_format gives 0x3F808001 (to fp32, Rounding::odd) and 0x3F81 (to bf16).

// Highway compiles this header once per target (foreach_target.h in
// conversion_dispatch.cpp). Other per-target files include it for its vector routines
// (the matmul accumulator kernel, matmul/accumulate-inl.h), so every non-template
// function here is inline: defined in several translation units, linked once.

#if defined(SOFTFLOAT_SIMD_QUANTIZE_DOUBLES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_SIMD_QUANTIZE_DOUBLES_INL_H_
#undef SOFTFLOAT_SIMD_QUANTIZE_DOUBLES_INL_H_
#else
#define SOFTFLOAT_SIMD_QUANTIZE_DOUBLES_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "simd/array_constants.hpp"
#include "simd/prefetch.hpp"
#include "simd/quantize_floats-inl.h"
#include "softfloat/round_to_format.hpp"

HWY_BEFORE_NAMESPACE();
namespace softfloat::simd::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// double -> float rounded to odd: the float below |x| (toward zero) with its last bit
// set when x is inexact, the float exactly when x is one; beyond fp32's range that is
// +-FLT_MAX (all mantissa bits set). Infinities stay infinite, and a NaN becomes the
// quiet float NaN with the top 22 payload bits of the double (bits 50..29; bit 51 is
// the quiet bit).
//   f = DemoteTo(x) rounds to nearest (the environment is pinned by the caller); it
//   overshoots |x| by at most half an ulp, in which case f - 1 ulp (the float bits
//   minus one, either sign; inf - 1 ulp is FLT_MAX) is the truncation; an inexact
//   lane then gets its lowest bit set.
// Rounding that float to a format whose quantum is at least four fp32 ulps everywhere
// (see double_input_via_float in array_constants.cpp) gives the bits of rounding the
// double itself, in every deterministic direction: the points and midpoints of the
// format's grid are floats with a zero last bit, and an inexact lane lands strictly
// inside the same gap between them as x (the round-to-odd argument of Boldo and
// Melquiond, "When double rounding is odd", 2005).
#if HWY_HAVE_FLOAT64
using DD = hn::ScalableTag<double>;
using DU64 = hn::RebindToUnsigned<DD>;
using DFHalf = hn::Rebind<float, DD>;
using DUHalf = hn::Rebind<std::uint32_t, DD>;

HWY_INLINE hn::Vec<DUHalf> DoublesRoundedToOdd(hn::Vec<DD> x) {
  const DD dd;
  const DU64 du64;
  const DFHalf df;
  const DUHalf du;
  const auto f = hn::DemoteTo(df, x);
  const auto back = hn::PromoteTo(dd, f);
  const auto xbits = hn::BitCast(du64, x);
  auto bits = hn::PromoteTo(du64, hn::BitCast(du, f));
  // Scalar and EMU128 demote infinity and out-of-range values to +-FLT_MAX, x86 to
  // +-inf: either way the overshoot test and the sticky bit give FLT_MAX below.
  const auto overshoot = hn::Gt(hn::Abs(back), hn::Abs(x));
  bits = hn::Sub(bits, hn::IfThenElseZero(hn::RebindMask(du64, overshoot), hn::Set(du64, 1)));
  bits = hn::Or(bits, hn::IfThenZeroElse(hn::RebindMask(du64, hn::Eq(back, x)), hn::Set(du64, 1)));
  // Infinities and NaNs: exponent field all ones.
  const auto exponent_ones = hn::Set(du64, 0x7FF0000000000000ull);
  const auto special = hn::Eq(hn::And(xbits, exponent_ones), exponent_ones);
  if (HWY_UNLIKELY(!hn::AllFalse(du64, special))) {
    const auto sign = hn::And(hn::ShiftRight<32>(xbits), hn::Set(du64, 0x80000000ull));
    const auto is_nan = hn::Gt(hn::And(xbits, hn::Set(du64, 0x7FFFFFFFFFFFFFFFull)), exponent_ones);
    const auto payload = hn::Or(hn::And(hn::ShiftRight<29>(xbits), hn::Set(du64, 0x7FFFFFull)), hn::Set(du64, 0x400000ull));
    const auto special_bits = hn::Or(hn::Or(sign, hn::Set(du64, 0x7F800000ull)), hn::IfThenElseZero(is_nan, payload));
    bits = hn::IfThenElse(special, special_bits, bits);
  }
  return hn::TruncateTo(du, bits);
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// AVX-512 converts with a rounding direction of its own (embedded rounding): the
// truncation directly, then the last bit set where the float differs from the double.
// Infinities, NaNs (quieted, top payload bits kept) and overflow (FLT_MAX) come out of
// vcvtpd2ps {rz} as DoublesRoundedToOdd makes them.
HWY_INLINE hn::Vec<DUHalf> DoublesRoundedToOddAvx3(hn::Vec<DD> x) {
  const __m256 f = _mm512_cvt_roundpd_ps(x.raw, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __mmask8 inexact = _mm512_cmp_pd_mask(_mm512_cvtps_pd(f), x.raw, _CMP_NEQ_UQ);
  const __m256i bits = _mm256_castps_si256(f);
  return hn::Vec<DUHalf>{_mm256_mask_or_epi32(bits, inexact, bits, _mm256_set1_epi32(1))};
}
#endif

// in[0, n) -> out[0, n) rounded to odd, nothing read or written beyond.
HWY_INLINE void DoublesToFloatsRoundedToOdd(const double* HWY_RESTRICT in, std::size_t n, float* HWY_RESTRICT out) {
  const DD dd;
  const DUHalf du;
  const std::size_t lanes = hn::Lanes(dd);
  std::size_t i = 0;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  for (; i + lanes <= n; i += lanes) {
    PrefetchAhead(in + i);
    hn::StoreU(DoublesRoundedToOddAvx3(hn::LoadU(dd, in + i)), du, reinterpret_cast<std::uint32_t*>(out + i));
  }
#endif
  for (; i + lanes <= n; i += lanes) {
    PrefetchAhead(in + i);
    hn::StoreU(DoublesRoundedToOdd(hn::LoadU(dd, in + i)), du, reinterpret_cast<std::uint32_t*>(out + i));
  }
  if (i == n) return;
  HWY_ALIGN double padded_in[HWY_MAX_BYTES / sizeof(double)] = {};
  HWY_ALIGN std::uint32_t padded_out[HWY_MAX_BYTES / sizeof(double)] = {};
  std::memcpy(padded_in, in + i, (n - i) * sizeof(double));
  hn::Store(DoublesRoundedToOdd(hn::Load(dd, padded_in)), du, padded_out);
  std::memcpy(out + i, padded_out, (n - i) * sizeof(float));
}
#else
// Targets without double lanes (Armv7 NEON, WASM): the same rule one value at a time,
// finite values through the library's one rounding routine (round to odd: beyond the
// float range it gives +-FLT_MAX, as above).
HWY_INLINE void DoublesToFloatsRoundedToOdd(const double* HWY_RESTRICT in, std::size_t n, float* HWY_RESTRICT out) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t x;
    std::memcpy(&x, in + i, 8);
    const std::uint32_t sign = std::uint32_t(x >> 32) & 0x80000000u;
    const std::uint64_t a = x & 0x7FFFFFFFFFFFFFFFull;
    const std::uint32_t bits =
        a >= 0x7FF0000000000000ull
            ? sign | 0x7F800000u | (a > 0x7FF0000000000000ull ? (std::uint32_t(a >> 29) & 0x7FFFFFu) | 0x400000u : 0)
            : std::uint32_t(round_to_format(decode(in[i]), binary32_format, Rounding::odd, Overflow::standard));
    std::memcpy(out + i, &bits, 4);
  }
}
#endif  // HWY_HAVE_FLOAT64

// double -> codes of a format that double_input_via_float admits, in a deterministic
// direction: pieces of the input rounded to odd into a float buffer that stays in L1,
// then the float algorithm (quantize_floats-inl.h) on each piece.
template <class Code>
HWY_INLINE void QuantizeDoublesAny(const double* in, std::size_t n, Code* out, const QuantizeConstants& c) {
  constexpr std::size_t kPiece = 1024;
  HWY_ALIGN float floats[kPiece];
  for (std::size_t i = 0; i < n; i += kPiece) {
    const std::size_t count = n - i < kPiece ? n - i : kPiece;
    DoublesToFloatsRoundedToOdd(in + i, count, floats);
    QuantizeAnyPath(floats, count, StoreAsCodes<Code>{out + i}, c);
  }
}

HWY_NOINLINE inline void QuantizeDoublesTo8(const double* in, std::size_t n, std::uint8_t* out, const QuantizeConstants& c) {
  QuantizeDoublesAny(in, n, out, c);
}
HWY_NOINLINE inline void QuantizeDoublesTo16(const double* in, std::size_t n, std::uint16_t* out,
                                      const QuantizeConstants& c) {
  QuantizeDoublesAny(in, n, out, c);
}
HWY_NOINLINE inline void QuantizeDoublesTo32(const double* in, std::size_t n, std::uint32_t* out,
                                      const QuantizeConstants& c) {
  QuantizeDoublesAny(in, n, out, c);
}

}  // namespace HWY_NAMESPACE
}  // namespace softfloat::simd::detail
HWY_AFTER_NAMESPACE();

#endif  // include guard
