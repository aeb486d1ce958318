// The low-precision accumulator in vector lanes, compiled for every Highway target by
// foreach_target.h in matmul/exact_accumulation.cpp: each element of C is still one
// running sum in k order, each step one rounding of product plus sum to Acc
// (round_to_format(exact(a * b + sum), Acc), nearest even), but the sums of a row's
// columns sit in vector lanes and the rounding is the array conversion's
// (simd/quantize_floats-inl.h, round_trip's nearest-even loop) on a whole vector at once.
//
// Why every step gives the scalar definition's bits, for inputs that are floats and an
// Acc that double_input_via_float admits (M <= 21, smallest quantum >= 2^-147):
//   product: a * b in double is exact. Floats have at most 24 significand bits, so the
//     product has at most 48 <= 53, and its magnitude lies in [2^-298, 2^256], far inside
//     double's normal range.
//   sum: s = RN(p + acc) in double, and TwoSum (Knuth: six additions, exact in round to
//     nearest without overflow) gives the error e with p + acc = s + e exactly. Round to
//     odd at 53 bits: where e != 0 and s's last bit is 0, s moves one ulp toward e (its
//     bits +1 when e has s's sign, else -1); the exact sum lies strictly between s and
//     that neighbour, and of two neighbouring doubles exactly one is odd. (s = 0 with
//     e != 0 cannot happen: a sum that rounds to zero is exact.) On AVX-512 the same
//     double comes from additions in directed roundings (SumRoundedToOddAvx3).
//   to float: the double rounded to odd again at 24 bits (DoublesRoundedToOdd) is the
//     exact sum rounded to odd at 24 bits (rounding to odd twice, the second time to
//     fewer bits, keeps the sticky information), FLT_MAX beyond fp32's range.
//   to Acc: that float rounded to Acc to nearest even is the exact sum so rounded, by the
//     round-to-odd argument of quantize from double (array_constants.hpp,
//     double_input_via_float). The quantize and dequantize constants come from the one
//     rounding routine, so overflow (infinity, saturation, NaN), signed zeros and
//     subnormals of Acc are its answers; the zero of an exact cancellation, and -0 only
//     from -0 + -0, are IEEE addition's in round to nearest, as in the exact sum.
// Infinite or NaN sums are not modelled: TwoSum has no meaning there. A lane whose
// float sum is ever infinite or NaN before the rounding to Acc (an infinite or NaN
// input, or a sum carried on from an Acc overflow to infinity or NaN), or whose final
// sum is, is reported to the caller, which computes that element again by the scalar
// definition. Up to that step the lane was exact, so every other lane is.
// The caller pins the floating-point environment (round to nearest, no FTZ / DAZ).

#if defined(SOFTFLOAT_MATMUL_ACCUMULATE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_MATMUL_ACCUMULATE_INL_H_
#undef SOFTFLOAT_MATMUL_ACCUMULATE_INL_H_
#else
#define SOFTFLOAT_MATMUL_ACCUMULATE_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "simd/array_constants.hpp"
#include "simd/dequantize_round_trip-inl.h"
#include "simd/quantize_doubles-inl.h"
#include "simd/quantize_floats-inl.h"

HWY_BEFORE_NAMESPACE();
namespace softfloat::matmul_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace sd = softfloat::simd::detail::HWY_NAMESPACE;

#if HWY_HAVE_FLOAT64 && HWY_TARGET != HWY_SCALAR
using DU = sd::DU;  // the lanes of one vector of float sums
using DF = sd::DF;
using VU = sd::VU;
using DD = sd::DD;  // half of them as doubles
using DU64 = sd::DU64;
using DFHalf = hn::Half<DF>;
using VD = hn::Vec<DD>;

// The array conversion's sink for one vector kept in a register: the float bits of the
// rounded values, from the fast path's rounded |x| or from the codes decoded again.
struct KeepFloatBits {
  const simd::detail::DequantizeConstants& decoding;
  VU& bits;
  HWY_INLINE void operator()(std::size_t, VU codes) const { bits = sd::DequantizeVector(decoding, codes); }
  HWY_INLINE void Rounded(const simd::detail::QuantizeConstants& q, std::size_t, VU t_lsb, VU u) const {
    bits = sd::FastPathFloatBits(q, t_lsb, u);
  }
};

