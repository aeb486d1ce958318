// format_tour: the main demonstration. Prints every named format with its limits and
// conventions, shows how the spec grammar reads generic formats, and walks through
// conversions whose results surprise people (lost increments, underflow, overflow to
// NaN, double rounding). Every conversion is checked against a value worked out by
// hand in the comment next to it; a mismatch is printed and the exit code is 1, so the
// demonstration doubles as a smoke test (CTest label "examples").
#include <softfloat/softfloat.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

using namespace softfloat;

// The exact value of `code` in `format` as a double (every format here fits in a double).
double value_of(std::uint64_t code, const Format& format) {
  return std::bit_cast<double>(round_to_format(decode(code, format), binary64_format));
}

// Eight significant digits: enough to recognise a limit (65504, 3.4028235e+38).
std::string decimal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.8g", value);
  return text;
}

// The smallest normal, smallest subnormal and epsilon are powers of two: 2^-126.
std::string power_of_two(double value) { return "2^" + std::to_string(std::ilogb(value)); }

// The exact decimal expansion of a double. glibc's printf prints exact digits at any
// precision, and 1100 places hold every double's fraction, so trimming the zeros
// leaves the exact value (0.1f is 0.100000001490116119384765625).
std::string exact_decimal(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  static char text[1500];
  std::snprintf(text, sizeof text, "%.1100f", value);
  std::string digits(text);
  digits.erase(digits.find_last_not_of('0') + 1);
  if (digits.back() == '.') digits.pop_back();
  return digits;
}

std::string hex(std::uint64_t code, int bits) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%0*llx", (bits + 3) / 4, static_cast<unsigned long long>(code));
  return text;
}

// Where the format keeps its special values, in words and codes.
std::string special_values(const Format& f) {
  const int bits = f.total_bits();
  std::string text;
  if (!f.is_signed) text += "unsigned, ";
  if (!f.has_zero) text += "no zero, ";
  switch (f.specials) {
    case Specials::ieee:
      text += "+-inf, NaN = exponent all ones, mantissa != 0";
      break;
    case Specials::fn:
      text += "no inf, NaN = " + hex(f.magnitude_mask(), bits);
      if (f.is_signed) text += " and " + hex(f.sign_bit() | f.magnitude_mask(), bits);
      break;
    case Specials::finite:
      text += "no inf, no NaN (NaN input -> +0)";
      break;
    case Specials::fnuz:
      text += "no inf, no -0, NaN = " + hex(f.nan_code(false), bits);
      break;
    case Specials::p3109:
      text += "+-inf = " + hex(f.infinity_magnitude(), bits) + "/" +
              hex(f.sign_bit() | f.infinity_magnitude(), bits) + ", no -0, NaN = " + hex(f.nan_code(false), bits);
      break;
  }
  return text;
}

void print_format_row(std::string_view spec) {
  const Format f = parse_format(spec);
  const std::uint64_t min_normal_code = f.has_zero ? std::uint64_t{1} << f.mantissa_bits : 0;
  const std::string min_subnormal = f.has_subnormals() ? power_of_two(value_of(1, f)) : "none";
  std::printf("%-10s %4d %3d %3d %5d  %-15s %-8s %-8s %-7s %s\n", format_name(f).c_str(), f.total_bits(),
              f.exponent_bits, f.mantissa_bits, f.bias, decimal(value_of(f.max_finite_magnitude(), f)).c_str(),
              power_of_two(value_of(min_normal_code, f)).c_str(), min_subnormal.c_str(),
              power_of_two(std::ldexp(1.0, -f.mantissa_bits)).c_str(), special_values(f).c_str());
}

void print_format_table() {
  std::printf("1. The named formats: parse_format(spec), limits decoded exactly\n\n");
  std::printf("%-10s %4s %3s %3s %5s  %-15s %-8s %-8s %-7s %s\n", "spec", "bits", "E", "M", "bias", "max",
              "min norm", "min sub", "epsilon", "special values");
  std::printf("%s\n", std::string(112, '-').c_str());
  for (const char* spec : {"fp64", "fp32", "tf32", "bf16", "fp16", "e5m2", "e4m3", "e3m2", "e2m3", "e2m1", "e8m0",
                           "e4m3fnuz", "e5m2fnuz", "p3109_8p1", "p3109_8p2", "p3109_8p3", "p3109_8p4", "p3109_8p5",
                           "p3109_8p6", "p3109_8p7"})
    print_format_row(spec);
  std::printf("\n");
}

void print_generic_specs() {
  std::printf("2. Generic specs: eXmY is IEEE-style unless an option says otherwise; format_name()\n"
              "   gives the shortest spec that reads back to the same format\n\n");
  std::printf("  %-18s %-14s %-15s %s\n", "spec", "format_name", "max", "special values");
  for (const char* spec : {"e4m3", "e4m3:ieee", "E8M7", "e5m2:fnuz", "e2m1:finite", "e3m4", "e4m3:fn:bias=8"}) {
    const Format f = parse_format(spec);
    std::printf("  %-18s %-14s %-15s %s\n", spec, format_name(f).c_str(),
                decimal(value_of(f.max_finite_magnitude(), f)).c_str(), special_values(f).c_str());
  }
  try {
    parse_format("e4m0");
  } catch (const std::invalid_argument& error) {
    std::printf("  %-18s %s\n", "e4m0", error.what());
  }
  std::printf("\n");
}

int mismatches = 0;

