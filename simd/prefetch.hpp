// Software prefetch for the loops that stream through arrays beyond the cache.
#pragma once

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
template <class T>
HWY_INLINE void PrefetchAhead(const T* p) {
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p) + kPrefetchBytes), 0, 3);
}

}  // namespace softfloat::simd::detail
