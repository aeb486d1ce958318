// The per-target part of the fp32-accumulating GEMM (compiled for every Highway target
// by gemm.cpp through foreach_target.h): the register-tile micro-kernel and the blocked
// loops around it. The micro-kernel sees only packed fp32 slivers (packing.hpp), so one
// compiled kernel serves every pair of input formats.
//
// Summation order. The micro-kernel keeps an MR x NR tile of running sums in
// registers and, for each step p of its depth block, adds a_ip * b_pj to sum (i, j)
// with one MulAdd. Its sums start from +0 in the first depth block and from the
// values it stored in C at the end of the previous block otherwise, so every element
// of C is the single chain c = MulAdd(a_ip, b_pj, c), p = 0 .. k-1 in order: the
// blocking changes where the running sum waits between blocks, never the order of the
// additions. MulAdd is one fused multiply-add on targets with FMA (AVX2, AVX-512) and
// a rounded product then a rounded sum on the others (SSSE3, SSE4, scalar).

#if defined(SOFTFLOAT_MATMUL_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_MATMUL_GEMM_INL_H_
#undef SOFTFLOAT_MATMUL_GEMM_INL_H_
#else
#define SOFTFLOAT_MATMUL_GEMM_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
#include "matmul/blocking.hpp"
#include "matmul/code_matrix.hpp"
#include "matmul/float_vectors-inl.h"
#include "matmul/packing.hpp"
#include "matmul/paths.hpp"

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
// Upper bound of NR, for tiles on the stack.
constexpr std::size_t kMaxTileColumns = 2 * HWY_MAX_BYTES / sizeof(float);

// The MR x NR tile at c (row stride ldc): continue_sums ? c : +0, then for p = 0 ..
// depth-1 in order, c[r][j] = MulAdd(a[p*MR + r], b[p*NR + j], c[r][j]). `b` is
// vector-aligned (a sliver of the packed panel).
HWY_INLINE void MicroKernel(std::size_t depth, const float* HWY_RESTRICT a, const float* HWY_RESTRICT b,
                            float* HWY_RESTRICT c, std::size_t ldc, bool continue_sums) {
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

// A tile cut by the edge of C (rows < MR or columns < NR): the micro-kernel runs on a
// full tile on the stack, which carries the valid part of the running sums in and out.
HWY_NOINLINE void EdgeTile(std::size_t depth, const float* HWY_RESTRICT a, const float* HWY_RESTRICT b,
                           float* HWY_RESTRICT c, std::size_t ldc, std::size_t rows, std::size_t columns,
                           bool continue_sums) {
  const DF df;
  const std::size_t nr = 2 * hn::Lanes(df);
  HWY_ALIGN float tile[kTileRows * kMaxTileColumns] = {};
  if (continue_sums)
    for (std::size_t r = 0; r < rows; ++r) std::memcpy(tile + r * nr, c + r * ldc, columns * sizeof(float));
  MicroKernel(depth, a, b, tile, nr, continue_sums);
  for (std::size_t r = 0; r < rows; ++r) std::memcpy(c + r * ldc, tile + r * nr, columns * sizeof(float));
}

HWY_NOINLINE KernelShape GemmKernelShape() { return KernelShape{kTileRows, 2 * hn::Lanes(DF())}; }

// s (m x n, row stride lds) = the chain above, for m, n, k >= 1.
HWY_NOINLINE void GemmFp32(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m,
                           std::size_t n, std::size_t k) {
  constexpr std::size_t mr = kTileRows;
  const std::size_t nr = 2 * hn::Lanes(DF());
  const auto round_up = [](std::size_t x, std::size_t step) { return (x + step - 1) / step * step; };
  const std::size_t panel_columns = std::min(kPanelColumns, round_up(n, nr));
  const std::size_t depth_most = std::min(kDepth, k);
  const std::size_t block_rows = std::min(kBlockRows, round_up(m, mr));
  const auto packed_b = hwy::AllocateAligned<float>(depth_most * panel_columns);
  const auto packed_a = hwy::AllocateAligned<float>(block_rows * depth_most);
  const auto scratch = hwy::AllocateAligned<float>(std::max(depth_most, panel_columns));

  for (std::size_t jc = 0; jc < n; jc += kPanelColumns) {
    const std::size_t columns = std::min(kPanelColumns, n - jc);
    for (std::size_t pc = 0; pc < k; pc += kDepth) {
      const std::size_t depth = std::min(kDepth, k - pc);
      const bool continue_sums = pc > 0;
      pack_b(b, pc, jc, depth, columns, nr, packed_b.get(), scratch.get());
      for (std::size_t ic = 0; ic < m; ic += kBlockRows) {
        const std::size_t rows = std::min(kBlockRows, m - ic);
        pack_a(a, ic, pc, rows, depth, mr, packed_a.get(), scratch.get());
        for (std::size_t jr = 0; jr < columns; jr += nr) {
          const float* b_sliver = packed_b.get() + jr * depth;
          for (std::size_t ir = 0; ir < rows; ir += mr) {
            const float* a_sliver = packed_a.get() + ir * depth;
            float* tile = s + (ic + ir) * lds + jc + jr;
            if (ir + mr <= rows && jr + nr <= columns) {
              MicroKernel(depth, a_sliver, b_sliver, tile, lds, continue_sums);
            } else {
              EdgeTile(depth, a_sliver, b_sliver, tile, lds, std::min(mr, rows - ir), std::min(nr, columns - jr),
                       continue_sums);
            }
          }
        }
      }
    }
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace softfloat::matmul_detail
HWY_AFTER_NAMESPACE();

#endif  // SOFTFLOAT_MATMUL_GEMM_INL_H_ toggle
