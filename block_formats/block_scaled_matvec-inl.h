// The per-target part of the block-scaled matrix-vector product
// (softfloat/block_scaled_matmul.hpp), compiled for every Highway target by
// block_scaled_matmul.cpp: y continued over rows of E2M1 codes, two columns a byte.
// AVX-512 keeps the sums in nibble lanes instead (e2m1_nibble_lanes-inl.h), AVX2 in byte
// lanes (e2m1_byte_lanes-inl.h).
//
// A byte of row p holds columns 2i (low nibble) and 2i + 1 (high nibble). Rather than
// interleave the two nibbles back into column order (shuffles per vector), the running
// sums are kept de-interleaved: even[i] is y[2i], odd[i] is y[2i + 1], and the caller
// interleaves them once at the end. A vector of bytes then gives one vector of even
// columns (code & 0xF) and one of odd columns (code >> 4), each decoded by one
// in-register table lookup:
//   16 or more lanes: vpermps on the 16 E2M1 values, signs included (unused on x86,
//     whose AVX-512 takes the nibble lanes);
//   fewer lanes (SSE4, NEON, scalar): a gather from the 16-entry table.
// Worked value: byte 0xA3 = columns (0x3, 0xA): 0x3 is +1.5, 0xA is -(magnitude 2) = -1.
// Each decoded value is multiplied by its column's block scale (exact, as the header
// shows), then y = MulAdd(x[p], w, y): the in-order chain, one rounding per step. MX's
// power-of-two scales may instead divide the sums where a block starts and multiply
// them where it ends, the same bits (unscaled_chain.hpp says when). The
// scales are decoded from their codes by integer operations (E8m0Values, E4m3Values),
// de-interleaved as the sums are, once per vector of columns and pass of rows.

#if defined(SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALED_MATVEC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALED_MATVEC_INL_H_
#undef SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALED_MATVEC_INL_H_
#else
#define SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALED_MATVEC_INL_H_
#endif

#include <cstddef>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "block_formats/block_scales-inl.h"
#include "block_formats/e2m1_byte_lanes-inl.h"
#include "block_formats/e2m1_nibble_lanes-inl.h"
#include "block_formats/six_bit_matvec-inl.h"
#include "block_formats/unscaled_chain.hpp"
#include "matmul/float_vectors-inl.h"
#include "simd/prefetch.hpp"

HWY_BEFORE_NAMESPACE();
namespace softfloat::block_formats_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// DF, VF, DU and VU (matmul's fp32 accumulation vectors): block_scales-inl.h's.
using D1 = hn::CappedTag<float, 1>;

// The E2M1 values of the 16 codes, by table lookup within a vector where one holds the
// table (see the top of the file), else by gather. Fixed-width targets only: a scalable
// vector's length is not known at compile time (and SVE vectors cannot be class members,
// so the table travels as an argument).
constexpr bool kFixedWidth = HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE;
constexpr bool kSixteenLanes = kFixedWidth && hn::MaxLanes(DF()) == 16;

// The table vector that the lookups read: the 16 values (16 lanes, E2m1Decode), else
// unused.
HWY_INLINE VF E2m1Table(const float* values16) {
  if constexpr (kSixteenLanes) return hn::LoadU(DF(), values16);
  return hn::Zero(DF());
}

// codes: one 4-bit code per lane (higher bits zero).
HWY_INLINE VF E2m1Decode(VF table, const float* values16, VU codes) {
  const DF df;
  if constexpr (kSixteenLanes) {
    return hn::TableLookupLanes(table, hn::IndicesFromVec(df, codes));
  } else {
    static_cast<void>(table);
    return hn::GatherIndex(df, values16, hn::BitCast(hn::RebindToSigned<DF>(), codes));
  }
}

// The scales of columns 2i .. 2i + 2 Lanes - 1, de-interleaved as the sums are: a code
// pair per 16-bit lane, the low byte column 2i + 2l's, the high byte column 2i + 2l + 1's.
template <ScaleKind kKind>
HWY_INLINE void LoadScales(const std::uint8_t* HWY_RESTRICT scale_codes, std::size_t i, VF& s_even, VF& s_odd) {
  const DU du;
  const hn::Rebind<std::uint16_t, DU> d16;
  const VU pair = hn::PromoteTo(du, hn::LoadU(d16, reinterpret_cast<const std::uint16_t*>(scale_codes + 2 * i)));
  const VU even_codes = hn::And(pair, hn::Set(du, 0xFFu)), odd_codes = hn::ShiftRight<8>(pair);
  if constexpr (kKind == ScaleKind::e4m3) {
    // NVFP4's usual scales, positive and normal: two operations a vector, not a dozen
    // (8192 x 8192 on the model-207 Xeon: 4.17 -> 3.8 ms).
    if (hn::AllFalse(du, hn::Or(E4m3NotNormalPositive(du, even_codes), E4m3NotNormalPositive(du, odd_codes)))) {
      s_even = E4m3NormalValues(du, even_codes);
      s_odd = E4m3NormalValues(du, odd_codes);
      return;
    }
  }
  s_even = ScaleValues<kKind>(du, even_codes);
  s_odd = ScaleValues<kKind>(du, odd_codes);
}

