// Splits an array conversion across softfloat::num_threads() threads: contiguous
// blocks whose starts are multiples of `alignment` elements, only when every thread
// gets at least kMinElementsPerThread elements (below that, starting threads costs
// more than it saves). Small arrays never leave the calling thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>

#include "softfloat/threads.hpp"

namespace softfloat::detail {

inline constexpr std::size_t kMinElementsPerThread = std::size_t{1} << 16;

// Runs body(part) for part in [0, parts): part 0 on the calling thread, the others on
// the persistent worker pool (blocking waits, no spinning). Returns when all are done;
// rethrows the first exception a part threw.
void run_parts(int parts, const std::function<void(int)>& body);

// body(begin, end) over [0, n) in at most num_threads() blocks.
template <class Body>
void parallel_for(std::size_t n, std::size_t alignment, Body&& body) {
  const std::size_t most = n / kMinElementsPerThread;
  const int threads = most <= 1 ? 1 : int(std::min<std::size_t>(most, std::size_t(num_threads())));
  if (threads <= 1) return body(std::size_t{0}, n);
  std::size_t block = (n + std::size_t(threads) - 1) / std::size_t(threads);
  block = (block + alignment - 1) / alignment * alignment;
  run_parts(threads, [&](int part) {
    const std::size_t begin = std::size_t(part) * block;
    if (begin < n) body(begin, std::min(n, begin + block));
  });
}

}  // namespace softfloat::detail
