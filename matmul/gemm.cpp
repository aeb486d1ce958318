// The fp32-accumulating GEMM: runtime dispatch of the per-target code in gemm-inl.h.

// Highway compiles this file once per target, re-including gemm-inl.h each time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "matmul/gemm-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "matmul/gemm-inl.h"

#if HWY_ONCE
#include <algorithm>

#include "matmul/kernels.hpp"

namespace softfloat::matmul_detail {

HWY_EXPORT(GemmFp32);
HWY_EXPORT(GemmFp32Shape);

void gemm_fp32(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m, std::size_t n,
               std::size_t k) {
  if (k == 0) {  // the empty sum is +0
    for (std::size_t i = 0; i < m; ++i) std::fill(s + i * lds, s + i * lds + n, 0.0f);
    return;
  }
  HWY_DYNAMIC_DISPATCH(GemmFp32)(a, b, s, lds, m, n, k);
}

LoopNestShape gemm_fp32_shape() { return HWY_DYNAMIC_DISPATCH(GemmFp32Shape)(); }

}  // namespace softfloat::matmul_detail
#endif  // HWY_ONCE