// One code byte per 32-bit lane, the bytes at `at`.
HWY_INLINE VU LoadCodeBytes(const std::uint8_t* HWY_RESTRICT at) {
  return hn::PromoteTo(DU(), hn::LoadU(hn::Rebind<std::uint8_t, DU>(), at));
}

// The running sums of one vector of bytes (2 lanes of columns each, from LoadCodeBytes):
// the two nibbles decoded, times their scales (kScaled), fused into the sums by the
// row's activation.
template <bool kScaled>
HWY_INLINE void E2m1Step(VF table, const float* values16, VU byte, VF activation, VF s_even, VF s_odd,
                         VF& sum_even, VF& sum_odd) {
  const DU du;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  // AVX-512's vpermps reads the low 4 bits of each index: the high nibble need not be
  // cleared there (Highway's TableLookupLanes asks for indices below 16, so the raw
  // instruction).
  VF w_even = VF{_mm512_permutexvar_ps(byte.raw, table.raw)};
  VF w_odd = E2m1Decode(table, values16, hn::ShiftRight<4>(byte));
#else
  VF w_even = E2m1Decode(table, values16, hn::And(byte, hn::Set(du, 0xFu)));
  VF w_odd = E2m1Decode(table, values16, hn::ShiftRight<4>(byte));
#endif
  if constexpr (kScaled) {
    w_even = hn::Mul(w_even, s_even);
    w_odd = hn::Mul(w_odd, s_odd);
  }
  sum_even = hn::MulAdd(activation, w_even, sum_even);
  sum_odd = hn::MulAdd(activation, w_odd, sum_odd);
}

