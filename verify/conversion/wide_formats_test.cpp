// Formats wider than 16 bits (FP32, TF32, Float<7,16>, Float<11,20>, FP64), binade
// by binade: the extreme mantissas (all zeros, all ones and their neighbours), the
// midpoints around them, and random mantissas, from double and from float input,
// against verify::reference_round (MPFR). FP64 and FP32 must also be the identity
// on their own source type.
#include <random>

#include "verify/conversion/conversion_test_support.hpp"

namespace softfloat::conversion_test {
namespace {

template <class F>
class WideFormatBinades : public ::testing::Test {};
TYPED_TEST_SUITE(WideFormatBinades, WideFormats, FormatNames);

// Midpoints that a source type cannot hold (float for FP32 and for binades
// outside float's range, double for FP64) are replaced by the two source values
// that bracket them; see append_boundary_probes().
template <class F, class Source>
void check_sampled_binades(int random_per_binade) {
  const Format f = F::format;
  MismatchLog log(format_name(f) + " sampled binades");
  std::mt19937_64 rng(20240612);
  std::vector<Source> probes;
  for (std::uint64_t code : binade_sample_codes(f, rng, random_per_binade)) {
    if (code > largest_finite_code(f)) continue;  // infinities and NaNs: special_values_test
    probes.clear();
    append_boundary_probes(probes, long(code), f);
    // The gap below the code as well, so that both sides of the extreme mantissas
    // (the step into and out of each binade) are visited.
    if (code > 0) append_boundary_probes(probes, long(code) - 1, f);
    for (Source x : probes) check_both_signs<F>(log, x);
  }
  EXPECT_TRUE(log.result());
  EXPECT_GT(log.checked(), 1000u);
}

TYPED_TEST(WideFormatBinades, DoubleInput) { check_sampled_binades<TypeParam, double>(16); }
TYPED_TEST(WideFormatBinades, FloatInput) { check_sampled_binades<TypeParam, float>(16); }

// FP64 is binary64: converting a double gives its own bits, subnormals included.
// Signaling NaNs are the one exception by convention: they come out quiet (quiet
// bit 1 << 51 set, payload kept), as every NaN conversion does.
TEST(WideFormatIdentity, Fp64FromDoubleKeepsTheBits) {
  std::mt19937_64 rng(64);
  MismatchLog log("FP64(double)");
  auto check = [&](std::uint64_t bits) {
    const double x = std::bit_cast<double>(bits);
    const bool signaling_nan = std::isnan(x) && (bits & (std::uint64_t{1} << 51)) == 0;
    const std::uint64_t expected = signaling_nan ? bits | (std::uint64_t{1} << 51) : bits;
    log.check(FP64(x).bits(), expected, [&] { return describe(x); });
    // The MPFR reference agrees on the identity.
    log.check(verify::reference_round(x, FP64::format), expected, [&] { return "reference " + describe(x); });
  };
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t bits = rng();
    check(bits);
    check(bits & 0x800fffffffffffffu);  // the same mantissa as a subnormal
  }
  for (std::uint64_t bits : {0x0ull, 0x1ull, 0x000fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull,
                             0x7ff0000000000000ull, 0x7ff8000000000000ull, 0x7ff0000000000001ull,
                             0x7ff4000000000000ull})
    for (std::uint64_t sign : {0x0ull, 0x8000000000000000ull}) check(bits | sign);
  EXPECT_TRUE(log.result());
}

TEST(WideFormatIdentity, Fp32FromFloatKeepsTheBits) {
  std::mt19937_64 rng(32);
  MismatchLog log("FP32(float)");
  auto check = [&](std::uint32_t bits) {
    const float x = std::bit_cast<float>(bits);
    const bool signaling_nan = std::isnan(x) && (bits & (1u << 22)) == 0;
    const std::uint32_t expected = signaling_nan ? bits | (1u << 22) : bits;
    log.check(FP32(x).bits(), expected, [&] { return describe(x); });
    log.check(verify::reference_round(x, FP32::format), expected, [&] { return "reference " + describe(x); });
  };
  for (int i = 0; i < 200000; ++i) {
    const auto bits = std::uint32_t(rng());
    check(bits);
    check(bits & 0x807fffffu);  // subnormal
  }
  for (std::uint32_t bits : {0x0u, 0x1u, 0x7fffffu, 0x800000u, 0x7f7fffffu, 0x7f800000u, 0x7fc00000u, 0x7f800001u,
                             0x7fa00000u})
    for (std::uint32_t sign : {0x0u, 0x80000000u}) check(bits | sign);
  EXPECT_TRUE(log.result());
}

// FP32 from double is the correctly rounded double-to-float conversion, which the
// CPU also computes (round to nearest even is the default environment here).
TEST(WideFormatIdentity, Fp32FromDoubleMatchesTheCpuConversion) {
  std::mt19937_64 rng(3264);
  MismatchLog log("FP32(double)");
  for (int i = 0; i < 200000; ++i) {
    const double x = std::bit_cast<double>(rng());
    if (std::isnan(x)) continue;
    const std::uint64_t expected = verify::reference_round(x, FP32::format);
    log.check(FP32(x).bits(), expected, [&] { return describe(x); });
    log.check(bits_of(static_cast<float>(x)), expected, [&] { return "cpu " + describe(x); });
  }
  EXPECT_TRUE(log.result());
}

}  // namespace
}  // namespace softfloat::conversion_test
