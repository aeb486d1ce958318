// The pairs-of-products paths (matmul/bf16_dot.hpp: vdpbf16ps, on CPUs with
// AVX512-BF16 and AVX512-VBMI) and the rule that decides where they may run:
//   - the rule by hand, at and beyond its limits;
//   - on integer-valued inputs, where every partial sum is exact in any order, the
//     GEMM and matrix-vector kernels equal the in-order chain bit for bit: this pins
//     the packing, the pairing, odd depths and the column and row edges;
//   - on random inputs the pairs summation (MatmulSummation::pairs, named per call:
//     the default, fastest, takes the FMA GEMM on CPUs where vdpbf16ps is no faster)
//     is the pairs path (its result equals the kernel's, called directly) and stays
//     within the error bound of the k-sum against fp64;
//   - BF16 values outside the rule (tiny: products below fp32's normal range, which the
//     instruction would flush; huge: sums that could overflow) keep the in-order chain;
//   - infinities and NaNs land where the in-order chain puts them;
//   - two threads give the bits of one, in every summation.
// Skipped, saying so, on a CPU without the instructions. A few seconds in Release.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "matmul/bf16_dot.hpp"
#include "matmul/code_matrix.hpp"
#include "matmul/kernels.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/matmul/matmul_test_support.hpp"

