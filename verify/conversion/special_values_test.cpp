// Special values for every format: +-0, +-infinity, quiet and signaling NaNs with
// payloads (both signs), max, the smallest subnormal, values just above max and
// around the overflow threshold, and tiny values that underflow, from float and
// double input, against verify::reference_round (MPFR). The conventions of the
// contract are then pinned code by code for the formats that define them.
#include "verify/conversion/conversion_test_support.hpp"

namespace softfloat::conversion_test {
namespace {

template <class F>
class SpecialValues : public ::testing::Test {};
TYPED_TEST_SUITE(SpecialValues, AllFormats, FormatNames);

// The value of a code, or of a multiple of it, as the nearest Source value.
template <class Source>
Source scaled_value(std::uint64_t code, const Format& f, long numerator, unsigned shift) {
  Mpfr value;
  exact_value(value, code, f);
  mpfr_mul_si(value.get(), value.get(), numerator, MPFR_RNDN);  // exact at 256 bits
  mpfr_div_2ui(value.get(), value.get(), shift, MPFR_RNDN);
  if constexpr (std::is_same_v<Source, float>) return mpfr_get_flt(value.get(), MPFR_RNDN);
  else return mpfr_get_d(value.get(), MPFR_RNDN);
}

template <class Source>
std::vector<Source> special_inputs(const Format& f) {
  using limits = std::numeric_limits<Source>;
  const Source inf = limits::infinity();
  std::vector<Source> inputs{Source(0), inf, limits::max(), limits::min(), limits::denorm_min(), Source(1)};
  // NaNs: quiet, quiet with a payload, signaling with the lowest payload bit, and
  // signaling with the bit below the quiet bit.
  if constexpr (std::is_same_v<Source, float>) {
    for (std::uint32_t bits : {0x7fc00000u, 0x7fc12345u, 0x7fffffffu, 0x7f800001u, 0x7fa00000u, 0x7f802000u})
      inputs.push_back(std::bit_cast<float>(bits));
  } else {
    for (std::uint64_t bits : {0x7ff8000000000000u, 0x7ff8123456789abcu, 0x7fffffffffffffffu, 0x7ff0000000000001u,
                               0x7ff4000000000000u, 0x7ff0040000000000u})
      inputs.push_back(std::bit_cast<double>(bits));
  }
  const std::uint64_t max = largest_finite_code(f);
  const std::uint64_t smallest = f.has_zero ? 1 : 0;  // smallest positive value
  const Source max_value = scaled_value<Source>(max, f, 1, 0);
  const Source smallest_value = scaled_value<Source>(smallest, f, 1, 0);
  // max, just above it, 2 max, and the overflow threshold max + half an ulp of
  // max's binade (the midpoint towards the would-be next code) with neighbours.
  std::vector<Source> around_threshold;
  append_boundary_probes(around_threshold, long(max), f);
  inputs.insert(inputs.end(), around_threshold.begin(), around_threshold.end());
  for (Source x : {max_value, std::nextafter(max_value, inf), scaled_value<Source>(max, f, 2, 0),
                   scaled_value<Source>(max, f, 1025, 10)})
    inputs.push_back(x);
  // The smallest value, half of it (a tie with zero: rounds to zero, or up to the
  // smallest value in a format without zero), its neighbours, a quarter of it.
  for (Source x : {smallest_value, scaled_value<Source>(smallest, f, 1, 1), scaled_value<Source>(smallest, f, 1, 2),
                   scaled_value<Source>(smallest, f, 3, 2), scaled_value<Source>(smallest, f, 3, 1)}) {
    inputs.push_back(x);
    inputs.push_back(std::nextafter(x, inf));
    inputs.push_back(std::nextafter(x, Source(0)));
  }
  return inputs;
}

template <class F, class Source>
void check_special_inputs() {
  MismatchLog log(format_name(F::format) + " special values");
  for (Source x : special_inputs<Source>(F::format)) check_both_signs<F>(log, x);
  EXPECT_TRUE(log.result());
}

TYPED_TEST(SpecialValues, FloatInput) { check_special_inputs<TypeParam, float>(); }
TYPED_TEST(SpecialValues, DoubleInput) { check_special_inputs<TypeParam, double>(); }

// Checks one pinned convention: the code stated in the test, the library's and
// MPFR's must all agree.
template <class F, class Source>
void expect_code(Source x, std::uint64_t code) {
  EXPECT_EQ(std::uint64_t(F(x).bits()), code) << format_name(F::format) << " from " << describe(x);
  EXPECT_EQ(verify::reference_round(x, F::format), code) << "MPFR, " << format_name(F::format) << " from "
                                                         << describe(x);
}
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(SpecialValueConventions, FormatsWithoutNaNTurnNaNIntoPlusZero) {
  // E2M1, E2M3 and E3M2 have no code for "not a number"; the library gives +0.
  for (float nan : {kNaN, -kNaN}) {
    expect_code<E2M1>(nan, 0x00);
    expect_code<E2M3>(nan, 0x00);
    expect_code<E3M2>(nan, 0x00);
    expect_code<E2M1>(double(nan), 0x00);
  }
  // Infinity saturates to +-max: E2M1 0b0'11'1 = 6, E3M2 0b0'111'11 = 28.
  expect_code<E2M1>(kInf, 0x07);
  expect_code<E2M1>(-kInf, 0x0F);
  expect_code<E3M2>(1e30, 0x1F);
  expect_code<E2M1>(-0.0f, 0x08);  // these formats do have -0
}

TEST(SpecialValueConventions, E8m0) {
  // Code c is 2^(c - 127); no zero, no sign, 0xFF is NaN.
  expect_code<E8M0>(0.0f, 0x00);      // +0 -> 2^-127
  expect_code<E8M0>(-0.0f, 0x00);     // -0 -> 2^-127
  expect_code<E8M0>(0x1p-200, 0x00);  // below 2^-127 -> 2^-127
  expect_code<E8M0>(0x1p-128, 0x00);  // half of 2^-127: still the smallest value
  expect_code<E8M0>(0x1p-127f, 0x00);
  expect_code<E8M0>(0x1.8p-127, 0x01);  // 1.5 * 2^-127: tie, rounds up to 2^-126
  expect_code<E8M0>(0.75f, 0x7F);       // tie between 0.5 and 1: up to 1 = 2^0
  expect_code<E8M0>(1.5f, 0x80);        // tie between 1 and 2: up to 2
  expect_code<E8M0>(3.0, 0x81);         // tie between 2 and 4: up to 4
  expect_code<E8M0>(0x1p127, 0xFE);     // max
  expect_code<E8M0>(0x1.8p127, 0xFF);   // tie with 2^128, which overflows: NaN
  expect_code<E8M0>(kInf, 0xFF);        // no infinity: NaN
  expect_code<E8M0>(kNaN, 0xFF);
  expect_code<E8M0>(-kNaN, 0xFF);
  expect_code<E8M0>(-1.0f, 0xFF);     // negative: NaN
  expect_code<E8M0>(-0x1p-200, 0xFF);  // however small
  expect_code<E8M0>(-kInf, 0xFF);
}

TEST(SpecialValueConventions, E4m3KeepsTheSignOfNaN) {
  expect_code<E4M3>(kNaN, 0x7F);
  expect_code<E4M3>(-kNaN, 0xFF);
  expect_code<E4M3>(kInf, 0x7F);  // no infinity: overflow is NaN
  expect_code<E4M3>(-kInf, 0xFF);
  expect_code<E4M3>(1e10, 0x7F);
  expect_code<E4M3>(-0.0, 0x80);
  expect_code<E4M3>(0x1p-10f, 0x00);   // half of the smallest subnormal 2^-9: tie to +0
  expect_code<E4M3>(-0x1p-10f, 0x80);  // -0
}

TEST(SpecialValueConventions, CustomBiasFnFormat) {
  // Float<4,3,11,false>: max = 0b0'1111'110 = 1.75 * 2^(15 - 11) = 28, ulp 2; 29 is
  // the tie with the would-be 30 (mantissa 111, odd; its code is NaN): stays 28.
  using F = Float<4, 3, 11, false>;
  expect_code<F>(28.0f, 0x7E);
  expect_code<F>(29.0f, 0x7E);
  expect_code<F>(29.5f, 0x7F);
  expect_code<F>(30.0, 0x7F);
  expect_code<F>(-kInf, 0xFF);
  expect_code<F>(0x1p-13f, 0x01);  // smallest subnormal 2^(1 - 11 - 3)
}

TEST(SpecialValueConventions, FnuzHasOneNaNAndNoNegativeZero) {
  for (float x : {kNaN, -kNaN, kInf, -kInf}) {
    expect_code<E4M3FNUZ>(x, 0x80);
    expect_code<E5M2FNUZ>(x, 0x80);
  }
  expect_code<E4M3FNUZ>(1e6, 0x80);  // beyond max 240: NaN
  // Smallest subnormals: E4M3FNUZ 2^(1 - 8 - 3) = 2^-10, E5M2FNUZ 2^(1 - 16 - 2) =
  // 2^-17; a quarter of them, and half of them (a tie with zero), give +0.
  for (double tiny : {-0.0, -1e-30, -0x1p-12, -0x1p-11}) expect_code<E4M3FNUZ>(tiny, 0x00);
  for (double tiny : {-0.0, -1e-30, -0x1p-19, -0x1p-18}) expect_code<E5M2FNUZ>(tiny, 0x00);
  expect_code<E5M2FNUZ>(-0x1p-17, 0x81);  // the smallest negative value itself
}

TEST(SpecialValueConventions, P3109) {
  using P3 = P3109<8, 3>;
  expect_code<P3>(kNaN, 0x80);
  expect_code<P3>(-kNaN, 0x80);
  expect_code<P3>(kInf, 0x7F);
  expect_code<P3>(-kInf, 0xFF);
  expect_code<P3>(1e30, 0x7F);
  expect_code<P3>(-1e30, 0xFF);
  expect_code<P3>(-0.0f, 0x00);
  expect_code<P3>(-1e-30, 0x00);
  expect_code<P3109<8, 1>>(-kInf, 0xFF);
}

TEST(SpecialValueConventions, IeeeNaNKeepsSignQuietsAndKeepsTopPayloadBits) {
  // float sNaN 0x7FA00000: mantissa 0b01 followed by zeros; FP16 keeps the top 10
  // bits (0b0100000000) and sets the quiet bit: 0x7C00 | 0x200 | 0x100 = 0x7F00,
  // what x86 vcvtps2ph gives.
  expect_code<FP16>(std::bit_cast<float>(0x7FA00000u), 0x7F00);
  expect_code<FP16>(std::bit_cast<float>(0xFFC00001u), 0xFE00);  // payload below the top 10 bits is lost
  expect_code<FP16>(std::bit_cast<float>(0x7F802000u), 0x7E01);  // 1 << 13 is FP16's lowest payload bit
  expect_code<FP16>(std::bit_cast<double>(0x7FF0000000000001ull), 0x7E00);
  expect_code<BF16>(std::bit_cast<float>(0xFF810000u), 0xFFC1);  // -sNaN payload 1 -> -qNaN payload 1
  expect_code<E5M2>(std::bit_cast<float>(0x7FA00000u), 0x7F);    // quiet 0b10 | top payload 0b01
  expect_code<E5M2>(std::bit_cast<float>(0xFF800001u), 0xFE);
}

}  // namespace
}  // namespace softfloat::conversion_test
