// The per-target conversion float -> code (quantize), one of the three kernel headers
// of the array conversions with quantize_doubles-inl.h (double -> code through a float
// rounded to odd) and dequantize_round_trip-inl.h (code -> float, and the fused round
// trip). One generic algorithm written once with Highway ops and compiled for every
// target: everything that depends on the format, the rounding direction or the
// overflow policy arrives as numbers in QuantizeConstants / DequantizeConstants
// (array_constants.hpp), so the compiled code is the same for every format. Integer
// arithmetic but for three float operations: dequantize converts a subnormal's integer
// significand (below 2^23, so exactly) to float, the middle path of quantize
// (QuantizeMiddle, here) adds 2^(emin - M + 23) to |x| so that the FPU rounds the
// format's subnormal lanes to nearest even, and double input is demoted to float and
// promoted back on its way to a float rounded to odd (DoublesRoundedToOdd). The
// addition and the demotion depend on the FPU's rounding mode and on flush-to-zero /
// denormals-are-zero, so every call pins the environment first (conversion_drivers.hpp
// and array_conversions.cpp, ScopedDefaultFloatEnvironment: round to nearest, no FTZ or
// DAZ) and restores the caller's; a test runs every target under the other modes with
// FTZ and DAZ set.
//
// Quantize, for float bits u, a = u & 0x7fffffff, fe = a >> 23 (fp32 exponent field):
//   sig = a - ((max(fe, 1) - 1) << 23)      the integer significand, implicit bit included,
//                                           of |x| = sig * 2^(max(fe, 1) - 150)
//   E   = max(fe, exponent_floor)          fp32 exponent field of the binade the result is
//                                           counted in (the smallest normal one below it)
//   shift = E - max(fe, 1) + (23 - M)      so the quantum 2^(E - 127 - M) is bit `shift` of sig
//   kept  = (sig + increment) >> shift     rounding by an integer increment:
//                                             nearest-even: (half - 1) + (last kept bit)
//                                             ties away: half; ties toward zero: half - 1
//                                             away from zero: 2^shift - 1; toward zero: 0
//   code  = kept + ((E + bias - 128) << M) which is round_to_format()'s
//                                           (biased exponent - 1) * 2^M + kept; a carry out
//                                           of the mantissa moves the exponent up by itself.
// shift is capped at 31: sig < 2^24, so any shift >= 25 leaves 0 with a remainder below half.
//
// Fast path (nearest even), for a vector whose lanes are all normal in the format and
// below 2^max_exponent: there E = fe >= 1, shift = 23 - M for every lane and
//   sig >> shift = (a >> shift) - ((fe - 1) << M)   (the subtracted term is a multiple
//                                                    of 2^shift, so no bit is lost)
//   code = kept - ((fe - 1) << M) + ((fe + bias - 128) << M) evaluated on a instead of sig:
//        = ((a + H + lsb) >> shift) + ((bias - 127) << M),  H = 2^(shift - 1) - 1,
//   lsb  = (a >> shift) & 1 (the same bit of sig for M >= 1: (fe - 1) << M is even)
//        = (a + lsb + H + ((bias - 127) << 23)) >> shift    (mod 2^32: the true sum lies in
//                                                            [0, 2^32) since the code does)
// which is 6 integer ops and the sign instead of the general path's ~25.
// Overflowing lanes (a code magnitude above max_finite) take the overflow code by a
// select. Inf, NaN, negative input to an unsigned format and E8M0's fp32-subnormal
// inputs are fixed up by compare and select in a branch taken only when a vector holds
// such a lane.
//
// Worked example: 0.3f to E4M3 (M = 3, bias 7), nearest even, by the fast path.
//   u = 0x3E99999A (0.300000011920928955...), a = u, fe = 0x7D = 125: 0.3 = 1.2 * 2^-2,
//   a normal binade of E4M3 (biased exponent -2 + 7 = 5), so a vector of such lanes
//   takes the fast path, with shift = 23 - 3 = 20.
//   lsb = (a >> 20) & 1 = 0x3E9 & 1 = 1; H = 2^19 - 1 = 0x7FFFF; (bias - 127) << 23 =
//   -120 << 23, so fast_add = H + (-120 << 23) = 0xC407FFFF (mod 2^32).
//   a + lsb + fast_add = 0x02A1999A (mod 2^32), >> 20 = 0x2A: the code 0 0101 010,
//   1.010b * 2^(5 - 7) = 1.25 * 2^-2 = 0.3125.
//   Why: the 20 bits dropped are 0x9999A, above half a quantum (0x80000), so the kept
//   mantissa 001 rounds up to 010 (1.2 lies nearer 1.25 than 1.125); the increment
//   H + lsb carries into bit 20 exactly when the dropped bits exceed half, or equal it
//   with an odd last kept bit, and subtracting 120 from the exponent field turns
//   fp32's bias into E4M3's. round_to_format(0.3f, E4M3) gives 0x2A too.

