// The one loop nest of the blocked GEMMs (BLIS / GotoBLAS order, blocking.hpp), which
// every GEMM kernel runs and matmul_fast_path_traffic counts:
//   for each panel of C's columns                           (jc, panel_columns)
//     for each depth block                                  (pc, depth_block): pack B
//       for each block of C's rows                          (ic, block_rows):  pack A
//         for each sliver of tile_columns, of tile_rows:    (jr, ir): micro-kernel
// for_each_block walks it with a visitor and does nothing else; run_loop_nest is that
// walk with a packer and a micro-kernel, and traffic.cpp's is a counter.
//
// Summation order. The micro-kernel's sums start from +0 in the first depth block and
// from the values it stored in C at the end of the previous block otherwise, so the
// blocking changes where a running sum waits between depth blocks, never the order in
// which the kernel adds to it.
//
// What a kernel brings: its LoopNestShape (register tile, depth block, how depth is
// packed), a packer and a micro-kernel over the packed words:
//   Packer:      using Word = ...;  (the packed element: float, or a uint32_t of two bf16)
//                void pack_a(const NestBlock&, Word* packed);  rows x depth of A as
//                  slivers of tile_rows rows, sliver s at packed + s * tile_rows * words
//                  (times a_pieces, and likewise for B)
//                void pack_b(const NestBlock&, Word* packed);  depth x columns of B as
//                  slivers of tile_columns columns, sliver s at packed + s * tile_columns * words
//                (words = shape.packed_depth(block.depth); rows and columns past the block
//                and depth past block.depth are zero);
//   MicroKernel: void operator()(std::size_t words, const Word* a, const Word* b, float* c,
//                  std::size_t ldc, bool continue_sums) const;  one full tile of C.
// The packed blocks start on hwy::AllocateAligned's alignment (a vector or more), so a
// sliver whose size is a multiple of the vector is aligned too.
// The layout inside a sliver is the packer's and kernel's business: an AMX tile kernel
// (16 x 16 fp32 tiles, bf16 pairs interleaved along k, k in steps of 32) would be
// tile_rows = tile_columns = 16, depth_step = 32, values_per_word = 2, with slivers
// laid out as the tiles it loads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "hwy/aligned_allocator.h"
#include "matmul/blocking.hpp"

namespace softfloat::matmul_detail {

constexpr std::size_t round_up_to_multiple(std::size_t x, std::size_t step) { return (x + step - 1) / step * step; }

struct LoopNestShape {
  std::size_t tile_rows;            // MR: rows of C per micro-kernel call
  std::size_t tile_columns;         // NR: columns of C per call
  std::size_t depth_block;          // kc, a multiple of depth_step
  std::size_t depth_step = 1;       // packed depth is padded with zeros to a multiple of this
  std::size_t values_per_word = 1;  // depth steps per packed word (2 for bf16 pairs)
  std::size_t block_rows = kBlockRows;        // mc, a multiple of tile_rows
  std::size_t panel_columns = kPanelColumns;  // nc, a multiple of tile_columns
  // Packed copies of each row of A and column of B: more than one where the tile GEMM
  // splits an operand's values into bf16 pieces (amx_gemm.hpp), one per piece.
  std::size_t a_pieces = 1, b_pieces = 1;

