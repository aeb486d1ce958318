// Limits of every named format: max, lowest, min_normal, min_subnormal, epsilon and the
// infinity / NaN codes against values derived by hand (derivations in the comments),
// checked at compile time (all limits must be usable in static_assert) and again at run
// time for readable failures; std::numeric_limits; storage types.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "softfloat/softfloat.hpp"
#include "verify/common/format_lists.hpp"
#include "verify/common/format_test_names.hpp"

namespace softfloat {
namespace {

struct ExpectedLimits {
  double max, lowest, min_normal, min_subnormal, epsilon;
  std::uint64_t max_code, lowest_code, min_normal_code, min_subnormal_code;
  std::optional<std::uint64_t> infinity_code;  // empty: the format has no infinity
  std::optional<std::uint64_t> nan_code;       // empty: the format has no NaN
  int digits;                                  // M + 1
  bool is_signed;
  bool has_subnormals;
};

template <class F>
constexpr ExpectedLimits expected_limits{};

// IEEE binary32, bias 127. max = 0b0'11111110'1...1 = (2 - 2^-23) * 2^127; min_normal =
// exponent field 1 = 2^-126; min_subnormal = 2^(-126 - 23) = 2^-149; epsilon = 2^-23.
template <>
constexpr ExpectedLimits expected_limits<FP32>{
    0x1.fffffep127, -0x1.fffffep127, 0x1p-126, 0x1p-149, 0x1p-23,
    0x7F7FFFFF, 0xFF7FFFFF, 0x00800000, 0x00000001, 0x7F800000, 0x7FC00000, 24, true, true};
// IEEE binary64, bias 1023: (2 - 2^-52) * 2^1023, 2^-1022, 2^(-1022 - 52) = 2^-1074, 2^-52.
template <>
constexpr ExpectedLimits expected_limits<FP64>{
    0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023, 0x1p-1022, 0x1p-1074, 0x1p-52,
    0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x0010000000000000, 1,
    0x7FF0000000000000, 0x7FF8000000000000, 53, true, true};
// bf16, bias 127: max 0b0'11111110'1111111 = (2 - 2^-7) * 2^127 = 0x1.fep127;
// min_subnormal = 2^(-126 - 7) = 2^-133; quiet NaN = exponent ones + top mantissa bit.
template <>
constexpr ExpectedLimits expected_limits<BF16>{
    0x1.fep127, -0x1.fep127, 0x1p-126, 0x1p-133, 0x1p-7,
    0x7F7F, 0xFF7F, 0x0080, 0x0001, 0x7F80, 0x7FC0, 8, true, true};
// fp16, bias 15: max 0b0'11110'1111111111 = (2 - 2^-10) * 2^15 = 65504; min_normal 2^-14;
// min_subnormal 2^(-14 - 10) = 2^-24.
template <>
constexpr ExpectedLimits expected_limits<FP16>{
    65504.0, -65504.0, 0x1p-14, 0x1p-24, 0x1p-10,
    0x7BFF, 0xFBFF, 0x0400, 0x0001, 0x7C00, 0x7E00, 11, true, true};
// TF32 (19 bits), bias 127: max = (254 << 10) | 0x3FF = 0x3FBFF = (2 - 2^-10) * 2^127;
// min_subnormal 2^(-126 - 10) = 2^-136; infinity 255 << 10 = 0x3FC00; sign bit 1 << 18.
template <>
constexpr ExpectedLimits expected_limits<TF32>{
    0x1.ffcp127, -0x1.ffcp127, 0x1p-126, 0x1p-136, 0x1p-10,
    0x3FBFF, 0x7FBFF, 0x00400, 0x00001, 0x3FC00, 0x3FE00, 11, true, true};
// E5M2, bias 15: max 0b0'11110'11 = 1.75 * 2^15 = 57344; min_normal 2^-14 (0b0'00001'00);
// min_subnormal 2^(-14 - 2) = 2^-16; infinity 0b0'11111'00; quiet NaN 0b0'11111'10.
template <>
constexpr ExpectedLimits expected_limits<E5M2>{
    57344.0, -57344.0, 0x1p-14, 0x1p-16, 0.25, 0x7B, 0xFB, 0x04, 0x01, 0x7C, 0x7E, 3, true, true};
// E4M3 (OCP), bias 7: max 0b0'1111'110 = 1.75 * 2^8 = 448; min_normal 2^-6 (0b0'0001'000);
// min_subnormal 2^(-6 - 3) = 2^-9; NaN 0b0'1111'111; no infinity.
template <>
constexpr ExpectedLimits expected_limits<E4M3>{
    448.0, -448.0, 0x1p-6, 0x1p-9, 0.125, 0x7E, 0xFE, 0x08, 0x01, std::nullopt, 0x7F, 4, true, true};
// E3M2 (OCP MX), bias 3: max 0b0'111'11 = 1.75 * 2^4 = 28; min_normal 2^-2 (0b0'001'00);
// min_subnormal 2^(-2 - 2) = 2^-4; 6 bits, sign at 1 << 5; no infinity, no NaN.
template <>
constexpr ExpectedLimits expected_limits<E3M2>{
    28.0, -28.0, 0.25, 0.0625, 0.25, 0x1F, 0x3F, 0x04, 0x01, std::nullopt, std::nullopt, 3, true, true};
// E2M3 (OCP MX), bias 1: max 0b0'11'111 = 1.875 * 2^2 = 7.5; min_normal 2^0 (0b0'01'000);
// min_subnormal 2^(0 - 3) = 0.125.
template <>
constexpr ExpectedLimits expected_limits<E2M3>{
    7.5, -7.5, 1.0, 0.125, 0.125, 0x1F, 0x3F, 0x08, 0x01, std::nullopt, std::nullopt, 4, true, true};
// E2M1 (OCP MX), bias 1: max 0b0'11'1 = 1.5 * 2^2 = 6; min_normal 2^0 (0b0'01'0);
// min_subnormal 2^(0 - 1) = 0.5; 4 bits, sign at 1 << 3.
template <>
constexpr ExpectedLimits expected_limits<E2M1>{
    6.0, -6.0, 1.0, 0.5, 0.5, 0x7, 0xF, 0x2, 0x1, std::nullopt, std::nullopt, 2, true, true};
// E8M0 (OCP MX scale): unsigned, no zero, code c is 2^(c - 127). max 0xFE = 2^127; the
// smallest value (lowest, min_normal and min_subnormal alike) is code 0 = 2^-127;
// epsilon 2^-0 = 1 = code 127; NaN 0xFF.
template <>
constexpr ExpectedLimits expected_limits<E8M0>{
    0x1p127, 0x1p-127, 0x1p-127, 0x1p-127, 1.0, 0xFE, 0x00, 0x00, 0x00, std::nullopt, 0xFF, 1, false, false};
// E4M3FNUZ, bias 8: max 0b0'1111'111 = 1.875 * 2^7 = 240; min_normal 2^-7; min_subnormal
// 2^(-7 - 3) = 2^-10; the only NaN is 0x80.
template <>
constexpr ExpectedLimits expected_limits<E4M3FNUZ>{
    240.0, -240.0, 0x1p-7, 0x1p-10, 0.125, 0x7F, 0xFF, 0x08, 0x01, std::nullopt, 0x80, 4, true, true};
// E5M2FNUZ, bias 16: max 0b0'11111'11 = 1.75 * 2^15 = 57344; min_normal 2^-15;
// min_subnormal 2^(-15 - 2) = 2^-17; the only NaN is 0x80.
template <>
constexpr ExpectedLimits expected_limits<E5M2FNUZ>{
    57344.0, -57344.0, 0x1p-15, 0x1p-17, 0.25, 0x7F, 0xFF, 0x04, 0x01, std::nullopt, 0x80, 3, true, true};
// P3109 binary8pP: E = 8 - P, M = P - 1, bias 2^(7 - P); max code 0x7E (0x7F is +inf),
// lowest 0xFE, infinity 0x7F, NaN 0x80. max = the fields of 0x7E:
//   P=1: E7M0 bias 64: 0b1111110        -> 2^(126 - 64) = 2^62; no subnormals (M = 0),
//        so min_subnormal = min_normal = 2^(1 - 64) = 2^-63; epsilon 2^0.
//   P=2: E6M1 bias 32: 0b111111'0       -> 2^(63 - 32) = 2^31; min 2^-31, sub 2^-32.
//   P=3: E5M2 bias 16: 0b11111'10       -> 1.5 * 2^15 = 49152; min 2^-15, sub 2^-17.
//   P=4: E4M3 bias 8:  0b1111'110       -> 1.75 * 2^7 = 224; min 2^-7, sub 2^-10.
//   P=5: E3M4 bias 4:  0b111'1110       -> 1.875 * 2^3 = 15; min 2^-3, sub 2^-7.
//   P=6: E2M5 bias 2:  0b11'11110       -> 1.9375 * 2^1 = 3.875; min 2^-1, sub 2^-6.
//   P=7: E1M6 bias 1:  0b1'111110       -> 1.96875 * 2^0; min 2^0, sub 2^-6.
template <>
constexpr ExpectedLimits expected_limits<P3109<8, 1>>{
    0x1p62, -0x1p62, 0x1p-63, 0x1p-63, 1.0, 0x7E, 0xFE, 0x01, 0x01, 0x7F, 0x80, 1, true, false};
template <>
constexpr ExpectedLimits expected_limits<P3109<8, 2>>{
    0x1p31, -0x1p31, 0x1p-31, 0x1p-32, 0.5, 0x7E, 0xFE, 0x02, 0x01, 0x7F, 0x80, 2, true, true};
template <>
constexpr ExpectedLimits expected_limits<P3109<8, 3>>{
    49152.0, -49152.0, 0x1p-15, 0x1p-17, 0.25, 0x7E, 0xFE, 0x04, 0x01, 0x7F, 0x80, 3, true, true};
template <>
constexpr ExpectedLimits expected_limits<P3109<8, 4>>{
    224.0, -224.0, 0x1p-7, 0x1p-10, 0.125, 0x7E, 0xFE, 0x08, 0x01, 0x7F, 0x80, 4, true, true};
template <>
constexpr ExpectedLimits expected_limits<P3109<8, 5>>{
    15.0, -15.0, 0x1p-3, 0x1p-7, 0x1p-4, 0x7E, 0xFE, 0x10, 0x01, 0x7F, 0x80, 5, true, true};
template <>
constexpr ExpectedLimits expected_limits<P3109<8, 6>>{
    3.875, -3.875, 0.5, 0x1p-6, 0x1p-5, 0x7E, 0xFE, 0x20, 0x01, 0x7F, 0x80, 6, true, true};
template <>
constexpr ExpectedLimits expected_limits<P3109<8, 7>>{
    1.96875, -1.96875, 1.0, 0x1p-6, 0x1p-6, 0x7E, 0xFE, 0x40, 0x01, 0x7F, 0x80, 7, true, true};

template <class F>
constexpr bool has_infinity_member = requires { F::infinity(); };
template <class F>
constexpr bool has_nan_member = requires { F::quiet_NaN(); };

// Everything the tables state, evaluated by the compiler.
template <class F>
constexpr bool limits_match() {
  constexpr ExpectedLimits e = expected_limits<F>;
  bool ok = double(F::max()) == e.max && double(F::lowest()) == e.lowest &&
            double(F::min_normal()) == e.min_normal && double(F::min_subnormal()) == e.min_subnormal &&
            double(F::epsilon()) == e.epsilon && F::max().bits() == e.max_code &&
            F::lowest().bits() == e.lowest_code && F::min_normal().bits() == e.min_normal_code &&
            F::min_subnormal().bits() == e.min_subnormal_code;
  ok = ok && has_infinity_member<F> == e.infinity_code.has_value();
  ok = ok && has_nan_member<F> == e.nan_code.has_value();
  if constexpr (has_infinity_member<F>) ok = ok && F::infinity().bits() == *e.infinity_code;
  if constexpr (has_nan_member<F>) ok = ok && F::quiet_NaN().bits() == *e.nan_code;
  using L = std::numeric_limits<F>;
  ok = ok && L::is_specialized && L::digits == e.digits && L::is_signed == e.is_signed &&
       L::has_infinity == e.infinity_code.has_value() && L::has_quiet_NaN == e.nan_code.has_value() &&
       L::min().bits() == e.min_normal_code && L::denorm_min().bits() == e.min_subnormal_code &&
       L::max().bits() == e.max_code && L::lowest().bits() == e.lowest_code &&
       double(L::epsilon()) == e.epsilon &&
       (L::has_denorm == std::denorm_present) == e.has_subnormals;
  if constexpr (L::has_infinity) ok = ok && L::infinity().bits() == *e.infinity_code;
  if constexpr (L::has_quiet_NaN) ok = ok && L::quiet_NaN().bits() == *e.nan_code;
  return ok;
}

static_assert(limits_match<FP32>());
static_assert(limits_match<FP64>());
static_assert(limits_match<BF16>());
static_assert(limits_match<FP16>());
static_assert(limits_match<TF32>());
static_assert(limits_match<E5M2>());
static_assert(limits_match<E4M3>());
static_assert(limits_match<E3M2>());
static_assert(limits_match<E2M3>());
static_assert(limits_match<E2M1>());
static_assert(limits_match<E8M0>());
static_assert(limits_match<E4M3FNUZ>());
static_assert(limits_match<E5M2FNUZ>());
static_assert(limits_match<P3109<8, 1>>());
static_assert(limits_match<P3109<8, 2>>());
static_assert(limits_match<P3109<8, 3>>());
static_assert(limits_match<P3109<8, 4>>());
static_assert(limits_match<P3109<8, 5>>());
static_assert(limits_match<P3109<8, 6>>());
static_assert(limits_match<P3109<8, 7>>());

// Each limit individually in a constant expression, as users write them.
static_assert(double(std::numeric_limits<FP16>::max()) == 65504.0);
static_assert(double(std::numeric_limits<BF16>::denorm_min()) == 0x1p-133);
static_assert(std::numeric_limits<E4M3>::epsilon().bits() == 0b0'0100'000);  // 2^-3: field -3 + 7 = 4
static_assert(E8M0::min_normal().bits() == 0 && E8M0::max().bits() == 0xFE);

// The same checks at run time, one expectation per field, so a failure names it.
template <class F>
class LimitsTest : public ::testing::Test {};
TYPED_TEST_SUITE(LimitsTest, test_formats::NamedFormats, test_names::FormatNames);

TYPED_TEST(LimitsTest, MatchHandDerivedValues) {
  using F = TypeParam;
  constexpr ExpectedLimits e = expected_limits<F>;
  EXPECT_EQ(double(F::max()), e.max);
  EXPECT_EQ(double(F::lowest()), e.lowest);
  EXPECT_EQ(double(F::min_normal()), e.min_normal);
  EXPECT_EQ(double(F::min_subnormal()), e.min_subnormal);
  EXPECT_EQ(double(F::epsilon()), e.epsilon);
  EXPECT_EQ(F::max().bits(), e.max_code);
  EXPECT_EQ(F::lowest().bits(), e.lowest_code);
  EXPECT_EQ(F::min_normal().bits(), e.min_normal_code);
  EXPECT_EQ(F::min_subnormal().bits(), e.min_subnormal_code);
  EXPECT_EQ(has_infinity_member<F>, e.infinity_code.has_value());
  EXPECT_EQ(has_nan_member<F>, e.nan_code.has_value());
  if constexpr (has_infinity_member<F>) {
    EXPECT_EQ(F::infinity().bits(), *e.infinity_code);
    EXPECT_EQ(double(F::infinity()), std::numeric_limits<double>::infinity());
  }
  if constexpr (has_nan_member<F>) {
    EXPECT_EQ(F::quiet_NaN().bits(), *e.nan_code);
    EXPECT_TRUE(double(F::quiet_NaN()) != double(F::quiet_NaN()));  // NaN
  }
}

TYPED_TEST(LimitsTest, NumericLimits) {
  using F = TypeParam;
  using L = std::numeric_limits<F>;
  constexpr ExpectedLimits e = expected_limits<F>;
  EXPECT_TRUE(L::is_specialized);
  EXPECT_EQ(L::digits, e.digits);
  EXPECT_EQ(L::radix, 2);
  EXPECT_EQ(L::is_signed, e.is_signed);
  EXPECT_EQ(L::has_infinity, e.infinity_code.has_value());
  EXPECT_EQ(L::has_quiet_NaN, e.nan_code.has_value());
  EXPECT_EQ(L::has_denorm == std::denorm_present, e.has_subnormals);
  EXPECT_EQ(L::min().bits(), e.min_normal_code);
  EXPECT_EQ(L::denorm_min().bits(), e.min_subnormal_code);
  EXPECT_EQ(L::max().bits(), e.max_code);
  EXPECT_EQ(L::lowest().bits(), e.lowest_code);
  EXPECT_EQ(double(L::epsilon()), e.epsilon);
  if constexpr (L::has_infinity) {
    EXPECT_EQ(L::infinity().bits(), *e.infinity_code);
  }
  if constexpr (L::has_quiet_NaN) {
    EXPECT_EQ(L::quiet_NaN().bits(), *e.nan_code);
  }
}

// numeric_limits of the IEEE types must agree with the compiler's own float and double.
TEST(Limits, AgreeWithBuiltinFloatAndDouble) {
  using LF = std::numeric_limits<float>;
  using LD = std::numeric_limits<double>;
  EXPECT_EQ(std::numeric_limits<FP32>::digits, LF::digits);
  EXPECT_EQ(std::numeric_limits<FP32>::min_exponent, LF::min_exponent);
  EXPECT_EQ(std::numeric_limits<FP32>::max_exponent, LF::max_exponent);
  EXPECT_EQ(std::numeric_limits<FP32>::digits10, LF::digits10);
  EXPECT_EQ(std::numeric_limits<FP32>::max_digits10, LF::max_digits10);
  EXPECT_EQ(std::numeric_limits<FP32>::min_exponent10, LF::min_exponent10);
  EXPECT_EQ(std::numeric_limits<FP32>::max_exponent10, LF::max_exponent10);
  EXPECT_EQ(float(std::numeric_limits<FP32>::denorm_min()), LF::denorm_min());
  EXPECT_EQ(std::numeric_limits<FP64>::digits, LD::digits);
  EXPECT_EQ(std::numeric_limits<FP64>::min_exponent, LD::min_exponent);
  EXPECT_EQ(std::numeric_limits<FP64>::max_exponent, LD::max_exponent);
  EXPECT_EQ(std::numeric_limits<FP64>::digits10, LD::digits10);
  EXPECT_EQ(std::numeric_limits<FP64>::max_digits10, LD::max_digits10);
  EXPECT_EQ(std::numeric_limits<FP64>::min_exponent10, LD::min_exponent10);
  EXPECT_EQ(std::numeric_limits<FP64>::max_exponent10, LD::max_exponent10);
  EXPECT_EQ(double(std::numeric_limits<FP64>::max()), LD::max());
}

// The contract's storage types: the smallest unsigned type holding sign + E + M bits.
static_assert(std::is_same_v<FP32::storage_type, std::uint32_t>);
static_assert(std::is_same_v<BF16::storage_type, std::uint16_t>);
static_assert(std::is_same_v<FP16::storage_type, std::uint16_t>);
static_assert(std::is_same_v<E4M3::storage_type, std::uint8_t>);
static_assert(std::is_same_v<E8M0::storage_type, std::uint8_t>);  // 8 bits: no sign bit
static_assert(std::is_same_v<E2M1::storage_type, std::uint8_t>);
static_assert(std::is_same_v<TF32::storage_type, std::uint32_t>);  // 19 bits
static_assert(std::is_same_v<Float<11, 52>::storage_type, std::uint64_t>);
static_assert(sizeof(E4M3) == 1 && sizeof(BF16) == 2 && sizeof(FP32) == 4 && sizeof(FP64) == 8);

// The run-time view of the same fact, so the test list shows it was checked.
TEST(Limits, StorageTypes) {
  EXPECT_EQ(sizeof(FP32::storage_type), 4u);
  EXPECT_EQ(sizeof(BF16::storage_type), 2u);
  EXPECT_EQ(sizeof(FP16::storage_type), 2u);
  EXPECT_EQ(sizeof(E4M3::storage_type), 1u);
  EXPECT_EQ(sizeof(E8M0::storage_type), 1u);
  EXPECT_EQ(sizeof(E2M1::storage_type), 1u);
  EXPECT_EQ(sizeof(TF32::storage_type), 4u);
  EXPECT_EQ(sizeof(Float<11, 52>::storage_type), 8u);
  // Sub-byte formats sit in the low bits: from_bits drops what lies above them.
  EXPECT_EQ(E2M1::from_bits(0xF7).bits(), 0x7u);
  EXPECT_EQ(E3M2::from_bits(0xFF).bits(), 0x3Fu);
}

}  // namespace
}  // namespace softfloat
