// The per-target loop of stream_floats() (simd/stream_store.hpp), compiled for every
// Highway target by foreach_target.h in simd/mx.cpp (through mx-inl.h).

#if defined(SOFTFLOAT_SIMD_STREAM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_SIMD_STREAM_INL_H_
#undef SOFTFLOAT_SIMD_STREAM_INL_H_
#else
#define SOFTFLOAT_SIMD_STREAM_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace softfloat::simd::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// hn::Stream needs an address aligned to the vector size: the values before the first
// such address and after the last whole vector are copied one at a time.
HWY_NOINLINE void StreamFloats(const float* HWY_RESTRICT in, std::size_t n, float* HWY_RESTRICT out) {
  const hn::ScalableTag<float> df;
  const std::size_t lanes = hn::Lanes(df);
  const std::uintptr_t vector_bytes = lanes * sizeof(float);
  std::size_t i = 0;
  for (; i < n && reinterpret_cast<std::uintptr_t>(out + i) % vector_bytes != 0; ++i) out[i] = in[i];
  for (; i + lanes <= n; i += lanes) hn::Stream(hn::LoadU(df, in + i), df, out + i);
  for (; i < n; ++i) out[i] = in[i];
  hwy::FlushStream();
}

}  // namespace HWY_NAMESPACE
}  // namespace softfloat::simd::detail
HWY_AFTER_NAMESPACE();

#endif  // include guard
