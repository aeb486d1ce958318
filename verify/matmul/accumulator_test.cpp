// matmul with a low-precision accumulator (Acc = BF16, FP16, E5M2): element for element
// the definition, the plain loop over softfloat's scalar fma in k order; that loop
// spot-checked against a chain of MPFR fused multiply-adds rounded to Acc by the MPFR
// reference (reference/); the fp64 bound with u = 2^-8 (BF16) / 2^-11 (FP16); and
// matmul's vector path against that MPFR chain on adversarial inputs; the stagnation
// that an all-positive k = 4096 sum shows in BF16 (relative error above
// 1e-2) and FP32 accumulation avoids (below 1e-5). A few seconds in Release.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"
#include "verify/matmul/matmul_test_support.hpp"

namespace softfloat::matmul_test {
namespace {

const Shape kShapes[] = {{1, 1, 1}, {2, 3, 4}, {17, 17, 17}, {1, 64, 257}, {5, 33, 300}, {64, 2, 64}};

// Inputs of magnitude at most 8 keep every partial sum of these shapes (at most 300
// products of at most 64) inside each accumulator's range: E5M2's max is 57344.
template <class FA, class FB, class Acc>
void check_against_definition(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const Shape& s : kShapes) {
    const Codes<FA> a = random_codes<FA>(s.m * s.k, rng, 8.0);
    const Codes<FB> b = random_codes<FB>(s.k * s.n, rng, 8.0);
    std::vector<float> c(s.m * s.n);
    matmul<FA, FB, Acc>(a.data(), b.data(), c.data(), s.m, s.n, s.k);
    const std::string what = format_name(FA::format) + " x " + format_name(FB::format) + " in " +
                             format_name(Acc::format) + ", " + std::to_string(s.m) + "x" + std::to_string(s.n) +
                             "x" + std::to_string(s.k);
    EXPECT_EQ(count_differences(c, definition_loop<FA, FB, Acc>(a, b, s.m, s.n, s.k), what), 0u) << what;
  }
}

TEST(LowPrecisionAccumulator, MatchesTheScalarFmaLoop) {
  check_against_definition<E4M3, E4M3, BF16>(1);
  check_against_definition<E4M3, E4M3, FP16>(2);
  check_against_definition<E5M2, E4M3, BF16>(3);
  check_against_definition<BF16, BF16, BF16>(4);
  check_against_definition<FP16, FP16, FP16>(5);
  check_against_definition<E2M1, E2M1, E5M2>(6);
  check_against_definition<E2M1, E4M3, FP16>(7);
}

// The MPFR chain of one element: from +0, sum = mpfr_fma(x(p), y(p), sum) rounded to Acc
// by verify::reference_compute for p = 0 .. k-1 (x and y give float values, exact in
// MPFR); a sum that reaches NaN stays NaN.
template <class X, class Y>
float mpfr_chain(std::size_t k, const Format& acc, X x_of, Y y_of) {
  verify::Mpfr x(64), y(64), sum(64);
  std::uint64_t code = acc.zero_code(false);
  for (std::size_t p = 0; p < k && !acc.is_nan(code); ++p) {
    mpfr_set_d(x.get(), x_of(p), MPFR_RNDN);
    mpfr_set_d(y.get(), y_of(p), MPFR_RNDN);
    verify::exact_value_of(sum.get(), code, acc);
    code = verify::reference_compute(
        [&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_fma(out, x.get(), y.get(), sum.get(), r); }, acc);
  }
  return float(verify::reference_value(code, acc));
}

// The definition loop itself, against MPFR: each step is mpfr_fma on the exact values,
// rounded once to Acc by verify::reference_compute (which shares no rounding code with
// the library). Whole columns of a k = 300 product, so every element runs 300 steps.
template <class FA, class FB, class Acc>
void check_loop_against_mpfr(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::size_t m = 2, n = 3, k = 300;
  const Codes<FA> a = random_codes<FA>(m * k, rng, 8.0);
  const Codes<FB> b = random_codes<FB>(k * n, rng, 8.0);
  const std::vector<float> loop = definition_loop<FA, FB, Acc>(a, b, m, n, k);
  const Format acc = Acc::format;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const float expected = mpfr_chain(
          k, acc, [&](std::size_t p) { return value_of<FA>(a[i * k + p]); },
          [&](std::size_t p) { return value_of<FB>(b[p * n + j]); });
      EXPECT_EQ(loop[i * n + j], expected) << format_name(acc) << " element (" << i << ", " << j << ")";
    }
}

TEST(LowPrecisionAccumulator, ScalarFmaLoopMatchesMpfr) {
  check_loop_against_mpfr<E4M3, E4M3, BF16>(11);
  check_loop_against_mpfr<FP16, FP16, FP16>(12);
  check_loop_against_mpfr<E2M1, E5M2, E5M2>(13);
}

