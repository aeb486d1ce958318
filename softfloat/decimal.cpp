// Exact decimal and hexadecimal parsing, and shortest round-trip printing.
//
// Parsing: a decimal D * 10^k is turned into q * 2^s + remainder with exact big
// integer arithmetic, where q has 65 or 66 bits; q, s and (remainder != 0) are an
// ExactValue, which round_to_format() rounds once. Printing: for 1, 2, ... digits,
// the correctly rounded decimal of the exact value and its two neighbours in the
// last digit are parsed back; the first that gives the same code is the answer, so
// "shortest" is checked by the parser itself rather than assumed.
#include "softfloat/decimal.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "softfloat/escape.hpp"
#include "softfloat/portability.hpp"

namespace softfloat {
namespace {

// Unsigned big integer, little-endian 32-bit limbs, no leading zero limbs.
class BigInt {
 public:
  BigInt() = default;
  explicit BigInt(std::uint64_t v) {
    while (v != 0) {
      limbs_.push_back(std::uint32_t(v));
      v >>= 32;
    }
  }
  bool is_zero() const { return limbs_.empty(); }
  int bit_length() const {
    return limbs_.empty() ? 0 : int(limbs_.size() - 1) * 32 + std::bit_width(limbs_.back());
  }
  void multiply_add(std::uint32_t factor, std::uint32_t addend) {
    std::uint64_t carry = addend;
    for (auto& limb : limbs_) {
      const std::uint64_t product = std::uint64_t(limb) * factor + carry;
      limb = std::uint32_t(product);
      carry = product >> 32;
    }
    if (carry != 0) limbs_.push_back(std::uint32_t(carry));
    trim();
  }
  void multiply_by_power_of_ten(int exponent) {
    for (; exponent >= 9; exponent -= 9) multiply_add(1000000000u, 0);
    static constexpr std::uint32_t small_powers[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    if (exponent > 0) multiply_add(small_powers[exponent], 0);
  }
  BigInt shifted_left(int bits) const {
    BigInt result;
    if (is_zero()) return result;
    const int limbs = bits / 32, rest = bits % 32;
    result.limbs_.assign(limbs, 0);
    std::uint32_t carry = 0;
    for (auto limb : limbs_) {
      result.limbs_.push_back((limb << rest) | carry);
      carry = rest == 0 ? 0 : limb >> (32 - rest);
    }
    if (carry != 0) result.limbs_.push_back(carry);
    return result;
  }
  // Divides by `divisor` in place and returns the remainder.
  std::uint32_t divide_small(std::uint32_t divisor) {
    std::uint64_t remainder = 0;
    for (std::size_t i = limbs_.size(); i-- > 0;) {
      const std::uint64_t current = (remainder << 32) | limbs_[i];
      limbs_[i] = std::uint32_t(current / divisor);
      remainder = current % divisor;
    }
    trim();
    return std::uint32_t(remainder);
  }
  // The decimal digits, most significant first ("0" for zero).
  std::string to_decimal() const {
    if (is_zero()) return "0";
    BigInt rest = *this;
    std::string reversed;
    while (!rest.is_zero()) {
      std::uint32_t chunk = rest.divide_small(1000000000u);
      for (int i = 0; i < 9; ++i, chunk /= 10) reversed += char('0' + chunk % 10);
    }
    while (reversed.size() > 1 && reversed.back() == '0') reversed.pop_back();
    return std::string(reversed.rbegin(), reversed.rend());
  }
  friend int compare(const BigInt& a, const BigInt& b) {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() < b.limbs_.size() ? -1 : 1;
    for (std::size_t i = a.limbs_.size(); i-- > 0;)
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
    return 0;
  }
  void subtract(const BigInt& other) {  // requires *this >= other
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      std::int64_t difference = std::int64_t(limbs_[i]) - borrow - (i < other.limbs_.size() ? other.limbs_[i] : 0);
      borrow = difference < 0;
      limbs_[i] = std::uint32_t(difference + (borrow << 32));
    }
    trim();
  }
 private:
  void trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }
  std::vector<std::uint32_t> limbs_;
};

// value = numerator / denominator * 2^exponent, as an ExactValue (64-bit significand
// plus sticky). The quotient is made to have 65 or 66 bits by shifting whichever
// side is smaller, so the division is 66 steps of compare-and-subtract.
ExactValue exact_ratio(bool negative, const BigInt& numerator, const BigInt& denominator, int exponent) {
  const int shift = numerator.bit_length() - denominator.bit_length() - 65;
  BigInt remainder = shift < 0 ? numerator.shifted_left(-shift) : numerator;
  const BigInt divisor = shift > 0 ? denominator.shifted_left(shift) : denominator;
  std::uint64_t quotient_high = 0, quotient_low = 0;  // 67 bits at most
  for (int bit = 66; bit >= 0; --bit) {
    const BigInt step = divisor.shifted_left(bit);
    if (compare(remainder, step) >= 0) {
      remainder.subtract(step);
      if (bit >= 64) quotient_high |= std::uint64_t{1} << (bit - 64);
      else quotient_low |= std::uint64_t{1} << bit;
    }
  }
  // Keep the top 64 bits of the quotient; dropped bits join the remainder as sticky.
  const int high_width = std::bit_width(quotient_high);
  ExactValue value;
  value.kind = ValueClass::finite;
  value.negative = negative;
  value.significand = high_width == 0 ? quotient_low : (quotient_high << (64 - high_width)) | (quotient_low >> high_width);
  value.sticky = !remainder.is_zero() || (high_width > 0 && (quotient_low << (64 - high_width)) != 0);
  value.exponent = exponent + shift + high_width;
  return value;
}

[[noreturn]] void reject(std::string_view text, std::string_view why) {
  std::string message = "cannot parse '";
  message += escape_unprintable(text);
  message += "' as a number: ";
  message += why;
  throw std::invalid_argument(message);
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// A decimal or binary exponent after 'e' or 'p'; saturates far beyond any format.
long parse_exponent(std::string_view text, std::string_view whole) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) reject(whole, "the exponent has no digits");
  long value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') reject(whole, "unexpected character in the exponent");
    value = std::min(value * 10 + (c - '0'), 1L << 40);
  }
  return negative ? -value : value;
}

}  // namespace

