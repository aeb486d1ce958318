// The pairs-of-products GEMM (bf16_dot.hpp): the loop nest of loop_nest.hpp over A and
// B packed as bf16 pairs (packing.hpp's Bf16PairPacker), with a vdpbf16ps micro-kernel
// in raw AVX512-BF16 intrinsics, compiled for that instruction set only and called
// after bf16_dot_supported() has checked the CPU.
//
// Summation order. The kernel's 12 x 32 tile of fp32 sums starts from +0 or from C as
// the nest says, and each vdpbf16ps adds the two products of one pair (depth steps 2t
// and 2t + 1) to each sum.
#include <cstdint>

#include "matmul/bf16_dot.hpp"
#include "matmul/bf16_dot_target.hpp"
#include "matmul/blocking.hpp"
#include "matmul/kernel_rule.hpp"
#include "matmul/loop_nest.hpp"
#include "matmul/packing.hpp"

namespace softfloat::matmul_detail {

bool bf16_dot_supported() {
#if SOFTFLOAT_HAVE_BF16_DOT
  return pairs_kernels_can_run(detail::cpu_features());
#else
  return false;
#endif
}

LoopNestShape gemm_bf16_dot_shape() {
  LoopNestShape shape{kPairTileRows, kPairTileColumns, kPairDepth};
  shape.depth_step = 2;       // a zero pads an odd depth
  shape.values_per_word = 2;  // one pair per word
  return shape;
}

#if SOFTFLOAT_HAVE_BF16_DOT
namespace {

constexpr std::size_t kTileRows = kPairTileRows;        // MR: 24 accumulators of 16 lanes
constexpr std::size_t kTileColumns = kPairTileColumns;  // NR: two vectors

// The 12 x 32 tile at c (row stride ldc): continue_sums ? c : +0, then for each pair t,
// c[r][j] += both products of a's pair t of row r and b's pair t of column j.
struct PairsMicroKernel {
  SOFTFLOAT_BF16_DOT_TARGET void operator()(std::size_t pairs, const std::uint32_t* __restrict a,
                                            const std::uint32_t* __restrict b, float* __restrict c,
                                            std::size_t ldc, bool continue_sums) const {
    __m512 left[kTileRows], right[kTileRows];
    for (std::size_t r = 0; r < kTileRows; ++r) {
      left[r] = continue_sums ? _mm512_loadu_ps(c + r * ldc) : _mm512_setzero_ps();
      right[r] = continue_sums ? _mm512_loadu_ps(c + r * ldc + 16) : _mm512_setzero_ps();
    }
    for (std::size_t t = 0; t < pairs; ++t) {
      const __m512bh b0 = (__m512bh)_mm512_load_si512(b);
      const __m512bh b1 = (__m512bh)_mm512_load_si512(b + 16);
#pragma GCC unroll 12
      for (std::size_t r = 0; r < kTileRows; ++r) {
        const __m512bh ar = (__m512bh)_mm512_set1_epi32(int(a[r]));
        left[r] = _mm512_dpbf16_ps(left[r], ar, b0);
        right[r] = _mm512_dpbf16_ps(right[r], ar, b1);
      }
      a += kTileRows;
      b += kTileColumns;
    }
    for (std::size_t r = 0; r < kTileRows; ++r) {
      _mm512_storeu_ps(c + r * ldc, left[r]);
      _mm512_storeu_ps(c + r * ldc + 16, right[r]);
    }
  }
};

}  // namespace

void gemm_bf16_dot(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m,
                   std::size_t n, std::size_t k) {
  const LoopNestShape shape = gemm_bf16_dot_shape();
  Bf16PairPacker packer(a, b, shape, n, k);
  run_loop_nest(shape, packer, PairsMicroKernel(), s, lds, m, n, k);
}

#else  // no x86-64 GCC / Clang: bf16_dot_supported() is false and this is never called

void gemm_bf16_dot(const CodeMatrix&, const CodeMatrix&, float*, std::size_t, std::size_t, std::size_t,
                   std::size_t) {}

#endif

}  // namespace softfloat::matmul_detail
