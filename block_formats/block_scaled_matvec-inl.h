// The per-target part of the block-scaled matrix-vector product
// (softfloat/block_scaled_matmul.hpp), compiled for every Highway target by
// block_scaled_matmul.cpp: y continued over rows of E2M1 codes, two columns a byte.
//
// A byte of row p holds columns 2i (low nibble) and 2i + 1 (high nibble). Rather than
// interleave the two nibbles back into column order (shuffles per vector), the running
// sums are kept de-interleaved: even[i] is y[2i], odd[i] is y[2i + 1], and the caller
// interleaves them once at the end. A vector of bytes then gives one vector of even
// columns (code & 0xF) and one of odd columns (code >> 4), each decoded by one
// in-register table lookup:
//   16 or more lanes (AVX-512): vpermps on the 16 E2M1 values, signs included;
//   8 lanes (AVX2): vpermps on the 8 magnitudes {0, 0.5, 1, 1.5, 2, 3, 4, 6}, then the
//     sign bit (code bit 3) moved to bit 31 and ORed in;
//   fewer lanes (SSE4, NEON, scalar): a gather from the 16-entry table.
// Worked value: byte 0xA3 = columns (0x3, 0xA): 0x3 is +1.5, 0xA is -(magnitude 2) = -1.
// Each decoded value is multiplied by its column's block scale (exact, as the header
// shows), then y = MulAdd(x[p], w, y): the in-order chain, one rounding per step. The
// scales are read as codes and looked up (a gather from their 256 values) once per
// vector of columns and pass of 16 rows, which costs little beside the 16 rows' work.

#if defined(SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALED_MATVEC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALED_MATVEC_INL_H_
#undef SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALED_MATVEC_INL_H_
#else
#define SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALED_MATVEC_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "matmul/float_vectors-inl.h"

HWY_BEFORE_NAMESPACE();
namespace softfloat::block_scaled_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// matmul's fp32 accumulation vectors.
using matmul_detail::HWY_NAMESPACE::DF;
using matmul_detail::HWY_NAMESPACE::VF;
using DU = hn::RebindToUnsigned<DF>;
using VU = hn::Vec<DU>;
using D1 = hn::CappedTag<float, 1>;

// The E2M1 values of the 16 codes, by table lookup within a vector where one holds the
// table (see the top of the file), else by gather. Fixed-width targets only: a scalable
// vector's length is not known at compile time (and SVE vectors cannot be class members,
// so the table travels as an argument).
constexpr bool kFixedWidth = HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE;
constexpr bool kSixteenLanes = kFixedWidth && hn::MaxLanes(DF()) == 16;
constexpr bool kEightLanes = kFixedWidth && hn::MaxLanes(DF()) == 8;

// The table vector that E2m1Decode reads: the 16 values (16 lanes), the 8 magnitudes
// (codes 0 .. 7, 8 lanes), else unused.
HWY_INLINE VF E2m1Table(const float* values16) {
  if constexpr (kSixteenLanes || kEightLanes) return hn::LoadU(DF(), values16);
  return hn::Zero(DF());
}

// codes: one 4-bit code per lane (higher bits zero).
HWY_INLINE VF E2m1Decode(VF table, const float* values16, VU codes) {
  const DF df;
  const DU du;
  if constexpr (kSixteenLanes) {
    return hn::TableLookupLanes(table, hn::IndicesFromVec(df, codes));
  } else if constexpr (kEightLanes) {
    const VF magnitude = hn::TableLookupLanes(table, hn::IndicesFromVec(df, hn::And(codes, hn::Set(du, 7u))));
    return hn::Or(magnitude, hn::BitCast(df, hn::ShiftLeft<28>(hn::And(codes, hn::Set(du, 8u)))));
  } else {
    return hn::GatherIndex(df, values16, hn::BitCast(hn::RebindToSigned<DF>(), codes));
  }
}

