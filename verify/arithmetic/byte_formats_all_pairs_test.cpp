// + - * / on every pair of codes, and sqrt on every code, of every format of at most
// 8 bits, against MPFR's correctly rounded result of the exact operand values
// (verify::reference_compute rounds once, with the format's subnormals and overflow
// rule). NaN results are compared as codes: an invalid operation gives the format's
// default NaN (quiet_NaN()), a NaN operand propagates quieted; a format without NaN
// has neither. The directed roundings run on the two OCP FP8 formats.
#include <cmath>
#include <string>

#include "verify/arithmetic/arithmetic_test_support.hpp"

namespace softfloat::arithmetic_test {
namespace {

template <class F>
std::string describe_pair(Operation op, std::uint64_t a, std::uint64_t b, const char* rounding) {
  return hex(a) + " (" + std::to_string(verify::reference_value(a, F::format)) + ") " + symbol(op) + " " + hex(b) +
         " (" + std::to_string(verify::reference_value(b, F::format)) + ") " + rounding;
}

// Every pair of codes of F under one rounding.
template <class F>
void check_all_pairs(Operation op, const RoundingPair& rounding) {
  const Format f = F::format;
  const ValueTable table(f, all_codes(f));
  MismatchLog log(format_name(f) + " " + symbol(op) + " " + rounding.name);
  for (std::size_t i = 0; i < table.size(); ++i) {
    for (std::size_t j = 0; j < table.size(); ++j) {
      const std::uint64_t a = table.code(i), b = table.code(j);
      log.check(library_binary<F>(op, a, b, rounding.library),
                expected_binary(op, a, table.value(i), b, table.value(j), f, rounding.mpfr),
                [&] { return describe_pair<F>(op, a, b, rounding.name); });
    }
  }
  EXPECT_TRUE(log.result());
}

template <class F>
class ByteFormatArithmetic : public ::testing::Test {};
TYPED_TEST_SUITE(ByteFormatArithmetic, ByteFormats, FormatNames);

TYPED_TEST(ByteFormatArithmetic, AddEveryPair) { check_all_pairs<TypeParam>(Operation::add, kNearest); }
TYPED_TEST(ByteFormatArithmetic, SubtractEveryPair) { check_all_pairs<TypeParam>(Operation::subtract, kNearest); }
TYPED_TEST(ByteFormatArithmetic, MultiplyEveryPair) { check_all_pairs<TypeParam>(Operation::multiply, kNearest); }
TYPED_TEST(ByteFormatArithmetic, DivideEveryPair) { check_all_pairs<TypeParam>(Operation::divide, kNearest); }

// sqrt of every code, in every rounding (cheap: one operand).
TYPED_TEST(ByteFormatArithmetic, SqrtEveryCode) {
  using F = TypeParam;
  using S = typename F::storage_type;
  const Format f = F::format;
  const ValueTable table(f, all_codes(f));
  MismatchLog log(format_name(f) + " sqrt");
  std::vector<RoundingPair> roundings{kNearest};
  roundings.insert(roundings.end(), std::begin(kDirectedRoundings), std::end(kDirectedRoundings));
  for (const RoundingPair& rounding : roundings) {
    for (std::size_t i = 0; i < table.size(); ++i) {
      const std::uint64_t a = table.code(i);
      const std::uint64_t expected = expected_sqrt(table, i, f, rounding.mpfr);
      const F x = F::from_bits(S(a));
      const std::uint64_t got =
          rounding.library == Rounding::nearest_even ? sqrt(x).bits() : sqrt(x, rounding.library).bits();
      log.check(got, expected, [&] { return "sqrt(" + hex(a) + ") " + rounding.name; });
    }
  }
  EXPECT_TRUE(log.result());
}

// Unary minus is exact: the negated MPFR value rounded back (NaN stays NaN: the sign
// of a NaN code is kept as it is, IEEE 754 5.5.1 negate only flips the bit, and the
// single-code conventions have just one NaN per sign).
TYPED_TEST(ByteFormatArithmetic, NegateEveryCode) {
  using F = TypeParam;
  using S = typename F::storage_type;
  const Format f = F::format;
  const ValueTable table(f, all_codes(f));
  MismatchLog log(format_name(f) + " unary minus");
  for (std::size_t i = 0; i < table.size(); ++i) {
    const std::uint64_t a = table.code(i);
    const F x = F::from_bits(S(a));
    if (mpfr_nan_p(table.value(i))) {
      log.check_true(isnan(-x), [&] { return "-" + hex(a) + " is not NaN"; });
      continue;
    }
    const std::uint64_t expected = verify::reference_compute(
        [&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_neg(out, table.value(i), r); }, f);
    log.check((-x).bits(), expected, [&] { return "-" + hex(a); });
  }
  EXPECT_TRUE(log.result());
}

// The conventions the loops above rely on, pinned with stated values.
TEST(ByteFormatArithmeticConventions, InvalidOperationsGiveTheDefaultNaN) {
  // E5M2: inf - inf is the positive quiet NaN 0b0'11111'10 = 0x7E.
  EXPECT_EQ((E5M2::infinity() - E5M2::infinity()).bits(), 0x7Eu);
  EXPECT_EQ(E5M2::quiet_NaN().bits(), 0x7Eu);
  // E4M3: 0 / 0 is 0x7F (0b0'1111'111), the positive NaN.
  EXPECT_EQ((E4M3() / E4M3()).bits(), 0x7Fu);
  // E4M3FNUZ and P3109: the only NaN, 0x80.
  EXPECT_EQ((E4M3FNUZ() / E4M3FNUZ()).bits(), 0x80u);
  EXPECT_EQ((P3109<8, 3>::infinity() * P3109<8, 3>()).bits(), 0x80u);
  // sqrt(-1) in E5M2: 0x7E; sqrt(-0) is -0 (IEEE 754 5.4.1).
  EXPECT_EQ(sqrt(E5M2(-1.0)).bits(), 0x7Eu);
  EXPECT_EQ(sqrt(E5M2::from_bits(0x80)).bits(), 0x80u);
  // E2M1 has no NaN: 0 / 0 gives +0, the documented stand-in.
  EXPECT_EQ((E2M1() / E2M1()).bits(), 0x0u);
}

TEST(ByteFormatArithmeticConventions, NaNOperandsPropagateQuieted) {
  // E5M2 0xFD = 0b1'11111'01 is a negative signalling NaN; quieted it is 0xFF.
  EXPECT_EQ((E5M2::from_bits(0xFD) + E5M2(1.0)).bits(), 0xFFu);
  EXPECT_EQ((E5M2(1.0) * E5M2::from_bits(0x7D)).bits(), 0x7Fu);
  // The first NaN operand wins.
  EXPECT_EQ((E5M2::from_bits(0xFE) - E5M2::from_bits(0x7D)).bits(), 0xFEu);
  // The subtrahend NaN is passed on as it is, not negated (x86 SSE, Arm and Berkeley
  // SoftFloat do the same; IEEE 754 6.3 gives NaN signs no meaning, so keeping the
  // operand unchanged is the one predictable choice).
  EXPECT_EQ((E5M2(1.0) - E5M2::from_bits(0x7E)).bits(), 0x7Eu);
  EXPECT_EQ((E4M3(1.0) - E4M3::from_bits(0x7F)).bits(), 0x7Fu);
  // E4M3 -NaN (0xFF) keeps its sign.
  EXPECT_EQ((E4M3::from_bits(0xFF) * E4M3(2.0)).bits(), 0xFFu);
}

TEST(ByteFormatArithmeticConventions, SignedZeros) {
  const E5M2 one(1.0);
  // x - x is +0 in every rounding except toward -infinity (IEEE 754 6.3).
  EXPECT_EQ((one - one).bits(), 0x00u);
  EXPECT_EQ(subtract(one, one, Rounding::down).bits(), 0x80u);
  EXPECT_EQ(subtract(one, one, Rounding::up).bits(), 0x00u);
  // -0 + -0 = -0; formats without negative zero give +0.
  EXPECT_EQ((E5M2::from_bits(0x80) + E5M2::from_bits(0x80)).bits(), 0x80u);
  EXPECT_EQ((E5M2FNUZ(-0.0) + E5M2FNUZ(-0.0)).bits(), 0x00u);
  // A negative product that underflows is -0 in E4M3 (2^-9 * -2^-9 -> -0), +0 in E4M3FNUZ.
  EXPECT_EQ((E4M3::from_bits(0x01) * E4M3::from_bits(0x81)).bits(), 0x80u);
  EXPECT_EQ((E4M3FNUZ::from_bits(0x01) * E4M3FNUZ::from_bits(0x81)).bits(), 0x00u);
}

// Directed roundings on the OCP FP8 formats: every pair, every operation.
template <class F>
class Fp8DirectedRounding : public ::testing::Test {};
TYPED_TEST_SUITE(Fp8DirectedRounding, test_formats::OcpFp8Formats, FormatNames);

TYPED_TEST(Fp8DirectedRounding, EveryPairEveryOperation) {
  for (const RoundingPair& rounding : kDirectedRoundings)
    for (Operation op : kOperations) check_all_pairs<TypeParam>(op, rounding);
}

}  // namespace
}  // namespace softfloat::arithmetic_test