// Highway compiles this header once per target (foreach_target.h in
// conversion_dispatch.cpp). Other per-target files include it for its vector routines
// (the matmul accumulator kernel, matmul/accumulate-inl.h), so every non-template
// function here is inline: defined in several translation units, linked once.

#if defined(SOFTFLOAT_SIMD_QUANTIZE_FLOATS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_SIMD_QUANTIZE_FLOATS_INL_H_
#undef SOFTFLOAT_SIMD_QUANTIZE_FLOATS_INL_H_
#else
#define SOFTFLOAT_SIMD_QUANTIZE_FLOATS_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "simd/array_constants.hpp"
#include "simd/prefetch.hpp"

HWY_BEFORE_NAMESPACE();
namespace softfloat::simd::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DU = hn::ScalableTag<std::uint32_t>;
using DI = hn::RebindToSigned<DU>;
using DF = hn::RebindToFloat<DU>;
using VU = hn::Vec<DU>;

// a >= b on unsigned lanes (Highway 1.0.3 has no unsigned operator>=).
HWY_INLINE hn::Mask<DU> AtLeast(VU a, VU b) { return hn::Not(hn::Lt(a, b)); }

// Every lane shifted by the same count, known only at run time (a format's constant).
// On AVX2 and AVX-512 by a per-lane shift (vpsrlvd / vpsllvd) of a broadcast count,
// which the compiler hoists out of the loop: a shift by a count in an xmm register
// (Highway's ShiftRightSame) is two uops on Intel's cores, and GCC reloads that
// register inside the loop, a third. SSE4 has no per-lane shift; other targets keep
// ShiftRightSame.
HWY_INLINE VU ShiftRightBy(VU v, std::uint32_t count) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  return hn::Shr(v, hn::Set(DU(), count));
#else
  return hn::ShiftRightSame(v, int(count));
#endif
}
HWY_INLINE VU ShiftLeftBy(VU v, std::uint32_t count) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  return hn::Shl(v, hn::Set(DU(), count));
#else
  return hn::ShiftLeftSame(v, int(count));
#endif
}

// Loads one vector of float bits; stores one vector of codes as `Code`.
HWY_INLINE VU LoadFloatBits(const float* in) {
  const DU du;
  const DF df;
  return hn::BitCast(du, hn::LoadU(df, in));
}
template <class Code>
HWY_INLINE void StoreCodes(VU codes, Code* out) {
  const DU du;
  if constexpr (sizeof(Code) == 4) {
    hn::StoreU(codes, du, out);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  } else if constexpr (sizeof(Code) == 1) {
    // One vpmovdb; Highway 1.0.3's TruncateTo takes vpshufb + vpermd and a shuffle of
    // its index vector that the compiler does not hoist out of the loop.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi32_epi8(codes.raw));
  } else if constexpr (sizeof(Code) == 2) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_cvtepi32_epi16(codes.raw));
#endif
  } else {
    // Codes are below 2^16 (2^8), so keeping the low bits is exact (vpmovdb / vpmovdw).
    const hn::Rebind<Code, DU> dn;
    hn::StoreU(hn::TruncateTo(dn, codes), dn, out);
  }
}
template <class Code>
HWY_INLINE VU LoadCodes(const Code* in) {
  const DU du;
  if constexpr (sizeof(Code) == 4) {
    return hn::LoadU(du, in);
  } else {
    const hn::Rebind<Code, DU> dn;
    return hn::PromoteTo(du, hn::LoadU(dn, in));
  }
}

// The rare lanes: overflow candidates, inf, NaN, negative input to unsigned formats,
// fp32 subnormals of E8M0-like formats. `result` holds the common path's codes.
HWY_NOINLINE inline VU FixRareLanes(const QuantizeConstants c, VU u, VU a, VU magnitude, VU result) {
  const DU du;
  const auto negative = hn::RebindMask(du, hn::Lt(hn::BitCast(DI(), u), hn::Zero(DI())));
  const VU infinity_bits = hn::Set(du, 0x7F800000u);
  const VU overflow = hn::IfThenElse(negative, hn::Set(du, c.overflow_negative), hn::Set(du, c.overflow_positive));
  result = hn::IfThenElse(hn::Gt(magnitude, hn::Set(du, c.max_finite)), overflow, result);
  const VU infinity = hn::IfThenElse(negative, hn::Set(du, c.infinity_negative), hn::Set(du, c.infinity_positive));
  result = hn::IfThenElse(hn::Eq(a, infinity_bits), infinity, result);
  // NaN: quiet, sign kept, the top payload bits (a >> shift keeps M of them) where the
  // format has several NaN codes.
  const VU nan = hn::Or(hn::IfThenElse(negative, hn::Set(du, c.nan_negative), hn::Set(du, c.nan_positive)),
                        hn::And(hn::ShiftRightSame(a, int(c.mantissa_shift)), hn::Set(du, c.nan_payload_mask)));
  const auto is_nan = hn::Gt(a, infinity_bits);
  result = hn::IfThenElse(is_nan, nan, result);
  const VU tiny = hn::IfThenElseZero(AtLeast(a, hn::Set(du, c.tiny_one_at)), hn::Set(du, 1u));
  result = hn::IfThenElse(hn::Lt(a, hn::Set(du, c.tiny_below)), tiny, result);
  const auto negative_input = hn::AndNot(is_nan, hn::Gt(u, hn::Set(du, c.negative_rare_above)));
  return hn::IfThenElse(negative_input, hn::Set(du, c.negative_code), result);
}

