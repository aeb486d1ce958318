// The tile GEMM (amx_gemm.hpp): the loop nest of loop_nest.hpp over A and B decoded
// to bf16 once per block into the layout TDPBF16PS reads, and a micro-kernel holding a
// 32 x 32 block of C in four fp32 tiles.
//
// Packed layouts, in 1 KiB tiles of 16 rows of 64 bytes, one tile per 32 depth steps
// (a step s of the block):
//   A sliver (32 rows): for its first 16 rows, then its last 16, the tiles of steps
//      0, 1, ...; row r of a tile holds row r's bf16 values of depth 32 s .. 32 s + 31.
//   B sliver (32 columns): for its first 16 columns, then its last 16, the tiles of
//      steps 0, 1, ...; row t of a tile holds, for each of the 16 columns, the bf16
//      values of depth 32 s + 2t and 32 s + 2t + 1 side by side (the pairs of
//      vdpbf16ps).
// An operand split into P bf16 pieces (amx_gemm.hpp) has P tiles per step, those of
// step s at s * P + 0 .. s * P + P - 1, piece by piece.
// Zeros pad rows, columns and depth to whole tiles; 0 * 0 adds nothing (the padded
// rows and columns of C are never stored).
//
// What TDPBF16PS computes (Intel's definition, and checked bit for bit by
// verify/matmul/amx_tiles_test.cpp against fp32 arithmetic): for each element of C
// and each block of 32 depth steps, two fp32 sums start from +0, one over the products
// of the even steps and one over the odd steps, each in k order with one rounding to
// nearest even per addition; their sum, rounded, is added to C, rounded. Inputs that
// are bf16 subnormals read as zero and subnormal results are flushed to zero, which
// the pairs rule (bf16_dot.hpp) excludes, as it excludes overflow.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "matmul/amx_gemm.hpp"
#include "matmul/amx_tiles.hpp"
#include "softfloat/named_formats.hpp"

namespace softfloat::matmul_detail {

LoopNestShape gemm_amx_shape(int a_pieces, int b_pieces) {
  LoopNestShape shape{2 * kTileRows, 2 * kTileRows, 512};
  shape.depth_step = 32;      // one tile row of bf16 values
  shape.values_per_word = 2;  // one pair per word
  shape.block_rows = 64;
  shape.panel_columns = 1024;
  shape.a_pieces = std::size_t(a_pieces);
  shape.b_pieces = std::size_t(b_pieces);
  return shape;
}

#if SOFTFLOAT_HAVE_AMX
namespace {

constexpr std::size_t kStep = 32;                        // depth steps a tile holds
constexpr std::size_t kTileValues = kTileRows * kStep;   // bf16 values a tile holds
constexpr std::size_t kBlock = 2 * kTileRows;            // rows and columns of C a micro-kernel computes

// The packing runs only where the tiles do, so on a CPU with AVX-512 (every CPU with
// AMX has it).
#define SOFTFLOAT_AMX_PACKING_TARGET __attribute__((target("avx512f,avx512bw,avx512vl")))

// Runs of a code matrix as bf16 codes, for operands under the pairs rule (every finite
// value a bf16 value): one-byte codes through a 256-entry table of their bf16 codes
// (built once from the matrix's own decoding), BF16 codes as they are, any other
// format through its fp32 decoding.
class Bf16Decoder {
 public:
  explicit Bf16Decoder(const CodeMatrix& x) : x_(x), copy_(x.code_bytes() == 2 && x.format() == BF16::format) {
    if (x.code_bytes() == 1) {
      float values[256];
      x.decode_table(values);
      for (int c = 0; c < 256; ++c) table_[c] = std::uint16_t(std::bit_cast<std::uint32_t>(values[c]) >> 16);
    }
  }
  // out[0, count) = the bf16 codes of (row, column .. column + count - 1).
  void row(std::size_t row, std::size_t column, std::size_t count, std::uint16_t* out, float* scratch) const {
    const std::uint8_t* codes = x_.row_codes(row) + column * x_.code_bytes();
    if (x_.code_bytes() == 1) return look_up(codes, count, table_, out);
    if (copy_) {
      std::memcpy(out, codes, count * sizeof(std::uint16_t));
      return;
    }
    x_.decode_row(row, column, count, scratch);
    for (std::size_t i = 0; i < count; ++i) out[i] = std::uint16_t(std::bit_cast<std::uint32_t>(scratch[i]) >> 16);
  }
  // out[0, count) = the fp32 values of the same codes (for a split operand).
  void values(std::size_t row, std::size_t column, std::size_t count, float* out) const {
    x_.decode_row(row, column, count, out);
  }

