// The tile GEMM (amx_tiles.hpp): A and B decoded to bf16 once per block into the
// layout TDPBF16PS reads, 32 x 32 blocks of C in four fp32 tiles.
//
// Packed layouts, in 1 KiB tiles of 16 rows of 64 bytes, each block of 32 depth steps:
//   A: per 16 rows of A and depth block s, the tile of those rows' bf16 values of
//      steps 32 s .. 32 s + 31 (row r: 32 values in k order);
//   B: per 16 columns and depth block s, the tile whose row t holds, for each of the
//      16 columns, the bf16 values of steps 32 s + 2t and 32 s + 2t + 1 side by side
//      (the pairs of vdpbf16ps).
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

#include "hwy/aligned_allocator.h"
#include "matmul/amx_gemm.hpp"
#include "matmul/amx_tiles.hpp"
#include "softfloat/named_formats.hpp"

namespace softfloat::matmul_detail {

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

// Rows row0 .. row0 + rows - 1 and depth col0 .. col0 + depth - 1 of A into tiles,
// rows padded to a multiple of 32 and depth to a multiple of 32 with zeros. `row`
// holds a padded row of bf16 codes.
void pack_a(const Bf16Decoder& decoder, std::size_t row0, std::size_t col0, std::size_t rows,
            std::size_t depth, std::uint16_t* packed, std::uint16_t* row, float* scratch) {
  const std::size_t steps = (depth + kStep - 1) / kStep;
  const std::size_t padded_rows = (rows + kBlock - 1) / kBlock * kBlock;
  for (std::size_t r = 0; r < padded_rows; ++r) {
    std::uint16_t* tile_row = packed + (r / kTileRows) * steps * kTileValues + (r % kTileRows) * kStep;
    if (r < rows) {
      decoder.row(row0 + r, col0, depth, row, scratch);
      std::fill(row + depth, row + steps * kStep, std::uint16_t{0});
    } else {
      std::fill(row, row + steps * kStep, std::uint16_t{0});
    }
    for (std::size_t s = 0; s < steps; ++s)
      std::memcpy(tile_row + s * kTileValues, row + s * kStep, kStep * sizeof(std::uint16_t));
  }
}

// Depth rows row0 .. row0 + depth - 1 and columns col0 .. col0 + columns - 1 of B
// into pair tiles, columns padded to a multiple of 32 and depth to a multiple of 32
// with zeros. `even` and `odd` hold padded rows of bf16 codes.
void pack_b(const Bf16Decoder& decoder, std::size_t row0, std::size_t col0, std::size_t depth, std::size_t columns,
            std::uint16_t* packed, std::uint16_t* even, std::uint16_t* odd, float* scratch) {
  const std::size_t steps = (depth + kStep - 1) / kStep;
  const std::size_t padded_columns = (columns + kBlock - 1) / kBlock * kBlock;
  const auto fill_row = [&](std::size_t p, std::uint16_t* out) {
    if (p < depth) {
      decoder.row(row0 + p, col0, columns, out, scratch);
      std::fill(out + columns, out + padded_columns, std::uint16_t{0});
    } else {
      std::fill(out, out + padded_columns, std::uint16_t{0});
    }
  };
  for (std::size_t t = 0; t < steps * kTileRows; ++t) {
    fill_row(2 * t, even);
    fill_row(2 * t + 1, odd);
    std::uint16_t* out = packed + (t / kTileRows) * kTileValues + (t % kTileRows) * kStep;
    for (std::size_t g = 0; g < padded_columns / kTileRows; ++g)
      store_pair_row(even + g * kTileRows, odd + g * kTileRows, out + g * steps * kTileValues);
  }
}

// The 32 x 32 block of C at c (row stride ldc): continue_sums ? c : +0, then each
// depth block's tile products. a: the two row tiles' runs of `steps` tiles; b: the
// two column tiles' runs.
SOFTFLOAT_AMX_TARGET void micro_kernel(std::size_t steps, const std::uint16_t* a, const std::uint16_t* b, float* c,
                                       std::size_t ldc, bool continue_sums) {
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
  const std::uint16_t* a1 = a + steps * kTileValues;
  const std::uint16_t* b1 = b + steps * kTileValues;
  for (std::size_t s = 0; s < steps; ++s) {
    _tile_loadd(4, a + s * kTileValues, kTileRowBytes);
    _tile_loadd(5, a1 + s * kTileValues, kTileRowBytes);
    _tile_loadd(6, b + s * kTileValues, kTileRowBytes);
    _tile_loadd(7, b1 + s * kTileValues, kTileRowBytes);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, c, stride);
  _tile_stored(1, c + kTileRows, stride);
  _tile_stored(2, c + kTileRows * ldc, stride);
  _tile_stored(3, c + kTileRows * ldc + kTileRows, stride);
}

// A block cut by the edge of C, through a full block on the stack.
void edge_block(std::size_t steps, const std::uint16_t* a, const std::uint16_t* b, float* c, std::size_t ldc,
                std::size_t rows, std::size_t columns, bool continue_sums) {
  alignas(64) float block[kBlock * kBlock] = {};
  if (continue_sums)
    for (std::size_t r = 0; r < rows; ++r) std::memcpy(block + r * kBlock, c + r * ldc, columns * sizeof(float));
  micro_kernel(steps, a, b, block, kBlock, continue_sums);
  for (std::size_t r = 0; r < rows; ++r) std::memcpy(c + r * ldc, block + r * kBlock, columns * sizeof(float));
}

}  // namespace

