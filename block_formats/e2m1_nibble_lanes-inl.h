// The E2M1 rows of the block-scaled matrix-vector product on AVX-512
// (block_scaled_matvec-inl.h has every other target): the running sums kept in nibble
// lanes, so that 64 code bytes of a row are one plain load and no byte is widened.
//
// Layout. A chunk of 128 columns (64 bytes of a row) is 8 vectors of sums; vector k,
// lane j holds column 8j + k: nibble k of the row's 32-bit word j. Nibble k reaches the
// bottom of its lane by one shift right by 4k, and vpermps reads only the low 4 bits of
// each index, so that the shifted word is the lookup's index as it is. Per 64 bytes:
// one load, 7 shifts, 8 lookups and 8 fused multiply-adds. The kernel that widens a byte
// per lane (vpmovzxbd) needs 4 widenings, 4 shifts, 8 lookups and the 8 FMAs; on Zen 4
// the widenings and the lookups share two pipes, one of them the FMA's, where the
// shifts run on two others (zmm throughput measured on the Zen 4 EPYC: FMA with
// vpermps 1.6 cycles a pair, FMA with vpsrld 1.0, vpermps with vpmovzxbd 2.0).
// Worked value: word j = 0x6A3F0021 (bytes 0x21 0x00 0x3F 0x6A) holds columns 8j .. 8j+7
// as nibbles 1 2 0 0 F 3 A 6, the values +0.5 +1 0 0 -6 +1.5 -1 +4; nibble 4 is
// 0x6A3F0021 >> 16 = 0x6A3F, whose low 4 bits 0xF index -6.
// E2m1NibbleLaneSumsToColumns puts the sums back into column order, once per product.
//
// Scales (NVFP4's E4M3, MX's E8M0) are decoded once per chunk and pass of rows, in the
// same lanes: lane j of vector k takes scale code 8j + k of the chunk's 128, byte k of
// their 64-bit word j, by two-source dword permutes, shifts and masks. MX's
// power-of-two scales may divide the sums where a block starts and multiply them where
// it ends instead (unscaled_chain.hpp).

#if defined(SOFTFLOAT_BLOCK_FORMATS_E2M1_NIBBLE_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_BLOCK_FORMATS_E2M1_NIBBLE_LANES_INL_H_
#undef SOFTFLOAT_BLOCK_FORMATS_E2M1_NIBBLE_LANES_INL_H_
#else
#define SOFTFLOAT_BLOCK_FORMATS_E2M1_NIBBLE_LANES_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "hwy/highway.h"
#include "block_formats/block_scales-inl.h"
#include "block_formats/unscaled_chain.hpp"
#include "simd/prefetch.hpp"

HWY_BEFORE_NAMESPACE();
namespace softfloat::block_formats_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether this target keeps E2M1 sums in nibble lanes: x86 with AVX-512.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
#define SOFTFLOAT_E2M1_NIBBLE_LANES 1

constexpr std::size_t kNibbleChunkColumns = 128, kNibbleChunkBytes = 64;
// The 32-bit lanes of a vector of sums, 8 columns each: a chunk's 128 columns.
constexpr std::size_t kNibbleLanes = kNibbleChunkColumns / 8;
static_assert(hn::MaxLanes(DF()) == kNibbleLanes, "a chunk is one vector of 32-bit lanes");

// f(std::integral_constant<std::size_t, k>) for k = 0 .. 7, the nibbles of a lane.
template <class F>
HWY_INLINE void ForEachNibble(F&& f) {
  [&]<std::size_t... k>(std::index_sequence<k...>) {
    (f(std::integral_constant<std::size_t, k>()), ...);
  }(std::make_index_sequence<8>());
}

