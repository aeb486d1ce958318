// The interface of matmul: hand-worked products, the alpha / beta epilogue in fp32 (with
// its two roundings), leading dimensions (the padding untouched), sizes of zero, the
// runtime overload with mixed code types, the caller's floating-point environment, and
// std::invalid_argument for every kind of bad argument.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "softfloat/softfloat.hpp"
#include "verify/common/expect_invalid.hpp"
#include "verify/matmul/matmul_test_support.hpp"

namespace softfloat {
namespace {

using matmul_test::Codes;
using verify::expect_invalid;
using matmul_test::bits_of;

template <class F>
Codes<F> codes_of(std::initializer_list<double> values) {
  Codes<F> codes;
  for (double v : values) {
    const F x(v);
    EXPECT_EQ(double(x), v) << v << " is not a value of " << format_name(F::format);
    codes.push_back(x.bits());
  }
  return codes;
}

// [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]]: every input, product
// and partial sum (7+18+33, 28+45+66, ...) has at most 8 significant bits, so E4M3
// holds the inputs and fp32 and bf16 accumulate exactly.
TEST(MatmulSemantics, HandWorkedProduct) {
  const Codes<E4M3> a = codes_of<E4M3>({1, 2, 3, 4, 5, 6});
  const Codes<E4M3> b = codes_of<E4M3>({7, 8, 9, 10, 11, 12});
  const std::vector<float> expected{58, 64, 139, 154};
  for (const MatmulSummation summation : {MatmulSummation::in_order, MatmulSummation::pairs}) {
    std::vector<float> c(4);
    matmul<E4M3, E4M3>(a.data(), b.data(), c.data(), 2, 2, 3, summation);
    EXPECT_EQ(c, expected);
    matmul<E4M3, E4M3, BF16>(a.data(), b.data(), c.data(), 2, 2, 3, summation);
    EXPECT_EQ(c, expected);
    // Row 0 alone takes the matrix-vector path.
    matmul<E4M3, E4M3>(a.data(), b.data(), c.data(), 1, 2, 3, summation);
    EXPECT_EQ(c[0], 58.0f);
    EXPECT_EQ(c[1], 64.0f);
  }
}

// A bf16 accumulator rounds each partial sum: 256 + 1 + 1 + 1 + 1 stays 256 (the bf16
// spacing at 256 is 2 and each tie goes to the even 256), where fp32 gives 260.
TEST(MatmulSemantics, Bf16AccumulatorRoundsEveryStep) {
  const Codes<E4M3> a = codes_of<E4M3>({16, 1, 1, 1, 1});
  const Codes<E4M3> b = codes_of<E4M3>({16, 1, 1, 1, 1});
  float c = 0;
  matmul<E4M3, E4M3, BF16>(a.data(), b.data(), &c, 1, 1, 5);
  EXPECT_EQ(c, 256.0f);
  matmul<E4M3, E4M3>(a.data(), b.data(), &c, 1, 1, 5);
  EXPECT_EQ(c, 260.0f);
}

// C = alpha * S + beta * C with S = [[19,22],[43,50]].
TEST(MatmulSemantics, AlphaBeta) {
  const Codes<E4M3> a = codes_of<E4M3>({1, 2, 3, 4});
  const Codes<E4M3> b = codes_of<E4M3>({5, 6, 7, 8});
  std::vector<float> c{1, 1, 1, 1};
  matmul<E4M3, E4M3>(2.0f, a.data(), 2, b.data(), 2, -1.0f, c.data(), 2, 2, 2, 2);
  EXPECT_EQ(c, (std::vector<float>{37, 43, 85, 99}));
  // beta = 0: C is not read, so NaN in it does not matter.
  c.assign(4, std::numeric_limits<float>::quiet_NaN());
  matmul<E4M3, E4M3>(0.5f, a.data(), 2, b.data(), 2, 0.0f, c.data(), 2, 2, 2, 2);
  EXPECT_EQ(c, (std::vector<float>{9.5f, 11, 21.5f, 25}));
  // m = 1 (the matrix-vector path) with beta = 1.
  c.assign(4, 0.25f);
  matmul<E4M3, E4M3>(1.0f, a.data(), 2, b.data(), 2, 1.0f, c.data(), 2, 1, 2, 2);
  EXPECT_EQ(c, (std::vector<float>{19.25f, 22.25f, 0.25f, 0.25f}));
}

// The epilogue is in fp32 whatever the accumulator: S = 256 in bf16, C = 1, beta = 1
// gives 257 (bf16 could not hold it).
TEST(MatmulSemantics, EpilogueIsInFp32ForALowPrecisionAccumulator) {
  const Codes<E4M3> a = codes_of<E4M3>({16});
  const Codes<E4M3> b = codes_of<E4M3>({16});
  float c = 1.0f;
  matmul<E4M3, E4M3, BF16>(1.0f, a.data(), 1, b.data(), 1, 1.0f, &c, 1, 1, 1, 1);
  EXPECT_EQ(c, 257.0f);
}

// fl(fl(alpha * S) + fl(beta * C)): with S = alpha = 1 + 2^-23 and C = -(1 + 2^-22),
// alpha * S = 1 + 2^-22 + 2^-46 rounds to 1 + 2^-22 and the sum is exactly +0, where
// one fused rounding would give 2^-46.
TEST(MatmulSemantics, EpilogueRoundsProductsThenSum) {
  const float s = 1.0f + 0x1p-23f;
  const Codes<FP32> a{bits_of(s)};
  const Codes<FP32> b{bits_of(1.0f)};
  float c = 1.0f + 0x1p-22f;
  matmul<FP32, FP32>(s, a.data(), 1, b.data(), 1, -1.0f, &c, 1, 1, 1, 1);
  EXPECT_EQ(bits_of(c), 0u);
}

// Sub-matrices of larger arrays: the result equals the dense product, and the padding
// of C between rows is never written.
TEST(MatmulSemantics, LeadingDimensions) {
  std::mt19937_64 rng(7);
  for (const auto [m, n, k] : {std::array<std::size_t, 3>{1, 9, 5}, {19, 37, 300}, {150, 3, 2}}) {
    const std::size_t lda = k + 3, ldb = n + 5, ldc = n + 2;
    const Codes<E4M3> a_wide = matmul_test::random_codes<E4M3>(m * lda, rng);
    const Codes<BF16> b_wide = matmul_test::random_codes<BF16>(k * ldb, rng);
    Codes<E4M3> a(m * k);
    Codes<BF16> b(k * n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t p = 0; p < k; ++p) a[i * k + p] = a_wide[i * lda + p];
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t j = 0; j < n; ++j) b[p * n + j] = b_wide[p * ldb + j];
    for (const MatmulSummation summation : {MatmulSummation::in_order, MatmulSummation::pairs}) {
      std::vector<float> dense(m * n), strided(m * ldc, -7.0f);
      matmul<E4M3, BF16>(a.data(), b.data(), dense.data(), m, n, k, summation);
      matmul<E4M3, BF16>(a_wide.data(), lda, b_wide.data(), ldb, strided.data(), ldc, m, n, k, summation);
      for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) EXPECT_EQ(bits_of(strided[i * ldc + j]), bits_of(dense[i * n + j]));
        for (std::size_t j = n; j < ldc; ++j) EXPECT_EQ(strided[i * ldc + j], -7.0f) << "padding written";
      }
    }
  }
}

