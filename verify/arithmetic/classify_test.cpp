// Classification, comparison and neighbours, for every code of every 8-bit format and
// fp16, against MPFR values of the codes: next_up / next_down against the sorted list
// of all values, ulp against 2^(exponent - M) and the gap to the next magnitude,
// fpclassify and the predicates from the MPFR value and the conventions, == < <= > >=
// != <=> against mpfr_equal_p / mpfr_less_p for every pair of 8-bit codes (a random
// sample for fp16), min / max against mpfr_min / mpfr_max (IEEE minimumNumber /
// maximumNumber), abs, and std::hash of the two zeros.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "verify/arithmetic/arithmetic_test_support.hpp"

namespace softfloat::arithmetic_test {
namespace {

// Every code: the byte formats and FP16.
using ClassifyFormats = Concat<ByteFormats, ::testing::Types<FP16>>;

template <class F>
class ClassifyEveryCode : public ::testing::Test {
 protected:
  static constexpr Format f = F::format;
  using S = typename F::storage_type;
  static F from(std::uint64_t code) { return F::from_bits(S(code)); }

  ClassifyEveryCode() : table(f, all_codes(f)) {
    for (std::size_t i = 0; i < table.size(); ++i)
      if (!mpfr_nan_p(table.value(i))) sorted.push_back(i);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](std::size_t a, std::size_t b) { return mpfr_less_p(table.value(a), table.value(b)) != 0; });
  }

  // The code whose value is the least one above (up) or greatest one below (down) the
  // value of `code`, or `code` itself where there is none. A zero result has the sign
  // of the starting value (IEEE 754 5.3.1: nextUp of the negative value of least
  // magnitude is -0), +0 where the format has no negative zero.
  std::uint64_t expected_neighbour(std::size_t index, bool up) const {
    mpfr_srcptr v = table.value(index);
    std::size_t found = table.size();
    if (up) {  // the first value above v
      auto it = std::upper_bound(sorted.begin(), sorted.end(), v,
                                 [&](mpfr_srcptr x, std::size_t s) { return mpfr_less_p(x, table.value(s)) != 0; });
      if (it != sorted.end()) found = *it;
    } else {  // the last value below v
      auto it = std::lower_bound(sorted.begin(), sorted.end(), v,
                                 [&](std::size_t s, mpfr_srcptr x) { return mpfr_less_p(table.value(s), x) != 0; });
      if (it != sorted.begin()) found = *(it - 1);
    }
    if (found == table.size()) return table.code(index);
    if (!mpfr_zero_p(table.value(found))) return table.code(found);
    return negative_zero_exists() && mpfr_signbit(v) ? sign_bit() : 0;
  }
  std::uint64_t sign_bit() const { return f.is_signed ? std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits) : 0; }
  bool negative_zero_exists() const {
    return f.is_signed && f.specials != Specials::fnuz && f.specials != Specials::p3109;
  }
  // The exponent of the smallest normal binade, restated from the format definition.
  long min_normal_exponent() const { return (f.has_zero ? 1 : 0) - f.bias; }

  ValueTable table;
  std::vector<std::size_t> sorted;  // indices of the non-NaN codes by increasing value
};
TYPED_TEST_SUITE(ClassifyEveryCode, ClassifyFormats, FormatNames);

TYPED_TEST(ClassifyEveryCode, NextUpAndNextDownFollowTheSortedValues) {
  using F = TypeParam;
  MismatchLog log(format_name(this->f) + " next_up / next_down");
  for (std::size_t i = 0; i < this->table.size(); ++i) {
    const F x = this->from(this->table.code(i));
    if (mpfr_nan_p(this->table.value(i))) {
      log.check_true(isnan(next_up(x)) && isnan(next_down(x)), [&] { return hex(this->table.code(i)) + ": NaN neighbours"; });
      continue;
    }
    log.check(next_up(x).bits(), this->expected_neighbour(i, true), [&] { return "next_up(" + hex(this->table.code(i)) + ")"; });
    log.check(next_down(x).bits(), this->expected_neighbour(i, false),
              [&] { return "next_down(" + hex(this->table.code(i)) + ")"; });
  }
  EXPECT_TRUE(log.result());
}

