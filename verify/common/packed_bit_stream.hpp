// The densely packed layout of 4- and 6-bit codes, written here one bit at a time from
// its definition (not read from the library): bit j of code i is bit i * width + j of a
// little-endian bit stream, and bit k of the stream is bit k % 8 of byte k / 8 (E2M1:
// element 0 in the low nibble; E3M2 / E2M3: four codes in three bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace softfloat::test_support {

// Code i of `width` bits read from a packed stream.
inline std::uint32_t packed_code(const std::vector<std::uint8_t>& bytes, std::size_t i, int width) {
  std::uint32_t code = 0;
  for (int j = 0; j < width; ++j) {
    const std::size_t k = i * std::size_t(width) + std::size_t(j);
    code |= std::uint32_t((bytes.at(k / 8) >> (k % 8)) & 1u) << j;
  }
  return code;
}

// `codes` of `width` bits each, packed into a stream (unused bits of the last byte 0).
inline std::vector<std::uint8_t> pack_codes(const std::vector<std::uint32_t>& codes, int width) {
  std::vector<std::uint8_t> bytes((codes.size() * std::size_t(width) + 7) / 8, 0);
  for (std::size_t i = 0; i < codes.size(); ++i)
    for (int j = 0; j < width; ++j)
      if ((codes[i] >> j) & 1u) {
        const std::size_t k = i * std::size_t(width) + std::size_t(j);
        bytes[k / 8] = std::uint8_t(bytes[k / 8] | (1u << (k % 8)));
      }
  return bytes;
}

}  // namespace softfloat::test_support
