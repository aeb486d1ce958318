// to_string / operator<< print the shortest decimal that reads back to the same bits.
// For every code of every format of at most 16 bits: MPFR reads the printed text back
// to the same code (NaN: to a NaN), parse<F> does too, and no decimal with one
// significant digit fewer reads back to it. The last check needs only two candidates:
// the (d-1)-digit decimals just below and just above the value (MPFR's mpfr_get_str
// rounding down and up). The decimals that read back to a code form an interval
// around its value, so if any (d-1)-digit decimal lies in it, the nearer of those two
// on the same side lies in it as well; and a shorter decimal is a (d-1)-digit one
// with trailing zeros. The 16-bit sweeps are in print_16bit_test.cpp.
#include <cstring>
#include <random>
#include <sstream>

#include "verify/arithmetic/print_checks.hpp"

namespace softfloat::arithmetic_test {
namespace {

template <class F>
class PrintEveryByteCode : public ::testing::Test {};
TYPED_TEST_SUITE(PrintEveryByteCode, ByteFormats, FormatNames);
TYPED_TEST(PrintEveryByteCode, ShortestAndRoundTrips) { check_every_code<TypeParam>(); }


// Wider formats, sampled: random codes plus the extremes.
template <class F>
void check_sample(int count, bool check_shortest = true) {
  constexpr Format f = F::format;
  std::mt19937_64 rng(0x9e1 + f.mantissa_bits);
  const std::uint64_t mask = (std::uint64_t{1} << (f.total_bits() - 1) << 1) - 1;
  MismatchLog log(format_name(f) + " printing, sample");
  for (std::uint64_t code : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, mask, mask >> 1, (mask >> 1) - 1})
    check_printed<F>(log, code & mask, check_shortest);
  for (int n = 0; n < count; ++n) check_printed<F>(log, rng() & mask, check_shortest);
  EXPECT_TRUE(log.result());
}
TEST(PrintWideSample, TF32) { check_sample<TF32>(2000); }
TEST(PrintWideSample, FP32) { check_sample<FP32>(1000); }
// binary64 values need up to 17 digits and exponents up to 10^+-308: a smaller sample.
TEST(PrintWideSample, FP64) { check_sample<FP64>(300); }
TEST(PrintWideSample, LargeBias) { check_sample<Float<8, 7, -200>>(1000); }
// Bias 17000: values 2^-16999 .. 2^-16745, beyond long double's range, printed as
// exact hex floats; only the round trip is checked.
TEST(PrintWideSample, BeyondLongDouble) { check_sample<Float<8, 7, 17000>>(1000, false); }

// Values worked by hand.
TEST(PrintKnownValues, SpotChecks) {
  // E4M3 0x1D = 0.1015625: its rounding interval (0.09765625, 0.10546875) holds 0.1.
  EXPECT_EQ(to_string(E4M3::from_bits(0x1D)), "0.1");
  // fp16 max 65504: the interval (65488, 65520) holds 65500 but no 2-digit decimal
  // (65000, 66000 are outside), as NumPy prints it.
  EXPECT_EQ(to_string(FP16::max()), "65500");
  // bf16 0x3DCD = 0.10009765625, interval (0.0998535..., 0.1003418...) holds 0.1.
  EXPECT_EQ(to_string(BF16::from_bits(0x3DCD)), "0.1");
  // E4M3 max 448: the interval (432, 464) holds 450 but neither 400 nor 500.
  EXPECT_EQ(to_string(E4M3::max()), "450");
  // fp16 smallest subnormal 2^-24 = 5.96e-8, interval (2^-25, 1.5 * 2^-24) = (2.98e-8, 8.94e-8).
  EXPECT_EQ(to_string(FP16::min_subnormal()), "6e-08");
  EXPECT_EQ(to_string(FP16(-1.5)), "-1.5");
  EXPECT_EQ(to_string(FP16::from_bits(0x8000)), "-0");
  EXPECT_EQ(to_string(FP16::infinity()), "inf");
  EXPECT_EQ(to_string(-FP16::infinity()), "-inf");
  EXPECT_EQ(to_string(FP16::quiet_NaN()), "nan");
  EXPECT_EQ(to_string(E2M1::max()), "6");
  std::ostringstream stream;
  stream << BF16(1.0) << " " << E8M0::max();
  // E8M0 max 2^127 ~ 1.7e38 reads back from [1.5 * 2^126, 1.5 * 2^127) = [1.28e38, 2.55e38)
  // (ties between powers of two round up), which holds 2e38.
  EXPECT_EQ(stream.str(), "1 2e+38");
}

}  // namespace
}  // namespace softfloat::arithmetic_test
