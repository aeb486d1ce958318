// Conversions between Float types: explicit only, and exact where the target holds
// every value of the source (checked against MPFR's value of each code), rounded once
// where it does not (checked against MPFR rounding of the exact source value).
#include <gtest/gtest.h>

#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"

namespace softfloat {
namespace {

// Between formats, and to and from float/double, only explicit conversions compile:
// an implicit narrowing would round silently.
static_assert(!std::is_convertible_v<BF16, FP16>);
static_assert(!std::is_convertible_v<FP16, BF16>);
static_assert(!std::is_convertible_v<E4M3, FP32>);
static_assert(!std::is_convertible_v<float, BF16>);
static_assert(!std::is_convertible_v<double, E4M3>);
static_assert(!std::is_convertible_v<BF16, float>);
static_assert(!std::is_convertible_v<E4M3, double>);
static_assert(std::is_constructible_v<FP16, BF16>);
static_assert(std::is_constructible_v<FP32, E4M3>);
static_assert(std::is_constructible_v<E4M3, FP32>);
static_assert(std::is_constructible_v<float, BF16>);
static_assert(std::is_constructible_v<BF16, float>);
// A conversion between Float types works in a constant expression: bf16 1.5 -> fp16 1.5.
static_assert(FP16(BF16(1.5)).bits() == 0x3E00);

// Widening conversions where every value of the source is a value of the target:
// FP32 holds every E4M3 value (4 significant bits, exponents 2^-9 .. 2^8).
template <class From, class To>
void expect_every_code_exact() {
  const Format from = format_of<From>();
  for (std::uint64_t code = 0; code < (std::uint64_t{1} << from.total_bits()); ++code) {
    const From x = From::from_bits(typename From::storage_type(code));
    const double expected = verify::reference_value(code, from);
    const double actual = double(To(x));
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(actual)) << "code " << code;
    } else {
      EXPECT_EQ(actual, expected) << "code " << code;
      EXPECT_EQ(std::signbit(actual), std::signbit(expected)) << "code " << code;
    }
  }
}

TEST(FloatToFloat, Fp32HoldsEveryE4M3Code) { expect_every_code_exact<E4M3, FP32>(); }
TEST(FloatToFloat, Fp32HoldsEveryE5M2Code) { expect_every_code_exact<E5M2, FP32>(); }
TEST(FloatToFloat, Fp16HoldsEveryE4M3Code) { expect_every_code_exact<E4M3, FP16>(); }
TEST(FloatToFloat, Bf16HoldsEveryE2M1Code) { expect_every_code_exact<E2M1, BF16>(); }
TEST(FloatToFloat, Fp32HoldsEveryE8M0Code) { expect_every_code_exact<E8M0, FP32>(); }
TEST(FloatToFloat, Fp32HoldsEveryP3109E4M3Code) { expect_every_code_exact<P3109<8, 4>, FP32>(); }

// Narrowing: every bf16 code to fp16, rounded once from the exact bf16 value (MPFR
// reads the code's exact value and rounds it to fp16 in one step).
TEST(FloatToFloat, EveryBf16CodeToFp16RoundsOnce) {
  const Format from = format_of<BF16>(), to = format_of<FP16>();
  mpfr_t exact;
  mpfr_init2(exact, 64);
  for (std::uint64_t code = 0; code < 0x10000; ++code) {
    const BF16 x = BF16::from_bits(std::uint16_t(code));
    const std::uint16_t actual = FP16(x).bits();
    verify::exact_value_of(exact, code, from);
    if (mpfr_nan_p(exact)) {
      // NaN keeps its sign and top payload bits: quiet bf16 mantissa bits 6..0 go to the
      // top of fp16's 10 mantissa bits, i.e. shifted left by 3.
      const std::uint16_t expected = std::uint16_t(((code & 0x8000) | 0x7E00 | ((code & 0x7F) << 3)));
      EXPECT_EQ(actual, expected) << "code " << code;
      continue;
    }
    EXPECT_EQ(actual, verify::reference_round(exact, to)) << "code " << code;
  }
  mpfr_clear(exact);
}

// Narrowing between 8-bit formats: E5M2 -> E4M3 overflows to NaN above 464, and
// E4M3 -> E2M1 saturates (E2M1 has neither infinity nor NaN): 448 -> 6.
TEST(FloatToFloat, NarrowingOverflowFollowsTheTarget) {
  EXPECT_EQ(E4M3(E5M2(512.0)).bits(), 0x7Fu);
  EXPECT_EQ(E4M3(E5M2::infinity()).bits(), 0x7Fu);
  EXPECT_EQ(E4M3(E5M2(448.0)).bits(), 0x7Eu);
  EXPECT_EQ(E2M1(E4M3(448.0)).bits(), 0x7u);
  EXPECT_EQ(E2M1(E4M3::quiet_NaN()).bits(), 0x0u);
  EXPECT_EQ(E4M3FNUZ(E4M3(-0.0)).bits(), 0x00u);
}

}  // namespace
}  // namespace softfloat