// The code's sign bit for float bits u: moved down from bit 31.
HWY_INLINE VU MovedSign(const QuantizeConstants& c, VU u) {
  const DU du;
  return hn::And(ShiftRightBy(u, c.sign_shift), hn::Set(du, c.sign_bit));
}
// The same, dropped where the format has no -0 and the magnitude rounded to zero.
HWY_INLINE VU CodeSign(const QuantizeConstants& c, VU u, VU magnitude) {
  const DU du;
  return hn::IfThenElseZero(hn::Ne(magnitude, hn::Set(du, c.zero_sign_drop)), MovedSign(c, u));
}

// Which rounding a loop does: nearest even (the default, with the fast and middle
// paths), another deterministic direction (by an integer increment), or stochastic
// (by a comparison with random bits).
enum class Path { kNearestEven, kDeterministic, kStochastic };

// x >> 16 in each 32-bit lane. On AVX2 and AVX-512 a byte shuffle (vpshufb) that
// moves the lane's two high bytes down and zeroes the others: on Intel's cores it runs
// on port 5, where the shifts of 512-bit vectors and the hash's multiplies all wait on
// port 0. Elsewhere the shift.
HWY_INLINE VU ShiftRight16(VU x) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  const hn::Repartition<std::uint8_t, DU> d8;
  // Within each 16-byte block, lane j's bytes 4j + 2 and 4j + 3, then two zeros
  // (indices with the high bit set).
  alignas(16) static constexpr std::uint8_t kHighHalves[16] = {2,  3,  0x80, 0x80, 6,  7,  0x80, 0x80,
                                                              10, 11, 0x80, 0x80, 14, 15, 0x80, 0x80};
  return hn::BitCast(DU(), hn::TableLookupBytesOr0(hn::BitCast(d8, x), hn::LoadDup128(d8, kHighHalves)));
#else
  return hn::ShiftRight<16>(x);
#endif
}

// The random bits of the lanes whose element counters are `counter` (counter_base +
// the element's index), softfloat::detail::keyed_bits on each lane
// (softfloat/random_bits.hpp), in steps:
// - keyed_bits starts x = counter ^ k0, then x ^= x >> 16. That is counter ^ key with
//   key = k0 ^ ((counter ^ k0) >> 16) (CounterKey), which depends on the counter's high
//   16 bits alone, so that a loop whose counters keep them may make the key once.
//   Worked value: counter 0x0001FFFF, k0 0x0000ABCD: x = 0x00015432, x ^ (x >> 16) =
//   0x00015433; key = 0xABCD ^ 1 = 0xABCC, and 0x0001FFFF ^ 0xABCC = 0x00015433.
// - RandomHashFrom(c, counter ^ key) goes on up to the last xorshift (RandomHash: the
//   two steps), and RandomBitsOf(x) = x ^ (x >> 16) finishes it. That xorshift changes
//   only the low 16 bits, so a draw that reads bits 16 and up (the 16-bit formats'
//   fast path) reads them from x, two operations a vector fewer.
HWY_INLINE VU CounterKey(const QuantizeConstants& c, VU counter) {
  const VU k0 = hn::Set(DU(), c.random_k0);
  return hn::Xor(k0, ShiftRight16(hn::Xor(counter, k0)));
}
HWY_INLINE VU RandomHashFrom(const QuantizeConstants& c, VU keyed_counter) {
  const DU du;
  auto multiply = [&](VU x) {  // the rest of a multiply-xorshift round
    x = hn::Mul(x, hn::Set(du, 0x7FEB352Du));
    x = hn::Xor(x, hn::ShiftRight<15>(x));
    return hn::Mul(x, hn::Set(du, 0x846CA68Bu));
  };
  VU x = multiply(keyed_counter);                                      // mix32, without its last xorshift
  x = hn::Xor(hn::Xor(x, ShiftRight16(x)), hn::Set(du, c.random_k1));  // ... which comes here, then ^ k1
  return multiply(hn::Xor(x, ShiftRight16(x)));                        // the second mix32's start
}
// The hash of any lanes' counters, each lane with its own key (one vector's lanes may
// straddle a multiple of 2^16).
HWY_INLINE VU RandomHash(const QuantizeConstants& c, VU counter) {
  return RandomHashFrom(c, hn::Xor(counter, CounterKey(c, counter)));
}
HWY_INLINE VU RandomBitsOf(VU hash) { return hn::Xor(hash, ShiftRight16(hash)); }
// The element counters of a vector whose first lane is element `index` of the call.
HWY_INLINE VU LaneCounters(const QuantizeConstants& c, std::size_t index) {
  const DU du;
  return hn::Add(hn::Iota(du, 0), hn::Set(du, std::uint32_t(c.counter_base + index)));
}