ExactValue parse_exact(std::string_view original, int exponent_limit) {
  std::string lower(original);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  std::string_view text = lower;
  ExactValue value;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    value.negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text == "inf" || text == "infinity") {
    value.kind = ValueClass::infinite;
    return value;
  }
  if (text == "nan") {
    value.kind = ValueClass::nan;
    value.nan_payload = 0;
    return value;
  }
  const bool hex = text.size() > 2 && text.substr(0, 2) == "0x";
  if (hex) text.remove_prefix(2);
  const int base = hex ? 16 : 10;
  const char exponent_mark = hex ? 'p' : 'e';

  // Digits (with at most one point), then the exponent. Leading zeros are skipped;
  // the scale counts digits after the point.
  BigInt digits;
  long scale = 0;  // value = digits * base^-scale * (10 or 2)^exponent
  bool seen_digit = false, seen_point = false;
  std::size_t at = 0;
  for (; at < text.size() && text[at] != exponent_mark; ++at) {
    const char c = text[at];
    if (c == '.') {
      if (seen_point) reject(original, "more than one decimal point");
      seen_point = true;
      continue;
    }
    const int d = digit_value(c);
    if (d < 0 || d >= base) reject(original, "expected digits, a point, an exponent, inf or nan");
    seen_digit = true;
    if (!digits.is_zero() || d != 0) digits.multiply_add(std::uint32_t(base), std::uint32_t(d));
    if (seen_point) ++scale;
  }
  if (!seen_digit) reject(original, "no digits");
  long exponent = at < text.size() ? parse_exponent(text.substr(at + 1), original) : 0;
  if (digits.is_zero()) return value;  // +-0

  value.kind = ValueClass::finite;
  // Far beyond the limit a stand-in rounds the same way: 2^(limit + 64) overflows
  // every format within the limit, and a sticky 2^-(limit + 64) underflows in all
  // of them exactly as the true (nonzero, tiny) value does.
  auto stand_in = [&](bool huge) {
    value.significand = 1;
    value.exponent = huge ? exponent_limit + 64 : -exponent_limit - 64;
    value.sticky = !huge;
    return value;
  };
  if (hex) {  // digits * 16^-scale * 2^exponent: exact in binary already
    const long binary_exponent = exponent - 4 * scale;
    const long log2_magnitude = binary_exponent + digits.bit_length();
    if (log2_magnitude > exponent_limit + 64) return stand_in(true);
    if (log2_magnitude < -exponent_limit - 64) return stand_in(false);
    return exact_ratio(value.negative, digits, BigInt(1), int(binary_exponent));
  }
  // Decimal: digits * 10^k. log2 of the value lies within a few units of
  // (k + log10 digits) * log2(10), and log10 digits is about bit_length * log10(2).
  const long k = exponent - scale;
  const double approximate_log2 = (double(k) + digits.bit_length() * 0.30103) * 3.3219280948873622;
  if (approximate_log2 > exponent_limit + 64) return stand_in(true);
  if (approximate_log2 < -exponent_limit - 64) return stand_in(false);
  if (k >= 0) {
    digits.multiply_by_power_of_ten(int(k));
    return exact_ratio(value.negative, digits, BigInt(1), 0);
  }
  BigInt power(1);
  power.multiply_by_power_of_ten(int(-k));
  return exact_ratio(value.negative, digits, power, 0);
}