// even[i] / odd[i] continued over `count` rows of E2M1 codes (row p at codes + p *
// stride): for i < pairs both nibbles of byte i, and the low nibble of byte `pairs` into
// even[pairs] when lone_low (n odd). With scales (kKind not none): each value times its
// column's block scale, decoded from scale_codes, the rows' one scale row in column
// order, once per pass (a few integer operations beside the rows' work, and no buffer
// of decoded scales to share L1 with the sums). Steps per column in row order, each
// MulAdd(x[p], value * scale, sum), or for E8M0 scales inside `window` the unscaled
// chain with the same bits (unscaled_chain.hpp; Unscale checks each sum).
template <ScaleKind kKind>
HWY_INLINE void AccumulateE2m1RowsOf(const float* HWY_RESTRICT x, const std::uint8_t* HWY_RESTRICT codes,
                                     std::size_t stride, std::size_t count, std::size_t pairs, bool lone_low,
                                     const float* values16, const std::uint8_t* HWY_RESTRICT scale_codes,
                                     UnscaledChainWindow window, float* HWY_RESTRICT even, float* HWY_RESTRICT odd) {
  constexpr bool kScaled = kKind != ScaleKind::none;
  const DF df;
  const D1 d1;
  const VF table = E2m1Table(values16);
  const std::size_t lanes = hn::Lanes(df);
  const std::size_t vector_end = pairs / lanes * lanes;
  const VF one = hn::Set(df, 1.0f);
  // The window's bounds as scale values (E8M0 code c is fp32's bits c << 23).
  const VF window_lo = hn::BitCast(df, hn::Set(DU(), window.code_lo << 23));
  const VF window_hi = hn::BitCast(df, hn::Set(DU(), window.code_hi << 23));
  // Sixteen rows per pass, so that each running sum is loaded and stored once per 16
  // steps, over blocks of 2048 bytes (4096 columns), whose sums (32 KiB) stay in L1 /
  // L2 while the 16 rows stream past them. Four vectors of bytes a step: eight
  // independent chains of fused multiply-adds hide the FMA's latency (one chain per
  // pair of vectors would wait on it: 4 cycles a row on Zen 4). With scales, 32 rows:
  // an MX block (NVFP4's 16) in one pass, its scales decoded and checked once (MXFP4 at
  // 8192 x 8192 on the model-207 Xeon: 3.8 -> 3.4 ms).
  constexpr std::size_t kRows = kScaled ? 32 : 16, kBlockBytes = 4096;
  for (std::size_t i0 = 0; i0 < vector_end; i0 += kBlockBytes) {
    const std::size_t block_end = HWY_MIN(vector_end, i0 + kBlockBytes);
    for (std::size_t p = 0; p < count; p += kRows) {
      const std::size_t rows = p + kRows <= count ? kRows : count - p;
      std::size_t i = i0;
      for (; i + 4 * lanes <= block_end; i += 4 * lanes) {
        VF e0 = hn::LoadU(df, even + i), e1 = hn::LoadU(df, even + i + lanes);
        VF e2 = hn::LoadU(df, even + i + 2 * lanes), e3 = hn::LoadU(df, even + i + 3 * lanes);
        VF o0 = hn::LoadU(df, odd + i), o1 = hn::LoadU(df, odd + i + lanes);
        VF o2 = hn::LoadU(df, odd + i + 2 * lanes), o3 = hn::LoadU(df, odd + i + 3 * lanes);
        VF se0 = one, se1 = one, se2 = one, se3 = one, so0 = one, so1 = one, so2 = one, so3 = one;
        if constexpr (kScaled) {
          PrefetchNextScaleRow(scale_codes, 2 * i, 8 * lanes, 2 * pairs + (lone_low ? 1 : 0));
          LoadScales<kKind>(scale_codes, i, se0, so0);
          LoadScales<kKind>(scale_codes, i + lanes, se1, so1);
          LoadScales<kKind>(scale_codes, i + 2 * lanes, se2, so2);
          LoadScales<kKind>(scale_codes, i + 3 * lanes, se3, so3);
        }
        const std::uint8_t* HWY_RESTRICT at = codes + p * stride + i;
        // The rows' steps: fused with the scaled values, or (unscaled) with the bare ones.
        const auto steps = [&](auto unscaled) {
          constexpr bool kWithScales = kScaled && !decltype(unscaled)::value;
          for (std::size_t r = 0; r < rows; ++r, at += stride) {
            const VF activation = hn::Set(df, x[p + r]);
            // The next band's row at these columns (simd/prefetch.hpp says why).
            simd::detail::PrefetchIntoL2(at, rows * stride);
            E2m1Step<kWithScales>(table, values16, LoadCodeBytes(at), activation, se0, so0, e0, o0);
            E2m1Step<kWithScales>(table, values16, LoadCodeBytes(at + lanes), activation, se1, so1, e1, o1);
            E2m1Step<kWithScales>(table, values16, LoadCodeBytes(at + 2 * lanes), activation, se2, so2, e2, o2);
            E2m1Step<kWithScales>(table, values16, LoadCodeBytes(at + 3 * lanes), activation, se3, so3, e3, o3);
          }
        };
        bool unscaled = false;
        if constexpr (kKind == ScaleKind::e8m0) {
          // E8M0 scales: the unscaled chain (unscaled_chain.hpp) where every lane of the
          // four vectors may take it, one multiply a weight fewer.
          if (!window.empty()) {
            VF ze0, ze1, ze2, ze3, zo0, zo1, zo2, zo3;
            auto ok = hn::And(Unscale(e0, se0, window_lo, window_hi, ze0),
                              Unscale(e1, se1, window_lo, window_hi, ze1));
            ok = hn::And(ok, hn::And(Unscale(e2, se2, window_lo, window_hi, ze2),
                                 Unscale(e3, se3, window_lo, window_hi, ze3)));
            ok = hn::And(ok, hn::And(Unscale(o0, so0, window_lo, window_hi, zo0),
                                 Unscale(o1, so1, window_lo, window_hi, zo1)));
            ok = hn::And(ok, hn::And(Unscale(o2, so2, window_lo, window_hi, zo2),
                                 Unscale(o3, so3, window_lo, window_hi, zo3)));
            if (hn::AllTrue(df, ok)) {
              unscaled = true;
              e0 = ze0, e1 = ze1, e2 = ze2, e3 = ze3, o0 = zo0, o1 = zo1, o2 = zo2, o3 = zo3;
              steps(std::true_type());
              e0 = hn::Mul(e0, se0), e1 = hn::Mul(e1, se1), e2 = hn::Mul(e2, se2), e3 = hn::Mul(e3, se3);
              o0 = hn::Mul(o0, so0), o1 = hn::Mul(o1, so1), o2 = hn::Mul(o2, so2), o3 = hn::Mul(o3, so3);
            }
          }
        }
        if (!unscaled) steps(std::false_type());
        hn::StoreU(e0, df, even + i), hn::StoreU(e1, df, even + i + lanes);
        hn::StoreU(e2, df, even + i + 2 * lanes), hn::StoreU(e3, df, even + i + 3 * lanes);
        hn::StoreU(o0, df, odd + i), hn::StoreU(o1, df, odd + i + lanes);
        hn::StoreU(o2, df, odd + i + 2 * lanes), hn::StoreU(o3, df, odd + i + 3 * lanes);
      }
      for (; i < block_end; i += lanes) {  // the block's last vectors, one at a time
        VF sum_even = hn::LoadU(df, even + i), sum_odd = hn::LoadU(df, odd + i);
        VF s_even = one, s_odd = one;
        if constexpr (kScaled) LoadScales<kKind>(scale_codes, i, s_even, s_odd);
        const std::uint8_t* HWY_RESTRICT at = codes + p * stride + i;
        for (std::size_t r = 0; r < rows; ++r, at += stride)
          E2m1Step<kScaled>(table, values16, LoadCodeBytes(at), hn::Set(df, x[p + r]), s_even,
                            s_odd, sum_even, sum_odd);
        hn::StoreU(sum_even, df, even + i);
        hn::StoreU(sum_odd, df, odd + i);
      }
    }
  }
  // The bytes past the last whole vector, and a lone low nibble: the same steps in
  // one-lane vectors.
  const hn::CappedTag<std::uint32_t, 1> du1;
  const std::size_t end = pairs + (lone_low ? 1 : 0);
  for (std::size_t i = vector_end; i < end; ++i) {
    for (int half = 0; half < 2; ++half) {
      if (i == pairs && half == 1) break;
      float* sum_at = half == 0 ? even + i : odd + i;
      auto scale = hn::Set(d1, 1.0f);
      if constexpr (kScaled) scale = ScaleValues<kKind>(du1, hn::Set(du1, scale_codes[2 * i + std::size_t(half)]));
      auto sum = hn::LoadU(d1, sum_at);
      for (std::size_t p = 0; p < count; ++p) {
        const std::uint8_t byte = codes[p * stride + i];
        const auto value = hn::Set(d1, values16[half == 0 ? byte & 0xF : byte >> 4]);
        sum = hn::MulAdd(hn::Set(d1, x[p]), kScaled ? hn::Mul(value, scale) : value, sum);
      }
      hn::StoreU(sum, d1, sum_at);
    }
  }
}