// One vector of floats -> codes by the general formula (any lane, any direction).
// `random` is used by Path::kStochastic only.
template <Path kPath>
HWY_INLINE VU QuantizeVector(const QuantizeConstants& c, VU u, VU random) {
  const DU du;
  const DI di;
  const VU one = hn::Set(du, 1u);
  const VU a = hn::And(u, hn::Set(du, 0x7FFFFFFFu));
  const VU field = hn::ShiftRight<23>(a);
  const VU field_or_one = hn::Max(field, one);
  const VU binade = hn::Max(field, hn::Set(du, c.exponent_floor));
  const VU sig = hn::Sub(a, hn::ShiftLeft<23>(hn::Sub(field_or_one, one)));
  // Bits of sig below the quantum; at least 1 since M <= 22.
  const VU full_shift = hn::Add(hn::Sub(binade, field_or_one), hn::Set(du, c.mantissa_shift));
  const VU shift = hn::Min(full_shift, hn::Set(du, 31u));
  const VU below_quantum = hn::Sub(hn::Shl(one, shift), one);  // 2^shift - 1
  VU kept;
  if constexpr (kPath == Path::kNearestEven) {
    const VU last_kept_bit = hn::And(hn::Shr(sig, shift), one);
    kept = hn::Shr(hn::Add(sig, hn::Add(hn::ShiftRight<1>(below_quantum), last_kept_bit)), shift);
  } else if constexpr (kPath == Path::kDeterministic) {
    const VU last_kept_bit = hn::And(hn::Shr(sig, shift), one);
    const VU sign_lanes = hn::BitCast(du, hn::BroadcastSignBit(hn::BitCast(di, u)));
    const VU keep = hn::Xor(hn::Set(du, c.increment_keep_positive), hn::And(sign_lanes, hn::Set(du, c.increment_keep_flip)));
    const VU increment =
        hn::Add(hn::And(hn::Add(hn::ShiftRightSame(below_quantum, int(c.increment_shift)), hn::Set(du, c.increment_add)), keep),
                hn::And(last_kept_bit, hn::Set(du, c.lsb_keep)));
    kept = hn::Shr(hn::Add(sig, increment), shift);
    // Round to odd: an inexact result gets its last bit set (it never carries).
    const VU inexact = hn::IfThenElseZero(hn::Ne(hn::And(sig, below_quantum), hn::Zero(du)), hn::Set(du, c.sticky_to_lsb));
    kept = hn::Or(kept, inexact);
  } else {
    // round_to_format's rule: away from zero iff random < F, the first 32 bits of the
    // discarded fraction (sig's low full_shift bits, left-aligned; for full_shift > 32
    // all of sig lies further down). Equal probabilities: iff inexact and the low
    // random bit is set, i.e. iff (random & 1) ^ 1 < 1. Both shift amounts are kept in
    // [0, 31] for the lanes whose result the select discards too: a larger one is
    // undefined behaviour on HWY_SCALAR.
    const VU fraction = hn::IfThenElse(hn::Lt(full_shift, hn::Set(du, 33u)),
                                       hn::Shl(sig, hn::Sub(hn::Set(du, 32u), hn::Min(full_shift, hn::Set(du, 32u)))),
                                       hn::Shr(sig, hn::Min(hn::Sub(full_shift, hn::Set(du, 32u)), hn::Set(du, 31u))));
    const VU inexact = hn::VecFromMask(du, hn::Ne(hn::And(sig, below_quantum), hn::Zero(du)));
    const bool equal = c.stochastic == 2;
    const VU threshold = equal ? hn::And(inexact, one) : fraction;
    const VU draw = equal ? hn::Xor(hn::And(random, one), one) : random;
    kept = hn::Add(hn::Shr(sig, shift), hn::IfThenElseZero(hn::Lt(draw, threshold), one));
  }
  VU magnitude = hn::Add(kept, hn::ShiftLeftSame(hn::Add(binade, hn::Set(du, c.code_exponent_offset)), int(c.mantissa_bits)));
  // Below the smallest value of a format without zero: code 0 (negative sums clamp).
  magnitude = hn::BitCast(du, hn::Max(hn::BitCast(di, magnitude), hn::Zero(di)));
  VU result = hn::Or(magnitude, CodeSign(c, u, magnitude));
  // Overflow of finite input, by select rather than in FixRareLanes: with a normal
  // distribution of data a few percent of lanes overflow a 4- or 6-bit format, and a
  // branch taken at random would cost more than these three ops.
  const auto negative = hn::RebindMask(du, hn::Lt(hn::BitCast(di, u), hn::Zero(di)));
  const VU overflow = hn::IfThenElse(negative, hn::Set(du, c.overflow_negative), hn::Set(du, c.overflow_positive));
  result = hn::IfThenElse(hn::Gt(magnitude, hn::Set(du, c.max_finite)), overflow, result);
  const auto rare = hn::Or(hn::Or(AtLeast(a, hn::Set(du, 0x7F800000u)), hn::Gt(u, hn::Set(du, c.negative_rare_above))),
                           hn::Lt(a, hn::Set(du, c.tiny_below)));
  if (HWY_UNLIKELY(!hn::AllFalse(du, rare))) result = FixRareLanes(c, u, a, magnitude, result);
  return result;
}

