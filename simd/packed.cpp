// Densely packed arrays of 4- and 6-bit codes (softfloat/simd.hpp, quantize_packed and
// dequantize_packed). Each block of values goes through the byte-per-code vector path
// into a buffer on the stack and is then packed (or unpacked): 4-bit codes by a plain
// loop, which the compiler vectorises, 6-bit codes by the per-target byte shuffles of
// packing-inl.h:
//   4 bits: two codes a byte, element 0 in the low nibble: byte = c0 | c1 << 4
//   6 bits: a little-endian bit stream, four codes in three bytes:
//           v = c0 | c1 << 6 | c2 << 12 | c3 << 18, bytes v, v >> 8, v >> 16
// A partial last group is padded with zero codes, and only packed_size(n) bytes are
// written, so the unused high bits of the last byte are zero.
// Highway compiles this file once per target, re-including packing-inl.h each time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/packed.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "simd/packing-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "runtime/memory_checks.hpp"
#include "runtime/parallel.hpp"
#include "simd/prepared_conversions.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::simd {
namespace detail {
namespace {
HWY_EXPORT(PackCodes6);
HWY_EXPORT(UnpackCodes6);
void pack_codes6(const std::uint8_t* codes, std::size_t count, std::uint8_t* out) {
  HWY_DYNAMIC_DISPATCH(PackCodes6)(codes, count, out);
}
void unpack_codes6(const std::uint8_t* in, std::size_t count, std::uint8_t* codes) {
  HWY_DYNAMIC_DISPATCH(UnpackCodes6)(in, count, codes);
}
}  // namespace
}  // namespace detail

namespace {

// Values per stack block: a multiple of every group size (2, 4) and vector length.
constexpr std::size_t kBlock = 4096;

std::string format_text(const Format& format) {
  try {
    return format_name(format);
  } catch (...) {
    return "e" + std::to_string(format.exponent_bits) + "m" + std::to_string(format.mantissa_bits);
  }
}

// The code width, 4 or 6; anything else throws.
int packed_width(const Format& format, const char* function) {
  const softfloat::detail::Caller where{"softfloat::simd::", function};
  if (!format.valid())
    throw std::invalid_argument(where.text() + "invalid format: " + std::string(describe(format.problem())));
  const int bits = format.total_bits();
  if (bits != 4 && bits != 6)
    throw std::invalid_argument(where.text() + format_text(format) + " has " + std::to_string(bits) +
                                " bits; packing is defined for 4-bit (E2M1-like) and 6-bit (E2M3, E3M2-like) "
                                "formats only");
  return bits;
}

std::size_t bytes_for(int width, std::size_t n) {
  return width == 4 ? n / 2 + n % 2 : n / 4 * 3 + (n % 4 * 6 + 7) / 8;
}

void check_buffers(const void* values, const void* packed, std::size_t n, std::size_t have, std::size_t need,
                   const char* function, const char* which) {
  const softfloat::detail::Caller where{"softfloat::simd::", function};
  if (n > 0 && (values == nullptr || packed == nullptr))
    throw std::invalid_argument(where.text() + "null pointer with n = " + std::to_string(n));
  if (have < need)
    throw std::invalid_argument(where.text() + "the " + which + " buffer has " + std::to_string(have) +
                                " bytes; " + std::to_string(n) + " values need " + std::to_string(need) + " bytes");
  // Packed codes are smaller than floats, so no conversion can run in place here.
  softfloat::detail::check_disjoint(where, values, softfloat::detail::checked_bytes(where, n, sizeof(float), "values"),
                                    "float array", packed, need, "packed buffer");
}

// codes[0, count) -> packed bytes; count is a multiple of the group size (2 or 4).
void pack_groups(int width, const std::uint8_t* codes, std::size_t count, std::uint8_t* out) {
  if (width == 4) {
    for (std::size_t i = 0; i < count / 2; ++i)
      out[i] = std::uint8_t(codes[2 * i] | codes[2 * i + 1] << 4);
    return;
  }
  detail::pack_codes6(codes, count, out);
}

void unpack_groups(int width, const std::uint8_t* in, std::size_t count, std::uint8_t* codes) {
  if (width == 4) {
    for (std::size_t i = 0; i < count / 2; ++i) {
      codes[2 * i] = in[i] & 0x0F;
      codes[2 * i + 1] = in[i] >> 4;
    }
    return;
  }
  detail::unpack_codes6(in, count, codes);
}

// n values packed into out[0, bytes_for(width, n)) through `rounding`, a stack block
// of codes at a time.
void quantize_packed_block(const detail::PreparedQuantize& rounding, int width, const float* in, std::size_t n,
                           std::uint8_t* out, RandomStream random) {
  std::uint8_t codes[kBlock];
  for (std::size_t i = 0; i < n; i += kBlock) {
    const std::size_t count = std::min(kBlock, n - i);
    rounding(in + i, count, codes, RandomStream{random.seed, random.offset + i});
    const std::size_t group = width == 4 ? 2 : 4;
    const std::size_t whole = count / group * group;
    std::uint8_t* block_out = out + bytes_for(width, i);
    pack_groups(width, codes, whole, block_out);
    if (whole == count) continue;
    std::uint8_t last_codes[4] = {};
    std::uint8_t last_bytes[3] = {};
    std::memcpy(last_codes, codes + whole, count - whole);
    pack_groups(width, last_codes, group, last_bytes);
    std::memcpy(block_out + bytes_for(width, whole), last_bytes, bytes_for(width, count - whole));
  }
}

void dequantize_packed_block(const detail::PreparedDequantize& decoding, int width, const std::uint8_t* in,
                             std::size_t n, float* out) {
  std::uint8_t codes[kBlock];
  for (std::size_t i = 0; i < n; i += kBlock) {
    const std::size_t count = std::min(kBlock, n - i);
    const std::size_t group = width == 4 ? 2 : 4;
    const std::size_t whole = count / group * group;
    const std::uint8_t* block_in = in + bytes_for(width, i);
    unpack_groups(width, block_in, whole, codes);
    if (whole != count) {
      std::uint8_t last_bytes[3] = {};
      std::memcpy(last_bytes, block_in + bytes_for(width, whole), bytes_for(width, count - whole));
      std::uint8_t last_codes[4];
      unpack_groups(width, last_bytes, group, last_codes);
      std::memcpy(codes + whole, last_codes, count - whole);
    }
    decoding(codes, count, out + i);
  }
}

}  // namespace

