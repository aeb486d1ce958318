// Stochastic rounding of arrays: element i of a call with RandomStream{seed, offset}
// gets exactly the scalar round_to_format(decode(x), format, mode, policy,
// random_bits(seed, offset + i)), on every Highway target, for any thread count, for
// an array converted in pieces, across a counter crossing a multiple of 2^32, through
// round_trip, the packed 4- and 6-bit forms and double input. Another seed gives other
// bits. (verify/conversion/stochastic_rounding_test checks the scalar rounding itself
// against MPFR's neighbours and the probabilities.)
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "verify/common/rounding_modes.hpp"
#include "verify/simd/every_target.hpp"

namespace softfloat {
namespace {

using test_targets::for_each_target;

struct NamedFormat {
  std::string name;
  Format format;
};

const NamedFormat kFormats[] = {
    {"e4m3", E4M3::format},         {"e5m2", E5M2::format},        {"bf16", BF16::format},
    {"fp16", FP16::format},         {"tf32", TF32::format},        {"e3m2", E3M2::format},
    {"e2m3", E2M3::format},         {"e2m1", E2M1::format},        {"e8m0", E8M0::format},
    {"e4m3fnuz", E4M3FNUZ::format}, {"p3109_8p3", P3109<8, 3>::format},
    {"e3m4", Float<3, 4>::format},  {"e5m2_unsigned", parse_format("e5m2:unsigned")},
    {"e9m6_wide", Float<9, 6>::format},  // beyond fp32's range: the scalar route
};
constexpr Rounding kModes[] = {Rounding::stochastic, Rounding::stochastic_equal};
using test_support::kOverflowPolicies;

// A 2^16 stride through all float bit patterns, then whole vectors of each format's
// subnormal range and of values just above 1, and of its normal range, so that every
// vector path sees them.
std::vector<float> test_inputs(const Format& f) {
  std::vector<float> inputs;
  for (std::uint64_t u = 0; u < (std::uint64_t{1} << 32); u += 65537)
    inputs.push_back(std::bit_cast<float>(std::uint32_t(u)));
  const double quantum = std::ldexp(1.0, f.min_normal_exponent() - f.mantissa_bits);
  std::mt19937 rng(11);
  for (int k = 0; k < 4096; ++k) {
    inputs.push_back(float(quantum * (4 << f.mantissa_bits) * double(rng()) * 0x1p-32 * ((k & 1) ? -1 : 1)));
    inputs.push_back(float(1 + double(rng()) * 0x1p-32));
  }
  // 2^14 values all normal in the format and below 2^max_exponent (log-uniform, random
  // signs where the format has them): whole vectors of the stochastic fast path.
  const int low = std::max(f.min_normal_exponent(), -126), high = std::min(f.max_exponent(), 127);
  std::uniform_real_distribution<double> exponent(low, high);
  for (int k = 0; k < (1 << 14); ++k) {
    const double x = std::min(std::exp2(exponent(rng)), std::nextafter(std::ldexp(1.0, high), 0.0));
    inputs.push_back(float(f.is_signed && (rng() & 1) ? -x : x));
  }
  return inputs;
}

std::vector<std::uint32_t> scalar_codes(const std::vector<float>& in, const Format& f, Rounding mode,
                                        Overflow policy, RandomStream random) {
  std::vector<std::uint32_t> codes(in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    codes[i] = std::uint32_t(round_to_format(decode(in[i]), f, mode, policy, random_bits(random.seed, random.offset + i)));
  return codes;
}

// The public quantize into the format's storage width, widened to 32 bits.
std::vector<std::uint32_t> array_codes(const std::vector<float>& in, const Format& f, Rounding mode,
                                       Overflow policy, RandomStream random) {
  std::vector<std::uint32_t> out(in.size());
  auto run = [&](auto code) {
    std::vector<decltype(code)> codes(in.size());
    simd::quantize(in.data(), in.size(), codes.data(), f, mode, policy, random);
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = codes[i];
  };
  if (f.total_bits() <= 8) run(std::uint8_t{});
  else if (f.total_bits() <= 16) run(std::uint16_t{});
  else run(std::uint32_t{});
  return out;
}

void expect_same_codes(const std::vector<std::uint32_t>& expected, const std::vector<std::uint32_t>& got,
                       const std::vector<float>& in, const std::string& what) {
  ASSERT_EQ(expected.size(), got.size()) << what;
  int reported = 0;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] == got[i]) continue;
    ++mismatches;
    if (++reported <= 5)
      ADD_FAILURE() << what << ": element " << i << " input 0x" << std::hex << std::bit_cast<std::uint32_t>(in[i])
                    << " expected 0x" << expected[i] << " got 0x" << got[i];
  }
  EXPECT_EQ(mismatches, 0u) << what;
}

// Both stochastic modes, both policies, two streams (one whose counters cross 2^32
// inside the array), every target.
TEST(ArrayStochastic, MatchesScalarOnEveryTarget) {
  const RandomStream streams[] = {{1, 0}, {0xC0FFEE, (std::uint64_t{5} << 32) - 70001}};
  std::vector<std::string> targets;
  for (const NamedFormat& named : kFormats) {
    const std::vector<float> in = test_inputs(named.format);
    for (Rounding mode : kModes)
      for (Overflow policy : kOverflowPolicies)
        for (const RandomStream& random : streams) {
          const auto expected = scalar_codes(in, named.format, mode, policy, random);
          targets = for_each_target([&](const std::string& target) {
            expect_same_codes(expected, array_codes(in, named.format, mode, policy, random), in,
                              named.name + (mode == Rounding::stochastic ? " stochastic" : " stochastic_equal") +
                                  (policy == Overflow::saturate ? " saturate " : " standard ") + target +
                                  " offset " + std::to_string(random.offset));
          });
        }
  }
  std::string list;
  for (const auto& name : targets) list += name + " ";
  std::printf("targets run: %s\n", list.c_str());
  EXPECT_GE(targets.size(), 2u);
}

