// The per-target part of the fp32-accumulating GEMM (compiled for every Highway target
// by gemm.cpp through foreach_target.h): the register-tile micro-kernel that the loop
// nest (loop_nest.hpp) runs over fp32 slivers (packing.hpp's Fp32Packer), so one
// compiled kernel serves every pair of input formats.
//
// Summation order. The micro-kernel keeps an MR x NR tile of running sums in
// registers and, for each step p of its depth block, adds a_ip * b_pj to sum (i, j)
// with one MulAdd, starting from +0 or from C as the nest says. Every element of C is
// then the single chain c = MulAdd(a_ip, b_pj, c), p = 0 .. k-1 in order. MulAdd is one
// fused multiply-add on targets with FMA (AVX2, AVX-512) and a rounded product then a
// rounded sum on the others (SSSE3, SSE4, scalar).

#if defined(SOFTFLOAT_MATMUL_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_MATMUL_GEMM_INL_H_
#undef SOFTFLOAT_MATMUL_GEMM_INL_H_
#else
#define SOFTFLOAT_MATMUL_GEMM_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "matmul/blocking.hpp"
#include "matmul/code_matrix.hpp"
#include "matmul/float_vectors-inl.h"
#include "matmul/loop_nest.hpp"
#include "matmul/packing.hpp"

HWY_BEFORE_NAMESPACE();
namespace softfloat::matmul_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The register tile is MR rows by two vectors (NR = 2 * lanes columns): 2 * MR
// accumulators, two vectors of B and one broadcast element of A per step, which is 27
// of AVX-512's 32 vector registers with MR = 12 and 15 of the 16 elsewhere with MR = 6.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr std::size_t kTileRows = 12;
#else
constexpr std::size_t kTileRows = 6;
#endif

// The MR x NR tile at c (row stride ldc): continue_sums ? c : +0, then for p = 0 ..
// depth-1 in order, c[r][j] = MulAdd(a[p*MR + r], b[p*NR + j], c[r][j]). `b` is
// vector-aligned (a sliver of the packed panel). Called once per tile by the nest, which
// is compiled for no particular target: not inlined into it.
struct Fp32MicroKernel {
  void operator()(std::size_t depth, const float* HWY_RESTRICT a, const float* HWY_RESTRICT b,
                  float* HWY_RESTRICT c, std::size_t ldc, bool continue_sums) const {
    constexpr std::size_t MR = kTileRows;
    const DF df;
    const std::size_t lanes = hn::Lanes(df);
    VF left[MR], right[MR];
    HWY_UNROLL(MR)
    for (std::size_t r = 0; r < MR; ++r) {
      left[r] = continue_sums ? hn::LoadU(df, c + r * ldc) : hn::Zero(df);
      right[r] = continue_sums ? hn::LoadU(df, c + r * ldc + lanes) : hn::Zero(df);
    }
    for (std::size_t p = 0; p < depth; ++p) {
      const VF b0 = hn::Load(df, b);
      const VF b1 = hn::Load(df, b + lanes);
      HWY_UNROLL(MR)
      for (std::size_t r = 0; r < MR; ++r) {
        const VF ar = hn::Set(df, a[r]);
        left[r] = hn::MulAdd(ar, b0, left[r]);
        right[r] = hn::MulAdd(ar, b1, right[r]);
      }
      a += MR;
      b += 2 * lanes;
    }
    HWY_UNROLL(MR)
    for (std::size_t r = 0; r < MR; ++r) {
      hn::StoreU(left[r], df, c + r * ldc);
      hn::StoreU(right[r], df, c + r * ldc + lanes);
    }
  }
};

HWY_NOINLINE LoopNestShape GemmFp32Shape() { return LoopNestShape{kTileRows, 2 * hn::Lanes(DF()), kDepth}; }

// s (m x n, row stride lds) = the chain above, for m, n, k >= 1.
HWY_NOINLINE void GemmFp32(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m,
                           std::size_t n, std::size_t k) {
  const LoopNestShape shape = GemmFp32Shape();
  Fp32Packer packer(a, b, shape, n, k);
  run_loop_nest(shape, packer, Fp32MicroKernel(), s, lds, m, n, k);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace softfloat::matmul_detail
HWY_AFTER_NAMESPACE();

#endif  // SOFTFLOAT_MATMUL_GEMM_INL_H_ toggle
