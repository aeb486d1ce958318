// Threads for the fp32 matmul paths: the columns of C are split into contiguous parts,
// one per thread (softfloat::num_threads()), each part computing its columns from
// start to finish. Every element of C is then computed by one thread in the order its
// path documents, so the thread count never changes a bit of the result.
#pragma once

#include <algorithm>
#include <cstddef>

#include "runtime/float_environment.hpp"
#include "runtime/parallel.hpp"
#include "softfloat/threads.hpp"

namespace softfloat::matmul_detail {

// Work below this many multiply-adds per thread stays on one thread: waking a worker
// costs tens of microseconds, a few million multiply-adds at the speeds here.
inline constexpr double kMinMultiplyAddsPerThread = double(std::size_t{1} << 22);

// body(begin, end) for parts of [0, n) whose starts are multiples of `alignment`;
// `multiply_adds` is the work of the whole call (m * n * k).
template <class Body>
void for_column_parts(std::size_t n, std::size_t alignment, double multiply_adds, Body&& body) {
  const double most = multiply_adds / kMinMultiplyAddsPerThread;
  std::size_t parts = std::size_t(std::min<double>(most, double(num_threads())));
  parts = std::min(parts, (n + alignment - 1) / alignment);
  if (parts <= 1) return body(std::size_t{0}, n);
  std::size_t width = (n + parts - 1) / parts;
  width = (width + alignment - 1) / alignment * alignment;
  softfloat::detail::run_parts(int(parts), [&](int part) {
    // Each thread has its own floating-point environment: the worker's gets the
    // default one for its share, as the calling thread's has.
    softfloat::detail::ScopedDefaultFloatEnvironment environment;
    const std::size_t begin = std::size_t(part) * width;
    if (begin < n) body(begin, std::min(n, begin + width));
  });
}

}  // namespace softfloat::matmul_detail