// even[i] / odd[i] continued over `count` rows of E2M1 codes (row p at codes + p *
// stride): for i < pairs both nibbles of byte i, and the low nibble of byte `pairs` into
// even[pairs] when lone_low (n odd). kScaled: each value times its column's block scale,
// scale_table[scale_codes[column]] (the rows' one scale row, in column order). Steps per
// column in row order, each MulAdd(x[p], value * scale, sum).
template <bool kScaled>
HWY_INLINE void AccumulateE2m1RowsOf(const float* HWY_RESTRICT x, const std::uint8_t* HWY_RESTRICT codes,
                                     std::size_t stride, std::size_t count, std::size_t pairs, bool lone_low,
                                     const float* values16, const std::uint8_t* HWY_RESTRICT scale_codes,
                                     const float* HWY_RESTRICT scale_table, float* HWY_RESTRICT even,
                                     float* HWY_RESTRICT odd) {
  const DF df;
  const DU du;
  const hn::Rebind<std::uint8_t, DU> d8;
  const D1 d1;
  const VF table = E2m1Table(values16);
  const std::size_t lanes = hn::Lanes(df);
  const std::size_t vector_end = pairs / lanes * lanes;
  const hn::Rebind<std::uint16_t, DU> d16;
  const hn::RebindToSigned<DF> di;
  const VU low_mask = hn::Set(du, 0xFu), byte_mask = hn::Set(du, 0xFFu);
  // Sixteen rows per pass, so that each running sum is loaded and stored once per 16
  // steps, over blocks of 2048 bytes (4096 columns), whose sums and scales (32 KiB)
  // stay in L1 / L2 while the 16 rows stream past them.
  constexpr std::size_t kRows = 16, kBlockBytes = 2048;
  for (std::size_t i0 = 0; i0 < vector_end; i0 += kBlockBytes) {
    const std::size_t block_end = HWY_MIN(vector_end, i0 + kBlockBytes);
    for (std::size_t p = 0; p < count; p += kRows) {
      const std::size_t rows = p + kRows <= count ? kRows : count - p;
      for (std::size_t i = i0; i < block_end; i += lanes) {
        VF sum_even = hn::LoadU(df, even + i), sum_odd = hn::LoadU(df, odd + i);
        VF s_even = hn::Set(df, 1.0f), s_odd = s_even;
        if constexpr (kScaled) {  // columns 2i .. 2i + 2 lanes - 1: a code pair per 16-bit lane
          const VU pair = hn::PromoteTo(du, hn::LoadU(d16, reinterpret_cast<const std::uint16_t*>(scale_codes + 2 * i)));
          s_even = hn::GatherIndex(df, scale_table, hn::BitCast(di, hn::And(pair, byte_mask)));
          s_odd = hn::GatherIndex(df, scale_table, hn::BitCast(di, hn::ShiftRight<8>(pair)));
        }
        const std::uint8_t* HWY_RESTRICT at = codes + p * stride + i;
        for (std::size_t r = 0; r < rows; ++r, at += stride) {
          const VU byte = hn::PromoteTo(du, hn::LoadU(d8, at));
          VF w_even = E2m1Decode(table, values16, hn::And(byte, low_mask));
          VF w_odd = E2m1Decode(table, values16, hn::ShiftRight<4>(byte));
          if constexpr (kScaled) {
            w_even = hn::Mul(w_even, s_even);
            w_odd = hn::Mul(w_odd, s_odd);
          }
          const VF activation = hn::Set(df, x[p + r]);
          sum_even = hn::MulAdd(activation, w_even, sum_even);
          sum_odd = hn::MulAdd(activation, w_odd, sum_odd);
        }
        hn::StoreU(sum_even, df, even + i);
        hn::StoreU(sum_odd, df, odd + i);
      }
    }
  }
  // The bytes past the last whole vector, and a lone low nibble: the same steps in
  // one-lane vectors.
  const std::size_t end = pairs + (lone_low ? 1 : 0);
  for (std::size_t i = vector_end; i < end; ++i) {
    for (int half = 0; half < 2; ++half) {
      if (i == pairs && half == 1) break;
      float* sum_at = half == 0 ? even + i : odd + i;
      const float scale = kScaled ? scale_table[scale_codes[2 * i + std::size_t(half)]] : 1.0f;
      auto sum = hn::LoadU(d1, sum_at);
      for (std::size_t p = 0; p < count; ++p) {
        const std::uint8_t byte = codes[p * stride + i];
        const float value = values16[half == 0 ? byte & 0xF : byte >> 4];
        const auto w = kScaled ? hn::Mul(hn::Set(d1, value), hn::Set(d1, scale)) : hn::Set(d1, value);
        sum = hn::MulAdd(hn::Set(d1, x[p]), w, sum);
      }
      hn::StoreU(sum, d1, sum_at);
    }
  }
}

// The same, scale_codes null for plain codes.
HWY_NOINLINE void AccumulateE2m1Rows(const float* x, const std::uint8_t* codes, std::size_t stride, std::size_t count,
                                     std::size_t pairs, bool lone_low, const float* values16,
                                     const std::uint8_t* scale_codes, const float* scale_table, float* even,
                                     float* odd) {
  if (scale_codes != nullptr)
    AccumulateE2m1RowsOf<true>(x, codes, stride, count, pairs, lone_low, values16, scale_codes, scale_table, even,
                               odd);
  else
    AccumulateE2m1RowsOf<false>(x, codes, stride, count, pairs, lone_low, values16, nullptr, nullptr, even, odd);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace softfloat::block_scaled_detail
HWY_AFTER_NAMESPACE();

#endif  // SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALED_MATVEC_INL_H_ toggle
