// The vectorised MX block scaling (mx::quantize / mx::dequantize) against the scalar
// definition (mx::scalar_quantize / scalar_dequantize, itself checked against MPFR in
// mx_mpfr_test.cpp), byte for byte and bit for bit, on every Highway target compiled in
// and supported by this CPU: each is forced in turn with hwy::SetSupportedTargetsForTest.
// Random blocks over fp32's whole range with NaN and infinity blocks, every element kind
// and scale rule, block sizes from 2 to longer than the vectorised path's 2048-value
// buffer, lengths with partial last blocks; random element bytes and scales (0xFF
// included) for dequantize; several threads; a caller's FTZ/DAZ and rounding mode.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "softfloat/softfloat.hpp"
#include "verify/block_formats/mx_test_support.hpp"
#include "verify/simd/every_target.hpp"

namespace softfloat {
namespace {

using mx::Element;
using mx::ScaleRule;
using mx_test::bits_of;
using mx_test::Facts;
using test_targets::for_each_target;

struct Encoded {
  std::vector<std::uint8_t> elements, scales;
};

Encoded scalar_encode(const std::vector<float>& in, Element element, const mx::Options& options) {
  Encoded e{std::vector<std::uint8_t>(mx::element_bytes(element, in.size())),
            std::vector<std::uint8_t>(mx::scale_count(in.size(), options))};
  mx::scalar_quantize(in.data(), in.size(), e.elements.data(), e.elements.size(), e.scales.data(), e.scales.size(),
                      element, options);
  return e;
}
Encoded fast_encode(const std::vector<float>& in, Element element, const mx::Options& options) {
  Encoded e{std::vector<std::uint8_t>(mx::element_bytes(element, in.size())),
            std::vector<std::uint8_t>(mx::scale_count(in.size(), options))};
  mx::quantize(in.data(), in.size(), e.elements.data(), e.elements.size(), e.scales.data(), e.scales.size(), element,
               options);
  return e;
}
std::vector<std::uint32_t> scalar_decode(const Encoded& e, std::size_t n, Element element, const mx::Options& options) {
  std::vector<float> out(n);
  mx::scalar_dequantize(e.elements.data(), e.elements.size(), e.scales.data(), e.scales.size(), n, out.data(),
                        element, options);
  std::vector<std::uint32_t> bits(n);
  for (std::size_t i = 0; i < n; ++i) bits[i] = bits_of(out[i]);
  return bits;
}
std::vector<std::uint32_t> fast_decode(const Encoded& e, std::size_t n, Element element, const mx::Options& options) {
  std::vector<float> out(n);
  mx::dequantize(e.elements.data(), e.elements.size(), e.scales.data(), e.scales.size(), n, out.data(), element,
                 options);
  std::vector<std::uint32_t> bits(n);
  for (std::size_t i = 0; i < n; ++i) bits[i] = bits_of(out[i]);
  return bits;
}

// The first difference of two byte or bit arrays, for a readable failure.
template <class T>
::testing::AssertionResult same(const std::vector<T>& expected, const std::vector<T>& got, const char* what) {
  if (expected.size() != got.size()) return ::testing::AssertionFailure() << what << ": sizes differ";
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != got[i])
      return ::testing::AssertionFailure() << what << " differ first at " << i << ": scalar "
                                           << mx_test::hex(expected[i]) << ", vectorised " << mx_test::hex(got[i]);
  return ::testing::AssertionSuccess();
}

struct Shape {
  std::size_t block, n;
};
// Block sizes: the packed kinds' smallest (2 for E2M1, 4 for 6 bits), 16, 32 and 64 (one,
// two and four vectors of 16 lanes, which the group path folds a lane per block), a size
// that is not a multiple of any vector, the buffer's 2048 and beyond it (two-pass
// blocks), and one block holding the whole array. Lengths leave partial last blocks and
// partial last groups.
std::vector<Shape> shapes_for(Element element) {
  const std::size_t smallest = element == Element::fp4_e2m1 ? 2 : 4;
  return {{smallest, 1}, {smallest, 37}, {16, 1000},   {32, 0},      {32, 1},        {32, 31},      {32, 33},
          {32, 4099},    {64, 3000},     {36, 1000},   {2048, 4100}, {2052, 6000},   {5000, 12345}, {12000, 12000}};
}

TEST(MxSimd, QuantizeAndDequantizeMatchScalarOnEveryTarget) {
  std::mt19937 rng(4242);
  std::vector<std::string> targets;
  for (const Facts& facts : mx_test::kFacts) {
    for (ScaleRule rule : mx_test::kScaleRules) {
      for (const Shape& shape : shapes_for(facts.element)) {
        const mx::Options options{shape.block, rule};
        SCOPED_TRACE(std::string(facts.name) + " " + mx_test::rule_name(rule) + " block " +
                     std::to_string(shape.block) + " n " + std::to_string(shape.n));
        // Values over fp32's whole range in runs of at most 64 with their own binade.
        // NaN and infinity runs too, except in the long blocks, which they would turn
        // into NaN blocks almost always (the whole-array block keeps them).
        const bool specials = shape.block <= 64 || shape.block == shape.n;
        const std::vector<float> in = mx_test::random_blocks(shape.n, std::min<std::size_t>(shape.block, 64), rng,
                                                             -160, 127, specials);
        const Encoded expected = scalar_encode(in, facts.element, options);
        const std::vector<std::uint32_t> expected_back = scalar_decode(expected, shape.n, facts.element, options);
        // Random element bytes and scales, 0xFF among them.
        Encoded noise = expected;
        for (auto& byte : noise.elements) byte = std::uint8_t(rng());
        for (auto& byte : noise.scales) byte = (rng() % 8 == 0) ? 0xFF : std::uint8_t(rng());
        const std::vector<std::uint32_t> noise_back = scalar_decode(noise, shape.n, facts.element, options);
        targets = for_each_target([&](const std::string&) {
          const Encoded got = fast_encode(in, facts.element, options);
          EXPECT_TRUE(same(expected.scales, got.scales, "scales"));
          EXPECT_TRUE(same(expected.elements, got.elements, "elements"));
          EXPECT_TRUE(same(expected_back, fast_decode(expected, shape.n, facts.element, options), "dequantized"));
          EXPECT_TRUE(same(noise_back, fast_decode(noise, shape.n, facts.element, options), "dequantized noise"));
        });
      }
    }
  }
  std::string list;
  for (const std::string& name : targets) list += " " + name;
  std::printf("targets run:%s\n", list.c_str());
  EXPECT_FALSE(targets.empty());
}

// Blocks whose maxima are all fp32 normal numbers (N(0, 1) times 2^k per block), which
// the vector code scales a group of blocks at a time (one block per lane), with a zero,
// a NaN, an fp32-subnormal and a huge block dropped into a few groups, which then go
// block by block: every kind and rule, block sizes of one, two and four 16-lane vectors
// (and sizes no group path takes), lengths ending in partial groups and blocks.
TEST(MxSimd, GroupsOfNormalBlocksMatchScalarOnEveryTarget) {
  std::mt19937 rng(2024);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> binade(-20, 20);
  for (const Facts& facts : mx_test::kFacts) {
    for (ScaleRule rule : mx_test::kScaleRules) {
      // Nine groups of the widest target (16 blocks) and then some.
      for (const Shape& shape : {Shape{16, 256 * 9 + 3}, Shape{32, 512 * 9 + 17}, Shape{64, 1024 * 9}, Shape{8, 1157}}) {
        const mx::Options options{shape.block, rule};
        SCOPED_TRACE(std::string(facts.name) + " " + mx_test::rule_name(rule) + " block " +
                     std::to_string(shape.block));
        std::vector<float> in(shape.n);
        for (std::size_t begin = 0; begin < shape.n; begin += shape.block) {
          const float scale = std::ldexp(1.0f, binade(rng));
          for (std::size_t i = begin; i < std::min(shape.n, begin + shape.block); ++i) in[i] = normal(rng) * scale;
        }
        const std::size_t group = 16 * shape.block;  // the widest target's group
        for (std::size_t i = 2 * group; i < 2 * group + shape.block; ++i) in[i] = 0.0f;
        in[4 * group + 5] = std::numeric_limits<float>::quiet_NaN();
        for (std::size_t i = 6 * group + shape.block; i < 6 * group + 2 * shape.block; ++i)
          in[i] = std::ldexp(normal(rng), -140);
        in[8 * group] = std::numeric_limits<float>::max();
        const Encoded expected = scalar_encode(in, facts.element, options);
        const std::vector<std::uint32_t> expected_back = scalar_decode(expected, shape.n, facts.element, options);
        for_each_target([&](const std::string&) {
          const Encoded got = fast_encode(in, facts.element, options);
          EXPECT_TRUE(same(expected.scales, got.scales, "scales"));
          EXPECT_TRUE(same(expected.elements, got.elements, "elements"));
          EXPECT_TRUE(same(expected_back, fast_decode(expected, shape.n, facts.element, options), "dequantized"));
        });
      }
    }
  }
}

// Outputs of 16 MiB and more of the byte kinds are decoded into a stack buffer and
// written with streaming stores (simd/stream_store.hpp); a packed kind keeps normal
// stores. NaN and infinity blocks among the rest, to an output one float past an
// aligned address (so that the streaming loop has an unaligned head), between guards.
TEST(MxSimd, StreamedLargeOutputMatchesScalar) {
  std::mt19937 rng(99);
  const std::size_t n = (std::size_t{1} << 22) + 36;
  const std::vector<float> in = mx_test::random_blocks(n, 32, rng, -30, 30, true);
  for (Element element : {Element::fp8_e4m3, Element::int8, Element::fp6_e3m2}) {
    SCOPED_TRACE(std::string(mx::element_name(element)));
    const mx::Options options{32};
    const Encoded e = fast_encode(in, element, options);
    const std::vector<std::uint32_t> expected = scalar_decode(e, n, element, options);
    std::vector<float> out(n + 2, 1234.5f);
    mx::dequantize(e.elements.data(), e.elements.size(), e.scales.data(), e.scales.size(), n, out.data() + 1, element,
                   options);
    EXPECT_EQ(out[0], 1234.5f);
    EXPECT_EQ(out[n + 1], 1234.5f);
    std::vector<std::uint32_t> got(n);
    for (std::size_t i = 0; i < n; ++i) got[i] = bits_of(out[i + 1]);
    EXPECT_TRUE(same(expected, got, "dequantized"));
  }
}

std::vector<std::uint32_t> bits_of_all(const std::vector<float>& values) {
  std::vector<std::uint32_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = bits_of(values[i]);
  return bits;
}

// The elements' roundings and the fused round trip: every element kind and rule, the
// element roundings MX accepts (stochastic with a seed and an offset), quantize and
// dequantize against the scalar definition and mx::round_trip (in place too) against
// dequantize(quantize) and mx::scalar_round_trip, on every target.
TEST(MxSimd, ElementRoundingsAndRoundTripMatchScalarOnEveryTarget) {
  std::mt19937 rng(515);
  constexpr Rounding kRoundings[] = {Rounding::nearest_even, Rounding::nearest_away, Rounding::nearest_zero,
                                     Rounding::toward_zero, Rounding::stochastic};
  for (const Facts& facts : mx_test::kFacts) {
    for (ScaleRule rule : mx_test::kScaleRules) {
      for (Rounding rounding : kRoundings) {
        for (const Shape& shape : {Shape{32, 4099}, Shape{4, 37}, Shape{5000, 12345}}) {
          mx::Options options{shape.block, rule, rounding, RandomStream{77, 1000}};
          SCOPED_TRACE(std::string(facts.name) + " " + mx_test::rule_name(rule) + " " +
                       std::string(rounding_name(rounding)) + " block " + std::to_string(shape.block));
          const std::vector<float> in =
              mx_test::random_blocks(shape.n, std::min<std::size_t>(shape.block, 64), rng, -160, 127, true);
          const Encoded expected = scalar_encode(in, facts.element, options);
          const std::vector<std::uint32_t> expected_back = scalar_decode(expected, shape.n, facts.element, options);
          std::vector<float> scalar_trip(shape.n);
          mx::scalar_round_trip(in.data(), shape.n, scalar_trip.data(), facts.element, options);
          EXPECT_TRUE(same(expected_back, bits_of_all(scalar_trip), "scalar round trip"));
          for_each_target([&](const std::string&) {
            const Encoded got = fast_encode(in, facts.element, options);
            EXPECT_TRUE(same(expected.scales, got.scales, "scales"));
            EXPECT_TRUE(same(expected.elements, got.elements, "elements"));
            std::vector<float> trip(shape.n);
            mx::round_trip(in.data(), shape.n, trip.data(), facts.element, options);
            EXPECT_TRUE(same(expected_back, bits_of_all(trip), "round trip"));
            std::vector<float> in_place = in;
            mx::round_trip(in_place.data(), shape.n, in_place.data(), facts.element, options);
            EXPECT_TRUE(same(expected_back, bits_of_all(in_place), "round trip in place"));
          });
        }
      }
    }
  }
}

// Stochastic rounding of the elements is reproducible from seed and offset: the same
// stream continued over two calls gives the bits of one call, another seed other bits.
TEST(MxSimd, StochasticElementsFollowTheirCounters) {
  std::mt19937 rng(3);
  const std::size_t n = 64 * 100;
  const std::vector<float> in = mx_test::random_blocks(n, 32, rng, -20, 20, false);
  const mx::Options whole{32, ScaleRule::floor, Rounding::stochastic, RandomStream{5, 0}};
  std::vector<float> one(n), pieces(n), other(n);
  mx::round_trip(in.data(), n, one.data(), Element::fp4_e2m1, whole);
  mx::round_trip(in.data(), n / 2, pieces.data(), Element::fp4_e2m1, whole);
  mx::Options second = whole;
  second.random.offset = n / 2;
  mx::round_trip(in.data() + n / 2, n / 2, pieces.data() + n / 2, Element::fp4_e2m1, second);
  EXPECT_TRUE(same(bits_of_all(one), bits_of_all(pieces), "continued stream"));
  mx::Options reseeded = whole;
  reseeded.random.seed = 6;
  mx::round_trip(in.data(), n, other.data(), Element::fp4_e2m1, reseeded);
  EXPECT_FALSE(same(bits_of_all(one), bits_of_all(other), "another seed"));
}

TEST(MxSimd, DirectedElementRoundingsAreRefused) {
  const float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  float out[4];
  for (Rounding rounding : {Rounding::up, Rounding::down, Rounding::away_from_zero, Rounding::odd,
                            Rounding::stochastic_equal}) {
    const mx::Options options{32, ScaleRule::floor, rounding};
    EXPECT_THROW(mx::round_trip(x, 4, out, Element::fp8_e4m3, options), std::invalid_argument);
    EXPECT_THROW(mx::scalar_round_trip(x, 4, out, Element::fp8_e4m3, options), std::invalid_argument);
  }
}

// Threads get whole blocks; the bits do not depend on the thread count.
TEST(MxSimd, ThreadsGiveTheSameBits) {
  std::mt19937 rng(99);
  const std::size_t n = (std::size_t{1} << 18) + 20;
  const std::vector<float> in = mx_test::random_blocks(n, 32, rng, -140, 120, true);
  for (Element element : {Element::fp8_e4m3, Element::fp4_e2m1, Element::fp6_e3m2, Element::int8}) {
    const mx::Options options{32, ScaleRule::floor};
    const Encoded expected = scalar_encode(in, element, options);
    const std::vector<std::uint32_t> expected_back = scalar_decode(expected, n, element, options);
    for (int threads : {2, 3}) {
      set_num_threads(threads);
      const Encoded got = fast_encode(in, element, options);
      EXPECT_TRUE(same(expected.elements, got.elements, "elements")) << threads << " threads";
      EXPECT_TRUE(same(expected.scales, got.scales, "scales")) << threads << " threads";
      EXPECT_TRUE(same(expected_back, fast_decode(got, n, element, options), "dequantized")) << threads;
    }
    set_num_threads(1);
  }
  // One block of any size, even the largest size_t: the whole array shares one scale.
  set_num_threads(2);
  for (std::size_t block : {n, n + 1, std::numeric_limits<std::size_t>::max()}) {
    const mx::Options options{block, ScaleRule::rceil};
    const Encoded expected = scalar_encode(in, Element::fp8_e5m2, options);
    const Encoded got = fast_encode(in, Element::fp8_e5m2, options);
    EXPECT_EQ(got.scales.size(), 1u);
    EXPECT_TRUE(same(expected.scales, got.scales, "scales")) << block;
    EXPECT_TRUE(same(expected.elements, got.elements, "elements")) << block;
    EXPECT_TRUE(same(scalar_decode(expected, n, Element::fp8_e5m2, options),
                     fast_decode(got, n, Element::fp8_e5m2, options), "dequantized"))
        << block;
  }
  set_num_threads(1);
}

#if defined(__x86_64__) || defined(__i386__)
// The caller's flush-to-zero, denormals-are-zero and round-up mode do not change the
// result (the scale factors 2^-127 .. 2^-149 are fp32 subnormals), and are restored.
TEST(MxSimd, CallersFloatEnvironmentIsIgnoredAndRestored) {
  std::mt19937 rng(7);
  const std::size_t n = 4096;
  const std::vector<float> in = mx_test::random_blocks(n, 32, rng, -150, -100, false);  // tiny scales
  const mx::Options options{32, ScaleRule::floor};
  for (Element element : {Element::fp8_e5m2, Element::int8}) {
    const Encoded expected = scalar_encode(in, element, options);
    const std::vector<std::uint32_t> expected_back = scalar_decode(expected, n, element, options);
    const unsigned saved = _mm_getcsr();
    const unsigned odd_environment = (saved & ~0x6000u) | 0x8040u /* FTZ, DAZ */ | 0x4000u /* round up */;
    _mm_setcsr(odd_environment);
    const Encoded got = fast_encode(in, element, options);
    const std::vector<std::uint32_t> back = fast_decode(got, n, element, options);
    const unsigned after = _mm_getcsr();
    _mm_setcsr(saved);
    EXPECT_EQ(after & 0xFFC0u, odd_environment & 0xFFC0u) << "the caller's MXCSR is restored";
    EXPECT_TRUE(same(expected.elements, got.elements, "elements"));
    EXPECT_TRUE(same(expected.scales, got.scales, "scales"));
    EXPECT_TRUE(same(expected_back, back, "dequantized"));
  }
}
#endif

}  // namespace
}  // namespace softfloat