// The middle path (nearest even, every lane finite, see QuantizeConstants::middle_end):
// the fast path's formula for lanes normal in the format, one float addition for the
// lanes in its subnormal range (exact: the FPU rounds |x| + 2^(emin - M + 23) once, to
// nearest even, and that sum's ulp is the subnormal quantum), a select between them,
// and overflow as a clamp of the magnitude. The fast formula stays exact up to the
// largest finite float: a + lsb + fast_add stays below 2^31 + 2^22.
HWY_INLINE VU QuantizeMiddle(const QuantizeConstants& c, VU u, VU t) {
  const DU du;
  const DF df;
  const VU lsb = hn::And(ShiftRightBy(t, c.mantissa_shift), hn::Set(du, c.fast_lsb_mask));
  const VU normal = ShiftRightBy(hn::Add(hn::Add(t, lsb), hn::Set(du, c.fast_add)), c.mantissa_shift);
  const VU magic = hn::Set(du, c.middle_magic);
  const VU subnormal = hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(df, t), hn::BitCast(df, magic))), magic);
  VU magnitude = hn::IfThenElse(hn::Lt(t, hn::Set(du, c.fast_low)), subnormal, normal);
  const VU sign = CodeSign(c, u, magnitude);
  magnitude = hn::Min(magnitude, hn::Set(du, c.overflow_cap));
  return hn::Or(magnitude, sign);
}

// Stochastic rounding: the fast path's formula with the random increment of
// QuantizeConstants::stochastic_draw_shift when every lane is normal in the format and
// below 2^max_exponent (the nearest-even fast path's lanes), else the general path.
// Both give round_to_format's bits: the increment carries into the kept bits exactly
// when the rule says to round away from zero.
// The fast path hands the sink t + increment - fast_half as the nearest-even fast path
// hands it t + lsb (sink.Rounded adds fast_half back): the codes are then
// (t + increment + ((bias - 127) << 23)) >> mantissa_shift, as fast_add = fast_half +
// ((bias - 127) << 23), and round_trip's floats are t + increment with the low bits cleared,
// without forming a code (the same bits: below 2^max_exponent the code is a normal one).
// The other paths hand the sink the codes.
// Rounding::stochastic's increment, (~bits) >> s with s = stochastic_draw_shift, is
// formed as mask - (bits >> s) with mask = 0xFFFFFFFF >> s, the same number (~bits is
// 0xFFFFFFFF - bits, and no borrow crosses bit s), so that the subtraction takes the
// place of the not and mask joins the constants that the compiler adds once. Worked
// value, s = 16, bits = 0x12345678: ~bits >> 16 = 0xEDCBA987 >> 16 = 0xEDCB, and
// 0xFFFF - 0x1234 = 0xEDCB. kHighDraw (s >= 16, not kEqual) takes bits >> s from the
// hash before its last xorshift (RandomHashFrom), whose bits 16 and up are the same.
// kGeneralFirst skips the attempt (the caller's choice, as for nearest even);
// `fast_failures` counts the vectors that could not take the fast path.
// `hash` is RandomHashFrom of the lanes' keyed counters.
template <bool kGeneralFirst, bool kEqual, bool kHighDraw, class Sink>
HWY_INLINE void QuantizeStochasticVector(const QuantizeConstants& c, VU u, VU hash, std::size_t& fast_failures,
                                         const Sink& sink, std::size_t i) {
  const DU du;
  if constexpr (!kGeneralFirst) {
    const VU t = hn::And(u, hn::Set(du, c.fast_abs_mask));
    const VU offset = hn::Sub(t, hn::Set(du, c.fast_low));
    const bool all_normal = hn::AllTrue(du, hn::Lt(offset, hn::Set(du, c.stochastic_fast_span)));
    fast_failures += all_normal ? 0 : 1;
    if (HWY_LIKELY(all_normal)) {
      const VU base = hn::Sub(t, hn::Set(du, c.fast_half));
      if constexpr (kEqual) {
        const VU draw = hn::Sub(hn::Zero(du), hn::And(RandomBitsOf(hash), hn::Set(du, 1u)));
        return sink.Rounded(c, i, hn::Add(base, ShiftRightBy(draw, c.stochastic_draw_shift)), u);
      } else {
        const VU mask = hn::Set(du, 0xFFFFFFFFu >> c.stochastic_draw_shift);
        const VU bits = kHighDraw ? hash : RandomBitsOf(hash);
        return sink.Rounded(c, i, hn::Sub(hn::Add(base, mask), ShiftRightBy(bits, c.stochastic_draw_shift)), u);
      }
    }
  }
  sink(i, QuantizeVector<Path::kStochastic>(c, u, RandomBitsOf(hash)));
}

