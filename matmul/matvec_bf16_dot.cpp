// The pairs-of-products matrix-vector path (bf16_dot.hpp) for one-byte codes: y = x B
// with B decoded to bf16 inside the loop by byte-table lookups, so that a one-byte
// format reads a quarter of fp32's bytes and the decoding costs less than the reading.
//
// For 64 columns of rows p and p + 1, two vpunpck*bw interleave the rows into 16-bit
// words [B[p][j], B[p+1][j]]; in each of these two vectors one vpermt2b looks up the
// low byte of every code's bf16 and another its high byte (128-entry tables indexed by
// the code's low 7 bits, which is every code of a format of up to 7 bits), and bit 7
// of an 8-bit code, its sign, is copied to the high byte. Two more vpunpck*bw
// interleave low and high bytes into 32-bit words [bf16(B[p][j]), bf16(B[p+1][j])],
// the pairs that vdpbf16ps multiplies with [x[p], x[p+1]] and adds to y[j]: twelve
// instructions decode 128 codes. The unpacks work within 128-bit lanes, so the four
// sum vectors hold the columns in a transposed order (see `interleaved_column`); y is
// summed in that order in a buffer and put back in order at the end.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "matmul/bf16_dot.hpp"
#include "matmul/bf16_dot_target.hpp"
#include "matmul/byte_decode.hpp"
#include "matmul/kernel_rule.hpp"
#include "runtime/remembered.hpp"


