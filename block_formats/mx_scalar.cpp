// The MX block scaling's definition, value by value (softfloat/mx.hpp): the element
// kinds, sizes and argument checks that both implementations share, the shared-exponent
// rule on ExactValue, and scalar_quantize / scalar_dequantize, which go through decode()
// and round_to_format() only. Scaling by 2^-s is an exponent adjustment of the
// ExactValue, so every element is rounded exactly once. The vectorised path
// (block_formats/mx.cpp) must give the same bits.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_formats/packed_codes.hpp"
#include "runtime/memory_checks.hpp"
#include "softfloat/escape.hpp"
#include "softfloat/exact_value.hpp"
#include "softfloat/mx.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/round_to_format.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::mx {

namespace {

// MXINT8's grid k / 64, |k| <= 127, as a sign-magnitude format: E = 1, M = 6, bias 1.
// Field 0 holds the subnormals 0.ffffff * 2^(1 - 1) = k / 64 for k < 64 and field 1 the
// normals 1.ffffff * 2^(1 - 1) = k / 64 for 64 <= k < 128: one quantum, 2^-6, throughout,
// so round_to_format() rounds to the nearest multiple of 1/64, ties to even, and its
// saturating overflow is the clamp to 127/64. No infinity or NaN: every code is a number.
constexpr Format kInt8Grid{1, 6, 1, Specials::finite};
static_assert(kInt8Grid.valid() && kInt8Grid.max_finite_magnitude() == 127 && kInt8Grid.max_exponent() == 0);

softfloat::detail::Caller caller(const char* function) { return {"softfloat::mx::", function}; }
std::string where(const char* function) { return caller(function).text(); }

bool known(Element element) { return std::uint8_t(element) <= std::uint8_t(Element::int8); }

void check_element(const char* function, Element element) {
  if (!known(element))
    throw std::invalid_argument(where(function) + "unknown element kind " + std::to_string(int(element)));
}

// Values per byte-aligned group of the packed kinds: 2 for 4 bits, 4 for 6 bits, else 1.
std::size_t packing_group(Element element) {
  switch (element_bits(element)) {
    case 4: return 2;
    case 6: return 4;
    default: return 1;
  }
}

void check_options(const char* function, Element element, const Options& options) {
  check_element(function, element);
  if (options.block_size == 0) throw std::invalid_argument(where(function) + "block size 0");
  const std::size_t group = packing_group(element);
  if (options.block_size % group != 0)
    throw std::invalid_argument(where(function) + std::string(element_name(element)) + " packs " +
                                std::to_string(group) + " elements into " + std::to_string(group == 2 ? 1 : 3) +
                                " byte(s), so the block size must be a multiple of " + std::to_string(group) +
                                " for every block to start on a byte boundary; it is " +
                                std::to_string(options.block_size));
  if (std::uint8_t(options.rule) > std::uint8_t(ScaleRule::even))
    throw std::invalid_argument(where(function) + "unknown scale rule " + std::to_string(int(options.rule)));
  switch (options.rounding) {
    case Rounding::nearest_even:
    case Rounding::nearest_away:
    case Rounding::nearest_zero:
    case Rounding::toward_zero:
    case Rounding::stochastic: break;
    default:
      throw std::invalid_argument(where(function) + "the elements cannot be rounded " +
                                  std::string(rounding_name(options.rounding)) +
                                  " (accepted: nearest_even, nearest_away, nearest_zero, toward_zero, stochastic)");
  }
}

// Element i's rounding: options.rounding, with random_bits(seed, offset + i) when stochastic.
std::uint64_t round_element(const ExactValue& value, const Format& grid, const Options& options, std::size_t i) {
  const std::uint32_t random = options.rounding == Rounding::stochastic
                                   ? random_bits(options.random, i)
                                   : 0;
  return round_to_format(value, grid, options.rounding, Overflow::saturate, random);
}

void check_sizes(const char* function, std::size_t n, std::size_t element_bytes_have, std::size_t scale_count_have,
                 Element element, const Options& options) {
  const std::size_t need_bytes = element_bytes(element, n);
  if (element_bytes_have < need_bytes)
    throw std::invalid_argument(where(function) + "the element buffer has " + std::to_string(element_bytes_have) +
                                " bytes; " + std::to_string(n) + " " + std::string(element_name(element)) +
                                " elements need " + std::to_string(need_bytes));
  const std::size_t need_scales = scale_count(n, options);
  if (scale_count_have < need_scales)
    throw std::invalid_argument(where(function) + "the scale buffer has " + std::to_string(scale_count_have) +
                                " entries; " + std::to_string(n) + " values in blocks of " +
                                std::to_string(options.block_size) + " need " + std::to_string(need_scales));
}

// The float array of n values, the element bytes and the scales touched: three separate
// buffers (codes are smaller than floats, so neither direction can run in place).
void check_separate(const char* function, const float* values, std::size_t n, const std::uint8_t* elements,
                    std::size_t element_bytes_used, const std::uint8_t* scales, std::size_t scales_used) {
  const softfloat::detail::Caller at = caller(function);
  const std::size_t value_bytes = softfloat::detail::checked_bytes(at, n, sizeof(float), "values");
  softfloat::detail::check_disjoint(at, values, value_bytes, "float array", elements, element_bytes_used, "elements");
  softfloat::detail::check_disjoint(at, values, value_bytes, "float array", scales, scales_used, "scales");
  softfloat::detail::check_disjoint(at, elements, element_bytes_used, "elements", scales, scales_used, "scales");
}

// Sign-magnitude code of kInt8Grid <-> MXINT8's two's complement byte. -0 becomes 0.
std::uint8_t twos_complement(std::uint64_t sign_magnitude) {
  const std::uint8_t magnitude = std::uint8_t(sign_magnitude & 0x7F);
  return (sign_magnitude & 0x80) != 0 ? std::uint8_t(0u - magnitude) : magnitude;
}

// The exact value of an element code. MXINT8: the integer i (-128 included) times 2^-6.
ExactValue decode_element(std::uint32_t code, Element element) {
  if (element != Element::int8) return decode(code, element_format(element));
  ExactValue value = decode(int(std::int8_t(std::uint8_t(code))));
  value.exponent -= 6;
  return value;
}

using block_formats_detail::read_bits;
using block_formats_detail::write_bits;

// The largest magnitude of a block as an ExactValue: NaN if any value is NaN, else
// infinity if any is infinite, else the largest |x| (float comparisons of magnitudes
// are exact).
ExactValue largest_magnitude(const float* block, std::size_t n) {
  bool infinite = false;
  float largest = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(block[i])) return decode(std::fabs(block[i]));
    if (std::isinf(block[i])) infinite = true;
    largest = std::max(largest, std::fabs(block[i]));
  }
  return decode(infinite ? INFINITY : largest);
}

}  // namespace

