// matmul with the default FP32 accumulator against an fp64 reference over the decoded
// inputs: every element within gamma_k(2^-24) * sum |a||b| (plus the reference's own
// gamma_k(2^-53) share) for E4M3 x E4M3, BF16 x BF16, E5M2 x E4M3, FP16 x FP16,
// E2M1 x E2M1 and E4M3 x BF16, over every combination of m, n, k in {1, 2, 17, 64},
// shapes with 257, shapes that cross the GEMM's block sizes (144 rows, depth 512, 4096
// columns), and 1024^3 (E4M3 and BF16) checked on a sample of rows. Each product in
// both summation orders, in_order and pairs (fastest is one of the two on every CPU;
// pairs is the in-order chain where the CPU lacks vdpbf16ps). About 6 s in Release,
// 24 s under the sanitizers.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "verify/common/format_test_names.hpp"
#include "verify/matmul/matmul_test_support.hpp"

namespace softfloat {
namespace {

using matmul_test::Codes;
using matmul_test::count_outside_bound;
using matmul_test::random_codes;
using matmul_test::Shape;

template <class A, class B>
struct Pair {
  using FA = A;
  using FB = B;
};
using Pairs = ::testing::Types<Pair<E4M3, E4M3>, Pair<BF16, BF16>, Pair<E5M2, E4M3>, Pair<FP16, FP16>,
                               Pair<E2M1, E2M1>, Pair<E4M3, BF16>>;
struct PairNames {
  template <class P>
  static std::string GetName(int) {
    return test_names::identifier_of(format_name(P::FA::format) + "_x_" + format_name(P::FB::format));
  }
};

template <class P>
class Fp32Accuracy : public ::testing::Test {};
TYPED_TEST_SUITE(Fp32Accuracy, Pairs, PairNames);

// Multiplies random m x k and k x n matrices and checks the given rows (all of them
// when none are given) against the fp64 reference.
template <class FA, class FB>
void check_shape(const Shape& s, std::mt19937_64& rng, std::vector<std::size_t> rows = {}) {
  const Codes<FA> a = random_codes<FA>(s.m * s.k, rng);
  const Codes<FB> b = random_codes<FB>(s.k * s.n, rng);
  if (rows.empty()) rows = matmul_test::all_rows(s.m);
  for (const MatmulSummation summation : {MatmulSummation::in_order, MatmulSummation::pairs}) {
    std::vector<float> c(s.m * s.n, -1.0f);
    matmul<FA, FB>(a.data(), b.data(), c.data(), s.m, s.n, s.k, summation);
    const std::string what = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + ", " +
                             std::string(matmul_kernel_name(matmul_path<FA, FB>(s.m, s.n, s.k, summation)));
    EXPECT_EQ((count_outside_bound<FA, FB>(a, b, c, rows, s.n, s.k, 0x1p-24, what)), 0u) << what;
  }
}

TYPED_TEST(Fp32Accuracy, EverySmallShape) {
  using FA = typename TypeParam::FA;
  using FB = typename TypeParam::FB;
  std::mt19937_64 rng(1);
  const std::array<std::size_t, 4> sizes{1, 2, 17, 64};
  for (std::size_t m : sizes)
    for (std::size_t n : sizes)
      for (std::size_t k : sizes) check_shape<FA, FB>({m, n, k}, rng);
}

TYPED_TEST(Fp32Accuracy, ShapesWith257AndOddShapes) {
  using FA = typename TypeParam::FA;
  using FB = typename TypeParam::FB;
  std::mt19937_64 rng(2);
  const Shape shapes[] = {{257, 257, 257}, {1, 257, 257}, {257, 1, 257}, {257, 257, 1}, {2, 257, 17},
                          {17, 2, 257},    {257, 17, 2},  {3, 5, 7},     {13, 29, 31},  {1, 3, 1000}};
  for (const Shape& s : shapes) check_shape<FA, FB>(s, rng);
}

// Row blocks of 144, depth blocks of 512 and column panels of 4096 (matmul/blocking.hpp):
// edges of each, and several of each, so the running sums cross blocks.
TYPED_TEST(Fp32Accuracy, ShapesAcrossGemmBlocks) {
  using FA = typename TypeParam::FA;
  using FB = typename TypeParam::FB;
  std::mt19937_64 rng(3);
  const Shape shapes[] = {{145, 33, 513}, {300, 7, 256}, {5, 4100, 3}, {2, 4097, 300}, {1, 4100, 520}};
  for (const Shape& s : shapes) check_shape<FA, FB>(s, rng);
}

// 1024^3 for the two pairs the benchmarks time (the kernels do not depend on the
// formats, whose decoding the other tests cover), on rows in the first, a middle and
// the last row block, at tile edges and inside.
TEST(Fp32Accuracy1024, SampledRows) {
  std::mt19937_64 rng(4);
  const std::vector<std::size_t> rows{0, 11, 143, 144, 517, 1019, 1023};
  check_shape<E4M3, E4M3>({1024, 1024, 1024}, rng, rows);
  check_shape<BF16, BF16>({1024, 1024, 1024}, rng, rows);
}

}  // namespace
}  // namespace softfloat