// The bits do not depend on how the array is split: 1, 2 or 3 threads, or two calls
// whose second starts at offset + its first element.
TEST(ArrayStochastic, ThreadsAndPiecesGiveTheSameBits) {
  const std::size_t n = 3 * (std::size_t{1} << 17) + 5;
  std::vector<float> in(n);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 8.0f);
  for (auto& x : in) x = normal(rng);
  const RandomStream random{77, 1000};
  const auto expected = scalar_codes(in, E4M3::format, Rounding::stochastic, Overflow::standard, random);
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    expect_same_codes(expected, array_codes(in, E4M3::format, Rounding::stochastic, Overflow::standard, random), in,
                      std::to_string(threads) + " threads");
  }
  set_num_threads(1);
  std::vector<std::uint8_t> pieces(n);
  const std::size_t split = 12345;
  simd::quantize(in.data(), split, pieces.data(), E4M3::format, Rounding::stochastic, Overflow::standard, random);
  simd::quantize(in.data() + split, n - split, pieces.data() + split, E4M3::format, Rounding::stochastic,
                 Overflow::standard, RandomStream{random.seed, random.offset + split});
  expect_same_codes(expected, std::vector<std::uint32_t>(pieces.begin(), pieces.end()), in, "two pieces");
}

// round_trip, the packed forms and double input draw the same bits as quantize. The
// inputs (over 2^16: round_trip's fused loop, whose fast path stores floats without
// forming codes) hold whole vectors of E4M3's, FP16's and BF16's fast path.
TEST(ArrayStochastic, RoundTripPackedAndDoubleAgree) {
  const RandomStream random{5, 3};
  for (const Format& f : {E2M1::format, E3M2::format, BF16::format, E4M3::format, FP16::format}) {
    const std::vector<float> in = test_inputs(f);
    const auto codes = scalar_codes(in, f, Rounding::stochastic, Overflow::standard, random);
    std::vector<float> expected(in.size());
    for (std::size_t i = 0; i < in.size(); ++i)
      expected[i] = std::bit_cast<float>(std::uint32_t(round_to_format(decode(codes[i], f), binary32_format)));
    std::vector<float> got(in.size());
    simd::round_trip(in.data(), in.size(), got.data(), f, Rounding::stochastic, Overflow::standard, random);
    for (std::size_t i = 0; i < in.size(); ++i)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(expected[i])) << "round_trip " << i;
    if (f.total_bits() == 4 || f.total_bits() == 6) {
      std::vector<std::uint8_t> packed(simd::packed_size(f, in.size()));
      simd::quantize_packed(in.data(), in.size(), packed.data(), packed.size(), f, Rounding::stochastic,
                            Overflow::standard, random);
      simd::dequantize_packed(packed.data(), packed.size(), in.size(), got.data(), f);
      for (std::size_t i = 0; i < in.size(); ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(expected[i])) << "packed " << i;
    }
  }
  // Double input: rounded once from the double with the same bits.
  std::vector<double> doubles(4096);
  std::mt19937_64 rng(8);
  for (auto& d : doubles) d = std::ldexp(double(rng() >> 11) * 0x1p-53, int(rng() % 20) - 10);
  std::vector<std::uint8_t> codes(doubles.size());
  simd::quantize(doubles.data(), doubles.size(), codes.data(), E4M3::format, Rounding::stochastic, Overflow::standard,
                 random);
  for (std::size_t i = 0; i < doubles.size(); ++i)
    ASSERT_EQ(codes[i], round_to_format(decode(doubles[i]), E4M3::format, Rounding::stochastic, Overflow::standard,
                                        random_bits(random.seed, random.offset + i)))
        << i;
}

// Another seed or offset changes the rounding of about half the inexact elements whose
// probability is near 1/2 (here: all of them, values halfway between E4M3 neighbours
// plus a little).
TEST(ArrayStochastic, AnotherSeedGivesOtherBits) {
  std::vector<float> in(4096, 1.0f + 1.0f / 16 + 0x1p-20f);
  const auto a = array_codes(in, E4M3::format, Rounding::stochastic, Overflow::standard, {1, 0});
  const auto b = array_codes(in, E4M3::format, Rounding::stochastic, Overflow::standard, {2, 0});
  const auto c = array_codes(in, E4M3::format, Rounding::stochastic, Overflow::standard, {1, 1});
  std::size_t differ_seed = 0, differ_offset = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    differ_seed += a[i] != b[i];
    differ_offset += a[i] != c[i];
  }
  // Each differs with probability 1/2: Binomial(4096, 1/2) has standard deviation 32.
  EXPECT_NEAR(double(differ_seed), 2048, 6 * 32);
  EXPECT_NEAR(double(differ_offset), 2048, 6 * 32);
}

}  // namespace
}  // namespace softfloat
