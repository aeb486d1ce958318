// Seeded random numbers for the experiments. Everything is drawn from
// softfloat::random_bits(seed, index), a counter-based generator, so a value depends
// only on (seed, stream, index): runs are reproducible on every machine and compiler
// (the standard library's distributions are not specified bit for bit), and any
// element of a data set can be drawn on its own.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

#include "softfloat/random_bits.hpp"

namespace softfloat::experiments::detail {

// The seed of an independent stream `stream` under the user's seed: 64 bits drawn
// from the user's own stream at counters 2 * stream and 2 * stream + 1.
constexpr std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream) {
  return std::uint64_t(random_bits(seed, 2 * stream)) << 32 | random_bits(seed, 2 * stream + 1);
}

// Uniform in (0, 1]: never 0, so its logarithm is finite.
inline double uniform_open_closed(std::uint32_t bits) { return (double(bits) + 1.0) * 0x1p-32; }
// Uniform in [0, 1) on the 2^-24 grid: exactly a float.
inline float uniform_float(std::uint32_t bits) { return float(bits >> 8) * 0x1p-24f; }

// A standard normal value from two 32-bit words (Box-Muller). The tails reach
// sqrt(-2 ln 2^-32) ~ 6.7 standard deviations, beyond anything the experiments sample.
inline double standard_normal(std::uint32_t bits1, std::uint32_t bits2) {
  const double radius = std::sqrt(-2.0 * std::log(uniform_open_closed(bits1)));
  return radius * std::cos(2.0 * std::numbers::pi * (double(bits2) * 0x1p-32));
}

// Element `index` of a normal stream: counters 2 index and 2 index + 1.
inline double normal_at(std::uint64_t seed, std::uint64_t index) {
  return standard_normal(random_bits(seed, 2 * index), random_bits(seed, 2 * index + 1));
}

}  // namespace softfloat::experiments::detail
