// Packing codes that are already rounded into the library's dense 4- and 6-bit layout
// (softfloat/simd.hpp, quantize_packed), and unpacking them again, for any format of
// that width. The library packs only while it rounds from float, so these go through a
// carrier format of the same width in which every code is a distinct number (E2M1 for
// 4 bits, E3M2 for 6: no NaN, and +0 and -0 have their own codes): codes -> carrier
// values -> quantize_packed, which reproduces each code exactly, and back with
// dequantize_packed -> quantize. Both steps are exact, so the bytes are the library's own.
#pragma once

#include <cstddef>
#include <cstdint>

namespace softfloat::python {

// Each throws std::invalid_argument unless width is 4 or 6.
// Bytes for n codes: 4 bits ceil(n / 2), 6 bits ceil(6n / 8) (simd::packed_size).
std::size_t packed_bytes(int width, std::size_t n);
void pack_codes(const std::uint8_t* codes, std::size_t n, int width, std::uint8_t* out, std::size_t out_bytes);
void unpack_codes(const std::uint8_t* packed, std::size_t in_bytes, std::size_t n, int width,
                  std::uint8_t* codes);

}  // namespace softfloat::python
