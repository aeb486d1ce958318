// What the array conversion benchmarks share: the two array sizes, long-lived scratch
// buffers, the timing loop and its counters (ns_per_value, and bytes/s of fp32 data).
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace softfloat::bench_support {

constexpr std::size_t kInCache = std::size_t{1} << 14;
constexpr std::size_t kOutOfCache = std::size_t{1} << 26;

// Output and intermediate buffers live as long as the process and are reused by every
// benchmark (a benchmark picks a slot per role, e.g. output, codes fed to dequantize):
// freeing and mapping hundreds of MiB between benchmarks made out-of-cache figures vary
// by 2-4x from run to run on this VM, while a buffer touched once reads and writes at a
// steady speed. Contents are overwritten before use, never read as data.
constexpr int kScratchSlots = 3;
template <class T>
T* scratch(int slot, std::size_t n) {
  static std::vector<std::uint32_t> storage[kScratchSlots];
  std::vector<std::uint32_t>& buffer = storage[slot];
  const std::size_t words = (n * sizeof(T) + 3) / 4;
  if (buffer.size() < words) buffer.resize(words, 0);
  return reinterpret_cast<T*>(buffer.data());
}

inline void set_counters(benchmark::State& state, std::size_t n) {
  state.counters["ns_per_value"] =
      benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(n * sizeof(float)));
}

// Times one call of `convert` (over n values, writing `out`) per iteration.
template <class Convert>
void time_conversion(benchmark::State& state, std::size_t n, const void* out, Convert convert) {
  for (auto _ : state) {
    convert();
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  set_counters(state, n);
}

}  // namespace softfloat::bench_support