// The vectors [begin, end) of the stochastic loop below, `counter` the first one's
// counters on entry and past the last one's on return. The counters' key (CounterKey)
// is made once, from the first vector's, so each lane's counter must keep its high 16
// bits over the range (one vector always does).
template <bool kEqual, bool kHighDraw, class Sink>
HWY_INLINE std::size_t QuantizeStochasticBlock(const QuantizeConstants& c, const float* in, std::size_t begin,
                                               std::size_t end, bool general_first, VU& counter, const Sink& sink) {
  const DU du;
  const std::size_t lanes = hn::Lanes(du);
  const VU step = hn::Set(du, std::uint32_t(lanes));
  const VU key = CounterKey(c, counter);
  VU lane_counter = counter;
  std::size_t fast_failures = 0;
  for (std::size_t v = begin; v < end; ++v) {
    PrefetchAhead(in + v * lanes);
    const VU hash = RandomHashFrom(c, hn::Xor(lane_counter, key));
    lane_counter = hn::Add(lane_counter, step);
    const VU u = LoadFloatBits(in + v * lanes);
    if (general_first) QuantizeStochasticVector<true, kEqual, kHighDraw>(c, u, hash, fast_failures, sink, v * lanes);
    else QuantizeStochasticVector<false, kEqual, kHighDraw>(c, u, hash, fast_failures, sink, v * lanes);
  }
  counter = lane_counter;
  return fast_failures;
}

// The stochastic loop, for one kind of draw (kEqual: Rounding::stochastic_equal;
// kHighDraw as above), in blocks of 16 vectors as nearest even's below: data whose
// vectors nearly always hold a subnormal lane (4- and 6-bit formats) go straight to the
// general path. The lanes' counters advance by one vector's lanes a step, from
// counter_base + index. One key serves a block unless its counters cross a multiple of
// 2^16 (once in 2^16 / (16 lanes) blocks, or never when they start at one); such a
// block goes in up to three runs, each with its own key: the vectors before the
// multiple, the one vector whose lanes straddle it (the key is made per lane), the rest.
// Worked value, 16 lanes, a block whose counters start at 0xFFE8: 0x10000 - 0xFFE8 = 24
// counters remain below the multiple, one whole vector (0xFFE8..0xFFF7); the next,
// 0xFFF8..0x10007, straddles it; the rest start at 0x10008. The runs share one copy of
// the loop (QuantizeStochasticBlock is inlined once), which keeps the build smaller.
template <bool kEqual, bool kHighDraw, class Sink>
HWY_INLINE void QuantizeStochasticVectors(const QuantizeConstants& c, const float* in, std::size_t count,
                                          const Sink& sink, std::size_t index) {
  const DU du;
  const std::size_t lanes = hn::Lanes(du);
  VU counter = LaneCounters(c, index);
  constexpr std::size_t kBlock = 16;
  bool general_first = false;
  for (std::size_t begin = 0; begin < count; begin += kBlock) {
    const std::size_t end = count - begin < kBlock ? count : begin + kBlock;
    std::size_t fast_failures = 0;
    for (std::size_t run = begin; run < end;) {
      const std::uint32_t first = std::uint32_t(c.counter_base + index + run * lanes);
      const std::size_t below_multiple = 0x10000u - (first & 0xFFFFu);  // counters, 1 to 2^16
      const std::size_t run_end = run + std::max<std::size_t>(1, std::min(end - run, below_multiple / lanes));
      fast_failures += QuantizeStochasticBlock<kEqual, kHighDraw>(c, in, run, run_end, general_first, counter, sink);
      run = run_end;
    }
    general_first = fast_failures * 4 > end - begin;
  }
}

