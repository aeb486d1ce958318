// The counted models of softfloat/matmul_model.hpp: the worked numbers exactly
// (the 2x3 by 3x2 example in 24 FLOPs; 128, 64 and 32 slow-memory reads for n = 4 and
// T = 1, 2, 4; intensity 63.0 and 126.0 for n = 4096, T = 128), the traffic of tiles
// that do not divide the sizes, counted against a sum written out by hand, and the
// argument checks; and the fast paths' own loop nest (matmul/loop_nest.hpp) counted
// the same way, against sums worked out by hand for its block sizes (depth 512 or 384,
// 144 rows, 4096 columns) and against the closed form over shapes on and off the blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "matmul/amx_gemm.hpp"
#include "matmul/bf16_dot.hpp"
#include "matmul/loop_nest.hpp"
#include "matmul/kernels.hpp"
#include "softfloat/matmul.hpp"
#include "softfloat/matmul_model.hpp"

namespace softfloat {
namespace {

TEST(CountedMatmul, WorkedExample) {
  const std::vector<double> a{1, 2, 3, 4, 5, 6}, b{7, 8, 9, 10, 11, 12};
  const CountedMatmul r = counted_matmul(a, b, 2, 2, 3);
  EXPECT_EQ(r.c, (std::vector<double>{58, 64, 139, 154}));
  EXPECT_EQ(r.multiplies, 12u);
  EXPECT_EQ(r.adds, 12u);  // the first add of each element goes into the zero accumulator
  EXPECT_EQ(r.flops(), 24u);
  EXPECT_EQ(r.flops(), matmul_flops(2, 2, 3));
}

// n = 4 with the integers 0 .. 15 (A) and 16 .. 31 (B): exact in double.
TEST(TiledMatmul, SquareFourByTiles) {
  const std::size_t n = 4;
  std::vector<double> a(n * n), b(n * n);
  std::iota(a.begin(), a.end(), 0.0);
  std::iota(b.begin(), b.end(), 16.0);
  const CountedMatmul plain = counted_matmul(a, b, n, n, n);
  const std::uint64_t expected_reads[] = {128, 64, 32};
  const std::size_t tiles[] = {1, 2, 4};
  for (int t = 0; t < 3; ++t) {
    const std::size_t tile = tiles[t];
    const TiledMatmul r = tiled_matmul(a, b, n, n, n, tile);
    EXPECT_EQ(r.c, plain.c) << "T = " << tile;
    EXPECT_EQ(r.traffic.reads, expected_reads[t]) << "T = " << tile;
    EXPECT_EQ(double(r.traffic.reads), matmul_reads(double(n), double(tile))) << "T = " << tile;
    EXPECT_EQ(r.traffic.writes, 16u);
    EXPECT_EQ(r.traffic.flops, 128u);
    EXPECT_EQ(r.traffic.flops, matmul_flops(n, n, n));
    EXPECT_EQ(r.traffic.peak_fast_words, 3 * tile * tile);  // one tile each of A, B and C
    // The record's intensity is the formula's (reads plus one write per element of C).
    EXPECT_DOUBLE_EQ(r.traffic.intensity(2), matmul_intensity(double(n), double(tile), 2));
  }
}

// 2 n^3 / (b (2 n^3 / T + n^2)) at n = 4096, T = 128: 64 / (1 + 1/64) = 4096 / 65 at two
// bytes per word, twice that at one.
TEST(MatmulIntensity, WorkedValues) {
  EXPECT_DOUBLE_EQ(matmul_intensity(4096, 128, 2), 4096.0 / 65);
  EXPECT_DOUBLE_EQ(matmul_intensity(4096, 128, 1), 8192.0 / 65);
  EXPECT_EQ(std::round(matmul_intensity(4096, 128, 2) * 10) / 10, 63.0);
  EXPECT_EQ(std::round(matmul_intensity(4096, 128, 1) * 10) / 10, 126.0);
  EXPECT_EQ(matmul_flops(4096, 4096, 4096), std::uint64_t{1} << 37);
}

// m = 5, n = 3, k = 7 with T = 2: row tiles {2, 2, 1}, column tiles {2, 1}, depth tiles
// {2, 2, 2, 1}. Each (row tile, column tile, depth tile) reads rows * depth words of A
// and depth * columns of B: sum = (5 * 7) * 2 column tiles + (7 * 3) * 3 row tiles = 133.
TEST(TiledMatmul, EdgeTilesCountWhatTheyMove) {
  const std::size_t m = 5, n = 3, k = 7;
  std::vector<double> a(m * k), b(k * n);
  std::iota(a.begin(), a.end(), -10.0);
  std::iota(b.begin(), b.end(), 3.0);
  const TiledMatmul r = tiled_matmul(a, b, m, n, k, 2);
  EXPECT_EQ(r.c, counted_matmul(a, b, m, n, k).c);
  EXPECT_EQ(r.traffic.reads, 133u);
  EXPECT_EQ(r.traffic.writes, 15u);
  EXPECT_EQ(r.traffic.flops, matmul_flops(m, n, k));
  EXPECT_EQ(r.traffic.peak_fast_words, 12u);
  // A tile larger than everything: A and B read once.
  const TiledMatmul whole = tiled_matmul(a, b, m, n, k, 100);
  EXPECT_EQ(whole.traffic.reads, m * k + k * n);
  EXPECT_EQ(whole.traffic.peak_fast_words, m * k + k * n + m * n);
}

// Out of line, so that the compiler does not follow the known sizes into the loops that
// the checks keep it from reaching (GCC 12 then warns of out-of-bounds reads).
[[gnu::noinline]] void expect_bad_sizes_throw(std::span<const double> a, std::span<const double> b) {
  EXPECT_THROW(counted_matmul(a, b, 2, 2, 3), std::invalid_argument);
  EXPECT_THROW(tiled_matmul(a, b, 2, 2, 3, 1), std::invalid_argument);
  EXPECT_THROW(tiled_matmul(a, b, 2, 2, 2, 0), std::invalid_argument);
  EXPECT_NO_THROW(tiled_matmul(a, b, 2, 2, 2, 1));
}

TEST(MatmulModels, BadArgumentsThrow) {
  const std::vector<double> four(4);
  expect_bad_sizes_throw(four, four);
}

// 1024^3 by the FMA GEMM: one column panel, two depth blocks of 512. B and A are each
// read once (2^20 words each), C is stored after every depth block (2 x 2^20) and
// reloaded after the first (2^20).
TEST(FastPathTraffic, SquareByTheFmaBlocking) {
  const Traffic t = matmul_fast_path_traffic(1024, 1024, 1024);
  EXPECT_EQ(t.flops, std::uint64_t{1} << 31);
  EXPECT_EQ(t.reads, 3u << 20);
  EXPECT_EQ(t.writes, 2u << 20);
  const matmul_detail::LoopNestShape shape = matmul_detail::gemm_fp32_shape();
  // The packed B panel (512 x 1024), the packed A block (144 rows x 512) and a tile.
  EXPECT_EQ(t.peak_fast_words, 512u * 1024 + 144u * 512 + shape.tile_rows * shape.tile_columns);
  EXPECT_NEAR(t.intensity(1.0), double(1u << 31) / double(5u << 20), 1e-9);
}

// The pairs GEMM's depth blocks of 384 (384, 384, 256): C moves one round trip fewer.
TEST(FastPathTraffic, SquareByThePairsBlocking) {
  const Traffic t = matmul_fast_path_traffic(1024, 1024, 1024, true);
  EXPECT_EQ(t.reads, 4u << 20);
  EXPECT_EQ(t.writes, 3u << 20);
  EXPECT_EQ(t.peak_fast_words, 384u * 1024 + 144u * 384 + 12u * 32);
}

// 512 x 8192 x 1024: two column panels of 4096, so A is read twice; two depth blocks, so
// C is stored twice and reloaded once.
TEST(FastPathTraffic, TwoPanels) {
  const Traffic t = matmul_fast_path_traffic(512, 8192, 1024);
  EXPECT_EQ(t.reads, 1024u * 8192 + 2u * 512 * 1024 + 512u * 8192);
  EXPECT_EQ(t.writes, 2u * 512 * 8192);
}

// The tile GEMM's blocking at 1024^3: one column panel of 1024, two depth blocks of
// 512, A blocks of 64 rows: B and A read once, C stored twice and reloaded once.
TEST(FastPathTraffic, SquareByTheTileBlocking) {
  const Traffic t = matmul_fast_path_traffic(1024, 1024, 1024, MatmulKernel::tiles_gemm);
  EXPECT_EQ(t.reads, 3u << 20);
  EXPECT_EQ(t.writes, 2u << 20);
  EXPECT_EQ(t.peak_fast_words, 512u * 1024 + 64u * 512 + 32u * 32);
  // Kernels without blocking have no traffic to count.
  EXPECT_THROW(matmul_fast_path_traffic(4, 4, 4, MatmulKernel::scalar_accumulator), std::invalid_argument);
  EXPECT_THROW(matmul_fast_path_traffic(4, 4, 4, MatmulKernel::none), std::invalid_argument);
}

// The matrix-vector loop reads x and B once and writes y.
TEST(FastPathTraffic, MatrixVector) {
  const Traffic t = matmul_fast_path_traffic(1, 8192, 4096);
  EXPECT_EQ(t.reads, 4096u + 4096u * 8192);
  EXPECT_EQ(t.writes, 8192u);
  EXPECT_EQ(t.flops, 2u * 8192 * 4096);
  EXPECT_EQ(matmul_fast_path_traffic(0, 5, 5).reads, 0u);
}

// The closed form of the nest's traffic, from the block counts alone: B is read once;
// A once per column panel; C stored after each depth block and reloaded after all but
// the first; the fast memory at its fullest holds the first packed B block, the first
// packed A block (both padded to whole slivers, depth padded to the kernel's step) and
// one tile.
Traffic closed_form(const matmul_detail::LoopNestShape& s, std::size_t m, std::size_t n, std::size_t k) {
  using matmul_detail::round_up_to_multiple;
  const std::uint64_t panels = (n + s.panel_columns - 1) / s.panel_columns;
  const std::uint64_t depth_blocks = (k + s.depth_block - 1) / s.depth_block;
  const std::uint64_t mn = std::uint64_t(m) * n;
  Traffic t;
  t.flops = matmul_flops(m, n, k);
  t.reads = std::uint64_t(k) * n + std::uint64_t(m) * k * panels + mn * (depth_blocks - 1);
  t.writes = mn * depth_blocks;
  const std::uint64_t depth = round_up_to_multiple(std::min(s.depth_block, k), s.depth_step);
  t.peak_fast_words = depth * round_up_to_multiple(std::min(s.panel_columns, n), s.tile_columns) +
                      depth * round_up_to_multiple(std::min(s.block_rows, m), s.tile_rows) +
                      std::uint64_t(s.tile_rows) * s.tile_columns;
  return t;
}

// The three kernels' nests over sizes below, at and just past a tile (12, 32), a row
// block (64, 144), a depth block (256, 384, 512) and a column panel (1024, 4096).
TEST(FastPathTraffic, CountsTheClosedFormOnAndOffTheBlocks) {
  const std::size_t ms[] = {2, 12, 13, 64, 65, 144, 145, 300};
  const std::size_t ns[] = {1, 31, 32, 1024, 1025, 4096, 4097, 8200};
  const std::size_t ks[] = {1, 2, 31, 33, 255, 256, 257, 383, 384, 385, 511, 512, 513, 1024};
  const std::pair<MatmulKernel, matmul_detail::LoopNestShape> kernels[] = {
      {MatmulKernel::fma_gemm, matmul_detail::gemm_fp32_shape()},
      {MatmulKernel::pairs_gemm, matmul_detail::gemm_bf16_dot_shape()},
      {MatmulKernel::tiles_gemm, matmul_detail::gemm_amx_shape()}};
  for (const auto& [kernel, shape] : kernels) {
    for (std::size_t m : ms)
      for (std::size_t n : ns)
        for (std::size_t k : ks) {
          const Traffic t = matmul_fast_path_traffic(m, n, k, kernel);
          const Traffic expected = closed_form(shape, m, n, k);
          const std::string what = std::string(matmul_kernel_name(kernel)) + " " + std::to_string(m) + "x" +
                                   std::to_string(n) + "x" + std::to_string(k);
          EXPECT_EQ(t.reads, expected.reads) << what;
          EXPECT_EQ(t.writes, expected.writes) << what;
          EXPECT_EQ(t.flops, expected.flops) << what;
          EXPECT_EQ(t.peak_fast_words, expected.peak_fast_words) << what;
        }
  }
}

}  // namespace
}  // namespace softfloat
