// OCP Microscaling (MX v1.0) block scaling: an array of floats stored as blocks of
// `block_size` elements (32 by default) that share one E8M0 scale 2^s each, so that
// x_i ~ element_i * 2^s. Elements are MXFP8 (E4M3, E5M2), MXFP6 (E3M2, E2M3), MXFP4
// (E2M1) or MXINT8 codes.
//
//   float x[32] = {1.0f, 2.0f, 3.0f, 7.0f, -0.5f};            // and 27 zeros
//   std::uint8_t elements[16], scale;
//   softfloat::mx::quantize(x, 32, elements, 16, &scale, 1, softfloat::mx::Element::fp4_e2m1);
//   // scale == 0x7F (2^0); element codes 0x2, 0x4, 0x5, 0x7 (7 clamps to 6), 0x9, 0, ...
//   // packed two a byte, element 0 in the low nibble: elements[0] == 0x42
//
// Quantize, per block (spec section 6.3, with microxcaling's behaviour where the
// specification leaves a choice):
//   s = floor(log2(max |x_i|)) - emax_elem      ScaleRule::floor, the specification's rule
//   s = ceil(log2(max |x_i| / max_elem))        ScaleRule::rceil, cuBLAS's and torchao's RCEIL:
//                                                the block max never clamps
//   s = ceil(log2(max |x_i|)) - emax_elem       ScaleRule::ceil, torchao's CEIL
//   s = floor(log2(RNA(max |x_i|))) - emax_elem ScaleRule::even, torchao's EVEN: the max first
//                                                rounded to M_elem + 1 significant bits, ties
//                                                away from zero (so a max just below a power
//                                                of two takes the next exponent)
//   s is clamped to E8M0's range [-127, 127]; scale code = s + 127.
//   element_i = round_to_format(x_i * 2^-s, element format, options.rounding, saturate): scaling
//   by 2^-s is exact, so each element is rounded once (by default ties to even,
//   microxcaling's round="even"; its default "nearest" rounds ties away from zero, our
//   nearest_away); magnitudes above the element's max clamp to +-max (E2M1: 7 -> 6), also in
//   E4M3 and E5M2 (no element NaN or infinity from finite input). Stochastic rounding draws
//   element i's bits as random_bits(seed, offset + i) of options.random, as the array
//   conversions do, whatever the block size and thread count.
// Special blocks:
//   - all zeros (+-0): scale code 0x00 (2^-127) and zero elements (the sign of -0 kept
//     where the element format has -0: E2M1 -0 is 0x8). microxcaling picks 2^-127 for the
//     float elements as well (its zero guard floor(log2(2^-126)) - emax clamps to -127); for
//     MXINT8 it picks 2^-126, which decodes to the same zeros, and we use 0x00 there too.
//   - a block holding a NaN or an infinity: scale code 0xFF (NaN), and every element code 0.
//     This is microxcaling's result: its max |x| is then NaN or infinity, log2 of it gives a
//     shared exponent above the scale's range or NaN, which becomes a NaN scale, and the
//     specification decodes every element of a NaN-scale block as NaN whatever its code.
//     An infinity is not kept: with one scale per block there is no code for it.
//   - a block whose values all lie far below 2^-127 * (smallest element): scale 2^-127
//     and elements that round to +-0 (x * 2^127 is below half the smallest element).
// MXINT8 (spec 5.4.1, microxcaling's int8): 8-bit two's complement with an implicit 2^-6, so
// the element value is i / 64; quantize rounds x * 2^-s * 64 to the nearest integer (ties
// to even) and clamps to [-127, 127] (symmetric, as microxcaling: -128 is never produced);
// dequantize reads -128 (0x80) as -2, its two's complement value. emax_elem = 0, max = 127/64.
//
// Dequantize: x_i = round_to_format(element_i * 2^s, binary32): exact unless the product
// leaves fp32's range (overflow gives +-infinity, tiny results round to nearest even in the
// float subnormal range). A NaN scale (0xFF) gives the quiet NaN 0x7FC00000 for every
// element of its block; an element NaN (E4M3 0x7F / 0xFF, E5M2 NaN codes) or infinity
// (E5M2) keeps its meaning as in softfloat::simd::dequantize.
//
// Layout: element codes one per byte for the 8-bit kinds; E2M1 two per byte (element 0
// in the low nibble) and E3M2 / E2M3 four in three bytes (a little-endian bit stream),
// as softfloat::simd::quantize_packed. The element array of n values takes
// element_bytes(kind, n) bytes; block b covers values [b * block_size, (b + 1) *
// block_size) and has scales[b]; the last block may be shorter. For the packed kinds the
// block size must keep every block on a byte boundary (a multiple of 2 for E2M1, of 4
// for E3M2 / E2M3). Bad arguments (null pointers with n > 0, buffers too short, block
// size 0 or not such a multiple, an unknown kind, element, scale and float buffers that
// overlap) throw std::invalid_argument naming the function.
//
// quantize / dequantize take the vectorised path (Highway, dispatched at run time; arrays
// of at least 2^16 values per thread use softfloat::set_num_threads threads);
// scalar_quantize / scalar_dequantize are the value-by-value definition through
// ExactValue and round_to_format(). Both give the same bits for every input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "softfloat/exact_value.hpp"
#include "softfloat/format.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat::mx {

