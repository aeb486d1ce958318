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

namespace softfloat::matmul_detail {

#if SOFTFLOAT_HAVE_AMX
namespace {

constexpr std::size_t kStep = 32;                        // depth steps a tile holds
constexpr std::size_t kTileValues = kTileRows * kStep;   // bf16 values a tile holds
constexpr std::size_t kBlock = 2 * kTileRows;            // rows and columns of C a micro-kernel computes

std::uint16_t bf16_of(float value) { return std::uint16_t(std::bit_cast<std::uint32_t>(value) >> 16); }

// Rows row0 .. row0 + rows - 1 and depth col0 .. col0 + depth - 1 of A into tiles,
// rows padded to a multiple of 32, depth to a multiple of 32.
void pack_a(const CodeMatrix& a, std::size_t row0, std::size_t col0, std::size_t rows, std::size_t depth,
            std::uint16_t* packed, float* scratch) {
  const std::size_t steps = (depth + kStep - 1) / kStep;
  const std::size_t padded_rows = (rows + kBlock - 1) / kBlock * kBlock;
  for (std::size_t r = 0; r < padded_rows; ++r) {
    std::uint16_t* tile_row = packed + (r / kTileRows) * steps * kTileValues + (r % kTileRows) * kStep;
    if (r < rows) {
      a.decode_row(row0 + r, col0, depth, scratch);
    }
    const std::size_t valid = r < rows ? depth : 0;
    for (std::size_t s = 0; s < steps; ++s) {
      std::uint16_t* out = tile_row + s * kTileValues;
      for (std::size_t p = 0; p < kStep; ++p) {
        const std::size_t step = s * kStep + p;
        out[p] = step < valid ? bf16_of(scratch[step]) : 0;
      }
    }
  }
}

// Depth rows row0 .. row0 + depth - 1 and columns col0 .. col0 + columns - 1 of B
// into pair tiles, columns padded to a multiple of 32, depth to a multiple of 32.
void pack_b(const CodeMatrix& b, std::size_t row0, std::size_t col0, std::size_t depth, std::size_t columns,
            std::uint16_t* packed, float* even, float* odd) {
  const std::size_t steps = (depth + kStep - 1) / kStep;
  const std::size_t padded_columns = (columns + kBlock - 1) / kBlock * kBlock;
  for (std::size_t t = 0; t < steps * kTileRows; ++t) {
    const std::size_t s = t / kTileRows, pair = t % kTileRows;
    const std::size_t p0 = 2 * t, p1 = 2 * t + 1;
    if (p0 < depth) b.decode_row(row0 + p0, col0, columns, even);
    if (p1 < depth) b.decode_row(row0 + p1, col0, columns, odd);
    for (std::size_t j = 0; j < padded_columns; ++j) {
      std::uint16_t* out = packed + (j / kTileRows) * steps * kTileValues + s * kTileValues + pair * kStep +
                           2 * (j % kTileRows);
      const bool column = j < columns;
      out[0] = column && p0 < depth ? bf16_of(even[j]) : 0;
      out[1] = column && p1 < depth ? bf16_of(odd[j]) : 0;
    }
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
  std::vector<float> scratch(std::max(depth_most, 2 * panel_columns));

  for (std::size_t jc = 0; jc < n; jc += kAmxPanelColumns) {
    const std::size_t columns = std::min(kAmxPanelColumns, n - jc);
    for (std::size_t pc = 0; pc < k; pc += kAmxDepth) {
      const std::size_t depth = std::min(kAmxDepth, k - pc);
      const std::size_t steps = (depth + kStep - 1) / kStep;
      const bool continue_sums = pc > 0;
      pack_b(b, pc, jc, depth, columns, packed_b.get(), scratch.data(), scratch.data() + panel_columns);
      for (std::size_t ic = 0; ic < m; ic += kAmxBlockRows) {
        const std::size_t rows = std::min(kAmxBlockRows, m - ic);
        pack_a(a, ic, pc, rows, depth, packed_a.get(), scratch.data());
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
