// The property round-to-odd exists for (Boldo and Melquiond): rounding x to odd into
// a format with two more significand bits and the target's exponent range, bias and
// conventions, then rounding that into the target in any deterministic direction,
// equals rounding x into the target directly. Targets: FP16 (through Float<5,12>),
// BF16 (through Float<8,9>), E4M3 (through the fn format E4M5 with bias 7), and on the
// quick walk E5M2.
// Overflow
// to infinity under odd would break it at the top of the range (toward zero of the
// intermediate infinity stays infinite where the direct answer is max).
//
// Two binaries share this file: the quick one walks a stride of the float bit
// patterns through the scalar conversions (round_to_format, checked against MPFR
// elsewhere) with every deterministic direction on the second step and both overflow
// policies; the exhaustive one (SOFTFLOAT_ODD_PROPERTY_EVERY_FLOAT) takes every one of
// the 2^32 floats through the SIMD array conversions (bit-identical to the scalar ones,
// verify/simd), on two threads, with nearest_even, toward_zero, up and down under the
// standard policy.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "verify/common/rounding_modes.hpp"

#ifndef SOFTFLOAT_ODD_PROPERTY_EVERY_FLOAT
#define SOFTFLOAT_ODD_PROPERTY_EVERY_FLOAT 0
#endif

