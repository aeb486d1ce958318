// Work (softfloat/cost/work.hpp): parallel rounds of 64^3 on 1, 64, 4096 and 8192 cores,
// one core against counted_matmul's own step count, the 0.14 ms of 2 * 4096^3 FLOPs at
// 1e15 FLOP/s, the 0.69 s training step, and the argument checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "softfloat/cost/work.hpp"
#include "softfloat/matmul_model.hpp"

namespace softfloat::cost {
namespace {

TEST(ParallelRounds, SixtyFourCubedOnMoreAndMoreCores) {
  EXPECT_EQ(parallel_rounds(64, 64, 64, 1), 262144u);  // 4096 cells x 64 steps
  EXPECT_EQ(parallel_rounds(64, 64, 64, 64), 4096u);   // 64 cells a core
  EXPECT_EQ(parallel_rounds(64, 64, 64, 4096), 64u);   // a cell a core
  EXPECT_EQ(parallel_rounds(64, 64, 64, 8192), 64u);   // half the cores idle: k steps remain
}

TEST(ParallelRounds, UnevenSplitsRoundUp) {
  // 3 x 5 = 15 cells on 4 cores: 4, 4, 4, 3 cells, so 4 rounds of cells, each 7 steps.
  EXPECT_EQ(parallel_rounds(3, 5, 7, 4), 28u);
  EXPECT_EQ(parallel_rounds(3, 5, 7, 15), 7u);
  EXPECT_EQ(parallel_rounds(0, 5, 7, 4), 0u);
  EXPECT_EQ(parallel_rounds(3, 5, 0, 4), 0u);
}

// On one core every multiply-add step is a round: the rounds are counted_matmul's
// multiplies (one per step), and twice them its FLOPs, matmul_flops.
TEST(ParallelRounds, OneCoreIsTheCountedTripleLoop) {
  const std::size_t m = 3, n = 5, k = 7;
  std::vector<double> a(m * k, 1.0), b(k * n, 2.0);
  const CountedMatmul counted = counted_matmul(a, b, m, n, k);
  EXPECT_EQ(parallel_rounds(m, n, k, 1), counted.multiplies);
  EXPECT_EQ(2 * parallel_rounds(m, n, k, 1), counted.flops());
  EXPECT_EQ(2 * parallel_rounds(m, n, k, 1), matmul_flops(m, n, k));
}

TEST(ComputeTime, MatmulOf4096AtOnePetaflop) {
  // 2 * 4096^3 = 137438953472 FLOPs; / 1e15 = 1.37438953472e-4 s = 0.14 ms.
  EXPECT_EQ(matmul_flops(4096, 4096, 4096), 137438953472u);
  const double seconds = matmul_seconds(4096, 4096, 4096, 1e15);
  EXPECT_NEAR(seconds, 1.37438953472e-4, 1e-18);
  EXPECT_NEAR(seconds * 1e3, 0.14, 0.005);
  EXPECT_EQ(compute_seconds(0, 1e15), 0.0);
}

TEST(ComputeTime, TrainingStepIsSixPD) {
  // 6 * 7e9 * 16384 = 6.88128e14 FLOPs; at 1e15 FLOP/s 0.688128 s, the 0.69 s of the issue.
  EXPECT_DOUBLE_EQ(training_flops(7e9, 16384), 6.88128e14);
  const double seconds = training_step_seconds(7e9, 16384, 1e15);
  EXPECT_NEAR(seconds, 0.688128, 1e-12);
  EXPECT_NEAR(seconds, 0.69, 0.005);
}

TEST(WorkErrors, BadArguments) {
  EXPECT_THROW(parallel_rounds(64, 64, 64, 0), std::invalid_argument);
  EXPECT_THROW(parallel_rounds(std::uint64_t{1} << 33, std::uint64_t{1} << 33, 1, 1), std::invalid_argument);
  EXPECT_THROW(parallel_rounds(std::uint64_t{1} << 32, std::uint64_t{1} << 16, std::uint64_t{1} << 20, 1),
               std::invalid_argument);
  EXPECT_THROW(compute_seconds(1e12, 0), std::invalid_argument);
  EXPECT_THROW(compute_seconds(1e12, -1e15), std::invalid_argument);
  EXPECT_THROW(compute_seconds(-1, 1e15), std::invalid_argument);
  EXPECT_THROW(training_step_seconds(7e9, -1, 1e15), std::invalid_argument);
  EXPECT_THROW(training_flops(-7e9, 16384), std::invalid_argument);
  try {
    parallel_rounds(64, 64, 64, 0);
    FAIL() << "zero cores accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "softfloat::cost::parallel_rounds: the number of cores must be at least 1; got 0");
  }
}

}  // namespace
}  // namespace softfloat::cost