namespace softfloat::matmul_detail {

#if SOFTFLOAT_HAVE_BF16_DOT
namespace {

// The decoding tables: byte i of lookup[0..1] is the low byte of the bf16 of code i
// (i < 128), of lookup[2..3] its high byte; sign_bit is 0x80 when bit 7 of a code is
// its sign (value(c | 0x80) = -value(c)), 0 when the value ignores bit 7.
struct ByteTables {
  alignas(64) std::uint8_t low[128];
  alignas(64) std::uint8_t high[128];
  std::uint8_t sign_bit;
};

bool make_tables(const float table[256], ByteTables& tables) {
  bool bit7_is_sign = true, bit7_ignored = true;
  for (int c = 0; c < 128; ++c) {
    const std::uint32_t value = std::bit_cast<std::uint32_t>(table[c]);
    const std::uint32_t with_bit7 = std::bit_cast<std::uint32_t>(table[c | 0x80]);
    const bool both_nan = table[c] != table[c] && table[c | 0x80] != table[c | 0x80];
    if (!(with_bit7 == (value ^ 0x80000000u) || (both_nan && (with_bit7 >> 31) != (value >> 31))))
      bit7_is_sign = false;
    if (with_bit7 != value) bit7_ignored = false;
    if ((value & 0xFFFF) != 0) return false;  // not a bf16 value
    tables.low[c] = std::uint8_t(value >> 16);
    tables.high[c] = std::uint8_t(value >> 24);
    // With the sign copied from bit 7, a code below 128 must be nonnegative.
    if (bit7_is_sign && (value >> 31) != 0) bit7_is_sign = false;
  }
  if (bit7_is_sign) {
    tables.sign_bit = 0x80;
    return true;
  }
  tables.sign_bit = 0;
  return bit7_ignored;
}

// Sum vector q, 128-bit lane l, 32-bit word d holds column 16 l + 4 q + d of a block
// of 64; it is kept at 16 q + 4 l + d. The map swaps q and l, so it is its own inverse.
constexpr std::size_t interleaved_column(std::size_t c) {
  return (c & ~std::size_t{63}) | (c & 3) | ((c >> 2) & 3) << 4 | ((c >> 4) & 3) << 2;
}

// The two vectors of pairs [bf16(B[p][j]), bf16(B[p+1][j])] of the 16-bit words
// `codes` = [B[p][j], B[p+1][j]].
SOFTFLOAT_BF16_DOT_TARGET inline void decode_pairs(__m512i codes, __m512i low0, __m512i low1, __m512i high0,
                                                   __m512i high1, __m512i sign, __m512i& first, __m512i& second) {
  const __m512i low = _mm512_permutex2var_epi8(low0, codes, low1);
  const __m512i high = _mm512_ternarylogic_epi32(_mm512_permutex2var_epi8(high0, codes, high1), codes, sign,
                                                 0xF8);  // high | (codes & sign)
  first = _mm512_unpacklo_epi8(low, high);
  second = _mm512_unpackhi_epi8(low, high);
}

// How far ahead each row is prefetched where kernel_rule.hpp's matvec_pairs_prefetch
// asks for it.
constexpr std::size_t kPrefetchAhead = 768;

// y[j0 .. j0 + 64) (in interleaved order, see above) continued over pairs [t0, t0 + R)
// of rows; `mask` selects the columns of B that exist.
template <int R, bool kPrefetch>
SOFTFLOAT_BF16_DOT_TARGET inline void accumulate_chunk(const std::uint8_t* b, std::size_t ld, std::size_t k,
                                                      const std::uint32_t* x_pairs, std::size_t t0,
                                                      std::size_t j0, __mmask64 mask, const ByteTables& tables,
                                                      float* y) {
  const __m512i low0 = _mm512_load_si512(tables.low), low1 = _mm512_load_si512(tables.low + 64);
  const __m512i high0 = _mm512_load_si512(tables.high), high1 = _mm512_load_si512(tables.high + 64);
  const __m512i sign = _mm512_set1_epi8(char(tables.sign_bit));
  __m512 sum[4];
  for (int q = 0; q < 4; ++q) sum[q] = _mm512_loadu_ps(y + j0 + 16 * q);
  for (int r = 0; r < R; ++r) {
    const std::size_t p = 2 * (t0 + std::size_t(r));
    if constexpr (kPrefetch) {
      _mm_prefetch(reinterpret_cast<const char*>(b + p * ld + j0 + kPrefetchAhead), _MM_HINT_T1);
      if (p + 1 < k) _mm_prefetch(reinterpret_cast<const char*>(b + (p + 1) * ld + j0 + kPrefetchAhead), _MM_HINT_T1);
    }
    const __m512i row0 = _mm512_maskz_loadu_epi8(mask, b + p * ld + j0);
    const __m512i row1 = p + 1 < k ? _mm512_maskz_loadu_epi8(mask, b + (p + 1) * ld + j0) : _mm512_setzero_si512();
    const __m512bh x = (__m512bh)_mm512_set1_epi32(int(x_pairs[t0 + std::size_t(r)]));
    __m512i pairs[4];
    decode_pairs(_mm512_unpacklo_epi8(row0, row1), low0, low1, high0, high1, sign, pairs[0], pairs[1]);
    decode_pairs(_mm512_unpackhi_epi8(row0, row1), low0, low1, high0, high1, sign, pairs[2], pairs[3]);
    for (int q = 0; q < 4; ++q) sum[q] = _mm512_dpbf16_ps(sum[q], (__m512bh)pairs[q], x);
  }
  for (int q = 0; q < 4; ++q) _mm512_storeu_ps(y + j0 + 16 * q, sum[q]);
}

// y (n rounded up to 64 floats, interleaved order) = x B.
template <bool kPrefetch>
SOFTFLOAT_BF16_DOT_TARGET void matvec_kernel(const std::uint8_t* b, std::size_t ld, std::size_t k, std::size_t n,
                                             const std::uint32_t* x_pairs, const ByteTables& tables, float* y) {
  // Eight rows (four pairs) per pass over y: each running sum is loaded and stored
  // once per eight rows, and the passes read B row after row, as the prefetchers like.
  constexpr int kPairsPerPass = 4;
  const std::size_t pairs = (k + 1) / 2;
  for (std::size_t t = 0; t < pairs;) {
    const bool whole = t + kPairsPerPass <= pairs;
    for (std::size_t j0 = 0; j0 < n; j0 += 64) {
      const std::size_t width = n - j0 < 64 ? n - j0 : 64;
      const __mmask64 mask = width == 64 ? ~__mmask64{0} : (__mmask64{1} << width) - 1;
      if (whole) {
        accumulate_chunk<kPairsPerPass, kPrefetch>(b, ld, k, x_pairs, t, j0, mask, tables, y);
      } else {
        accumulate_chunk<1, kPrefetch>(b, ld, k, x_pairs, t, j0, mask, tables, y);
      }
    }
    t += whole ? kPairsPerPass : 1;
  }
}

// A format's byte tables, and whether the pairs loop applies to it.
struct FormatTables {
  bool applies = false;
  ByteTables tables{};
};
const FormatTables& tables_for(const Format& format) {
  thread_local detail::Remembered<Format, FormatTables, 4> remembered;
  return remembered.get(format, [&] {
    FormatTables made;
    made.applies = make_tables(byte_code_rules(format).table, made.tables);
    return made;
  });
}

}  // namespace

bool matvec_bf16_dot_applies(const Format& format) { return tables_for(format).applies; }

bool matvec_bf16_dot(const float* x, const CodeMatrix& b, float* y, std::size_t n, std::size_t k) {
  const FormatTables& made = tables_for(b.format());
  if (!made.applies) return false;
  const ByteTables& tables = made.tables;
  const std::size_t pairs = (k + 1) / 2;
  std::vector<std::uint32_t> x_pairs(pairs);
  for (std::size_t t = 0; t < pairs; ++t) {
    const float high = 2 * t + 1 < k ? x[2 * t + 1] : 0.0f;
    x_pairs[t] = (std::bit_cast<std::uint32_t>(x[2 * t]) >> 16) | (std::bit_cast<std::uint32_t>(high) & 0xFFFF0000u);
  }
  std::vector<float> interleaved((n + 63) / 64 * 64, 0.0f);
  if (matvec_pairs_prefetch(detail::cpu_features()))
    matvec_kernel<true>(b.row_codes(0), b.ld(), k, n, x_pairs.data(), tables, interleaved.data());
  else
    matvec_kernel<false>(b.row_codes(0), b.ld(), k, n, x_pairs.data(), tables, interleaved.data());
  for (std::size_t j = 0; j < n; ++j) y[j] = interleaved[interleaved_column(j)];
  return true;
}

#else

bool matvec_bf16_dot_applies(const Format&) { return false; }

bool matvec_bf16_dot(const float*, const CodeMatrix&, float*, std::size_t, std::size_t) { return false; }

#endif

}  // namespace softfloat::matmul_detail
