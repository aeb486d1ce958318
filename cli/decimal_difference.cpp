// Exact decimal subtraction on digit strings.
#include "cli/decimal_difference.hpp"

#include <algorithm>
#include <cctype>

namespace softfloat::cli {
namespace {

constexpr std::size_t max_digits = 1000000;

DecimalNumber normalized(DecimalNumber x) {
  const auto first = x.digits.find_first_not_of('0');
  if (first == std::string::npos) return DecimalNumber{};
  x.digits.erase(0, first);
  // Trailing zeros move into the exponent.
  const auto last = x.digits.find_last_not_of('0');
  x.exponent += long(x.digits.size() - 1 - last);
  x.digits.erase(last + 1);
  return x;
}

// |a| - |b| for aligned digit strings of equal length with |a| >= |b|.
std::string subtract_magnitudes(const std::string& a, const std::string& b) {
  std::string result(a.size(), '0');
  int borrow = 0;
  for (std::size_t i = a.size(); i-- > 0;) {
    int digit = (a[i] - '0') - (b[i] - '0') - borrow;
    borrow = digit < 0;
    result[i] = char('0' + digit + 10 * borrow);
  }
  return result;
}

std::string add_magnitudes(const std::string& a, const std::string& b) {
  std::string result(a.size() + 1, '0');
  int carry = 0;
  for (std::size_t i = a.size(); i-- > 0;) {
    const int digit = (a[i] - '0') + (b[i] - '0') + carry;
    carry = digit / 10;
    result[i + 1] = char('0' + digit % 10);
  }
  result[0] = char('0' + carry);
  return result;
}

}  // namespace

std::optional<DecimalNumber> read_decimal(std::string_view text) {
  DecimalNumber x;
  std::size_t at = 0;
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) x.negative = text[at++] == '-';
  std::string digits;
  long scale = 0;
  bool point = false, any_digit = false;
  for (; at < text.size() && text[at] != 'e' && text[at] != 'E'; ++at) {
    const char c = text[at];
    if (c == '.' && !point) {
      point = true;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
      any_digit = true;
      if (point) ++scale;
    } else {
      return std::nullopt;
    }
  }
  if (!any_digit) return std::nullopt;
  long exponent = 0;
  if (at < text.size()) {  // the exponent after 'e'
    ++at;
    bool negative = false;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) negative = text[at++] == '-';
    if (at == text.size()) return std::nullopt;
    for (; at < text.size(); ++at) {
      if (!std::isdigit(static_cast<unsigned char>(text[at]))) return std::nullopt;
      exponent = std::min(exponent * 10 + (text[at] - '0'), 1L << 40);
    }
    if (negative) exponent = -exponent;
  }
  x.digits = digits;
  x.exponent = exponent - scale;
  const bool negative = x.negative;
  x = normalized(x);
  x.negative = negative && !x.is_zero();
  return x;
}

std::optional<DecimalNumber> subtract(const DecimalNumber& a, const DecimalNumber& b) {
  DecimalNumber minus_b = b;
  minus_b.negative = !b.negative && !b.is_zero();
  if (a.is_zero()) return minus_b;
  if (b.is_zero()) return a;
  // Align both on the smaller exponent, padded to the same length.
  const long exponent = std::min(a.exponent, b.exponent);
  const long a_length = long(a.digits.size()) + (a.exponent - exponent);
  const long b_length = long(b.digits.size()) + (b.exponent - exponent);
  const long length = std::max(a_length, b_length);
  if (length > long(max_digits)) return std::nullopt;
  auto aligned = [&](const DecimalNumber& x, long own_length) {
    return std::string(std::size_t(length - own_length), '0') + x.digits +
           std::string(std::size_t(x.exponent - exponent), '0');
  };
  const std::string x = aligned(a, a_length), y = aligned(minus_b, b_length);
  DecimalNumber result;
  result.exponent = exponent;
  if (a.negative == minus_b.negative) {
    result.digits = add_magnitudes(x, y);
    result.negative = a.negative;
  } else if (x >= y) {  // equal lengths: string order is numeric order
    result.digits = subtract_magnitudes(x, y);
    result.negative = a.negative;
  } else {
    result.digits = subtract_magnitudes(y, x);
    result.negative = minus_b.negative;
  }
  const bool negative = result.negative;
  result = normalized(result);
  result.negative = negative && !result.is_zero();
  return result;
}

std::string to_text(const DecimalNumber& x) {
  if (x.is_zero()) return "0";
  const std::string& d = x.digits;
  const long n = long(d.size());
  const long lead = x.exponent + n - 1;  // decimal exponent of the first digit
  std::string text = x.negative ? "-" : "";
  if (lead >= -5 && lead <= 16) {
    if (lead < 0) {
      text += "0.";
      text.append(std::size_t(-lead - 1), '0');
      text += d;
    } else if (lead + 1 >= n) {
      text += d;
      text.append(std::size_t(lead + 1 - n), '0');
    } else {
      text += d.substr(0, std::size_t(lead + 1));
      text += '.';
      text += d.substr(std::size_t(lead + 1));
    }
    return text;
  }
  text += d.substr(0, 1);
  if (n > 1) (text += '.') += d.substr(1);
  text += lead < 0 ? "e-" : "e+";
  const long magnitude = lead < 0 ? -lead : lead;
  if (magnitude < 10) text += '0';
  text += std::to_string(magnitude);
  return text;
}

}  // namespace softfloat::cli
