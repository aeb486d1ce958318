// The roofline model (Williams, Waterman and Patterson, "Roofline: an insightful visual
// performance model", CACM 2009): a kernel that does F FLOPs while moving B bytes has
// arithmetic intensity I = F / B FLOPs per byte, and can run no faster than
//
//   attainable FLOP/s = min(peak FLOP/s, I * bandwidth)
//
// The two roofs meet at the ridge point I* = peak / bandwidth: below it the kernel waits
// for memory (memory-bound), at or above it for arithmetic (compute-bound). 1e15 FLOP/s
// over 3.35e12 B/s: I* = 298.5, about 299 FLOPs per byte. A 4096 x 4096 matmul tiled by
// 128 moves bf16 words at matmul_intensity(4096, 128, 2) = 63.0 FLOPs per byte
// (matmul_model.hpp): memory-bound there, at 63.0 * 3.35e12 = 2.1e14 FLOP/s.
#pragma once

#include <algorithm>
#include <string_view>

#include "softfloat/cost/arguments.hpp"

namespace softfloat::cost {

struct Roofline {
  double flops_per_second;  // peak arithmetic rate
  double bytes_per_second;  // bandwidth of the memory the kernel's bytes come from
};

enum class Bound { memory, compute };

// "memory-bound" or "compute-bound".
constexpr std::string_view bound_name(Bound bound) {
  return bound == Bound::memory ? "memory-bound" : "compute-bound";
}

namespace detail {
inline void check_roofline(const Roofline& machine, const char* function) {
  require_positive(machine.flops_per_second, function, "the peak FLOP/s");
  require_positive(machine.bytes_per_second, function, "the bandwidth in bytes per second");
}
}  // namespace detail

// FLOPs per byte at which the memory roof meets the compute roof: peak / bandwidth.
inline double ridge_intensity(const Roofline& machine) {
  detail::check_roofline(machine, "ridge_intensity");
  return machine.flops_per_second / machine.bytes_per_second;
}

// Memory-bound below the ridge point, compute-bound at or above it.
inline Bound bound_at(const Roofline& machine, double flops_per_byte) {
  detail::require_positive(flops_per_byte, "bound_at", "the arithmetic intensity in FLOPs per byte");
  return flops_per_byte < ridge_intensity(machine) ? Bound::memory : Bound::compute;
}

// min(peak, intensity * bandwidth): the fastest a kernel of that intensity can run.
inline double attainable_flops_per_second(const Roofline& machine, double flops_per_byte) {
  detail::check_roofline(machine, "attainable_flops_per_second");
  detail::require_positive(flops_per_byte, "attainable_flops_per_second",
                           "the arithmetic intensity in FLOPs per byte");
  return std::min(machine.flops_per_second, flops_per_byte * machine.bytes_per_second);
}

// The shortest time for `flops` FLOPs that move `bytes` bytes: max(F / peak, B /
// bandwidth), the same bound as F / attainable FLOP/s when F > 0.
inline double kernel_seconds(const Roofline& machine, double flops, double bytes) {
  detail::check_roofline(machine, "kernel_seconds");
  detail::require_non_negative(flops, "kernel_seconds", "the FLOP count");
  detail::require_non_negative(bytes, "kernel_seconds", "the byte count");
  return std::max(flops / machine.flops_per_second, bytes / machine.bytes_per_second);
}

}  // namespace softfloat::cost
