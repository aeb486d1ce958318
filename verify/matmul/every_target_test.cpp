// The fp32-accumulating paths on every Highway target compiled in and supported by this
// CPU, each its own test case named by the target (Highway's hwy/tests/hwy_gtest.h
// forces it with hwy::SetSupportedTargetsForTest), in the in-order
// summation (the pairs-of-products paths, which are not Highway targets, have
// pairs_of_products_test.cpp): the blocked GEMM, the
// matrix-vector path and the public matmul against the definition (the plain loop over
// softfloat's scalar fma on FP32, c = fma(a, b, c) in k order), bit for bit. The
// inputs' products are exact in fp32, so targets without FMA, whose steps round the
// product first, must give the same bits too. The matrix-vector path is also run over
// every code of each one-byte named format (NaN and infinities included), which covers
// its in-register decoding and its table fallback, and over every bf16 code. A few
// seconds in Release.
#include <gtest/gtest.h>
#include <hwy/tests/hwy_gtest.h>

#include <bit>
#include <climits>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "matmul/bf16_dot.hpp"
#include "matmul/byte_decode.hpp"
#include "matmul/code_matrix.hpp"
#include "matmul/paths.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/common/format_lists.hpp"
#include "verify/matmul/matmul_test_support.hpp"

namespace softfloat::matmul_test {
namespace {

// Single elements, tile edges (MR = 6 or 12, NR = 2 to 32), a depth beyond one block
// (256), rows beyond one block (144) and columns beyond one panel (4096).
const Shape kShapes[] = {{1, 1, 1},    {1, 33, 17},   {1, 1000, 37}, {2, 2, 2},     {7, 13, 300},
                         {13, 40, 260}, {150, 35, 20}, {2, 4100, 2}, {12, 32, 513}, {25, 65, 9}};

template <class F>
detail::MatmulOperand operand(const Codes<F>& codes, std::size_t ld) {
  return detail::MatmulOperand{codes.data(), sizeof(typename F::storage_type), F::format, ld};
}

template <class FA, class FB>
void check_paths(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const Shape& s : kShapes) {
    const Codes<FA> a = random_codes<FA>(s.m * s.k, rng);
    const Codes<FB> b = random_codes<FB>(s.k * s.n, rng);
    const std::vector<float> expected = definition_loop<FA, FB, FP32>(a, b, s.m, s.n, s.k);
    const std::string what = format_name(FA::format) + " x " + format_name(FB::format) + ", " +
                             std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    const matmul_detail::CodeMatrix a_matrix(operand<FA>(a, s.k)), b_matrix(operand<FB>(b, s.n));

    std::vector<float> c(s.m * s.n, -1.0f);
    matmul<FA, FB>(a.data(), b.data(), c.data(), s.m, s.n, s.k);
    EXPECT_EQ(count_differences(c, expected, "matmul " + what), 0u) << what;

    std::fill(c.begin(), c.end(), -1.0f);
    matmul_detail::gemm_fp32(a_matrix, b_matrix, c.data(), s.n, s.m, s.n, s.k);
    EXPECT_EQ(count_differences(c, expected, "gemm " + what), 0u) << what;

    if (s.m == 1) {
      std::fill(c.begin(), c.end(), -1.0f);
      matmul_detail::matvec_fp32(a_matrix, b_matrix, c.data(), s.n, s.k, false);
      EXPECT_EQ(count_differences(c, expected, "matvec " + what), 0u) << what;
    }
    // The general accumulator path with Acc = FP32 is the definition too.
    std::fill(c.begin(), c.end(), -1.0f);
    matmul_detail::accumulate_exact(a_matrix, b_matrix, c.data(), s.n, s.m, s.n, s.k, FP32::format);
    EXPECT_EQ(count_differences(c, expected, "exact path " + what), 0u) << what;
  }
}

// One case per target: MatmulEveryTargetGroup/MatmulEveryTarget.<test>/<target>.
class MatmulEveryTarget : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(MatmulEveryTarget);

TEST_P(MatmulEveryTarget, Fp32PathsEqualTheDefinition) {
  const ScopedSummation in_order(MatmulSummation::in_order);
  const matmul_detail::LoopNestShape tile = matmul_detail::gemm_fp32_shape();
  std::printf("target %s: micro-kernel tile %zu x %zu\n", hwy::TargetName(GetParam()), tile.tile_rows,
              tile.tile_columns);
  check_paths<E4M3, E4M3>(1);
  check_paths<BF16, BF16>(2);
  check_paths<E5M2, E4M3>(3);
  check_paths<FP16, FP16>(4);
  check_paths<E2M1, E2M1>(5);
  check_paths<E4M3, BF16>(6);
}

// x (1 x 256) times B (256 x 256) whose row p holds every code, rotated by p, so each
// code meets every position of x; x holds moderate values so that only NaN and infinity
// codes make NaN or infinite sums.
template <class F>
void check_every_byte_code() {
  const std::size_t k = 256, n = 256;
  Codes<FP32> x(k);
  for (std::size_t p = 0; p < k; ++p) x[p] = FP32(0.25 + double(p % 7) / 8).bits();
  Codes<F> b(k * n);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j) b[p * n + j] = typename F::storage_type((p + j) % 256);
  const std::vector<float> expected = definition_loop<FP32, F, FP32>(x, b, 1, n, k);
  std::vector<float> c(n, -1.0f);
  matmul<FP32, F>(x.data(), b.data(), c.data(), 1, n, k);
  EXPECT_EQ(count_differences(c, expected, "every code of " + format_name(F::format)), 0u) << format_name(F::format);
  // And the same through the GEMM (m = 2: both rows equal).
  Codes<FP32> x2(x);
  x2.insert(x2.end(), x.begin(), x.end());
  std::vector<float> c2(2 * n, -1.0f), expected2(expected);
  expected2.insert(expected2.end(), expected.begin(), expected.end());
  matmul<FP32, F>(x2.data(), b.data(), c2.data(), 2, n, k);
  EXPECT_EQ(count_differences(c2, expected2, "gemm, every code of " + format_name(F::format)), 0u);
}