namespace {

// "d.ddde+XX" from to_chars(scientific) -> the digits and the decimal exponent.
struct Scientific {
  std::string digits;  // without the point
  int exponent10 = 0;  // of the first digit
};

Scientific to_scientific(long double value, int significant_digits) {
  char buffer[128];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific,
                                    significant_digits - 1);
  std::string_view text(buffer, result.ptr - buffer);
  const auto e = text.find('e');
  Scientific s;
  for (char c : text.substr(0, e))
    if (c != '.') s.digits += c;
  s.exponent10 = std::stoi(std::string(text.substr(e + 1)));
  return s;
}

// The next d-digit decimal up (+1 in the last digit) or down (-1).
Scientific step(Scientific s, int direction) {
  int i = int(s.digits.size()) - 1;
  if (direction > 0) {
    while (i >= 0 && s.digits[i] == '9') s.digits[i--] = '0';
    if (i < 0) {
      s.digits.insert(s.digits.begin(), '1');
      s.digits.pop_back();
      ++s.exponent10;
    } else {
      ++s.digits[i];
    }
  } else {
    while (i >= 0 && s.digits[i] == '0') s.digits[i--] = '9';
    if (i >= 0) --s.digits[i];
    if (s.digits[0] == '0' && s.digits.size() > 1) {  // 1000 -> 0999: one digit fewer at a lower exponent
      s.digits.erase(s.digits.begin());
      s.digits += '9';
      --s.exponent10;
    }
  }
  return s;
}

// Plain notation for decimal exponents in [-5, 16], scientific otherwise.
std::string render(bool negative, const Scientific& s) {
  std::string digits = s.digits;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int n = int(digits.size()), e = s.exponent10;
  std::string text = negative ? "-" : "";
  if (e >= -5 && e <= 16) {
    if (e < 0) {
      text += "0.";
      text.append(std::size_t(-e - 1), '0');
      text += digits;
    } else if (e + 1 >= n) {
      text += digits;
      text.append(std::size_t(e + 1 - n), '0');
    } else {
      text += digits.substr(0, e + 1);
      text += '.';
      text += digits.substr(e + 1);
    }
    return text;
  }
  text += digits.substr(0, 1);
  if (n > 1) (text += '.') += digits.substr(1);
  text += e < 0 ? "e-" : "e+";
  const int magnitude = e < 0 ? -e : e;
  if (magnitude < 10) text += '0';
  text += std::to_string(magnitude);
  return text;
}

std::string hexadecimal(const ExactValue& x) {
  char buffer[64];
  std::string text = x.negative ? "-0x" : "0x";
  auto result = std::to_chars(buffer, buffer + sizeof buffer, x.significand, 16);
  text.append(buffer, result.ptr);
  text += "p";
  text += std::to_string(x.exponent);
  return text;
}

