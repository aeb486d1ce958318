// The tile GEMM with one operand split into bf16 pieces (matmul/amx_gemm.hpp): FP32
// values in three, FP16 values in two, beside an operand of bf16 values. On CPUs and
// systems that allow the tiles; skipped, saying why, elsewhere:
//   - on random inputs, MatmulSummation::tiles gives, bit for bit, the tile order over
//     the pieces written out in amx_test_support.hpp (the pieces cut in double by
//     powers of two, not by the kernel's bit masks), across the edges of tiles, depth blocks and panels, with
//     either operand split, and stays within the error bound of a k-term sum against
//     fp64;
//   - values the pieces cannot carry (tiny or subnormal fp32 values), an infinity in
//     the other operand and k < 32 keep the in-order chain bit for bit;
//   - an infinity or a NaN in the split operand lands where the chain puts it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "verify/matmul/amx_test_support.hpp"

namespace softfloat::matmul_test {
namespace {

// Across the 32 x 32 blocks, the 32-step depth tiles, the 512-step depth blocks, the
// 64-row blocks and the 1024-column panels, from the smallest depth split (32).
const Shape kShapes[] = {{2, 1, 32}, {16, 16, 32}, {33, 47, 65}, {100, 130, 1000}, {129, 40, 513}, {40, 1100, 70}};

TEST(AmxSplit, RandomInputsGiveTheTileOrderOfThePieces) {
  SKIP_WITHOUT_AMX();
  std::uint64_t seed = 41;
  for (const Shape& s : kShapes) {
    check_tile_order<FP32, E4M3>(s, seed++, 3, 1);
    check_tile_order<E2M1, FP32>(s, seed++, 1, 3);
    check_tile_order<FP16, BF16>(s, seed++, 2, 1);
  }
  check_tile_order<E4M3, FP16>({64, 64, 1024}, seed++, 1, 2);
}

// A split product whose pieces would be bf16 subnormals, or an infinity in the other
// operand, keeps the chain.
TEST(AmxSplit, ValuesOutsideTheRuleKeepTheInOrderChain) {
  SKIP_WITHOUT_AMX();
  std::mt19937_64 rng(47);
  const std::size_t m = 40, n = 50, k = 96;
  Codes<FP32> a = random_codes<FP32>(m * k, rng);
  Codes<BF16> b = random_codes<BF16>(k * n, rng);
  const auto expect_chain = [&](const char* what) {
    std::vector<float> c(m * n, -1.0f);
    matmul<FP32, BF16>(a.data(), b.data(), c.data(), m, n, k, MatmulSummation::tiles);
    EXPECT_EQ(count_differences(c, definition_loop<FP32, BF16, FP32>(a, b, m, n, k), what), 0u) << what;
  };
  const Codes<FP32> random_a = a;
  a[5 * k + 7] = FP32(0x1p-100f).bits();  // pieces down to 2^-123, products with bf16's low bits below 2^-126
  expect_chain("a tiny fp32 value");
  a = random_a;
  a[3] = FP32(0x1p-140f).bits();  // an fp32 subnormal
  expect_chain("an fp32 subnormal");
  a = random_a;
  b[17] = BF16(INFINITY).bits();
  expect_chain("an infinity in the operand not split");
  // And below 32 depth steps, where the pieces would pass through more roundings.
  const std::size_t short_k = 31;
  const Codes<FP32> short_a = random_codes<FP32>(m * short_k, rng);
  const Codes<E4M3> short_b = random_codes<E4M3>(short_k * n, rng);
  EXPECT_EQ((matmul_path<FP32, E4M3>(m, n, short_k, MatmulSummation::tiles)), MatmulKernel::fma_gemm);
  std::vector<float> c(m * n, -1.0f);
  matmul<FP32, E4M3>(short_a.data(), short_b.data(), c.data(), m, n, short_k, MatmulSummation::tiles);
  EXPECT_EQ(count_differences(c, definition_loop<FP32, E4M3, FP32>(short_a, short_b, m, n, short_k), "k = 31"), 0u);
}

// An infinity in the split operand sits whole in its first piece, a NaN too: each lands
// where the chain puts it (infinity times 0 is a NaN, an infinity beside finite
// products stays).
TEST(AmxSplit, InfinitiesAndNaNsOfTheSplitOperandWhereTheChainPutsThem) {
  SKIP_WITHOUT_AMX();
  std::mt19937_64 rng(53);
  const std::size_t m = 4, n = 40, k = 64;
  Codes<FP32> a = random_codes<FP32>(m * k, rng);
  Codes<E4M3> b = random_codes<E4M3>(k * n, rng);
  a[1 * k + 3] = FP32(INFINITY).bits();
  a[2 * k + 9] = FP32(-INFINITY).bits();
  a[3 * k + 5] = 0x7F800001u;  // a signalling NaN whose payload lies in the low 16 bits
  b[3 * n + 7] = E4M3(0.0f).bits();
  std::vector<float> c(m * n, -1.0f);
  matmul<FP32, E4M3>(a.data(), b.data(), c.data(), m, n, k, MatmulSummation::tiles);
  const std::vector<float> chain = definition_loop<FP32, E4M3, FP32>(a, b, m, n, k);
  std::size_t special = 0;
  for (std::size_t i = 1; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const float got = c[i * n + j], want = chain[i * n + j];
      ASSERT_TRUE(!std::isfinite(want)) << i << " " << j;
      EXPECT_TRUE(std::isnan(want) ? std::isnan(got) : got == want) << i << " " << j << ": " << got << " vs " << want;
      ++special;
    }
  EXPECT_TRUE(std::isnan(chain[1 * n + 7])) << "infinity times zero";
  EXPECT_EQ(special, 3 * n);
  // The row without specials is the tile order of the pieces.
  const Codes<FP32> row0(a.begin(), a.begin() + std::ptrdiff_t(k));
  const std::vector<float> expected = tile_order_of_pieces<FP32, E4M3>(row0, b, 1, n, k, 3, 1);
  EXPECT_EQ(count_differences(std::vector<float>(c.begin(), c.begin() + std::ptrdiff_t(n)), expected, "row 0"), 0u);
}

}  // namespace
}  // namespace softfloat::matmul_test
