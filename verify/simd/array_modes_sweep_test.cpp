// The array conversion in every deterministic rounding direction and both overflow
// policies, for E4M3 and BF16, on every Highway target compiled in and supported by
// this CPU, bit for bit against the scalar round_to_format() (checked against MPFR
// mode by mode in verify/conversion/rounding_modes_test.cpp). Inputs: every rounding
// boundary of the two formats (each code's float value, the midpoint to the next
// code, one float ulp either side of both, max against the would-be next code) with
// the special floats, then a stride of 2^27 of the 2^32 float bit patterns whose
// low four bits vary from input to input. The scalar result of a chunk is computed
// once per mode and policy and shared by every target; each target's generic
// algorithm is called through its own dispatch-table entry
// (simd::detail::quantize_on_target), so two threads can share the chunks, and the
// public simd::quantize (runtime dispatch and hardware shortcuts) is one more
// candidate. Minutes in Release on two cores, hence the "exhaustive" label.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "simd/conversion_test_hooks.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/common/rounding_modes.hpp"

namespace softfloat {
namespace {

using test_support::kDeterministicRoundings;
using test_support::kOverflowPolicies;
using test_support::name_of;

constexpr std::uint64_t kStrideInputs = std::uint64_t{1} << 27;
constexpr std::size_t kChunk = std::size_t{1} << 16;

float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }
std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

// The float value of a code (exact: both formats are subsets of fp32).
float value_of(std::uint64_t code, const Format& f) {
  return from_bits(std::uint32_t(round_to_format(decode(code, f), binary32_format)));
}

// Every code's value, the midpoint to the next code, one float ulp either side of
// both, and above max the would-be next code and the midpoint to it; then the
// special floats (zeros, subnormals, the normal boundary, FLT_MAX, infinities, NaNs
// with payloads). Both signs.
std::vector<float> boundary_inputs(const Format& f) {
  std::vector<std::uint32_t> bits;
  auto add_with_neighbours = [&](float x) {
    if (!std::isfinite(x)) return;
    const std::uint32_t u = bits_of(x) & 0x7FFFFFFFu;
    for (std::uint32_t v : {u, u + 1, u - 1}) {
      if (v > 0x7F800000u) continue;  // u - 1 of +0 wraps
      bits.push_back(v);
      bits.push_back(v | 0x80000000u);
    }
  };
  const std::uint64_t max = f.max_finite_magnitude();
  for (std::uint64_t code = 0; code <= max; ++code) {
    const double value = value_of(code, f);
    // Above max: the would-be next code, one ulp of max's binade further.
    const double next = code < max ? double(value_of(code + 1, f)) : 2 * value - double(value_of(code - 1, f));
    add_with_neighbours(float(value));
    add_with_neighbours(float((value + next) / 2));  // exact: at most M + 2 significant bits
    if (code == max) add_with_neighbours(float(next));
  }
  for (std::uint32_t u : {0x00000000u, 0x00000001u, 0x00000002u, 0x00400000u, 0x007FFFFFu, 0x00800000u,
                          0x00800001u, 0x7F7FFFFFu, 0x7F800000u, 0x7F800001u, 0x7FA00000u, 0x7FBFFFFFu,
                          0x7FC00000u, 0x7FC00001u, 0x7FE00000u, 0x7FFFFFFFu}) {
    bits.push_back(u);
    bits.push_back(u | 0x80000000u);
  }
  std::sort(bits.begin(), bits.end());
  bits.erase(std::unique(bits.begin(), bits.end()), bits.end());
  std::vector<float> inputs;
  for (std::uint32_t u : bits) inputs.push_back(from_bits(u));
  return inputs;
}

// Input i of the stride: the bit pattern i * 16 plus an offset 0..15 that changes
// from one input to the next (the top four bits of a multiplicative hash), so that
// the low mantissa bits, which decide ties and sticky bits, take every value.
std::uint32_t stride_input(std::uint64_t i) {
  return std::uint32_t(i * 16 + (std::uint32_t(i * 2654435761u) >> 28));
}

struct Combination {
  Rounding mode;
  Overflow policy;
};
std::vector<Combination> combinations() {
  std::vector<Combination> list;
  for (Rounding mode : kDeterministicRoundings)
    for (Overflow policy : kOverflowPolicies) list.push_back({mode, policy});
  return list;
}

// One candidate's results for one combination: how many inputs were compared and
// the first mismatches.
struct Tally {
  std::uint64_t compared = 0, mismatches = 0;
  std::string examples;
  void merge(const Tally& other) {
    compared += other.compared;
    mismatches += other.mismatches;
    if (examples.size() < 2000) examples += other.examples;
  }
};

// The candidates: the public simd::quantize (target 0 here), then each target's
// generic algorithm. Returns false if `target` cannot be called.
template <class Code>
bool convert(std::int64_t target, const float* in, std::size_t n, Code* out, const Format& f,
             const Combination& c) {
  if (target == 0) {
    simd::quantize(in, n, out, f, c.mode, c.policy);
    return true;
  }
  return simd::detail::quantize_on_target(target, in, n, out, f, c.mode, c.policy);
}

template <class Code>
void sweep_every_mode_and_target(const char* name, const Format& f) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  std::vector<std::int64_t> candidates{0};
  std::vector<std::string> candidate_names{"dispatched"};
  std::string target_list;
  for (std::int64_t target : targets) {
    // A compiled and supported target that cannot be called directly is a failure, not a skip.
    const float probe = 1.0f;
    Code probe_out = 0;
    ASSERT_TRUE(simd::detail::quantize_on_target(target, &probe, 1, &probe_out, f, Rounding::nearest_even,
                                                 Overflow::standard))
        << hwy::TargetName(target) << " is compiled in and supported but cannot be called";
    candidates.push_back(target);
    candidate_names.push_back(std::string(hwy::TargetName(target)) + " generic");
    target_list += std::string(hwy::TargetName(target)) + " ";
  }
  std::printf("%s: targets run: %s\n", name, target_list.c_str());
  EXPECT_EQ(std::size_t(std::popcount(std::uint64_t(hwy::SupportedTargets() & HWY_TARGETS))), targets.size())
      << "every target compiled in and supported by this CPU runs";

