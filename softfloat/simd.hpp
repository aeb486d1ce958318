// Array conversions float <-> format codes, vectorised with Highway and dispatched at
// run time to the best instruction set of the CPU (SSSE3, SSE4, AVX2, AVX-512).
// Bit for bit the same as the scalar Float(float).bits() / float(Float::from_bits())
// for every input, on every target; any n, any alignment; nothing outside out[0, n)
// is written. Bad arguments throw std::invalid_argument with a message.
//
//   float x[4] = {1.0f, 0.3f, 500.0f, -0.0f};
//   std::uint8_t codes[4];
//   softfloat::simd::quantize<softfloat::E4M3>(x, 4, codes);   // 500 -> NaN (0x7F)
//   softfloat::simd::dequantize<softfloat::E4M3>(codes, 4, x);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "softfloat/float.hpp"
#include "softfloat/format.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat::simd {

// float -> codes of `format`, rounded with `mode` and `policy` exactly as
// round_to_format(decode(x), format, mode, policy). The output type must hold
// format.total_bits() bits. Rounding::stochastic and stochastic_equal are not yet
// supported here (std::invalid_argument).
void quantize(const float* in, std::size_t n, std::uint8_t* out, const Format& format,
              Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard);
void quantize(const float* in, std::size_t n, std::uint16_t* out, const Format& format,
              Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard);
void quantize(const float* in, std::size_t n, std::uint32_t* out, const Format& format,
              Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard);
// double -> codes, rounded once straight from the double (never through float).
void quantize(const double* in, std::size_t n, std::uint8_t* out, const Format& format,
              Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard);
void quantize(const double* in, std::size_t n, std::uint16_t* out, const Format& format,
              Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard);
void quantize(const double* in, std::size_t n, std::uint32_t* out, const Format& format,
              Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard);

// codes -> float, as float(Float::from_bits(code)): exact wherever fp32 holds the
// value; bits above the format's width are ignored, as from_bits() does.
void dequantize(const std::uint8_t* in, std::size_t n, float* out, const Format& format);
void dequantize(const std::uint16_t* in, std::size_t n, float* out, const Format& format);
void dequantize(const std::uint32_t* in, std::size_t n, float* out, const Format& format);

// quantize then dequantize: every float replaced by the nearest value of the format.
void round_trip(const float* in, std::size_t n, float* out, const Format& format,
                Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard);

// std::span forms: `out` must be at least as long as `in`.
template <class Code>
  requires(std::is_same_v<Code, std::uint8_t> || std::is_same_v<Code, std::uint16_t> ||
           std::is_same_v<Code, std::uint32_t>)
void quantize(std::span<const float> in, std::span<Code> out, const Format& format,
              Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard);
template <class Code>
  requires(std::is_same_v<Code, std::uint8_t> || std::is_same_v<Code, std::uint16_t> ||
           std::is_same_v<Code, std::uint32_t>)
void dequantize(std::span<const Code> in, std::span<float> out, const Format& format);
void round_trip(std::span<const float> in, std::span<float> out, const Format& format,
                Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard);

namespace detail {
void check_span_lengths(std::size_t in, std::size_t out);  // throws when out is shorter
}

template <class Code>
  requires(std::is_same_v<Code, std::uint8_t> || std::is_same_v<Code, std::uint16_t> ||
           std::is_same_v<Code, std::uint32_t>)
void quantize(std::span<const float> in, std::span<Code> out, const Format& format, Rounding mode,
              Overflow policy) {
  detail::check_span_lengths(in.size(), out.size());
  quantize(in.data(), in.size(), out.data(), format, mode, policy);
}
template <class Code>
  requires(std::is_same_v<Code, std::uint8_t> || std::is_same_v<Code, std::uint16_t> ||
           std::is_same_v<Code, std::uint32_t>)
void dequantize(std::span<const Code> in, std::span<float> out, const Format& format) {
  detail::check_span_lengths(in.size(), out.size());
  dequantize(in.data(), in.size(), out.data(), format);
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

}  // namespace softfloat::simd
