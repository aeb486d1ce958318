// Memory and the roofline (softfloat/cost/memory_hierarchy.hpp, roofline.hpp): the
// illustrative table, 16e9 bytes in 4.78 ms from HBM and 320 ms from host memory (a
// ratio of 67), the ridge point of about 299 FLOPs per byte, which kernels are memory-
// or compute-bound and how fast they can run, and the argument checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "softfloat/cost/memory_hierarchy.hpp"
#include "softfloat/cost/roofline.hpp"
#include "softfloat/matmul_model.hpp"

namespace softfloat::cost {
namespace {

TEST(MemoryHierarchy, IllustrativeLevels) {
  ASSERT_EQ(kIllustrativeMemoryHierarchy.size(), 6u);
  const struct {
    const char* name;
    double capacity, bandwidth;
  } expected[] = {{"registers", 20e6, 100e12}, {"on-chip SRAM", 50e6, 20e12}, {"HBM", 80e9, 3.35e12},
                  {"host memory", 1e12, 50e9}, {"local disk", 10e12, 10e9},   {"network", 0, 50e9}};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(kIllustrativeMemoryHierarchy[i].name, expected[i].name);
    EXPECT_EQ(kIllustrativeMemoryHierarchy[i].capacity_bytes, expected[i].capacity);
    EXPECT_EQ(kIllustrativeMemoryHierarchy[i].bytes_per_second, expected[i].bandwidth);
    EXPECT_EQ(&illustrative_memory_level(expected[i].name), &kIllustrativeMemoryHierarchy[i]);
  }
  // Fastest first, each store larger than the one above it.
  for (std::size_t i = 1; i < 5; ++i) {
    EXPECT_LT(kIllustrativeMemoryHierarchy[i].bytes_per_second, kIllustrativeMemoryHierarchy[i - 1].bytes_per_second);
    EXPECT_GT(kIllustrativeMemoryHierarchy[i].capacity_bytes, kIllustrativeMemoryHierarchy[i - 1].capacity_bytes);
  }
  EXPECT_THROW(illustrative_memory_level("hbm3"), std::invalid_argument);
}

TEST(Transfer, SixteenGigabytesOfWeights) {
  const double hbm = transfer_seconds(16e9, illustrative_memory_level("HBM").bytes_per_second);
  const double host = transfer_seconds(16e9, illustrative_memory_level("host memory").bytes_per_second);
  EXPECT_NEAR(hbm * 1e3, 4.776119, 1e-6);  // 16e9 / 3.35e12
  EXPECT_NEAR(hbm * 1e3, 4.78, 0.005);
  EXPECT_DOUBLE_EQ(host, 0.32);  // 16e9 / 50e9
  EXPECT_NEAR(host / hbm, 67.0, 0.5);
  EXPECT_EQ(transfer_seconds(0, 1e9), 0.0);
}

TEST(Roofline, RidgePoint) {
  const Roofline machine{1e15, 3.35e12};
  EXPECT_NEAR(ridge_intensity(machine), 298.507463, 1e-6);  // 1e15 / 3.35e12
  EXPECT_NEAR(ridge_intensity(machine), 299, 0.5);
}

TEST(Roofline, BoundAndAttainableRate) {
  const Roofline machine{1e15, 3.35e12};
  // The tiled 4096 matmul of matmul_model.hpp: 63.0 FLOPs per byte in bf16, 126.0 in
  // fp8, both below the ridge point: memory-bound at intensity x bandwidth.
  const double bf16 = matmul_intensity(4096, 128, 2), fp8 = matmul_intensity(4096, 128, 1);
  EXPECT_NEAR(bf16, 4096.0 / 65, 1e-9);
  EXPECT_EQ(bound_at(machine, bf16), Bound::memory);
  EXPECT_EQ(bound_at(machine, fp8), Bound::memory);
  EXPECT_NEAR(attainable_flops_per_second(machine, bf16), 4096.0 / 65 * 3.35e12, 1.0);
  EXPECT_NEAR(attainable_flops_per_second(machine, bf16), 2.111e14, 1e11);
  // Above the ridge the peak is the roof; at the ridge both roofs meet.
  EXPECT_EQ(bound_at(machine, 300), Bound::compute);
  EXPECT_EQ(attainable_flops_per_second(machine, 300), 1e15);
  EXPECT_EQ(attainable_flops_per_second(machine, 1000), 1e15);
  EXPECT_EQ(bound_at(machine, ridge_intensity(machine)), Bound::compute);
  EXPECT_EQ(bound_at(machine, 298), Bound::memory);
  EXPECT_EQ(attainable_flops_per_second(machine, 1), 3.35e12);
  EXPECT_EQ(bound_name(Bound::memory), "memory-bound");
  EXPECT_EQ(bound_name(Bound::compute), "compute-bound");
}

TEST(Roofline, KernelTimeIsTheSlowerRoof) {
  const Roofline machine{1e15, 3.35e12};
  // Decode of 70e9 e4m3 weights: 1.4e11 FLOPs, 70e9 bytes: 20.9 ms of reading against
  // 0.14 ms of arithmetic.
  EXPECT_NEAR(kernel_seconds(machine, 1.4e11, 70e9), 70e9 / 3.35e12, 1e-15);
  // 2 * 4096^3 FLOPs with few bytes: the arithmetic sets the time.
  EXPECT_EQ(kernel_seconds(machine, 137438953472.0, 1e6), 137438953472.0 / 1e15);
}

TEST(MemoryErrors, BadArguments) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_THROW(transfer_seconds(16e9, 0), std::invalid_argument);
  EXPECT_THROW(transfer_seconds(16e9, -50e9), std::invalid_argument);
  EXPECT_THROW(transfer_seconds(16e9, nan), std::invalid_argument);
  EXPECT_THROW(transfer_seconds(16e9, inf), std::invalid_argument);
  EXPECT_THROW(transfer_seconds(-1, 50e9), std::invalid_argument);
  EXPECT_THROW(transfer_seconds(nan, 50e9), std::invalid_argument);
  EXPECT_THROW(ridge_intensity({0, 3.35e12}), std::invalid_argument);
  EXPECT_THROW(ridge_intensity({1e15, -3.35e12}), std::invalid_argument);
  EXPECT_THROW(bound_at({1e15, 3.35e12}, 0), std::invalid_argument);
  EXPECT_THROW(attainable_flops_per_second({1e15, 3.35e12}, -1), std::invalid_argument);
  EXPECT_THROW(attainable_flops_per_second({1e15, 3.35e12}, nan), std::invalid_argument);
  EXPECT_THROW(kernel_seconds({1e15, 3.35e12}, -1, 0), std::invalid_argument);
  try {
    transfer_seconds(16e9, -50e9);
    FAIL() << "a negative bandwidth accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "softfloat::cost::transfer_seconds: the bandwidth in bytes per second must be a "
                               "positive finite number; got -5e+10");
  }
}

}  // namespace
}  // namespace softfloat::cost