  const std::vector<float> boundaries = boundary_inputs(f);
  const std::vector<Combination> combos = combinations();
  // Work item 0 is the boundary list; item k > 0 is stride chunk k - 1.
  const std::uint64_t items = 1 + kStrideInputs / kChunk;
  std::atomic<std::uint64_t> next_item{0};
  std::mutex merge_lock;
  std::vector<Tally> totals(candidates.size() * combos.size());

  auto worker = [&] {
    std::vector<Tally> tallies(totals.size());
    std::vector<float> in;
    std::vector<ExactValue> exact;  // decoded once, rounded in every combination
    std::vector<Code> expected, got;
    for (std::uint64_t item = next_item++; item < items; item = next_item++) {
      if (item == 0) {
        in = boundaries;
      } else {
        in.resize(kChunk);
        for (std::size_t i = 0; i < kChunk; ++i) in[i] = from_bits(stride_input((item - 1) * kChunk + i));
      }
      const std::size_t n = in.size();
      exact.resize(n);
      for (std::size_t i = 0; i < n; ++i) exact[i] = decode(in[i]);
      expected.resize(n);
      got.resize(n);
      for (std::size_t k = 0; k < combos.size(); ++k) {
        const Combination& c = combos[k];
        for (std::size_t i = 0; i < n; ++i) expected[i] = Code(round_to_format(exact[i], f, c.mode, c.policy));
        for (std::size_t t = 0; t < candidates.size(); ++t) {
          Tally& tally = tallies[t * combos.size() + k];
          // Poison the output so that an element the candidate forgets to write shows up.
          std::fill(got.begin(), got.end(), Code(0xA5A5u));
          if (!convert(candidates[t], in.data(), n, got.data(), f, c)) {
            ++tally.mismatches;
            continue;
          }
          tally.compared += n;
          for (std::size_t i = 0; i < n; ++i) {
            if (got[i] == expected[i]) continue;
            if (++tally.mismatches <= 4) {
              char line[160];
              std::snprintf(line, sizeof line, "\n  input 0x%08x (%.9g): expected 0x%04x, got 0x%04x",
                            unsigned(bits_of(in[i])), double(in[i]), unsigned(expected[i]), unsigned(got[i]));
              tally.examples += line;
            }
          }
        }
      }
    }
    const std::lock_guard<std::mutex> lock(merge_lock);
    for (std::size_t i = 0; i < totals.size(); ++i) totals[i].merge(tallies[i]);
  };
  std::thread helper(worker);
  worker();
  helper.join();

  const std::uint64_t inputs_per_combination = boundaries.size() + kStrideInputs;
  for (std::size_t t = 0; t < candidates.size(); ++t) {
    for (std::size_t k = 0; k < combos.size(); ++k) {
      const Tally& tally = totals[t * combos.size() + k];
      const std::string what = std::string(name) + " " + name_of(combos[k].mode) + " " + name_of(combos[k].policy) +
                               " " + candidate_names[t];
      EXPECT_EQ(tally.mismatches, 0u) << what << ": " << tally.mismatches << " mismatches" << tally.examples;
      EXPECT_EQ(tally.compared, inputs_per_combination) << what;
    }
  }
  std::printf("%s: %zu candidates x %zu modes and policies x %llu inputs (%zu boundary inputs) compared\n", name,
              candidates.size(), combos.size(), static_cast<unsigned long long>(inputs_per_combination),
              boundaries.size());
  std::fflush(stdout);
}

TEST(ArrayModesSweep, E4M3EveryModeEveryTarget) { sweep_every_mode_and_target<std::uint8_t>("E4M3", E4M3::format); }
TEST(ArrayModesSweep, BF16EveryModeEveryTarget) { sweep_every_mode_and_target<std::uint16_t>("BF16", BF16::format); }

}  // namespace
}  // namespace softfloat
