// round_trip is quantize followed by dequantize, bit for bit, on all 2^32 floats (every
// NaN payload, infinity, zero and subnormal) for the 8-bit float formats, on every
// Highway target this CPU supports: the fused loop of each target (which never stores
// a code) against that target's quantize, decoded by dequantize (itself checked on every
// code and target in array_conversion_test). Nearest even with the standard overflow
// rule on every target, and toward zero with saturation (the general path and the other
// branch of the overflow select) on the best one (the others take it on the 2^24-float
// stride of array_conversion_test): about 45 s a format on two cores. The floats are cut
// into chunks of 2^20 shared between two threads.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "simd/array_paths.hpp"
#include "softfloat/softfloat.hpp"

namespace softfloat {
namespace {

constexpr std::uint64_t kFloats = std::uint64_t{1} << 32;
constexpr std::size_t kChunk = std::size_t{1} << 20;

// Mismatches of `target`'s round trip over chunks first, first + step, ... (at most 4 listed).
std::uint64_t sweep_chunks(std::int64_t target, const Format& f, Rounding mode, Overflow policy, std::uint64_t first,
                           std::uint64_t step, std::string& listed) {
  std::vector<float> in(kChunk), fused(kChunk), decoded(kChunk);
  std::vector<std::uint8_t> codes(kChunk);
  std::uint64_t mismatches = 0;
  for (std::uint64_t begin = first * kChunk; begin < kFloats; begin += step * kChunk) {
    for (std::size_t i = 0; i < kChunk; ++i) {
      const auto bits = std::uint32_t(begin + i);
      std::memcpy(&in[i], &bits, 4);
    }
    if (!simd::detail::round_trip_on_target(target, in.data(), kChunk, fused.data(), f, mode, policy) ||
        !simd::detail::quantize_on_target(target, in.data(), kChunk, codes.data(), f, mode, policy)) {
      listed += " target not callable;";
      return kFloats;
    }
    simd::detail::dequantize_generic(codes.data(), kChunk, decoded.data(), f);
    for (std::size_t i = 0; i < kChunk; ++i) {
      if (std::memcmp(&fused[i], &decoded[i], 4) == 0) continue;
      if (++mismatches <= 4) {
        std::uint32_t got, want;
        std::memcpy(&got, &fused[i], 4);
        std::memcpy(&want, &decoded[i], 4);
        char line[96];
        std::snprintf(line, sizeof line, " input 0x%08x: round_trip 0x%08x, quantize+dequantize 0x%08x;",
                      unsigned(begin + i), got, want);
        listed += line;
      }
    }
  }
  return mismatches;
}

void sweep_every_target(const char* name, const Format& f) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  const struct {
    const char* name;
    Rounding mode;
    Overflow policy;
  } settings[] = {{"nearest_even standard", Rounding::nearest_even, Overflow::standard},
                  {"toward_zero saturate", Rounding::toward_zero, Overflow::saturate}};
  for (const auto& setting : settings) {
    for (std::int64_t target : targets) {
      if (setting.mode != Rounding::nearest_even && target != targets.front()) break;  // the best target first
      const auto start = std::chrono::steady_clock::now();
      std::uint64_t counts[2] = {0, 0};
      std::string listed[2];
      std::thread other([&] { counts[1] = sweep_chunks(target, f, setting.mode, setting.policy, 1, 2, listed[1]); });
      counts[0] = sweep_chunks(target, f, setting.mode, setting.policy, 0, 2, listed[0]);
      other.join();
      const std::uint64_t mismatches = counts[0] + counts[1];
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("%s %s %s: 4294967296 floats, %llu mismatches (%.1f s)\n", name, setting.name,
                  hwy::TargetName(target), static_cast<unsigned long long>(mismatches), seconds);
      EXPECT_EQ(mismatches, 0u) << name << " " << setting.name << " " << hwy::TargetName(target) << ":" << listed[0]
                                << listed[1];
    }
  }
  std::fflush(stdout);
}

TEST(ArrayRoundTripSweep, E4M3) { sweep_every_target("E4M3", E4M3::format); }
TEST(ArrayRoundTripSweep, E5M2) { sweep_every_target("E5M2", E5M2::format); }

}  // namespace
}  // namespace softfloat
