// Packing rounded codes through a carrier format (code_packing.hpp).
#include "python/_src/code_packing.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "softfloat/named_formats.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::python {

namespace {

Format carrier(int width) {
  if (width == 4) return E2M1::format;
  if (width == 6) return E3M2::format;
  throw std::invalid_argument("packing is defined for 4- and 6-bit codes only, not " + std::to_string(width) +
                              "-bit ones");
}

// Values per step: a multiple of both group sizes (2 and 4 codes), small enough for
// the float buffer to stay in cache.
constexpr std::size_t kStep = 4096;

}  // namespace

std::size_t packed_bytes(int width, std::size_t n) { return simd::packed_size(carrier(width), n); }

void pack_codes(const std::uint8_t* codes, std::size_t n, int width, std::uint8_t* out, std::size_t out_bytes) {
  const Format format = carrier(width);
  const std::uint8_t mask = std::uint8_t((1u << width) - 1);
  if (out_bytes < simd::packed_size(format, n))
    throw std::invalid_argument("the packed buffer is too small");
  std::uint8_t low_bits[kStep];
  float values[kStep];
  for (std::size_t i = 0; i < n; i += kStep) {
    const std::size_t count = std::min(kStep, n - i);
    for (std::size_t j = 0; j < count; ++j) low_bits[j] = codes[i + j] & mask;
    simd::dequantize(low_bits, count, values, format);
    const std::size_t offset = simd::packed_size(format, i);  // i is a whole number of groups
    simd::quantize_packed(values, count, out + offset, out_bytes - offset, format);
  }
}

void unpack_codes(const std::uint8_t* packed, std::size_t in_bytes, std::size_t n, int width,
                  std::uint8_t* codes) {
  const Format format = carrier(width);
  if (in_bytes < simd::packed_size(format, n))
    throw std::invalid_argument("the packed buffer is too small");
  float values[kStep];
  for (std::size_t i = 0; i < n; i += kStep) {
    const std::size_t count = std::min(kStep, n - i);
    const std::size_t offset = simd::packed_size(format, i);
    simd::dequantize_packed(packed + offset, in_bytes - offset, count, values, format);
    simd::quantize(values, count, codes + i, format);
  }
}

}  // namespace softfloat::python
