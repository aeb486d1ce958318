// The per-target part of the matrix-vector product (m = 1, the decode step of LLM
// inference), compiled for every Highway target by matvec.cpp: y = x * B for a row x of
// k values and B of k x n codes. The product is bound by the bytes of B, so B is
// decoded inside the loop that consumes it and never written out as fp32: one-byte
// codes by a rule of byte_decode.hpp in registers (the half rule: fp16 fields and one
// F16C conversion; else the fp32 rule: integer operations, one conversion and one
// multiply), fp16 codes by F16C, bf16 codes by a shift, so that B is read once at its
// own width. Formats no rule fits are looked up in their 256-entry table with a
// gather, which is correct but several times slower.
//
// What bounds it (one thread, 1 x 8192 x 8192, a Sapphire Rapids Xeon under KVM, where
// AVX-512 code issues its vector operations on ports 0 and 5 only): main memory for
// fp32, bf16, fp16 and E5M2 weights (about 13 GB/s, OpenBLAS's sgemv as well); for E4M3
// the ports: per 16 codes a byte-to-word extension (port 5), a multiply and an AND, the
// conversion (ports 0 and 5) and the FMA (port 0), and the deferred exception test.
// Those were the numbers of the widening decode; the half rule now reads codes as
// 16-bit words in place (HalfByteRows' paired layout), which a Xeon has not measured.
// On a Zen 4 EPYC, whose four vector pipes take two FMAs and two shifts a cycle, the
// one-byte codes are bound by instructions: the conversion (vcvtph2ps, 1.34 cycles per
// 16 values alone, 6.8 cycles for 4 beside 4 FMAs) and, for E4M3, the shifts, ANDs and
// exception test, 19.8 cycles per 128 codes timed alone (E5M2 15.9); in L2 the loop
// takes 0.050 ns a weight (E5M2 0.039), out of cache 0.057-0.061 (0.046). Under AVX2
// E4M3 reads 32 codes a load and keeps eight vectors of sums a step (kQuadLoads): four
// chains of eight dependent FMAs a step left its loop waiting on their latency, and
// the exception test costs about 12% of it (0.060 ns a weight in L2 without it, 0.067
// with; out of cache 0.077, was 0.086).
//
// Summation order: y[j] = +0, then y[j] = MulAdd(x[p], B[p][j], y[j]) for p = 0 .. k-1
// in order, the same chain as the GEMM (gemm-inl.h). The loops go over blocks of
// columns (whose sums stay in cache) and eight rows of B at a time; the columns past
// the last whole vector use one-lane vectors, so that every step is the same MulAdd.

#if defined(SOFTFLOAT_MATMUL_MATVEC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_MATMUL_MATVEC_INL_H_
#undef SOFTFLOAT_MATMUL_MATVEC_INL_H_
#else
#define SOFTFLOAT_MATMUL_MATVEC_INL_H_
#endif

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "hwy/highway.h"
#include "matmul/byte_decode.hpp"
#include "matmul/float_vectors-inl.h"
#include "simd/prefetch.hpp"

HWY_BEFORE_NAMESPACE();
namespace softfloat::matmul_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DU = hn::RebindToUnsigned<DF>;
using VU = hn::Vec<DU>;
using D1 = hn::CappedTag<float, 1>;

// Rows of one-byte codes, decoded by table lookup.
struct TableRows {
  const std::uint8_t* codes;
  std::size_t ld;
  const float* table;

