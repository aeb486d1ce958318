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

#include <array>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "matmul/bf16_dot.hpp"
#include "matmul/byte_decode.hpp"
#include "matmul/code_matrix.hpp"
#include "matmul/kernels.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/common/format_lists.hpp"
#include "verify/matmul/matmul_test_support.hpp"

namespace softfloat::matmul_test {
namespace {

// Single elements, tile edges (MR = 6 or 12, NR = 2 to 32), a depth beyond one block
// (512), rows beyond one block (144) and columns beyond one panel (4096).
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
      // Both loop shapes of the short decodings (kernel_rule.hpp picks one per CPU).
      for (const std::size_t short_rows : {std::size_t{8}, std::size_t{16}}) {
        std::fill(c.begin(), c.end(), -1.0f);
        matmul_detail::matvec_fp32(a_matrix, b_matrix, c.data(), s.n, s.k, false, short_rows);
        EXPECT_EQ(count_differences(c, expected, "matvec " + what), 0u) << what << ", " << short_rows << " rows a pass";
      }
    }
    // The general accumulator path with Acc = FP32 is the definition too.
    std::fill(c.begin(), c.end(), -1.0f);
    matmul_detail::accumulate_exact(a_matrix, b_matrix, c.data(), s.n, s.m, s.n, s.k, FP32::format);
    EXPECT_EQ(count_differences(c, expected, "exact path " + what), 0u) << what;
  }
}

// The 256 values of a one-byte format, as the matrix-vector path tabulates them.
std::array<float, 256> decode_table_of(const Format& format) {
  std::array<float, 256> table{};
  matmul_detail::CodeMatrix(detail::MatmulOperand{nullptr, 1, format, 0}).decode_table(table.data());
  return table;
}

// One case per target: MatmulEveryTargetGroup/MatmulEveryTarget.<test>/<target>.
//
// On aarch64 the kernel files gemm.cpp, matvec.cpp and exact_accumulation.cpp compile
// NEON alone (no SVE, whose sizeless vectors cannot be the kernels' array elements or
// struct members: matmul/CMakeLists.txt), so Highway dispatches them statically. Under
// an SVE target these cases would run the NEON kernels a second time: they skip, saying
// so. Bf16FitScansEveryValue's file compiles every target and runs under each.
class MatmulEveryTarget : public hwy::TestWithParamTarget {
 protected:
  void SetUp() override {
    hwy::TestWithParamTarget::SetUp();
#if HWY_ARCH_ARM_A64
    constexpr std::int64_t kSve = HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128;
    const std::string name = testing::UnitTest::GetInstance()->current_test_info()->name();
    if ((GetParam() & kSve) != 0 && name.rfind("Bf16FitScansEveryValue", 0) != 0)
      GTEST_SKIP() << "matmul's kernels compile no SVE target (matmul/CMakeLists.txt): NEON runs them";
#endif
  }
  void TearDown() override {
#if HWY_ARCH_ARM_A64
    // A statically dispatched kernel leaves Highway's chosen target unset, which the
    // base class takes for a test that never dispatched.
    if (!hwy::GetChosenTarget().IsInitialized()) hwy::GetChosenTarget().Update(hwy::SupportedTargets());
#endif
    hwy::TestWithParamTarget::TearDown();
  }
};
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

// x of k moderate values (0.25 .. 1, never a product that overflows).
Codes<FP32> moderate_activations(std::size_t k) {
  Codes<FP32> x(k);
  for (std::size_t p = 0; p < k; ++p) x[p] = FP32(0.25 + double(p % 7) / 8).bits();
  return x;
}
// B (k x n) whose row p holds the 256 byte codes rotated by p, repeated along the row.
template <class F>
Codes<F> rotated_byte_codes(std::size_t k, std::size_t n) {
  Codes<F> b(k * n);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j) b[p * n + j] = typename F::storage_type((p + j) % 256);
  return b;
}

