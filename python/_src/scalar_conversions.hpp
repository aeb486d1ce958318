// The value-by-value definition of the array conversions: each element decoded exactly
// and rounded once by round_to_format(), element i of a stochastic rounding with
// random_bits(seed, offset + i), as Float::from_exact(decode(x), ...) does. The module
// exposes it as softfloat._scalar_quantize / _scalar_dequantize so that tests compare the
// vectorised path with it bit for bit, and uses it itself where no array function
// applies: formats wider than 32 bits, and float64 results of formats whose values
// float32 cannot hold. A header of its own, apart from buffer_conversions.hpp, because
// formats.cpp (a format's values) and arrays.cpp (_scalar_quantize / _scalar_dequantize)
// call it directly, not through the buffers.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "python/_src/conversion_options.hpp"
#include "softfloat/exact_value.hpp"
#include "softfloat/round_to_format.hpp"

namespace softfloat::python {

template <class Input>
  requires(std::is_same_v<Input, float> || std::is_same_v<Input, double>)
std::uint64_t scalar_code(Input x, const ConversionOptions& options, std::size_t index) {
  const std::uint32_t random =
      is_stochastic(options.mode) ? random_bits(options.random.seed, options.random.offset + index) : 0;
  return round_to_format(decode(x), options.format, options.mode, options.policy, random);
}

// The value of `code` as float or double: exact where the type holds it, else rounded
// to nearest even (as float(Float::from_bits(code)) and double(...)).
template <class Output>
  requires(std::is_same_v<Output, float> || std::is_same_v<Output, double>)
Output scalar_value(std::uint64_t code, const Format& format) {
  const ExactValue value = decode(code & (format.sign_bit() | format.magnitude_mask()), format);
  if constexpr (std::is_same_v<Output, float>) {
    return std::bit_cast<float>(std::uint32_t(round_to_format(value, binary32_format)));
  } else {
    return std::bit_cast<double>(round_to_format(value, binary64_format));
  }
}

template <class Input, class Code>
void scalar_quantize(const Input* in, std::size_t n, Code* out, const ConversionOptions& options) {
  for (std::size_t i = 0; i < n; ++i) out[i] = Code(scalar_code(in[i], options, i));
}

template <class Code, class Output>
void scalar_dequantize(const Code* in, std::size_t n, Output* out, const Format& format) {
  for (std::size_t i = 0; i < n; ++i) out[i] = scalar_value<Output>(in[i], format);
}

}  // namespace softfloat::python