// The scales of a chunk's columns in nibble lanes: s[k] lane j scales column 8j + k.
// scale_codes: the chunk's codes in column order, `columns` of them (1 .. 128); the
// lanes past them take the code of 1 (E8M0 127, E4M3 0x38), so that the fast rules below
// and the unscaled chain hold there too. True where the scales are E8M0 and every code
// lies in `window` (127 does wherever a window is not empty), tested on the 128 bytes:
// then the unscaled chain needs no test of the window per lane, and a window's codes,
// 1 .. 253, are fp32's biased exponents, so that each value's bits are its code shifted
// up by 23 (code 124: 0x3E000000 = 2^-3).
template <ScaleKind kKind>
HWY_INLINE bool NibbleLaneScales(const std::uint8_t* HWY_RESTRICT scale_codes, std::size_t columns,
                                 UnscaledChainWindow window, VF (&s)[8]) {
  const DU du;
  const hn::ScalableTag<std::uint8_t> d8;  // 64 lanes
  const auto one_code = hn::Set(d8, std::uint8_t(kKind == ScaleKind::e4m3 ? 0x38 : 127));
  const auto lo_valid = hn::FirstN(d8, columns), hi_valid = hn::FirstN(d8, columns > 64 ? columns - 64 : 0);
  // Masked loads do not fault past the valid lanes (AVX-512's fault suppression).
  const auto lo = hn::IfThenElse(lo_valid, hn::MaskedLoad(lo_valid, d8, scale_codes), one_code);
  const auto hi = hn::IfThenElse(hi_valid, hn::MaskedLoad(hi_valid, d8, scale_codes + 64), one_code);
  // Lane j: the low and the high 32 bits of the codes' 64-bit word j (codes 8j .. 8j + 3
  // and 8j + 4 .. 8j + 7), from lo:hi's 32 dwords (vpermt2d; indices 16 .. 31 are hi's).
  const VU even_dwords = hn::ShiftLeft<1>(hn::Iota(du, 0));
  const VU low = VU{_mm512_permutex2var_epi32(lo.raw, even_dwords.raw, hi.raw)};
  const VU high = VU{_mm512_permutex2var_epi32(lo.raw, hn::Add(even_dwords, hn::Set(du, 1u)).raw, hi.raw)};
  VU codes[8];
  ForEachNibble([&](auto k) {
    const VU word = k < 4 ? low : high;
    codes[k] = hn::And(hn::ShiftRight<8 * (k % 4)>(word), hn::Set(du, 0xFFu));
  });
  bool in_window = false;
  if constexpr (kKind == ScaleKind::e8m0) {
    if (!window.empty()) {
      const auto first = hn::Set(d8, std::uint8_t(window.code_lo));
      const auto past = hn::Set(d8, std::uint8_t(window.code_hi - window.code_lo + 1));
      in_window = hn::AllTrue(d8, hn::Lt(hn::Sub(lo, first), past)) && hn::AllTrue(d8, hn::Lt(hn::Sub(hi, first), past));
    }
  }
  ChunkScaleValues<kKind>(codes, in_window, s);
  return in_window;
}

