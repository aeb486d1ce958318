// The E2M1 rows of the block-scaled matrix-vector product on AVX2
// (block_scaled_matvec-inl.h has the targets other than AVX2 and AVX-512): each code
// looked up as the two top bytes of its fp32 value by vpshufb, the running sums kept in
// the lanes where byte unpacks leave those values, so that no code is widened and no
// lane is permuted.
//
// Every E2M1 value is a bf16 value: its fp32 bits are two bytes, hi << 24 | lo << 16
// (1.5 = 0x3FC00000: hi 0x3F, lo 0xC0). vpshufb looks up 32 bytes by their low 4 bits
// in one instruction, so one table of the 16 codes' hi bytes and one of their lo bytes
// decode 32 codes; the byte unpacks interleave lo and hi into 16-bit words, the bf16
// codes, and a word becomes fp32 by a shift left by 16 (the low word of a 32-bit lane)
// or an AND with 0xFFFF0000 (the high word). Per 32 bytes of a row, 64 weights: one
// load, 3 operations for the nibbles, 4 lookups, 4 unpacks, 8 shifts or ANDs and 8
// fused multiply-adds. The widening kernel it replaces took 4 widenings (vpmovsxbd),
// 8 vpermps, 16 shifts, ANDs and ORs for the signs and the 8 FMAs. On the Zen 3 EPYC
// (2.97 GHz), with the codes in L1: 0.049 against 0.088-0.093 ns a weight.
//
// Layout. A chunk of 64 columns (32 bytes of a row, byte b holding columns 2b and
// 2b + 1 in its low and high nibble) is 8 vectors of sums: vector q, lane l holds the
// column ByteLaneColumn(q, l) = 2b + (q >> 2), b = 8 ((q >> 1) & 1) + 16 (l >> 2) +
// 2 (l & 3) + (q & 1). q >> 2 is the nibble; vpunpcklbw takes bytes 0-7 of each 128-bit
// half and vpunpckhbw bytes 8-15 (bit 1 of q); a 32-bit lane holds two words, the even
// byte's in its low half (bit 0 of q). Worked value: q = 5, l = 6: nibble 1 (high),
// b = 0 + 16 + 4 + 1 = 21, column 43.
// E2m1ByteLaneSumsToColumns puts the sums back into column order, once per product.
//
// Scales (NVFP4's E4M3, MX's E8M0) are put in the same lanes once per chunk and pass of
// rows, by the same unpacks of their codes; MX's power-of-two scales may divide the sums
// where a block starts and multiply them where it ends instead (unscaled_chain.hpp).

#if defined(SOFTFLOAT_BLOCK_FORMATS_E2M1_BYTE_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_BLOCK_FORMATS_E2M1_BYTE_LANES_INL_H_
#undef SOFTFLOAT_BLOCK_FORMATS_E2M1_BYTE_LANES_INL_H_
#else
#define SOFTFLOAT_BLOCK_FORMATS_E2M1_BYTE_LANES_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "block_formats/block_scales-inl.h"
#include "block_formats/unscaled_chain.hpp"
#include "simd/prefetch.hpp"

HWY_BEFORE_NAMESPACE();
namespace softfloat::block_formats_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether this target keeps E2M1 sums in byte lanes: x86 with AVX2 (AVX-512 keeps them
// in nibble lanes, e2m1_nibble_lanes-inl.h).
#if HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
#define SOFTFLOAT_E2M1_BYTE_LANES 1

constexpr std::size_t kByteChunkColumns = 64, kByteChunkBytes = 32;
static_assert(hn::MaxLanes(DF()) == 8, "a chunk is 8 vectors of 8 sums");

// The column of chunk lane l of sum vector q (see the top of the file).
constexpr std::size_t ByteLaneColumn(std::size_t q, std::size_t l) {
  return 2 * (8 * ((q >> 1) & 1) + 16 * (l >> 2) + 2 * (l & 3) + (q & 1)) + (q >> 2);
}

// The four vectors of 32-bit lanes that the byte unpacks make of 32 bytes of low
// halves `lo` and high halves `hi`: out[0] and out[1] the low and high words of
// vpunpcklbw(lo, hi), out[2] and out[3] those of vpunpckhbw, each in a lane's top 16 bits.
HWY_INLINE void UnpackedWordsOnTop(__m256i lo, __m256i hi, __m256i (&out)[4]) {
  const __m256i low_words = _mm256_unpacklo_epi8(lo, hi), high_words = _mm256_unpackhi_epi8(lo, hi);
  const __m256i top = _mm256_set1_epi32(static_cast<int>(0xFFFF0000u));
  out[0] = _mm256_slli_epi32(low_words, 16);
  out[1] = _mm256_and_si256(low_words, top);
  out[2] = _mm256_slli_epi32(high_words, 16);
  out[3] = _mm256_and_si256(high_words, top);
}

// The byte tables of the 16 values: hi (bits 24-31) and lo (bits 16-23), in both
// 128-bit halves, as vpshufb reads them. The values' low 16 bits are zero: E2M1's
// mantissa has one bit and its exponents lie within bf16's.
struct E2m1ByteTables {
  __m256i hi, lo;
};
HWY_INLINE E2m1ByteTables MakeE2m1ByteTables(const float* values16) {
  alignas(32) std::uint8_t hi[32], lo[32];
  for (std::size_t c = 0; c < 16; ++c) {
    std::uint32_t bits;
    std::memcpy(&bits, values16 + c, sizeof(bits));
    hi[c] = hi[c + 16] = std::uint8_t(bits >> 24);
    lo[c] = lo[c + 16] = std::uint8_t(bits >> 16);
  }
  return {_mm256_load_si256(reinterpret_cast<const __m256i*>(hi)),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(lo))};
}