void gemm_amx(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m, std::size_t n,
              std::size_t k) {
  const TileSession session;
  const auto round_up = [](std::size_t x, std::size_t step) { return (x + step - 1) / step * step; };
  const std::size_t panel_columns = std::min(kAmxPanelColumns, round_up(n, kBlock));
  const std::size_t depth_most = std::min(kAmxDepth, round_up(k, kStep));
  const std::size_t block_rows = std::min(kAmxBlockRows, round_up(m, kBlock));
  const auto packed_b = hwy::AllocateAligned<std::uint16_t>(depth_most * panel_columns);
  const auto packed_a = hwy::AllocateAligned<std::uint16_t>(block_rows * depth_most);
  const Bf16Decoder a_decoder(a), b_decoder(b);
  std::vector<std::uint16_t> code_rows(2 * std::max(depth_most, panel_columns));
  std::vector<float> scratch(std::max(depth_most, panel_columns));

  for (std::size_t jc = 0; jc < n; jc += kAmxPanelColumns) {
    const std::size_t columns = std::min(kAmxPanelColumns, n - jc);
    for (std::size_t pc = 0; pc < k; pc += kAmxDepth) {
      const std::size_t depth = std::min(kAmxDepth, k - pc);
      const std::size_t steps = (depth + kStep - 1) / kStep;
      const bool continue_sums = pc > 0;
      pack_b(b_decoder, pc, jc, depth, columns, packed_b.get(), code_rows.data(), code_rows.data() + panel_columns,
             scratch.data());
      for (std::size_t ic = 0; ic < m; ic += kAmxBlockRows) {
        const std::size_t rows = std::min(kAmxBlockRows, m - ic);
        pack_a(a_decoder, ic, pc, rows, depth, packed_a.get(), code_rows.data(), scratch.data());
        for (std::size_t jr = 0; jr < columns; jr += kBlock) {
          const std::uint16_t* b_block = packed_b.get() + jr * steps * kStep;
          for (std::size_t ir = 0; ir < rows; ir += kBlock) {
            const std::uint16_t* a_block = packed_a.get() + ir * steps * kStep;
            float* block = s + (ic + ir) * lds + jc + jr;
            if (ir + kBlock <= rows && jr + kBlock <= columns) {
              micro_kernel(steps, a_block, b_block, block, lds, continue_sums);
            } else {
              edge_block(steps, a_block, b_block, block, lds, std::min(kBlock, rows - ir),
                         std::min(kBlock, columns - jr), continue_sums);
            }
          }
        }
      }
    }
  }
}

#else  // no AMX in this build: amx_usable() is false and this is never called

void gemm_amx(const CodeMatrix&, const CodeMatrix&, float*, std::size_t, std::size_t, std::size_t, std::size_t) {}

#endif

}  // namespace softfloat::matmul_detail