  const std::uint8_t* row(std::size_t p) const { return codes + p * ld; }
  VF Load(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const {
    const DF df;
    const hn::RebindToSigned<DF> di;
    const hn::Rebind<std::uint8_t, decltype(di)> d8;
    return hn::GatherIndex(df, table, hn::PromoteTo(di, hn::LoadU(d8, row + j)));
  }
  float One(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const { return table[row[j]]; }
};

// Rows of one-byte codes, decoded by the fp32 rule of byte_decode.hpp (normal codes
// built in the integer domain, subnormal codes converted from their mantissa and
// scaled by a normal power of two; no fp32 subnormal enters an instruction); lanes
// holding one of the rule's exceptions take the table's value instead. byte_decode.cpp's
// rule_bits is the same steps in scalar code.
struct ScaledByteRows {
  const std::uint8_t* codes;
  std::size_t ld;
  const float* table;
  VU magnitude_mask, exponent_offset, first_normal, sign_bit, exception_code, exception_from;
  VF subnormal_scale;
  int mantissa_shift, sign_shift;

  ScaledByteRows(const std::uint8_t* codes_in, std::size_t ld_in, const float* table_in, const ByteDecode& d)
      : codes(codes_in),
        ld(ld_in),
        table(table_in),
        magnitude_mask(hn::Set(DU(), d.magnitude_mask)),
        exponent_offset(hn::Set(DU(), d.exponent_offset)),
        first_normal(hn::Set(DU(), d.first_normal)),
        sign_bit(hn::Set(DU(), d.sign_bit)),
        exception_code(hn::Set(DU(), d.exception_code)),
        exception_from(hn::Set(DU(), d.exception_from)),
        subnormal_scale(hn::Set(DF(), d.subnormal_scale)),
        mantissa_shift(int(d.mantissa_shift)),
        sign_shift(int(d.sign_shift)) {}

  const std::uint8_t* row(std::size_t p) const { return codes + p * ld; }
  VF Load(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const {
    const DF df;
    const DU du;
    const hn::RebindToSigned<DF> di;
    const hn::Rebind<std::uint8_t, DU> d8;
    const VU code = hn::PromoteTo(du, hn::LoadU(d8, row + j));
    const VU magnitude = hn::And(code, magnitude_mask);
    const VF normal = hn::BitCast(df, hn::Add(hn::ShiftLeftSame(magnitude, mantissa_shift), exponent_offset));
    const VF subnormal = hn::Mul(hn::ConvertTo(df, hn::BitCast(di, magnitude)), subnormal_scale);
    const VF value = hn::IfThenElse(hn::RebindMask(df, hn::Lt(magnitude, first_normal)), subnormal, normal);
    const VF signed_value = hn::Or(value, hn::BitCast(df, hn::ShiftLeftSame(hn::And(code, sign_bit), sign_shift)));
    const auto exceptional = hn::Or(hn::Eq(code, exception_code), hn::Not(hn::Lt(magnitude, exception_from)));
    if (HWY_LIKELY(hn::AllFalse(du, exceptional))) return signed_value;
    const VF looked_up = hn::GatherIndex(df, table, hn::BitCast(di, code));
    return hn::IfThenElse(hn::RebindMask(df, exceptional), looked_up, signed_value);
  }
  float One(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const { return table[row[j]]; }
};

// Rows of one-byte codes, decoded by the half rule of byte_decode.hpp: the code's fields
// moved to where fp16 keeps them (a multiply by 2^(10 - M) in 16-bit lanes, which does
// not take the shuffle port as a shift by a register count does), then fp16 -> fp32 in
// one instruction. The values are the weights divided by the rule's scale 2^(15 - bias);
// the caller multiplies x by it instead (exact; see MatVecHalfBytes). Without
// kExceptions (E5M2) every code converts to its value; with it, lanes whose magnitude
// is exception_from or more take scaled_table's value. kShift: the rule's shift where a
// constant serves (8: the code is h's top byte, as E5M2's, mask 0xFF00; 7: a signed
// code with three mantissa bits, as E4M3's), else 0 (the multiply above).
//
// LoadPairUnchecked reads 2 * Lanes(DF) codes as 16-bit words, each the codes of
// columns 2i (low byte) and 2i + 1 (high byte), and converts the words' fields where
// they lie: `lower` holds the even columns and `upper` the odd ones (the paired layout,
// which AccumulateRows' callers set up with PairColumns). Per 32 E4M3 codes on AVX-512:
// a second load and 4 operations on 16-bit halves of a register, instead of a widening,
// a multiply, an AND and an extraction on whole registers. Worked for E4M3 (kShift 7),
// the word 0xC138 = codes 0x38 (1.0, column 2i) and 0xC1 (-2.25, column 2i + 1): odd =
// (0xC138 >> 1, arithmetic) & 0xBF80 = 0xE09C & 0xBF80 = 0xA080, fp16 -2^-7 * 1.125 =
// -2.25 / 2^8; even = ((0xC138 << 8) >> 1) & 0xBF80 = 0x1C00, fp16 2^-8 = 1.0 / 2^8, where
// the word loaded one byte earlier holds 0x38 as its high byte and stands for the shift
// left by 8.
template <bool kExceptions, int kShift>
struct HalfByteRows {
  using D16 = hn::Rebind<std::int16_t, DF>;
  using V16 = hn::Vec<D16>;
  // Scalar vectors hold one code, too few to mark a step's worth: no deferral there.
  static constexpr bool kPairedSteps = HWY_TARGET != HWY_SCALAR;
  static constexpr bool kHasExceptions = kExceptions;
  using DMarks = std::conditional_t<HWY_TARGET == HWY_SCALAR, hn::Rebind<std::uint8_t, DF>,
                                    hn::Repartition<std::uint8_t, DF>>;
  const std::uint8_t* codes;
  std::size_t ld;
  const float* scaled_table;  // table / scale
  bool sign_extend;
  V16 shift_factor, half_mask, magnitude_bits, exception_below;
  // Four vectors from one load of 4 * Lanes(DF) codes (LoadQuadUnchecked): AVX2 and E4M3's
  // shift, where the two extractions of upper halves cost less than two more loads and
  // four more operations on 8 words each (E5M2's one operation a half does not gain).
  static constexpr bool kQuadLoads = HWY_TARGET == HWY_AVX2 && kShift == 7;
  // Vectors of sums per step of AccumulateRowGroup's paired loop, a multiple of 4; 8
  // with quad loads: a step of 4 chains of 8 fused multiply-adds is bound by their latency.
  static constexpr std::size_t kStepVectors = kQuadLoads ? 8 : 4;
  using DWords = std::conditional_t<HWY_TARGET == HWY_SCALAR, D16, hn::Repartition<std::int16_t, DF>>;
  hn::Vec<DMarks> byte_magnitude_mask, byte_exception_from;
  hn::Vec<DWords> half_mask_words;

  HalfByteRows(const std::uint8_t* codes_in, std::size_t ld_in, const float* scaled_table_in,
               const HalfByteDecode& d)
      : codes(codes_in),
        ld(ld_in),
        scaled_table(scaled_table_in),
        sign_extend(d.sign_extend),
        shift_factor(hn::Set(D16(), std::int16_t(1 << d.half_shift))),
        half_mask(hn::Set(D16(), std::int16_t(std::uint16_t(d.half_mask)))),
        magnitude_bits(hn::Set(D16(), std::int16_t(0x7FFF))),
        exception_below(hn::Set(D16(), std::int16_t(std::min<std::uint32_t>(d.exception_from << d.half_shift, 0x7FFF)))),
        byte_magnitude_mask(hn::Set(DMarks(), std::uint8_t(d.sign_extend ? 0x7F : 0xFF))),
        byte_exception_from(hn::Set(DMarks(), std::uint8_t(std::min<std::uint32_t>(d.exception_from, 0xFF)))),
        half_mask_words(hn::Set(DWords(), std::int16_t(std::uint16_t(d.half_mask)))) {}

  const std::uint8_t* row(std::size_t p) const { return codes + p * ld; }
  // The fp16 codes h of the codes at row + j.
  V16 HalfCodes(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const {
    const D16 d16;
    const hn::Rebind<std::int8_t, DF> d8;
    const hn::Rebind<std::uint8_t, DF> du8;
    const hn::Rebind<std::uint16_t, DF> du16;
    if constexpr (kShift == 8) return hn::BitCast(d16, hn::ShiftLeft<8>(hn::PromoteTo(du16, hn::LoadU(du8, row + j))));
    const V16 extended = sign_extend ? hn::PromoteTo(d16, hn::LoadU(d8, reinterpret_cast<const std::int8_t*>(row + j)))
                                     : hn::BitCast(d16, hn::PromoteTo(du16, hn::LoadU(du8, row + j)));
    return hn::And(hn::Mul(extended, shift_factor), half_mask);
  }
  VF Load(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const {
    const DF df;
    const D16 d16;
    const hn::Rebind<std::uint8_t, DF> du8;
    const V16 h = HalfCodes(row, j);
    const VF value = hn::PromoteTo(df, hn::BitCast(hn::Rebind<hwy::float16_t, DF>(), h));
    if constexpr (!kExceptions) return value;
    const auto exceptional = hn::Not(hn::Lt(hn::And(h, magnitude_bits), exception_below));
    if (HWY_LIKELY(hn::AllFalse(d16, exceptional))) return value;
    const hn::RebindToSigned<DF> di;
    const VF looked_up = hn::GatherIndex(df, scaled_table, hn::PromoteTo(di, hn::LoadU(du8, row + j)));
    const auto wide = hn::MaskFromVec(hn::PromoteTo(di, hn::VecFromMask(d16, exceptional)));
    return hn::IfThenElse(hn::RebindMask(df, wide), looked_up, value);
  }
  float One(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const { return scaled_table[row[j]]; }

  // The exception test deferred over a group of rows and four vectors of columns:
  // Mark keeps the largest magnitude byte among the next 4 * Lanes(DF) codes (one load
  // and two byte operations per 64 codes on AVX-512, instead of a compare, a mask test
  // and a branch per 16), LoadUnchecked converts without looking at exceptions, and
  // AccumulateRowGroup redoes the group through Load when Clean fails.
  hn::Vec<DMarks> NoMarks() const { return hn::Zero(DMarks()); }
  void Mark(const std::uint8_t* HWY_RESTRICT row, std::size_t j, hn::Vec<DMarks>& marks) const {
    if constexpr (kExceptions) marks = hn::Max(marks, hn::And(hn::LoadU(DMarks(), row + j), byte_magnitude_mask));
  }
  bool Clean(hn::Vec<DMarks> marks) const {
    if constexpr (!kExceptions) return true;
    return hn::AllTrue(DMarks(), hn::Lt(marks, byte_exception_from));
  }
  VF LoadUnchecked(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const {
    return hn::PromoteTo(DF(), hn::BitCast(hn::Rebind<hwy::float16_t, DF>(), HalfCodes(row, j)));
  }
  // kShift 7 (signed, three mantissa bits): the fp16 fields of the words w at row + j, in
  // 16-bit lanes of d. An arithmetic shift extends the sign. The even columns are the
  // high bytes of the words one byte earlier: a load instead of a shift, except at a
  // row's first byte (kRowStart and j == 0), before which nothing may be read.
  template <bool kRowStart, class D>
  HWY_INLINE static void SignedFields(D d, const std::uint8_t* HWY_RESTRICT row, std::size_t j, hn::Vec<D> w,
                                      hn::Vec<D> mask, hn::Vec<D>& even, hn::Vec<D>& odd) {
    const hn::Repartition<std::uint8_t, D> d8;
    const auto earlier = kRowStart && j == 0 ? hn::ShiftLeft<8>(w) : hn::BitCast(d, hn::LoadU(d8, row + j - 1));
    even = hn::And(hn::ShiftRight<1>(earlier), mask);
    odd = hn::And(hn::ShiftRight<1>(w), mask);
  }
  // The codes at row + j .. row + j + 2 * Lanes(DF) in the paired layout (see above):
  // lower = the even columns' values, upper = the odd columns'. kRowStart: j may be 0
  // (the caller knows, so that the loop past a row's start tests nothing).
  template <bool kRowStart = false>
  HWY_INLINE void LoadPairUnchecked(const std::uint8_t* HWY_RESTRICT row, std::size_t j, VF& lower, VF& upper) const {
#if HWY_TARGET == HWY_SCALAR  // not called: no pairs in one lane
    lower = LoadUnchecked(row, j);
    upper = LoadUnchecked(row, j + 1);
#else
    const D16 d16;
    const hn::RebindToUnsigned<D16> du16;
    const hn::Repartition<std::uint8_t, D16> d8;
    const V16 w = hn::BitCast(d16, hn::LoadU(d8, row + j));
    V16 even, odd;
    if constexpr (kShift == 8) {
      even = hn::ShiftLeft<8>(w);
      odd = hn::And(w, half_mask);
    } else if constexpr (kShift == 7) {
      SignedFields<kRowStart>(d16, row, j, w, half_mask, even, odd);
    } else {
      const V16 low = sign_extend ? hn::ShiftRight<8>(hn::ShiftLeft<8>(w)) : hn::And(w, hn::Set(d16, 0xFF));
      const V16 high = sign_extend ? hn::ShiftRight<8>(w) : hn::BitCast(d16, hn::ShiftRight<8>(hn::BitCast(du16, w)));
      even = hn::And(hn::Mul(low, shift_factor), half_mask);
      odd = hn::And(hn::Mul(high, shift_factor), half_mask);
    }
    const hn::Rebind<hwy::float16_t, DF> df16;
    lower = hn::PromoteTo(DF(), hn::BitCast(df16, even));
    upper = hn::PromoteTo(DF(), hn::BitCast(df16, odd));
#endif
  }
  // The codes at row + j .. row + j + 4 * Lanes(DF) in the paired layout, as two
  // LoadPairUnchecked give them (out[0], out[1] and out[2], out[3]); with kQuadLoads from
  // one load of 16-bit words and one of the words a byte earlier: the even and odd
  // fields of all the words shifted at once, then each half converted.
  template <bool kRowStart = false>
  HWY_INLINE void LoadQuadUnchecked(const std::uint8_t* HWY_RESTRICT row, std::size_t j, VF (&out)[4]) const {
#if HWY_TARGET == HWY_AVX2
    if constexpr (kQuadLoads) {
      const DWords dw;
      const hn::Half<DWords> dh;
      const hn::Rebind<hwy::float16_t, DF> df16;
      const hn::Repartition<std::uint8_t, DWords> d8;
      hn::Vec<DWords> even, odd;
      SignedFields<kRowStart>(dw, row, j, hn::BitCast(dw, hn::LoadU(d8, row + j)), half_mask_words, even, odd);
      out[0] = hn::PromoteTo(DF(), hn::BitCast(df16, hn::LowerHalf(dh, even)));
      out[1] = hn::PromoteTo(DF(), hn::BitCast(df16, hn::LowerHalf(dh, odd)));
      out[2] = hn::PromoteTo(DF(), hn::BitCast(df16, hn::UpperHalf(dh, even)));
      out[3] = hn::PromoteTo(DF(), hn::BitCast(df16, hn::UpperHalf(dh, odd)));
      return;
    }
#endif
    LoadPairUnchecked<kRowStart>(row, j, out[0], out[1]);
    LoadPairUnchecked(row, j + 2 * hn::Lanes(DF()), out[2], out[3]);
  }
  // The same with every code looked up in scaled_table (the exceptions' path).
  void LoadPair(const std::uint8_t* HWY_RESTRICT row, std::size_t j, VF& lower, VF& upper) const {
#if HWY_TARGET == HWY_SCALAR  // not called
    lower = Load(row, j);
    upper = Load(row, j + 1);
#else
    const hn::Rebind<std::uint16_t, DF> du16;
    const hn::RebindToSigned<DF> di;
    const auto w = hn::BitCast(du16, hn::LoadU(hn::Repartition<std::uint8_t, decltype(du16)>(), row + j));
    lower = hn::GatherIndex(DF(), scaled_table, hn::BitCast(di, hn::PromoteTo(DU(), hn::And(w, hn::Set(du16, 0xFF)))));
    upper = hn::GatherIndex(DF(), scaled_table, hn::BitCast(di, hn::PromoteTo(DU(), hn::ShiftRight<8>(w))));
#endif
  }
};

// Rows that AccumulateRowGroup reads kStepVectors vectors of columns at a time, in
// pairs of the paired layout, with the exception test deferred (HalfByteRows but on the
// scalar target), and rows that have no exceptions to test.
template <class Rows>
concept PairedSteps = requires { requires Rows::kPairedSteps; };
template <class Rows>
concept ExceptionFree = requires { requires !Rows::kHasExceptions; };

// Rows of block-scaled one-byte codes (MXFP8 weights, block_scaled_matmul.cpp): each
// value of column j times scale[j], the column's block scale, constant over the rows of
// one call. Inner's values are exact and so are the products (the caller checks that
// none overflows), so each step's product x[p] * (value * scale[j]) is the weight's.
template <class Inner>
struct ColumnScaledRows {
  static constexpr bool kPairedSteps = Inner::kPairedSteps;
  static constexpr std::size_t kStepVectors = Inner::kStepVectors;
  static constexpr bool kHasExceptions = Inner::kHasExceptions;
  using DMarks = typename Inner::DMarks;
  Inner inner;
  const float* HWY_RESTRICT scale;

  auto row(std::size_t p) const { return inner.row(p); }
  VF Load(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const {
    return hn::Mul(inner.Load(row, j), hn::LoadU(DF(), scale + j));
  }
  VF LoadUnchecked(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const {
    return hn::Mul(inner.LoadUnchecked(row, j), hn::LoadU(DF(), scale + j));
  }
  // scale in the paired layout too (PairColumns), so that these loads match the lanes.
  template <bool kRowStart = false>
  HWY_INLINE void LoadQuadUnchecked(const std::uint8_t* HWY_RESTRICT row, std::size_t j, VF (&out)[4]) const {
    inner.template LoadQuadUnchecked<kRowStart>(row, j, out);
    ScalePair(j, out[0], out[1]);
    ScalePair(j + 2 * hn::Lanes(DF()), out[2], out[3]);
  }
  void LoadPair(const std::uint8_t* HWY_RESTRICT row, std::size_t j, VF& lower, VF& upper) const {
    inner.LoadPair(row, j, lower, upper);
    ScalePair(j, lower, upper);
  }
  void ScalePair(std::size_t j, VF& lower, VF& upper) const {
    lower = hn::Mul(lower, hn::LoadU(DF(), scale + j));
    upper = hn::Mul(upper, hn::LoadU(DF(), scale + j + hn::Lanes(DF())));
  }
  float One(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const { return inner.One(row, j) * scale[j]; }
  hn::Vec<DMarks> NoMarks() const { return inner.NoMarks(); }
  void Mark(const std::uint8_t* HWY_RESTRICT row, std::size_t j, hn::Vec<DMarks>& marks) const {
    inner.Mark(row, j, marks);
  }
  bool Clean(hn::Vec<DMarks> marks) const { return inner.Clean(marks); }
};

// Rows of fp16 codes, converted by F16C (vcvtph2ps) where the target has it: exact for
// every code; MatVecHalf checks the NaNs' and infinities' bits against the format's
// decoding before it trusts the target's conversion.
struct HalfRows {
  const std::uint16_t* codes;
  std::size_t ld;

  const std::uint16_t* row(std::size_t p) const { return codes + p * ld; }
  VF Load(const std::uint16_t* HWY_RESTRICT row, std::size_t j) const {
    const hn::Rebind<std::uint16_t, DF> d16;
    return hn::PromoteTo(DF(), hn::BitCast(hn::Rebind<hwy::float16_t, DF>(), hn::LoadU(d16, row + j)));
  }
  float One(const std::uint16_t* HWY_RESTRICT row, std::size_t j) const {
    const D1 d1;
    const hn::Rebind<std::uint16_t, D1> d16;
    return hn::GetLane(hn::PromoteTo(d1, hn::BitCast(hn::Rebind<hwy::float16_t, D1>(), hn::LoadU(d16, row + j))));
  }
};

// Rows of bf16 codes: fp32's top half, so a shift decodes every code exactly
// (subnormals, infinities and NaNs included) and B is read at two bytes per value.
struct Bf16Rows {
  const std::uint16_t* codes;
  std::size_t ld;

  const std::uint16_t* row(std::size_t p) const { return codes + p * ld; }
  VF Load(const std::uint16_t* HWY_RESTRICT row, std::size_t j) const {
    const DU du;
    const hn::Rebind<std::uint16_t, DU> d16;
    return hn::BitCast(DF(), hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(d16, row + j))));
  }
  float One(const std::uint16_t* HWY_RESTRICT row, std::size_t j) const {
    const std::uint32_t bits = std::uint32_t(row[j]) << 16;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
};

// Rows already decoded to fp32.
struct FloatRows {
  const float* values;
  std::size_t ld;

  const float* row(std::size_t p) const { return values + p * ld; }
  VF Load(const float* HWY_RESTRICT row, std::size_t j) const { return hn::LoadU(DF(), row + j); }
  // By memcpy: the rows may be fp32 codes held as uint32_t (matvec_fp32 reads them as
  // floats), which a float lvalue must not read.
  float One(const float* HWY_RESTRICT row, std::size_t j) const {
    float value;
    std::memcpy(&value, row + j, sizeof(value));
    return value;
  }
};

// The columns of one pass of AccumulateRows (see there).
constexpr std::size_t kColumnBlock = 8192;

// y[j] = MulAdd(x[p + r], row p + r [j], y[j]) for r = 0 .. R-1 in order, j in [j0, end):
// R rows per pass over a block of y, so that each running sum is loaded and stored
// once per R steps.
template <std::size_t R, class Rows>
HWY_INLINE void AccumulateRowGroup(const Rows& rows, const float* HWY_RESTRICT x, std::size_t p, std::size_t j0,
                                   std::size_t end, float* HWY_RESTRICT y) {
  const DF df;
  const D1 d1;
  const std::size_t lanes = hn::Lanes(df);
  const std::size_t vector_end = j0 + (end - j0) / lanes * lanes;
  decltype(rows.row(0)) row[R];
  VF weight[R];
  HWY_UNROLL(16)
  for (std::size_t r = 0; r < R; ++r) {
    row[r] = rows.row(p + r);
    weight[r] = hn::Set(df, x[p + r]);
  }
  std::size_t j = j0;
  if constexpr (PairedSteps<Rows>) {
    // Vectors of sums a step (Rows::kStepVectors; ForEachPairedBlock walks the same steps).
    constexpr std::size_t kVectors = Rows::kStepVectors;
    // The next band of R rows starts this many bytes on (simd/prefetch.hpp says why
    // its lines are asked for a pass ahead): E5M2 at 8192 x 8192 on a Zen 4 EPYC, 3.6
    // -> 3.1 ms; in L2 (256 x 2048) the same time, so what it saves is waiting for memory.
    const std::size_t band_bytes =
        R * (reinterpret_cast<std::uintptr_t>(rows.row(1)) - reinterpret_cast<std::uintptr_t>(rows.row(0)));
    // One step of kVectors vectors of sums at `at`; row_start: whether it may be a row's first column.
    const auto step = [&](std::size_t at, auto row_start) {
      VF sum[kVectors];
      for (std::size_t v = 0; v < kVectors; ++v) sum[v] = hn::LoadU(df, y + at + v * lanes);
      auto marks = rows.NoMarks();
      HWY_UNROLL(16)
      for (std::size_t r = 0; r < R; ++r) {
        simd::detail::PrefetchIntoL2(row[r] + at, band_bytes);
        for (std::size_t v = 0; v < kVectors; v += 4) {
          rows.Mark(row[r], at + v * lanes, marks);
          VF w[4];
          if (v == 0)
            rows.template LoadQuadUnchecked<decltype(row_start)::value>(row[r], at, w);
          else
            rows.LoadQuadUnchecked(row[r], at + v * lanes, w);
          for (std::size_t q = 0; q < 4; ++q) sum[v + q] = hn::MulAdd(weight[r], w[q], sum[v + q]);
        }
      }
      if (HWY_UNLIKELY(!rows.Clean(marks))) {  // the same steps, exceptions taken from the table
        for (std::size_t v = 0; v < kVectors; ++v) sum[v] = hn::LoadU(df, y + at + v * lanes);
        for (std::size_t r = 0; r < R; ++r)
          for (std::size_t v = 0; v < kVectors; v += 2) {
            VF lower, upper;
            rows.LoadPair(row[r], at + v * lanes, lower, upper);
            sum[v] = hn::MulAdd(weight[r], lower, sum[v]);
            sum[v + 1] = hn::MulAdd(weight[r], upper, sum[v + 1]);
          }
      }
      for (std::size_t v = 0; v < kVectors; ++v) hn::StoreU(sum[v], df, y + at + v * lanes);
    };
    if (j == 0 && kVectors * lanes <= vector_end) {
      step(j, std::true_type());
      j += kVectors * lanes;
    }
    for (; j + kVectors * lanes <= vector_end; j += kVectors * lanes) step(j, std::false_type());
  }
  for (; j < vector_end; j += lanes) {
    VF sum = hn::LoadU(df, y + j);
    HWY_UNROLL(16)
    for (std::size_t r = 0; r < R; ++r) {
      if constexpr (ExceptionFree<Rows>)
        sum = hn::MulAdd(weight[r], rows.LoadUnchecked(row[r], j), sum);
      else
        sum = hn::MulAdd(weight[r], rows.Load(row[r], j), sum);
    }
    hn::StoreU(sum, df, y + j);
  }
  for (std::size_t j = vector_end; j < end; ++j) {
    auto sum = hn::LoadU(d1, y + j);
    for (std::size_t r = 0; r < R; ++r) sum = hn::MulAdd(hn::Set(d1, x[p + r]), hn::Set(d1, rows.One(row[r], j)), sum);
    hn::StoreU(sum, d1, y + j);
  }
}

// y[j] = MulAdd(x[p], row p [j], y[j]) for p = 0 .. count-1 in order, j < n: blocks of
// columns whose sums stay in L1 / L2 (32 KiB), 8 or 16 rows of B at a time. Whole rows
// of up to 8192 codes keep each row's reads sequential, which the prefetchers follow;
// shorter column blocks (1024) were 1.5 times slower at 8192 x 8192.
// short_rows (kernel_rule.hpp's matvec_rows_per_pass, 8 or 16) where the decoding is
// short (two-byte codes, E5M2): sixteen load and store the running sums half as often
// and stream 16 rows from memory at once, which Intel's cores prefer and AMD's do not.
// Eight where the decoding is longer (E4M3's exception test, the fp32 rule, the table),
// whose temporaries leave no registers for 16 weights on AVX2 (E4M3 6.3 -> 6.6 ms at 16).
template <class Rows>
HWY_INLINE void AccumulateRows(const Rows& rows, const float* HWY_RESTRICT x, std::size_t count, std::size_t n,
                               std::size_t short_rows, float* HWY_RESTRICT y) {
  constexpr bool kShort = sizeof(*rows.row(0)) == 2 || ExceptionFree<Rows>;
  const std::size_t rows_per_pass = kShort && short_rows == 16 ? 16 : 8;
  for (std::size_t j0 = 0; j0 < n; j0 += kColumnBlock) {
    const std::size_t end = std::min(n, j0 + kColumnBlock);
    std::size_t p = 0;
    if (rows_per_pass == 16) {
      for (; p + 16 <= count; p += 16) AccumulateRowGroup<16>(rows, x, p, j0, end, y);
    } else {
      for (; p + 8 <= count; p += 8) AccumulateRowGroup<8>(rows, x, p, j0, end, y);
    }
    for (; p < count; ++p) AccumulateRowGroup<1>(rows, x, p, j0, end, y);
  }
}

// Calls f(j) for each block of 2 * Lanes(DF) columns j .. that AccumulateRows' paired
// steps of kStepVectors vectors cover (Rows with kPairedSteps), in the order it walks them.
template <std::size_t kStepVectors, class F>
void ForEachPairedBlock(std::size_t n, F f) {
  if constexpr (HWY_TARGET != HWY_SCALAR) {
    const std::size_t lanes = hn::Lanes(DF());
    for (std::size_t j0 = 0; j0 < n; j0 += kColumnBlock) {
      const std::size_t end = std::min(n, j0 + kColumnBlock), vector_end = j0 + (end - j0) / lanes * lanes;
      for (std::size_t j = j0; j + kStepVectors * lanes <= vector_end; j += kStepVectors * lanes)
        for (std::size_t v = 0; v < kStepVectors; v += 2) f(j + v * lanes);
    }
  }
}
// v (n values, one per column) into the paired layout of HalfByteRows: in each block
// of ForEachPairedBlock, the even columns' values, then the odd columns'. The columns
// past the blocks keep their places. UnpairColumns undoes it.
template <std::size_t kStepVectors>
HWY_INLINE void PairColumns(float* HWY_RESTRICT v, std::size_t n) {
  const DF df;
  ForEachPairedBlock<kStepVectors>(n, [&](std::size_t j) {
    VF even, odd;
    hn::LoadInterleaved2(df, v + j, even, odd);
    hn::StoreU(even, df, v + j);
    hn::StoreU(odd, df, v + j + hn::Lanes(df));
  });
}
template <std::size_t kStepVectors>
HWY_INLINE void UnpairColumns(float* HWY_RESTRICT v, std::size_t n) {
  const DF df;
  ForEachPairedBlock<kStepVectors>(n, [&](std::size_t j) {
    hn::StoreInterleaved2(hn::LoadU(df, v + j), hn::LoadU(df, v + j + hn::Lanes(df)), df, v + j);
  });
}

// y (n values, holding the running sums) continued over k rows of one-byte codes.
HWY_NOINLINE void MatVecTable8(const float* x, const std::uint8_t* codes, std::size_t ld, std::size_t k,
                               std::size_t n, const float* table, float* y) {
  AccumulateRows(TableRows{codes, ld, table}, x, k, n, 8, y);
}
// The same with the shift-and-scale decoding, after checking it on all 256 codes
// against the table on this target; false (and y untouched) if any code differs.
HWY_NOINLINE bool MatVecScaledBytes(const float* x, const std::uint8_t* codes, std::size_t ld, std::size_t k,
                                    std::size_t n, const float* table, const ByteDecode& decode, float* y) {
  const ScaledByteRows rows(codes, ld, table, decode);
  const DF df;
  const DU du;
  const std::size_t lanes = hn::Lanes(df);
  HWY_ALIGN std::uint8_t every_code[256];
  for (std::size_t c = 0; c < 256; ++c) every_code[c] = std::uint8_t(c);
  for (std::size_t c = 0; c < 256; c += lanes) {
    const VU got = hn::BitCast(du, rows.Load(every_code, c));
    if (!hn::AllTrue(du, hn::Eq(got, hn::BitCast(du, hn::LoadU(df, table + c))))) return false;
  }
  AccumulateRows(rows, x, k, n, 8, y);
  return true;
}
// The same with the half rule, whose decoded values are the weights divided by
// scale = 2^(15 - bias): each step is MulAdd(x[p] * scale, B[p][j] / scale, y[j]), the
// same product (both factors exact: powers of two, no overflow, checked) and so the
// same bits as MulAdd(x[p], B[p][j], y[j]), NaNs and infinities included. False (and y
// untouched) when the rule differs from the table on this target, or x * scale
// overflows.
template <bool kExceptions, int kShift>
HWY_INLINE bool MatVecHalfBytesOf(const float* x, const std::uint8_t* codes, std::size_t ld, std::size_t k,
                                  std::size_t n, const float* table, const HalfByteDecode& decode,
                                  std::size_t short_rows, const float* column_scale, float* y) {
  const DF df;
  const DU du;
  const std::size_t lanes = hn::Lanes(df);
  const VF scale = hn::Set(df, decode.scale);
  // The table over the scale, in vectors: a scalar division per code had cost a product
  // of 16 x 16 codes most of its time. The scale is a power of two (2^-100 .. 2^100), so
  // its inverse is exact and the product is the quotient.
  HWY_ALIGN float scaled_table[256];
  const VF inverse = hn::Set(df, 1.0f / decode.scale);
  for (std::size_t c = 0; c < 256; c += lanes) {
    const VF value = hn::LoadU(df, table + c), scaled = hn::Mul(value, inverse);
    if (!hn::AllTrue(du, hn::Eq(hn::BitCast(du, hn::Mul(scaled, scale)), hn::BitCast(du, value)))) return false;
    hn::Store(scaled, df, scaled_table + c);
  }
  const HalfByteRows<kExceptions, kShift> rows(codes, ld, scaled_table, decode);
  HWY_ALIGN std::uint8_t every_code[256];
  for (std::size_t c = 0; c < 256; ++c) every_code[c] = std::uint8_t(c);
  for (std::size_t c = 0; c < 256; c += lanes) {
    const VU got = hn::BitCast(du, hn::Mul(rows.Load(every_code, c), scale));
    if (!hn::AllTrue(du, hn::Eq(got, hn::BitCast(du, hn::LoadU(df, table + c))))) return false;
  }
  std::vector<float> scaled_x(k);
  for (std::size_t p = 0; p < k; ++p) {
    scaled_x[p] = x[p] * decode.scale;
    if (std::isinf(scaled_x[p]) && !std::isinf(x[p])) return false;
  }
  constexpr std::size_t kStep = decltype(rows)::kStepVectors;
  PairColumns<kStep>(y, n);
  if (column_scale != nullptr) {
    std::vector<float> paired_scale(column_scale, column_scale + n);
    PairColumns<kStep>(paired_scale.data(), n);
    AccumulateRows(ColumnScaledRows<decltype(rows)>{rows, paired_scale.data()}, scaled_x.data(), k, n, short_rows, y);
  } else {
    AccumulateRows(rows, scaled_x.data(), k, n, short_rows, y);
  }
  UnpairColumns<kStep>(y, n);
  return true;
}
// MatVecHalfBytesOf with HalfByteRows' kShift: the rule's shift where a constant serves.
template <bool kExceptions>
HWY_INLINE bool MatVecHalfBytesWith(const float* x, const std::uint8_t* codes, std::size_t ld, std::size_t k,
                                    std::size_t n, const float* table, const HalfByteDecode& decode,
                                    std::size_t short_rows, const float* column_scale, float* y) {
  if (decode.half_shift == 8 && decode.half_mask == 0xFF00)
    return MatVecHalfBytesOf<kExceptions, 8>(x, codes, ld, k, n, table, decode, short_rows, column_scale, y);
  if (decode.half_shift == 7 && decode.sign_extend)
    return MatVecHalfBytesOf<kExceptions, 7>(x, codes, ld, k, n, table, decode, short_rows, column_scale, y);
  return MatVecHalfBytesOf<kExceptions, 0>(x, codes, ld, k, n, table, decode, short_rows, column_scale, y);
}
// column_scale: null, or n values that multiply each column's decoded values
// (ColumnScaledRows). y and column_scale in column order.
HWY_NOINLINE bool MatVecHalfBytes(const float* x, const std::uint8_t* codes, std::size_t ld, std::size_t k,
                                  std::size_t n, const float* table, const HalfByteDecode& decode,
                                  std::size_t short_rows, const float* column_scale, float* y) {
  if (decode.exception_from > 0xFF)
    return MatVecHalfBytesWith<false>(x, codes, ld, k, n, table, decode, short_rows, column_scale, y);
  return MatVecHalfBytesWith<true>(x, codes, ld, k, n, table, decode, short_rows, column_scale, y);
}
// y continued over k rows of fp16 codes, after checking the target's conversion of the
// `count` codes `check` against their values `expected`; false (y untouched) if one
// differs.
HWY_NOINLINE bool MatVecHalf(const float* x, const std::uint16_t* codes, std::size_t ld, std::size_t k,
                             std::size_t n, const std::uint16_t* check, const float* expected, std::size_t count,
                             std::size_t short_rows, float* y) {
  const HalfRows rows{codes, ld};
  const DF df;
  const DU du;
  const std::size_t lanes = hn::Lanes(df), padded = (count + lanes - 1) / lanes * lanes;
  std::vector<std::uint16_t> codes_padded(padded, 0);
  std::vector<float> expected_padded(padded, 0.0f);
  std::copy(check, check + count, codes_padded.begin());
  std::copy(expected, expected + count, expected_padded.begin());
  for (std::size_t i = 0; i < padded; i += lanes) {
    const VU got = hn::BitCast(du, rows.Load(codes_padded.data(), i));
    if (!hn::AllTrue(du, hn::Eq(got, hn::BitCast(du, hn::LoadU(df, expected_padded.data() + i))))) return false;
  }
  for (std::size_t i = 0; i < count; ++i)
    if (std::bit_cast<std::uint32_t>(rows.One(check, i)) != std::bit_cast<std::uint32_t>(expected[i]))
      return false;
  AccumulateRows(rows, x, k, n, short_rows, y);
  return true;
}
// y continued over k rows of bf16 codes.
HWY_NOINLINE void MatVecBf16(const float* x, const std::uint16_t* codes, std::size_t ld, std::size_t k,
                             std::size_t n, std::size_t short_rows, float* y) {
  AccumulateRows(Bf16Rows{codes, ld}, x, k, n, short_rows, y);
}
// y continued over `count` rows of fp32 values.
HWY_NOINLINE void MatVecFloats(const float* x, const float* values, std::size_t ld, std::size_t count, std::size_t n,
                               float* y) {
  AccumulateRows(FloatRows{values, ld}, x, count, n, 8, y);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace softfloat::matmul_detail
HWY_AFTER_NAMESPACE();

#endif  // SOFTFLOAT_MATMUL_MATVEC_INL_H_ toggle
