// Memory: where bytes live, how fast they come out, and how long a transfer takes.
//
// The table is ILLUSTRATIVE: round figures of the order of one data-centre accelerator
// of the H100 class (SXM, 80 GB HBM3 at 3.35 TB/s) and its host, for arithmetic about
// where a model fits and what moving it costs. It is not a measurement of any machine;
// pass real figures to transfer_seconds() for real answers.
//
//   level          capacity   bandwidth
//   registers      ~20 MB     ~100 TB/s   (all register files of the chip together)
//   on-chip SRAM   ~50 MB     ~20 TB/s    (shared memory, L1 and L2)
//   HBM            ~80 GB     ~3.35 TB/s
//   host memory    ~1 TB      ~50 GB/s    (over the host link)
//   local disk     ~10 TB     ~10 GB/s
//   network        -          ~50 GB/s per device (a link holds nothing: capacity 0)
//
// transfer_seconds(bytes, bytes_per_second) = bytes / bandwidth: 16e9 bytes of weights
// take 16e9 / 3.35e12 = 4.78 ms from HBM and 16e9 / 50e9 = 320 ms from host memory, a
// ratio of 3.35e12 / 50e9 = 67.
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include "softfloat/cost/arguments.hpp"
#include "softfloat/escape.hpp"

namespace softfloat::cost {

struct MemoryLevel {
  std::string_view name;
  double capacity_bytes;    // 0 for a link, which moves bytes but holds none
  double bytes_per_second;  // sustained bandwidth out of the level
};

// Fastest and smallest first. Illustrative figures (see the top of this file).
inline constexpr std::array<MemoryLevel, 6> kIllustrativeMemoryHierarchy{{
    {"registers", 20e6, 100e12},
    {"on-chip SRAM", 50e6, 20e12},
    {"HBM", 80e9, 3.35e12},
    {"host memory", 1e12, 50e9},
    {"local disk", 10e12, 10e9},
    {"network", 0, 50e9},
}};

// The level of kIllustrativeMemoryHierarchy called `name` (exactly as listed); any
// other name throws std::invalid_argument listing the names.
inline const MemoryLevel& illustrative_memory_level(std::string_view name) {
  std::string names;
  for (const MemoryLevel& level : kIllustrativeMemoryHierarchy) {
    if (level.name == name) return level;
    (names += names.empty() ? "" : ", ") += level.name;
  }
  throw std::invalid_argument("softfloat::cost::illustrative_memory_level: unknown level '" + escape_unprintable(name) +
                              "'; expected one of " + names);
}

// Seconds to move `bytes` at `bytes_per_second`, ignoring latency: the bound that a
// bandwidth sets, reached by transfers much larger than the latency-bandwidth product.
inline double transfer_seconds(double bytes, double bytes_per_second) {
  detail::require_non_negative(bytes, "transfer_seconds", "the byte count");
  detail::require_positive(bytes_per_second, "transfer_seconds", "the bandwidth in bytes per second");
  return bytes / bytes_per_second;
}

}  // namespace softfloat::cost
