// fma(a, b, c) = a * b + c with one rounding, against mpfr_fma on the exact operand
// values: every triple of the FP4/FP6 formats, and random triples of every 8-bit
// format, a share of them chosen so that c nearly cancels a * b (c is the negated,
// correctly rounded product moved by a few codes), where any double rounding or lost
// low product bit shows. 100 000 random triples per format, 2 million in the long run.
#include <random>

#include "verify/arithmetic/arithmetic_test_support.hpp"
#include "verify/common/long_run.hpp"

namespace softfloat::arithmetic_test {
namespace {

const long kRandomTriples = test_support::case_count(100000, 2000000);

// Checks fma on codes a, b, c (indices into `table`) against MPFR (NaN operands as
// check_fma_result describes).
template <class F>
void check_fma(MismatchLog& log, const ValueTable& table, std::size_t i, std::size_t j, std::size_t k,
               std::uint64_t default_nan_code) {
  using S = typename F::storage_type;
  const std::uint64_t a = table.code(i), b = table.code(j), c = table.code(k);
  const std::uint64_t got = fma(F::from_bits(S(a)), F::from_bits(S(b)), F::from_bits(S(c))).bits();
  check_fma_result(log, table, i, j, k, F::format, got, default_nan_code,
                   [&] { return "fma(" + hex(a) + ", " + hex(b) + ", " + hex(c) + ")"; });
}

// Every triple of the formats of at most 6 bits (4096 for E2M1, 262144 for E3M2 and E2M3).
template <class F>
class SmallFormatFma : public ::testing::Test {};
TYPED_TEST_SUITE(SmallFormatFma, test_formats::SmallFormats, FormatNames);

TYPED_TEST(SmallFormatFma, EveryTriple) {
  using F = TypeParam;
  const ValueTable table(F::format, all_codes(F::format));
  MismatchLog log(format_name(F::format) + " fma, every triple");
  for (std::size_t i = 0; i < table.size(); ++i)
    for (std::size_t j = 0; j < table.size(); ++j)
      for (std::size_t k = 0; k < table.size(); ++k) check_fma<F>(log, table, i, j, k, 0);
  EXPECT_TRUE(log.result());
}

// Random triples of every 8-bit format: half uniform over all codes, half with c near
// -(a * b).
template <class F>
class ByteFormatFma : public ::testing::Test {};
TYPED_TEST_SUITE(ByteFormatFma, ByteFormats, FormatNames);

TYPED_TEST(ByteFormatFma, RandomAndNearlyCancellingTriples) {
  using F = TypeParam;
  const Format f = F::format;
  const ValueTable table(f, all_codes(f));
  const std::uint64_t nan_code = f.has_nan() ? default_nan(f) : 0;
  const std::uint64_t sign = f.is_signed ? std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits) : 0;
  std::mt19937_64 rng(0x5eed0000u + f.exponent_bits * 64 + f.mantissa_bits);
  std::uniform_int_distribution<std::size_t> any_code(0, table.size() - 1);
  std::uniform_int_distribution<int> offset(-3, 3);
  MismatchLog log(format_name(f) + " fma, random triples");
  std::size_t cancelling = 0;
  for (long n = 0; n < kRandomTriples; ++n) {
    const std::size_t i = any_code(rng), j = any_code(rng);
    std::size_t k = any_code(rng);
    // c = -(a * b rounded) moved by up to 3 codes, when that is a finite code of the
    // same sign: the exact sum is then a few ulps of the product or less.
    if (n % 2 == 1 && sign != 0 && mpfr_number_p(table.value(i)) && mpfr_number_p(table.value(j))) {
      const std::uint64_t product = reference_binary(Operation::multiply, table.value(i), table.value(j), f, MPFR_RNDN);
      const std::uint64_t negated = product ^ sign;
      const std::int64_t magnitude = std::int64_t(negated & (sign - 1)) + offset(rng);
      if (magnitude >= 0 && std::uint64_t(magnitude) < sign) {
        const std::size_t moved = std::size_t((negated & sign) | std::uint64_t(magnitude));
        if (mpfr_number_p(table.value(moved))) {
          k = moved;
          ++cancelling;
        }
      }
    }
    check_fma<F>(log, table, i, j, k, nan_code);
  }
  EXPECT_TRUE(log.result());
  if (sign != 0) {
    EXPECT_GT(cancelling, std::size_t(kRandomTriples) / 8);
  }
}

// Cases with stated values.
TEST(FmaKnownValues, SingleRounding) {
  // E4M3: 1.125 * 1.125 = 1.265625 exactly; + (-1.25) leaves 0.015625 = 2^-6, exact
  // in E4M3. Rounding the product first (to 1.25) would give 0.
  EXPECT_EQ(double(fma(E4M3(1.125), E4M3(1.125), E4M3(-1.25))), 0.015625);
  EXPECT_EQ(double(E4M3(1.125) * E4M3(1.125) + E4M3(-1.25)), 0.0);
  // E2M1: 1.5 * 1.5 + 0.5 = 2.75, between 2 and 3 (nearer 3); two roundings would
  // give 2 (product 2.25 -> 2) + 0.5 = 2.5 -> 2 (tie to even).
  EXPECT_EQ(double(fma(E2M1(1.5), E2M1(1.5), E2M1(0.5))), 3.0);
  // Exact cancellation: +0, or -0 when rounding down (IEEE 754 6.3).
  EXPECT_EQ(fma(E5M2(2.0), E5M2(3.0), E5M2(-6.0)).bits(), 0x00u);
  EXPECT_EQ(fma(E5M2(2.0), E5M2(3.0), E5M2(-6.0), Rounding::down).bits(), 0x80u);
}

}  // namespace
}  // namespace softfloat::arithmetic_test