 private:
  // Four two-register word permutes cover the 256 entries; bits 6 and 7 of each code
  // pick among them.
  SOFTFLOAT_AMX_PACKING_TARGET static void look_up(const std::uint8_t* codes, std::size_t count,
                                                    const std::uint16_t* table, std::uint16_t* out) {
    __m512i quarter[8];
    for (int q = 0; q < 8; ++q) quarter[q] = _mm512_loadu_si512(table + 32 * q);
    for (std::size_t i = 0; i < count; i += 32) {
      const __mmask32 valid = count - i >= 32 ? ~__mmask32{0} : (__mmask32{1} << (count - i)) - 1;
      const __m512i words = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(valid, codes + i));
      const __m512i from0 = _mm512_permutex2var_epi16(quarter[0], words, quarter[1]);
      const __m512i from64 = _mm512_permutex2var_epi16(quarter[2], words, quarter[3]);
      const __m512i from128 = _mm512_permutex2var_epi16(quarter[4], words, quarter[5]);
      const __m512i from192 = _mm512_permutex2var_epi16(quarter[6], words, quarter[7]);
      const __mmask32 bit6 = _mm512_test_epi16_mask(words, _mm512_set1_epi16(64));
      const __mmask32 bit7 = _mm512_test_epi16_mask(words, _mm512_set1_epi16(128));
      const __m512i below128 = _mm512_mask_blend_epi16(bit6, from0, from64);
      const __m512i above128 = _mm512_mask_blend_epi16(bit6, from128, from192);
      _mm512_mask_storeu_epi16(out + i, valid, _mm512_mask_blend_epi16(bit7, below128, above128));
    }
  }

  const CodeMatrix& x_;
  bool copy_;
  alignas(64) std::uint16_t table_[256] = {};
};

// pieces[j][0, count) = piece j (j < count_of_pieces) of each value (amx_gemm.hpp): the
// value's fp32 encoding cut to its high 16 bits, subtracted, and again. An infinity or
// a NaN (made quiet) goes whole into the first piece, zeros into the others.
SOFTFLOAT_AMX_PACKING_TARGET void split_into_pieces(const float* values, std::size_t count,
                                                    std::size_t count_of_pieces, std::uint16_t* const* pieces) {
  const __m512i high_half = _mm512_set1_epi32(int(0xFFFF0000u));
  const __m512i exponent = _mm512_set1_epi32(0x7F800000);
  const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF);
  const __m512 quiet_nan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000));
  for (std::size_t i = 0; i < count; i += 16) {
    const __mmask16 valid = count - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (count - i)) - 1);
    __m512 rest = _mm512_maskz_loadu_ps(valid, values + i);
    const __m512i bits = _mm512_castps_si512(rest);
    const __mmask16 finite = _mm512_cmpneq_epi32_mask(_mm512_and_si512(bits, exponent), exponent);
    const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(bits, magnitude), exponent);
    rest = _mm512_mask_mov_ps(rest, nan, quiet_nan);
    for (std::size_t j = 0; j < count_of_pieces; ++j) {
      const __m512i piece = _mm512_and_si512(_mm512_castps_si512(rest), high_half);
      // (The zero-masked forms: GCC 12 warns of the undefined vectors in the plain ones.)
      _mm512_mask_cvtepi32_storeu_epi16(pieces[j] + i, valid, _mm512_maskz_srli_epi32(valid, piece, 16));
      rest = _mm512_maskz_sub_ps(finite, rest, _mm512_castsi512_ps(piece));
    }
  }
}

