// Shared pieces of the matmul tests: random matrices of codes, the fp64 reference with
// the error bound of a k-term sum, and the definition of the accumulated sum as the
// plain loop over softfloat's own scalar fma.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"

namespace softfloat::matmul_test {

template <class F>
using Codes = std::vector<typename F::storage_type>;

// The dimensions of a product: (m x k) times (k x n).
struct Shape {
  std::size_t m, n, k;
};

template <class F>
double value_of(typename F::storage_type code) {
  return double(float(F::from_bits(code)));
}

inline std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

// Random finite codes of F of magnitude at most max_magnitude. Formats of at most 16
// bits with fewer than 8 exponent bits draw uniformly over those codes (every binade,
// subnormals and zeros included: their products stay well inside fp32's normal range);
// formats with fp32's exponent range draw normal values times 2^[-8, 8], so that sums
// of k products stay finite and the products exact in fp32.
template <class F>
Codes<F> random_codes(std::size_t count, std::mt19937_64& rng,
                      double max_magnitude = std::numeric_limits<double>::infinity()) {
  using S = typename F::storage_type;
  const Format f = F::format;
  const auto unfit = [&](S c) { return f.is_nan(c) || f.is_infinite(c) || std::fabs(value_of<F>(c)) > max_magnitude; };
  Codes<F> codes(count);
  if (f.exponent_bits < 8) {
    std::uniform_int_distribution<std::uint32_t> any(0, (std::uint32_t{1} << f.total_bits()) - 1);
    for (auto& c : codes) {
      do c = S(any(rng));
      while (unfit(c));
    }
  } else {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> scale(-8, 8);
    for (auto& c : codes) {
      do c = F(std::ldexp(normal(rng), scale(rng))).bits();
      while (unfit(c));
    }
  }
  return codes;
}

// Random codes of values of magnitude in [low, high] (rounded to F), either sign.
template <class F>
Codes<F> random_codes_between(std::size_t count, std::mt19937_64& rng, float low, float high) {
  std::uniform_real_distribution<float> magnitude(low, high);
  std::bernoulli_distribution negative(0.5);
  Codes<F> codes(count);
  for (auto& c : codes) c = F(negative(rng) ? -magnitude(rng) : magnitude(rng)).bits();
  return codes;
}

// gamma_k = k u / (1 - k u), the bound of a k-term recursive sum (Higham, Accuracy and
// Stability of Numerical Algorithms, 2nd ed., section 3.1).
inline double gamma(std::size_t k, double unit_roundoff) {
  const double ku = double(k) * unit_roundoff;
  return ku / (1.0 - ku);
}

template <class F>
std::vector<double> values_of(const Codes<F>& codes) {
  std::vector<double> values(codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) values[i] = value_of<F>(codes[i]);
  return values;
}

inline std::vector<std::size_t> all_rows(std::size_t m) {
  std::vector<std::size_t> rows(m);
  for (std::size_t i = 0; i < m; ++i) rows[i] = i;
  return rows;
}

// Checks every element of the given rows of c (m x n, dense) against the fp64 sum of
// the decoded products (each product of two floats is exact in double):
// |c - sum| <= (gamma_k(u) + gamma_k(2^-53)) * sum |a||b|, the second term covering the
// reference's own rounding. Returns the number of elements outside the bound.
template <class FA, class FB>
std::size_t count_outside_bound(const Codes<FA>& a_codes, const Codes<FB>& b_codes, const std::vector<float>& c,
                                const std::vector<std::size_t>& rows, std::size_t n, std::size_t k,
                                double unit_roundoff, const std::string& what) {
  const std::vector<double> a = values_of<FA>(a_codes), b = values_of<FB>(b_codes);
  const double factor = gamma(k, unit_roundoff) + gamma(k, 0x1p-53);
  std::size_t bad = 0;
  std::vector<double> sum(n), magnitude_sum(n);
  for (std::size_t i : rows) {
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(magnitude_sum.begin(), magnitude_sum.end(), 0.0);
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t j = 0; j < n; ++j) {
        const double product = a[i * k + p] * b[p * n + j];
        sum[j] += product;
        magnitude_sum[j] += std::fabs(product);
      }
    for (std::size_t j = 0; j < n; ++j) {
      const double error = std::fabs(double(c[i * n + j]) - sum[j]);
      if (!(error <= factor * magnitude_sum[j]) && ++bad <= 5)
        ADD_FAILURE() << what << " element (" << i << ", " << j << "): " << c[i * n + j] << " vs fp64 " << sum[j]
                      << ", error " << error << " above the bound " << factor * magnitude_sum[j];
    }
  }
  return bad;
}

