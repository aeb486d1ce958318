// Plain or non-temporal ("streaming") stores of floats, for the per-target loops that
// write float arrays (dequantize_round_trip-inl.h: round_trip and dequantize;
// mx-inl.h: MX dequantize). A plain store to a line that is not cached first reads the line (read
// for ownership), so writing n floats beyond the cache moves 8n bytes over the memory
// bus; a streaming store writes the line without reading it, as memcpy does for large
// copies. When to stream: simd/stream_store.hpp.

#if defined(SOFTFLOAT_SIMD_STREAM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_SIMD_STREAM_INL_H_
#undef SOFTFLOAT_SIMD_STREAM_INL_H_
#else
#define SOFTFLOAT_SIMD_STREAM_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace softfloat::simd::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One vector of floats, stored plainly or (kStream) streamed to a vector-aligned address.
template <bool kStream, class V>
HWY_INLINE void StoreFloatBits(V v, float* out) {
  const hn::ScalableTag<float> df;
  if constexpr (kStream) hn::Stream(v, df, out);
  else hn::StoreU(v, df, out);
}

// body(kStream, begin, end) writes the values [begin, end) of an output of n floats:
// with `stream`, plain stores up to the first vector-aligned output address and
// streaming ones after (kStream a std::true_type), then a store fence, so that the
// values are ordered before the caller's later stores (and its threads' join) as plain
// stores are; without, all plain.
template <class Body>
HWY_INLINE void WithStreamingStores(std::size_t n, const float* out, bool stream, const Body& body) {
  const std::size_t align = hn::Lanes(hn::ScalableTag<float>()) * sizeof(float);
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(out) % align;
  std::size_t head = n;
  if (stream && misaligned % sizeof(float) == 0) {
    head = misaligned == 0 ? 0 : (align - misaligned) / sizeof(float);
    if (head > n) head = n;
  }
  body(std::false_type{}, std::size_t{0}, head);
  if (head == n) return;
  body(std::true_type{}, head, n);
  hwy::FlushStream();
}

}  // namespace HWY_NAMESPACE
}  // namespace softfloat::simd::detail
HWY_AFTER_NAMESPACE();

#endif  // include guard