std::size_t packed_size(const Format& format, std::size_t n) {
  return bytes_for(packed_width(format, "packed_size"), n);
}

void quantize_packed(const float* in, std::size_t n, std::uint8_t* out, std::size_t out_bytes, const Format& format,
                     Rounding mode, Overflow policy, RandomStream random) {
  const int width = packed_width(format, "quantize_packed");
  check_buffers(in, out, n, out_bytes, bytes_for(width, n), "quantize_packed", "output");
  if (n == 0) return;
  const detail::PreparedQuantize rounding(format, mode, policy);
  // Thread blocks start at multiples of kBlock, a multiple of both group sizes, so each
  // starts on a byte boundary.
  softfloat::detail::parallel_for(n, kBlock, [&](std::size_t begin, std::size_t end) {
    quantize_packed_block(rounding, width, in + begin, end - begin, out + bytes_for(width, begin),
                          RandomStream{random.seed, random.offset + begin});
  });
}

void dequantize_packed(const std::uint8_t* in, std::size_t in_bytes, std::size_t n, float* out,
                       const Format& format) {
  const int width = packed_width(format, "dequantize_packed");
  check_buffers(out, in, n, in_bytes, bytes_for(width, n), "dequantize_packed", "input");
  if (n == 0) return;
  const detail::PreparedDequantize decoding(format);
  softfloat::detail::parallel_for(n, kBlock, [&](std::size_t begin, std::size_t end) {
    dequantize_packed_block(decoding, width, in + bytes_for(width, begin), end - begin, out + begin);
  });
}

namespace detail {

void quantize_packed_prepared(const PreparedQuantize& rounding, int width, const float* in, std::size_t n,
                              std::uint8_t* out, RandomStream random) {
  quantize_packed_block(rounding, width, in, n, out, random);
}
void dequantize_packed_prepared(const PreparedDequantize& decoding, int width, const std::uint8_t* in, std::size_t n,
                                float* out) {
  dequantize_packed_block(decoding, width, in, n, out);
}

}  // namespace detail
}  // namespace softfloat::simd
#endif  // HWY_ONCE