// Values around Acc's range: powers of two, midpoints of Acc's grid (odd multiples of
// half its quantum at one: M + 2 bits) and integers below 2^12, times powers of two
// spread so that products reach from below Acc's subnormals to beyond its largest
// value, and so that a product on a midpoint may meet a running sum too small for a
// double to hold beside it (where only rounding to odd keeps the tie from rounding to
// even); now and then a random fp32, a signed zero, an infinity or a NaN.
inline std::vector<float> adversarial_values(std::size_t count, const Format& acc, std::mt19937_64& rng, bool specials) {
  const int low = (acc.min_normal_exponent() - acc.mantissa_bits) / 2 - 6;
  const int high = acc.max_exponent() / 2 + 3;
  std::uniform_int_distribution<int> exponent(low, high), integer(0, 4095), kind(0, 99);
  std::uniform_int_distribution<std::uint32_t> midpoint(std::uint32_t{2} << acc.mantissa_bits,
                                                        (std::uint32_t{4} << acc.mantissa_bits) - 1);
  std::uniform_int_distribution<std::uint32_t> bits;
  std::vector<float> values(count);
  for (float& x : values) {
    const int what = kind(rng);
    if (specials && what == 0) x = std::numeric_limits<float>::infinity();
    else if (specials && what == 1) x = std::bit_cast<float>(0x7FC00000u | (bits(rng) & 0x3FFFFFu));
    else if (what < 5) x = 0.0f;
    else if (what < 10) x = std::bit_cast<float>(bits(rng) & 0x7F7FFFFFu);  // any finite magnitude
    else if (what < 35) x = std::ldexp(float(midpoint(rng) | 1), exponent(rng));
    else if (what < 60) x = std::ldexp(1.0f, exponent(rng));
    else x = std::ldexp(float(integer(rng)), exponent(rng));
    if (bits(rng) & 1) x = -x;
  }
  return values;
}

