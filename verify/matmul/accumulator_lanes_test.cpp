// The low-precision accumulator in vector lanes (matmul/accumulate-inl.h) on every
// Highway target compiled in and supported by this CPU (but SCALAR, which has no vector
// kernel and so has no case), against the scalar definition
// (accumulate_exact_scalar: one ExactValue step rounded by round_to_format() at a time),
// bit for bit, NaN payloads included. Accumulators: BF16, FP16, E5M2, E4M3 (NaN on
// overflow), E3M2 and E2M1 (saturating), E4M3FNUZ and E5M2FNUZ (no -0, no infinity),
// P3109 (8, 3), E8M0 (unsigned, no zero), a custom E3M4 with bias 2. Inputs are fp32
// values drawn to hit Acc's ties, overflow, subnormals and signed zeros, with a few
// infinities and NaNs, and BF16 codes; shapes with m, n, k of 0 or 1, row counts on and
// off the kernel's groups of four, and column counts with tails of every width. The
// MPFR checks (of the scalar definition, and of matmul on such inputs) are
// accumulator_test.cpp's. About a second in Release.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "matmul/code_matrix.hpp"
#include "matmul/kernels.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/matmul/matmul_test_support.hpp"
#include <hwy/tests/hwy_gtest.h>

namespace softfloat::matmul_test {
namespace {

const Format kAccumulators[] = {BF16::format,     FP16::format,          E5M2::format,          E4M3::format,
                                E3M2::format,     E2M1::format,          E4M3FNUZ::format,      E5M2FNUZ::format,
                                P3109<8, 3>::format, E8M0::format,       Float<3, 4, 2>::format};

const Shape kShapes[] = {{1, 1, 0},  {3, 5, 0},   {1, 1, 1},  {1, 17, 1}, {4, 16, 7},  {5, 33, 12},
                         {7, 61, 33}, {2, 200, 3}, {9, 47, 40}, {1, 15, 64}, {4, 31, 100}};

std::size_t count_bit_differences(const std::vector<float>& got, const std::vector<float>& expected,
                                  const std::string& what) {
  std::size_t bad = 0;
  for (std::size_t e = 0; e < expected.size(); ++e)
    if (bits_of(got[e]) != bits_of(expected[e]) && ++bad <= 5)
      ADD_FAILURE() << what << " element " << e << ": 0x" << std::hex << bits_of(got[e]) << " expected 0x"
                    << bits_of(expected[e]) << std::dec;
  return bad;
}

template <class Code>
matmul_detail::CodeMatrix matrix_of(const std::vector<Code>& codes, const Format& format, std::size_t ld) {
  return matmul_detail::CodeMatrix(detail::MatmulOperand{codes.data(), sizeof(Code), format, ld});
}

void check_lanes(const matmul_detail::CodeMatrix& a, const matmul_detail::CodeMatrix& b, const Shape& s,
                 const Format& acc, const std::string& what) {
  std::vector<float> lanes(s.m * s.n, -1.0f), scalar(s.m * s.n, -2.0f);
  matmul_detail::accumulate_exact(a, b, lanes.data(), s.n, s.m, s.n, s.k, acc);
  matmul_detail::accumulate_exact_scalar(a, b, scalar.data(), s.n, s.m, s.n, s.k, acc);
  EXPECT_EQ(count_bit_differences(lanes, scalar, what), 0u) << what;
}

void check_accumulator(const Format& acc, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const Shape& s : kShapes) {
    const std::string what = format_name(acc) + ", " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                             std::to_string(s.k);
    for (bool specials : {false, true}) {
      const std::vector<float> a = adversarial_values(s.m * s.k, acc, rng, specials);
      const std::vector<float> b = adversarial_values(s.k * s.n, acc, rng, specials);
      check_lanes(matrix_of(a, FP32::format, s.k), matrix_of(b, FP32::format, s.n), s, acc,
                  "fp32 inputs" + std::string(specials ? " with inf / NaN, " : ", ") + what);
    }
    const Codes<BF16> a = random_codes<BF16>(s.m * s.k, rng), b = random_codes<BF16>(s.k * s.n, rng);
    check_lanes(matrix_of(a, BF16::format, s.k), matrix_of(b, BF16::format, s.n), s, acc, "bf16 inputs, " + what);
  }
}

// One case per target with a vector kernel (Highway's hwy/tests/hwy_gtest.h):
// AccumulatorInLanesEveryTargetGroup/AccumulatorInLanesEveryTarget.EqualsTheScalarDefinition/
// <target>. Not SCALAR: one lane, no halves to demote into, so matmul runs the scalar
// definition there and has no kernel to check.
std::vector<std::int64_t> vector_targets() {
  std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::erase(targets, std::int64_t{HWY_SCALAR});
  return targets;
}
class AccumulatorInLanesEveryTarget : public hwy::TestWithParamTarget {};
INSTANTIATE_TEST_SUITE_P(AccumulatorInLanesEveryTargetGroup, AccumulatorInLanesEveryTarget,
                         ::testing::ValuesIn(vector_targets()), hwy::TestParamTargetName);

TEST_P(AccumulatorInLanesEveryTarget, EqualsTheScalarDefinition) {
  for (const Format& acc : kAccumulators) EXPECT_TRUE(matmul_detail::accumulator_in_lanes(acc)) << format_name(acc);
  std::uint64_t seed = 1;
  for (const Format& acc : kAccumulators) check_accumulator(acc, seed++);
}

// Columns beyond one block of B (whose width shrinks as k grows) and two threads: the
// same bits as the definition.
TEST(AccumulatorInLanes, BlocksAndThreads) {
  std::mt19937_64 rng(7);
  const Shape s{3, 1100, 300};
  const std::vector<float> a = adversarial_values(s.m * s.k, BF16::format, rng, true);
  const std::vector<float> b = adversarial_values(s.k * s.n, BF16::format, rng, true);
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    check_lanes(matrix_of(a, FP32::format, s.k), matrix_of(b, FP32::format, s.n), s, BF16::format,
                std::to_string(threads) + " threads");
  }
  set_num_threads(1);
}

// Accumulators outside the argument keep the scalar definition.
TEST(AccumulatorInLanes, WiderAccumulatorsStayScalar) {
  EXPECT_FALSE(matmul_detail::accumulator_in_lanes(FP32::format));           // 23 mantissa bits
  EXPECT_FALSE(matmul_detail::accumulator_in_lanes(Float<8, 22>::format));   // 22: fp32 has only one more
  EXPECT_FALSE(matmul_detail::accumulator_in_lanes(FP64::format));
  EXPECT_FALSE(matmul_detail::accumulator_in_lanes(Float<9, 6>::format));    // beyond fp32's exponent range
  EXPECT_TRUE(matmul_detail::accumulator_in_lanes(Float<8, 21>::format));
}

}  // namespace
}  // namespace softfloat::matmul_test
