// The fp32 vector types that every per-target matmul kernel (gemm-inl.h, matvec-inl.h,
// block_formats/block_scaled_matvec-inl.h) accumulates in, declared once per Highway
// target: included from those -inl.h files, so it follows Highway's re-inclusion
// pattern (the toggle guard below) and is compiled once for each target that
// foreach_target.h selects.

#if defined(SOFTFLOAT_MATMUL_FLOAT_VECTORS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_MATMUL_FLOAT_VECTORS_INL_H_
#undef SOFTFLOAT_MATMUL_FLOAT_VECTORS_INL_H_
#else
#define SOFTFLOAT_MATMUL_FLOAT_VECTORS_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace softfloat::matmul_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace softfloat::matmul_detail
HWY_AFTER_NAMESPACE();

#endif  // SOFTFLOAT_MATMUL_FLOAT_VECTORS_INL_H_ toggle