// x (1 x 256) times B (256 x 256) whose row p holds every code, rotated by p, so each
// code meets every position of x; x holds moderate values so that only NaN and infinity
// codes make NaN or infinite sums.
template <class F>
void check_every_byte_code() {
  const std::size_t k = 256, n = 256;
  const Codes<FP32> x = moderate_activations(k);
  const Codes<F> b = rotated_byte_codes<F>(k, n);
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
  // Bias 125: the fp32 rule's subnormal scale 2^(1 - 125 - 3) = 2^-127 is not a normal
  // float and the half rule's 2^(15 - 125) is out of its range, so the table-lookup
  // kernel runs.
  check_every_byte_code<Float<4, 3, 125, false>>();
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
// x (1 x 64) times B (64 x n) whose codes run through 0 .. 65535 (with n past 1024, the
// run wraps round), against the definition: the matrix-vector path on every two-byte code.
template <class F>
void check_every_two_byte_code(std::size_t n, const std::string& what) {
  const ScopedSummation in_order(MatmulSummation::in_order);
  const std::size_t k = 64;
  const Codes<FP32> x = moderate_activations(k);
  Codes<F> b(k * n);
  for (std::size_t i = 0; i < k * n; ++i) b[i] = std::uint16_t(i);
  const std::vector<float> expected = definition_loop<FP32, F, FP32>(x, b, 1, n, k);
  std::vector<float> c(n, -1.0f);
  matmul<FP32, F>(x.data(), b.data(), c.data(), 1, n, k);
  EXPECT_EQ(count_differences(c, expected, what), 0u);
}

// Each of the 65536 bf16 codes once (subnormals, infinities, NaNs): the matrix-vector
// path decodes bf16 by a shift in its kernel.
TEST_P(MatmulEveryTarget, MatrixVectorDecodesEveryBf16Code) { check_every_two_byte_code<BF16>(1024, "every bf16 code"); }

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
    ASSERT_EQ(fit.bf16_values(), !(counted && field == 0)) << std::hex << code;
    ASSERT_EQ(fit.pieces(), 1) << std::hex << code;
    ASSERT_EQ(fit.infinities, (code & 0x7FFF) == 0x7F80) << std::hex << code;
    ASSERT_EQ(fit.largest_exponent, counted ? int(field) - 127 : INT_MIN) << std::hex << code;
    ASSERT_EQ(fit.smallest_quantum(), counted ? int(field) - 134 : INT_MAX) << std::hex << code;
  }
  // 10 significant bits need two bf16 pieces, 21 need three; the quantum is then the
  // exponent less 15 or 23.
  for (const auto& [odd_value, pieces] : {std::pair{1.0f + 0x1p-9f, 2}, std::pair{1.0f + 0x1p-20f, 3}})
    for (std::size_t length = 1; length <= 40; ++length)
      for (std::size_t where = 0; where < length; ++where) {
        std::vector<float> values(length, 0.75f);  // exponent -1
        values[where] = odd_value;
        if (where > 0) values[where - 1] = 0x1p-100f;
        matmul_detail::Bf16Fit fit;
        fit.add(values.data(), length);
        const int below = 8 * pieces - 1;
        EXPECT_FALSE(fit.bf16_values()) << length << " " << where;
        EXPECT_EQ(fit.pieces(), pieces) << length << " " << where;
        EXPECT_FALSE(fit.infinities) << length << " " << where;
        EXPECT_EQ(fit.largest_exponent, 0) << length << " " << where;
        EXPECT_EQ(fit.smallest_quantum(), (where > 0 ? -100 : length > 1 ? -1 : 0) - below) << length << " " << where;
      }
}

TEST(MatrixVectorByteDecode, RuleConstantsByHand) {
  struct Case {
    Format format;
    std::uint32_t mask, shift, exponent_offset, first_normal;
    float subnormal_scale;
    std::uint32_t sign_bit, sign_shift, exception_code, exception_from;
  };
  // The exponent offset is (127 - bias) << 23: 120 << 23 = 0x3C00'0000 for E4M3,
  // 112 << 23 = 0x3800'0000 for E5M2, 0 for E8M0, 126 << 23 = 0x3F00'0000 for E2M1. The
  // subnormal scale 2^(1 - bias - M): 2^(1 - 7 - 3) = 2^-9 (E4M3's smallest subnormal,
  // code 0x01), 2^(1 - 15 - 2) = 2^-16 (E5M2's), 2^(1 - 127 - 0) = 2^-126 (E8M0, which
  // has no subnormals: magnitude 0 is the only one below first_normal 1), 2^-1 (E2M1's
  // 0.5). E8M0's code 0 is 2^-127, which the rule makes 0 * 2^-126 = 0: an exception.
  const Case cases[] = {{E4M3::format, 0x7F, 20, 0x3C000000, 8, 0x1p-9f, 0x80, 24, 0x7F, 0x7F},
                        {E5M2::format, 0x7F, 21, 0x38000000, 4, 0x1p-16f, 0x80, 24, 0x7C, 0x7C},
                        {E8M0::format, 0xFF, 23, 0x00000000, 1, 0x1p-126f, 0x00, 23, 0x00, 0xFF},
                        {E2M1::format, 0x07, 22, 0x3F000000, 2, 0x1p-1f, 0x08, 28, 256, 256}};
  for (const Case& c : cases) {
    SCOPED_TRACE(format_name(c.format));
    const auto table = decode_table_of(c.format);
    matmul_detail::ByteDecode d{};
    ASSERT_TRUE(matmul_detail::byte_decode_for(c.format, table.data(), d));
    EXPECT_EQ(d.magnitude_mask, c.mask);
    EXPECT_EQ(d.mantissa_shift, c.shift);
    EXPECT_EQ(d.exponent_offset, c.exponent_offset);
    EXPECT_EQ(d.first_normal, c.first_normal);
    EXPECT_EQ(d.subnormal_scale, c.subnormal_scale);
    EXPECT_EQ(d.sign_bit, c.sign_bit);
    EXPECT_EQ(d.sign_shift, c.sign_shift);
    EXPECT_EQ(d.exception_code, c.exception_code);
    EXPECT_EQ(d.exception_from, c.exception_from);
  }
  // A bias whose subnormal scale 2^(1 - bias - M) is no normal float: no rule (the
  // table kernel runs). Bias 125, M = 3: 2^-127.
  using Unscalable = Float<4, 3, 125, false>;
  matmul_detail::ByteDecode d{};
  EXPECT_FALSE(matmul_detail::byte_decode_for(Unscalable::format, decode_table_of(Unscalable::format).data(), d));
}