// One tile row of B: the pair words of 16 columns, the bf16 of the even step in the
// low half, of the odd step in the high half.
SOFTFLOAT_AMX_PACKING_TARGET void store_pair_row(const std::uint16_t* even, const std::uint16_t* odd,
                                                 std::uint16_t* out) {
  const __m512i interleave = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8, 39, 7,
                                              38, 6, 37, 5, 36, 4, 35, 3, 34, 2, 33, 1, 32, 0);
  const __m512i evens = _mm512_maskz_loadu_epi16(0xFFFF, even);  // 16 words, zeros above
  const __m512i odds = _mm512_maskz_loadu_epi16(0xFFFF, odd);
  _mm512_storeu_si512(out, _mm512_permutex2var_epi16(evens, interleave, odds));
}

// The packer of loop_nest.hpp for the layouts above; words are bf16 pairs.
class TilePacker {
 public:
  using Word = std::uint32_t;
  TilePacker(const CodeMatrix& a, const CodeMatrix& b, const LoopNestShape& shape, std::size_t n, std::size_t k)
      : a_(a), b_(b), a_pieces_(shape.a_pieces), b_pieces_(shape.b_pieces),
        length_(std::max(shape.packed_depth(std::min(k, shape.depth_block)) * 2,
                         std::min(shape.panel_columns, round_up_to_multiple(n, kBlock)))),
        rows_(2 * std::max(a_pieces_, b_pieces_) * length_), scratch_(length_) {}

  void pack_a(const NestBlock& block, Word* packed) {
    std::uint16_t* tiles = reinterpret_cast<std::uint16_t*>(packed);
    const std::size_t steps = steps_of(block.depth);
    for (std::size_t r = 0; r < round_up_to_multiple(block.rows, kBlock); ++r) {
      std::uint16_t* tile_row = tiles + (r / kTileRows) * steps * a_pieces_ * kTileValues + (r % kTileRows) * kStep;
      const std::size_t valid = r < block.rows ? block.depth : 0;
      fill(a_, a_pieces_, block.row0 + r, block.depth0, valid, steps * kStep, 0);
      for (std::size_t s = 0; s < steps; ++s)
        for (std::size_t j = 0; j < a_pieces_; ++j)
          std::memcpy(tile_row + (s * a_pieces_ + j) * kTileValues, piece(0, j) + s * kStep,
                      kStep * sizeof(std::uint16_t));
    }
  }

  void pack_b(const NestBlock& block, Word* packed) {
    std::uint16_t* tiles = reinterpret_cast<std::uint16_t*>(packed);
    const std::size_t steps = steps_of(block.depth);
    const std::size_t columns = round_up_to_multiple(block.columns, kBlock);
    const auto fill_row = [&](std::size_t p, std::size_t parity) {
      fill(b_, b_pieces_, block.depth0 + p, block.column0, p < block.depth ? block.columns : 0, columns, parity);
    };
    for (std::size_t t = 0; t < steps * kTileRows; ++t) {
      fill_row(2 * t, 0);
      fill_row(2 * t + 1, 1);
      for (std::size_t j = 0; j < b_pieces_; ++j) {
        std::uint16_t* out = tiles + ((t / kTileRows) * b_pieces_ + j) * kTileValues + (t % kTileRows) * kStep;
        for (std::size_t g = 0; g < columns / kTileRows; ++g)
          store_pair_row(piece(0, j) + g * kTileRows, piece(1, j) + g * kTileRows,
                         out + g * steps * b_pieces_ * kTileValues);
      }
    }
  }

 private:
  static std::size_t steps_of(std::size_t depth) { return round_up_to_multiple(depth, kStep) / kStep; }
  // Row buffer `slot` (0, or 1 for B's odd depth) of piece j.
  std::uint16_t* piece(std::size_t slot, std::size_t j) { return rows_.data() + (2 * j + slot) * length_; }
  // The pieces of values (row, column .. column + valid - 1) of x into slot's buffers,
  // zeros after them up to `padded`.
  void fill(const Bf16Decoder& x, std::size_t pieces, std::size_t row, std::size_t column, std::size_t valid,
            std::size_t padded, std::size_t slot) {
    if (valid > 0) {
      if (pieces == 1) {
        x.row(row, column, valid, piece(slot, 0), scratch_.data());
      } else {
        std::uint16_t* out[3] = {piece(slot, 0), piece(slot, 1), piece(slot, std::min<std::size_t>(2, pieces - 1))};
        x.values(row, column, valid, scratch_.data());
        split_into_pieces(scratch_.data(), valid, pieces, out);
      }
    }
    for (std::size_t j = 0; j < pieces; ++j) std::fill(piece(slot, j) + valid, piece(slot, j) + padded, std::uint16_t{0});
  }

