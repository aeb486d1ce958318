// Decoding: a Float's operator double and operator float against MPFR's reading of
// the code. Every code of every format up to 16 bits must convert exactly (these
// formats' values all fit float); sampled codes of the wider formats must convert
// to the correctly rounded float (exact where float holds the value) and exactly
// to double. NaN codes decode to NaN with the code's sign and, for IEEE-style
// formats, the code's payload in the top bits, quieted (as F16C's vcvtph2ps does).
#include <random>

#include "verify/conversion/conversion_test_support.hpp"

namespace softfloat::conversion_test {
namespace {

// Checks operator double and operator float of one code: the exact MPFR value
// rounded to binary64 / binary32 by the reference (a no-op when exact), or the
// NaN that nan_as_double() stands for.
template <class F>
void check_decode(MismatchLog& as_double, MismatchLog& as_float, std::uint64_t code) {
  const F value = F::from_bits(typename F::storage_type(code));
  const auto what = [&] { return format_name(F::format) + " code " + hex(code); };
  as_double.check(bits_of(double(value)), reference_convert(code, F::format, binary64_format), what);
  as_float.check(bits_of(float(value)), reference_convert(code, F::format, binary32_format), what);
}

template <class F>
class DecodeNarrow : public ::testing::Test {};
TYPED_TEST_SUITE(DecodeNarrow, NarrowFormats, FormatNames);

TYPED_TEST(DecodeNarrow, EveryCodeDecodesToItsExactValue) {
  using F = TypeParam;
  MismatchLog as_double("operator double"), as_float("operator float");
  std::size_t nan_codes = 0, infinite_codes = 0;
  Mpfr exact;
  for (std::uint64_t code : all_codes(F::format)) {
    check_decode<F>(as_double, as_float, code);
    // "Exactly": the MPFR value itself is a float, so the reference rounded nothing.
    exact_value(exact, code, F::format);
    if (mpfr_number_p(exact.get())) {
      ASSERT_EQ(mpfr_cmp_d(exact.get(), double(mpfr_get_flt(exact.get(), MPFR_RNDN))), 0)
          << "code " << hex(code) << " is not a float value: the test's premise fails";
    }
    nan_codes += mpfr_nan_p(exact.get()) ? 1 : 0;
    infinite_codes += mpfr_inf_p(exact.get()) ? 1 : 0;
    const double d = double(F::from_bits(typename F::storage_type(code)));
    EXPECT_EQ(std::isnan(d), bool(mpfr_nan_p(exact.get()))) << hex(code);
    EXPECT_EQ(std::isinf(d), bool(mpfr_inf_p(exact.get()))) << hex(code);
  }
  EXPECT_TRUE(as_double.result());
  EXPECT_TRUE(as_float.result());
  // How many specials the conventions define (sign bit included where there is one):
  // IEEE: 2^M - 1 NaNs and one infinity per sign; fn: one NaN per sign;
  // fnuz: one NaN; P3109: one NaN and two infinities; finite: none.
  const Format f = F::format;
  const std::size_t signs = f.is_signed ? 2 : 1;
  switch (f.specials) {
    case Specials::ieee:
      EXPECT_EQ(nan_codes, signs * ((std::size_t{1} << f.mantissa_bits) - 1));
      EXPECT_EQ(infinite_codes, signs);
      break;
    case Specials::fn: EXPECT_EQ(nan_codes, signs); EXPECT_EQ(infinite_codes, 0u); break;
    case Specials::fnuz: EXPECT_EQ(nan_codes, 1u); EXPECT_EQ(infinite_codes, 0u); break;
    case Specials::p3109: EXPECT_EQ(nan_codes, 1u); EXPECT_EQ(infinite_codes, 2u); break;
    case Specials::finite: EXPECT_EQ(nan_codes, 0u); EXPECT_EQ(infinite_codes, 0u); break;
  }
}

template <class F>
class DecodeWide : public ::testing::Test {};
TYPED_TEST_SUITE(DecodeWide, WideFormats, FormatNames);

TYPED_TEST(DecodeWide, SampledCodesOfEveryBinadeDecodeCorrectlyRounded) {
  using F = TypeParam;
  const Format f = F::format;
  std::mt19937_64 rng(20240611);
  MismatchLog as_double("operator double"), as_float("operator float");
  for (std::uint64_t code : binade_sample_codes(f, rng, 24)) {
    check_decode<F>(as_double, as_float, code);
    check_decode<F>(as_double, as_float, code | f.sign_bits(true));
  }
  EXPECT_TRUE(as_double.result());
  EXPECT_TRUE(as_float.result());
}

// The decoded NaNs, spelled out for the cases a reader would look up.
TEST(DecodeNaN, PayloadSignAndQuietBit) {
  // FP16 signaling NaN 0x7C01 (payload 1): quieted, payload moved to the top of the
  // 23-bit float mantissa: 0x7F800000 | 0x400000 (quiet) | 1 << 13.
  EXPECT_EQ(bits_of(float(FP16::from_bits(0x7C01))), 0x7FC02000u);
  // -qNaN 0xFE00 -> 0xFFC00000.
  EXPECT_EQ(bits_of(float(FP16::from_bits(0xFE00))), 0xFFC00000u);
  // E4M3 0xFF is -NaN, 0x7F +NaN (canonical quiet NaNs).
  EXPECT_EQ(bits_of(double(E4M3::from_bits(0xFF))), 0xFFF8000000000000u);
  EXPECT_EQ(bits_of(double(E4M3::from_bits(0x7F))), 0x7FF8000000000000u);
  // E8M0 0xFF is NaN (unsigned: positive).
  EXPECT_EQ(bits_of(float(E8M0::from_bits(0xFF))), 0x7FC00000u);
  // BF16 0xFF81 (-sNaN, payload 1) -> float -qNaN with payload 1 << 16.
  EXPECT_EQ(bits_of(float(BF16::from_bits(0xFF81))), 0xFFC10000u);
}

}  // namespace
}  // namespace softfloat::conversion_test
