// Reproducible random bits for stochastic rounding: a counter-based generator, so the
// bits of element i depend only on (seed, i). The scalar conversions, every SIMD target
// and every split of an array across threads therefore round element i with the same
// 32 bits, and a run can be repeated or resumed at any offset.
//
// The rule, exactly: random_bits(seed, i) = mix(mix(lo ^ k0) ^ k1) where lo is the low
// 32 bits of i, (k0, k1) are the two halves of splitmix64(seed ^ splitmix64(hi)) with
// hi the high 32 bits of i, and mix is the "lowbias32" integer hash (two multiply-
// xorshift rounds, a bijection of 32-bit words with full avalanche). For a fixed seed
// and hi, i -> bits is a keyed permutation of the 2^32 counters: no repeats within a
// block of 2^32 elements, and different seeds give unrelated streams.
//
// How the bits are used (round_to_format()): with the discarded part of the
// significand as a fraction f of one unit in the last kept place and F = floor(f *
// 2^32) its first 32 bits, Rounding::stochastic rounds away from zero iff bits < F, so
// with probability F / 2^32. That is exactly f whenever the discarded part fits in 32
// bits (its lowest set bit at most 32 places below the last kept place): every float
// input with a normal result, and subnormal results of float inputs down to 9 + M
// binades below the smallest normal. Otherwise (tinier inputs, doubles) it is within
// 2^-32 of f. So a remainder far below an ulp still counts: a remainder of 2^-20
// ulp rounds up with probability 2^-20. Rounding::stochastic_equal rounds an inexact
// value away from zero iff the lowest of the 32 bits is 1, so with probability 1/2.
#pragma once

#include <cstdint>

namespace softfloat {

// The seed of a stochastic rounding and the counter of the first element: element i of
// an array is rounded with random_bits(seed, offset + i).
struct RandomStream {
  std::uint64_t seed = 0;
  std::uint64_t offset = 0;
};

namespace detail {

constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// lowbias32 (C. Wellons, "Prospecting for hash functions").
constexpr std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

// The keys of the counters whose high 32 bits are `high`.
struct RandomKeys {
  std::uint32_t k0, k1;
};
constexpr RandomKeys random_keys(std::uint64_t seed, std::uint32_t high) {
  const std::uint64_t key = splitmix64(seed ^ splitmix64(high));
  return {std::uint32_t(key), std::uint32_t(key >> 32)};
}
constexpr std::uint32_t keyed_bits(const RandomKeys& keys, std::uint32_t low) {
  return mix32(mix32(low ^ keys.k0) ^ keys.k1);
}

}  // namespace detail

// The 32 random bits of counter `index` in the stream `seed`.
constexpr std::uint32_t random_bits(std::uint64_t seed, std::uint64_t index) {
  return detail::keyed_bits(detail::random_keys(seed, std::uint32_t(index >> 32)), std::uint32_t(index));
}

// The bits of element i of an array that starts at counter stream.offset.
constexpr std::uint32_t random_bits(const RandomStream& stream, std::uint64_t i) {
  return random_bits(stream.seed, stream.offset + i);
}

// The stream of an array's elements from `count` on, for the calls that convert a part
// of it: element i of the part draws the counter of element count + i of the whole.
constexpr RandomStream advanced(RandomStream stream, std::uint64_t count) {
  stream.offset += count;
  return stream;
}

}  // namespace softfloat
