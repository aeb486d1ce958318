// The GEMMs' one loop nest (matmul/loop_nest.hpp) apart from any SIMD kernel: its walk
// visits every element of C once per depth block, the depth blocks in order, the first
// starting from +0 and the others continuing; and run_loop_nest with the real packers
// (matmul/packing.hpp) and a scalar reference micro-kernel (std::fma in depth order)
// gives the definition's bits, through edge tiles, several row blocks, column panels
// and depth blocks, an odd depth for the bf16 pairs. Small made-up blockings put every
// edge case into matrices of a few hundred elements; the real blockings run too.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "matmul/bf16_dot.hpp"
#include "matmul/code_matrix.hpp"
#include "matmul/loop_nest.hpp"
#include "matmul/packing.hpp"
#include "matmul/kernels.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/matmul/matmul_test_support.hpp"

namespace softfloat::matmul_test {
namespace {

using matmul_detail::LoopNestShape;
using matmul_detail::NestBlock;
using matmul_detail::NestTile;

// MR 3, NR 5, depth blocks of 7 (6 for pairs), blocks of 6 rows, panels of 10 columns.
LoopNestShape small_fp32_shape() {
  LoopNestShape shape{3, 5, 7};
  shape.block_rows = 6;
  shape.panel_columns = 10;
  return shape;
}
LoopNestShape small_pairs_shape() {
  LoopNestShape shape{3, 5, 6, 2, 2};
  shape.block_rows = 6;
  shape.panel_columns = 10;
  return shape;
}

const Shape kSmallShapes[] = {{1, 1, 1}, {2, 3, 2},   {3, 5, 7},   {5, 9, 6},    {6, 10, 14},
                              {7, 11, 15}, {13, 23, 9}, {12, 21, 20}, {20, 31, 13}};

// Follows each element of C through the walk: the next depth it expects, and checks
// that packing comes before the tiles of a block and that tiles stay inside it.
struct WalkChecker {
  const LoopNestShape& shape;
  std::size_t m, n, k;
  std::vector<std::size_t> next_depth;  // m x n
  NestBlock packed_b{}, packed_a{};
  std::size_t failures = 0;

