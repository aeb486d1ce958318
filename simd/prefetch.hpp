// Software prefetch of an input stream, shared by the per-target loops of quantize-inl.h
// and mx-inl.h. Not per-target itself: hwy::Prefetch is one instruction on
// every x86 target (and nothing elsewhere), and an always-inline function without target
// attributes inlines into each target's code.
#pragma once

#include <cstdint>

#include "hwy/base.h"
#include "hwy/cache_control.h"

namespace softfloat::simd::detail {

// Asks for the input kPrefetchBytes ahead of `p`. The hardware prefetcher alone keeps
// too few lines in flight for one core to read memory at the bus's speed: on a
// Sapphire Rapids class Xeon, quantize of 2^26 floats took 1.5 times memcpy's time
// without it and about memcpy's with it (bench_simd_conversion; 8 KiB measured best
// of 2, 8, 16 and 32 KiB). A prefetch never faults, so addresses past the end are fine;
// the address is formed as an integer so that no pointer points outside its array.
constexpr std::uintptr_t kPrefetchBytes = 8192;
template <class T>
HWY_INLINE void PrefetchAhead(const T* p) {
  hwy::Prefetch(reinterpret_cast<const T*>(reinterpret_cast<std::uintptr_t>(p) + kPrefetchBytes));
}

}  // namespace softfloat::simd::detail