  Bf16Decoder a_, b_;
  std::size_t a_pieces_, b_pieces_;
  std::size_t length_;               // the longest row a buffer holds
  std::vector<std::uint16_t> rows_;  // for each piece, a padded row of A, or two of B
  std::vector<float> scratch_;
};

// The 32 x 32 block of C at c (row stride ldc): continue_sums ? c : +0, then each
// depth step's tile products, piece by piece where an operand is split (the other
// operand's tiles loaded once per step). a and b: the slivers, words = 16 per step, row
// and piece.
struct TileMicroKernel {
  std::size_t a_pieces = 1, b_pieces = 1;

  SOFTFLOAT_AMX_TARGET void operator()(std::size_t words, const std::uint32_t* a_words,
                                       const std::uint32_t* b_words, float* c, std::size_t ldc,
                                       bool continue_sums) const {
    const std::size_t steps = words * 2 / kStep;
    const auto* a = reinterpret_cast<const std::uint16_t*>(a_words);
    const auto* b = reinterpret_cast<const std::uint16_t*>(b_words);
    const std::size_t stride = ldc * sizeof(float);
    if (continue_sums) {
      _tile_loadd(0, c, stride);
      _tile_loadd(1, c + kTileRows, stride);
      _tile_loadd(2, c + kTileRows * ldc, stride);
      _tile_loadd(3, c + kTileRows * ldc + kTileRows, stride);
    } else {
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
    }
    const std::size_t pieces = std::max(a_pieces, b_pieces);
    const std::uint16_t* a1 = a + steps * a_pieces * kTileValues;  // the sliver's last 16 rows
    const std::uint16_t* b1 = b + steps * b_pieces * kTileValues;  // and last 16 columns
    for (std::size_t s = 0; s < steps; ++s) {
      // The next step's A tiles into L1 while this step's products run (B's stay there
      // from one call to the next; A's stream in from the packed block in L2).
      const std::size_t next = (s + 1) * a_pieces * kTileValues;
      for (std::size_t line = 0; line < a_pieces * kTileValues * sizeof(std::uint16_t); line += 64) {
        _mm_prefetch(reinterpret_cast<const char*>(a + next) + line, _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(a1 + next) + line, _MM_HINT_T0);
      }
      for (std::size_t j = 0; j < pieces; ++j) {
        if (j == 0 || a_pieces > 1) {
          const std::size_t at = (s * a_pieces + j) * kTileValues;
          _tile_loadd(4, a + at, kTileRowBytes);
          _tile_loadd(5, a1 + at, kTileRowBytes);
        }
        if (j == 0 || b_pieces > 1) {
          const std::size_t at = (s * b_pieces + j) * kTileValues;
          _tile_loadd(6, b + at, kTileRowBytes);
          _tile_loadd(7, b1 + at, kTileRowBytes);
        }
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
      }
    }
    _tile_stored(0, c, stride);
    _tile_stored(1, c + kTileRows, stride);
    _tile_stored(2, c + kTileRows * ldc, stride);
    _tile_stored(3, c + kTileRows * ldc + kTileRows, stride);
  }
};

}  // namespace

void gemm_amx(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m, std::size_t n,
              std::size_t k, int a_pieces, int b_pieces) {
  const TileSession session(TileLayout::full);
  const LoopNestShape shape = gemm_amx_shape(a_pieces, b_pieces);
  TilePacker packer(a, b, shape, n, k);
  run_loop_nest(shape, packer, TileMicroKernel{shape.a_pieces, shape.b_pieces}, s, lds, m, n, k);
}

#else  // no AMX in this build: amx_usable() is false and this is never called

void gemm_amx(const CodeMatrix&, const CodeMatrix&, float*, std::size_t, std::size_t, std::size_t, std::size_t, int,
              int) {}

#endif

}  // namespace softfloat::matmul_detail
