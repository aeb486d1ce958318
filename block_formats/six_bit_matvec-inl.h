// The per-target part of the block-scaled matrix-vector product for 6-bit elements
// (MXFP6 E2M3 / E3M2, MX-scaled or plain; softfloat/block_scaled_matmul.hpp), compiled
// for every Highway target through block_scaled_matvec-inl.h: y continued over rows of
// packed 6-bit codes, decoded in registers and read once.
//
// Four codes fill three bytes, a little-endian bit stream: code 4g + j is bits 6j ..
// 6j + 5 of the 24-bit group g (bytes 3g, 3g + 1, 3g + 2). A vector of L lanes holds
// columns c .. c + L - 1 (c a multiple of 4), whose codes are the 3L / 4 bytes from
// byte 3c / 4. Those bytes are loaded into every 128-bit block of a vector, and a byte
// shuffle within each block puts group b's three bytes into each of block b's four
// lanes; lane l (j = l % 4) then shifts its code down by 6j (the decoding reads the low
// bits and masks the rest). Columns stay in order, so the running sums are y itself.
// Worked value: bytes 0x41 0x10 0x04 are the group 0x041041; shifted by 0, 6, 12 and 18
// and masked to 6 bits it gives the codes 1, 1, 1, 1.
//
// A code's value: magnitude g = code & 31, sign bit 5.
//   AVX-512: the 32 magnitudes in two vectors, looked up by vpermt2ps (which reads the
//     low 5 bits of each index), and the sign moved to bit 31 by a second shift;
//   elsewhere by fields (as byte_decode's fp32 rule): normal g (exponent field e > 0)
//     has the fp32 bits (g << (23 - M)) + ((127 - bias) << 23), subnormal g is
//     float(g << (23 - M)) * 2^(-22 - bias), exact (g << (23 - M) < 2^23, and the
//     product is the format's subnormal, a normal fp32); the sign ORed in at bit 31.
//     Both read g << (23 - M), which one shift of the group by 23 - M - 6j (at least 2
//     for j <= 3 and M <= 3) and a mask give, without moving the code down first.
// Worked value (E2M3, M = 3, bias 1): code 0x2B = sign 1, g = 0b01011 (e 1, m 3):
//   (11 << 20) + (126 << 23) = 0x3FB00000 = 1.375, so -1.375 = -(1 + 3/8) * 2^0.
// Each value times its column's block scale (exact), then y = MulAdd(x[p], w, y): the
// in-order chain.

#if defined(SOFTFLOAT_BLOCK_FORMATS_SIX_BIT_MATVEC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_BLOCK_FORMATS_SIX_BIT_MATVEC_INL_H_
#undef SOFTFLOAT_BLOCK_FORMATS_SIX_BIT_MATVEC_INL_H_
#else
#define SOFTFLOAT_BLOCK_FORMATS_SIX_BIT_MATVEC_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "block_formats/block_scales-inl.h"
#include "hwy/highway.h"
#include "matmul/float_vectors-inl.h"

HWY_BEFORE_NAMESPACE();
namespace softfloat::block_formats_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// DF, VF, DU and VU (matmul's fp32 accumulation vectors): block_scales-inl.h's.

// Whole 128-bit blocks of four lanes: the byte shuffle above needs them (x86 from SSSE3,
// NEON); the scalar and emulated targets and scalable vectors (which cannot be struct
// members) take every column one lane at a time.
#if HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128 && !HWY_HAVE_SCALABLE
#define SOFTFLOAT_SIX_BIT_VECTORS 1
#else
#define SOFTFLOAT_SIX_BIT_VECTORS 0
#endif
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
#define SOFTFLOAT_SIX_BIT_TWO_TABLES 1  // vpermt2ps
#else
#define SOFTFLOAT_SIX_BIT_TWO_TABLES 0
#endif

#if SOFTFLOAT_SIX_BIT_VECTORS