// p + s rounded to odd at 53 bits, for p and s whose sum does not overflow.
HWY_INLINE VD SumRoundedToOdd(VD p, VD s) {
  const DU64 du64;
  const VD sum = hn::Add(p, s);
  const VD p_part = hn::Sub(sum, s);
  const VD s_part = hn::Sub(sum, p_part);
  const VD error = hn::Add(hn::Sub(p, p_part), hn::Sub(s, s_part));
  const auto bits = hn::BitCast(du64, sum);
  const auto one = hn::Set(du64, 1);
  // +1 where error and sum have the same sign, else -1 (modulo 2^64).
  const auto opposite = hn::ShiftRight<63>(hn::Xor(hn::BitCast(du64, error), bits));
  const auto step = hn::Sub(one, hn::ShiftLeft<1>(opposite));
  const auto even = hn::Eq(hn::And(bits, one), hn::Zero(du64));
  const auto move = hn::And(hn::RebindMask(du64, hn::Ne(error, hn::Zero(DD()))), even);
  return hn::BitCast(DD(), hn::Add(bits, hn::IfThenElseZero(move, step)));
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// AVX-512 adds in a rounding direction of its own (embedded rounding): round to odd is
// the sum toward zero with its last bit set where the sums down and up differ (the
// sum is inexact). Toward zero an exact cancellation gives +0, as in round to nearest.
// Five operations instead of TwoSum's fourteen.
HWY_INLINE VD SumRoundedToOddAvx3(VD p, VD s) {
  constexpr int kExact = _MM_FROUND_NO_EXC;
  const __m512d down = _mm512_add_round_pd(p.raw, s.raw, _MM_FROUND_TO_NEG_INF | kExact);
  const __m512d up = _mm512_add_round_pd(p.raw, s.raw, _MM_FROUND_TO_POS_INF | kExact);
  const __m512i toward_zero = _mm512_castpd_si512(_mm512_add_round_pd(p.raw, s.raw, _MM_FROUND_TO_ZERO | kExact));
  const __mmask8 inexact = _mm512_cmp_pd_mask(down, up, _CMP_NEQ_UQ);
  return VD{_mm512_castsi512_pd(_mm512_mask_or_epi64(toward_zero, inexact, toward_zero, _mm512_set1_epi64(1)))};
}
#endif

// p + s rounded to odd at 53 bits, as double, then at 24 bits, as float bits.
HWY_INLINE hn::Vec<sd::DUHalf> SumAsFloatRoundedToOdd(VD p, VD s) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  return sd::DoublesRoundedToOddAvx3(SumRoundedToOddAvx3(p, s));
#else
  return sd::DoublesRoundedToOdd(SumRoundedToOdd(p, s));
#endif
}

// The running sums of one row across one vector of columns: two halves as doubles,
// starting at +0. The constructor is written out so that it is compiled for the target
// (GCC's implicit one is not, and cannot inline NEON's vector constructors into it).
struct RowSums {
  HWY_INLINE RowSums() : low(hn::Zero(DD())), high(hn::Zero(DD())), largest(hn::Zero(DU())) {}
  VD low, high;
  VU largest;  // the largest |float bits| before a rounding to Acc: >= inf's means special
};

// One step for one row: sums = round(x * b + sums) to Acc.
HWY_INLINE void Step(const simd::detail::QuantizeConstants& q, const simd::detail::DequantizeConstants& d, VD x,
                     VD b_low, VD b_high, RowSums& sums) {
  const DU du;
  const DF df;
  const VU u = hn::Combine(du, SumAsFloatRoundedToOdd(hn::Mul(x, b_high), sums.high),
                           SumAsFloatRoundedToOdd(hn::Mul(x, b_low), sums.low));
  sums.largest = hn::Max(sums.largest, hn::And(u, hn::Set(du, 0x7FFFFFFFu)));
  VU rounded = u;
  std::size_t fast_failures = 0;  // the array loop's statistics, unused here
  sd::QuantizeNearestVector<false>(q, u, fast_failures, KeepFloatBits{d, rounded}, 0);
  const auto values = hn::BitCast(df, rounded);
  sums.low = hn::PromoteTo(DD(), hn::LowerHalf(DFHalf(), values));
  sums.high = hn::PromoteTo(DD(), hn::UpperHalf(DFHalf(), values));
}