// Nearest even: the fast path when every lane is normal in the format, else the
// middle path when every lane is finite, else the general path. kMiddleFirst skips
// the fast path and its branch (the caller's choice, see QuantizeVectors);
// `fast_failures` counts the vectors that could not take the fast path, without a
// branch.
// The fast path hands the sink t + lsb (sink.Rounded), the other paths the codes.
template <bool kMiddleFirst, class Sink>
HWY_INLINE void QuantizeNearestVector(const QuantizeConstants& c, VU u, std::size_t& fast_failures, const Sink& sink,
                                      std::size_t i) {
  const DU du;
  const VU t = hn::And(u, hn::Set(du, c.fast_abs_mask));
  const bool all_normal = hn::AllTrue(du, hn::Lt(hn::Sub(t, hn::Set(du, c.fast_low)), hn::Set(du, c.fast_span)));
  fast_failures += all_normal ? 0 : 1;
  if constexpr (!kMiddleFirst) {
    if (HWY_LIKELY(all_normal)) {
      const VU lsb = hn::And(ShiftRightBy(t, c.mantissa_shift), hn::Set(du, c.fast_lsb_mask));
      return sink.Rounded(c, i, hn::Add(t, lsb), u);
    }
  }
  if (HWY_LIKELY(hn::AllTrue(du, hn::Lt(t, hn::Set(du, c.middle_end))))) return sink(i, QuantizeMiddle(c, u, t));
  sink(i, QuantizeVector<Path::kNearestEven>(c, u, u));
}

// The codes of the fast path from t + lsb: the magnitude rounded and shifted down, the
// sign moved down from bit 31.
HWY_INLINE VU FastPathCodes(const QuantizeConstants& c, VU t_lsb, VU u) {
  const DU du;
  return hn::Or(ShiftRightBy(hn::Add(t_lsb, hn::Set(du, c.fast_add)), c.mantissa_shift), MovedSign(c, u));
}

// Where each vector of codes goes: sink(i, codes) for elements [i, i + lanes) of the
// call's input, or sink.Rounded(c, i, t_lsb, u) from the nearest-even fast path.
// StoreAsCodes stores them (quantize); StoreAsFloats (dequantize_round_trip-inl.h, beside DequantizeVector)
// turns them into the format's values in registers and stores the floats (round_trip:
// one pass over the memory, no code buffer). The input is not restrict: round_trip may
// write over it, each vector being read before its results are stored.
template <class Code>
struct StoreAsCodes {
  Code* HWY_RESTRICT out;
  HWY_INLINE void operator()(std::size_t i, VU codes) const { StoreCodes(codes, out + i); }
  HWY_INLINE void Rounded(const QuantizeConstants& c, std::size_t i, VU t_lsb, VU u) const {
    StoreCodes(FastPathCodes(c, t_lsb, u), out + i);
  }
  // Only the 16-bit formats draw from bits 16 and up (s = 9 + mantissa bits >= 16), and
  // they store 2-byte codes: the other widths leave out the kHighDraw loop, whose bits
  // the plain one gives too, two operations a vector dearer (a third copy of the
  // stochastic loop per width and target is build time for nothing).
  static constexpr bool kTakesHighDraw = sizeof(Code) == 2;
  // The tail goes through a padded buffer, so that nothing outside out[0, n) is written.
  using Padded = Code;
  StoreAsCodes At(Padded* buffer) const { return {buffer}; }
};

template <bool kMiddleFirst, class Sink>
HWY_INLINE std::size_t QuantizeNearestBlock(const QuantizeConstants& c, const float* in,
                                            std::size_t count, const Sink& sink, std::size_t first) {
  const std::size_t lanes = hn::Lanes(DU());
  std::size_t fast_failures = 0;
  for (std::size_t v = 0; v < count; ++v) {
    PrefetchAhead(in + v * lanes);
    QuantizeNearestVector<kMiddleFirst>(c, LoadFloatBits(in + v * lanes), fast_failures, sink, first + v * lanes);
  }
  return fast_failures;
}

// Whether the stochastic loop's kHighDraw copy is made for `Sink`: yes unless the sink
// says otherwise (StoreAsCodes of a width no 16-bit format uses).
template <class Sink>
constexpr bool SinkTakesHighDraw() {
  if constexpr (requires { Sink::kTakesHighDraw; }) return Sink::kTakesHighDraw;
  else return true;
}

