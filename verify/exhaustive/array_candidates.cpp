// The array conversions as sweep candidates (see array_candidates.hpp).
#include "verify/exhaustive/array_candidates.hpp"

#include <hwy/targets.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "simd/conversion_test_hooks.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::verify {
namespace {

// The sweep takes 16-bit codes; an 8-bit format's go through a byte buffer (one per
// thread, so that a chunk does not cost an allocation).
template <class Quantize>
void into_wide_codes(const Format& format, std::size_t n, std::uint16_t* out, Quantize quantize) {
  if (format.total_bits() > 8) {
    quantize(out);
    return;
  }
  thread_local std::vector<std::uint8_t> bytes;
  bytes.resize(n);
  quantize(bytes.data());
  std::copy(bytes.begin(), bytes.begin() + std::ptrdiff_t(n), out);
}

bool quantize_wide_on_target(std::int64_t target, const float* in, std::size_t n, std::uint16_t* out, const Format& format,
                        Rounding mode, Overflow policy) {
  bool called = false;
  into_wide_codes(format, n, out, [&](auto* codes) {
    called = simd::detail::quantize_on_target(target, in, n, codes, format, mode, policy);
  });
  return called;
}

// Where a target that was probed callable fails later, the sweep cannot go on: the
// worker threads have no test to fail, so the process stops with the target's name.
[[noreturn]] void stop(std::int64_t target, const char* what) {
  std::fprintf(stderr, "%s: %s became uncallable during the sweep\n", hwy::TargetName(target), what);
  std::abort();
}

// The compiled and supported targets, best first, each probed with `callable`.
template <class Probe>
std::vector<std::int64_t> callable_targets(const char* what, Probe callable) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  if (targets.empty()) throw std::runtime_error("no Highway target is compiled in and supported");
  for (std::int64_t target : targets) {
    if (!callable(target))
      throw std::runtime_error(std::string(hwy::TargetName(target)) + " is compiled and supported but its " + what +
                               " cannot be called");
  }
  return targets;
}

// One chunk in eight for the targets whose code a full sweep of another target already
// runs in the same shape: SSSE3 is SSE4's 128-bit code with a few instructions
// emulated, and the one-lane fallbacks (SCALAR, EMU128) run the same generic
// algorithm lane by lane, ten times slower than a vector target, which made them a
// third of an fp8 sweep's CPU. They are still compared on every binade (a chunk of
// 2^20 floats each, chunk_in_sample), and on the 2^24-float stride of every target in
// verify/simd/array_conversion_test.cpp; every other target sees all 2^32 floats.
unsigned chunk_sample_of(std::int64_t target) {
  constexpr std::int64_t sampled = HWY_SSSE3 | HWY_EMU128 | HWY_SCALAR;
  return (target & sampled) != 0 ? 8 : 1;
}

}  // namespace

std::vector<Candidate> array_quantize_candidates(const Format& format) {
  constexpr Rounding mode = Rounding::nearest_even;
  constexpr Overflow policy = Overflow::standard;
  std::vector<Candidate> candidates;
  candidates.push_back({"dispatched", [format](const float* in, std::size_t n, std::uint16_t* out) {
                          into_wide_codes(format, n, out, [&](auto* codes) { simd::quantize(in, n, codes, format); });
                        }});
  const float probe_in = 1.0f;
  std::uint16_t probe_out = 0;
  for (std::int64_t target : callable_targets("quantize", [&](std::int64_t target) {
         return quantize_wide_on_target(target, &probe_in, 1, &probe_out, format, mode, policy);
       })) {
    Candidate candidate{std::string(hwy::TargetName(target)) + " generic",
                        [target, format](const float* in, std::size_t n, std::uint16_t* out) {
                          if (!quantize_wide_on_target(target, in, n, out, format, mode, policy)) stop(target, "quantize");
                        }};
    candidate.chunk_sample = chunk_sample_of(target);
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

std::vector<Candidate> array_round_trip_candidates(const Format& format, Rounding mode, Overflow policy,
                                                   bool best_target_only) {
  const std::vector<std::uint32_t> decoded = decoded_codes(format);
  const float probe_in = 1.0f;
  float probe_out = 0;
  std::vector<Candidate> candidates;
  for (std::int64_t target : callable_targets("round trip", [&](std::int64_t target) {
         return simd::detail::round_trip_on_target(target, &probe_in, 1, &probe_out, format, mode, policy);
       })) {
    Candidate candidate = round_trip_candidate(
        std::string(hwy::TargetName(target)) + " round_trip",
        [target, format, mode, policy](const float* in, std::size_t n, float* out) {
          if (!simd::detail::round_trip_on_target(target, in, n, out, format, mode, policy)) stop(target, "round_trip");
        },
        decoded);
    candidate.chunk_sample = chunk_sample_of(target);
    candidates.push_back(std::move(candidate));
    if (best_target_only) break;
  }
  return candidates;
}

Conversion best_target_quantize(const Format& format, Rounding mode, Overflow policy) {
  const float probe_in = 1.0f;
  std::uint16_t probe_out = 0;
  const std::int64_t best = callable_targets("quantize", [&](std::int64_t target) {
    return quantize_wide_on_target(target, &probe_in, 1, &probe_out, format, mode, policy);
  }).front();
  return [best, format, mode, policy](const float* in, std::size_t n, std::uint16_t* out) {
    if (!quantize_wide_on_target(best, in, n, out, format, mode, policy)) stop(best, "quantize");
  };
}

std::vector<std::uint32_t> decoded_codes(const Format& format) {
  if (format.total_bits() > 16) throw std::invalid_argument("decoded_codes: formats of at most 16 bits");
  const std::size_t count = std::size_t{1} << format.total_bits();
  std::vector<float> floats(count);
  if (format.total_bits() <= 8) {
    std::vector<std::uint8_t> codes(count);
    for (std::size_t code = 0; code < count; ++code) codes[code] = std::uint8_t(code);
    simd::detail::dequantize_generic(codes.data(), count, floats.data(), format);
  } else {
    std::vector<std::uint16_t> codes(count);
    for (std::size_t code = 0; code < count; ++code) codes[code] = std::uint16_t(code);
    simd::detail::dequantize_generic(codes.data(), count, floats.data(), format);
  }
  std::vector<std::uint32_t> bits(count);
  std::transform(floats.begin(), floats.end(), bits.begin(), [](float x) { return std::bit_cast<std::uint32_t>(x); });
  return bits;
}

}  // namespace softfloat::verify