namespace softfloat::matmul_test {
namespace {

template <class F>
detail::MatmulOperand operand(const Codes<F>& codes, std::size_t ld) {
  return detail::MatmulOperand{codes.data(), sizeof(typename F::storage_type), F::format, ld};
}

using matmul_detail::Bf16Fit;

Bf16Fit fit_of(std::vector<float> values) {
  Bf16Fit fit;
  fit.add(values.data(), values.size());
  return fit;
}

#define SKIP_WITHOUT_BF16_DOT()                                                              \
  if (!matmul_detail::bf16_dot_supported())                                                  \
  GTEST_SKIP() << "this CPU lacks AVX512-BF16 / AVX512-VBMI: the pairs paths cannot run here"

TEST(PairsRule, ByHand) {
  using matmul_detail::pairs_are_exact;
  // 1 = 2^0 has quantum 2^-7; 2^-70 has 2^-77.
  EXPECT_TRUE(pairs_are_exact(fit_of({1.0f, -3.0f}), fit_of({0x1p-70f}), 1024));
  EXPECT_TRUE(pairs_are_exact(fit_of({0x1p-56f}), fit_of({0x1p-56f}), 1));   // -63 - 63 = -126
  EXPECT_FALSE(pairs_are_exact(fit_of({0x1p-57f}), fit_of({0x1p-56f}), 1));  // -127
  // Largest exponents 50 and 50, k = 1024: 51 + 51 + 10 = 112 <= 127; 62 + 62 + 2 + 10 > 127.
  EXPECT_TRUE(pairs_are_exact(fit_of({0x1p50f}), fit_of({0x1p50f}), 1024));
  EXPECT_TRUE(pairs_are_exact(fit_of({0x1p58f}), fit_of({0x1p57f}), 1024));   // 59 + 58 + 10 = 127
  EXPECT_FALSE(pairs_are_exact(fit_of({0x1p58f}), fit_of({0x1p58f}), 1024));  // 128
  // More than 8 significant bits, or an fp32 subnormal: not read exactly.
  EXPECT_FALSE(pairs_are_exact(fit_of({1.0f + 0x1p-8f}), fit_of({1.0f}), 1));
  EXPECT_FALSE(pairs_are_exact(fit_of({0x1p-130f}), fit_of({1.0f}), 1));
  // Infinities, NaNs and zeros are outside the rule.
  EXPECT_TRUE(pairs_are_exact(fit_of({INFINITY, NAN, 0.0f, 2.0f}), fit_of({-INFINITY}), 1 << 20));
  // The one-byte formats of the fp8 family qualify as formats, for any k up to 2^20.
  const auto format_fit = [](const Format& format) {
    std::vector<std::uint8_t> none;
    const detail::MatmulOperand x{none.data(), 1, format, 1};
    return matmul_detail::operand_fit(matmul_detail::CodeMatrix(x), 0, 0);
  };
  for (const Format& f : {E4M3::format, E5M2::format, E3M2::format, E2M3::format, E2M1::format})
    for (const Format& g : {E4M3::format, E5M2::format, E2M1::format})
      EXPECT_TRUE(pairs_are_exact(format_fit(f), format_fit(g), 1 << 20)) << format_name(f) << " x " << format_name(g);
  // FP16 values are scanned: 1 is a bf16 value, 1 + 2^-10 is not (11 significant bits).
  const auto fp16_fit = [](float value) {
    const Codes<FP16> one{FP16(value).bits()};
    return matmul_detail::operand_fit(matmul_detail::CodeMatrix(operand<FP16>(one, 1)), 1, 1);
  };
  EXPECT_TRUE(fp16_fit(1.0f).bf16_values());
  EXPECT_FALSE(fp16_fit(1.0f + 0x1p-10f).bf16_values());
  EXPECT_FALSE(pairs_are_exact(fp16_fit(1.0f + 0x1p-10f), format_fit(E4M3::format), 1024));
}

// Shapes across the kernels' edges: tile 12 x 32, depth block 384, 64-column chunks of
// the matrix-vector path, odd depths.
const Shape kShapes[] = {{1, 1, 1},     {1, 63, 3},    {1, 65, 8},   {1, 200, 17}, {1, 4096, 9},
                         {2, 2, 2},     {13, 33, 385}, {12, 32, 384}, {7, 100, 1}, {150, 70, 777},
                         {25, 4100, 3}, {1, 130, 1001}};

template <class FA, class FB>
void check_exact_sums(int limit_a, int limit_b, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const Shape& s : kShapes) {
    const Codes<FA> a = random_integers<FA>(s.m * s.k, limit_a, rng);
    const Codes<FB> b = random_integers<FB>(s.k * s.n, limit_b, rng);
    const std::string what = format_name(FA::format) + " x " + format_name(FB::format) + ", " +
                             std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    const std::vector<float> expected = definition_loop<FA, FB, FP32>(a, b, s.m, s.n, s.k);
    const matmul_detail::CodeMatrix am(operand<FA>(a, s.k)), bm(operand<FB>(b, s.n));
    std::vector<float> c(s.m * s.n, -1.0f);
    matmul_detail::gemm_bf16_dot(am, bm, c.data(), s.n, s.m, s.n, s.k);
    EXPECT_EQ(count_differences(c, expected, "pairs GEMM " + what), 0u) << what;
    if (s.m == 1 && sizeof(typename FB::storage_type) == 1) {
      std::vector<float> x(s.k);
      am.decode_row(0, 0, s.k, x.data());
      std::fill(c.begin(), c.end(), -1.0f);
      ASSERT_TRUE(matmul_detail::matvec_bf16_dot(x.data(), bm, c.data(), s.n, s.k)) << what;
      EXPECT_EQ(count_differences(c, expected, "pairs matrix-vector " + what), 0u) << what;
    }
    std::fill(c.begin(), c.end(), -1.0f);
    matmul<FA, FB>(a.data(), b.data(), c.data(), s.m, s.n, s.k, MatmulSummation::pairs);
    EXPECT_EQ(count_differences(c, expected, "matmul " + what), 0u) << what;
  }
}

TEST(PairsOfProducts, ExactSumsEqualTheInOrderChain) {
  SKIP_WITHOUT_BF16_DOT();
  // Integers of at most 4 bits times at most 4 bits, k < 1024 terms: every partial sum
  // is an integer below 2^18, exact in fp32 in any order.
  check_exact_sums<E4M3, E4M3>(15, 15, 1);
  check_exact_sums<E5M2, E4M3>(7, 15, 2);
  check_exact_sums<E2M1, E2M1>(6, 6, 3);
  check_exact_sums<E3M2, E2M3>(7, 7, 4);
  check_exact_sums<BF16, BF16>(255, 15, 5);
  check_exact_sums<E4M3, BF16>(15, 255, 6);
}

template <class FA, class FB>
void check_random(const Shape& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const Codes<FA> a = random_codes<FA>(s.m * s.k, rng);
  const Codes<FB> b = random_codes<FB>(s.k * s.n, rng);
  const std::string what = format_name(FA::format) + " x " + format_name(FB::format) + ", " + std::to_string(s.m) +
                           "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  const matmul_detail::CodeMatrix am(operand<FA>(a, s.k)), bm(operand<FB>(b, s.n));
  std::vector<float> kernel(s.m * s.n), c(s.m * s.n, -1.0f);
  if (s.m == 1) {
    std::vector<float> x(s.k);
    am.decode_row(0, 0, s.k, x.data());
    ASSERT_TRUE(matmul_detail::matvec_bf16_dot(x.data(), bm, kernel.data(), s.n, s.k));
  } else {
    matmul_detail::gemm_bf16_dot(am, bm, kernel.data(), s.n, s.m, s.n, s.k);
  }
  matmul<FA, FB>(a.data(), b.data(), c.data(), s.m, s.n, s.k, MatmulSummation::pairs);
  EXPECT_EQ(count_differences(c, kernel, "pairs summation is the pairs path, " + what), 0u);
  EXPECT_EQ((count_outside_bound<FA, FB>(a, b, c, all_rows(s.m), s.n, s.k, 0x1p-24, what)), 0u) << what;
  // The in-order summation is the chain.
  matmul<FA, FB>(a.data(), b.data(), c.data(), s.m, s.n, s.k, MatmulSummation::in_order);
  EXPECT_EQ(count_differences(c, definition_loop<FA, FB, FP32>(a, b, s.m, s.n, s.k), "in order " + what), 0u);
}

TEST(PairsOfProducts, RandomInputsWithinTheBound) {
  SKIP_WITHOUT_BF16_DOT();
  check_random<E4M3, E4M3>({64, 64, 1024}, 1);
  check_random<E5M2, E5M2>({17, 257, 257}, 2);
  check_random<BF16, BF16>({33, 40, 2000}, 3);
  check_random<E4M3, E5M2>({1, 1000, 4097}, 4);
  check_random<E2M1, E4M3>({1, 77, 333}, 5);
}

TEST(PairsOfProducts, Bf16OutsideTheRuleKeepsTheInOrderChain) {
  SKIP_WITHOUT_BF16_DOT();
  check_bf16_outside_the_rule(MatmulSummation::pairs, 7);
}

TEST(PairsOfProducts, InfinitiesAndNaNsWhereTheChainPutsThem) {
  SKIP_WITHOUT_BF16_DOT();
  const InfinitiesCase x = check_infinities_where_the_chain_puts_them(MatmulSummation::pairs, 11);
  // The matrix-vector path, on row 1 alone.
  std::vector<float> y(x.n), y_expected(x.expected.begin() + x.n, x.expected.begin() + 2 * x.n);
  matmul<E5M2, E5M2>(x.a.data() + x.k, x.b.data(), y.data(), 1, x.n, x.k, MatmulSummation::pairs);
  EXPECT_EQ(count_differences(y, y_expected, "matrix-vector with infinities"), 0u);
}

TEST(PairsOfProducts, TwoThreadsGiveTheBitsOfOne) {
  std::mt19937_64 rng(13);
  const std::size_t m = 200, n = 300, k = 400, kv = 3000, nv = 3000;
  const Codes<E4M3> a = random_codes<E4M3>(m * k, rng), b = random_codes<E4M3>(k * n, rng);
  const Codes<E4M3> x = random_codes<E4M3>(kv, rng), w = random_codes<E4M3>(kv * nv, rng);
  const Codes<FP16> h = random_codes<FP16>(k * n, rng);
  for (const MatmulSummation summation :
       {MatmulSummation::fastest, MatmulSummation::in_order, MatmulSummation::pairs}) {
    const ScopedSummation scoped(summation);
    std::vector<float> one(m * n), two(m * n), one_h(m * n), two_h(m * n), y1(nv), y2(nv);
    set_num_threads(1);
    matmul<E4M3, E4M3>(a.data(), b.data(), one.data(), m, n, k);
    matmul<E4M3, FP16>(a.data(), h.data(), one_h.data(), m, n, k);
    matmul<E4M3, E4M3>(x.data(), w.data(), y1.data(), 1, nv, kv);
    set_num_threads(2);
    matmul<E4M3, E4M3>(a.data(), b.data(), two.data(), m, n, k);
    matmul<E4M3, FP16>(a.data(), h.data(), two_h.data(), m, n, k);
    matmul<E4M3, E4M3>(x.data(), w.data(), y2.data(), 1, nv, kv);
    set_num_threads(1);
    EXPECT_EQ(count_differences(two, one, "two threads, gemm"), 0u);
    EXPECT_EQ(count_differences(two_h, one_h, "two threads, gemm with fp16"), 0u);
    EXPECT_EQ(count_differences(y2, y1, "two threads, matrix-vector"), 0u);
  }
  // And the in-order result of two threads is the definition.
  const ScopedSummation in_order(MatmulSummation::in_order);
  set_num_threads(2);
  std::vector<float> c(m * n);
  matmul<E4M3, FP16>(a.data(), h.data(), c.data(), m, n, k);
  set_num_threads(1);
  EXPECT_EQ(count_differences(c, definition_loop<E4M3, FP16, FP32>(a, h, m, n, k), "two threads vs definition"), 0u);
}

TEST(PairsOfProducts, SummationSettingIsChecked) {
  EXPECT_THROW(set_matmul_summation(static_cast<MatmulSummation>(7)), std::invalid_argument);
  EXPECT_EQ(matmul_summation(), MatmulSummation::fastest);
}

}  // namespace
}  // namespace softfloat::matmul_test
