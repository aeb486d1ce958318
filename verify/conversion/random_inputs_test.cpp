// Random inputs against MPFR, with fixed seeds: random bit patterns of float and of
// double (NaNs, infinities, subnormals and far out-of-range values included), and
// random doubles and floats concentrated on the format's exponent range (a few
// binades beyond each end), both signs. The number per kind: a sample small enough
// for the sanitizer run, or in the long run (case_count, ctests labelled exhaustive)
// 1.25 million inputs per format.
#include <algorithm>
#include <random>

#include "verify/common/long_run.hpp"
#include "verify/conversion/conversion_test_support.hpp"

namespace softfloat::conversion_test {
namespace {

const int kInputsPerKind = int(test_support::case_count(10000, 250000));

template <class F>
class RandomInputs : public ::testing::Test {};
TYPED_TEST_SUITE(RandomInputs, AllFormats, FormatNames);

// One seed per format and input kind, so that a failure reproduces alone.
std::mt19937_64 seeded_for(const Format& f, int kind) {
  std::seed_seq seed{f.exponent_bits, f.mantissa_bits, f.bias, int(f.specials), int(f.is_signed), kind, 2024};
  return std::mt19937_64(seed);
}

// Binade exponents of the smallest positive value and of max (x in [2^e, 2^(e+1))),
// from MPFR's reading of the codes.
struct ExponentRange {
  long lowest, highest;
};
ExponentRange exponent_range(const Format& f) {
  Mpfr value;
  exact_value(value, f.has_zero ? 1 : 0, f);
  const long lowest = mpfr_get_exp(value.get()) - 1;
  exact_value(value, largest_finite_code(f), f);
  return {lowest, long(mpfr_get_exp(value.get())) - 1};
}

// A random Source with uniform sign, mantissa bits, and binade exponent in
// [lowest - 3, highest + 2] clipped to Source's own range (ldexp rounds into the
// subnormals exactly as it should; any Source value is a valid input).
template <class Source>
Source concentrated(std::mt19937_64& rng, ExponentRange range) {
  constexpr int digits = std::numeric_limits<Source>::digits;
  constexpr long source_lowest = std::numeric_limits<Source>::min_exponent - digits;  // smallest subnormal
  constexpr long source_highest = std::numeric_limits<Source>::max_exponent - 1;
  const long low = std::clamp(range.lowest - 3, source_lowest, source_highest);
  const long high = std::clamp(range.highest + 2, source_lowest, source_highest);
  const long exponent = low + long(rng() % std::uint64_t(high - low + 1));
  const std::uint64_t mantissa = rng() >> (64 - (digits - 1));
  const Source unit = Source(1) + std::ldexp(Source(mantissa), -(digits - 1));  // exact: [1, 2)
  const Source x = std::ldexp(unit, int(exponent));
  return (rng() & 1) != 0 ? -x : x;
}

TYPED_TEST(RandomInputs, FloatBitPatterns) {
  using F = TypeParam;
  auto rng = seeded_for(F::format, 1);
  MismatchLog log(format_name(F::format) + " random float bits");
  for (int i = 0; i < kInputsPerKind; ++i) check_conversion<F>(log, std::bit_cast<float>(std::uint32_t(rng())));
  EXPECT_TRUE(log.result());
}

TYPED_TEST(RandomInputs, DoubleBitPatterns) {
  using F = TypeParam;
  auto rng = seeded_for(F::format, 2);
  MismatchLog log(format_name(F::format) + " random double bits");
  for (int i = 0; i < kInputsPerKind; ++i) check_conversion<F>(log, std::bit_cast<double>(rng()));
  EXPECT_TRUE(log.result());
}

TYPED_TEST(RandomInputs, DoublesInTheFormatsRange) {
  using F = TypeParam;
  auto rng = seeded_for(F::format, 3);
  const ExponentRange range = exponent_range(F::format);
  MismatchLog log(format_name(F::format) + " random doubles in range");
  int finite_nonzero = 0;
  for (int i = 0; i < 2 * kInputsPerKind; ++i) {
    const double x = concentrated<double>(rng, range);
    check_conversion<F>(log, x);
    finite_nonzero += is_finite_nonzero(verify::reference_round(x, F::format), F::format) ? 1 : 0;
  }
  EXPECT_TRUE(log.result());
  // The inputs do land inside the format: at least a third are finite nonzero
  // codes (the exponent window is at most 5 binades wider than the format's, and
  // negatives are NaN in an unsigned format).
  EXPECT_GT(finite_nonzero, 2 * kInputsPerKind / 3);
}

TYPED_TEST(RandomInputs, FloatsInTheFormatsRange) {
  using F = TypeParam;
  auto rng = seeded_for(F::format, 4);
  const ExponentRange range = exponent_range(F::format);
  MismatchLog log(format_name(F::format) + " random floats in range");
  for (int i = 0; i < kInputsPerKind; ++i) check_conversion<F>(log, concentrated<float>(rng, range));
  EXPECT_TRUE(log.result());
}

}  // namespace
}  // namespace softfloat::conversion_test