// The 64 weights of 32 code bytes in byte lanes: w[q] as the chunk's sums hold them.
HWY_INLINE void E2m1ByteLaneValues(const E2m1ByteTables& t, __m256i bytes, VF (&w)[8]) {
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const __m256i low = _mm256_and_si256(bytes, nibble);
  // A 16-bit shift carries the next byte's low bits into bits 4-7: the AND drops them.
  const __m256i high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), nibble);
  __m256i words[4];
  UnpackedWordsOnTop(_mm256_shuffle_epi8(t.lo, low), _mm256_shuffle_epi8(t.hi, low), words);
  for (int q = 0; q < 4; ++q) w[q] = VF{_mm256_castsi256_ps(words[q])};
  UnpackedWordsOnTop(_mm256_shuffle_epi8(t.lo, high), _mm256_shuffle_epi8(t.hi, high), words);
  for (int q = 0; q < 4; ++q) w[4 + q] = VF{_mm256_castsi256_ps(words[q])};
}

// The scales of a chunk's columns in byte lanes: s[q] lane l scales column
// ByteLaneColumn(q, l). scale_codes: the chunk's codes in column order, `columns` of
// them (1 .. 64); the lanes past them take the code of 1 (E8M0 127, E4M3 0x38). True
// where the scales are E8M0 and every code lies in `window`: then each value's bits
// are its code shifted up by 23, and the unscaled chain needs no test of the window per
// lane (e2m1_nibble_lanes-inl.h's NibbleLaneScales says why).
template <ScaleKind kKind>
HWY_INLINE bool ByteLaneScales(const std::uint8_t* HWY_RESTRICT scale_codes, std::size_t columns,
                               UnscaledChainWindow window, VF (&s)[8]) {
  const DU du;
  alignas(32) std::uint8_t padded[kByteChunkColumns];
  if (columns < kByteChunkColumns) {
    std::memset(padded, kKind == ScaleKind::e4m3 ? 0x38 : 127, sizeof(padded));
    std::memcpy(padded, scale_codes, columns);
    scale_codes = padded;
  }
  // The even columns' codes (column 2b, byte b of `even`) and the odd columns', in byte
  // order: vpackuswb packs 128-bit halves in turn (a0 b0 a1 b1), vpermq puts a1 before b0.
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(scale_codes));
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(scale_codes + 32));
  const __m256i low_bytes = _mm256_set1_epi16(0xFF);
  const __m256i even = _mm256_permute4x64_epi64(
      _mm256_packus_epi16(_mm256_and_si256(a, low_bytes), _mm256_and_si256(b, low_bytes)), 0xD8);
  const __m256i odd =
      _mm256_permute4x64_epi64(_mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8)), 0xD8);
  // The codes unpacked as the weights' bytes are, as the low bytes of words whose high
  // bytes are zero: each lane's code lands in bits 16-23, and a shift down leaves it alone.
  VU codes[8];
  __m256i words[4];
  UnpackedWordsOnTop(even, _mm256_setzero_si256(), words);
  for (int q = 0; q < 4; ++q) codes[q] = hn::ShiftRight<16>(VU{words[q]});
  UnpackedWordsOnTop(odd, _mm256_setzero_si256(), words);
  for (int q = 0; q < 4; ++q) codes[4 + q] = hn::ShiftRight<16>(VU{words[q]});
  bool in_window = false;
  if constexpr (kKind == ScaleKind::e8m0) {
    if (!window.empty()) {
      const VU first = hn::Set(du, window.code_lo), past = hn::Set(du, window.code_hi - window.code_lo + 1);
      auto inside = hn::Lt(hn::Sub(codes[0], first), past);
      for (int q = 1; q < 8; ++q) inside = hn::And(inside, hn::Lt(hn::Sub(codes[q], first), past));
      in_window = hn::AllTrue(du, inside);
    }
  }
  ChunkScaleValues<kKind>(codes, in_window, s);
  return in_window;
}

