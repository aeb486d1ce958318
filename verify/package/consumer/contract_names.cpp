// Uses every name of the public contract that exists so far (the format type, its limits,
// numeric_limits, the named formats, Format, format_of, parse_format, Rounding and
// Overflow) the way outside code does, through the installed package only. A missing
// or renamed name fails the build; a wrong value fails the run. Expected values are
// worked out by hand in the comments, never taken from the library.
#include <softfloat/softfloat.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace sf = softfloat;

namespace {

int failures = 0;

void check(bool ok, const char* what, int line) {
  if (!ok) {
    ++failures;
    std::printf("contract_names.cpp:%d: check failed: %s\n", line, what);
  }
}
#define CHECK(...) check((__VA_ARGS__), #__VA_ARGS__, __LINE__)

// storage_type: the smallest of uint8/16/32/64 holding sign + E + M bits.
static_assert(std::is_same_v<sf::FP32::storage_type, std::uint32_t>);
static_assert(std::is_same_v<sf::TF32::storage_type, std::uint32_t>);  // 1 + 8 + 10 = 19 bits
static_assert(std::is_same_v<sf::BF16::storage_type, std::uint16_t>);
static_assert(std::is_same_v<sf::FP16::storage_type, std::uint16_t>);
static_assert(std::is_same_v<sf::E5M2::storage_type, std::uint8_t>);
static_assert(std::is_same_v<sf::E4M3::storage_type, std::uint8_t>);
static_assert(std::is_same_v<sf::E3M2::storage_type, std::uint8_t>);   // 6 bits in the low bits
static_assert(std::is_same_v<sf::E2M3::storage_type, std::uint8_t>);
static_assert(std::is_same_v<sf::E2M1::storage_type, std::uint8_t>);   // 4 bits
static_assert(std::is_same_v<sf::E8M0::storage_type, std::uint8_t>);   // unsigned: 8 + 0 bits
static_assert(std::is_same_v<sf::E4M3FNUZ::storage_type, std::uint8_t>);
static_assert(std::is_same_v<sf::E5M2FNUZ::storage_type, std::uint8_t>);
static_assert(std::is_same_v<sf::P3109<8, 4>::storage_type, std::uint8_t>);
static_assert(std::is_same_v<sf::Float<11, 52>::storage_type, std::uint64_t>);

// The template's documented parameters and defaults: Bias = 2^(E-1) - 1, HasInf = true.
static_assert(std::is_same_v<sf::FP32, sf::Float<8, 23>>);
static_assert(std::is_same_v<sf::FP32, sf::Float<8, 23, 127, true>>);
static_assert(std::is_same_v<sf::BF16, sf::Float<8, 7>>);
static_assert(std::is_same_v<sf::FP16, sf::Float<5, 10>>);
static_assert(std::is_same_v<sf::TF32, sf::Float<8, 10>>);
static_assert(std::is_same_v<sf::E5M2, sf::Float<5, 2>>);
static_assert(std::is_same_v<sf::E4M3, sf::Float<4, 3, 7, false>>);

// constexpr construction, from_bits and bits.
static_assert(sf::FP16::from_bits(0x3c00).bits() == 0x3c00);
static_assert(sf::FP16(1.0f).bits() == 0x3c00);   // 1.0 = 0b0'01111'0000000000
static_assert(sf::E4M3(448.0).bits() == 0x7e);    // 448 = 0b0'1111'110
static_assert(double(sf::FP16::max()) == 65504.0);

// A Format is constexpr and describes the type.
constexpr sf::Format e4m3_format = sf::format_of<sf::E4M3>();
static_assert(e4m3_format.exponent_bits == 4 && e4m3_format.mantissa_bits == 3 && e4m3_format.bias == 7);

// Every enumerator of the options.
constexpr sf::Rounding all_roundings[] = {
    sf::Rounding::nearest_even, sf::Rounding::nearest_away, sf::Rounding::nearest_zero,
    sf::Rounding::toward_zero,  sf::Rounding::away_from_zero, sf::Rounding::up,
    sf::Rounding::down,         sf::Rounding::odd,          sf::Rounding::stochastic,
    sf::Rounding::stochastic_equal};
constexpr sf::Overflow all_overflows[] = {sf::Overflow::standard, sf::Overflow::saturate};
static_assert(std::size(all_roundings) == 10 && std::size(all_overflows) == 2);

struct Limits {
  double max, min_normal, min_subnormal, epsilon;
};

// Limits and numeric_limits of one format against the worked values.
template <class F>
void check_limits(const char* spec, Limits expected) {
  using L = std::numeric_limits<F>;
  const bool is_signed = F::format.is_signed;
  std::printf("  %-10s max %-14g min normal %-12g min subnormal %-12g epsilon %g\n", spec, expected.max,
              expected.min_normal, expected.min_subnormal, expected.epsilon);
  CHECK(double(F::max()) == expected.max);
  CHECK(double(F::lowest()) == (is_signed ? -expected.max : expected.min_normal));
  CHECK(double(F::min_normal()) == expected.min_normal);
  CHECK(double(F::min_subnormal()) == expected.min_subnormal);
  CHECK(double(F::epsilon()) == expected.epsilon);
  CHECK(float(F::max()) == float(expected.max));
  if constexpr (F::format.has_nan()) CHECK(std::isnan(double(F::quiet_NaN())));
  if constexpr (requires { F::infinity(); }) CHECK(double(F::infinity()) == INFINITY);
  CHECK(L::is_specialized);
  CHECK(L::is_signed == is_signed);
  CHECK(L::digits == F::format.mantissa_bits + 1);
  CHECK(double(L::max()) == expected.max);
  CHECK(double(L::lowest()) == double(F::lowest()));
  CHECK(double(L::min()) == expected.min_normal);
  CHECK(double(L::denorm_min()) == expected.min_subnormal);
  CHECK(double(L::epsilon()) == expected.epsilon);
  CHECK(L::has_infinity == F::format.has_infinity());
  CHECK(L::has_quiet_NaN == F::format.has_nan());
  // The spec grammar names exactly this type.
  CHECK(sf::parse_format(spec) == sf::format_of<F>());
  CHECK(sf::format_name(sf::format_of<F>()) == spec);
}

// P3109 binary8pP: E = 8 - P, M = P - 1, bias 2^(7 - P); max is the all-ones exponent
// with mantissa all ones but the last, (2 - 2^(1-M)) * 2^(2^E - 1 - bias); with P = 1
// there is no mantissa and max is field 2^E - 2, i.e. 2^(2^E - 2 - bias).
template <int P>
void check_p3109() {
  constexpr int E = 8 - P, M = P - 1, bias = 1 << (7 - P);
  const double max = M == 0 ? std::ldexp(1.0, (1 << E) - 2 - bias)
                            : (2 - std::ldexp(1.0, 1 - M)) * std::ldexp(1.0, (1 << E) - 1 - bias);
  const double min_normal = std::ldexp(1.0, 1 - bias);
  const double min_subnormal = M == 0 ? min_normal : std::ldexp(1.0, 1 - bias - M);
  char spec[16];
  std::snprintf(spec, sizeof spec, "p3109_8p%d", P);
  check_limits<sf::P3109<8, P>>(spec, {max, min_normal, min_subnormal, std::ldexp(1.0, -M)});
  CHECK(sf::P3109<8, P>::quiet_NaN().bits() == 0x80);
  CHECK(sf::P3109<8, P>::infinity().bits() == 0x7f);
}

void check_all_limits() {
  std::printf("limits of the named formats (worked values):\n");
  check_limits<sf::FP32>("fp32", {0x1.fffffep127, 0x1p-126, 0x1p-149, 0x1p-23});
  check_limits<sf::BF16>("bf16", {0x1.fep127, 0x1p-126, 0x1p-133, 0x1p-7});       // (2 - 2^-7) * 2^127
  check_limits<sf::FP16>("fp16", {65504, 0x1p-14, 0x1p-24, 0x1p-10});             // (2 - 2^-10) * 2^15
  check_limits<sf::TF32>("tf32", {0x1.ffcp127, 0x1p-126, 0x1p-136, 0x1p-10});     // (2 - 2^-10) * 2^127
  check_limits<sf::E5M2>("e5m2", {57344, 0x1p-14, 0x1p-16, 0x1p-2});              // 1.75 * 2^15
  check_limits<sf::E4M3>("e4m3", {448, 0x1p-6, 0x1p-9, 0x1p-3});                  // 1.75 * 2^8
  check_limits<sf::E3M2>("e3m2", {28, 0x1p-2, 0x1p-4, 0x1p-2});                   // 1.75 * 2^4
  check_limits<sf::E2M3>("e2m3", {7.5, 1, 0x1p-3, 0x1p-3});                       // 1.875 * 2^2
  check_limits<sf::E2M1>("e2m1", {6, 1, 0.5, 0.5});                               // 1.5 * 2^2
  check_limits<sf::E8M0>("e8m0", {0x1p127, 0x1p-127, 0x1p-127, 1});               // 2^(254-127); no subnormals
  check_limits<sf::E4M3FNUZ>("e4m3fnuz", {240, 0x1p-7, 0x1p-10, 0x1p-3});         // 1.875 * 2^(15-8)
  check_limits<sf::E5M2FNUZ>("e5m2fnuz", {57344, 0x1p-15, 0x1p-17, 0x1p-2});      // 1.75 * 2^(31-16)
  check_p3109<1>();
  check_p3109<2>();
  check_p3109<3>();
  check_p3109<4>();
  check_p3109<5>();
  check_p3109<6>();
  check_p3109<7>();
  CHECK(sf::FP16::infinity().bits() == 0x7c00);
  CHECK(sf::E4M3::quiet_NaN().bits() == 0x7f);
  CHECK(sf::E4M3FNUZ::quiet_NaN().bits() == 0x80);
  CHECK(sf::E8M0::quiet_NaN().bits() == 0xff);
}

void check_conversions() {
  // Ties to even: 1 + 2^-11 is halfway between 1 (0x3c00) and 1 + 2^-10 (0x3c01).
  CHECK(sf::FP16(1.0f + 0x1p-11f).bits() == 0x3c00);
  // 1 + 3 * 2^-11 is halfway between 0x3c01 (odd) and 0x3c02 (even).
  CHECK(sf::FP16(1.0 + 3 * 0x1p-11).bits() == 0x3c02);
  // From double without passing through float: -431.99999999999994 (= -432 + 2^-44)
  // lies nearer to -416 (0xfd); through float it becomes -432, a tie that goes to -448.
  CHECK(sf::E4M3(-431.99999999999994).bits() == 0xfd);
  CHECK(sf::E4M3(static_cast<float>(-431.99999999999994)).bits() == 0xfe);
  // Subnormals: 2^-24 is fp16 code 1; 2^-25 is a tie with 0 and goes to even 0.
  CHECK(sf::FP16(0x1p-24f).bits() == 0x0001);
  CHECK(sf::FP16(0x1p-25).bits() == 0x0000);
  // Overflow: 65520 is the midpoint of 65504 and 2^16, ties to even -> 2^16 -> infinity.
  CHECK(sf::FP16(65520.0f).bits() == 0x7c00);
  CHECK(sf::E4M3(465.0f).bits() == 0x7f);   // beyond 464, the midpoint above 448: NaN
  CHECK(sf::E4M3(464.0f).bits() == 0x7e);   // the midpoint itself: even mantissa 110 = 448
  CHECK(sf::E2M1(100.0f).bits() == 0x7);    // neither infinity nor NaN: max, 0b0'11'1
  CHECK(sf::E5M2(INFINITY).bits() == 0x7c);
  CHECK(sf::E4M3(-INFINITY).bits() == 0xff);
  // NaN: fn keeps the sign, fnuz has one NaN, a format without NaN gives +0.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(sf::E4M3(-nan).bits() == 0xff);
  CHECK(sf::E4M3FNUZ(-nan).bits() == 0x80);
  CHECK(sf::E2M1(nan).bits() == 0x0);
  CHECK(sf::FP16(-nan).bits() == 0xfe00);   // sign kept, quiet bit set
  // No negative zero in fnuz: -0 -> +0.
  CHECK(sf::E4M3FNUZ(-0.0f).bits() == 0x00);
  // E8M0: code c is 2^(c - 127); 3 is halfway between 2 (0x80) and 4 (0x81): up.
  CHECK(sf::E8M0(3.0f).bits() == 0x81);
  CHECK(sf::E8M0(0.0f).bits() == 0x00);
  CHECK(sf::E8M0(-1.0f).bits() == 0xff);
  // Back to float and double: exact. bf16 0x3dcd = 205 * 2^-11; fp16 code 1 = 2^-24.
  CHECK(double(sf::BF16::from_bits(0x3dcd)) == 205 * 0x1p-11);
  CHECK(float(sf::FP16::from_bits(0x0001)) == 0x1p-24f);
  CHECK(double(sf::E2M1::from_bits(0xf)) == -6.0);   // 0b1'11'1
  // Custom formats through the template.
  using E3M4 = sf::Float<3, 4>;                        // IEEE-style, bias 3
  CHECK(double(E3M4::max()) == 15.5);                  // (2 - 2^-4) * 2^(6 - 3)
  using E4M3_ieee = sf::Float<4, 3>;                   // max (2 - 2^-3) * 2^(14 - 7) = 240
  CHECK(double(E4M3_ieee::max()) == 240.0);
  CHECK(sf::parse_format("e4m3:ieee") == sf::format_of<E4M3_ieee>());
}

void check_runtime_formats() {
  CHECK(sf::parse_format("E8M7") == sf::format_of<sf::BF16>());
  CHECK(sf::parse_format("e5m2:fnuz") == sf::format_of<sf::E5M2FNUZ>());
  CHECK(!(sf::parse_format("e4m3:ieee") == sf::format_of<sf::E4M3>()));
  bool threw = false;
  try {
    sf::parse_format("e4m3:nonsense");
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK(threw);
}

}  // namespace

int main() {
  check_all_limits();
  check_conversions();
  check_runtime_formats();
  if (failures != 0) {
    std::printf("contract_names: %d check(s) failed\n", failures);
    return 1;
  }
  std::printf("contract_names: every contract name compiled and every check passed\n");
  return 0;
}
