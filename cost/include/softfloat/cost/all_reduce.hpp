// Many devices: summing gradients across N devices with a ring all-reduce (Patarasuk
// and Yuan, "Bandwidth optimal all-reduce algorithms for clusters of workstations",
// JPDC 2009; the algorithm of NCCL's ring and Horovod). Each device's array is cut into
// N chunks, and the devices form a ring, device i sending only to device i + 1 (mod N):
//
//   reduce-scatter, N - 1 steps: at step s device i sends its chunk (i - s) mod N, and
//       the receiver adds it to its own copy. After the last step device i holds the
//       complete sum of chunk (i + 1) mod N.
//   all-gather, N - 1 steps: at step s device i sends chunk (i + 1 - s) mod N, complete,
//       and the receiver overwrites its copy. After the last step every device holds
//       every complete chunk.
//
// Each device sends N - 1 chunks in each phase, 2 (N - 1) / N times the array: 4 devices
// of 8 numbers send 2 * 3 * 2 = 12 numbers each, whatever N the traffic per device stays
// below twice the array, which is why the ring is bandwidth-optimal. The time follows:
//
//   all_reduce_seconds(bytes, N, bandwidth) = 2 (N - 1) / N * bytes / bandwidth
//
// 14e9 bytes (7e9 bf16 gradients) over 8 devices: 1.75 * 14e9 = 24.5e9 bytes sent by each,
// 49 ms at 500 GB/s (links inside a machine) and 490 ms at 50 GB/s (between machines).
// Latency (about 2 (N - 1) message start-ups) is left out: it matters for small arrays.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "softfloat/cost/arguments.hpp"
#include "softfloat/cost/memory_hierarchy.hpp"

namespace softfloat::cost {

// What simulate_ring_all_reduce() did.
struct RingAllReduce {
  std::vector<std::vector<std::int64_t>> devices;  // each device's array afterwards
  std::vector<std::uint64_t> numbers_sent;         // by each device, both phases
  std::vector<std::uint64_t> numbers_received;     // by each device, both phases
  std::uint64_t steps = 0;                         // 2 (N - 1)
  bool every_device_has_exact_sum = false;         // checked against a direct sum
};

namespace detail {

// Chunk c of an array of `size` cut into `parts`: [c size / parts, (c + 1) size / parts),
// so chunk sizes differ by at most one when parts does not divide size.
// With size = q parts + r: c size / parts = c q + c r / parts, whose products stay small.
inline std::size_t chunk_begin(std::size_t c, std::size_t size, std::size_t parts) {
  return c * (size / parts) + c * (size % parts) / parts;
}

inline std::int64_t checked_sum(std::int64_t a, std::int64_t b) {
  constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max(), least = std::numeric_limits<std::int64_t>::min();
  if ((b > 0 && a > most - b) || (b < 0 && a < least - b))
    throw std::invalid_argument("softfloat::cost::simulate_ring_all_reduce: a sum leaves the 64-bit integers");
  return a + b;
}

}  // namespace detail

// Runs the ring all-reduce on `inputs[d]`, the array of device d, moving chunks between
// the simulated devices step by step (every device sends at once, then every message
// is delivered). The values are integers so that the sum is exact in any order: the
// ring adds each chunk in its own rotated order, and with floating point that order
// would change the rounding. Throws std::invalid_argument for no devices, arrays of
// different lengths, or a sum beyond 64 bits.
inline RingAllReduce simulate_ring_all_reduce(std::vector<std::vector<std::int64_t>> inputs) {
  const std::size_t n = detail::require_at_least_one(inputs.size(), "simulate_ring_all_reduce", "the number of devices");
  const std::size_t size = inputs.front().size();
  for (std::size_t d = 0; d < n; ++d)
    if (inputs[d].size() != size)
      throw std::invalid_argument("softfloat::cost::simulate_ring_all_reduce: device " + std::to_string(d) +
                                  " holds " + std::to_string(inputs[d].size()) + " numbers, device 0 " +
                                  std::to_string(size) + "; every device needs the same length");

  // The reference: each element summed directly over the devices.
  std::vector<std::int64_t> sum(size, 0);
  for (const auto& device : inputs)
    for (std::size_t j = 0; j < size; ++j) sum[j] = detail::checked_sum(sum[j], device[j]);

  RingAllReduce result;
  result.devices = std::move(inputs);
  result.numbers_sent.assign(n, 0);
  result.numbers_received.assign(n, 0);
  struct Message {
    std::size_t to, begin;
    std::vector<std::int64_t> numbers;
  };
  // One phase: N - 1 steps in which device i sends chunk (i + first - s) mod N, and the
  // receiver adds it in (reduce-scatter) or takes it (all-gather).
  auto run_phase = [&](std::size_t first, bool add) {
    for (std::size_t step = 0; step + 1 < n; ++step) {
      std::vector<Message> messages;
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t chunk = (i + first + n - step) % n;
        const std::size_t begin = detail::chunk_begin(chunk, size, n), end = detail::chunk_begin(chunk + 1, size, n);
        const std::int64_t* from = result.devices[i].data();
        messages.push_back({(i + 1) % n, begin, std::vector<std::int64_t>(from + begin, from + end)});
        result.numbers_sent[i] += end - begin;
      }
      for (const Message& message : messages) {
        auto& into = result.devices[message.to];
        for (std::size_t j = 0; j < message.numbers.size(); ++j)
          into[message.begin + j] =
              add ? detail::checked_sum(into[message.begin + j], message.numbers[j]) : message.numbers[j];
        result.numbers_received[message.to] += message.numbers.size();
      }
      ++result.steps;
    }
  };
  run_phase(0, true);   // reduce-scatter: chunk (i - s) mod N
  run_phase(1, false);  // all-gather: chunk (i + 1 - s) mod N
  result.every_device_has_exact_sum = true;
  for (const auto& device : result.devices) result.every_device_has_exact_sum &= device == sum;
  return result;
}

// Bytes each device sends in a ring all-reduce of `bytes` over `devices`: 2 (N - 1) / N
// times the array (0 for one device).
inline double ring_all_reduce_bytes_sent_per_device(double bytes, std::uint64_t devices) {
  detail::require_non_negative(bytes, "ring_all_reduce_bytes_sent_per_device", "the byte count");
  detail::require_at_least_one(devices, "ring_all_reduce_bytes_sent_per_device", "the number of devices");
  return 2 * double(devices - 1) / double(devices) * bytes;
}

// Seconds of a ring all-reduce of `bytes` over `devices`, each sending at
// `bytes_per_second` (all links busy at once): bytes sent per device / bandwidth.
inline double all_reduce_seconds(double bytes, std::uint64_t devices, double bytes_per_second) {
  detail::require_positive(bytes_per_second, "all_reduce_seconds", "the bandwidth in bytes per second");
  return transfer_seconds(ring_all_reduce_bytes_sent_per_device(bytes, devices), bytes_per_second);
}

}  // namespace softfloat::cost