template <class... F>
void check_every_byte_code_of(::testing::Types<F...>) {
  (check_every_byte_code<F>(), ...);
}

TEST_P(MatmulEveryTarget, MatrixVectorDecodesEveryByteCode) {
  const ScopedSummation in_order(MatmulSummation::in_order);
  check_every_byte_code_of(test_formats::ByteFormats{});
  // Bias -1: the rule's scale 2^(127 - bias) is not a float, so the table-lookup
  // kernel runs.
  check_every_byte_code<Float<4, 3, -1, false>>();
  // Unsigned, no zero, no subnormals: the rule misses codes 0 and 1, so every lane is
  // taken from the table through the exception path.
  check_every_byte_code<Float<7, 1, 63, false, Specials::fn, false, false>>();
}

// The shift-and-scale rule's constants, worked by hand. E4M3 (bias 7, M = 3): the
// magnitude moves up by 23 - 3 = 20 bits and is scaled by 2^(127 - 7) = 2^120; the
// sign, bit 7, moves up by 31 - 7 = 24; the NaNs 0x7F / 0xFF (magnitude 0x7F) are the
// only codes the rule misses. E5M2 (bias 15): shift 21, 2^112, and the rule misses
// the infinities and NaNs, magnitudes 0x7C .. 0x7F. E8M0 (unsigned, bias 127): shift 23,
// scale 1, and it misses code 0 (2^-127, where the rule gives 0) and the NaN 0xFF.
// x (1 x 64) times B (64 x 1024) holding each of the 65536 bf16 codes once (subnormals,
// infinities, NaNs): the matrix-vector path decodes bf16 by a shift in its kernel.
TEST_P(MatmulEveryTarget, MatrixVectorDecodesEveryBf16Code) {
  const ScopedSummation in_order(MatmulSummation::in_order);
  const std::size_t k = 64, n = 1024;
  Codes<FP32> x(k);
  for (std::size_t p = 0; p < k; ++p) x[p] = FP32(0.25 + double(p % 7) / 8).bits();
  Codes<BF16> b(k * n);
  for (std::size_t i = 0; i < k * n; ++i) b[i] = std::uint16_t(i);
  const std::vector<float> expected = definition_loop<FP32, BF16, FP32>(x, b, 1, n, k);
  std::vector<float> c(n, -1.0f);
  matmul<FP32, BF16>(x.data(), b.data(), c.data(), 1, n, k);
  EXPECT_EQ(count_differences(c, expected, "every bf16 code"), 0u);
}