// What decodes one format's codes in a lane.
struct SixBitDecode {
  VU byte_index;       // the shuffle: group b's bytes 3b .. 3b + 2 into each lane of block b, byte 3 zero
  VU shift_down;       // 6 (l % 4): the code to bits 0 .. 5 (kTwoTables)
  VU sign_up;          // 26 - 6 (l % 4): the code's bit 5 to bit 31
  VF low_table, high_table;  // the 32 magnitudes (kTwoTables)
  VU magnitude_up;     // 23 - M - 6 (l % 4): g to g << (23 - M)
  VU magnitude_mask;   // 31 << (23 - M)
  VU normal_offset;    // (127 - bias) << 23
  VF subnormal_scale;  // 2^(-22 - bias)
};

// Built by aggregate initialisation: the implicit default constructor of a struct of
// vectors carries no target attribute, and GCC refuses to inline the vectors'
// constructors into it on NEON ("target specific option mismatch").
HWY_INLINE SixBitDecode MakeSixBitDecode(int mantissa_bits, int bias, const float* magnitudes32) {
  const DF df;
  const DU du;
  HWY_ALIGN std::uint32_t index[HWY_MAX_BYTES / 4], down[HWY_MAX_BYTES / 4], up[HWY_MAX_BYTES / 4];
  HWY_ALIGN std::uint32_t magnitude_up[HWY_MAX_BYTES / 4];
  for (std::size_t l = 0; l < hn::Lanes(du); ++l) {
    const std::uint32_t block = std::uint32_t(l / 4), group_byte = 3 * block;  // bytes within the block
    // Byte k of lane l reads byte 16 * block + (group_byte + k) of the loaded vector: the
    // same 16 bytes are in every block, so the index within the block is group_byte + k.
    index[l] = (group_byte + 0) | (group_byte + 1) << 8 | (group_byte + 2) << 16 | 0x80u << 24;
    down[l] = 6 * std::uint32_t(l % 4);
    up[l] = 26 - 6 * std::uint32_t(l % 4);
    magnitude_up[l] = std::uint32_t(23 - mantissa_bits) - 6 * std::uint32_t(l % 4);
  }
#if SOFTFLOAT_SIX_BIT_TWO_TABLES
  const VF low_table = hn::LoadU(df, magnitudes32), high_table = hn::LoadU(df, magnitudes32 + 16);
#else
  static_cast<void>(magnitudes32);
  const VF low_table = hn::Zero(df), high_table = hn::Zero(df);
#endif
  return SixBitDecode{
      hn::Load(du, index),
      hn::Load(du, down),
      hn::Load(du, up),
      low_table,
      high_table,
      hn::Load(du, magnitude_up),
      hn::Set(du, 31u << (23 - mantissa_bits)),
      hn::Set(du, std::uint32_t(127 - bias) << 23),
      hn::Set(df, float(std::ldexp(1.0, -22 - bias))),
  };
}

// The values of columns c .. c + L - 1 of a row whose codes for them start at `bytes`
// (16 bytes readable there).
HWY_INLINE VF SixBitValues(const SixBitDecode& d, const std::uint8_t* HWY_RESTRICT bytes) {
  const DF df;
  const DU du;
  const hn::Repartition<std::uint8_t, DU> d8;
  const auto loaded = hn::LoadDup128(d8, bytes);
  const VU group = hn::BitCast(du, hn::TableLookupBytesOr0(loaded, hn::BitCast(d8, d.byte_index)));
  const VF sign = hn::BitCast(df, hn::And(hn::Shl(group, d.sign_up), hn::Set(du, 0x80000000u)));
#if SOFTFLOAT_SIX_BIT_TWO_TABLES
  const VU code = hn::Shr(group, d.shift_down);  // the code in bits 0 .. 5, higher bits other codes'
  const VF magnitude{_mm512_permutex2var_ps(d.low_table.raw, code.raw, d.high_table.raw)};
#else
  const hn::RebindToSigned<DF> di;
  const VU g_up = hn::And(hn::Shl(group, d.magnitude_up), d.magnitude_mask);  // g << (23 - M)
  const VF normal = hn::BitCast(df, hn::Add(g_up, d.normal_offset));
  const VF subnormal = hn::Mul(hn::ConvertTo(df, hn::BitCast(di, g_up)), d.subnormal_scale);
  // Subnormal where g < 2^M, i.e. g << (23 - M) < 2^23, whatever the format. Both sides
  // lie below 2^31: a signed compare, one instruction on AVX2 (an unsigned one is three).
  const VF magnitude = hn::IfThenElse(hn::RebindMask(df, hn::Lt(hn::BitCast(di, g_up), hn::Set(di, 1 << 23))),
                                      subnormal, normal);
#endif
  return hn::Or(magnitude, sign);
}
#endif  // SOFTFLOAT_SIX_BIT_VECTORS

