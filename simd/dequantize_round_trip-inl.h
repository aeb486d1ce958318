// The per-target conversion code -> float (dequantize) and the fused round trip
// float -> code -> float in registers (RoundTripFloats: quantize_floats-inl.h's loops
// with a sink that decodes instead of storing codes). The derivation of dequantize
// opens the code below.
//
// Worked example: E4M3 (M = 3, bias 7, emin = -6) codes to float.
//   Normal code 0x2A = 0 0101 010 (0.3f's code, see quantize_floats-inl.h): the
//   magnitude g = 0x2A lies in the fast range, so bits = (g << (23 - 3)) +
//   ((127 - 7) << 23) = 0x02A00000 + 0x3C000000 = 0x3EA00000 = 0.3125: the exponent
//   and mantissa fields move up together, and adding 120 to the exponent field turns
//   E4M3's bias into fp32's.
//   Subnormal code 0x03 = 0 0000 011: m = 3, the value 3 * 2^(emin - M) = 3 * 2^-9.
//   float(3) = 0x40400000 exactly, and subnormal_exponent_adjust = (emin - M) << 23 =
//   -9 << 23 = 0xFB800000 (mod 2^32) added to it gives 0x3BC00000 = 0.005859375 =
//   3/512: scaling by 2^-9 is a subtraction from the exponent field.
//   Round trip of 0.3f: the fast path forms no code. t = 0x3E99999A, lsb = 1,
//   (t + lsb + fast_half) with the low 20 bits cleared = (0x3E99999A + 1 + 0x7FFFF) &
//   ~0xFFFFF = 0x3EA00000, the same bits as decoding 0x2A above.
//   round_to_format gives 0x3EA00000 and 0x3BC00000 for these codes too.

// Highway compiles this header once per target (foreach_target.h in
// conversion_dispatch.cpp). Other per-target files include it for its vector routines
// (the matmul accumulator kernel, matmul/accumulate-inl.h), so every non-template
// function here is inline: defined in several translation units, linked once.

#if defined(SOFTFLOAT_SIMD_DEQUANTIZE_ROUND_TRIP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_SIMD_DEQUANTIZE_ROUND_TRIP_INL_H_
#undef SOFTFLOAT_SIMD_DEQUANTIZE_ROUND_TRIP_INL_H_
#else
#define SOFTFLOAT_SIMD_DEQUANTIZE_ROUND_TRIP_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "simd/array_constants.hpp"
#include "simd/prefetch.hpp"
#include "simd/quantize_floats-inl.h"
#include "simd/stream-inl.h"

HWY_BEFORE_NAMESPACE();
namespace softfloat::simd::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Dequantize, for code c: magnitude g = c & magnitude_mask.
//   normal:    (g << (23 - M)) + ((127 - bias) << 23)     fields shifted, bias difference added
//   subnormal: m * 2^(emin - M) with m = g & mantissa_mask: the exact float(m) with
//              emin - M added to its exponent field, or (all fp32 subnormals) m << (emin - M + 149)
//   zero, inf, NaN: compare and select.
// The sign of a code, moved to fp32's sign bit.
HWY_INLINE VU DequantizedSign(const DequantizeConstants& c, VU code) {
  const DU du;
  return ShiftLeftBy(hn::And(code, hn::Set(du, c.sign_bit)), c.sign_shift);
}
// The fp32 bits of a normal magnitude.
HWY_INLINE VU DequantizedNormal(const DequantizeConstants& c, VU magnitude) {
  const DU du;
  return hn::Add(ShiftLeftBy(magnitude, c.mantissa_shift), hn::Set(du, c.exponent_adjust));
}