// The half rule's constants by hand. E4M3 (0bS'EEEE'MMM): sign-extended and shifted up by
// 10 - 3 = 7, the sign lands on bits 15 and 14, so the mask 0b1'0'1111'111'0000000 =
// 0xBF80 keeps bit 15 and the magnitude at bits 13 .. 7; the fp16 value is 2^(7 - 15)
// times E4M3's, so the scale is 2^8; the NaN magnitude 0x7F (h = 0x3F80, fp16 1.875)
// is the only exception. E5M2 is fp16's top byte: shift 8, mask 0xFF00, scale 1, no
// exception (fp16 infinities and NaNs convert to the table's). E8M0 has 8 exponent
// bits, more than fp16's 5; E2M1 has 4 bits, not 8: no half rule.
TEST(MatrixVectorByteDecode, HalfRuleConstantsByHand) {
  struct Case {
    Format format;
    std::uint32_t shift, mask;
    float scale;
    std::uint32_t exception_from;
  };
  const Case cases[] = {{E4M3::format, 7, 0xBF80, 256.0f, 0x7F}, {E5M2::format, 8, 0xFF00, 1.0f, 256}};
  for (const Case& c : cases) {
    SCOPED_TRACE(format_name(c.format));
    const auto table = decode_table_of(c.format);
    matmul_detail::HalfByteDecode d{};
    ASSERT_TRUE(matmul_detail::half_byte_decode_for(c.format, table.data(), d));
    EXPECT_TRUE(d.sign_extend);
    EXPECT_EQ(d.half_shift, c.shift);
    EXPECT_EQ(d.half_mask, c.mask);
    EXPECT_EQ(d.scale, c.scale);
    EXPECT_EQ(d.exception_from, c.exception_from);
  }
  for (const Format& format : {E8M0::format, E2M1::format}) {
    float table[256];
    matmul_detail::CodeMatrix(detail::MatmulOperand{nullptr, 1, format, 0}).decode_table(table);
    matmul_detail::HalfByteDecode d{};
    EXPECT_FALSE(matmul_detail::half_byte_decode_for(format, table, d)) << format_name(format);
  }
}

