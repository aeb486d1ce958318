// No allocation on a small call's path: after the first call of each kind (which may
// fill the per-thread caches of conversion constants), 10^4 more calls of every
// conversion kind on 64 values ask operator new for nothing.
// The binary replaces the global operator new / delete with counting ones, so this
// test lives alone in it.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include "softfloat/mx.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/nvfp4.hpp"
#include "softfloat/simd.hpp"

namespace {
std::atomic<std::uint64_t> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace softfloat {
namespace {

// Every conversion kind of the public array API, stochastic rounding included.
void every_kind_of_conversion(std::size_t calls, std::vector<float>& in, std::vector<double>& doubles,
                              std::vector<float>& out, std::vector<std::uint8_t>& codes8,
                              std::vector<std::uint16_t>& codes16, std::vector<std::uint8_t>& elements,
                              std::vector<std::uint8_t>& scales) {
  const std::size_t n = in.size();
  for (std::size_t call = 0; call < calls; ++call) {
    const RandomStream random{call, 0};
    for (const Format& format : {FP16::format, BF16::format}) {
      simd::quantize(in.data(), n, codes16.data(), format);
      simd::quantize(doubles.data(), n, codes16.data(), format);
      simd::dequantize(codes16.data(), n, out.data(), format);
      simd::round_trip(in.data(), n, out.data(), format);
      simd::round_trip(in.data(), n, out.data(), format, Rounding::stochastic, Overflow::standard, random);
    }
    for (const Format& format : {E4M3::format, E5M2::format}) {
      simd::quantize(in.data(), n, codes8.data(), format);
      simd::quantize(in.data(), n, codes8.data(), format, Rounding::stochastic, Overflow::saturate, random);
      simd::dequantize(codes8.data(), n, out.data(), format);
      simd::round_trip(in.data(), n, out.data(), format);
      simd::round_trip(in.data(), n, out.data(), format, Rounding::stochastic, Overflow::standard, random);
    }
    simd::quantize_packed(in.data(), n, codes8.data(), codes8.size(), E2M1::format);
    simd::dequantize_packed(codes8.data(), codes8.size(), n, out.data(), E2M1::format);
    mx::quantize(in.data(), n, elements.data(), elements.size(), scales.data(), scales.size(), mx::Element::fp8_e4m3);
    mx::dequantize(elements.data(), elements.size(), scales.data(), scales.size(), n, out.data(),
                   mx::Element::fp8_e4m3);
    mx::round_trip(in.data(), n, out.data(), mx::Element::fp4_e2m1);
    float amax = 0;
    nvfp4::quantize(in.data(), n, elements.data(), elements.size(), scales.data(), scales.size(), &amax);
    nvfp4::dequantize(elements.data(), elements.size(), scales.data(), scales.size(), amax, n, out.data());
  }
}

TEST(SmallCalls, AllocateNothingAfterTheFirst) {
  constexpr std::size_t n = 64;
  std::vector<float> in(n), out(n);
  std::vector<double> doubles(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = float(doubles[i] = (double(i) - 31.5) * 0.37);
  std::vector<std::uint8_t> codes8(n), elements(n), scales(n);
  std::vector<std::uint16_t> codes16(n);
  every_kind_of_conversion(1, in, doubles, out, codes8, codes16, elements, scales);
  const std::uint64_t after_first = allocations.load();
  every_kind_of_conversion(10'000, in, doubles, out, codes8, codes16, elements, scales);
  EXPECT_EQ(allocations.load() - after_first, 0u) << "allocations in 10^4 rounds of every conversion kind";
  // The counter counts: a vector's storage is one allocation.
  const std::uint64_t before = allocations.load();
  std::vector<int> one(3);
  EXPECT_EQ(allocations.load() - before, 1u);
}

}  // namespace
}  // namespace softfloat