  // Packed words per row of an A sliver, and per column of a B sliver, for `depth` steps
  // of one piece.
  constexpr std::size_t packed_depth(std::size_t depth) const {
    return round_up_to_multiple(depth, depth_step) / values_per_word;
  }
};

// Where the walk is: the B block (depth x columns from (depth0, column0)) and the A
// block (rows x depth from (row0, depth0)) that it packs.
struct NestBlock {
  std::size_t row0 = 0, rows = 0;
  std::size_t column0 = 0, columns = 0;
  std::size_t depth0 = 0, depth = 0;
  // The first depth block starts its sums from +0; later ones reload C.
  bool continue_sums() const { return depth0 > 0; }
};

// One micro-kernel call: rows x columns of C (at most the tile; fewer at C's edges)
// from (row, column) inside the block.
struct NestTile {
  std::size_t row, column;
  std::size_t rows, columns;
};

// visitor.pack_b(block), visitor.pack_a(block) and visitor.tile(block, tile) in the
// nest's order, for m, n, k >= 1.
template <class Visitor>
void for_each_block(const LoopNestShape& shape, std::size_t m, std::size_t n, std::size_t k, Visitor& visitor) {
  NestBlock block;
  for (block.column0 = 0; block.column0 < n; block.column0 += shape.panel_columns) {
    block.columns = std::min(shape.panel_columns, n - block.column0);
    for (block.depth0 = 0; block.depth0 < k; block.depth0 += shape.depth_block) {
      block.depth = std::min(shape.depth_block, k - block.depth0);
      visitor.pack_b(block);
      for (block.row0 = 0; block.row0 < m; block.row0 += shape.block_rows) {
        block.rows = std::min(shape.block_rows, m - block.row0);
        visitor.pack_a(block);
        for (std::size_t jr = 0; jr < block.columns; jr += shape.tile_columns)
          for (std::size_t ir = 0; ir < block.rows; ir += shape.tile_rows)
            visitor.tile(block, NestTile{ir, jr, std::min(shape.tile_rows, block.rows - ir),
                                         std::min(shape.tile_columns, block.columns - jr)});
      }
    }
  }
}

// C (m x n, row stride ldc) = the kernel's sums of A * B, for m, n, k >= 1: the nest
// packing B and A blocks once each and running the micro-kernel on every tile. A tile
// cut by C's edge runs on a full tile in a buffer that carries the valid part of the
// running sums in and out.
template <class Packer, class MicroKernel>
void run_loop_nest(const LoopNestShape& shape, Packer& packer, const MicroKernel& kernel, float* c,
                   std::size_t ldc, std::size_t m, std::size_t n, std::size_t k) {
  using Word = typename Packer::Word;
  struct Runner {
    const LoopNestShape& shape;
    Packer& packer;
    const MicroKernel& kernel;
    float* c;
    std::size_t ldc;
    hwy::AlignedFreeUniquePtr<Word[]> packed_b, packed_a;
    hwy::AlignedFreeUniquePtr<float[]> edge;

    void pack_b(const NestBlock& block) { packer.pack_b(block, packed_b.get()); }
    void pack_a(const NestBlock& block) { packer.pack_a(block, packed_a.get()); }
    void tile(const NestBlock& block, const NestTile& tile) {
      const std::size_t words = shape.packed_depth(block.depth);
      const Word* a = packed_a.get() + tile.row * words * shape.a_pieces;
      const Word* b = packed_b.get() + tile.column * words * shape.b_pieces;
      float* out = c + (block.row0 + tile.row) * ldc + block.column0 + tile.column;
      const bool continue_sums = block.continue_sums();
      if (tile.rows == shape.tile_rows && tile.columns == shape.tile_columns) {
        kernel(words, a, b, out, ldc, continue_sums);
        return;
      }
      const std::size_t nr = shape.tile_columns, bytes = tile.columns * sizeof(float);
      if (continue_sums)
        for (std::size_t r = 0; r < tile.rows; ++r) std::memcpy(edge.get() + r * nr, out + r * ldc, bytes);
      kernel(words, a, b, edge.get(), nr, continue_sums);
      for (std::size_t r = 0; r < tile.rows; ++r) std::memcpy(out + r * ldc, edge.get() + r * nr, bytes);
    }
  };
  const std::size_t words = shape.packed_depth(std::min(shape.depth_block, k));
  const std::size_t panel_columns = std::min(shape.panel_columns, round_up_to_multiple(n, shape.tile_columns));
  const std::size_t block_rows = std::min(shape.block_rows, round_up_to_multiple(m, shape.tile_rows));
  const std::size_t tile_words = shape.tile_rows * shape.tile_columns;
  Runner runner{shape,
                packer,
                kernel,
                c,
                ldc,
                hwy::AllocateAligned<Word>(words * panel_columns * shape.b_pieces),
                hwy::AllocateAligned<Word>(block_rows * words * shape.a_pieces),
                hwy::AllocateAligned<float>(tile_words)};
  std::fill(runner.edge.get(), runner.edge.get() + tile_words, 0.0f);
  for_each_block(shape, m, n, k, runner);
}

}  // namespace softfloat::matmul_detail