// The element kinds of the specification's concrete formats (section 5.4, table 1).
enum class Element : std::uint8_t {
  fp8_e4m3,  // "mxfp8_e4m3": E4M3, max 448 = 1.75 * 2^8, emax_elem 8
  fp8_e5m2,  // "mxfp8_e5m2": E5M2, max 57344 = 1.75 * 2^15, emax_elem 15
  fp6_e3m2,  // "mxfp6_e3m2": E3M2, max 28 = 1.75 * 2^4, emax_elem 4
  fp6_e2m3,  // "mxfp6_e2m3": E2M3, max 7.5 = 1.875 * 2^2, emax_elem 2
  fp4_e2m1,  // "mxfp4_e2m1": E2M1, max 6 = 1.5 * 2^2, emax_elem 2
  int8,      // "mxint8": two's complement i / 64, max 127/64 = 1.984375 * 2^0, emax_elem 0
};

inline constexpr Element kAllElements[] = {Element::fp8_e4m3, Element::fp8_e5m2, Element::fp6_e3m2,
                                           Element::fp6_e2m3, Element::fp4_e2m1, Element::int8};

// "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8".
std::string_view element_name(Element element);
// The inverse of element_name, case-insensitive; anything else throws std::invalid_argument
// listing the accepted names.
Element parse_element(std::string_view name);

// Bits per element: 8, 8, 6, 6, 4, 8.
int element_bits(Element element);
// emax_elem of the specification: the exponent of the element's largest binade.
int element_max_exponent(Element element);
// The format on whose grid elements are rounded. For the float kinds the element codes
// are this format's codes. For int8 it is the grid k / 64, |k| <= 127, described as the
// sign-magnitude format Float<1, 6, 1, false, Specials::finite> (subnormals 0.ffffff * 2^0
// and the one normal binade 1.ffffff * 2^0 share the quantum 2^-6); its sign-magnitude
// codes are turned into two's complement for storage.
Format element_format(Element element);

// The rules by the names the field uses (torchao's ScaleCalculationMode). Before rceil
// and ceil were told apart, ScaleRule::ceil meant what is now rceil.
enum class ScaleRule : std::uint8_t {
  floor,  // s = floor(log2(max|x|)) - emax_elem (OCP MX v1.0, section 6.3)
  rceil,  // s = ceil(log2(max|x| / max_elem)): the smallest s with max|x| <= max_elem * 2^s
  ceil,   // s = ceil(log2(max|x|)) - emax_elem
  even,   // s = floor(log2(max|x| rounded to M_elem + 1 bits, ties away)) - emax_elem
};
std::string_view scale_rule_name(ScaleRule rule);
// "floor", "rceil", "ceil", "even"; std::invalid_argument naming the accepted ones.
ScaleRule parse_scale_rule(std::string_view name);