std::string_view element_name(Element element) {
  switch (element) {
    case Element::fp8_e4m3: return "mxfp8_e4m3";
    case Element::fp8_e5m2: return "mxfp8_e5m2";
    case Element::fp6_e3m2: return "mxfp6_e3m2";
    case Element::fp6_e2m3: return "mxfp6_e2m3";
    case Element::fp4_e2m1: return "mxfp4_e2m1";
    case Element::int8: return "mxint8";
  }
  throw std::invalid_argument("softfloat::mx::element_name: unknown element kind " + std::to_string(int(element)));
}

Element parse_element(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (Element element : kAllElements)
    if (lower == element_name(element)) return element;
  throw std::invalid_argument("softfloat::mx::parse_element: unknown element kind '" + escape_unprintable(name) +
                              "'; expected mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4_e2m1 or mxint8");
}

Format element_format(Element element) {
  switch (element) {
    case Element::fp8_e4m3: return E4M3::format;
    case Element::fp8_e5m2: return E5M2::format;
    case Element::fp6_e3m2: return E3M2::format;
    case Element::fp6_e2m3: return E2M3::format;
    case Element::fp4_e2m1: return E2M1::format;
    case Element::int8: return kInt8Grid;
  }
  throw std::invalid_argument("softfloat::mx::element_format: unknown element kind " + std::to_string(int(element)));
}

int element_bits(Element element) {
  return element == Element::int8 ? 8 : element_format(element).total_bits();
}

// The exponent of the binade holding max(): E4M3 448 = 1.75 * 2^8 -> 8, E5M2 57344 =
// 1.75 * 2^15 -> 15, E3M2 28 = 1.75 * 2^4 -> 4, E2M3 7.5 = 1.875 * 2^2 -> 2, E2M1 6 =
// 1.5 * 2^2 -> 2, MXINT8 127/64 = 1.984375 * 2^0 -> 0 (the specification's emax_elem).
int element_max_exponent(Element element) { return element_format(element).max_exponent(); }

