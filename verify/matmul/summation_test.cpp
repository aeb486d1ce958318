// The summation order as a parameter of each matmul call (softfloat/matmul_summation.hpp):
//   - a call that names its order gets it, whatever the process-wide default says, in
//     the typed and the runtime forms; a call that names none gets the default;
//   - two threads multiplying the same operands at once, one in order and one by pairs
//     of products, while the process-wide default keeps changing under them, each get
//     the bits of a single-threaded run of their own order, every iteration.
// On a CPU without vdpbf16ps the two orders give the same bits, and the threads test
// says so (it still checks that every result is its order's).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "matmul/bf16_dot.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/matmul/matmul_test_support.hpp"

namespace softfloat::matmul_test {
namespace {

struct Operands {
  Shape shape;
  Codes<E4M3> a, b;
};

Operands random_operands(const Shape& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return {s, random_codes<E4M3>(s.m * s.k, rng), random_codes<E4M3>(s.k * s.n, rng)};
}

std::vector<float> typed_product(const Operands& x, MatmulSummation summation) {
  std::vector<float> c(x.shape.m * x.shape.n, -1.0f);
  matmul<E4M3, E4M3>(x.a.data(), x.b.data(), c.data(), x.shape.m, x.shape.n, x.shape.k, summation);
  return c;
}

std::vector<float> pairs_kernel(const Operands& x) {
  const Shape& s = x.shape;
  const matmul_detail::CodeMatrix a(detail::MatmulOperand{x.a.data(), 1, E4M3::format, s.k});
  const matmul_detail::CodeMatrix b(detail::MatmulOperand{x.b.data(), 1, E4M3::format, s.n});
  std::vector<float> c(s.m * s.n);
  matmul_detail::gemm_bf16_dot(a, b, c.data(), s.n, s.m, s.n, s.k);
  return c;
}

TEST(MatmulSummationPerCall, TheCallsOrderWinsOverTheDefault) {
  const Operands x = random_operands({40, 70, 500}, 1);
  const Shape& s = x.shape;
  const std::vector<float> chain = definition_loop<E4M3, E4M3, FP32>(x.a, x.b, s.m, s.n, s.k);
  const bool vdpbf16ps = matmul_detail::bf16_dot_supported();
  for (const MatmulSummation fallback : {MatmulSummation::fastest, MatmulSummation::in_order, MatmulSummation::pairs}) {
    const ScopedSummation scoped(fallback);
    EXPECT_EQ(count_differences(typed_product(x, MatmulSummation::in_order), chain, "typed, in order"), 0u);
    if (vdpbf16ps) {
      EXPECT_EQ(count_differences(typed_product(x, MatmulSummation::pairs), pairs_kernel(x), "typed, pairs"), 0u);
    }
    // The runtime forms, with and without leading dimensions.
    std::vector<float> c(s.m * s.n, -1.0f);
    matmul(x.a.data(), E4M3::format, x.b.data(), E4M3::format, c.data(), s.m, s.n, s.k, binary32_format,
           MatmulSummation::in_order);
    EXPECT_EQ(count_differences(c, chain, "runtime, in order"), 0u);
    std::fill(c.begin(), c.end(), -1.0f);
    matmul(1.0f, x.a.data(), E4M3::format, s.k, x.b.data(), E4M3::format, s.n, 0.0f, c.data(), s.n, s.m, s.n, s.k,
           binary32_format, MatmulSummation::in_order);
    EXPECT_EQ(count_differences(c, chain, "runtime with leading dimensions, in order"), 0u);
    // Naming no order takes the default.
    std::vector<float> by_default(s.m * s.n);
    matmul<E4M3, E4M3>(x.a.data(), x.b.data(), by_default.data(), s.m, s.n, s.k);
    EXPECT_EQ(count_differences(by_default, typed_product(x, fallback), "the default"), 0u);
  }
  if (vdpbf16ps) {
    // The two orders differ on these inputs, so the checks above tell them apart.
    std::size_t differing = 0;
    const std::vector<float> pairs = pairs_kernel(x);
    for (std::size_t e = 0; e < chain.size(); ++e) differing += bits_of(pairs[e]) != bits_of(chain[e]);
    EXPECT_GT(differing, chain.size() / 10);
  }
  EXPECT_THROW(typed_product(x, static_cast<MatmulSummation>(9)), std::invalid_argument);
}

TEST(MatmulSummationPerCall, TwoThreadsEachGetTheirOwnOrder) {
  const Operands x = random_operands({24, 96, 400}, 2);
  const std::vector<float> in_order = typed_product(x, MatmulSummation::in_order);
  const std::vector<float> pairs = typed_product(x, MatmulSummation::pairs);
  std::size_t differing = 0;
  for (std::size_t e = 0; e < in_order.size(); ++e) differing += bits_of(pairs[e]) != bits_of(in_order[e]);
  std::printf("the two orders differ in %zu of %zu elements%s\n", differing, in_order.size(),
              matmul_detail::bf16_dot_supported() ? "" : " (no vdpbf16ps here: pairs is the in-order chain)");
  if (matmul_detail::bf16_dot_supported()) {
    EXPECT_GT(differing, in_order.size() / 10);
  }

  constexpr int kIterations = 300;
  std::atomic<int> wrong_in_order{0}, wrong_pairs{0};
  std::atomic<bool> done{false};
  const auto worker = [&](MatmulSummation summation, const std::vector<float>& expected, std::atomic<int>& wrong) {
    for (int i = 0; i < kIterations; ++i) {
      const std::vector<float> c = typed_product(x, summation);
      for (std::size_t e = 0; e < c.size(); ++e)
        if (bits_of(c[e]) != bits_of(expected[e])) {
          ++wrong;
          break;
        }
    }
  };
  const ScopedSummation saved(matmul_summation());
  // The process-wide default flips all the while: calls that name their order ignore it.
  std::thread flipper([&] {
    for (int i = 0; !done.load(); ++i) {
      set_matmul_summation(i % 2 ? MatmulSummation::pairs : MatmulSummation::in_order);
      std::this_thread::yield();
    }
  });
  std::thread first(worker, MatmulSummation::in_order, std::cref(in_order), std::ref(wrong_in_order));
  std::thread second(worker, MatmulSummation::pairs, std::cref(pairs), std::ref(wrong_pairs));
  first.join();
  second.join();
  done.store(true);
  flipper.join();
  EXPECT_EQ(wrong_in_order.load(), 0) << "in-order results that were not the in-order bits, of " << kIterations;
  EXPECT_EQ(wrong_pairs.load(), 0) << "pairs results that were not the pairs bits, of " << kIterations;
}

}  // namespace
}  // namespace softfloat::matmul_test