// One conversion: the stored value's exact decimal, its code, and the check against the
// value worked out by hand (NaN expected means "is NaN").
template <class F, class Arg>
void show(const char* input_text, Arg input, double expected, const char* why) {
  const F result(input);
  const double value = double(result);
  const bool ok = std::isnan(expected) ? std::isnan(value) : value == expected && !std::isnan(value);
  if (!ok) ++mismatches;
  std::printf("  %-22s -> %-5s %-34s %-10s %s\n", input_text, format_name(format_of<F>()).c_str(),
              exact_decimal(value).c_str(), hex(result.bits(), F::format.total_bits()).c_str(),
              ok ? why : ("MISMATCH, expected " + exact_decimal(expected)).c_str());
}

void print_conversions() {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::printf("3. Conversions: round to nearest, ties to even; the stored value in exact decimal\n\n");
  std::printf("  %-22s    %-5s %-34s %-10s %s\n", "input", "to", "stored value (exact)", "bits", "why");
  std::printf("%s\n", std::string(120, '-').c_str());

  // 0.1 in [2^-4, 2^-3): the step is 2^(-4-M). 0.1 * 2^27 = 13421772.8 -> 13421773 * 2^-27.
  show<FP32>("0.1", 0.1, 13421773 * 0x1p-27, "0.1 * 2^27 = 13421772.8 rounds up");
  // 0.1 * 2^11 = 204.8 -> 205 * 2^-11.
  show<BF16>("0.1", 0.1, 205 * 0x1p-11, "7 mantissa bits: 205 * 2^-11");
  // 0.1 * 2^14 = 1638.4 -> 1638 * 2^-14.
  show<FP16>("0.1", 0.1, 1638 * 0x1p-14, "10 mantissa bits: 1638 * 2^-14");
  // 0.1 * 2^7 = 12.8 -> 13 * 2^-7.
  show<E4M3>("0.1", 0.1, 13 * 0x1p-7, "3 mantissa bits: 13 * 2^-7");
  std::printf("\n");

  // Above 1 the bf16 step is 2^-7 = 0.0078125; 0.001 is less than half of it.
  show<BF16>("1 + 0.001", 1.001, 1.0, "the step above 1 is 2^-7: the increment is lost");
  show<FP16>("1 + 0.001", 1.001, 1 + 1 * 0x1p-10, "fp16 keeps it as 1 + 2^-10");
  std::printf("\n");

  // The smallest fp16 subnormal is 2^-24 ~ 5.96e-8; 1e-8 is below half of it.
  show<FP16>("1e-8", 1e-8, 0.0, "below half of 2^-24: underflows to 0");
  // bf16 has fp32's exponent range: 1e-8 in [2^-27, 2^-26), step 2^-34;
  // 1e-8 * 2^34 = 171.80 -> 172 * 2^-34.
  show<BF16>("1e-8", 1e-8, 172 * 0x1p-34, "fp32's range: 172 * 2^-34");
  std::printf("\n");

  // E4M3 max is 0b0'1111'110 = 1.75 * 2^8 = 448; the next step would be 480 (the NaN
  // code 0b0'1111'111), so 464 is the midpoint: ties to even keeps 448 (mantissa 110).
  show<E4M3>("464", 464.0f, 448.0, "midpoint 448|480: ties to even gives max");
  show<E4M3>("465", 465.0f, nan, "above the midpoint: overflow, no inf -> NaN");
  show<E5M2>("65536", 65536.0f, INFINITY, "E5M2 is IEEE-style: overflow -> inf");
  std::printf("\n");

  // -6.5 = -1.625 * 2^2: sign 1, exponent 2 + 127 = 129 = 0b10000001, mantissa .101.
  const BF16 minus_six_and_a_half(-6.5f);
  const bool bits_ok = minus_six_and_a_half.bit_string() == "1 10000001 1010000";
  if (!bits_ok) ++mismatches;
  std::printf("  bf16(-6.5) = %s (sign exponent mantissa) = %s  %s\n", minus_six_and_a_half.bit_string().c_str(),
              hex(minus_six_and_a_half.bits(), 16).c_str(),
              bits_ok ? "-1.625 * 2^(129 - 127)" : "MISMATCH, expected 1 10000001 1010000");
  std::printf("\n");

  // Double rounding. -431.99999999999994 is the double just above -432 (432 - 2^-44).
  // In E4M3 its neighbours are -416 (mantissa 101) and -448 (mantissa 110), with the
  // midpoint at -432. Rounded once, its magnitude lies below the midpoint: -416.
  // Through float it first becomes exactly -432, the midpoint, and ties to even then
  // gives -448. Float(double) never goes through float.
  constexpr double just_below_432 = -431.99999999999994;
  std::printf("  Double rounding: %.17g\n", just_below_432);
  show<E4M3>("directly from double", just_below_432, -416.0, "rounded once: nearer to -416");
  show<E4M3>("through float (-432)", static_cast<float>(just_below_432), -448.0,
             "-432 is a tie, ties to even: -448");
  std::printf("\n");
}

}  // namespace

int main() {
  std::printf("softfloat format tour\n=====================\n\n");
  print_format_table();
  print_generic_specs();
  print_conversions();
  if (mismatches != 0) {
    std::printf("%d conversion(s) differ from the worked values above\n", mismatches);
    return 1;
  }
  std::printf("All conversions match the values worked out by hand.\n");
  return 0;
}