std::size_t element_bytes(Element element, std::size_t n) {
  check_element("element_bytes", element);
  const int bits = element_bits(element);
  return bits == 8 ? n : simd::packed_size(element_format(element), n);
}

std::size_t scale_count(std::size_t n, const Options& options) {
  if (options.block_size == 0) throw std::invalid_argument("softfloat::mx::scale_count: block size 0");
  return n / options.block_size + (n % options.block_size != 0 ? 1 : 0);
}

namespace detail {

std::uint8_t scale_code(const ExactValue& largest, Element element, ScaleRule rule) {
  if (largest.kind == ValueClass::nan || largest.kind == ValueClass::infinite) return 0xFF;
  if (largest.kind == ValueClass::zero || largest.significand == 0) return 0x00;
  const Format grid = element_format(element);
  const int emax = grid.max_exponent();
  const std::int64_t lead = std::int64_t(largest.exponent) + std::bit_width(largest.significand) - 1;
  std::int64_t s = lead - emax;
  // The significand a of max|x| in [1, 2), left-aligned in 64 bits (a sticky tail lies
  // below its last bit).
  const std::uint64_t a = largest.significand << (64 - std::bit_width(largest.significand));
  const std::uint64_t one = std::uint64_t{1} << 63;
  switch (rule) {
    case ScaleRule::floor: break;
    case ScaleRule::rceil: {
      // max|x| / max_elem = (a / e) * 2^(lead - emax) with both significands a, e in [1,
      // 2): its log2 lies in (lead - emax - 1, lead - emax] when a <= e, and in (lead -
      // emax, lead - emax + 1) when a > e. A sticky tail makes an equal a larger.
      const ExactValue max_elem = decode(grid.max_finite_magnitude(), grid);
      const std::uint64_t e = max_elem.significand << (64 - std::bit_width(max_elem.significand));
      if (a > e || (a == e && largest.sticky)) ++s;
      break;
    }
    case ScaleRule::ceil:  // ceil(log2 max|x|) = lead + 1 unless max|x| is a power of two
      if (a > one || largest.sticky) ++s;
      break;
    case ScaleRule::even: {
      // a rounded to M + 1 significant bits, ties away from zero, reaches 2 exactly when
      // a >= 2 - 2^-(M + 1); that threshold has M + 2 bits, so the sticky tail cannot
      // change the comparison.
      const int m = grid.mantissa_bits;
      if (a >= std::uint64_t(0) - (std::uint64_t{1} << (62 - m))) ++s;
      break;
    }
  }
  s = std::clamp<std::int64_t>(s, -127, 127);
  return std::uint8_t(s + 127);
}

void check_quantize_arguments(const char* function, const float* in, std::size_t n, const std::uint8_t* elements,
                              std::size_t element_bytes_have, const std::uint8_t* scales,
                              std::size_t scale_count_have, Element element, const Options& options) {
  check_options(function, element, options);
  if (n > 0 && (in == nullptr || elements == nullptr || scales == nullptr))
    throw std::invalid_argument(where(function) + "null pointer with n = " + std::to_string(n));
  check_sizes(function, n, element_bytes_have, scale_count_have, element, options);
  check_separate(function, in, n, elements, element_bytes(element, n), scales, scale_count(n, options));
}

void check_round_trip_arguments(const char* function, const float* in, std::size_t n, const float* out,
                                Element element, const Options& options) {
  check_options(function, element, options);
  if (n > 0 && (in == nullptr || out == nullptr))
    throw std::invalid_argument(where(function) + "null pointer with n = " + std::to_string(n));
  const std::size_t bytes = softfloat::detail::checked_bytes(caller(function), n, sizeof(float), "values");
  softfloat::detail::check_in_place(caller(function), in, bytes, sizeof(float), out, bytes, sizeof(float));
}

void check_dequantize_arguments(const char* function, const std::uint8_t* elements, std::size_t element_bytes_have,
                                const std::uint8_t* scales, std::size_t scale_count_have, std::size_t n,
                                const float* out, Element element, const Options& options) {
  check_options(function, element, options);
  if (n > 0 && (elements == nullptr || scales == nullptr || out == nullptr))
    throw std::invalid_argument(where(function) + "null pointer with n = " + std::to_string(n));
  check_sizes(function, n, element_bytes_have, scale_count_have, element, options);
  check_separate(function, out, n, elements, element_bytes(element, n), scales, scale_count(n, options));
}

}  // namespace detail