  void fail(const std::string& message) {
    if (++failures <= 5) ADD_FAILURE() << message;
  }
  void pack_b(const NestBlock& block) {
    if (block.columns == 0 || block.columns > shape.panel_columns || block.depth == 0 ||
        block.depth > shape.depth_block || block.column0 + block.columns > n || block.depth0 + block.depth > k)
      fail("B block out of bounds");
    packed_b = block;
  }
  void pack_a(const NestBlock& block) {
    if (block.column0 != packed_b.column0 || block.depth0 != packed_b.depth0) fail("A block of another B block");
    if (block.rows == 0 || block.rows > shape.block_rows || block.row0 + block.rows > m) fail("A block out of bounds");
    packed_a = block;
  }
  void tile(const NestBlock& block, const NestTile& tile) {
    if (block.row0 != packed_a.row0 || block.column0 != packed_a.column0 || block.depth0 != packed_a.depth0)
      fail("tile outside the packed blocks");
    if (tile.row % shape.tile_rows != 0 || tile.column % shape.tile_columns != 0 ||
        tile.rows != std::min(shape.tile_rows, block.rows - tile.row) ||
        tile.columns != std::min(shape.tile_columns, block.columns - tile.column))
      fail("tile not on the sliver grid");
    for (std::size_t r = 0; r < tile.rows; ++r)
      for (std::size_t c = 0; c < tile.columns; ++c) {
        std::size_t& next = next_depth[(block.row0 + tile.row + r) * n + block.column0 + tile.column + c];
        if (block.depth0 != next || block.continue_sums() != (next > 0)) fail("element visited out of depth order");
        next = block.depth0 + block.depth;
      }
  }
};

void check_walk(const LoopNestShape& shape, std::size_t m, std::size_t n, std::size_t k) {
  WalkChecker checker{shape, m, n, k, std::vector<std::size_t>(m * n, 0)};
  matmul_detail::for_each_block(shape, m, n, k, checker);
  std::size_t unfinished = 0;
  for (std::size_t next : checker.next_depth) unfinished += next != k;
  EXPECT_EQ(checker.failures, 0u) << m << "x" << n << "x" << k;
  EXPECT_EQ(unfinished, 0u) << m << "x" << n << "x" << k << ": elements whose sums stop before depth k";
}

TEST(LoopNest, VisitsEveryElementOncePerDepthBlockInOrder) {
  for (const Shape& s : kSmallShapes) {
    check_walk(small_fp32_shape(), s.m, s.n, s.k);
    check_walk(small_pairs_shape(), s.m, s.n, s.k);
  }
  // The real blockings, past a row block, a depth block and a column panel.
  for (const LoopNestShape& shape : {matmul_detail::gemm_fp32_shape(), matmul_detail::gemm_bf16_dot_shape()}) {
    check_walk(shape, 150, 4100, 3);
    check_walk(shape, 13, 40, 800);
  }
}

// The reference micro-kernels: each sum is std::fma over the packed depth in order,
// which is the definition's chain (softfloat's scalar fma on FP32).
struct Fp32ReferenceKernel {
  std::size_t mr, nr;
  void operator()(std::size_t depth, const float* a, const float* b, float* c, std::size_t ldc,
                  bool continue_sums) const {
    for (std::size_t r = 0; r < mr; ++r)
      for (std::size_t j = 0; j < nr; ++j) {
        float sum = continue_sums ? c[r * ldc + j] : 0.0f;
        for (std::size_t p = 0; p < depth; ++p) sum = std::fma(a[p * mr + r], b[p * nr + j], sum);
        c[r * ldc + j] = sum;
      }
  }
};

// A pair word's bf16 halves as floats: step 2t in the low half, 2t + 1 in the high. The
// zero that pads an odd depth adds +0 * +0 to a sum that is never -0 (it starts at +0).
struct PairsReferenceKernel {
  std::size_t mr, nr;
  void operator()(std::size_t pairs, const std::uint32_t* a, const std::uint32_t* b, float* c, std::size_t ldc,
                  bool continue_sums) const {
    const auto low = [](std::uint32_t w) { return std::bit_cast<float>(w << 16); };
    const auto high = [](std::uint32_t w) { return std::bit_cast<float>(w & 0xFFFF0000u); };
    for (std::size_t r = 0; r < mr; ++r)
      for (std::size_t j = 0; j < nr; ++j) {
        float sum = continue_sums ? c[r * ldc + j] : 0.0f;
        for (std::size_t t = 0; t < pairs; ++t) {
          sum = std::fma(low(a[t * mr + r]), low(b[t * nr + j]), sum);
          sum = std::fma(high(a[t * mr + r]), high(b[t * nr + j]), sum);
        }
        c[r * ldc + j] = sum;
      }
  }
};

template <class F>
detail::MatmulOperand operand(const Codes<F>& codes, std::size_t ld) {
  return detail::MatmulOperand{codes.data(), sizeof(typename F::storage_type), F::format, ld};
}

template <class Packer, class Kernel, class FA, class FB>
void check_run(const LoopNestShape& shape, std::uint64_t seed, const char* name) {
  std::mt19937_64 rng(seed);
  for (const Shape& s : kSmallShapes) {
    const Codes<FA> a = random_codes<FA>(s.m * s.k, rng);
    const Codes<FB> b = random_codes<FB>(s.k * s.n, rng);
    const std::vector<float> expected = definition_loop<FA, FB, FP32>(a, b, s.m, s.n, s.k);
    const matmul_detail::CodeMatrix a_matrix(operand<FA>(a, s.k)), b_matrix(operand<FB>(b, s.n));
    // C with a row stride past n, whose extra columns must stay untouched.
    const std::size_t ldc = s.n + 3;
    std::vector<float> c(s.m * ldc, -1.0f);
    Packer packer(a_matrix, b_matrix, shape, s.n, s.k);
    matmul_detail::run_loop_nest(shape, packer, Kernel{shape.tile_rows, shape.tile_columns}, c.data(), ldc, s.m,
                                 s.n, s.k);
    std::vector<float> got(s.m * s.n);
    std::size_t touched = 0;
    for (std::size_t i = 0; i < s.m; ++i)
      for (std::size_t j = 0; j < ldc; ++j) {
        if (j < s.n) got[i * s.n + j] = c[i * ldc + j];
        else touched += c[i * ldc + j] != -1.0f;
      }
    const std::string what = std::string(name) + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                             std::to_string(s.k);
    EXPECT_EQ(count_differences(got, expected, what), 0u) << what;
    EXPECT_EQ(touched, 0u) << what << ": written past column n";
  }
}

TEST(LoopNest, Fp32PackerAndReferenceKernelGiveTheDefinition) {
  using matmul_detail::Fp32Packer;
  check_run<Fp32Packer, Fp32ReferenceKernel, E4M3, E4M3>(small_fp32_shape(), 1, "E4M3 x E4M3");
  check_run<Fp32Packer, Fp32ReferenceKernel, FP16, BF16>(small_fp32_shape(), 2, "FP16 x BF16");
  check_run<Fp32Packer, Fp32ReferenceKernel, E4M3, E2M1>(matmul_detail::gemm_fp32_shape(), 3, "E4M3 x E2M1");
}

TEST(LoopNest, PairPackerAndReferenceKernelGiveTheDefinition) {
  using matmul_detail::Bf16PairPacker;
  check_run<Bf16PairPacker, PairsReferenceKernel, E4M3, E4M3>(small_pairs_shape(), 4, "E4M3 x E4M3");
  check_run<Bf16PairPacker, PairsReferenceKernel, BF16, BF16>(small_pairs_shape(), 5, "BF16 x BF16");
  check_run<Bf16PairPacker, PairsReferenceKernel, BF16, E5M2>(matmul_detail::gemm_bf16_dot_shape(), 6,
                                                              "BF16 x E5M2");
}

}  // namespace
}  // namespace softfloat::matmul_test