namespace softfloat {
namespace {

using test_support::kDeterministicRoundings;
using test_support::kOverflowPolicies;
using test_support::name_of;

// The target with two more significand bits and everything else kept.
Format two_bits_wider(const Format& f) {
  Format wider = f;
  wider.mantissa_bits += 2;
  return wider;
}

struct Mismatch {
  std::uint32_t input_bits;
  Rounding mode;
  Overflow policy;
  std::uint64_t direct, through_odd;
};

std::string describe(const Mismatch& m) {
  char text[160];
  std::snprintf(text, sizeof text, "float 0x%08X, %s, %s: direct 0x%llX, through odd 0x%llX", unsigned(m.input_bits),
                name_of(m.mode), name_of(m.policy), static_cast<unsigned long long>(m.direct),
                static_cast<unsigned long long>(m.through_odd));
  return text;
}

// Counts the inputs checked and keeps the first few mismatches.
struct Findings {
  std::mutex lock;
  std::uint64_t checked = 0, mismatches = 0;
  std::vector<Mismatch> first;
  void add(std::uint64_t count, const std::vector<Mismatch>& found) {
    std::lock_guard<std::mutex> guard(lock);
    checked += count;
    mismatches += found.size();
    for (const Mismatch& m : found)
      if (first.size() < 8) first.push_back(m);
  }
};

// Inputs [begin, begin + count) of the walk: bit patterns begin * stride + low bits
// that vary, so that every exponent and the low mantissa bits are visited.
void fill_inputs(std::uint64_t begin, std::size_t count, std::uint64_t stride, std::vector<float>& in) {
  in.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t index = begin + i;
    const std::uint32_t bits = std::uint32_t(index * stride + (stride > 1 ? (index * 2654435761u) % stride : 0));
    in[i] = std::bit_cast<float>(bits);
  }
}

void check_chunk_scalar(const Format& target, const std::vector<float>& in, std::vector<Mismatch>& found) {
  const Format wider = two_bits_wider(target);
  for (float x : in) {
    for (Overflow policy : kOverflowPolicies) {
      const ExactValue odd = decode(round_to_format(decode(x), wider, Rounding::odd, policy), wider);
      for (Rounding mode : kDeterministicRoundings) {
        const std::uint64_t direct = round_to_format(decode(x), target, mode, policy);
        const std::uint64_t through_odd = round_to_format(odd, target, mode, policy);
        if (direct != through_odd)
          found.push_back({std::bit_cast<std::uint32_t>(x), mode, policy, direct, through_odd});
      }
    }
  }
}

// The directions of the exhaustive walk (the four; the quick walk takes all).
constexpr Rounding kEveryFloatRoundings[] = {Rounding::nearest_even, Rounding::toward_zero, Rounding::up,
                                             Rounding::down};

// One worker's buffers, reused from chunk to chunk.
struct Workspace {
  std::vector<std::uint32_t> odd_codes, direct, through_odd;
  std::vector<float> odd_values;
};

void check_chunk_simd(const Format& target, const std::vector<float>& in, std::vector<Mismatch>& found,
                      Workspace& w) {
  const Format wider = two_bits_wider(target);
  const std::size_t n = in.size();
  w.odd_codes.resize(n), w.direct.resize(n), w.through_odd.resize(n), w.odd_values.resize(n);
  std::uint32_t *odd_codes = w.odd_codes.data(), *direct = w.direct.data(), *through_odd = w.through_odd.data();
  float* odd_values = w.odd_values.data();
  for (Overflow policy : {Overflow::standard}) {
    simd::quantize(in.data(), n, odd_codes, wider, Rounding::odd, policy);
    simd::dequantize(odd_codes, n, odd_values, wider);  // exact: the wider format fits fp32
    for (Rounding mode : kEveryFloatRoundings) {
      simd::quantize(in.data(), n, direct, target, mode, policy);
      simd::quantize(odd_values, n, through_odd, target, mode, policy);
      for (std::size_t i = 0; i < n; ++i)
        if (direct[i] != through_odd[i])
          found.push_back({std::bit_cast<std::uint32_t>(in[i]), mode, policy, direct[i], through_odd[i]});
    }
  }
}

void check_property(const Format& target) {
  constexpr std::uint64_t kAll = std::uint64_t{1} << 32;
  constexpr bool every_float = SOFTFLOAT_ODD_PROPERTY_EVERY_FLOAT != 0;
  // The quick walk: 2^18 inputs, every 2^14th bit pattern (low bits varying).
  const std::uint64_t stride = every_float ? 1 : std::uint64_t{1} << 14;
  const std::uint64_t inputs = kAll / stride;
  const std::size_t chunk = every_float ? std::size_t{1} << 15 : std::size_t{1} << 12;  // in L2
  Findings findings;
  std::atomic<std::uint64_t> next{0};
  auto worker = [&] {
    std::vector<float> in;
    std::vector<Mismatch> found;
    Workspace workspace;
    for (;;) {
      const std::uint64_t begin = next.fetch_add(chunk);
      if (begin >= inputs) break;
      fill_inputs(begin, std::size_t(std::min<std::uint64_t>(chunk, inputs - begin)), stride, in);
      found.clear();
      if (every_float) check_chunk_simd(target, in, found, workspace);
      else check_chunk_scalar(target, in, found);
      findings.add(in.size(), found);
    }
  };
  const unsigned threads = every_float ? 2 : 1;
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  EXPECT_EQ(findings.checked, inputs);
  for (const Mismatch& m : findings.first) ADD_FAILURE() << format_name(target) << ": " << describe(m);
  EXPECT_EQ(findings.mismatches, 0u) << format_name(target) << " through " << format_name(two_bits_wider(target));
}

TEST(RoundToOddProperty, Fp16ThroughFloat5_12) {
  ASSERT_EQ(two_bits_wider(FP16::format), (Float<5, 12>::format));
  check_property(FP16::format);
}
TEST(RoundToOddProperty, Bf16ThroughFloat8_9) {
  ASSERT_EQ(two_bits_wider(BF16::format), (Float<8, 9>::format));
  check_property(BF16::format);
}
TEST(RoundToOddProperty, E4m3ThroughFnE4m5) {
  ASSERT_EQ(two_bits_wider(E4M3::format), (Float<4, 5, 7, false>::format));
  check_property(E4M3::format);
}
// E5M2 on the quick walk only: the exhaustive one keeps to the three targets above.
#if !SOFTFLOAT_ODD_PROPERTY_EVERY_FLOAT
TEST(RoundToOddProperty, E5m2ThroughE5m4) { check_property(E5M2::format); }
#endif

}  // namespace
}  // namespace softfloat
