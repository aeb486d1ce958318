// Stochastic rounding in the scalar conversions: the generator follows its documented
// rule, only the two MPFR neighbours (round down / round up) of an input are ever
// produced, the probability of rounding away from zero is the input's distance from
// the lower neighbour over the gap (down to a remainder of 2^-20 ulp), so the mean of
// many roundings is the input, and overflow follows the policy.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"

namespace softfloat {
namespace {

using verify::reference_round;

// The generator's documented rule, recomputed by an independent implementation of it
// (Python, arbitrary-precision integers) for a few counters, including ones past 2^32.
TEST(RandomBits, FollowsTheDocumentedRule) {
  struct Case {
    std::uint64_t seed, index;
    std::uint32_t bits;
  };
  const Case cases[] = {
      {0x0ull, 0x0ull, 0x4181dbf0u},           {0x0ull, 0x1ull, 0x2209fcaeu},
      {0x2aull, 0x0ull, 0x34a0d25bu},          {0x2aull, 0x3039ull, 0xb94092f2u},
      {0x2aull, 0x100000007ull, 0xd2b18a6bu},  {0xdeadbeefcafef00dull, 0xffffffffffull, 0x9b58be25u},
  };
  for (const Case& c : cases) EXPECT_EQ(random_bits(c.seed, c.index), c.bits) << c.seed << " " << c.index;
  static_assert(random_bits(42, 12345) == 0xb94092f2u, "usable in constant expressions");
}

// For a fixed seed the counters of one 2^32 block map to distinct words (a keyed
// permutation), each bit is set about half the time, and another seed gives another
// stream.
TEST(RandomBits, NoRepeatsBalancedBitsSeedsDiffer) {
  constexpr std::size_t n = std::size_t{1} << 20;
  std::vector<std::uint32_t> words(n);
  int ones[32] = {};
  std::size_t same_as_other_seed = 0;
  for (std::size_t i = 0; i < n; ++i) {
    words[i] = random_bits(7, i);
    for (int b = 0; b < 32; ++b) ones[b] += (words[i] >> b) & 1;
    same_as_other_seed += words[i] == random_bits(8, i);
  }
  std::sort(words.begin(), words.end());
  EXPECT_EQ(std::adjacent_find(words.begin(), words.end()), words.end()) << "a repeated word";
  // Each bit count is Binomial(2^20, 1/2): standard deviation 512; allow 6 of them.
  for (int b = 0; b < 32; ++b) EXPECT_NEAR(ones[b], double(n) / 2, 6 * 512.0) << "bit " << b;
  EXPECT_LE(same_as_other_seed, 2u);  // expected 2^20 / 2^32 coincidences
}


// Every finite result of a stochastic rounding of a random float is one of the input's
// two MPFR neighbours (RNDD / RNDU), exact inputs stay exact, and over the random bits
// both neighbours occur; for every named format and both stochastic modes.
template <class F>
void check_neighbours() {
  std::mt19937_64 rng(2024);
  const double max = double(F::max());
  int both_seen = 0, inexact_inputs = 0;
  for (int k = 0; k < 3000; ++k) {
    // Magnitudes spread over the format's whole range, subnormals included.
    const double lo = std::log2(double(F::min_subnormal())) - 2, hi = std::log2(max);
    const double magnitude = std::exp2(lo + (hi - lo) * double(rng() >> 11) * 0x1p-53);
    const float x = float(F::format.is_signed && (rng() & 1) ? -magnitude : magnitude);
    // |x| <= max, so neither neighbour overflows (the overflow test covers that).
    const auto down = reference_round(x, F::format, MPFR_RNDD);
    const auto up = reference_round(x, F::format, MPFR_RNDU);
    std::set<std::uint64_t> seen;
    for (Rounding mode : {Rounding::stochastic, Rounding::stochastic_equal}) {
      for (std::uint64_t i = 0; i < 64; ++i) {
        const std::uint64_t got = F(x, mode, Overflow::standard, random_bits(k, i)).bits();
        if (down == up) {
          ASSERT_EQ(got, down) << format_name(F::format) << " exact input " << x;
        } else {
          ASSERT_TRUE(got == down || got == up) << format_name(F::format) << " input " << x << " gave 0x" << std::hex
                                                << got << " not 0x" << down << " or 0x" << up;
        }
        seen.insert(got);
      }
    }
    if (down != up) {
      ++inexact_inputs;
      both_seen += seen.size() == 2;
    }
  }
  // Inputs within 2^-7 ulp of a neighbour can miss the other in 128 draws; few are.
  EXPECT_GE(both_seen, inexact_inputs * 9 / 10) << format_name(F::format);
}

TEST(StochasticRounding, OnlyTheTwoNeighbours) {
  check_neighbours<BF16>();
  check_neighbours<FP16>();
  check_neighbours<TF32>();
  check_neighbours<E5M2>();
  check_neighbours<E4M3>();
  check_neighbours<E3M2>();
  check_neighbours<E2M3>();
  check_neighbours<E2M1>();
  check_neighbours<E8M0>();
  check_neighbours<E4M3FNUZ>();
  check_neighbours<E5M2FNUZ>();
  check_neighbours<P3109<8, 3>>();
}

// The fraction of n draws that rounds away from zero, for one input.
template <class F>
double fraction_up(float x, Rounding mode, std::size_t n, std::uint64_t seed = 1) {
  const auto down = F(x, Rounding::toward_zero).bits();
  std::size_t up = 0;
  for (std::size_t i = 0; i < n; ++i) up += F(x, mode, Overflow::standard, random_bits(seed, i)).bits() != down;
  return double(up) / double(n);
}

// At chosen points the probability of rounding up is the distance from the lower
// neighbour over the gap: 1/8, 1/4, 1/2 and 7/8 of an E4M3 ulp above 1 (ulp 1/8), a
// subnormal 3/4 of the way between two E4M3 subnormals, and 5/16 of a bf16 ulp. n =
// 2^18 draws: a standard deviation of at most 2^-10; allow 5.
TEST(StochasticRounding, ProbabilityMatchesDistance) {
  constexpr std::size_t n = std::size_t{1} << 18;
  const double tolerance = 5.0 / 1024;
  for (double f : {0.125, 0.25, 0.5, 0.875}) {
    EXPECT_NEAR(fraction_up<E4M3>(float(1 + f / 8), Rounding::stochastic, n), f, tolerance) << f;
    EXPECT_NEAR(fraction_up<E4M3>(float(-(1 + f / 8)), Rounding::stochastic, n), f, tolerance) << -f;
  }
  EXPECT_NEAR(fraction_up<E4M3>(float(0x1p-9 * 2.75), Rounding::stochastic, n), 0.75, tolerance);
  EXPECT_NEAR(fraction_up<BF16>(float(1 + 0x1p-7 * 5 / 16), Rounding::stochastic, n), 5.0 / 16, tolerance);
  // Equal probabilities: 1/2 whatever the distance, 0 for an exact input.
  EXPECT_NEAR(fraction_up<E4M3>(float(1 + 0.125 / 8), Rounding::stochastic_equal, n), 0.5, tolerance);
  EXPECT_NEAR(fraction_up<E4M3>(float(1 + 0.875 / 8), Rounding::stochastic_equal, n), 0.5, tolerance);
  EXPECT_EQ(fraction_up<E4M3>(1.125f, Rounding::stochastic_equal, n), 0.0);
  EXPECT_EQ(fraction_up<E4M3>(1.125f, Rounding::stochastic, n), 0.0);
}

// A remainder of 2^-20 ulp rounds up with probability 2^-20: the float just above 1
// is 1 + 2^-23, and E4M3's ulp at 1 is 2^-3. Over 2^26 draws the count of ups is
// Binomial(2^26, 2^-20): mean 64, standard deviation 8. Without the full 32 random
// bits (say 16 of them) it would be 0.
TEST(StochasticRounding, TinyRemainderKeepsItsProbability) {
  const float x = std::nextafter(1.0f, 2.0f);
  const std::size_t n = std::size_t{1} << 26;
  std::vector<float> input(n, x);
  std::vector<std::uint8_t> codes(n);
  simd::quantize(input.data(), n, codes.data(), E4M3::format, Rounding::stochastic, Overflow::standard,
                 RandomStream{99, 0});
  std::size_t ups = 0;
  for (std::uint8_t c : codes) {
    ASSERT_TRUE(c == 0x38 || c == 0x39) << int(c);
    ups += c == 0x39;
  }
  EXPECT_GE(ups, 64u - 5 * 8);
  EXPECT_LE(ups, 64u + 5 * 8);
  // The scalar conversion agrees on the first 2^16 of them.
  for (std::size_t i = 0; i < 65536; ++i)
    ASSERT_EQ(E4M3(x, Rounding::stochastic, Overflow::standard, random_bits(99, i)).bits(), codes[i]) << i;
}

// The mean of many stochastic roundings is the input: sums in double over 2^18 draws
// for random inputs, within 6 standard deviations of the exact input (the variance
// of one rounding is p(1-p) ulp^2).
template <class F>
void check_mean(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr std::size_t n = std::size_t{1} << 18;
  for (int k = 0; k < 4; ++k) {
    const float x = float(std::ldexp(1.0 + double(rng() >> 11) * 0x1p-53, int(rng() % 5) - 2));
    const double down = double(F(x, Rounding::toward_zero)), up = double(F(x, Rounding::away_from_zero));
    if (down == up) continue;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += double(F(x, Rounding::stochastic, Overflow::standard, random_bits(seed, i)));
    const double p = (double(x) - down) / (up - down);
    const double sigma = (up - down) * std::sqrt(p * (1 - p) / double(n));
    EXPECT_NEAR(sum / double(n), double(x), 6 * sigma + 1e-300) << format_name(F::format) << " input " << x;
  }
}

TEST(StochasticRounding, MeanIsTheInput) {
  check_mean<E4M3>(1);
  check_mean<E5M2>(2);
  check_mean<BF16>(3);
  check_mean<FP16>(4);
  check_mean<E2M1>(5);
}

// Between 448 (E4M3's max) and 464 (where nearest rounding overflows) stochastic
// rounding reaches the next value up, 480, with probability (x - 448) / 32: that
// result has no finite encoding, so it is an overflow and follows the policy: NaN
// (0x7F) by the format's standard rule, max (0x7E) when saturating. The same for
// E5M2's infinity.
TEST(StochasticRounding, OverflowFollowsThePolicy) {
  constexpr std::size_t n = std::size_t{1} << 16;
  std::size_t nan = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto standard = E4M3(456.0f, Rounding::stochastic, Overflow::standard, random_bits(5, i)).bits();
    const auto saturated = E4M3(456.0f, Rounding::stochastic, Overflow::saturate, random_bits(5, i)).bits();
    ASSERT_TRUE(standard == 0x7E || standard == 0x7F) << int(standard);
    ASSERT_EQ(saturated, 0x7E);
    nan += standard == 0x7F;
    ASSERT_EQ(E4M3(-456.0f, Rounding::stochastic, Overflow::standard, random_bits(5, i)).bits(), standard | 0x80);
  }
  EXPECT_NEAR(double(nan) / n, 0.25, 5 * std::sqrt(0.25 * 0.75 / n));
  // E5M2: 57344 is max; the next step up, 2^16, has no encoding: inf, or max if
  // saturating. 61440 lies halfway.
  std::size_t infinities = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto code = E5M2(61440.0f, Rounding::stochastic, Overflow::standard, random_bits(6, i)).bits();
    ASSERT_TRUE(code == 0x7B || code == 0x7C) << int(code);
    infinities += code == 0x7C;
    ASSERT_EQ(E5M2(61440.0f, Rounding::stochastic, Overflow::saturate, random_bits(6, i)).bits(), 0x7B);
  }
  EXPECT_NEAR(double(infinities) / n, 0.5, 5 * std::sqrt(0.25 / n));
  // NaN stays NaN, infinity follows the policy whatever the random bits.
  EXPECT_EQ(E4M3(std::nanf(""), Rounding::stochastic, Overflow::standard, 0).bits(), 0x7F);
  EXPECT_EQ(E5M2(INFINITY, Rounding::stochastic, Overflow::standard, 0).bits(), 0x7C);
  EXPECT_EQ(E5M2(INFINITY, Rounding::stochastic, Overflow::saturate, 0).bits(), 0x7B);
}

// The arithmetic takes the same options: 1 + 2^-10 in bf16 (ulp 2^-7 at 1) rounds up
// with probability 1/8, so it survives on average where nearest rounding loses it.
TEST(StochasticRounding, ArithmeticTakesTheRandomBits) {
  const BF16 one(1.0f), small(0x1p-10f);
  EXPECT_EQ(float(one + small), 1.0f);
  constexpr std::size_t n = std::size_t{1} << 16;
  std::size_t ups = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float sum = float(add(one, small, Rounding::stochastic, Overflow::standard, random_bits(3, i)));
    ASSERT_TRUE(sum == 1.0f || sum == 1.0f + 0x1p-7f) << sum;
    ups += sum != 1.0f;
  }
  EXPECT_NEAR(double(ups) / n, 0.125, 5 * std::sqrt(0.125 * 0.875 / n));
}

}  // namespace
}  // namespace softfloat
