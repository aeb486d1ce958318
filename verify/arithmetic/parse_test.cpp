// parse<F>(text) against MPFR. The reference reads the string straight into an
// (M + 1)-bit number with mpfr_strtofr, which rounds the exact decimal correctly and
// returns the ternary value that verify::reference_compute needs to subnormalize
// without a second rounding (mpfr_set_str rounds the same way but returns no ternary
// value; reading at a high precision first and rounding again would be a double
// rounding). Inputs: the exact decimal midpoints between neighbouring codes and
// decimals a hair either side (long strings that only exact parsing gets right),
// subnormal and overflow boundaries, hex floats, special words, huge and tiny
// exponents, random decimal strings (every fifth in a directed rounding), and
// malformed strings that must throw. 10 000 random strings, 100 000 in the long run.
#include <gmp.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "verify/arithmetic/arithmetic_test_support.hpp"
#include "verify/common/long_run.hpp"

namespace softfloat::arithmetic_test {
namespace {

const long kRandomStrings = test_support::case_count(10000, 100000);

// bf16's layout with exponents -1399 .. -1146: 1e-400 (~2^-1328.8) is a normal value.
using TinyBias = Float<8, 7, 1400>;
using LargeBias = Float<8, 7, -200>;

std::uint64_t reference_parse(const std::string& text, const Format& f, mpfr_rnd_t rnd = MPFR_RNDN) {
  return verify::reference_compute(
      [&](mpfr_ptr out, mpfr_rnd_t r) {
        char* end = nullptr;
        const int ternary = mpfr_strtofr(out, text.c_str(), &end, 0, r);
        if (*end != '\0') throw std::logic_error("MPFR did not read all of '" + text + "'");
        return ternary;
      },
      f, rnd);
}

template <class F>
std::uint64_t library_parse(const std::string& text, Rounding mode = Rounding::nearest_even) {
  return parse<F>(text, mode).bits();
}

// The exact decimal of an MPFR number, times 10^extra_digits, plus `nudge` units in
// the last place: "-0.00012207031250000001" style, without exponent.
std::string exact_decimal(mpfr_srcptr x, int extra_digits, int nudge) {
  mpz_t digits;
  mpz_init(digits);
  long exponent = mpfr_get_z_2exp(digits, x);  // x = digits * 2^exponent
  const bool negative = mpz_sgn(digits) < 0;
  mpz_abs(digits, digits);
  long fraction_digits = 0;
  if (exponent >= 0) {
    mpz_mul_2exp(digits, digits, exponent);
  } else {  // digits * 2^-k = digits * 5^k / 10^k
    mpz_t five;
    mpz_init(five);
    mpz_ui_pow_ui(five, 5, static_cast<unsigned long>(-exponent));
    mpz_mul(digits, digits, five);
    mpz_clear(five);
    fraction_digits = -exponent;
  }
  mpz_t scale;
  mpz_init(scale);
  mpz_ui_pow_ui(scale, 10, static_cast<unsigned long>(extra_digits));
  mpz_mul(digits, digits, scale);
  mpz_clear(scale);
  fraction_digits += extra_digits;
  if (nudge > 0) mpz_add_ui(digits, digits, static_cast<unsigned long>(nudge));
  if (nudge < 0) mpz_sub_ui(digits, digits, static_cast<unsigned long>(-nudge));
  char* raw = mpz_get_str(nullptr, 10, digits);
  std::string text = raw;
  void (*free_function)(void*, std::size_t);
  mp_get_memory_functions(nullptr, nullptr, &free_function);
  free_function(raw, text.size() + 1);
  mpz_clear(digits);
  if (fraction_digits > 0) {
    if (long(text.size()) <= fraction_digits) text.insert(0, std::size_t(fraction_digits - long(text.size()) + 1), '0');
    text.insert(text.size() - std::size_t(fraction_digits), ".");
  }
  return (negative ? "-" : "") + text;
}


// The value at position p along the positive axis: code p, or for p = largest + 1
// the place of the next code with an unbounded exponent (max + max's ulp: the
// midpoint below it is the overflow threshold), or 0 for p = -1 where the format has
// no zero (E8M0).
void value_at(Mpfr& out, long p, const Format& f) {
  const long largest = long(largest_finite_code(f));
  if (p < 0) return mpfr_set_zero(out.get(), 1);
  if (p <= largest) return verify::exact_value_of(out.get(), std::uint64_t(p), f);
  verify::exact_value_of(out.get(), std::uint64_t(largest), f);
  Mpfr ulp(64);
  mpfr_set_ui_2exp(ulp.get(), 1, mpfr_get_exp(out.get()) - 1 - f.mantissa_bits, MPFR_RNDN);
  mpfr_add(out.get(), out.get(), ulp.get(), MPFR_RNDN);
}

template <class F>
class ParseAgainstMpfr : public ::testing::Test {};
using ParseFormats = Concat<ByteFormats, ::testing::Types<FP16, BF16, TF32, FP64, LargeBias, TinyBias>>;
TYPED_TEST_SUITE(ParseAgainstMpfr, ParseFormats, FormatNames);

// Midpoints between neighbouring positions (all of them for formats of at most 8
// bits, a stride plus both ends for wider ones), written out exactly, and the same
// plus or minus 10^-(digits + 7): exact ties, then decimals that differ from the tie
// only in their 7th extra digit. Both signs.
TYPED_TEST(ParseAgainstMpfr, DecimalsAtAndNearMidpoints) {
  using F = TypeParam;
  constexpr Format f = F::format;
  const long first = f.has_zero ? 0 : -1, last = long(largest_finite_code(f));
  const long count = last - first + 1;
  const long stride = count <= 512 ? 1 : count / 300 + 1;
  MismatchLog log(format_name(f) + " parse at and near midpoints");
  auto check_position = [&](long p) {
    Mpfr low(256), high(256), mid(256);
    value_at(low, p, f);
    value_at(high, p + 1, f);
    mpfr_add(mid.get(), low.get(), high.get(), MPFR_RNDN);  // exact at 256 bits
    mpfr_div_2ui(mid.get(), mid.get(), 1, MPFR_RNDN);
    for (int nudge : {0, -1, 1}) {
      for (bool negative : {false, true}) {
        std::string text = exact_decimal(mid.get(), nudge == 0 ? 0 : 7, nudge);
        if (negative) text.insert(0, "-");
        log.check(library_parse<F>(text), reference_parse(text, f), [&] { return "'" + text + "'"; });
      }
    }
  };
  for (long p = first; p <= last; p += stride) check_position(p);
  for (long p = std::max(first, last - 3); p <= last; ++p) check_position(p);  // up to the overflow threshold
  for (long p = first; p < first + 3; ++p) check_position(p);                  // the subnormal edge
  EXPECT_TRUE(log.result());
}

// Hex floats, special words, signed zeros, huge and tiny exponents.
TYPED_TEST(ParseAgainstMpfr, HexSpecialAndExtremeStrings) {
  using F = TypeParam;
  constexpr Format f = F::format;
  MismatchLog log(format_name(f) + " parse special strings");
  for (const char* text : {"0x1.8p3", "-0x1.8p3", "0X1.8P3", "0x1p-24", "0x1.ffep15", "0x1.ffdp15", "0x.8p1", "0x10",
                           "0x1.0000000000000000000001p0", "0x1.08p0", "0x1.0800000000000000001p0", "inf", "-inf",
                           "Infinity", "-INF", "1e-400", "-1e-400", "1e99999", "-1e99999", "1e-99999", "0", "-0",
                           "0.0e5", "1", "+1", ".5", "5.", "1E2", "1e+2", "0.1", "1.00390625000000000001",
                           "3.4028235677973366e38", "2.4e-323", "1e-45", "4.9e-324", "1e-38", "65519.99999999",
                           "65520", "464", "463.99999999999", "0.0009765625", "0.00048828125", "0.000732421875"}) {
    log.check(library_parse<F>(text), reference_parse(text, f), [&] { return "'" + std::string(text) + "'"; });
  }
  if constexpr (f.specials != Specials::finite) {
    log.check(library_parse<F>("nan"), reference_parse("nan", f), [] { return std::string("'nan'"); });
    log.check(library_parse<F>("NaN"), reference_parse("nan", f), [] { return std::string("'NaN'"); });
    log.check_true(isnan(parse<F>("-nan")), [] { return std::string("'-nan' is not NaN"); });
  } else {  // no NaN: the documented stand-in +0
    log.check(library_parse<F>("nan"), 0, [] { return std::string("'nan' in a format without NaN"); });
  }
  EXPECT_TRUE(log.result());
}

// Random decimal strings: 1 to 25 significant digits, point anywhere or an exponent,
// magnitudes from below the smallest subnormal to beyond max. Every fifth string is
// read in a directed rounding (toward zero, up, down, away).
template <class F>
class ParseRandomStrings : public ::testing::Test {};
using RandomStringFormats = ::testing::Types<FP16, BF16, E4M3, E5M2, FP64>;
TYPED_TEST_SUITE(ParseRandomStrings, RandomStringFormats, FormatNames);

TYPED_TEST(ParseRandomStrings, AgainstMpfr) {
  using F = TypeParam;
  constexpr Format f = F::format;
  // Decimal exponents spanning the format: log10 of the smallest subnormal - 2 up to
  // log10 of max + 2.
  const double smallest = std::ldexp(1.0, 1 - f.bias - f.mantissa_bits);
  const int low10 = int(std::floor(std::log10(smallest))) - 2;
  const int high10 = int(std::ceil(std::log10(verify::reference_value(largest_finite_code(f), f)))) + 2;
  std::mt19937_64 rng(0xdec1 + f.mantissa_bits);
  MismatchLog log(format_name(f) + " parse random decimals");
  for (long n = 0; n < kRandomStrings; ++n) {
    const int digits = 1 + int(rng() % 25);
    std::string mantissa;
    for (int i = 0; i < digits; ++i) mantissa += char('0' + (i == 0 ? 1 + rng() % 9 : rng() % 10));
    const int exponent10 = low10 + int(rng() % std::uint64_t(high10 - low10 + 1));  // of the first digit
    std::string text = (rng() & 1) ? "-" : "";
    if (rng() % 2 == 0) {  // d.ddd e X
      text += mantissa.substr(0, 1) + (digits > 1 ? "." + mantissa.substr(1) : "") + "e" + std::to_string(exponent10);
    } else if (exponent10 < 0) {  // 0.000ddd
      text += "0." + std::string(std::size_t(-exponent10 - 1), '0') + mantissa;
    } else if (exponent10 + 1 >= digits) {  // ddd000
      text += mantissa + std::string(std::size_t(exponent10 + 1 - digits), '0');
    } else {  // dd.ddd
      text += mantissa.substr(0, std::size_t(exponent10 + 1)) + "." + mantissa.substr(std::size_t(exponent10 + 1));
    }
    const RoundingPair rounding = n % 5 == 4 ? kDirectedRoundings[(n / 5) % 4] : kNearest;
    log.check(library_parse<F>(text, rounding.library), reference_parse(text, f, rounding.mpfr),
              [&] { return "'" + text + "' " + rounding.name; });
  }
  EXPECT_TRUE(log.result());
}

// Values worked by hand.
TEST(ParseKnownValues, ExactDecimalNotThroughDouble) {
  // 1.00390625 = 1 + 2^-8 is the bf16 midpoint between 1 and 1 + 2^-7; the trailing
  // ...01 puts the string above it, so the answer is 1.0078125 (0x3F81). Through
  // double the string would become exactly 1 + 2^-8 and tie to even, 1.0 (0x3F80).
  EXPECT_EQ(parse<BF16>("1.00390625000000000001").bits(), 0x3F81u);
  EXPECT_EQ(double(parse<BF16>("1.00390625000000000001")), 1.0078125);
  EXPECT_EQ(parse<BF16>("1.00390625").bits(), 0x3F80u);
  // 0.1 in bf16: 0x3DCD = 0.10009765625; E4M3: 0x1.ap-4 = 0.1015625 (code 0x1D).
  EXPECT_EQ(parse<BF16>("0.1").bits(), 0x3DCDu);
  EXPECT_EQ(parse<E4M3>("0.1").bits(), 0x1Du);
  // fp16: 65520 is the overflow midpoint (ties to even, up): infinity; a hair less is max.
  EXPECT_EQ(parse<FP16>("65520").bits(), 0x7C00u);
  EXPECT_EQ(parse<FP16>("65519.99999999999999999").bits(), 0x7BFFu);
  // Hex float: 0x1.8p3 = 1.5 * 8 = 12.
  EXPECT_EQ(double(parse<FP16>("0x1.8p3")), 12.0);
  // Special words and signed zero.
  EXPECT_EQ(parse<FP16>("inf").bits(), 0x7C00u);
  EXPECT_EQ(parse<FP16>("-inf").bits(), 0xFC00u);
  EXPECT_EQ(parse<FP16>("-0").bits(), 0x8000u);
  EXPECT_EQ(parse<E4M3FNUZ>("-0").bits(), 0x00u);
  EXPECT_EQ(parse<E4M3>("inf").bits(), 0x7Fu);   // no infinity: the overflow rule, NaN
  EXPECT_EQ(parse<E2M1>("-inf").bits(), 0x0Fu);  // no infinity, no NaN: -max = -6
  EXPECT_TRUE(isnan(parse<FP16>("nan")));
  // Huge and tiny exponents: fp64 underflows 1e-400 to +0 and overflows 1e99999.
  EXPECT_EQ(parse<FP64>("1e-400").bits(), 0x0u);
  EXPECT_EQ(parse<FP64>("-1e-400").bits(), 0x8000000000000000u);
  EXPECT_EQ(parse<FP64>("1e99999").bits(), 0x7FF0000000000000u);
  EXPECT_EQ(parse<FP64>("1e-400", Rounding::up).bits(), 0x1u);  // the smallest subnormal
  // Directed rounding: bf16 0.1 lies between 0x3DCC and 0x3DCD.
  EXPECT_EQ(parse<BF16>("0.1", Rounding::down).bits(), 0x3DCCu);
  EXPECT_EQ(parse<BF16>("0.1", Rounding::up).bits(), 0x3DCDu);
}

TEST(ParseKnownValues, MalformedStringsThrow) {
  for (const char* text : {"", "1.2.3", "abc", "1e", "0x", "--1", "+", "-", ".", "e5", "1e+", "0x1p", "0xg",
                           "0x1.8q3", " 1", "1 ", "1,5", "nanx", "infinite", "1e5.5", "+-1", "0x1.8p3.5"}) {
    EXPECT_THROW((void)parse<FP16>(text), std::invalid_argument) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace softfloat::arithmetic_test
