// + - * / sqrt fma on formats too wide to enumerate (fp16, bf16, tf32, Float<11,20>,
// binary64 and the large-bias Float<8,7,-200>), against MPFR: random operands (half
// over all codes, half clustered in a few binades so that sums interact), near-tie
// operands (the exact result lies within a few ulps of a midpoint), and every pair of
// a set of boundary codes (around max, the smallest subnormal and normal, one) in
// every IEEE rounding direction. binary64 results are also compared with the CPU's
// own double arithmetic in the default rounding mode, an independent second check.
// 20 000 random cases per operation, 300 000 in the long run.
#include <cmath>
#include <random>

#include "verify/arithmetic/arithmetic_test_support.hpp"
#include "verify/common/long_run.hpp"

namespace softfloat::arithmetic_test {
namespace {

const long kRandomCases = test_support::case_count(20000, 300000);

// Float<8,7,-200>: bf16's layout with exponents 201 .. 454 (max ~ 2^455), far beyond
// double's range, so nothing here can be computed through double.
using LargeBias = Float<8, 7, -200>;
using WideFormats = ::testing::Types<FP16, BF16, TF32, Float<11, 20>, FP64, LargeBias>;

// Codes from fields, without the library.
struct Fields {
  const Format& f;
  std::uint64_t sign_bit() const { return std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits); }
  std::uint64_t mantissa_ones() const { return (std::uint64_t{1} << f.mantissa_bits) - 1; }
  std::uint64_t max_field() const { return (std::uint64_t{1} << f.exponent_bits) - 2; }  // IEEE: all ones is special
  std::uint64_t code(bool negative, std::uint64_t field, std::uint64_t mantissa) const {
    return (negative ? sign_bit() : 0) | (field << f.mantissa_bits) | (mantissa & mantissa_ones());
  }
  // The exponent field of one, or the middle field where one is out of range (the
  // large-bias format): the binades the clustered operands come from.
  std::int64_t center_field() const {
    return f.bias >= 1 && std::uint64_t(f.bias) <= max_field() ? f.bias : std::int64_t(max_field() + 1) / 2;
  }
  std::uint64_t one() const { return code(false, std::uint64_t(center_field()), 0); }
};

// A generator of operand codes of one IEEE-style format.
class OperandSource {
 public:
  OperandSource(const Format& f, std::uint64_t seed) : fields_{f}, rng_(seed) {}

  std::uint64_t any() {  // every code equally likely, NaNs and infinities included
    return rng_() & (fields_.sign_bit() | (fields_.sign_bit() - 1));
  }
  // Within 4 binades of one (of the center field), random sign and mantissa.
  std::uint64_t clustered() {
    const std::int64_t field = fields_.center_field() + std::int64_t(rng_() % 9) - 4;
    return fields_.code(rng_() & 1, std::uint64_t(field), rng_());
  }
  // A mantissa with at most three bits set: products and quotients of such operands
  // land on or next to midpoints much more often than random ones.
  std::uint64_t sparse() {
    std::uint64_t mantissa = 0;
    for (int i = 0; i < 3; ++i)
      if (rng_() & 1) mantissa |= std::uint64_t{1} << (rng_() % std::uint64_t(fields_.f.mantissa_bits));
    const std::int64_t field = fields_.center_field() + std::int64_t(rng_() % 9) - 4;
    return fields_.code(rng_() & 1, std::uint64_t(field), mantissa);
  }
  // For a + b: b around half an ulp of a (exponent field M + 1 below a's, +-1), with
  // an extreme or random mantissa, so that the exact sum sits within a few ulps of a
  // midpoint of a's binade (or the one above or below).
  std::uint64_t half_ulp_of(std::uint64_t a) {
    const std::int64_t field_a = std::int64_t((a & (fields_.sign_bit() - 1)) >> fields_.f.mantissa_bits);
    const std::int64_t field = field_a - fields_.f.mantissa_bits - 1 + std::int64_t(rng_() % 3) - 1;
    const std::uint64_t ones = fields_.mantissa_ones();
    const std::uint64_t mantissas[] = {0, 1, 2, ones, ones - 1, rng_()};
    const std::uint64_t mantissa = mantissas[rng_() % 6];
    return fields_.code(rng_() & 1, std::uint64_t(std::max<std::int64_t>(field, 0)), mantissa);
  }
  std::uint64_t pick(int kind) { return kind == 0 ? any() : kind == 1 ? clustered() : sparse(); }
  std::mt19937_64& rng() { return rng_; }

