// Parsing and naming of format specs (grammar in format_spec.hpp).
#include "softfloat/format_spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>
#include <utility>
#include <vector>

#include "softfloat/escape.hpp"
#include "softfloat/named_formats.hpp"

namespace softfloat {
namespace {

struct NamedFormat {
  std::string_view name;
  Format format;
};

template <int P>
constexpr NamedFormat p3109_entry(std::string_view name) {
  return {name, format_of<P3109<8, P>>()};
}

// Order matters for format_name(): the first name of a format is its canonical one.
constexpr NamedFormat named_formats[] = {
    {"fp32", format_of<FP32>()},         {"fp64", format_of<FP64>()},
    {"bf16", format_of<BF16>()},         {"fp16", format_of<FP16>()},
    {"tf32", format_of<TF32>()},         {"e5m2", format_of<E5M2>()},
    {"e4m3", format_of<E4M3>()},         {"e3m2", format_of<E3M2>()},
    {"e2m3", format_of<E2M3>()},         {"e2m1", format_of<E2M1>()},
    {"e8m0", format_of<E8M0>()},         {"e4m3fnuz", format_of<E4M3FNUZ>()},
    {"e5m2fnuz", format_of<E5M2FNUZ>()}, p3109_entry<1>("p3109_8p1"),
    p3109_entry<2>("p3109_8p2"),         p3109_entry<3>("p3109_8p3"),
    p3109_entry<4>("p3109_8p4"),         p3109_entry<5>("p3109_8p5"),
    p3109_entry<6>("p3109_8p6"),         p3109_entry<7>("p3109_8p7"),
};

constexpr std::string_view accepted =
    "expected a named format (fp32 fp64 bf16 fp16 tf32 e5m2 e4m3 e3m2 e2m3 e2m1 e8m0 e4m3fnuz "
    "e5m2fnuz p3109_8p1..p3109_8p7) or eXmY with options :ieee :fn :finite :fnuz :unsigned :nozero :bias=N";

// `why` quotes parts of the spec through escape_unprintable() too.
[[noreturn]] void reject(std::string_view spec, std::string_view why) {
  // Built with += rather than a chain of +: g++ 12 warns falsely (-Wrestrict) on the chain.
  std::string message = "invalid format spec '";
  message += escape_unprintable(spec);
  message += "': ";
  message += why;
  throw std::invalid_argument(message);
}

bool parse_int(std::string_view text, int& value) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, value);
  return !text.empty() && error == std::errc() && ptr == end;
}

// "e<E>m<M>" -> (E, M); false if the text has another shape.
bool parse_widths(std::string_view text, int& e, int& m) {
  if (text.size() < 4 || text.front() != 'e') return false;
  const auto m_at = text.find('m');
  if (m_at == std::string_view::npos) return false;
  const auto e_digits = text.substr(1, m_at - 1), m_digits = text.substr(m_at + 1);
  // No leading zeros: "e04m03" must not slip past the named-format lookup of "e4m3".
  auto canonical = [](std::string_view digits) {
    return !digits.empty() && (digits.size() == 1 || digits.front() != '0') &&
           std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(c); });
  };
  return canonical(e_digits) && canonical(m_digits) && parse_int(e_digits, e) && parse_int(m_digits, m);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

}  // namespace

std::vector<std::string_view> named_format_specs() {
  std::vector<std::string_view> specs;
  for (const auto& named : named_formats) specs.push_back(named.name);
  return specs;
}

std::string_view specials_name(Specials specials) {
  switch (specials) {
    case Specials::ieee: return "ieee";
    case Specials::fn: return "fn";
    case Specials::finite: return "finite";
    case Specials::fnuz: return "fnuz";
    case Specials::p3109: return "p3109";
  }
  return "unknown";
}

Format parse_format(std::string_view spec) {
  std::string lower(spec);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const auto parts = split(lower, ':');
  const std::string_view head = parts.front();
  if (head.empty()) reject(spec, accepted);

  if (parts.size() == 1) {
    for (const auto& named : named_formats)
      if (named.name == head) return named.format;
  }
  int e = 0, m = 0;
  if (!parse_widths(head, e, m)) {
    for (const auto& named : named_formats)
      if (named.name == head) reject(spec, "the named format '" + std::string(head) + "' takes no options; "
                                           "write it as eXmY with options instead");
    reject(spec, "unknown format '" + escape_unprintable(head) + "'; " + std::string(accepted));
  }

  bool has_specials = false, has_bias = false, is_unsigned = false, no_zero = false;
  Specials specials = Specials::ieee;
  int bias = 0;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string_view option = parts[i];
    const std::pair<std::string_view, Specials> conventions[] = {
        {"ieee", Specials::ieee}, {"fn", Specials::fn}, {"finite", Specials::finite}, {"fnuz", Specials::fnuz}};
    const auto convention = std::find_if(std::begin(conventions), std::end(conventions),
                                         [&](const auto& c) { return c.first == option; });
    if (convention != std::end(conventions)) {
      if (has_specials) reject(spec, "more than one of :ieee :fn :finite :fnuz");
      has_specials = true;
      specials = convention->second;
    } else if (option == "unsigned") {
      if (is_unsigned) reject(spec, "':unsigned' given twice");
      is_unsigned = true;
    } else if (option == "nozero") {
      if (no_zero) reject(spec, "':nozero' given twice");
      no_zero = true;
    } else if (option.substr(0, 5) == "bias=") {
      if (has_bias) reject(spec, "':bias=' given twice");
      if (!parse_int(option.substr(5), bias)) reject(spec, "the bias must be an integer, as in :bias=15");
      has_bias = true;
    } else {
      reject(spec, "unknown option '" + escape_unprintable(option) + "'; options are :ieee :fn :finite :fnuz "
                   ":unsigned :nozero :bias=N");
    }
  }
  if (e < 1 || e > 11) reject(spec, describe(FormatProblem::exponent_bits_out_of_range));
  const int ieee_bias = (1 << (e - 1)) - 1;
  Format format{e, m, has_bias ? bias : ieee_bias + (specials == Specials::fnuz ? 1 : 0), specials, !is_unsigned, !no_zero};
  if (const auto problem = format.problem(); problem != FormatProblem::none) reject(spec, describe(problem));
  return format;
}

std::string format_name(const Format& format) {
  for (const auto& named : named_formats)
    if (named.format == format) return std::string(named.name);
  std::string name = "e";
  name += std::to_string(format.exponent_bits);
  name += 'm';
  name += std::to_string(format.mantissa_bits);
  // A bare "eXmY" may be a named format with other conventions (e4m3 is OCP), so an
  // IEEE-style format whose generic name collides says ":ieee" explicitly.
  const bool name_is_taken = std::any_of(std::begin(named_formats), std::end(named_formats),
                                         [&](const NamedFormat& named) { return named.name == name; });
  if (format.specials != Specials::ieee || name_is_taken) (name += ':') += specials_name(format.specials);
  if (!format.is_signed) name += ":unsigned";
  if (!format.has_zero) name += ":nozero";
  const int default_bias = (1 << (format.exponent_bits - 1)) - 1 + (format.specials == Specials::fnuz ? 1 : 0);
  if (format.bias != default_bias) (name += ":bias=") += std::to_string(format.bias);
  return name;
}

}  // namespace softfloat