// byte_code_rules: the table and both rules as derived directly, for more formats than a
// thread remembers (four), asked for twice in turn, so that each is derived again after
// it gave way and never confused with another.
TEST(MatrixVectorByteDecode, RulesRememberedPerFormatAreTheDerivedOnes) {
  const Format formats[] = {E4M3::format, E5M2::format, E8M0::format, E2M1::format,
                            E3M2::format, E2M3::format, E4M3FNUZ::format, E5M2FNUZ::format};
  for (int round = 0; round < 2; ++round) {
    for (const Format& format : formats) {
      SCOPED_TRACE(format_name(format));
      const matmul_detail::ByteCodeRules& rules = matmul_detail::byte_code_rules(format);
      const auto table = decode_table_of(format);
      for (int c = 0; c < 256; ++c)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(rules.table[c]), std::bit_cast<std::uint32_t>(table[std::size_t(c)]))
            << c;
      // Each rule as derived directly, every field (where it applies).
      matmul_detail::HalfByteDecode half{};
      ASSERT_EQ(rules.half_applies, matmul_detail::half_byte_decode_for(format, table.data(), half));
      EXPECT_TRUE(!rules.half_applies || rules.half == half);
      matmul_detail::ByteDecode fp32{};
      ASSERT_EQ(rules.fp32_applies, matmul_detail::byte_decode_for(format, table.data(), fp32));
      EXPECT_TRUE(!rules.fp32_applies || rules.fp32 == fp32);
    }
  }
  // The two named formats the matrix-vector path is built around, by hand (as above).
  EXPECT_TRUE(matmul_detail::byte_code_rules(E4M3::format).half_applies);
  EXPECT_EQ(matmul_detail::byte_code_rules(E4M3::format).half.exception_from, 0x7Fu);
  EXPECT_EQ(matmul_detail::byte_code_rules(E5M2::format).half.exception_from, 256u);
  EXPECT_FALSE(matmul_detail::byte_code_rules(E8M0::format).half_applies);
  // The largest finite magnitudes, as the formats define them: E4M3 1.75 * 2^8, E5M2
  // 1.75 * 2^15, E8M0 2^127, E3M2 1.75 * 2^4, E2M3 1.875 * 2^2, E2M1 1.5 * 2^2.
  EXPECT_EQ(matmul_detail::byte_code_rules(E4M3::format).largest_finite, 448.0f);
  EXPECT_EQ(matmul_detail::byte_code_rules(E5M2::format).largest_finite, 57344.0f);
  EXPECT_EQ(matmul_detail::byte_code_rules(E8M0::format).largest_finite, 0x1p127f);
  EXPECT_EQ(matmul_detail::byte_code_rules(E3M2::format).largest_finite, 28.0f);
  EXPECT_EQ(matmul_detail::byte_code_rules(E2M3::format).largest_finite, 7.5f);
  EXPECT_EQ(matmul_detail::byte_code_rules(E2M1::format).largest_finite, 6.0f);
}

// The scalar fp16 conversion the half rule's exceptions are found with, against FP16's
// decoding (simd::dequantize) on all 65536 codes, NaN payloads included.
TEST(MatrixVectorByteDecode, HalfToFloatEveryCode) {
  std::vector<std::uint16_t> codes(0x10000);
  std::iota(codes.begin(), codes.end(), std::uint16_t{0});
  std::vector<float> values(codes.size());
  simd::dequantize(codes.data(), codes.size(), values.data(), FP16::format);
  for (std::uint32_t h = 0; h < 0x10000; ++h)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(matmul_detail::half_to_float(std::uint16_t(h))),
              std::bit_cast<std::uint32_t>(values[h]))
        << std::hex << h;
}

// Each one-byte decoding of the matrix-vector path alone (matvec_fp32_by_rule) over
// every code of F, as in check_every_byte_code: bit for bit the definition wherever the
// rule applies. The fp32 rule and the table apply to every named format on every
// target; the half rule to E4M3 on every target, and to E5M2 wherever the target
// converts fp16 in hardware (F16C: AVX2 and up; Highway's emulation below turns
// infinities and NaNs into finite values, which the per-call check catches).
template <class F>
void check_every_byte_code_by_rule(std::int64_t target) {
  const std::size_t k = 256, n = 256 + 67;  // a tail past four AVX-512 vectors and one vector
  const Codes<FP32> x = moderate_activations(k);
  const Codes<F> b = rotated_byte_codes<F>(k, n);
  const std::vector<float> expected = definition_loop<FP32, F, FP32>(x, b, 1, n, k);
  const matmul_detail::CodeMatrix a_matrix(operand<FP32>(x, k)), b_matrix(operand<F>(b, n));
  for (const auto rule : {matmul_detail::ByteRule::half, matmul_detail::ByteRule::fp32, matmul_detail::ByteRule::table}) {
    const std::string what = format_name(F::format) + " rule " + std::to_string(int(rule));
    std::vector<float> c(n, -1.0f);
    const bool applied = matmul_detail::matvec_fp32_by_rule(a_matrix, b_matrix, c.data(), n, k, rule);
    if (rule != matmul_detail::ByteRule::half) {
      EXPECT_TRUE(applied) << what;
    }
#if HWY_ARCH_X86
    // E4M3's fp16 codes have no infinities or NaNs, which the emulation gets right too.
    const bool f16c = target <= HWY_AVX2;
    if (rule == matmul_detail::ByteRule::half && F::format == E4M3::format) {
      EXPECT_TRUE(applied) << what;
    }
    if (rule == matmul_detail::ByteRule::half && F::format == E5M2::format) {
      EXPECT_EQ(applied, f16c) << what;
    }
#else
    (void)target;
#endif
    if (applied) {
      EXPECT_EQ(count_differences(c, expected, what), 0u) << what;
    }
  }
}
template <class... F>
void check_every_byte_code_by_rule_of(::testing::Types<F...>, std::int64_t target) {
  (check_every_byte_code_by_rule<F>(target), ...);
}