// kRows rows of A (a, each k floats) times the columns [j, j + lanes) of B (b, k rows
// of `width` floats, readable for a whole vector past the last row's end): the final sums
// into out[r * ldo + j ..] (only `count` lanes), special[r * width + j ..] = 1 where the
// lane must be computed again by the scalar definition, else 0.
template <std::size_t kRows>
HWY_INLINE void AccumulateColumns(const simd::detail::QuantizeConstants& q,
                                  const simd::detail::DequantizeConstants& d, const float* a, const float* b,
                                  std::size_t width, std::size_t k, std::size_t j, std::size_t count, float* out,
                                  std::size_t ldo, std::uint8_t* special) {
  const DU du;
  const DD dd;
  const DFHalf dh;
  const std::size_t half = hn::Lanes(dd);
  RowSums sums[kRows];  // +0
  for (std::size_t p = 0; p < k; ++p) {
    const float* b_row = b + p * width + j;
    const VD b_low = hn::PromoteTo(dd, hn::LoadU(dh, b_row));
    const VD b_high = hn::PromoteTo(dd, hn::LoadU(dh, b_row + half));
    for (std::size_t r = 0; r < kRows; ++r) Step(q, d, hn::Set(dd, double(a[r * k + p])), b_low, b_high, sums[r]);
  }
  const DF df;
  HWY_ALIGN float values[HWY_MAX_BYTES / sizeof(float)];
  HWY_ALIGN std::uint32_t largest[HWY_MAX_BYTES / sizeof(float)];
  for (std::size_t r = 0; r < kRows; ++r) {
    const auto value = hn::Combine(df, hn::DemoteTo(dh, sums[r].high), hn::DemoteTo(dh, sums[r].low));
    hn::Store(value, df, values);
    hn::Store(hn::Max(sums[r].largest, hn::And(hn::BitCast(du, value), hn::Set(du, 0x7FFFFFFFu))), du, largest);
    std::memcpy(out + r * ldo + j, values, count * sizeof(float));
    for (std::size_t lane = 0; lane < count; ++lane) special[r * width + j + lane] = largest[lane] >= 0x7F800000u;
  }
}

// The columns of `rows` (at most 4) rows: whole vectors, then the tail.
template <std::size_t kRows>
HWY_INLINE void AccumulateRowGroup(const simd::detail::QuantizeConstants& q,
                                   const simd::detail::DequantizeConstants& d, const float* a, const float* b,
                                   std::size_t width, std::size_t k, float* out, std::size_t ldo,
                                   std::uint8_t* special) {
  const std::size_t lanes = hn::Lanes(DU());
  for (std::size_t j = 0; j < width; j += lanes) {
    const std::size_t count = width - j < lanes ? width - j : lanes;
    AccumulateColumns<kRows>(q, d, a, b, width, k, j, count, out, ldo, special);
  }
}

// The exported entry point: `rows` rows of A times the block of B, as above, four rows
// at a time (eight or more independent chains of dependent operations in flight).
// Returns false where the target has no double lanes (the caller then runs the
// scalar definition).
HWY_NOINLINE bool AccumulateRows(const float* a, std::size_t rows, const float* b, std::size_t width,
                                 std::size_t k, float* out, std::size_t ldo, std::uint8_t* special,
                                 const simd::detail::QuantizeConstants& quantize,
                                 const simd::detail::DequantizeConstants& dequantize) {
  const simd::detail::QuantizeConstants q = quantize;  // kept in registers, as in QuantizeAnyPath
  const simd::detail::DequantizeConstants d = dequantize;
  std::size_t r = 0;
  for (; r + 4 <= rows; r += 4)
    AccumulateRowGroup<4>(q, d, a + r * k, b, width, k, out + r * ldo, ldo, special + r * width);
  for (; r < rows; ++r) AccumulateRowGroup<1>(q, d, a + r * k, b, width, k, out + r * ldo, ldo, special + r * width);
  return true;
}
#else
HWY_NOINLINE bool AccumulateRows(const float*, std::size_t, const float*, std::size_t, std::size_t, float*,
                                 std::size_t, std::uint8_t*, const simd::detail::QuantizeConstants&,
                                 const simd::detail::DequantizeConstants&) {
  return false;
}
#endif  // HWY_HAVE_FLOAT64 && HWY_TARGET != HWY_SCALAR

// How many floats past the end of B's block AccumulateRows may read: one vector.
HWY_NOINLINE std::size_t AccumulatorReadsPast() { return hn::Lanes(hn::ScalableTag<float>()); }

}  // namespace HWY_NAMESPACE
}  // namespace softfloat::matmul_detail
HWY_AFTER_NAMESPACE();

#endif  // include guard
