// softfloat::runtime::add / subtract / multiply / divide on every pair of codes,
// sqrt on every code and fma on every triple (FP4) or random triples (FP6, FP8), in
// every deterministic rounding direction, against MPFR through
// verify::reference_compute(operation, format, mode, policy): MPFR's own roundings
// for nearest_even and the directed modes, and the choice between MPFR's two
// neighbours for nearest_away, nearest_zero and odd. The formats cover every
// convention: IEEE (E5M2), fn (E4M3), finite (E2M1, E2M3, E3M2), fnuz (E4M3FNUZ),
// P3109 with and without mantissa bits, and the unsigned E8M0 without zero. The
// pairwise operations and sqrt run under both overflow policies; fma under the
// standard one.
#include <random>
#include <string>

#include "verify/arithmetic/arithmetic_test_support.hpp"
#include "verify/common/rounding_modes.hpp"

namespace softfloat::arithmetic_test {
namespace {

using test_support::kDeterministicRoundings;
using test_support::kOverflowPolicies;
using test_support::name_of;

using ModeFormats = ::testing::Types<E4M3, E5M2, E2M1, E2M3, E3M2, E4M3FNUZ, E8M0, P3109<8, 1>, P3109<8, 3>>;

template <class F>
class ArithmeticRoundingModes : public ::testing::Test {};
TYPED_TEST_SUITE(ArithmeticRoundingModes, ModeFormats, FormatNames);

std::uint64_t library_result(Operation op, std::uint64_t a, std::uint64_t b, const Format& f, Rounding mode,
                             Overflow policy) {
  switch (op) {
    case Operation::add: return runtime::add(a, b, f, mode, policy);
    case Operation::subtract: return runtime::subtract(a, b, f, mode, policy);
    case Operation::multiply: return runtime::multiply(a, b, f, mode, policy);
    case Operation::divide: return runtime::divide(a, b, f, mode, policy);
  }
  return 0;
}

// A NaN operand propagates quieted (the first one); otherwise MPFR rounds the exact
// operation in `mode`.
std::uint64_t expected_result(Operation op, const ValueTable& table, std::size_t i, std::size_t j, const Format& f,
                              Rounding mode, Overflow policy) {
  return expected_binary(op, table.code(i), table.value(i), table.code(j), table.value(j), f, mode, policy);
}
template <class F>
void check_every_pair_in_every_mode(Operation op) {
  const Format f = F::format;
  const ValueTable table(f, all_codes(f));
  MismatchLog log(format_name(f) + " " + symbol(op) + ", every pair in every mode and overflow policy");
  for (Rounding mode : kDeterministicRoundings) {
    for (Overflow policy : kOverflowPolicies) {
      for (std::size_t i = 0; i < table.size(); ++i) {
        for (std::size_t j = 0; j < table.size(); ++j) {
          const std::uint64_t a = table.code(i), b = table.code(j);
          log.check(library_result(op, a, b, f, mode, policy), expected_result(op, table, i, j, f, mode, policy), [&] {
            return hex(a) + " " + symbol(op) + " " + hex(b) + " " + name_of(mode) + " " + name_of(policy);
          });
        }
      }
    }
  }
  EXPECT_TRUE(log.result());
}

TYPED_TEST(ArithmeticRoundingModes, AddEveryPair) { check_every_pair_in_every_mode<TypeParam>(Operation::add); }
TYPED_TEST(ArithmeticRoundingModes, SubtractEveryPair) {
  check_every_pair_in_every_mode<TypeParam>(Operation::subtract);
}
TYPED_TEST(ArithmeticRoundingModes, MultiplyEveryPair) {
  check_every_pair_in_every_mode<TypeParam>(Operation::multiply);
}
TYPED_TEST(ArithmeticRoundingModes, DivideEveryPair) { check_every_pair_in_every_mode<TypeParam>(Operation::divide); }

TYPED_TEST(ArithmeticRoundingModes, SqrtEveryCode) {
  const Format f = TypeParam::format;
  const ValueTable table(f, all_codes(f));
  MismatchLog log(format_name(f) + " sqrt, every code in every mode and overflow policy");
  for (Rounding mode : kDeterministicRoundings) {
    for (Overflow policy : kOverflowPolicies) {
      for (std::size_t i = 0; i < table.size(); ++i) {
        const std::uint64_t a = table.code(i);
        log.check(runtime::sqrt(a, f, mode, policy), expected_sqrt(table, i, f, mode, policy),
                  [&] { return "sqrt(" + hex(a) + ") " + name_of(mode) + " " + name_of(policy); });
      }
    }
  }
  EXPECT_TRUE(log.result());
}

// fma on every triple of formats of at most 4 bits and on random triples of the
// others. NaN operands as in fma_test.cpp: a, then b propagate; inf * 0 is invalid
// whatever c is, and either the default NaN or a NaN c is accepted there (IEEE 754
// 7.2(c) leaves the choice to the implementation); then a NaN c propagates.
template <class F>
void check_fma(MismatchLog& log, const ValueTable& table, std::size_t i, std::size_t j, std::size_t k,
               Rounding mode, std::uint64_t default_nan_code) {
  const Format f = F::format;
  const std::uint64_t a = table.code(i), b = table.code(j), c = table.code(k);
  check_fma_result(
      log, table, i, j, k, f, runtime::fma(a, b, c, f, mode), default_nan_code,
      [&] { return "fma(" + hex(a) + ", " + hex(b) + ", " + hex(c) + ") " + name_of(mode); }, mode,
      Overflow::standard);
}

constexpr long kRandomFmaTriples = 20000;

TYPED_TEST(ArithmeticRoundingModes, Fma) {
  using F = TypeParam;
  const Format f = F::format;
  const ValueTable table(f, all_codes(f));
  MismatchLog log(format_name(f) + " fma in every mode");
  const std::uint64_t nan_code = default_nan(f);
  for (Rounding mode : kDeterministicRoundings) {
    if (table.size() <= 16) {
      for (std::size_t i = 0; i < table.size(); ++i)
        for (std::size_t j = 0; j < table.size(); ++j)
          for (std::size_t k = 0; k < table.size(); ++k) check_fma<F>(log, table, i, j, k, mode, nan_code);
      continue;
    }
    std::mt19937_64 rng(0xf3a0000u + f.exponent_bits * 64 + f.mantissa_bits);
    std::uniform_int_distribution<std::size_t> any_code(0, table.size() - 1);
    for (long n = 0; n < kRandomFmaTriples; ++n) check_fma<F>(log, table, any_code(rng), any_code(rng), any_code(rng), mode, nan_code);
  }
  EXPECT_TRUE(log.result());
}

// Worked cases, each code stated and checked against the library and MPFR.
struct WorkedCase {
  const char* what;
  Operation op;
  std::uint64_t a, b;
  Rounding mode;
  std::uint64_t code;
};

void check_worked_cases(const Format& f, std::initializer_list<WorkedCase> cases) {
  const ValueTable table(f, all_codes(f));
  for (const WorkedCase& c : cases) {
    SCOPED_TRACE(std::string(c.what) + " in " + name_of(c.mode));
    EXPECT_EQ(library_result(c.op, c.a, c.b, f, c.mode, Overflow::standard), c.code);
    EXPECT_EQ(expected_result(c.op, table, c.a, c.b, f, c.mode, Overflow::standard), c.code);
  }
}

// Saturating arithmetic: the overflows above give +-max (0x7E / 0xFE) instead of NaN,
// and E5M2's infinity (0x7C) becomes max (0x7B).
TEST(ArithmeticRoundingModesWorkedCases, SaturatingOverflow) {
  const ValueTable e4m3(E4M3::format, all_codes(E4M3::format));
  EXPECT_EQ(runtime::add(0x7E, 0x58, E4M3::format, Rounding::nearest_away, Overflow::saturate), 0x7Eu);
  EXPECT_EQ(expected_result(Operation::add, e4m3, 0x7E, 0x58, E4M3::format, Rounding::nearest_away, Overflow::saturate),
            0x7Eu);
  EXPECT_EQ(runtime::multiply(0xFE, 0x40, E4M3::format, Rounding::nearest_even, Overflow::saturate), 0xFEu);
  EXPECT_EQ(runtime::multiply(0xFE, 0x40, E4M3::format, Rounding::nearest_even, Overflow::standard), 0xFFu);
  EXPECT_EQ(runtime::add(0x7B, 0x7B, E5M2::format, Rounding::nearest_even, Overflow::saturate), 0x7Bu);
  EXPECT_EQ(runtime::add(0x7B, 0x7B, E5M2::format, Rounding::nearest_even, Overflow::standard), 0x7Cu);
  // Typed: 448 * 2 in E4M3.
  EXPECT_EQ(multiply(E4M3(448.0f), E4M3(2.0f), Rounding::nearest_even, Overflow::saturate).bits(), 0x7E);
}

TEST(ArithmeticRoundingModesWorkedCases, E4m3) {
  using R = Rounding;
  using O = Operation;
  // 0x7E = 448 (max), 0x76 = 0b0'1110'110 = 224, 0x58 = 0b0'1011'000 = 16, 0x50 = 8, 0x40 = 2,
  // 0x38 = 1, 0x08 = 2^-6, 0x01 = 2^-9.
  check_worked_cases(E4M3::format, {
      // 448 + 16 = 464, the midpoint of 448 and the would-be 480 (the NaN code 0x7F).
      {"448 + 16 ties to even", O::add, 0x7E, 0x58, R::nearest_even, 0x7E},
      {"448 + 16 ties away: overflow", O::add, 0x7E, 0x58, R::nearest_away, 0x7F},
      {"448 + 16 ties toward zero", O::add, 0x7E, 0x58, R::nearest_zero, 0x7E},
      {"448 + 16 to odd overflows to max", O::add, 0x7E, 0x58, R::odd, 0x7E},
      {"448 * 2 toward zero", O::multiply, 0x7E, 0x40, R::toward_zero, 0x7E},
      {"-448 * 2 up", O::multiply, 0xFE, 0x40, R::up, 0xFE},
      {"-448 * 2 down", O::multiply, 0xFE, 0x40, R::down, 0xFF},
      {"224 + 8 up (232 between 224 and 240)", O::add, 0x76, 0x50, R::up, 0x77},
      {"224 + 8 odd: 224 = 0b...110 is even", O::add, 0x76, 0x50, R::odd, 0x77},
      // x - x is +0 except toward -infinity (IEEE 754 6.3), in the constructed modes too.
      {"1 - 1 down", O::subtract, 0x38, 0x38, R::down, 0x80},
      {"1 - 1 ties away", O::subtract, 0x38, 0x38, R::nearest_away, 0x00},
      {"1 - 1 to odd", O::subtract, 0x38, 0x38, R::odd, 0x00},
      // 2^-9 * 2^-6 = 2^-15 underflows: odd gives the smallest subnormal.
      {"2^-9 * 2^-6 to odd", O::multiply, 0x01, 0x08, R::odd, 0x01},
      {"2^-9 * 2^-6 ties away", O::multiply, 0x01, 0x08, R::nearest_away, 0x00},
      {"-2^-9 * 2^-6 down", O::multiply, 0x81, 0x08, R::down, 0x81},
      // 1 / 0 is an exact infinity: NaN in E4M3 whatever the mode.
      {"1 / 0 toward zero", O::divide, 0x38, 0x00, R::toward_zero, 0x7F},
  });
}

}  // namespace
}  // namespace softfloat::arithmetic_test
