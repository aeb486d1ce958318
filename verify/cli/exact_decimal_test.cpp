// exact_decimal() against MPFR's exact digits, and the exact decimal subtraction the
// command prints errors with.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "cli/decimal_difference.hpp"
#include "softfloat/decimal.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/named_formats.hpp"
#include "verify/cli/mpfr_digits.hpp"

namespace softfloat::cli_test {
namespace {

// The digits (no sign, point or trailing zeros) and first-digit exponent of the
// library's text, read independently of how it was produced.
MpfrDigits digits_of(const std::string& text) {
  std::string mantissa = text.substr(text[0] == '-' ? 1 : 0);
  long exponent10 = 0;
  if (const auto e = mantissa.find('e'); e != std::string::npos) {
    exponent10 = std::stol(mantissa.substr(e + 1));
    mantissa.erase(e);
  }
  const auto point = mantissa.find('.');
  long integer_digits = long(point == std::string::npos ? mantissa.size() : point);
  if (point != std::string::npos) mantissa.erase(point, 1);
  const auto first = mantissa.find_first_not_of('0');
  exponent10 += integer_digits - 1 - long(first);
  mantissa = mantissa.substr(first);
  mantissa.erase(mantissa.find_last_not_of('0') + 1);
  return {mantissa, exponent10};
}

TEST(ExactDecimal, MatchesMpfrDigitForDigit) {
  std::mt19937_64 rng(11);
  for (const char* spec : {"fp64", "fp32", "bf16", "fp16", "e4m3", "e8m0", "e6m9:bias=31", "e8m7:bias=-200"}) {
    const Format f = parse_format(spec);
    const std::uint64_t mask = f.total_bits() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << f.total_bits()) - 1;
    for (int i = 0; i < 3000; ++i) {
      const std::uint64_t code = (i < 3 ? std::uint64_t(i) : rng()) & mask;
      if (f.is_nan(code) || f.is_infinite(code) || f.is_zero(code)) continue;
      verify::Mpfr value(64);
      verify::exact_value_of(value.get(), code, f);
      const std::string text = exact_decimal(code, f);
      const MpfrDigits expected = mpfr_exact_digits(value.get());
      const MpfrDigits got = digits_of(text);
      ASSERT_EQ(got.digits, expected.digits) << spec << " " << text;
      ASSERT_EQ(got.exponent10, expected.exponent10) << spec << " " << text;
      ASSERT_EQ(text[0] == '-', f.is_negative(code)) << text;
    }
  }
}

TEST(ExactDecimal, WorkedValuesAndSpecials) {
  EXPECT_EQ(exact_decimal(0x1d, format_of<E4M3>()), "0.1015625");
  EXPECT_EQ(exact_decimal(0x3dcd, format_of<BF16>()), "0.10009765625");
  EXPECT_EQ(exact_decimal(0x2e66, format_of<FP16>()), "0.0999755859375");
  EXPECT_EQ(exact_decimal(0x7bff, format_of<FP16>()), "65504");
  EXPECT_EQ(exact_decimal(0x8000, format_of<FP16>()), "-0");
  EXPECT_EQ(exact_decimal(0x7c00, format_of<FP16>()), "inf");
  EXPECT_EQ(exact_decimal(0x7f, format_of<E4M3>()), "nan");
  // A sticky value is not exact: refused.
  EXPECT_THROW(exact_decimal(ExactValue{ValueClass::finite, false, 1, 0, true}), std::invalid_argument);
  // Beyond 2^+-20000 the exact hexadecimal float stands in for ~6000 decimal digits.
  EXPECT_EQ(exact_decimal(ExactValue{ValueClass::finite, false, 3, -30000}), "0x3p-30000");
}

TEST(DecimalDifference, ExactSubtraction) {
  auto difference = [](const char* a, const char* b) {
    return to_text(*cli::subtract(*cli::read_decimal(a), *cli::read_decimal(b)));
  };
  EXPECT_EQ(difference("0.1015625", "0.1"), "0.0015625");
  EXPECT_EQ(difference("0.0999755859375", "0.1"), "-0.0000244140625");
  EXPECT_EQ(difference("-6.5", "-6.5"), "0");
  EXPECT_EQ(difference("0", "1e-8"), "-1e-08");
  EXPECT_EQ(difference("1.001171767711639404296875e-08", "1e-8"), "1.171767711639404296875e-11");
  EXPECT_EQ(difference("448", "464"), "-16");
  EXPECT_EQ(difference("12345678901234567890", "-1"), "1.2345678901234567891e+19");
  EXPECT_EQ(difference(".5", "5e-1"), "0");
  EXPECT_FALSE(cli::read_decimal("0x1p3"));
  EXPECT_FALSE(cli::read_decimal("inf"));
  EXPECT_FALSE(cli::read_decimal("1e"));
  // Operands a million digits apart are not subtracted.
  EXPECT_FALSE(cli::subtract(*cli::read_decimal("1"), *cli::read_decimal("1e-2000000")));
}

}  // namespace
}  // namespace softfloat::cli_test
