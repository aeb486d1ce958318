// Fuzz target: parse<F>() on arbitrary text, for E4M3, BF16, FP16, FP32, binary64 and
// a format with a custom bias, in every deterministic rounding mode. The first byte
// picks the format and the mode; the rest is the text.
//
// The grammar, restated from softfloat/decimal.hpp and docs/reference/cpp.md and checked here
// independently of the parser (case-insensitive):
//   number  := sign? (decimal | hex | "inf" | "infinity" | "nan")
//   decimal := mantissa(0-9) ("e" sign? [0-9]+)?
//   hex     := "0x" mantissa(0-9a-f) ("p" sign? [0-9]+)?
//   mantissa(D) := D* ("." D*)? with at least one digit D
// A text of the grammar must parse to MPFR's correctly rounded reading of it
// (mpfr_strtofr, whose own grammar is wider -- "@inf@", other bases, "nan(...)" -- so
// it is consulted only on texts of ours); every other text must be refused with
// std::invalid_argument.
#include <mpfr.h>

#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

#include "softfloat/decimal.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/verify/mpfr_reference.hpp"
#include "verify/fuzz/fuzz_input.hpp"

namespace {

using namespace softfloat;

enum class Reading { refused, finite_decimal, finite_hex, infinity, nan };

// The grammar above, on the lower-cased text.
Reading read_grammar(std::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  if (text == "inf" || text == "infinity") return Reading::infinity;
  if (text == "nan") return Reading::nan;
  const bool hex = text.size() > 2 && text.substr(0, 2) == "0x";
  if (hex) text.remove_prefix(2);
  auto is_digit = [hex](char c) { return std::isdigit(static_cast<unsigned char>(c)) || (hex && c >= 'a' && c <= 'f'); };
  std::size_t at = 0, digits = 0;
  while (at < text.size() && is_digit(text[at])) ++at, ++digits;
  if (at < text.size() && text[at] == '.') {
    ++at;
    while (at < text.size() && is_digit(text[at])) ++at, ++digits;
  }
  if (digits == 0) return Reading::refused;
  if (at < text.size()) {
    if (text[at] != (hex ? 'p' : 'e')) return Reading::refused;
    ++at;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    if (at == text.size()) return Reading::refused;
    for (; at < text.size(); ++at)
      if (!std::isdigit(static_cast<unsigned char>(text[at]))) return Reading::refused;
  }
  return hex ? Reading::finite_hex : Reading::finite_decimal;
}

[[noreturn]] void fail(std::string_view text, const Format& f, Rounding mode, const std::string& why) {
  fuzz::fail("parse<e%dm%d bias %d>(\"%.*s\", %s): %s", f.exponent_bits, f.mantissa_bits, f.bias, int(text.size()),
             text.data(), std::string(rounding_name(mode)).c_str(), why.c_str());
}

// The text with an exponent beyond +-10^8 replaced by +-10^8, which MPFR reads
// correctly (it misreads exponents beyond a long: ".3e-3250025000625000500006201"
// becomes infinity). The replacement rounds the same in every format: the text is
// shorter than 10^6 digits and no format reaches 2^+-(2^21).
std::string with_bounded_exponent(const std::string& text, Reading reading) {
  const std::size_t mark = text.find(reading == Reading::finite_hex ? 'p' : 'e');
  if (mark == std::string::npos) return text;
  std::size_t digits = mark + 1;
  const bool negative = digits < text.size() && text[digits] == '-';
  if (digits < text.size() && (text[digits] == '+' || text[digits] == '-')) ++digits;
  while (digits < text.size() && text[digits] == '0') ++digits;
  if (text.size() - digits <= 8) return text;
  return text.substr(0, mark + 1) + (negative ? "-" : "") + "100000000";
}

// MPFR's code for a text of the grammar.
std::uint64_t reference_code(const std::string& text, Reading reading, const Format& f, Rounding mode) {
  const bool negative = !text.empty() && text.front() == '-';
  const double sign = negative ? -1.0 : 1.0;
  switch (reading) {
    case Reading::nan:
      return verify::reference_round(std::copysign(std::numeric_limits<double>::quiet_NaN(), sign), f, mode,
                                     Overflow::standard);
    case Reading::infinity:
      return verify::reference_round(sign * std::numeric_limits<double>::infinity(), f, mode, Overflow::standard);
    default: break;
  }
  const int base = reading == Reading::finite_hex ? 16 : 10;
  const std::string mpfr_text = with_bounded_exponent(text, reading);
  return verify::reference_compute(
      [&](mpfr_ptr out, mpfr_rnd_t r) {
        char* end = nullptr;
        const int ternary = mpfr_strtofr(out, mpfr_text.c_str(), &end, base, r);
        if (end != mpfr_text.c_str() + mpfr_text.size()) fail(text, f, mode, "MPFR did not read the whole text");
        return ternary;
      },
      f, mode, Overflow::standard);
}

template <class F>
void check(const std::string& text, Rounding mode) {
  std::string lower = text;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  const Reading reading = read_grammar(lower);
  std::uint64_t got = 0;
  try {
    got = parse<F>(text, mode).bits();
  } catch (const std::invalid_argument& error) {
    if (reading != Reading::refused) fail(text, F::format, mode, std::string("refused: ") + error.what());
    return;
  }
  if (reading == Reading::refused) fail(text, F::format, mode, "accepted a text outside the grammar");
  const std::uint64_t expected = reference_code(lower, reading, F::format, mode);
  if (got != expected) {
    char codes[64];
    std::snprintf(codes, sizeof codes, "library 0x%llx, MPFR 0x%llx", static_cast<unsigned long long>(got),
                  static_cast<unsigned long long>(expected));
    fail(text, F::format, mode, codes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput input(data, size);
  const std::uint8_t choice = input.byte();
  const Rounding mode = fuzz::FuzzInput(&choice, 1).deterministic_rounding();
  const std::string text(input.rest_as_text());
  switch ((choice >> 4) % 6) {
    case 0: check<E4M3>(text, mode); break;
    case 1: check<BF16>(text, mode); break;
    case 2: check<FP16>(text, mode); break;
    case 3: check<FP32>(text, mode); break;
    case 4: check<FP64>(text, mode); break;
    case 5: check<Float<6, 5, 40>>(text, mode); break;  // a custom bias: 2^-39 .. about 2^24
  }
  return 0;
}