TYPED_TEST(ClassifyEveryCode, UlpIsTwoToTheExponentMinusM) {
  using F = TypeParam;
  constexpr Format f = TestFixture::f;
  MismatchLog log(format_name(f) + " ulp");
  Mpfr expected(64), gap(64), next(64);
  const std::uint64_t magnitude_ones = (std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits)) - 1;
  for (std::size_t i = 0; i < this->table.size(); ++i) {
    const std::uint64_t code = this->table.code(i);
    mpfr_srcptr v = this->table.value(i);
    const F u = ulp(this->from(code));
    Mpfr got(64);
    verify::exact_value_of(got.get(), u.bits(), f);
    if (mpfr_nan_p(v)) {
      log.check_true(isnan(u), [&] { return "ulp(" + hex(code) + ") of NaN is not NaN"; });
      continue;
    }
    if (mpfr_inf_p(v)) {
      log.check_true(mpfr_inf_p(got.get()) && mpfr_sgn(got.get()) > 0, [&] { return "ulp(" + hex(code) + ") of infinity"; });
      continue;
    }
    // 2^(e - M), e = the exponent of |x|'s binade (MPFR's exponent is one above: it
    // writes 0.1b * 2^E), never below the smallest normal binade's.
    const long e = mpfr_zero_p(v) ? this->min_normal_exponent() : std::max<long>(mpfr_get_exp(v) - 1, this->min_normal_exponent());
    mpfr_set_ui_2exp(expected.get(), 1, e - f.mantissa_bits, MPFR_RNDN);
    log.check_true(mpfr_equal_p(got.get(), expected.get()) != 0,
                   [&] { return "ulp(" + hex(code) + ") = code " + hex(u.bits()) + ", expected 2^" + std::to_string(e - f.mantissa_bits); });
    // The same number is the gap to the next larger magnitude where that is finite.
    const std::uint64_t magnitude = code & magnitude_ones;
    if (magnitude < magnitude_ones) {
      verify::exact_value_of(next.get(), magnitude + 1, f);
      if (mpfr_number_p(next.get())) {
        mpfr_abs(gap.get(), v, MPFR_RNDN);
        mpfr_sub(gap.get(), next.get(), gap.get(), MPFR_RNDN);  // exact at 64 bits
        log.check_true(mpfr_equal_p(gap.get(), expected.get()) != 0,
                       [&] { return "gap above " + hex(code) + " differs from 2^" + std::to_string(e - f.mantissa_bits); });
      }
    }
  }
  EXPECT_TRUE(log.result());
}

TYPED_TEST(ClassifyEveryCode, PredicatesFollowTheValue) {
  using F = TypeParam;
  constexpr Format f = TestFixture::f;
  MismatchLog log(format_name(f) + " classification");
  Mpfr min_normal(64);
  mpfr_set_ui_2exp(min_normal.get(), 1, this->min_normal_exponent(), MPFR_RNDN);
  for (std::size_t i = 0; i < this->table.size(); ++i) {
    const std::uint64_t code = this->table.code(i);
    mpfr_srcptr v = this->table.value(i);
    const F x = this->from(code);
    const bool nan = mpfr_nan_p(v) != 0, inf = mpfr_inf_p(v) != 0, zero = mpfr_zero_p(v) != 0;
    const bool subnormal = !nan && !inf && !zero && mpfr_cmpabs(v, min_normal.get()) < 0;
    const int expected_class = nan ? FP_NAN : inf ? FP_INFINITE : zero ? FP_ZERO : subnormal ? FP_SUBNORMAL : FP_NORMAL;
    // Sign: MPFR's for numbers; a NaN's is its code's sign bit, except the lone NaN of
    // fnuz / P3109 at the negative-zero code, which has no sign.
    const bool lone_nan = f.specials == Specials::fnuz || f.specials == Specials::p3109;
    const bool negative = nan ? (code & this->sign_bit()) != 0 && !lone_nan : mpfr_signbit(v) != 0;
    auto describe = [&] { return hex(code); };
    log.check(std::uint64_t(fpclassify(x)), std::uint64_t(expected_class), describe);
    log.check_true(isnan(x) == nan && isinf(x) == inf && isfinite(x) == (!nan && !inf) && is_zero(x) == zero,
                   [&] { return hex(code) + ": isnan/isinf/isfinite/is_zero"; });
    log.check_true(isnormal(x) == (expected_class == FP_NORMAL) && is_subnormal(x) == subnormal,
                   [&] { return hex(code) + ": isnormal/is_subnormal"; });
    log.check_true(signbit(x) == negative, [&] { return hex(code) + ": signbit " + std::to_string(signbit(x)); });
    // abs: |x| (a NaN stays NaN).
    if (nan) {
      log.check_true(isnan(abs(x)), [&] { return hex(code) + ": abs of NaN"; });
    } else {
      const std::uint64_t expected_abs = verify::reference_compute(
          [&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_abs(out, v, r); }, f);
      log.check(abs(x).bits(), expected_abs, [&] { return "abs(" + hex(code) + ")"; });
    }
  }
  EXPECT_TRUE(log.result());
}