// The scan behind the pairs rule (Bf16Fit::add, a Highway kernel) on every target:
// each of the 65536 bf16 codes alone, and runs of every length up to 40 around one
// value that is no bf16 value, against the rule read off the code by hand.
TEST_P(MatmulEveryTarget, Bf16FitScansEveryValue) {
  for (std::uint32_t code = 0; code < 0x10000; ++code) {
    const float value = std::bit_cast<float>(code << 16);
    const std::uint32_t field = (code >> 7) & 0xFF;
    const bool counted = field != 0xFF && (code & 0x7FFF) != 0;
    matmul_detail::Bf16Fit fit;
    fit.add(&value, 1);
    ASSERT_EQ(fit.bf16_values, !(counted && field == 0)) << std::hex << code;
    ASSERT_EQ(fit.largest_exponent, counted ? int(field) - 127 : INT_MIN) << std::hex << code;
    ASSERT_EQ(fit.smallest_quantum, counted ? int(field) - 134 : INT_MAX) << std::hex << code;
  }
  for (std::size_t length = 1; length <= 40; ++length)
    for (std::size_t where = 0; where < length; ++where) {
      std::vector<float> values(length, 0.75f);  // exponent -1
      values[where] = 1.0f + 0x1p-9f;            // 10 significant bits
      if (where > 0) values[where - 1] = 0x1p-100f;
      matmul_detail::Bf16Fit fit;
      fit.add(values.data(), length);
      EXPECT_FALSE(fit.bf16_values) << length << " " << where;
      EXPECT_EQ(fit.largest_exponent, 0) << length << " " << where;
      EXPECT_EQ(fit.smallest_quantum, where > 0 ? -107 : length > 1 ? -8 : -7) << length << " " << where;
    }
}

TEST(MatrixVectorByteDecode, RuleConstantsByHand) {
  struct Case {
    Format format;
    std::uint32_t mask, shift;
    float scale;
    std::uint32_t sign_bit, sign_shift, exception_code, exception_from;
  };
  const Case cases[] = {{E4M3::format, 0x7F, 20, 0x1p120f, 0x80, 24, 0x7F, 0x7F},
                        {E5M2::format, 0x7F, 21, 0x1p112f, 0x80, 24, 0x7C, 0x7C},
                        {E8M0::format, 0xFF, 23, 1.0f, 0x00, 23, 0x00, 0xFF},
                        {E2M1::format, 0x07, 22, 0x1p126f, 0x08, 28, 256, 256}};
  for (const Case& c : cases) {
    SCOPED_TRACE(format_name(c.format));
    float table[256];
    matmul_detail::CodeMatrix(detail::MatmulOperand{nullptr, 1, c.format, 0}).decode_table(table);
    matmul_detail::ByteDecode d{};
    ASSERT_TRUE(matmul_detail::byte_decode_for(c.format, table, d));
    EXPECT_EQ(d.magnitude_mask, c.mask);
    EXPECT_EQ(d.mantissa_shift, c.shift);
    EXPECT_EQ(d.scale, c.scale);
    EXPECT_EQ(d.sign_bit, c.sign_bit);
    EXPECT_EQ(d.sign_shift, c.sign_shift);
    EXPECT_EQ(d.exception_code, c.exception_code);
    EXPECT_EQ(d.exception_from, c.exception_from);
  }
  // A bias whose scale is no float: no rule (the table kernel runs).
  using Unscalable = Float<4, 3, -1, false>;
  float table[256];
  matmul_detail::CodeMatrix(detail::MatmulOperand{nullptr, 1, Unscalable::format, 0}).decode_table(table);
  matmul_detail::ByteDecode d{};
  EXPECT_FALSE(matmul_detail::byte_decode_for(Unscalable::format, table, d));
}

}  // namespace
}  // namespace softfloat::matmul_test