// The definition of S with accumulator Acc (softfloat/matmul.hpp): each input converted
// to Acc, c = +0, then c = fma(a_ip, b_pj, c) for p = 0 .. k-1 with softfloat's scalar
// fma, the last c as float. The conversion must be exact, so that the loop sees the
// decoded inputs themselves: a test that picks formats Acc cannot hold fails here.
template <class FA, class FB, class Acc>
std::vector<float> definition_loop(const Codes<FA>& a, const Codes<FB>& b, std::size_t m, std::size_t n,
                                   std::size_t k) {
  const auto to_acc = [](double x) {
    const Acc y(x);
    if (!std::isnan(x)) {
      EXPECT_EQ(double(y), x) << "input not exact in the accumulator format";
    }
    return y;
  };
  std::vector<Acc> a_acc(a.size()), b_acc(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a_acc[i] = to_acc(value_of<FA>(a[i]));
  for (std::size_t i = 0; i < b.size(); ++i) b_acc[i] = to_acc(value_of<FB>(b[i]));
  std::vector<float> c(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      Acc sum{};  // +0
      for (std::size_t p = 0; p < k; ++p) sum = fma(a_acc[i * k + p], b_acc[p * n + j], sum);
      c[i * n + j] = float(sum);
    }
  return c;
}

// Sets the matmul summation order for a scope and restores the previous one.
class ScopedSummation {
 public:
  explicit ScopedSummation(MatmulSummation summation) : saved_(matmul_summation()) {
    set_matmul_summation(summation);
  }
  ~ScopedSummation() { set_matmul_summation(saved_); }
  ScopedSummation(const ScopedSummation&) = delete;
  ScopedSummation& operator=(const ScopedSummation&) = delete;

 private:
  MatmulSummation saved_;
};

// Bit-for-bit equality of two results, NaN matching any NaN (the payload a NaN keeps
// through an FMA unit is the hardware's choice); returns the number of differences.
inline std::size_t count_differences(const std::vector<float>& got, const std::vector<float>& expected,
                                     const std::string& what) {
  std::size_t bad = 0;
  for (std::size_t e = 0; e < expected.size(); ++e) {
    const bool same = (std::isnan(got[e]) && std::isnan(expected[e])) || bits_of(got[e]) == bits_of(expected[e]);
    if (!same && ++bad <= 5)
      ADD_FAILURE() << what << " element " << e << ": " << got[e] << " (0x" << std::hex << bits_of(got[e])
                    << ") expected " << expected[e] << " (0x" << bits_of(expected[e]) << std::dec << ")";
  }
  return bad;
}

// BF16 inputs outside the pairs rule (bf16_dot.hpp) keep the in-order chain bit for bit
// in a summation that would otherwise add them by pairs of products or on tiles: tiny
// values, whose products (near 2^-140 to 2^-146) make fp32 subnormal sums that the
// bf16 instructions would flush to zero, and huge ones, whose products near 2^124
// summed 50 times come near fp32's overflow.
inline void check_bf16_outside_the_rule(MatmulSummation summation, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::size_t m = 13, n = 20, k = 50;
  const Codes<BF16> tiny_a = random_codes_between<BF16>(m * k, rng, 0x1p-72f, 0x1p-70f);
  const Codes<BF16> tiny_b = random_codes_between<BF16>(k * n, rng, 0x1p-72f, 0x1p-70f);
  std::vector<float> c(m * n);
  matmul<BF16, BF16>(tiny_a.data(), tiny_b.data(), c.data(), m, n, k, summation);
  EXPECT_EQ(count_differences(c, definition_loop<BF16, BF16, FP32>(tiny_a, tiny_b, m, n, k), "tiny"), 0u);
  std::size_t nonzero = 0;
  for (float v : c) nonzero += v != 0.0f;
  EXPECT_GT(nonzero, c.size() / 2);
  const Codes<BF16> huge_a = random_codes_between<BF16>(m * k, rng, 0x1p61f, 0x1p62f);
  const Codes<BF16> huge_b = random_codes_between<BF16>(k * n, rng, 0x1p61f, 0x1p62f);
  matmul<BF16, BF16>(huge_a.data(), huge_b.data(), c.data(), m, n, k, summation);
  EXPECT_EQ(count_differences(c, definition_loop<BF16, BF16, FP32>(huge_a, huge_b, m, n, k), "huge"), 0u);
}

// Random integers in [-limit, limit] as codes of F, exact in F (checked).
template <class F>
Codes<F> random_integers(std::size_t count, int limit, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> value(-limit, limit);
  Codes<F> codes(count);
  for (auto& c : codes) {
    const F x(float(value(rng)));
    EXPECT_EQ(float(x), std::round(float(x)));
    c = x.bits();
  }
  return codes;
}

// A 3 x 70 by 70 x 9 E5M2 product with infinities and NaNs in it, in `summation`:
// row 1 holds +inf, meeting -inf (column 10), 0 (column 30: NaN) and ones (column 40:
// +inf); column 20 holds a NaN, which reaches every row. The result must be the
// in-order chain's, NaN for NaN; returns the operands and the chain's result.
struct InfinitiesCase {
  std::size_t m = 3, n = 70, k = 9;
  Codes<E5M2> a, b;
  std::vector<float> expected;
};
inline InfinitiesCase check_infinities_where_the_chain_puts_them(MatmulSummation summation, std::uint64_t seed) {
  InfinitiesCase x;
  const std::size_t n = x.n, k = x.k;
  std::mt19937_64 rng(seed);
  x.a = random_integers<E5M2>(x.m * k, 7, rng);
  x.b = random_integers<E5M2>(k * n, 7, rng);
  x.a[1 * k + 4] = E5M2::from_bits(0x7C).bits();   // +inf
  x.b[4 * n + 10] = E5M2::from_bits(0xFC).bits();  // -inf
  x.b[6 * n + 20] = E5M2::from_bits(0x7E).bits();  // NaN
  x.b[4 * n + 30] = E5M2(0.0f).bits();
  for (std::size_t p = 0; p < k; ++p) x.b[p * n + 40] = E5M2(1.0f).bits();
  x.expected = definition_loop<E5M2, E5M2, FP32>(x.a, x.b, x.m, n, k);
  std::vector<float> c(x.m * n);
  matmul<E5M2, E5M2>(x.a.data(), x.b.data(), c.data(), x.m, n, k, summation);
  EXPECT_EQ(count_differences(c, x.expected, "gemm with infinities"), 0u);
  EXPECT_TRUE(std::isnan(c[1 * n + 30]));
  EXPECT_TRUE(std::isinf(c[1 * n + 40]));
  return x;
}

}  // namespace softfloat::matmul_test