TEST_P(MatmulEveryTarget, MatrixVectorByteRulesDecodeEveryCode) {
  check_every_byte_code_by_rule_of(test_formats::ByteFormats{}, GetParam());
}

// Weights that are mostly subnormal codes (exponent field 0, as most E4M3 codes of an
// LLM's N(0, 0.05) weights below 2^-6 are), some normal, and a NaN code in a few rows
// only, so that some groups of columns meet an exception and others do not; x of
// normally distributed values. Every rule bit for bit against the definition, and
// then x holding 2^125, whose product with the half rule's scale 2^8 would overflow: the
// half rule refuses that x, and the path falls back to the fp32 rule with the same bits.
template <class F>
void check_mostly_subnormal(std::uint64_t seed) {
  constexpr std::uint32_t mantissa_mask = (1u << F::format.mantissa_bits) - 1;
  const std::size_t k = 300, n = 1000;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Codes<FP32> x(k);
  // x with 8 significant bits, so that products are exact in fp32 and targets without
  // FMA (SSE4) give the definition's bits too.
  for (std::size_t p = 0; p < k; ++p) x[p] = FP32(float(BF16(normal(rng)))).bits();
  Codes<F> b(k * n);
  std::size_t subnormal = 0;
  for (std::size_t i = 0; i < k * n; ++i) {
    const std::uint32_t bits = std::uint32_t(rng());
    const std::uint32_t sign = bits & 0x80;
    std::uint32_t code = sign | (bits >> 8 & mantissa_mask);  // exponent field 0
    if (bits % 10 == 0) code = bits >> 16 & 0xFF;             // any code, one in ten
    if (i / n % 50 == 7 && i % 97 == 3) code = sign | 0x7F;   // E4M3's NaN, E5M2's NaN too
    b[i] = std::uint8_t(code);
    subnormal += (code & 0x7F) <= mantissa_mask;
  }
  ASSERT_GT(subnormal, k * n * 8 / 10);
  const matmul_detail::CodeMatrix b_matrix(operand<F>(b, n));
  for (const bool huge : {false, true}) {
    if (huge) x[k / 2] = FP32(0x1p125).bits();
    const std::vector<float> expected = definition_loop<FP32, F, FP32>(x, b, 1, n, k);
    const matmul_detail::CodeMatrix a_matrix(operand<FP32>(x, k));
    for (const auto rule : {matmul_detail::ByteRule::half, matmul_detail::ByteRule::fp32, matmul_detail::ByteRule::table}) {
      const std::string what = format_name(F::format) + (huge ? " huge x" : "") + " rule " + std::to_string(int(rule));
      std::vector<float> c(n, -1.0f);
      const bool applied = matmul_detail::matvec_fp32_by_rule(a_matrix, b_matrix, c.data(), n, k, rule);
      if (rule != matmul_detail::ByteRule::half) {
        EXPECT_TRUE(applied) << what;
      }
      if (rule == matmul_detail::ByteRule::half && huge && F::format == E4M3::format) {
        EXPECT_FALSE(applied) << what;
      }
      if (applied) {
        EXPECT_EQ(count_differences(c, expected, what), 0u) << what;
      }
    }
    std::vector<float> c(n, -1.0f);
    matmul<FP32, F>(x.data(), b.data(), c.data(), 1, n, k, MatmulSummation::in_order);
    EXPECT_EQ(count_differences(c, expected, "matmul"), 0u) << format_name(F::format);
  }
}

TEST_P(MatmulEveryTarget, MatrixVectorMostlySubnormalWeights) {
  check_mostly_subnormal<E4M3>(11);
  check_mostly_subnormal<E5M2>(12);
}

// Each of the 65536 fp16 codes (subnormals, infinities, signalling and quiet NaNs with
// payloads): the matrix-vector path converts fp16 in its kernel where the target has
// F16C, else through its buffer; the same bits.
TEST_P(MatmulEveryTarget, MatrixVectorDecodesEveryFp16Code) {
  check_every_two_byte_code<FP16>(1024 + 13, "every fp16 code");
}

}  // namespace
}  // namespace softfloat::matmul_test