std::uint8_t block_scale(const float* block, std::size_t n, Element element, ScaleRule rule) {
  check_element("block_scale", element);
  if (n > 0 && block == nullptr) throw std::invalid_argument("softfloat::mx::block_scale: null pointer with n > 0");
  return detail::scale_code(largest_magnitude(block, n), element, rule);
}

void scalar_quantize(const float* in, std::size_t n, std::uint8_t* elements, std::size_t element_bytes_have,
                     std::uint8_t* scales, std::size_t scale_count_have, Element element, const Options& options) {
  detail::check_quantize_arguments("scalar_quantize", in, n, elements, element_bytes_have, scales, scale_count_have,
                                   element, options);
  if (n == 0) return;
  const Format grid = element_format(element);
  const int width = element_bits(element);
  if (width != 8) std::memset(elements, 0, element_bytes(element, n));  // write_bits only sets bits
  const std::size_t block_size = options.block_size;
  for (std::size_t begin = 0; begin < n; begin += block_size) {
    const std::size_t end = std::min(n, begin + block_size);
    const std::uint8_t scale = detail::scale_code(largest_magnitude(in + begin, end - begin), element, options.rule);
    scales[begin / block_size] = scale;
    for (std::size_t i = begin; i < end; ++i) {
      std::uint64_t code = 0;  // every element of a NaN-scale block
      if (scale != 0xFF) {
        ExactValue value = decode(in[i]);
        value.exponent -= int(scale) - 127;  // times 2^-s, exactly
        code = round_element(value, grid, options, i);
      }
      if (element == Element::int8) code = twos_complement(code);
      if (width == 8) elements[i] = std::uint8_t(code);
      else write_bits(elements, i, width, std::uint32_t(code));
    }
  }
}

void scalar_dequantize(const std::uint8_t* elements, std::size_t element_bytes_have, const std::uint8_t* scales,
                       std::size_t scale_count_have, std::size_t n, float* out, Element element,
                       const Options& options) {
  detail::check_dequantize_arguments("scalar_dequantize", elements, element_bytes_have, scales, scale_count_have, n,
                                     out, element, options);
  const int width = element_bits(element);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t scale = scales[i / options.block_size];
    std::uint32_t bits = 0x7FC00000u;  // a NaN scale: NaN whatever the element
    if (scale != 0xFF) {
      const std::uint32_t code = width == 8 ? elements[i] : read_bits(elements, i, width);
      ExactValue value = decode_element(code, element);
      value.exponent += int(scale) - 127;  // times 2^s, exactly
      bits = std::uint32_t(round_to_format(value, binary32_format));
    }
    std::memcpy(out + i, &bits, sizeof(bits));
  }
}

void scalar_round_trip(const float* in, std::size_t n, float* out, Element element, const Options& options) {
  detail::check_round_trip_arguments("scalar_round_trip", in, n, out, element, options);
  const std::size_t bytes = element_bytes(element, n), scales = scale_count(n, options);
  std::vector<std::uint8_t> codes(bytes), scale_codes(scales);
  scalar_quantize(in, n, codes.data(), bytes, scale_codes.data(), scales, element, options);
  scalar_dequantize(codes.data(), bytes, scale_codes.data(), scales, n, out, element, options);
}

std::string_view scale_rule_name(ScaleRule rule) {
  switch (rule) {
    case ScaleRule::floor: return "floor";
    case ScaleRule::rceil: return "rceil";
    case ScaleRule::ceil: return "ceil";
    case ScaleRule::even: return "even";
  }
  return "unknown";
}

ScaleRule parse_scale_rule(std::string_view name) {
  for (ScaleRule rule : {ScaleRule::floor, ScaleRule::rceil, ScaleRule::ceil, ScaleRule::even})
    if (name == scale_rule_name(rule)) return rule;
  throw std::invalid_argument("unknown scale rule '" + escape_unprintable(name) +
                              "' (accepted: floor, rceil, ceil, even)");
}

}  // namespace softfloat::mx