// Beyond this binary exponent the exact decimal would take tens of thousands of
// digits (and quadratic time); exact_decimal() gives the exact hexadecimal instead.
// fp64 (2^-1074 .. 2^1024) and long double (2^-16445 .. 2^16384) stay well inside.
constexpr int exact_decimal_exponent_limit = 20000;

}  // namespace

std::string exact_decimal(const ExactValue& x) {
  switch (x.kind) {
    case ValueClass::nan: return x.negative ? "-nan" : "nan";
    case ValueClass::infinite: return x.negative ? "-inf" : "inf";
    case ValueClass::zero: return x.negative ? "-0" : "0";
    case ValueClass::finite: break;
  }
  if (x.sticky) throw std::invalid_argument("exact_decimal: the value is not exact (its sticky bit is set)");
  if (x.significand == 0) return x.negative ? "-0" : "0";
  if (x.exponent > exact_decimal_exponent_limit || x.exponent < -exact_decimal_exponent_limit) return hexadecimal(x);
  // significand * 2^exponent with exponent < 0 is significand * 5^-exponent / 10^-exponent:
  // an integer times a power of ten, so every binary fraction has a finite decimal.
  const int trailing_zeros = std::countr_zero(x.significand);
  BigInt digits(x.significand >> trailing_zeros);
  const int exponent = x.exponent + trailing_zeros;
  int exponent10 = 0;
  if (exponent >= 0) {
    digits = digits.shifted_left(exponent);
  } else {
    for (int fives = -exponent; fives > 0; fives -= 13) {
      static constexpr std::uint32_t powers_of_five[] = {1, 5, 25, 125, 625, 3125, 15625, 78125, 390625,
                                                         1953125, 9765625, 48828125, 244140625, 1220703125};
      digits.multiply_add(powers_of_five[std::min(fives, 13)], 0);
    }
    exponent10 = exponent;
  }
  Scientific s;
  s.digits = digits.to_decimal();
  s.exponent10 = exponent10 + int(s.digits.size()) - 1;
  return render(x.negative, s);
}

std::string exact_decimal(std::uint64_t code, const Format& format) { return exact_decimal(decode(code, format)); }

std::string shortest_decimal(std::uint64_t code, const Format& format) {
  const ExactValue x = decode(code, format);
  switch (x.kind) {
    case ValueClass::nan: return x.negative && format.specials == Specials::ieee ? "-nan" : "nan";
    case ValueClass::infinite: return x.negative ? "-inf" : "inf";
    case ValueClass::zero: return x.negative ? "-0" : "0";
    case ValueClass::finite: break;
  }
  // long double holds every value with a 64-bit significand from its smallest
  // subnormal up (softfloat/portability.hpp: x87 extended or binary128).
  const long lead = long(x.exponent) + std::bit_width(x.significand) - 1;
  if (x.exponent < detail::long_double_min_exponent || lead > detail::long_double_max_lead_exponent) return hexadecimal(x);
  const long double magnitude = std::ldexp(static_cast<long double>(x.significand), x.exponent);
  const int limit = exponent_limit(format);
  auto round_trips = [&](const Scientific& s) {
    std::string text = s.digits.substr(0, 1) + "." + s.digits.substr(1) + "e" + std::to_string(s.exponent10);
    ExactValue parsed = parse_exact(text, limit);
    parsed.negative = x.negative;
    return round_to_format(parsed, format) == code;
  };
  for (int digits = 1; digits <= 40; ++digits) {
    const Scientific nearest = to_scientific(magnitude, digits);
    if (round_trips(nearest)) return render(x.negative, nearest);
    // At a binade's lower edge the rounding interval is lopsided, so a d-digit
    // decimal may fit on the far side of the value while the nearest one does not.
    for (int direction : {+1, -1}) {
      const Scientific neighbour = step(nearest, direction);
      if (neighbour.digits.size() == std::size_t(digits) && round_trips(neighbour)) return render(x.negative, neighbour);
    }
  }
  return hexadecimal(x);  // unreachable: 40 digits always identify a <= 64-bit significand
}

}  // namespace softfloat