// Every pair for the 8-bit formats, 300000 random pairs for fp16.
TYPED_TEST(ClassifyEveryCode, ComparisonsMinAndMaxAgreeWithMpfr) {
  using F = TypeParam;
  constexpr Format f = TestFixture::f;
  MismatchLog log(format_name(f) + " comparisons, min, max");
  const std::size_t n = this->table.size();
  auto check_pair = [&](std::size_t i, std::size_t j) {
    mpfr_srcptr x = this->table.value(i), y = this->table.value(j);
    const F a = this->from(this->table.code(i)), b = this->from(this->table.code(j));
    const bool equal = mpfr_equal_p(x, y) != 0, less = mpfr_less_p(x, y) != 0, greater = mpfr_greater_p(x, y) != 0;
    const bool unordered = mpfr_unordered_p(x, y) != 0;
    const auto order = a <=> b;
    const bool ok = (a == b) == equal && (a != b) == !equal && (a < b) == less && (a > b) == greater &&
                    (a <= b) == (less || equal) && (a >= b) == (greater || equal) &&
                    (order == std::partial_ordering::unordered) == unordered &&
                    (order == std::partial_ordering::less) == less && (order == std::partial_ordering::equivalent) == equal;
    auto describe = [&] { return hex(this->table.code(i)) + " vs " + hex(this->table.code(j)); };
    log.check_true(ok, [&] { return describe() + ": comparison"; });
    if (equal) log.check_true(std::hash<F>{}(a) == std::hash<F>{}(b), [&] { return describe() + ": hash"; });
    // minimumNumber / maximumNumber: mpfr_min / mpfr_max (NaN ignored, -0 < +0).
    for (bool minimum : {true, false}) {
      const F got = minimum ? min(a, b) : max(a, b);
      if (mpfr_nan_p(x) && mpfr_nan_p(y)) {
        log.check_true(isnan(got), [&] { return describe() + ": min/max of two NaNs"; });
        continue;
      }
      const std::uint64_t expected = verify::reference_compute(
          [&](mpfr_ptr out, mpfr_rnd_t r) { return minimum ? mpfr_min(out, x, y, r) : mpfr_max(out, x, y, r); }, f);
      log.check(got.bits(), expected, [&] { return std::string(minimum ? "min " : "max ") + describe(); });
    }
  };
  if (n <= 256) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) check_pair(i, j);
  } else {
    std::mt19937_64 rng(0xc0de);
    for (int k = 0; k < 300000; ++k) {
      // Half the pairs share the magnitude so that equality and the zeros come up.
      const std::size_t i = rng() % n;
      const std::size_t j = k % 2 == 0 ? rng() % n : (i ^ (rng() & 1 ? this->sign_bit() : 0));
      check_pair(i, j);
    }
    for (std::size_t i = 0; i < 64; ++i)
      for (std::size_t j = 0; j < 64; ++j) check_pair(i, j);
  }
  EXPECT_TRUE(log.result());
}

TEST(ClassifyKnownValues, ZerosHashAlikeAndCompareEqual) {
  EXPECT_EQ(std::hash<FP16>{}(FP16::from_bits(0x8000)), std::hash<FP16>{}(FP16::from_bits(0x0000)));
  EXPECT_EQ(std::hash<BF16>{}(BF16::from_bits(0x8000)), std::hash<BF16>{}(BF16::from_bits(0x0000)));
  EXPECT_EQ(std::hash<E4M3>{}(E4M3::from_bits(0x80)), std::hash<E4M3>{}(E4M3::from_bits(0x00)));
  EXPECT_TRUE(FP16::from_bits(0x8000) == FP16::from_bits(0x0000));
  EXPECT_FALSE(FP16::quiet_NaN() == FP16::quiet_NaN());
  EXPECT_TRUE(FP16::quiet_NaN() != FP16::quiet_NaN());
  // fp16 next_up(1) = 1 + 2^-10 (0x3C01); next_down(1) = 1 - 2^-11 (0x3BFF); ulp(1) = 2^-10 (0x1400).
  EXPECT_EQ(next_up(FP16(1.0)).bits(), 0x3C01u);
  EXPECT_EQ(next_down(FP16(1.0)).bits(), 0x3BFFu);
  EXPECT_EQ(ulp(FP16(1.0)).bits(), 0x1400u);
  // next_up(-2^-24) = -0, next_down(2^-24) = +0, next_up(max) = inf, E4M3 next_up(max) = max.
  EXPECT_EQ(next_up(FP16::from_bits(0x8001)).bits(), 0x8000u);
  EXPECT_EQ(next_down(FP16::from_bits(0x0001)).bits(), 0x0000u);
  EXPECT_EQ(next_up(FP16::max()).bits(), 0x7C00u);
  EXPECT_EQ(next_up(E4M3::max()).bits(), 0x7Eu);
}

}  // namespace
}  // namespace softfloat::arithmetic_test
