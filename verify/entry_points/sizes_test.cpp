// Element counts near the top of std::size_t: the buffer-size functions return the exact
// byte and scale counts (checked in 128-bit arithmetic from their definitions), and the
// conversions refuse a count whose byte size std::size_t cannot hold, naming the function,
// before touching memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "softfloat/mx.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/nvfp4.hpp"
#include "softfloat/simd.hpp"
#include "verify/common/expect_invalid.hpp"

namespace softfloat {
namespace {

using verify::expect_invalid;
using Wide = unsigned __int128;

constexpr std::size_t kMost = std::numeric_limits<std::size_t>::max();

// ceil(n * bits / 8), computed where it cannot overflow.
std::size_t bytes_of(std::size_t n, int bits) { return std::size_t((Wide(n) * unsigned(bits) + 7) / 8); }
std::size_t ceil_div(std::size_t n, std::size_t d) { return std::size_t((Wide(n) + d - 1) / d); }

TEST(Sizes, PackedAndBlockCountsAreExactUpToSizeMax) {
  for (std::size_t n : {kMost, kMost - 1, kMost - 2, kMost - 3, kMost / 2, kMost / 3 * 2 + 1}) {
    SCOPED_TRACE(n);
    EXPECT_EQ(simd::packed_size(E2M1::format, n), bytes_of(n, 4));
    EXPECT_EQ(simd::packed_size(E2M3::format, n), bytes_of(n, 6));
    EXPECT_EQ(simd::packed_size(E3M2::format, n), bytes_of(n, 6));
    for (mx::Element element : mx::kAllElements)
      EXPECT_EQ(mx::element_bytes(element, n), bytes_of(n, mx::element_bits(element))) << mx::element_name(element);
    for (std::size_t block : {std::size_t{1}, std::size_t{32}, std::size_t{48}, kMost}) {
      mx::Options options;
      options.block_size = block;
      EXPECT_EQ(mx::scale_count(n, options), ceil_div(n, block)) << block;
    }
    EXPECT_EQ(nvfp4::element_bytes(n), bytes_of(n, 4));
    EXPECT_EQ(nvfp4::scale_count(n), ceil_div(n, 16));
  }
}

// n floats that no memory can hold: refused by the count, never by a crash. The pointers
// are real (one element each) so that only the size can be at fault.
TEST(Sizes, CountsBeyondTheAddressSpaceAreRefused) {
  float value = 1;
  std::uint8_t code8 = 0;
  std::uint32_t code32 = 0;
  const std::size_t too_many = kMost / sizeof(float) + 1;
  expect_invalid([&] { simd::quantize(&value, too_many, &code8, E4M3::format); },
                 "softfloat::simd::quantize: " + std::to_string(too_many));
  expect_invalid([&] { simd::quantize(&value, too_many, &code32, FP32::format); }, "more than std::size_t can address");
  expect_invalid([&] { simd::dequantize(&code32, too_many, &value, FP32::format); },
                 "softfloat::simd::dequantize: ");
  expect_invalid([&] { simd::round_trip(&value, too_many, &value, BF16::format); }, "softfloat::simd::round_trip: ");
  const double wide = 1;
  expect_invalid([&] { simd::quantize(&wide, kMost / sizeof(double) + 1, &code8, E4M3::format); },
                 "more than std::size_t can address");
  // The packed forms: the buffer check comes first (it cannot be large enough).
  expect_invalid([&] { simd::quantize_packed(&value, too_many, &code8, kMost, E2M1::format); },
                 "softfloat::simd::quantize_packed: ");
  expect_invalid([&] { mx::round_trip(&value, too_many, &value, mx::Element::fp8_e4m3); },
                 "softfloat::mx::round_trip: ");
}

}  // namespace
}  // namespace softfloat