// The sums of `count` rows of E2M1 codes (row p at codes + p * stride, n columns, two a
// byte, the low nibble first) continued in nibble lanes; sums holds
// ceil(n / 128) * 128 floats. The same steps as block_scaled_matvec-inl.h's
// AccumulateE2m1RowsOf: per column, in row order, MulAdd(x[p], value * scale, sum), or
// for E8M0 scales inside `window` the unscaled chain (the same bits).
template <ScaleKind kKind>
HWY_INLINE void AccumulateE2m1NibbleLanes(const float* HWY_RESTRICT x, const std::uint8_t* HWY_RESTRICT codes,
                                          std::size_t stride, std::size_t count, std::size_t n,
                                          const float* values16, const std::uint8_t* HWY_RESTRICT scale_codes,
                                          UnscaledChainWindow window, float* HWY_RESTRICT sums) {
  constexpr bool kScaled = kKind != ScaleKind::none;
  const DF df;
  const DU du;
  const hn::ScalableTag<std::uint8_t> d8;
  const VF table = hn::LoadU(df, values16);
  const VF one = hn::Set(df, 1.0f);
  const std::size_t bytes = (n + 1) / 2, chunks = (n + kNibbleChunkColumns - 1) / kNibbleChunkColumns;
  // Passes of 32 rows (an MX block, or two of NVFP4's, their scales decoded once) over
  // blocks of 64 chunks (4096 bytes of a row), whose sums (32 KiB) stay in L1 / L2 while
  // the rows stream past them. Plain E2M1 too: 16 rows a pass took 2.42-2.61 ms at
  // 8192 x 8192 on the Zen 4 EPYC, 32 rows 2.30-2.39 (sgemv 10.7-11.9).
  constexpr std::size_t kRows = 32, kBlockChunks = 64;
  for (std::size_t c0 = 0; c0 < chunks; c0 += kBlockChunks) {
    const std::size_t block_end = HWY_MIN(chunks, c0 + kBlockChunks);
    for (std::size_t p = 0; p < count; p += kRows) {
      const std::size_t rows = p + kRows <= count ? kRows : count - p;
      for (std::size_t c = c0; c < block_end; ++c) {
        const auto valid = hn::FirstN(d8, HWY_MIN(kNibbleChunkBytes, bytes - c * kNibbleChunkBytes));
        float* HWY_RESTRICT chunk_sums = sums + c * kNibbleChunkColumns;
        VF y[8], s[8];
        ForEachNibble([&](auto k) {
          y[k] = hn::LoadU(df, chunk_sums + k * kNibbleLanes);
          s[k] = one;
        });
        bool in_window = false;
        if constexpr (kScaled) {
          const std::size_t first = c * kNibbleChunkColumns;
          PrefetchNextScaleRow(scale_codes, first, kNibbleChunkColumns, n);
          in_window = NibbleLaneScales<kKind>(scale_codes + first, HWY_MIN(kNibbleChunkColumns, n - first), window, s);
        }
        const auto steps = [&](auto unscaled) {
          constexpr bool kWithScales = kScaled && !decltype(unscaled)::value;
          const std::uint8_t* HWY_RESTRICT at = codes + p * stride + c * kNibbleChunkBytes;
          for (std::size_t r = 0; r < rows; ++r, at += stride) {
            const VF activation = hn::Set(df, x[p + r]);
            // The next band's row at these columns (simd/prefetch.hpp says why).
            simd::detail::PrefetchIntoL2(at, rows * stride);
            const VU word = hn::BitCast(du, hn::MaskedLoad(valid, d8, at));
            ForEachNibble([&](auto k) {
              const VU index = k == 0 ? word : hn::ShiftRight<4 * k>(word);
              VF w = VF{_mm512_permutexvar_ps(index.raw, table.raw)};
              if constexpr (kWithScales) w = hn::Mul(w, s[k]);
              y[k] = hn::MulAdd(activation, w, y[k]);
            });
          }
        };
        bool unscaled = false;
        if constexpr (kKind == ScaleKind::e8m0) {
          // The unscaled chain where every lane of the chunk may take it.
          if (in_window) unscaled = UnscaledChunkSteps(y, s, [&] { steps(std::true_type()); });
        }
        if (!unscaled) steps(std::false_type());
        ForEachNibble([&](auto k) { hn::StoreU(y[k], df, chunk_sums + k * kNibbleLanes); });
      }
    }
  }
}

// y (n floats, column order) from the sums in nibble lanes.
HWY_INLINE void E2m1NibbleLaneSumsToColumns(const float* HWY_RESTRICT sums, std::size_t n, float* HWY_RESTRICT y) {
  for (std::size_t first = 0; first < n; first += kNibbleChunkColumns)
    for (std::size_t j = 0; j < kNibbleLanes; ++j)
      for (std::size_t k = 0; k < 8 && first + 8 * j + k < n; ++k)
        y[first + 8 * j + k] = sums[first + kNibbleLanes * k + j];
}

#else
#define SOFTFLOAT_E2M1_NIBBLE_LANES 0
#endif

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace softfloat::block_formats_detail
HWY_AFTER_NAMESPACE();

#endif  // SOFTFLOAT_BLOCK_FORMATS_E2M1_NIBBLE_LANES_INL_H_ toggle
