// The AMX tile GEMM (matmul/gemm_amx.cpp, TDPBF16PS), on CPUs and systems that allow
// the tiles; skipped, saying why, elsewhere:
//   - on random inputs of the formats the pairs rule admits, MatmulSummation::tiles
//     gives, bit for bit, the tile order written out in plain fp32 arithmetic
//     (amx_test_support.hpp; per block of 32 depth steps: the even steps' products
//     and the odd steps' products each summed from +0 in k order, their sum added to
//     the running value), across the edges of tiles, depth blocks and panels, and stays within the error
//     bound of a k-term sum against fp64;
//   - on integer-valued inputs, exact in any order, the in-order chain;
//   - BF16 values outside the rule keep the in-order chain; infinities and NaNs land
//     where the chain puts them;
//   - two threads give the bits of one;
//   - with the tiles refused (as on a system that denies the permission), matmul_path
//     names the next kernel and the results are that kernel's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "matmul/amx_tiles.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/matmul/amx_test_support.hpp"

namespace softfloat::matmul_test {
namespace {

// Across the 32 x 32 blocks, the 16-row tiles, the 32-step depth tiles, the 512-step
// depth blocks, the 64-row blocks and the 1024-column panels.
const Shape kShapes[] = {{2, 1, 1},     {2, 3, 5},       {16, 16, 32},  {32, 32, 32}, {33, 47, 65},
                         {17, 31, 31},  {100, 130, 1000}, {129, 40, 513}, {40, 1100, 70}};

TEST(AmxTiles, RandomInputsGiveTheTileOrder) {
  SKIP_WITHOUT_AMX();
  std::uint64_t seed = 1;
  for (const Shape& s : kShapes) {
    check_tile_order<E4M3, E4M3>(s, seed++);
    check_tile_order<E5M2, E2M1>(s, seed++);
    check_tile_order<BF16, BF16>(s, seed++);
  }
  check_tile_order<E3M2, E2M3>({64, 64, 1024}, seed++);
  check_tile_order<E4M3, BF16>({64, 96, 2048}, seed++);
}

TEST(AmxTiles, ExactSumsEqualTheInOrderChain) {
  SKIP_WITHOUT_AMX();
  // Products of at most 8 bits, k < 2^10: every partial sum is an integer below 2^18.
  std::mt19937_64 rng(21);
  for (const Shape& s : kShapes) {
    const Codes<E4M3> a = random_integers<E4M3>(s.m * s.k, 15, rng);
    const Codes<BF16> b = random_integers<BF16>(s.k * s.n, 15, rng);
    std::vector<float> c(s.m * s.n, -1.0f);
    matmul<E4M3, BF16>(a.data(), b.data(), c.data(), s.m, s.n, s.k, MatmulSummation::tiles);
    const std::string what = describe(E4M3::format, BF16::format, s);
    EXPECT_EQ(count_differences(c, definition_loop<E4M3, BF16, FP32>(a, b, s.m, s.n, s.k), what), 0u) << what;
  }
}

TEST(AmxTiles, Bf16OutsideTheRuleKeepsTheInOrderChain) {
  SKIP_WITHOUT_AMX();
  check_bf16_outside_the_rule(MatmulSummation::tiles, 23);
}

TEST(AmxTiles, InfinitiesAndNaNsWhereTheChainPutsThem) {
  SKIP_WITHOUT_AMX();
  check_infinities_where_the_chain_puts_them(MatmulSummation::tiles, 29);
}

TEST(AmxTiles, TwoThreadsGiveTheBitsOfOne) {
  SKIP_WITHOUT_AMX();
  std::mt19937_64 rng(31);
  const std::size_t m = 200, n = 300, k = 700;
  const Codes<E4M3> a = random_codes<E4M3>(m * k, rng), b = random_codes<E4M3>(k * n, rng);
  std::vector<float> one(m * n), two(m * n);
  set_num_threads(1);
  matmul<E4M3, E4M3>(a.data(), b.data(), one.data(), m, n, k, MatmulSummation::tiles);
  set_num_threads(2);
  matmul<E4M3, E4M3>(a.data(), b.data(), two.data(), m, n, k, MatmulSummation::tiles);
  set_num_threads(1);
  EXPECT_EQ(count_differences(two, one, "two threads"), 0u);
  EXPECT_EQ(count_differences(one, tile_order_of_pieces<E4M3, E4M3>(a, b, m, n, k, 1, 1), "tile order"), 0u);
}

TEST(AmxTiles, RefusedTilesFallBackToTheNextKernel) {
  // Runs everywhere: with the tiles refused, as on a CPU or system without them.
  std::mt19937_64 rng(37);
  const Shape s{40, 50, 70};
  const Codes<E4M3> a = random_codes<E4M3>(s.m * s.k, rng), b = random_codes<E4M3>(s.k * s.n, rng);
  const matmul_detail::ScopedAmxRefusal refusal;
  EXPECT_FALSE(matmul_detail::amx_usable());
  EXPECT_EQ((matmul_path<E4M3, E4M3>(s.m, s.n, s.k, MatmulSummation::tiles)), MatmulKernel::fma_gemm);
  EXPECT_NE((matmul_path<E4M3, E4M3>(s.m, s.n, s.k, MatmulSummation::fastest)), MatmulKernel::tiles_gemm);
  std::vector<float> c(s.m * s.n);
  matmul<E4M3, E4M3>(a.data(), b.data(), c.data(), s.m, s.n, s.k, MatmulSummation::tiles);
  EXPECT_EQ(count_differences(c, definition_loop<E4M3, E4M3, FP32>(a, b, s.m, s.n, s.k), "refused tiles"), 0u);
}

TEST(AmxTiles, MatrixVectorKeepsItsOwnPath) {
  EXPECT_NE((matmul_path<E4M3, E4M3>(1, 4096, 4096, MatmulSummation::tiles)), MatmulKernel::tiles_gemm);
  EXPECT_EQ(matmul_kernel_name(MatmulKernel::tiles_gemm), "amx tiles gemm");
}

}  // namespace
}  // namespace softfloat::matmul_test