// matmul itself (the vector path, matmul/accumulate-inl.h) against the same MPFR chain,
// on fp32 inputs drawn to put products on Acc's midpoints beside running sums too small
// for a double to hold with them, to overflow Acc (to infinity, to NaN, saturating) and
// to reach its subnormals (matmul_test_support.hpp, adversarial_values). A chain that
// reaches NaN stays NaN.
template <class Acc>
void check_matmul_against_mpfr(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::size_t m = 5, n = 19, k = 40;
  const Format acc = Acc::format;
  const std::vector<float> a = adversarial_values(m * k, acc, rng, false);
  const std::vector<float> b = adversarial_values(k * n, acc, rng, false);
  Codes<FP32> a_codes(a.size()), b_codes(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a_codes[i] = bits_of(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b_codes[i] = bits_of(b[i]);
  std::vector<float> c(m * n);
  matmul<FP32, FP32, Acc>(a_codes.data(), b_codes.data(), c.data(), m, n, k);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const float expected = mpfr_chain(
          k, acc, [&](std::size_t p) { return double(a[i * k + p]); }, [&](std::size_t p) { return double(b[p * n + j]); });
      const float got = c[i * n + j];
      EXPECT_TRUE(std::isnan(expected) ? std::isnan(got) : bits_of(got) == bits_of(expected))
          << format_name(acc) << " element (" << i << ", " << j << "): " << got << " expected " << expected;
    }
}

TEST(LowPrecisionAccumulator, VectorPathMatchesMpfr) {
  check_matmul_against_mpfr<BF16>(41);
  check_matmul_against_mpfr<FP16>(42);
  check_matmul_against_mpfr<E5M2>(43);
  check_matmul_against_mpfr<E4M3>(44);
  check_matmul_against_mpfr<E3M2>(45);
  check_matmul_against_mpfr<E5M2FNUZ>(46);
  check_matmul_against_mpfr<Float<3, 4, 2>>(47);
}

// A product on a BF16 midpoint, 1 + 2^-8 (halfway between 1 and 1 + 2^-7), added to a
// running sum 2^-e: the exact sum lies above the midpoint, so it rounds up to
// 1 + 2^-7 = 1.0078125 for every e. Rounded to nearest in double (e > 52) or in float
// (e > 23) first, the sum would be the midpoint itself and round to even, to 1. Column
// j has e = 10 + 5j: both cases, across a whole vector and its tail.
TEST(LowPrecisionAccumulator, MidpointBesideATinySumRoundsUp) {
  const std::size_t n = 21, k = 2;
  const Codes<FP32> a = {FP32(1.0f).bits(), FP32(1.0f + 0x1p-8f).bits()};
  Codes<FP32> b(k * n);
  for (std::size_t j = 0; j < n; ++j) {
    b[j] = FP32(std::ldexp(1.0f, -10 - 5 * int(j))).bits();
    b[n + j] = FP32(1.0f).bits();
  }
  std::vector<float> c(n);
  matmul<FP32, FP32, BF16>(a.data(), b.data(), c.data(), 1, n, k);
  for (std::size_t j = 0; j < n; ++j) EXPECT_EQ(c[j], 1.0078125f) << "column " << j;
}

// Within gamma_k(u) * sum |a||b| of the fp64 reference, u the unit roundoff of Acc,
// where every partial sum is a normal number of Acc or zero (the bound is relative: it
// does not cover the absolute error of fp16's subnormal range). E4M3 inputs of
// magnitude in [1/4, 2] are multiples of 2^-5, so every product, and every partial
// sum rounded to either format, is zero or a multiple of 2^-10 below 400: a normal number.
TEST(LowPrecisionAccumulator, WithinTheBoundOfItsUnitRoundoff) {
  std::mt19937_64 rng(21);
  const std::size_t m = 9, n = 11, k = 100;
  const Codes<E4M3> a = matmul_test::random_codes_between<E4M3>(m * k, rng, 0.25f, 2.0f);
  const Codes<E4M3> b = matmul_test::random_codes_between<E4M3>(k * n, rng, 0.25f, 2.0f);
  std::vector<float> c(m * n);
  matmul<E4M3, E4M3, BF16>(a.data(), b.data(), c.data(), m, n, k);
  const auto rows = matmul_test::all_rows(m);
  EXPECT_EQ((matmul_test::count_outside_bound<E4M3, E4M3>(a, b, c, rows, n, k, 0x1p-8, "bf16")), 0u);
  matmul<E4M3, E4M3, FP16>(a.data(), b.data(), c.data(), m, n, k);
  EXPECT_EQ((matmul_test::count_outside_bound<E4M3, E4M3>(a, b, c, rows, n, k, 0x1p-11, "fp16")), 0u);
}

// 4096 positive products of about 0.56 on average: once the bf16 sum passes 256 its
// spacing is 2 and most products round away, so the sum stalls far below the true
// ~2300; fp32's spacing there is 2^-13, and the sum stays within a few ulps.
TEST(LowPrecisionAccumulator, Bf16StagnatesWhereFp32DoesNot) {
  std::mt19937_64 rng(31);
  const std::size_t m = 1, n = 3, k = 4096;
  std::uniform_real_distribution<float> between(0.5f, 1.0f);
  Codes<E4M3> a(m * k), b(k * n);
  for (auto& code : a) code = E4M3(between(rng)).bits();
  for (auto& code : b) code = E4M3(between(rng)).bits();
  std::vector<float> in_bf16(m * n), in_fp32(m * n);
  matmul<E4M3, E4M3, BF16>(a.data(), b.data(), in_bf16.data(), m, n, k);
  matmul<E4M3, E4M3>(a.data(), b.data(), in_fp32.data(), m, n, k);
  EXPECT_EQ(count_differences(in_bf16, definition_loop<E4M3, E4M3, BF16>(a, b, m, n, k), "bf16"), 0u);
  for (std::size_t j = 0; j < n; ++j) {
    double exact = 0.0;
    for (std::size_t p = 0; p < k; ++p) exact += value_of<E4M3>(a[p]) * value_of<E4M3>(b[p * n + j]);
    const double bf16_error = std::fabs(in_bf16[j] - exact) / exact;
    const double fp32_error = std::fabs(in_fp32[j] - exact) / exact;
    std::printf("column %zu: exact %.6f, bf16 accumulator %.1f (relative error %.3g), fp32 %.6f (%.3g)\n", j, exact,
                double(in_bf16[j]), bf16_error, double(in_fp32[j]), fp32_error);
    EXPECT_GT(bf16_error, 1e-2);
    EXPECT_LT(fp32_error, 1e-5);
  }
}

}  // namespace
}  // namespace softfloat::matmul_test