TEST(MatmulSemantics, SizesOfZero) {
  const Codes<E4M3> codes(12, E4M3(1.0).bits());
  std::vector<float> c(6, 5.0f);
  // m or n zero: C has no elements and is left alone; a matrix without elements may be
  // null (B when m = 0 still has k x n elements).
  matmul<E4M3, E4M3>(nullptr, codes.data(), c.data(), 0, 3, 4);
  matmul<E4M3, E4M3>(codes.data(), nullptr, c.data(), 2, 0, 4);
  matmul<E4M3, E4M3>(nullptr, nullptr, nullptr, 0, 0, 4);
  EXPECT_EQ(c, std::vector<float>(6, 5.0f));
  // k zero: the empty sum is +0, then the epilogue.
  matmul<E4M3, E4M3>(nullptr, nullptr, c.data(), 2, 3, 0);
  for (float x : c) EXPECT_EQ(bits_of(x), 0u);
  c.assign(6, 5.0f);
  matmul<E4M3, E4M3, BF16>(3.0f, nullptr, 0, nullptr, 3, 0.5f, c.data(), 3, 2, 3, 0);
  EXPECT_EQ(c, std::vector<float>(6, 2.5f));
}

// Runtime formats with different code types per operand: E4M3 bytes times bf16 codes
// in uint16_t, accumulated in fp16, equal the typed call.
TEST(MatmulSemantics, RuntimeOverloadWithMixedCodeTypes) {
  std::mt19937_64 rng(9);
  const std::size_t m = 5, n = 6, k = 7;
  const Codes<E4M3> a = matmul_test::random_codes<E4M3>(m * k, rng, 4.0);
  const Codes<BF16> b = matmul_test::random_codes<BF16>(k * n, rng, 4.0);
  std::vector<float> typed(m * n), runtime(m * n);
  matmul<E4M3, BF16, FP16>(a.data(), b.data(), typed.data(), m, n, k);
  matmul(a.data(), parse_format("e4m3"), b.data(), parse_format("bf16"), runtime.data(), m, n, k,
         parse_format("fp16"));
  for (std::size_t e = 0; e < m * n; ++e) EXPECT_EQ(bits_of(runtime[e]), bits_of(typed[e]));
  // And the runtime form with the default accumulator is the FP32 path.
  matmul<E4M3, BF16>(a.data(), b.data(), typed.data(), m, n, k);
  matmul(a.data(), E4M3::format, b.data(), BF16::format, runtime.data(), m, n, k);
  for (std::size_t e = 0; e < m * n; ++e) EXPECT_EQ(bits_of(runtime[e]), bits_of(typed[e]));
}

