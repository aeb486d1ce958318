// Software prefetch for the loops that stream through arrays beyond the cache.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwy/base.h"  // HWY_INLINE

namespace softfloat::simd::detail {

// Asks for the input kPrefetchBytes ahead of `p`. The hardware prefetcher alone keeps
// too few lines in flight for one core to read memory at the bus's speed: on a
// Sapphire Rapids class Xeon, quantize of 2^26 floats took 1.5 times memcpy's time
// without it and about memcpy's with it (bench_simd_conversion; 8 KiB measured best
// of 2, 8, 16 and 32 KiB). A prefetch never faults, so addresses past the end are fine;
// the address is formed as an integer so that no pointer points outside its array.
// Plain code (__builtin_prefetch is one instruction, or nothing, on every target), so
// that the per-target loops of quantize_floats-inl.h, quantize_doubles-inl.h,
// dequantize_round_trip-inl.h and mx-inl.h and the hardware shortcuts share it. Always inlined: an out-of-line call from a vector loop would spill every
// vector register holding the loop's constants (the call clobbers them all), which
// cost quantize a third of its speed.
inline constexpr std::uintptr_t kPrefetchBytes = 8192;

// The one prefetch both helpers below issue: a read of the line `bytes_ahead` past `p`,
// with __builtin_prefetch's locality (3: every cache level, prefetcht0; 1: the outer
// ones, prefetcht2).
template <int kLocality, class T>
HWY_INLINE void PrefetchAt(const T* p, std::uintptr_t bytes_ahead) {
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p) + bytes_ahead), 0, kLocality);
}

template <class T>
HWY_INLINE void PrefetchAhead(const T* p) {
  PrefetchAt<3>(p, kPrefetchBytes);
}

// Asks for the line `bytes_ahead` past `p` into the outer caches (prefetcht2: L2 on
// Intel's cores), for loops that read a band of rows a line per row at a time, where the
// next band's lines at the same columns are needed a whole pass later: too late for L1
// to keep them, and each row a new 4 KiB page, where the hardware's streams start over.
// block_scaled_matvec-inl.h's E2M1 rows at 8192 x 8192 on the model-207 Xeon, a noisy
// host, minimum and median of 10-15 runs: NVFP4 (16 rows a band) 3.85 / 4.38 ->
// 3.77 / 4.10 ms, MXFP4 (32) 3.29 / 4.08 -> 3.25 / 3.35 ms, plain E2M1 within the noise.
template <class T>
HWY_INLINE void PrefetchIntoL2(const T* p, std::size_t bytes_ahead) {
  PrefetchAt<1>(p, bytes_ahead);
}

}  // namespace softfloat::simd::detail