// The sums of the E2M1 product's n columns continued over `count` rows; scale_codes
// null for plain codes, else E4M3 codes (e4m3) or E8M0, whose columns take the unscaled
// chain where `window` allows. sums (ceil(n / 128) * 128 + 1 floats, +0 at first) is in
// nibble lanes on AVX-512 (e2m1_nibble_lanes-inl.h), in byte lanes on AVX2
// (e2m1_byte_lanes-inl.h), else the even columns' sums followed by the odd columns'
// ((n + 1) / 2 each); E2m1SumsToColumns reads each.
HWY_NOINLINE void AccumulateE2m1Rows(const float* x, const std::uint8_t* codes, std::size_t stride, std::size_t count,
                                     std::size_t n, const float* values16, const std::uint8_t* scale_codes, bool e4m3,
                                     UnscaledChainWindow window, float* sums) {
  const auto accumulate = [&](auto kind) {
    constexpr ScaleKind kKind = decltype(kind)::value;
#if SOFTFLOAT_E2M1_NIBBLE_LANES
    AccumulateE2m1NibbleLanes<kKind>(x, codes, stride, count, n, values16, scale_codes, window, sums);
#elif SOFTFLOAT_E2M1_BYTE_LANES
    AccumulateE2m1ByteLanes<kKind>(x, codes, stride, count, n, values16, scale_codes, window, sums);
#else
    const std::size_t halves = (n + 1) / 2;
    AccumulateE2m1RowsOf<kKind>(x, codes, stride, count, n / 2, n % 2 != 0, values16, scale_codes, window, sums,
                                sums + halves);
#endif
  };
  if (scale_codes == nullptr)
    accumulate(std::integral_constant<ScaleKind, ScaleKind::none>());
  else if (e4m3)
    accumulate(std::integral_constant<ScaleKind, ScaleKind::e4m3>());
  else
    accumulate(std::integral_constant<ScaleKind, ScaleKind::e8m0>());
}

// y (n floats, column order) from AccumulateE2m1Rows' sums. HWY_DYNAMIC_DISPATCH sends
// both to the one target chosen for the process, so that this reads the layout written.
HWY_NOINLINE void E2m1SumsToColumns(const float* sums, std::size_t n, float* y) {
#if SOFTFLOAT_E2M1_NIBBLE_LANES
  E2m1NibbleLaneSumsToColumns(sums, n, y);
#elif SOFTFLOAT_E2M1_BYTE_LANES
  E2m1ByteLaneSumsToColumns(sums, n, y);
#else
  const std::size_t halves = (n + 1) / 2;
  for (std::size_t j = 0; j < n; ++j) y[j] = j % 2 == 0 ? sums[j / 2] : sums[halves + j / 2];
#endif
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace softfloat::block_formats_detail
HWY_AFTER_NAMESPACE();

#undef SOFTFLOAT_E2M1_BYTE_LANES
#undef SOFTFLOAT_E2M1_NIBBLE_LANES
#endif  // SOFTFLOAT_BLOCK_FORMATS_BLOCK_SCALED_MATVEC_INL_H_ toggle