HWY_INLINE VU DequantizeVector(const DequantizeConstants& c, VU code) {
  const DU du;
  const DI di;
  const DF df;
  const VU magnitude = hn::And(code, hn::Set(du, c.magnitude_mask));
  const VU sign = DequantizedSign(c, code);
  const VU mantissa = hn::And(magnitude, hn::Set(du, c.mantissa_mask));
  const VU normal = DequantizedNormal(c, magnitude);
  const VU by_conversion =
      hn::Add(hn::BitCast(du, hn::ConvertTo(df, hn::BitCast(di, mantissa))), hn::Set(du, c.subnormal_exponent_adjust));
  const VU by_shift = ShiftLeftBy(mantissa, c.subnormal_shift);
  const VU subnormal = hn::IfThenElse(hn::MaskFromVec(hn::Set(du, c.subnormal_by_shift)), by_shift, by_conversion);
  VU bits = hn::IfThenElse(hn::Lt(magnitude, hn::Set(du, c.subnormal_below)), subnormal, normal);
  bits = hn::IfThenElse(hn::Eq(magnitude, hn::Set(du, c.zero_magnitude)), hn::Set(du, c.zero_bits), bits);
  // IEEE inf / NaN: exponent all ones; a NaN becomes quiet and keeps its payload.
  const VU quiet = hn::IfThenElseZero(hn::Ne(mantissa, hn::Zero(du)), hn::Set(du, 0x00400000u));
  const VU ieee_special =
      hn::Or(hn::Or(hn::Set(du, 0x7F800000u), ShiftLeftBy(mantissa, c.mantissa_shift)), quiet);
  bits = hn::IfThenElse(AtLeast(magnitude, hn::Set(du, c.ieee_special_at)), ieee_special, bits);
  bits = hn::IfThenElse(hn::Eq(magnitude, hn::Set(du, c.special_magnitude)), hn::Set(du, c.special_magnitude_bits), bits);
  bits = hn::Or(bits, sign);
  // Compared within the format's width: the bits above it are not read (as from_bits()).
  const VU code_in_width = hn::And(code, hn::Set(du, c.magnitude_mask | c.sign_bit));
  return hn::IfThenElse(hn::Eq(code_in_width, hn::Set(du, c.special_code)), hn::Set(du, c.special_code_bits), bits);
}

// The normal formula alone, for a vector whose magnitudes all lie in the fast range
// (DequantizeConstants::fast_low / fast_span): 6 operations instead of about 20.
// `fast_failures` counts the vectors that could not take it; kGeneralFirst skips the
// attempt (the caller's choice) but still counts.
template <bool kGeneralFirst>
HWY_INLINE VU DequantizeNormalOrGeneral(const DequantizeConstants& c, VU code, std::size_t& fast_failures) {
  const DU du;
  const VU magnitude = hn::And(code, hn::Set(du, c.magnitude_mask));
  const bool all_normal = hn::AllTrue(du, hn::Lt(hn::Sub(magnitude, hn::Set(du, c.fast_low)), hn::Set(du, c.fast_span)));
  fast_failures += all_normal ? 0 : 1;
  if (!kGeneralFirst && HWY_LIKELY(all_normal)) return hn::Or(DequantizedNormal(c, magnitude), DequantizedSign(c, code));
  return DequantizeVector(c, code);
}

// In blocks of 16 vectors, as quantize's nearest-even loop: a block tries the normal
// formula first unless more than a quarter of the previous block's vectors failed it
// (the 4- and 6-bit formats, whose vectors nearly always hold a zero or subnormal
// code, would otherwise mispredict that branch at random).
template <bool kStream, class Code>
HWY_INLINE void DequantizeLoop(const Code* HWY_RESTRICT in, std::size_t n, float* HWY_RESTRICT out,
                               const DequantizeConstants& constants) {
  const DequantizeConstants c = constants;  // kept in registers, as in QuantizeLoop
  const DU du;
  const DF df;
  const std::size_t lanes = hn::Lanes(du);
  constexpr std::size_t kBlock = 16;
  bool general_first = false;
  std::size_t i = 0;
  while (i + lanes <= n) {
    std::size_t fast_failures = 0, vectors = 0;
    for (; vectors < kBlock && i + lanes <= n; ++vectors, i += lanes) {
      PrefetchAhead(in + i);
      const VU code = LoadCodes(in + i);
      const VU bits = general_first ? DequantizeNormalOrGeneral<true>(c, code, fast_failures)
                                    : DequantizeNormalOrGeneral<false>(c, code, fast_failures);
      StoreFloatBits<kStream>(hn::BitCast(DF(), bits), out + i);
    }
    general_first = fast_failures * 4 > vectors;
  }
  if (i == n) return;
  HWY_ALIGN Code padded_in[HWY_MAX_BYTES / sizeof(float)] = {};
  HWY_ALIGN float padded_out[HWY_MAX_BYTES / sizeof(float)] = {};
  std::memcpy(padded_in, in + i, (n - i) * sizeof(Code));
  hn::Store(hn::BitCast(df, DequantizeVector(c, LoadCodes(padded_in))), df, padded_out);
  std::memcpy(out + i, padded_out, (n - i) * sizeof(float));
}

