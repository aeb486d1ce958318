// Array conversions float <-> format codes, vectorised with Highway and dispatched at
// run time to the best instruction set of the CPU (SSSE3, SSE4, AVX2, AVX-512).
// Bit for bit the same as the scalar Float(float).bits() / float(Float::from_bits())
// for every input, on every target; any n, any alignment; nothing outside out[0, n)
// is written. Bad arguments throw std::invalid_argument with a message naming the
// function. In place (out == in) is allowed where input and output elements have one
// size (round_trip; float <-> uint32_t codes) and gives the out-of-place bits; any other
// overlap of the two arrays throws (runtime/memory_checks.hpp).
//
//   float x[4] = {1.0f, 0.3f, 500.0f, -0.0f};
//   std::uint8_t codes[4];
//   softfloat::simd::quantize<softfloat::E4M3>(x, 4, codes);   // 500 -> NaN (0x7F)
//   softfloat::simd::dequantize<softfloat::E4M3>(codes, 4, x);
// Arrays of at least 2^17 values use several threads when softfloat::set_num_threads
// (softfloat/threads.hpp) or SOFTFLOAT_NUM_THREADS asks for them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "softfloat/float.hpp"
#include "softfloat/format.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/rounding.hpp"
#include "softfloat/threads.hpp"

namespace softfloat::simd {

// The element types of the array conversions: float or double values in, codes in
// unsigned integers of 8, 16 or 32 bits out. The functions below are defined (and
// instantiated for each of these types) in the library.
template <class Code>
concept CodeType = std::is_same_v<Code, std::uint8_t> || std::is_same_v<Code, std::uint16_t> ||
                   std::is_same_v<Code, std::uint32_t>;
template <class Value>
concept ValueType = std::is_same_v<Value, float> || std::is_same_v<Value, double>;

// float -> codes of `format`, rounded with `mode` and `policy` exactly as
// round_to_format(decode(x), format, mode, policy, random_bits(random.seed,
// random.offset + i)) for element i. The output type must hold format.total_bits()
// bits. The stochastic modes draw their bits from `random` (softfloat/random_bits.hpp):
// the same seed and offset give the same codes on every target and thread count, and
// an array converted in pieces matches the whole when each piece's offset is its start.
// double -> codes rounds once straight from the double (never through float).
template <ValueType Value, CodeType Code>
void quantize(const Value* in, std::size_t n, Code* out, const Format& format,
              Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
              RandomStream random = {});

// codes -> float, as float(Float::from_bits(code)): exact wherever fp32 holds the
// value; bits above the format's width are ignored, as from_bits() does.
template <CodeType Code>
void dequantize(const Code* in, std::size_t n, float* out, const Format& format);

// quantize then dequantize: every float replaced by the nearest value of the format.
void round_trip(const float* in, std::size_t n, float* out, const Format& format,
                Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                RandomStream random = {});

// std::span forms: `out` must be at least as long as `in`.
template <CodeType Code>
void quantize(std::span<const float> in, std::span<Code> out, const Format& format,
              Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
              RandomStream random = {});
template <CodeType Code>
void dequantize(std::span<const Code> in, std::span<float> out, const Format& format);
void round_trip(std::span<const float> in, std::span<float> out, const Format& format,
                Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                RandomStream random = {});

namespace detail {
void check_span_lengths(std::size_t in, std::size_t out);  // throws when out is shorter
}

template <CodeType Code>
void quantize(std::span<const float> in, std::span<Code> out, const Format& format, Rounding mode,
              Overflow policy, RandomStream random) {
  detail::check_span_lengths(in.size(), out.size());
  quantize(in.data(), in.size(), out.data(), format, mode, policy, random);
}
template <CodeType Code>
void dequantize(std::span<const Code> in, std::span<float> out, const Format& format) {
  detail::check_span_lengths(in.size(), out.size());
  dequantize(in.data(), in.size(), out.data(), format);
}

// Densely packed 4- and 6-bit codes (E2M1-, E2M3- and E3M2-like formats; any other
// width throws std::invalid_argument):
//   4 bits: two codes a byte, element 0 in the LOW nibble. E2M1 {1.0, -0.5}: codes
//           0b0'01'0 = 0x2 and 0b1'00'1 = 0x9 -> the byte 0x92.
//   6 bits: a little-endian bit stream, four codes in three bytes: element 0 in bits
//           0..5 of byte 0, element 1 in bits 6..11 (the top two bits of byte 0 and
//           the low four of byte 1), element 2 in bits 12..17, element 3 in 18..23.
// The unused high bits of a last partial byte are written as zero; nothing beyond
// packed_size(format, n) bytes is written or read. The buffer sizes are in bytes, and
// a buffer too small for n values throws std::invalid_argument.
std::size_t packed_size(const Format& format, std::size_t n);  // 4 bits: ceil(n / 2); 6 bits: ceil(6n / 8)
void quantize_packed(const float* in, std::size_t n, std::uint8_t* out, std::size_t out_bytes, const Format& format,
                     Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                     RandomStream random = {});
void dequantize_packed(const std::uint8_t* in, std::size_t in_bytes, std::size_t n, float* out,
                       const Format& format);

template <class F>
  requires FloatType<F>
std::size_t packed_size(std::size_t n) {
  return packed_size(F::format, n);
}
template <class F>
  requires FloatType<F>
void quantize_packed(const float* in, std::size_t n, std::uint8_t* out, std::size_t out_bytes) {
  quantize_packed(in, n, out, out_bytes, F::format);
}
template <class F>
  requires FloatType<F>
void dequantize_packed(const std::uint8_t* in, std::size_t in_bytes, std::size_t n, float* out) {
  dequantize_packed(in, in_bytes, n, out, F::format);
}

// Typed forms for a Float type F (storage of at most 32 bits).
template <class F>
  requires FloatType<F>
void quantize(const float* in, std::size_t n, typename F::storage_type* out) {
  static_assert(sizeof(typename F::storage_type) <= 4, "softfloat::simd: formats of at most 32 bits");
  quantize(in, n, out, F::format);
}
template <class F>
  requires FloatType<F>
void quantize(const double* in, std::size_t n, typename F::storage_type* out) {
  static_assert(sizeof(typename F::storage_type) <= 4, "softfloat::simd: formats of at most 32 bits");
  quantize(in, n, out, F::format);
}
template <class F>
  requires FloatType<F>
void dequantize(const typename F::storage_type* in, std::size_t n, float* out) {
  static_assert(sizeof(typename F::storage_type) <= 4, "softfloat::simd: formats of at most 32 bits");
  dequantize(in, n, out, F::format);
}
template <class F>
  requires FloatType<F>
void round_trip(const float* in, std::size_t n, float* out) {
  round_trip(in, n, out, F::format);
}
// Typed forms with a rounding direction, an overflow policy and a random stream.
template <class F>
  requires FloatType<F>
void quantize(const float* in, std::size_t n, typename F::storage_type* out, Rounding mode,
              Overflow policy = Overflow::standard, RandomStream random = {}) {
  static_assert(sizeof(typename F::storage_type) <= 4, "softfloat::simd: formats of at most 32 bits");
  quantize(in, n, out, F::format, mode, policy, random);
}
template <class F>
  requires FloatType<F>
void round_trip(const float* in, std::size_t n, float* out, Rounding mode, Overflow policy = Overflow::standard,
                RandomStream random = {}) {
  round_trip(in, n, out, F::format, mode, policy, random);
}

}  // namespace softfloat::simd