#if defined(__x86_64__) || defined(__i386__)
// A caller's flush-to-zero, denormals-are-zero and round-toward-zero change nothing:
// 2^-70 * 2^-70 = 2^-140 is an fp32 subnormal (zero under FTZ), and 1 + 1.5 * 2^-23
// lies halfway between 1 + 2^-23 and 1 + 2^-22, so round to nearest even gives
// 1 + 2^-22 where toward zero gives 1 + 2^-23.
TEST(MatmulSemantics, IgnoresTheCallersFloatEnvironment) {
  const Codes<BF16> tiny = codes_of<BF16>({0x1p-70, 0x1p-70});
  const Codes<BF16> tiny_b = codes_of<BF16>({0x1p-70, 0x1p-70});
  const Codes<FP32> ones{bits_of(1.0f), bits_of(0x1.8p-23f)};
  const Codes<FP32> unit{bits_of(1.0f), bits_of(1.0f)};
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u /* FTZ, DAZ */ | 0x6000u /* toward zero */);
  std::vector<float> c(2, -1.0f);
  matmul<BF16, BF16>(tiny.data(), tiny_b.data(), c.data(), 2, 1, 1);  // GEMM path
  const float gemm_subnormal = c[0];
  matmul<BF16, BF16>(tiny.data(), tiny_b.data(), c.data(), 1, 1, 1);  // matrix-vector path
  const float matvec_subnormal = c[0];
  float rounded = 0;
  matmul<FP32, FP32>(ones.data(), unit.data(), &rounded, 1, 1, 2);  // 1 * 1 + 1.5 * 2^-23 * 1
  const unsigned during = _mm_getcsr();
  _mm_setcsr(saved);
  EXPECT_EQ(during & 0xE040u, 0xE040u) << "the caller's settings were not restored";
  EXPECT_EQ(gemm_subnormal, 0x1p-140f);
  EXPECT_EQ(matvec_subnormal, 0x1p-140f);
  EXPECT_EQ(rounded, 1.0f + 0x1p-22f);
}
#endif

TEST(MatmulArguments, BadArgumentsThrow) {
  const Codes<E4M3> a(12), b(12);
  const Codes<BF16> wide(12);
  std::vector<float> c(16);
  expect_invalid([&] { matmul<E4M3, E4M3>(nullptr, b.data(), c.data(), 2, 2, 3); }, "A is null");
  expect_invalid([&] { matmul<E4M3, E4M3>(a.data(), nullptr, c.data(), 2, 2, 3); }, "B is null");
  expect_invalid([&] { matmul<E4M3, E4M3>(a.data(), b.data(), nullptr, 2, 2, 3); }, "C is null");
  expect_invalid([&] { matmul<E4M3, E4M3>(a.data(), 2, b.data(), 2, c.data(), 2, 2, 2, 3); }, "lda = 2");
  expect_invalid([&] { matmul<E4M3, E4M3>(a.data(), 3, b.data(), 1, c.data(), 2, 2, 2, 3); }, "ldb = 1");
  expect_invalid([&] { matmul<E4M3, E4M3>(a.data(), 3, b.data(), 2, c.data(), 1, 2, 2, 3); }, "ldc = 1");
  // A format wider than its code type, for each operand.
  expect_invalid([&] { matmul(a.data(), BF16::format, b.data(), E4M3::format, c.data(), 2, 2, 3); },
                 "does not fit its 8-bit codes");
  expect_invalid([&] { matmul(a.data(), E4M3::format, b.data(), parse_format("e5m10:bias=3"), c.data(), 2, 2, 3); },
                 "B's format");
  expect_invalid([&] { matmul(wide.data(), FP32::format, b.data(), E4M3::format, c.data(), 2, 2, 3); },
                 "16-bit codes");
  // Formats that are not formats.
  Format broken = E4M3::format;
  broken.exponent_bits = 0;
  expect_invalid([&] { matmul(a.data(), broken, b.data(), E4M3::format, c.data(), 2, 2, 3); }, "invalid format for A");
  expect_invalid([&] { matmul(a.data(), E4M3::format, b.data(), E4M3::format, c.data(), 2, 2, 3, broken); },
                 "invalid format for the accumulator");
  // Sizes whose last element cannot be addressed.
  const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
  expect_invalid([&] { matmul<E4M3, E4M3>(a.data(), huge, b.data(), 2, c.data(), 2, 3, 2, 2); }, "too large");
}

}  // namespace
}  // namespace softfloat
