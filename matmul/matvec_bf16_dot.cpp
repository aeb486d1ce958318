// The pairs-of-products matrix-vector path (bf16_dot.hpp) for one-byte codes: y = x B
// with B decoded to bf16 inside the loop by byte-table lookups, so that a one-byte
// format reads a quarter of fp32's bytes and the decoding costs less than the reading.
//
// For 16 columns j of rows p and p + 1, one vpermt2b gathers the codes into 32-bit
// words [B[p][j], B[p][j], B[p+1][j], B[p+1][j]]; two more look up the low byte of each
// code's bf16 in the even bytes and the high byte in the odd bytes (128-entry tables
// indexed by the code's low 7 bits, which is every code of a format of up to 7 bits);
// bit 7 of an 8-bit code, its sign, is then copied to the sign of the bf16. The word
// is then the pair [bf16(B[p][j]), bf16(B[p+1][j])] that vdpbf16ps multiplies with the
// pair [x[p], x[p+1]] and adds to y[j].
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "matmul/bf16_dot.hpp"
#include "matmul/bf16_dot_target.hpp"


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

SOFTFLOAT_BF16_DOT_TARGET inline __m512i decode_pairs(__m512i row0, __m512i row1, __m512i gather, __m512i low0,
                                                     __m512i low1, __m512i high0, __m512i high1, __m512i sign) {
  constexpr __mmask64 kEven = 0x5555555555555555ull;
  constexpr __mmask64 kOdd = 0xAAAAAAAAAAAAAAAAull;
  const __m512i codes = _mm512_permutex2var_epi8(row0, gather, row1);
  const __m512i with_low = _mm512_mask2_permutex2var_epi8(low0, codes, kEven, low1);
  const __m512i both = _mm512_mask2_permutex2var_epi8(high0, with_low, kOdd, high1);
  return _mm512_ternarylogic_epi32(both, codes, sign, 0xF8);  // both | (codes & sign)
}

constexpr std::size_t kPrefetchAhead = 768;

// y[j0 .. j0 + 64) (fewer at the edge: `columns`) continued over pairs [t0, t0 + R) of
// rows; `mask` selects the columns.
template <int R>
SOFTFLOAT_BF16_DOT_TARGET inline void accumulate_chunk(const std::uint8_t* b, std::size_t ld, std::size_t k,
                                                      const std::uint32_t* x_pairs, std::size_t t0,
                                                      std::size_t j0, __mmask64 mask, const ByteTables& tables,
                                                      float* y) {
  const __m512i low0 = _mm512_load_si512(tables.low), low1 = _mm512_load_si512(tables.low + 64);
  const __m512i high0 = _mm512_load_si512(tables.high), high1 = _mm512_load_si512(tables.high + 64);
  const __m512i sign = _mm512_set1_epi32(int(std::uint32_t(tables.sign_bit) * 0x01000100u));
  // Word d of gather[q] holds the byte indices [c, c, 64 + c, 64 + c] of column
  // c = 16q + d in row p (the first source) and row p + 1 (the second).
  __m512i gather[4];
  for (int q = 0; q < 4; ++q) {
    const __m512i column = _mm512_add_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                            _mm512_set1_epi32(16 * q));
    gather[q] = _mm512_or_si512(_mm512_mullo_epi32(column, _mm512_set1_epi32(0x00000101)),
                                _mm512_mullo_epi32(_mm512_add_epi32(column, _mm512_set1_epi32(64)),
                                                   _mm512_set1_epi32(0x01010000)));
  }
  __m512 sum[4];
  for (int q = 0; q < 4; ++q) sum[q] = _mm512_maskz_loadu_ps(__mmask16(mask >> (16 * q)), y + j0 + 16 * q);
  for (int r = 0; r < R; ++r) {
    const std::size_t p = 2 * (t0 + std::size_t(r));
    _mm_prefetch(reinterpret_cast<const char*>(b + p * ld + j0 + kPrefetchAhead), _MM_HINT_T1);
    if (p + 1 < k) _mm_prefetch(reinterpret_cast<const char*>(b + (p + 1) * ld + j0 + kPrefetchAhead), _MM_HINT_T1);
    const __m512i row0 = _mm512_maskz_loadu_epi8(mask, b + p * ld + j0);
    const __m512i row1 = p + 1 < k ? _mm512_maskz_loadu_epi8(mask, b + (p + 1) * ld + j0) : _mm512_setzero_si512();
    const __m512bh x = (__m512bh)_mm512_set1_epi32(int(x_pairs[t0 + std::size_t(r)]));
    for (int q = 0; q < 4; ++q) {
      const __m512i pairs = decode_pairs(row0, row1, gather[q], low0, low1, high0, high1, sign);
      sum[q] = _mm512_dpbf16_ps(sum[q], (__m512bh)pairs, x);
    }
  }
  for (int q = 0; q < 4; ++q) _mm512_mask_storeu_ps(y + j0 + 16 * q, __mmask16(mask >> (16 * q)), sum[q]);
}

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
        accumulate_chunk<kPairsPerPass>(b, ld, k, x_pairs, t, j0, mask, tables, y);
      } else {
        accumulate_chunk<1>(b, ld, k, x_pairs, t, j0, mask, tables, y);
      }
    }
    t += whole ? kPairsPerPass : 1;
  }
}

}  // namespace

bool matvec_bf16_dot_applies(const float table[256]) {
  ByteTables tables;
  return make_tables(table, tables);
}

bool matvec_bf16_dot(const float* x, const CodeMatrix& b, const float table[256], float* y, std::size_t n,
                     std::size_t k) {
  ByteTables tables;
  if (!make_tables(table, tables)) return false;
  const std::size_t pairs = (k + 1) / 2;
  std::vector<std::uint32_t> x_pairs(pairs);
  for (std::size_t t = 0; t < pairs; ++t) {
    const float high = 2 * t + 1 < k ? x[2 * t + 1] : 0.0f;
    x_pairs[t] = (std::bit_cast<std::uint32_t>(x[2 * t]) >> 16) | (std::bit_cast<std::uint32_t>(high) & 0xFFFF0000u);
  }
  std::fill(y, y + n, 0.0f);
  matvec_kernel(b.row_codes(0), b.ld(), k, n, x_pairs.data(), tables, y);
  return true;
}

#else

bool matvec_bf16_dot_applies(const float*) { return false; }

bool matvec_bf16_dot(const float*, const CodeMatrix&, const float*, float*, std::size_t, std::size_t) {
  return false;
}

#endif

}  // namespace softfloat::matmul_detail