 private:
  Fields fields_;
  std::mt19937_64 rng_;
};

// The CPU's binary64 result of the same operation (default environment), as bits.
std::uint64_t hardware_binary(Operation op, std::uint64_t a, std::uint64_t b) {
  const double x = std::bit_cast<double>(a), y = std::bit_cast<double>(b);
  switch (op) {
    case Operation::add: return std::bit_cast<std::uint64_t>(x + y);
    case Operation::subtract: return std::bit_cast<std::uint64_t>(x - y);
    case Operation::multiply: return std::bit_cast<std::uint64_t>(x * y);
    case Operation::divide: return std::bit_cast<std::uint64_t>(x / y);
  }
  return 0;
}
bool is_double_nan(std::uint64_t bits) { return std::isnan(std::bit_cast<double>(bits)); }

template <class F>
class WideFormatArithmetic : public ::testing::Test {
 protected:
  static constexpr Format f = F::format;

  // One binary operation on codes a, b against MPFR (and the CPU for binary64).
  void check(MismatchLog& log, MismatchLog& hardware, Operation op, std::uint64_t a, std::uint64_t b,
             const RoundingPair& rounding) {
    Mpfr x(64), y(64);
    verify::exact_value_of(x.get(), a, f);
    verify::exact_value_of(y.get(), b, f);
    const std::uint64_t got = library_binary<F>(op, a, b, rounding.library);
    auto describe = [&] { return hex(a) + " " + symbol(op) + " " + hex(b) + " " + rounding.name; };
    log.check(got, expected_binary(op, a, x.get(), b, y.get(), f, rounding.mpfr), describe);
    if constexpr (std::is_same_v<F, FP64>) {
      if (rounding.library == Rounding::nearest_even) {
        const std::uint64_t cpu = hardware_binary(op, a, b);
        // NaN: the CPU's default NaN is negative on x86, so only "both NaN" is compared.
        if (is_double_nan(cpu)) hardware.check_true(is_double_nan(got), [&] { return describe() + ": CPU NaN, library " + hex(got); });
        else hardware.check(got, cpu, describe);
      }
    }
  }
};
TYPED_TEST_SUITE(WideFormatArithmetic, WideFormats, FormatNames);

TYPED_TEST(WideFormatArithmetic, RandomAndNearTieOperands) {
  using F = TypeParam;
  constexpr Format f = F::format;
  for (Operation op : kOperations) {
    OperandSource source(f, 0xa11ce + int(op) * 7919 + f.mantissa_bits);
    MismatchLog log(format_name(f) + " " + symbol(op) + " random and near-tie operands");
    MismatchLog hardware(format_name(f) + " " + symbol(op) + " against the CPU's double arithmetic");
    for (long n = 0; n < kRandomCases; ++n) {
      const int kind = int(n % 4);
      const std::uint64_t a = kind == 3 ? source.clustered() : source.pick(kind);
      std::uint64_t b = source.pick(kind == 3 ? 2 : kind);
      if (kind == 3 && (op == Operation::add || op == Operation::subtract)) b = source.half_ulp_of(a);
      this->check(log, hardware, op, a, b, kNearest);
    }
    EXPECT_TRUE(log.result());
    if constexpr (std::is_same_v<F, FP64>) {
    EXPECT_TRUE(hardware.result());
  }
  }
}

// The boundary codes: zero, the smallest subnormals, the largest subnormal and the
// smallest normals, one and its neighbours, powers of two at the precision's edge
// (2^+-(M+1), 2^+-(M+2)), values just under two, and the largest values; then
// infinity and a quiet NaN. Every pair with both signs of b, every operation, every
// IEEE rounding direction and rounding away from zero.
TYPED_TEST(WideFormatArithmetic, OverflowAndUnderflowBoundaries) {
  using F = TypeParam;
  constexpr Format f = F::format;
  const Fields fields{f};
  const std::uint64_t ones = fields.mantissa_ones(), top = fields.max_field();
  const auto m = std::uint64_t(f.mantissa_bits);
  const auto one_field = std::uint64_t(fields.center_field());
  std::vector<std::uint64_t> codes{
      0, 1, 2, 3, ones - 1, ones, ones + 1, ones + 2,      // zero, subnormals, smallest normals
      fields.code(false, 2, 0), fields.code(false, 2, 1),  // 2 * min_normal
      fields.one(), fields.one() + 1, fields.one() - 1, fields.code(false, one_field, std::uint64_t{1} << (m - 1)),
      fields.code(false, one_field - 1, 0), fields.code(false, one_field + 1, 0),  // 0.5, 2
      fields.code(false, one_field, ones),                                          // 2 - 2^-M
      fields.code(false, one_field - m - 1, 0), fields.code(false, one_field - m - 2, 0),
      fields.code(false, one_field + m + 1, 0), fields.code(false, one_field + m + 2, 0),
      fields.code(false, top, ones), fields.code(false, top, ones - 1), fields.code(false, top, 0),
      fields.code(false, top - 1, ones), fields.code(false, top - m, 0),
      fields.code(false, top + 1, 0),                     // infinity
      fields.code(false, top + 1, std::uint64_t{1} << (m - 1)),  // quiet NaN
  };
  std::vector<RoundingPair> roundings{kNearest};
  roundings.insert(roundings.end(), std::begin(kDirectedRoundings), std::end(kDirectedRoundings));
  MismatchLog hardware(format_name(f) + " boundaries against the CPU's double arithmetic");
  for (const RoundingPair& rounding : roundings) {
    MismatchLog log(format_name(f) + " boundaries, " + rounding.name);
    for (Operation op : kOperations)
      for (std::uint64_t a : codes)
        for (std::uint64_t b : codes)
          for (bool negative : {false, true}) this->check(log, hardware, op, a, negative ? b | fields.sign_bit() : b, rounding);
    EXPECT_TRUE(log.result());
  }
  if constexpr (std::is_same_v<F, FP64>) {
    EXPECT_TRUE(hardware.result());
  }
}

TYPED_TEST(WideFormatArithmetic, SqrtRandomAndBoundaries) {
  using F = TypeParam;
  using S = typename F::storage_type;
  constexpr Format f = F::format;
  OperandSource source(f, 0x5017 + f.mantissa_bits);
  MismatchLog log(format_name(f) + " sqrt");
  MismatchLog hardware(format_name(f) + " sqrt against the CPU");
  std::vector<RoundingPair> roundings{kNearest};
  roundings.insert(roundings.end(), std::begin(kDirectedRoundings), std::end(kDirectedRoundings));
  for (long n = 0; n < kRandomCases; ++n) {
    // Codes 0 .. 2^(M+2) (all subnormals and the first normals) come first.
    const std::uint64_t a = n < 4096 ? std::uint64_t(n) : source.pick(int(n % 3));
    Mpfr x(64);
    verify::exact_value_of(x.get(), a, f);
    const RoundingPair& rounding = roundings[std::size_t(n) % roundings.size()];
    const std::uint64_t expected =
        mpfr_nan_p(x.get()) ? quieted(a, f)
                            : verify::reference_compute([&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_sqrt(out, x.get(), r); },
                                                        f, rounding.mpfr);
    const std::uint64_t got = sqrt(F::from_bits(S(a)), rounding.library).bits();
    log.check(got, expected, [&] { return "sqrt(" + hex(a) + ") " + rounding.name; });
    if constexpr (std::is_same_v<F, FP64>) {
      const double cpu = std::sqrt(std::bit_cast<double>(a));
      if (rounding.library == Rounding::nearest_even) {
        if (std::isnan(cpu)) hardware.check_true(is_double_nan(got), [&] { return "sqrt(" + hex(a) + ")"; });
        else hardware.check(got, std::bit_cast<std::uint64_t>(cpu), [&] { return "sqrt(" + hex(a) + ")"; });
      }
    }
  }
  EXPECT_TRUE(log.result());
  if constexpr (std::is_same_v<F, FP64>) {
    EXPECT_TRUE(hardware.result());
  }
}

// fma: random triples, and c chosen as -(a * b rounded) moved by a few codes so that
// the sum nearly cancels and the product's low bits decide the result.
TYPED_TEST(WideFormatArithmetic, FmaRandomAndNearlyCancelling) {
  using F = TypeParam;
  using S = typename F::storage_type;
  constexpr Format f = F::format;
  const Fields fields{f};
  OperandSource source(f, 0xf3a + f.mantissa_bits);
  MismatchLog log(format_name(f) + " fma");
  MismatchLog hardware(format_name(f) + " fma against std::fma");
  for (long n = 0; n < kRandomCases; ++n) {
    const int kind = int(n % 3);
    const std::uint64_t a = source.pick(kind), b = source.pick(kind);
    Mpfr x(64), y(64), z(64);
    verify::exact_value_of(x.get(), a, f);
    verify::exact_value_of(y.get(), b, f);
    std::uint64_t c = source.pick(kind);
    if (n % 2 == 1 && mpfr_number_p(x.get()) && mpfr_number_p(y.get())) {
      const std::uint64_t product = reference_binary(Operation::multiply, x.get(), y.get(), f, MPFR_RNDN);
      const std::uint64_t negated = product ^ fields.sign_bit();
      const std::int64_t step = std::int64_t(source.rng()() % 7) - 3;
      const std::int64_t magnitude = std::int64_t(negated & (fields.sign_bit() - 1)) + step;
      if (magnitude >= 0) c = (negated & fields.sign_bit()) | std::uint64_t(magnitude);
    }
    verify::exact_value_of(z.get(), c, f);
    const std::uint64_t got = fma(F::from_bits(S(a)), F::from_bits(S(b)), F::from_bits(S(c))).bits();
    auto describe = [&] { return "fma(" + hex(a) + ", " + hex(b) + ", " + hex(c) + ")"; };
    if (mpfr_nan_p(x.get()) || mpfr_nan_p(y.get()) || mpfr_nan_p(z.get())) {
      log.check_true(isnan(F::from_bits(S(got))), [&] { return describe() + " is not NaN"; });
    } else {
      log.check(got,
                verify::reference_compute(
                    [&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_fma(out, x.get(), y.get(), z.get(), r); }, f),
                describe);
    }
    if constexpr (std::is_same_v<F, FP64>) {
      const double cpu =
          std::fma(std::bit_cast<double>(a), std::bit_cast<double>(b), std::bit_cast<double>(c));
      if (std::isnan(cpu)) hardware.check_true(is_double_nan(got), [&] { return describe() + ": CPU NaN"; });
      else hardware.check(got, std::bit_cast<std::uint64_t>(cpu), describe);
    }
  }
  EXPECT_TRUE(log.result());
  if constexpr (std::is_same_v<F, FP64>) {
    EXPECT_TRUE(hardware.result());
  }
}

// Values worked by hand.
TEST(WideFormatKnownValues, NearTies) {
  // bf16: 1 + 2^-8 is the midpoint between 1 and 1 + 2^-7: ties to even give 1; one
  // more bit below (2^-16) tips it up. The sum is formed exactly, never through float.
  const BF16 one(1.0);
  EXPECT_EQ(double(one + BF16(0x1p-8)), 1.0);
  EXPECT_EQ(double(one + BF16(0x1p-8) + BF16(0x1p-16)), 1.0);  // two roundings: 1, then 1
  EXPECT_EQ(double(fma(BF16(0x1p-8), BF16(1.0 + 0x1p-7), one)), 1.0 + 0x1p-7);
  // fp16: 65504 + 16 = 65520 is the overflow midpoint, rounds to even (2^16) = infinity;
  // 65504 + 8 = 65512 stays at 65504.
  EXPECT_EQ((FP16(65504.0) + FP16(16.0)).bits(), 0x7C00u);
  EXPECT_EQ((FP16(65504.0) + FP16(8.0)).bits(), 0x7BFFu);
  EXPECT_EQ(add(FP16(65504.0), FP16(16.0), Rounding::toward_zero).bits(), 0x7BFFu);
  // fp16 smallest subnormal 2^-24: halved it is a tie to 0 (even); * 0.75 gives
  // 0.75 * 2^-24, nearer to 2^-24.
  EXPECT_EQ((FP16::min_subnormal() * FP16(0.5)).bits(), 0x0000u);
  EXPECT_EQ((FP16::min_subnormal() * FP16(0.75)).bits(), 0x0001u);
  EXPECT_EQ(multiply(FP16::min_subnormal(), FP16(0.5), Rounding::up).bits(), 0x0001u);
}

}  // namespace
}  // namespace softfloat::arithmetic_test