struct Options {
  std::size_t block_size = 32;
  ScaleRule rule = ScaleRule::floor;
  // The elements' rounding: nearest_even (the default), nearest_away, nearest_zero,
  // toward_zero or stochastic. (The directions that round a tiny nonzero value away
  // from zero are refused: a value far below the element grid would need its exact
  // product with 2^-s, which fp32 does not always hold.)
  Rounding rounding = Rounding::nearest_even;
  RandomStream random = {};  // stochastic rounding: element i uses random_bits(seed, offset + i)
};

// Bytes of the element array for n values (packed for the 4- and 6-bit kinds).
std::size_t element_bytes(Element element, std::size_t n);
// Scales for n values: ceil(n / block_size). Throws for block_size 0.
std::size_t scale_count(std::size_t n, const Options& options = {});

// The vectorised conversions. `element_bytes` and `scale_count` are the sizes of the
// buffers, which must hold at least element_bytes(element, n) and scale_count(n, options).
// Only those bytes are written.
void quantize(const float* in, std::size_t n, std::uint8_t* elements, std::size_t element_bytes,
              std::uint8_t* scales, std::size_t scale_count, Element element, const Options& options = {});
void dequantize(const std::uint8_t* elements, std::size_t element_bytes, const std::uint8_t* scales,
                std::size_t scale_count, std::size_t n, float* out, Element element, const Options& options = {});

// std::span forms: n is in.size() (quantize) or out.size() (dequantize).
void quantize(std::span<const float> in, std::span<std::uint8_t> elements, std::span<std::uint8_t> scales,
              Element element, const Options& options = {});
void dequantize(std::span<const std::uint8_t> elements, std::span<const std::uint8_t> scales, std::span<float> out,
                Element element, const Options& options = {});

// Fake quantization through the blocks: out[i] = the dequantized value of quantize's
// element i (bits identical to dequantize after quantize), in one pass over the memory;
// in == out is allowed.
void round_trip(const float* in, std::size_t n, float* out, Element element, const Options& options = {});

// The value-by-value definition (same arguments, same results, much slower).
void scalar_quantize(const float* in, std::size_t n, std::uint8_t* elements, std::size_t element_bytes,
                     std::uint8_t* scales, std::size_t scale_count, Element element, const Options& options = {});
void scalar_dequantize(const std::uint8_t* elements, std::size_t element_bytes, const std::uint8_t* scales,
                       std::size_t scale_count, std::size_t n, float* out, Element element,
                       const Options& options = {});
void scalar_round_trip(const float* in, std::size_t n, float* out, Element element, const Options& options = {});

// The E8M0 scale code of one block of n values (0xFF when it holds a NaN or an infinity).
std::uint8_t block_scale(const float* block, std::size_t n, Element element, ScaleRule rule = ScaleRule::floor);

namespace detail {

// The scale code for a block whose largest magnitude is `largest` (sign ignored): 0xFF
// for NaN or infinity, 0x00 for zero, else the rule's exponent clamped to [-127, 127]
// plus 127.
std::uint8_t scale_code(const ExactValue& largest, Element element, ScaleRule rule);

// Argument checks shared by both implementations; `function` names the caller in the
// message. Return nothing, throw std::invalid_argument.
void check_quantize_arguments(const char* function, const float* in, std::size_t n, const std::uint8_t* elements,
                              std::size_t element_bytes, const std::uint8_t* scales, std::size_t scale_count,
                              Element element, const Options& options);
void check_round_trip_arguments(const char* function, const float* in, std::size_t n, const float* out,
                                Element element, const Options& options);
void check_dequantize_arguments(const char* function, const std::uint8_t* elements, std::size_t element_bytes,
                                const std::uint8_t* scales, std::size_t scale_count, std::size_t n,
                                const float* out, Element element, const Options& options);

}  // namespace detail

}  // namespace softfloat::mx