template <ScaleKind kKind>
HWY_INLINE VF SixBitScales(const std::uint8_t* HWY_RESTRICT scale_codes, std::size_t c) {
  const DF df;
  const DU du;
  if constexpr (kKind == ScaleKind::none) return hn::Set(df, 1.0f);
  const hn::Rebind<std::uint8_t, DU> d8;
  return ScaleValues<kKind>(du, hn::PromoteTo(du, hn::LoadU(d8, scale_codes + c)));
}

// y[j] continued over `count` rows of packed 6-bit codes (row p at codes + p * stride,
// row_bytes long) for j < n: MulAdd(x[p], value * scale, y[j]) in row order, scale from
// scale_codes[j] (kKind e8m0; none: 1). values64: the 64 codes' values (the columns
// that whole vectors leave, one lane at a time); magnitudes32 the first 32 of them.
template <ScaleKind kKind>
HWY_INLINE void AccumulateSixBitRowsOf(const float* HWY_RESTRICT x, const std::uint8_t* HWY_RESTRICT codes,
                                       std::size_t stride, std::size_t row_bytes, std::size_t count, std::size_t n,
                                       int mantissa_bits, int bias, const float* values64,
                                       const std::uint8_t* HWY_RESTRICT scale_codes, float* HWY_RESTRICT y) {
  std::size_t vector_end = 0;  // columns [0, vector_end) in whole vectors, none reading past a row
#if SOFTFLOAT_SIX_BIT_VECTORS
  {
    const DF df;
    const std::size_t lanes = hn::Lanes(df);
    const SixBitDecode d = MakeSixBitDecode(mantissa_bits, bias, values64);
    while (vector_end + lanes <= n && 3 * vector_end / 4 + 16 <= row_bytes) vector_end += lanes;
    // Sixteen rows a pass over blocks of 4096 columns (their sums, 16 KiB, stay in L1),
    // four vectors a step: four independent FMA chains.
    constexpr std::size_t kRows = 16, kBlock = 4096;
    for (std::size_t c0 = 0; c0 < vector_end; c0 += kBlock) {
      const std::size_t block_end = HWY_MIN(vector_end, c0 + kBlock);
      for (std::size_t p = 0; p < count; p += kRows) {
        const std::size_t rows = p + kRows <= count ? kRows : count - p;
        std::size_t c = c0;
        for (; c + 4 * lanes <= block_end; c += 4 * lanes) {
          VF y0 = hn::LoadU(df, y + c), y1 = hn::LoadU(df, y + c + lanes);
          VF y2 = hn::LoadU(df, y + c + 2 * lanes), y3 = hn::LoadU(df, y + c + 3 * lanes);
          const VF s0 = SixBitScales<kKind>(scale_codes, c), s1 = SixBitScales<kKind>(scale_codes, c + lanes);
          const VF s2 = SixBitScales<kKind>(scale_codes, c + 2 * lanes);
          const VF s3 = SixBitScales<kKind>(scale_codes, c + 3 * lanes);
          const std::uint8_t* HWY_RESTRICT at = codes + p * stride + 3 * c / 4;
          const std::size_t step = 3 * lanes / 4;
          for (std::size_t r = 0; r < rows; ++r, at += stride) {
            const VF activation = hn::Set(df, x[p + r]);
            VF w0 = SixBitValues(d, at), w1 = SixBitValues(d, at + step);
            VF w2 = SixBitValues(d, at + 2 * step), w3 = SixBitValues(d, at + 3 * step);
            if constexpr (kKind != ScaleKind::none) {
              w0 = hn::Mul(w0, s0), w1 = hn::Mul(w1, s1), w2 = hn::Mul(w2, s2), w3 = hn::Mul(w3, s3);
            }
            y0 = hn::MulAdd(activation, w0, y0), y1 = hn::MulAdd(activation, w1, y1);
            y2 = hn::MulAdd(activation, w2, y2), y3 = hn::MulAdd(activation, w3, y3);
          }
          hn::StoreU(y0, df, y + c), hn::StoreU(y1, df, y + c + lanes);
          hn::StoreU(y2, df, y + c + 2 * lanes), hn::StoreU(y3, df, y + c + 3 * lanes);
        }
        for (; c < block_end; c += lanes) {  // the block's last vectors, one at a time
          VF sum = hn::LoadU(df, y + c);
          const VF scale = SixBitScales<kKind>(scale_codes, c);
          const std::uint8_t* HWY_RESTRICT at = codes + p * stride + 3 * c / 4;
          for (std::size_t r = 0; r < rows; ++r, at += stride) {
            VF w = SixBitValues(d, at);
            if constexpr (kKind != ScaleKind::none) w = hn::Mul(w, scale);
            sum = hn::MulAdd(hn::Set(df, x[p + r]), w, sum);
          }
          hn::StoreU(sum, df, y + c);
        }
      }
    }
  }
#else
  static_cast<void>(mantissa_bits), static_cast<void>(bias);
#endif
  // The columns past the whole vectors: the same steps in one-lane vectors.
  const hn::CappedTag<float, 1> d1;
  const hn::CappedTag<std::uint32_t, 1> du1;
  for (std::size_t j = vector_end; j < n; ++j) {
    auto scale = hn::Set(d1, 1.0f);
    if constexpr (kKind != ScaleKind::none) scale = ScaleValues<kKind>(du1, hn::Set(du1, scale_codes[j]));
    auto sum = hn::LoadU(d1, y + j);
    const std::size_t bit = 6 * j, byte = bit / 8, offset = bit % 8;
    for (std::size_t p = 0; p < count; ++p) {
      const std::uint8_t* row = codes + p * stride;
      const unsigned pair = row[byte] | (byte + 1 < row_bytes ? unsigned(row[byte + 1]) << 8 : 0u);
      const auto value = hn::Set(d1, values64[(pair >> offset) & 63u]);
      sum = hn::MulAdd(hn::Set(d1, x[p]), kKind != ScaleKind::none ? hn::Mul(value, scale) : value, sum);
    }
    hn::StoreU(sum, d1, y + j);
  }
}

// The same; scale_codes null for plain codes, else MX's E8M0.
HWY_NOINLINE void AccumulateSixBitRows(const float* x, const std::uint8_t* codes, std::size_t stride,
                                       std::size_t row_bytes, std::size_t count, std::size_t n, int mantissa_bits,
                                       int bias, const float* values64, const std::uint8_t* scale_codes, float* y) {
  if (scale_codes == nullptr)
    AccumulateSixBitRowsOf<ScaleKind::none>(x, codes, stride, row_bytes, count, n, mantissa_bits, bias, values64,
                                            nullptr, y);
  else
    AccumulateSixBitRowsOf<ScaleKind::e8m0>(x, codes, stride, row_bytes, count, n, mantissa_bits, bias, values64,
                                            scale_codes, y);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace softfloat::block_formats_detail
HWY_AFTER_NAMESPACE();

#undef SOFTFLOAT_SIX_BIT_VECTORS
#undef SOFTFLOAT_SIX_BIT_TWO_TABLES
#endif  // SOFTFLOAT_BLOCK_FORMATS_SIX_BIT_MATVEC_INL_H_ toggle
