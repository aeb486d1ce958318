// Every deterministic rounding direction (nearest_even, nearest_away, nearest_zero,
// toward_zero, away_from_zero, up, down, odd) with both overflow policies, for every
// format of this folder, against verify::reference_round(x, format, mode, policy):
// GNU MPFR's RNDN / RNDZ / RNDU / RNDD / RNDA, and for the modes MPFR lacks the
// choice between MPFR's two neighbours by an exact comparison with their midpoint
// (nearest_away, nearest_zero) or by parity (odd). Here: a binade sample of the
// formats wider than 16 bits, the overflow thresholds and special values of every
// format, random floats and doubles, and the worked cases of the overflow rules,
// code by code. The gaps of the formats up to 16 bits: rounding_modes_boundaries_test.cpp.
#include <algorithm>
#include <initializer_list>
#include <random>

#include "verify/conversion/rounding_modes_checks.hpp"

namespace softfloat::conversion_test {
namespace {

// ---------------------------------------------------------------------------
// The formats wider than 16 bits, binade by binade.

template <class F>
class RoundingModesWideFormats : public ::testing::Test {};
TYPED_TEST_SUITE(RoundingModesWideFormats, WideFormats, FormatNames);

// Each binade's extreme mantissas and two random ones, with the gaps on both sides
// of each (see binade_sample_codes and append_boundary_probes: a midpoint the
// Source cannot hold is replaced by the two Source values around it).
template <class F, class Source>
void check_sampled_binades_in_every_mode() {
  const Format f = F::format;
  MismatchLog log(format_name(f) + " sampled binades, every mode and policy");
  std::mt19937_64 rng(20250101);
  std::vector<Source> probes;
  for (std::uint64_t code : binade_sample_codes(f, rng, 2)) {
    if (code > largest_finite_code(f)) continue;  // infinities and NaNs: see RoundingModesSpecials
    probes.clear();
    append_boundary_probes(probes, long(code), f);
    if (code > 0) append_boundary_probes(probes, long(code) - 1, f);
    for (Source x : probes) check_every_mode_both_signs<F>(log, x);
  }
  EXPECT_TRUE(log.result());
  EXPECT_GT(log.checked(), 10000u);
}

TYPED_TEST(RoundingModesWideFormats, DoubleInput) { check_sampled_binades_in_every_mode<TypeParam, double>(); }
TYPED_TEST(RoundingModesWideFormats, FloatInput) { check_sampled_binades_in_every_mode<TypeParam, float>(); }

// ---------------------------------------------------------------------------
// Overflow thresholds and special values, every format.

template <class F>
class RoundingModesSpecials : public ::testing::Test {};
TYPED_TEST_SUITE(RoundingModesSpecials, AllFormats, FormatNames);

// A multiple of the exact value `x`, as the nearest Source value.
template <class Source>
Source scaled(mpfr_srcptr x, long numerator, unsigned shift) {
  Mpfr value;
  mpfr_mul_si(value.get(), x, numerator, MPFR_RNDN);  // exact at 256 bits
  mpfr_div_2ui(value.get(), value.get(), shift, MPFR_RNDN);
  return nearest_source<Source>(value.get());
}

template <class Source>
std::vector<Source> specials_and_thresholds(const Format& f) {
  using limits = std::numeric_limits<Source>;
  const Source inf = limits::infinity();
  std::vector<Source> inputs{Source(0),           inf,
                             limits::max(),       limits::min(),
                             limits::denorm_min(), Source(2 * limits::denorm_min()),
                             Source(limits::min() - limits::denorm_min()),  // the largest subnormal
                             Source(limits::min() / 2), Source(1)};
  if constexpr (std::is_same_v<Source, float>) {
    for (std::uint32_t bits : {0x7fc00000u, 0x7fc12345u, 0x7fffffffu, 0x7f800001u, 0x7fa00000u})
      inputs.push_back(std::bit_cast<float>(bits));
  } else {
    for (std::uint64_t bits : {0x7ff8000000000000u, 0x7ff8123456789abcu, 0x7fffffffffffffffu, 0x7ff0000000000001u,
                               0x7ff4000000000000u})
      inputs.push_back(std::bit_cast<double>(bits));
  }
  // The overflow thresholds: max; the midpoint between max and the would-be next
  // code (where the nearest modes leave max); the would-be next code (beyond which
  // every mode overflows except toward max); the next binade; each with neighbours.
  Mpfr max, next, mid;
  exact_value(max, largest_finite_code(f), f);
  value_at(next, last_position(f), f);
  mpfr_add(mid.get(), max.get(), next.get(), MPFR_RNDN);  // exact at 256 bits
  mpfr_div_2ui(mid.get(), mid.get(), 1, MPFR_RNDN);
  for (Source x : {nearest_source<Source>(max.get()), nearest_source<Source>(mid.get()),
                   nearest_source<Source>(next.get()), scaled<Source>(next.get(), 2, 0),
                   scaled<Source>(max.get(), 3, 0)}) {
    inputs.push_back(x);
    inputs.push_back(std::nextafter(x, inf));
    inputs.push_back(std::nextafter(x, Source(0)));
  }
  // The bottom: the smallest positive value, the tie with zero below it, a quarter,
  // three quarters and one and a half of it, with neighbours.
  Mpfr smallest;
  exact_value(smallest, f.has_zero ? 1 : 0, f);
  for (Source x : {nearest_source<Source>(smallest.get()), scaled<Source>(smallest.get(), 1, 1),
                   scaled<Source>(smallest.get(), 1, 2), scaled<Source>(smallest.get(), 3, 2),
                   scaled<Source>(smallest.get(), 3, 1)}) {
    inputs.push_back(x);
    inputs.push_back(std::nextafter(x, inf));
    inputs.push_back(std::nextafter(x, Source(0)));
  }
  return inputs;
}

template <class F, class Source>
void check_specials_and_thresholds() {
  MismatchLog log(format_name(F::format) + " specials and overflow thresholds");
  for (Source x : specials_and_thresholds<Source>(F::format)) check_every_mode_both_signs<F>(log, x);
  EXPECT_TRUE(log.result());
}

TYPED_TEST(RoundingModesSpecials, FloatInput) { check_specials_and_thresholds<TypeParam, float>(); }
TYPED_TEST(RoundingModesSpecials, DoubleInput) { check_specials_and_thresholds<TypeParam, double>(); }

// ---------------------------------------------------------------------------
// Random inputs, every format.

template <class F>
class RoundingModesRandom : public ::testing::Test {};
TYPED_TEST_SUITE(RoundingModesRandom, AllFormats, FormatNames);

constexpr int kRandomPerKind = 2000;

std::mt19937_64 seeded_for(const Format& f, int kind) {
  std::seed_seq seed{f.exponent_bits, f.mantissa_bits, f.bias, int(f.specials), int(f.is_signed), kind, 2025};
  return std::mt19937_64(seed);
}

// A random Source in the format's range and a few binades beyond each end: random
// sign and significand bits, the binade uniform over [lowest - 3, highest + 2],
// clipped to Source's own range.
template <class Source>
Source in_format_range(std::mt19937_64& rng, const Format& f) {
  constexpr int digits = std::numeric_limits<Source>::digits;
  constexpr long source_lowest = std::numeric_limits<Source>::min_exponent - digits;
  constexpr long source_highest = std::numeric_limits<Source>::max_exponent - 1;
  Mpfr value;
  exact_value(value, f.has_zero ? 1 : 0, f);
  const long lowest = std::clamp(long(mpfr_get_exp(value.get())) - 1 - 3, source_lowest, source_highest);
  exact_value(value, largest_finite_code(f), f);
  const long highest = std::clamp(long(mpfr_get_exp(value.get())) - 1 + 2, source_lowest, source_highest);
  const long exponent = lowest + long(rng() % std::uint64_t(highest - lowest + 1));
  const Source unit = Source(1) + std::ldexp(Source(rng() >> (64 - (digits - 1))), -(digits - 1));  // [1, 2)
  const Source x = std::ldexp(unit, int(exponent));
  return (rng() & 1) != 0 ? -x : x;
}

TYPED_TEST(RoundingModesRandom, FloatAndDoubleInputs) {
  using F = TypeParam;
  const Format f = F::format;
  MismatchLog log(format_name(f) + " random inputs, every mode and policy");
  auto float_bits = seeded_for(f, 1), double_bits = seeded_for(f, 2), floats = seeded_for(f, 3),
       doubles = seeded_for(f, 4);
  for (int i = 0; i < kRandomPerKind; ++i) {
    check_every_mode<F>(log, std::bit_cast<float>(std::uint32_t(float_bits())));
    check_every_mode<F>(log, std::bit_cast<double>(double_bits()));
    check_every_mode<F>(log, in_format_range<float>(floats, f));
    check_every_mode<F>(log, in_format_range<double>(doubles, f));
  }
  EXPECT_TRUE(log.result());
}

// ---------------------------------------------------------------------------
// Worked cases of the overflow rules, each code stated and checked against both the
// library and the reference.

struct WorkedCase {
  const char* what;
  double input;
  Rounding mode;
  Overflow policy;
  std::uint64_t code;
};

template <class F>
void check_worked_cases(std::initializer_list<WorkedCase> cases) {
  for (const WorkedCase& c : cases) {
    SCOPED_TRACE(std::string(c.what) + ": " + describe(c.input) + " " + name_of(c.mode) + " " + name_of(c.policy));
    EXPECT_EQ(std::uint64_t(F::from_exact(decode(c.input), c.mode, c.policy).bits()), c.code);
    EXPECT_EQ(verify::reference_round(c.input, F::format, c.mode, c.policy), c.code);
  }
}

TEST(RoundingModesWorkedCases, E4m3) {
  using R = Rounding;
  constexpr Overflow standard = Overflow::standard, saturate = Overflow::saturate;
  check_worked_cases<E4M3>({
      // 460 lies between max 448 = 0b0'1111'110 (even) and the would-be 480 =
      // 0b0'1111'111 (odd, the NaN code): round-to-odd overflows to max, not NaN.
      {"odd of 460 overflows to max", 460, R::odd, standard, 0x7E},
      {"odd of 460 saturates", 460, R::odd, saturate, 0x7E},
      {"odd of -460 overflows to -max", -460, R::odd, standard, 0xFE},
      // 464 is the midpoint of 448 and 480: ties away overflow, ties to zero and to even stay.
      {"nearest_away of 464", 464, R::nearest_away, standard, 0x7F},
      {"nearest_away of 464 saturated", 464, R::nearest_away, saturate, 0x7E},
      {"nearest_zero of 464", 464, R::nearest_zero, standard, 0x7E},
      {"nearest_even of 464", 464, R::nearest_even, standard, 0x7E},
      // Anything above max overflows upward in up and away_from_zero; toward_zero and
      // down keep 448 (IEEE 754 7.4).
      {"up of 449", 449, R::up, standard, 0x7F},
      {"away of 449", 449, R::away_from_zero, standard, 0x7F},
      {"toward_zero of 1e6", 1e6, R::toward_zero, standard, 0x7E},
      {"down of 1e6", 1e6, R::down, standard, 0x7E},
      {"up of -1e6", -1e6, R::up, standard, 0xFE},
      {"down of -1e6", -1e6, R::down, standard, 0xFF},
      // Odd below max: 1.2 lies between 1.125 = 0b0'0111'001 (odd) and 1.25; 2.1
      // between 2 = 0b0'1000'000 (even) and 2.25 = 0b0'1000'001; 1.9 between 1.875 =
      // 0b0'0111'111 (odd) and 2.
      {"odd of 1.2", 1.2, R::odd, standard, 0x39},
      {"odd of 2.1", 2.1, R::odd, standard, 0x41},
      {"odd of 1.9", 1.9, R::odd, standard, 0x3F},
      {"odd of 2 is exact", 2, R::odd, standard, 0x40},
      // Infinity has no E4M3 code: NaN under the format's rule in every mode, max
      // when saturating.
      {"infinity toward_zero", kInfinity, R::toward_zero, standard, 0x7F},
      {"infinity saturated", kInfinity, R::nearest_even, saturate, 0x7E},
      {"-infinity up saturated", -kInfinity, R::up, saturate, 0xFE},
      // Underflow: 2^-11 is a quarter of the smallest subnormal 2^-9.
      {"up of 2^-11", 0x1p-11, R::up, standard, 0x01},
      {"down of -2^-11", -0x1p-11, R::down, standard, 0x81},
      {"up of -2^-11 is -0", -0x1p-11, R::up, standard, 0x80},
      {"odd of 2^-11", 0x1p-11, R::odd, standard, 0x01},
      // 2^-10 is the tie between 0 and 2^-9.
      {"nearest_away of 2^-10", 0x1p-10, R::nearest_away, standard, 0x01},
      {"nearest_zero of 2^-10", 0x1p-10, R::nearest_zero, standard, 0x00},
  });
}

TEST(RoundingModesWorkedCases, Fp16) {
  using R = Rounding;
  constexpr Overflow standard = Overflow::standard, saturate = Overflow::saturate;
  check_worked_cases<FP16>({
      // max 65504 = 0b0'11110'1111111111 (0x7BFF); infinity 0x7C00.
      {"toward_zero of 1e6 is max", 1e6, R::toward_zero, standard, 0x7BFF},
      {"nearest of 1e6 is infinity", 1e6, R::nearest_even, standard, 0x7C00},
      {"nearest of 1e6 saturated", 1e6, R::nearest_even, saturate, 0x7BFF},
      {"up of -1e6 is -max", -1e6, R::up, standard, 0xFBFF},
      {"down of -1e6 is -infinity", -1e6, R::down, standard, 0xFC00},
      {"down of 1e6 is max", 1e6, R::down, standard, 0x7BFF},
      {"up of 1e6 is infinity", 1e6, R::up, standard, 0x7C00},
      {"away of 65505 is infinity", 65505, R::away_from_zero, standard, 0x7C00},
      // Between max (odd) and 2^16 round-to-odd keeps max; from 2^16 on the odd
      // neighbour lies beyond max, and odd overflows to max like toward_zero.
      {"odd of 65535 is max", 65535, R::odd, standard, 0x7BFF},
      {"odd of 65536 is max", 65536, R::odd, standard, 0x7BFF},
      {"odd of 65536 saturated", 65536, R::odd, saturate, 0x7BFF},
      // 65520 = max + 16 is the midpoint towards 2^16.
      {"nearest_away of 65520", 65520, R::nearest_away, standard, 0x7C00},
      {"nearest_zero of 65520", 65520, R::nearest_zero, standard, 0x7BFF},
      // Infinity is exact under the format's rule in every mode, max when saturating.
      {"infinity toward_zero", kInfinity, R::toward_zero, standard, 0x7C00},
      {"-infinity up", -kInfinity, R::up, standard, 0xFC00},
      {"infinity saturated", kInfinity, R::toward_zero, saturate, 0x7BFF},
      // 1 + 2^-11 is the midpoint of 1 (0x3C00) and 1 + 2^-10 (0x3C01).
      {"nearest_away of 1 + 2^-11", 1 + 0x1p-11, R::nearest_away, standard, 0x3C01},
      {"nearest_zero of 1 + 2^-11", 1 + 0x1p-11, R::nearest_zero, standard, 0x3C00},
      {"odd of 1 + 2^-12", 1 + 0x1p-12, R::odd, standard, 0x3C01},
      {"odd of 1 + 2^-9 + 2^-12", 1 + 0x1p-9 + 0x1p-12, R::odd, standard, 0x3C03},
  });
}

TEST(RoundingModesWorkedCases, FormatsWithoutInfinity) {
  using R = Rounding;
  constexpr Overflow standard = Overflow::standard, saturate = Overflow::saturate;
  // E2M1 (max 6 = 0b0'11'1) has neither infinity nor NaN: every overflow is max.
  check_worked_cases<E2M1>({
      {"up of 6.5", 6.5, R::up, standard, 0x7},
      {"away of -7", -7, R::away_from_zero, standard, 0xF},
      {"odd of 7", 7, R::odd, standard, 0x7},
      {"infinity", kInfinity, R::up, standard, 0x7},
      {"odd of 5 (between 4 = 0b0'11'0 and 6)", 5, R::odd, standard, 0x7},
      {"nearest_zero of 5", 5, R::nearest_zero, standard, 0x6},
  });
  // E4M3FNUZ (max 240 = 0b0'1111'111, NaN 0x80, no -0).
  check_worked_cases<E4M3FNUZ>({
      {"up of 241", 241, R::up, standard, 0x80},
      {"up of 241 saturated", 241, R::up, saturate, 0x7F},
      {"toward_zero of -1e6", -1e6, R::toward_zero, standard, 0xFF},
      {"up of -2^-12 is +0", -0x1p-12, R::up, standard, 0x00},
      {"nearest_away of -2^-11", -0x1p-11, R::nearest_away, standard, 0x81},
      {"nearest_zero of -2^-11 is +0", -0x1p-11, R::nearest_zero, standard, 0x00},
  });
  // P3109 binary8p3 (max 49152 = 0b0'11111'10, infinities 0x7F / 0xFF, NaN 0x80).
  check_worked_cases<P3109<8, 3>>({
      {"up of 1e6", 1e6, R::up, standard, 0x7F},
      {"up of 1e6 saturated", 1e6, R::up, saturate, 0x7E},
      {"toward_zero of 1e6", 1e6, R::toward_zero, standard, 0x7E},
      {"down of -1e6", -1e6, R::down, standard, 0xFF},
      {"-infinity saturated", -kInfinity, R::down, saturate, 0xFE},
      // 57000 lies between max (0b...10, even) and the would-be 0b0'11111'11 (odd,
      // the infinity code): round-to-odd overflows to max.
      {"odd of 57000", 57000, R::odd, standard, 0x7E},
  });
  // E8M0 (code c is 2^(c - 127), unsigned, NaN 0xFF): 3 lies between 2 = 0x80 and
  // 4 = 0x81 and is their midpoint; with one significant bit the lower neighbour
  // 1 * 2^1 is the odd multiple of the gap 2.
  check_worked_cases<E8M0>({
      {"odd of 3", 3, R::odd, standard, 0x80},
      {"nearest_away of 3", 3, R::nearest_away, standard, 0x81},
      {"nearest_zero of 3", 3, R::nearest_zero, standard, 0x80},
      {"up of 3", 3, R::up, standard, 0x81},
      {"negative is NaN even saturated", -1, R::toward_zero, saturate, 0xFF},
      {"up beyond 2^127", 0x1.8p127, R::up, standard, 0xFF},
      {"up beyond 2^127 saturated", 0x1.8p127, R::up, saturate, 0xFE},
      {"toward_zero beyond 2^127", 0x1.8p127, R::toward_zero, standard, 0xFE},
      {"down below 2^-127 is the smallest", 0x1p-130, R::down, standard, 0x00},
  });
}

// Stochastic rounding that lands on a non-finite code overflows like the other
// modes. 450 lies between max 448 and the would-be 480 (the NaN code 0x7F), 1/16 of
// the gap above 448: a random word below 2^28 rounds away from zero, any other
// toward zero. Away from zero is the MPFR RNDA result under the same policy.
TEST(RoundingModesWorkedCases, E4m3StochasticOverflowFollowsThePolicy) {
  for (double x : {450.0, -450.0}) {
    for (Overflow policy : kOverflowPolicies) {
      SCOPED_TRACE(describe(x) + " " + name_of(policy));
      const std::uint64_t sign = x < 0 ? 0x80 : 0x00;
      const std::uint64_t away = E4M3::from_exact(decode(x), Rounding::stochastic, policy, 0).bits();
      const std::uint64_t toward_zero = E4M3::from_exact(decode(x), Rounding::stochastic, policy, 0xFFFFFFFFu).bits();
      EXPECT_EQ(away, sign | (policy == Overflow::saturate ? 0x7E : 0x7F));
      EXPECT_EQ(away, verify::reference_round(x, E4M3::format, Rounding::away_from_zero, policy));
      EXPECT_EQ(toward_zero, sign | 0x7E);
      EXPECT_EQ(toward_zero, verify::reference_round(x, E4M3::format, Rounding::toward_zero, policy));
    }
  }
}

// The reference refuses what has no single correct result.
TEST(RoundingModesWorkedCases, ReferenceRejectsStochasticModes) {
  EXPECT_THROW(verify::reference_round(1.1, E4M3::format, Rounding::stochastic, Overflow::standard),
               std::invalid_argument);
  EXPECT_THROW(verify::reference_round(1.1f, E4M3::format, Rounding::stochastic_equal, Overflow::saturate),
               std::invalid_argument);
}

}  // namespace
}  // namespace softfloat::conversion_test