// The fast path's value as float bits (StoreAsFloats below): |x| rounded in fp32's
// own bits, the low mantissa_shift bits cleared, and the float's sign.
HWY_INLINE VU FastPathFloatBits(const QuantizeConstants& q, VU t_lsb, VU u) {
  const DU du;
  const VU rounded = hn::AndNot(hn::Set(du, (1u << q.mantissa_shift) - 1), hn::Add(t_lsb, hn::Set(du, q.fast_half)));
  return hn::Or(rounded, hn::And(u, hn::Set(du, 0x80000000u)));
}

// round_trip's sink: the codes decoded in registers and stored as floats. From the
// fast path no code is formed: the value is |x| rounded in fp32's own bits, (t + lsb +
// fast_half) with the low mantissa_shift bits cleared, and the float's sign (an
// unsigned format's fast path has positive lanes only). Decoding the code would give
// the same bits: the code is (t + lsb + fast_half + rebias) >> shift, and decoding
// shifts it back and subtracts the rebias ((bias - 127) << 23) again (the bf16
// rounding trick, for every format).
//
// kStream: non-temporal stores (WithStreamingStores); the padded tail takes plain ones.
template <bool kStream>
struct StoreAsFloats {
  const DequantizeConstants& c;
  float* out;  // may be the input
  HWY_INLINE void operator()(std::size_t i, VU codes) const { Store(DequantizeVector(c, codes), i); }
  HWY_INLINE void Rounded(const QuantizeConstants& q, std::size_t i, VU t_lsb, VU u) const {
    Store(FastPathFloatBits(q, t_lsb, u), i);
  }
  HWY_INLINE void Store(VU bits, std::size_t i) const { StoreFloatBits<kStream>(hn::BitCast(DF(), bits), out + i); }
  using Padded = float;
  StoreAsFloats<false> At(Padded* buffer) const { return {c, buffer}; }
};

// Fake quantization in one pass: each vector rounded to codes and decoded again before
// it is stored, the same bits as quantize then dequantize (the codes in a lane are
// below 2^bits, what StoreCodes keeps and LoadCodes reads back).
HWY_NOINLINE inline void RoundTripFloats(const float* in, std::size_t n, float* out, const QuantizeConstants& qc,
                                  const DequantizeConstants& dc, bool stream) {
  const DequantizeConstants d = dc;  // kept in registers, as in QuantizeAnyPath
  // In place the lines have just been read: nothing to save.
  WithStreamingStores(n, out, stream && in != out, [&](auto kStream, std::size_t begin, std::size_t end) {
    QuantizeConstants part = qc;
    part.counter_base += std::uint32_t(begin);  // the random bits of element begin onwards
    QuantizeAnyPath(in + begin, end - begin, StoreAsFloats<decltype(kStream)::value>{d, out + begin}, part);
  });
}

template <class Code>
HWY_INLINE void DequantizeAny(const Code* in, std::size_t n, float* out, const DequantizeConstants& c, bool stream) {
  WithStreamingStores(n, out, stream, [&](auto kStream, std::size_t begin, std::size_t end) {
    DequantizeLoop<decltype(kStream)::value>(in + begin, end - begin, out + begin, c);
  });
}

HWY_NOINLINE inline void DequantizeFrom8(const std::uint8_t* in, std::size_t n, float* out, const DequantizeConstants& c,
                                   bool stream) {
  DequantizeAny(in, n, out, c, stream);
}
HWY_NOINLINE inline void DequantizeFrom16(const std::uint16_t* in, std::size_t n, float* out, const DequantizeConstants& c,
                                   bool stream) {
  DequantizeAny(in, n, out, c, stream);
}
HWY_NOINLINE inline void DequantizeFrom32(const std::uint32_t* in, std::size_t n, float* out, const DequantizeConstants& c,
                                   bool stream) {
  DequantizeAny(in, n, out, c, stream);
}

}  // namespace HWY_NAMESPACE
}  // namespace softfloat::simd::detail
HWY_AFTER_NAMESPACE();

#endif  // include guard