// The sums of `count` rows of E2M1 codes (row p at codes + p * stride, n columns, two a
// byte, the low nibble first) continued in byte lanes; sums holds ceil(n / 64) * 64
// floats. The same steps as block_scaled_matvec-inl.h's AccumulateE2m1RowsOf: per
// column, in row order, MulAdd(x[p], value * scale, sum), or for E8M0 scales inside
// `window` the unscaled chain (the same bits).
template <ScaleKind kKind>
HWY_INLINE void AccumulateE2m1ByteLanes(const float* HWY_RESTRICT x, const std::uint8_t* HWY_RESTRICT codes,
                                        std::size_t stride, std::size_t count, std::size_t n,
                                        const float* values16, const std::uint8_t* HWY_RESTRICT scale_codes,
                                        UnscaledChainWindow window, float* HWY_RESTRICT sums) {
  constexpr bool kScaled = kKind != ScaleKind::none;
  const DF df;
  const E2m1ByteTables tables = MakeE2m1ByteTables(values16);
  const VF one = hn::Set(df, 1.0f);
  const std::size_t bytes = (n + 1) / 2, chunks = (n + kByteChunkColumns - 1) / kByteChunkColumns;
  // Passes of 16 rows over blocks of 128 chunks (4096 bytes of a row), whose sums
  // (32 KiB) stay in L1 / L2 while the rows stream past them. On the Zen 3 EPYC, E2M1
  // at 8192 x 8192 (a loop outside the library): 16 rows 4.0-4.1 ms, 32 rows 5.1, and
  // a prefetch of the next band 16 rows ahead 4.3.
  constexpr std::size_t kRows = 16, kBlockChunks = 128;
  for (std::size_t c0 = 0; c0 < chunks; c0 += kBlockChunks) {
    const std::size_t block_end = HWY_MIN(chunks, c0 + kBlockChunks);
    for (std::size_t p = 0; p < count; p += kRows) {
      const std::size_t rows = p + kRows <= count ? kRows : count - p;
      for (std::size_t c = c0; c < block_end; ++c) {
        const std::size_t valid = HWY_MIN(kByteChunkBytes, bytes - c * kByteChunkBytes);
        float* HWY_RESTRICT chunk_sums = sums + c * kByteChunkColumns;
        VF y[8], s[8];
        for (int q = 0; q < 8; ++q) {
          y[q] = hn::LoadU(df, chunk_sums + q * 8);
          s[q] = one;
        }
        bool in_window = false;
        if constexpr (kScaled) {
          const std::size_t first = c * kByteChunkColumns;
          PrefetchNextScaleRow(scale_codes, first, kByteChunkColumns, n);
          in_window = ByteLaneScales<kKind>(scale_codes + first, HWY_MIN(kByteChunkColumns, n - first), window, s);
        }
        const auto steps = [&](auto unscaled) {
          constexpr bool kWithScales = kScaled && !decltype(unscaled)::value;
          const std::uint8_t* HWY_RESTRICT at = codes + p * stride + c * kByteChunkBytes;
          alignas(32) std::uint8_t tail[kByteChunkBytes] = {};
          for (std::size_t r = 0; r < rows; ++r, at += stride) {
            const VF activation = hn::Set(df, x[p + r]);
            __m256i row_bytes;
            if (HWY_LIKELY(valid == kByteChunkBytes)) {
              row_bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
            } else {  // the row's last chunk: nothing past its end is read
              std::memcpy(tail, at, valid);
              row_bytes = _mm256_load_si256(reinterpret_cast<const __m256i*>(tail));
            }
            VF w[8];
            E2m1ByteLaneValues(tables, row_bytes, w);
            for (int q = 0; q < 8; ++q) {
              if constexpr (kWithScales) w[q] = hn::Mul(w[q], s[q]);
              y[q] = hn::MulAdd(activation, w[q], y[q]);
            }
          }
        };
        bool unscaled = false;
        if constexpr (kKind == ScaleKind::e8m0) {
          // The unscaled chain where every lane of the chunk may take it.
          if (in_window) unscaled = UnscaledChunkSteps(y, s, [&] { steps(std::true_type()); });
        }
        if (!unscaled) steps(std::false_type());
        for (int q = 0; q < 8; ++q) hn::StoreU(y[q], df, chunk_sums + q * 8);
      }
    }
  }
}

// y (n floats, column order) from the sums in byte lanes.
HWY_INLINE void E2m1ByteLaneSumsToColumns(const float* HWY_RESTRICT sums, std::size_t n, float* HWY_RESTRICT y) {
  for (std::size_t first = 0; first < n; first += kByteChunkColumns)
    for (std::size_t q = 0; q < 8; ++q)
      for (std::size_t l = 0; l < 8; ++l) {
        const std::size_t column = first + ByteLaneColumn(q, l);
        if (column < n) y[column] = sums[first + 8 * q + l];
      }
}

#else
#define SOFTFLOAT_E2M1_BYTE_LANES 0
#endif

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace softfloat::block_formats_detail
HWY_AFTER_NAMESPACE();

#endif  // SOFTFLOAT_BLOCK_FORMATS_E2M1_BYTE_LANES_INL_H_ toggle