// Hands the codes of `count` whole vectors to `sink`, the first being element `index`
// of the call (for the random bits). Nearest even goes in blocks of 16 vectors: a block
// tries the fast path first unless more than a quarter of the previous block's vectors
// failed it. Data whose vectors mix normal and subnormal lanes at random (a 4- or 6-bit
// format on a normal distribution) would otherwise mispredict the fast path's branch
// every other vector, which costs more than the middle path. Every path gives the same
// bits, so the choice affects speed only.
template <Path kPath, class Sink>
HWY_INLINE void QuantizeVectors(const QuantizeConstants& c, const float* in, std::size_t count,
                                const Sink& sink, std::size_t index) {
  const std::size_t lanes = hn::Lanes(DU());
  if constexpr (kPath == Path::kDeterministic) {
    for (std::size_t v = 0; v < count; ++v) {
      PrefetchAhead(in + v * lanes);
      const VU u = LoadFloatBits(in + v * lanes);
      sink(v * lanes, QuantizeVector<kPath>(c, u, u));
    }
  } else if constexpr (kPath == Path::kStochastic) {
    if (c.stochastic == 2) QuantizeStochasticVectors<true, false>(c, in, count, sink, index);
    else if (c.stochastic_draw_shift < 16) QuantizeStochasticVectors<false, false>(c, in, count, sink, index);
    else if constexpr (SinkTakesHighDraw<Sink>()) QuantizeStochasticVectors<false, true>(c, in, count, sink, index);
    else QuantizeStochasticVectors<false, false>(c, in, count, sink, index);
  } else {
    constexpr std::size_t kBlock = 16;
    bool middle_first = false;
    for (std::size_t begin = 0; begin < count; begin += kBlock) {
      const std::size_t size = count - begin < kBlock ? count - begin : kBlock;
      const std::size_t fast_failures =
          middle_first ? QuantizeNearestBlock<true>(c, in + begin * lanes, size, sink, begin * lanes)
                       : QuantizeNearestBlock<false>(c, in + begin * lanes, size, sink, begin * lanes);
      middle_first = fast_failures * 4 > size;
    }
  }
}

// The tail's one vector, element `index` of the call on, by the general formula, which
// gives every path's bits (the fast and middle paths are its shortcuts): one small copy
// of the code per path and sink, where QuantizeVectors would inline its whole loops a
// second time (build time), for a vector that pays a few more operations once a call.
template <Path kPath, class Sink>
HWY_INLINE void QuantizeTailVector(const QuantizeConstants& c, VU u, const Sink& sink, std::size_t index) {
  if constexpr (kPath == Path::kStochastic) {
    sink(0, QuantizeVector<kPath>(c, u, RandomBitsOf(RandomHash(c, LaneCounters(c, index)))));
  } else {
    sink(0, QuantizeVector<kPath>(c, u, u));
  }
}

// `Sink` writes to sink.out; sink.At(buffer) is the same sink writing to a local buffer
// of Sink::Padded, for the tail.
template <Path kPath, class Sink>
HWY_INLINE void QuantizeLoop(const float* in, std::size_t n, const Sink& sink, const QuantizeConstants& c) {
  const DU du;
  const std::size_t lanes = hn::Lanes(du);
  const std::size_t whole = n / lanes;
  QuantizeVectors<kPath>(c, in, whole, sink, 0);
  const std::size_t i = whole * lanes;
  if (i == n) return;
  // The tail: fewer than one vector, through padded buffers so that nothing outside
  // in[0, n) is read or outside out[0, n) written.
  using Padded = typename Sink::Padded;
  HWY_ALIGN float padded_in[HWY_MAX_BYTES / sizeof(float)] = {};
  HWY_ALIGN Padded padded_out[HWY_MAX_BYTES / sizeof(float)] = {};
  std::memcpy(padded_in, in + i, (n - i) * sizeof(float));
  QuantizeTailVector<kPath>(c, LoadFloatBits(padded_in), sink.At(padded_out), i);
  std::memcpy(sink.out + i, padded_out, (n - i) * sizeof(Padded));
}

// The loop for each rounding path. The constants are copied first: a local copy whose
// address never escapes may stay in registers, since stores through `out` (a uint8_t*,
// which may alias anything) cannot change it.
template <class Sink>
HWY_INLINE void QuantizeAnyPath(const float* in, std::size_t n, const Sink& sink, const QuantizeConstants& constants) {
  const QuantizeConstants c = constants;
  if (c.nearest_even) QuantizeLoop<Path::kNearestEven>(in, n, sink, c);
  else if (c.stochastic != 0) QuantizeLoop<Path::kStochastic>(in, n, sink, c);
  else QuantizeLoop<Path::kDeterministic>(in, n, sink, c);
}

template <class Code>
HWY_INLINE void QuantizeAny(const float* in, std::size_t n, Code* out, const QuantizeConstants& c) {
  QuantizeAnyPath(in, n, StoreAsCodes<Code>{out}, c);
}

// The exported per-target entry points: plain functions, one per storage width.
HWY_NOINLINE inline void QuantizeTo8(const float* in, std::size_t n, std::uint8_t* out, const QuantizeConstants& c) {
  QuantizeAny(in, n, out, c);
}
HWY_NOINLINE inline void QuantizeTo16(const float* in, std::size_t n, std::uint16_t* out, const QuantizeConstants& c) {
  QuantizeAny(in, n, out, c);
}
HWY_NOINLINE inline void QuantizeTo32(const float* in, std::size_t n, std::uint32_t* out, const QuantizeConstants& c) {
  QuantizeAny(in, n, out, c);
}

}  // namespace HWY_NAMESPACE
}  // namespace softfloat::simd::detail
HWY_AFTER_NAMESPACE();

#endif  // include guard
