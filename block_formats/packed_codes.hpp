// Codes of a little-endian bit stream of `width`-bit codes: bit j of code i is bit
// i * width + j of the stream, bit k of the stream is bit k % 8 of byte k / 8. This is the
// packed layout of softfloat::simd::quantize_packed and of MX's element arrays (E2M1:
// element 0 in the low nibble; E3M2 / E2M3: four in three bytes), written here from its
// definition rather than through the packing loops, for the scalar reference and for
// the code that lays blocks out again.
#pragma once

#include <cstddef>
#include <cstdint>

namespace softfloat::block_formats_detail {

inline std::uint32_t read_bits(const std::uint8_t* bytes, std::size_t i, int width) {
  std::uint32_t code = 0;
  for (int j = 0; j < width; ++j) {
    const std::size_t k = i * std::size_t(width) + std::size_t(j);
    code |= std::uint32_t((bytes[k / 8] >> (k % 8)) & 1u) << j;
  }
  return code;
}

// Sets code i's one bits; the caller starts from zeroed bytes.
inline void write_bits(std::uint8_t* bytes, std::size_t i, int width, std::uint32_t code) {
  for (int j = 0; j < width; ++j) {
    const std::size_t k = i * std::size_t(width) + std::size_t(j);
    if ((code >> j) & 1u) bytes[k / 8] = std::uint8_t(bytes[k / 8] | (1u << (k % 8)));
  }
}

}  // namespace softfloat::block_formats_detail
