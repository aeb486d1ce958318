// The pairs-of-products GEMM (bf16_dot.hpp): the blocking of the fp32 GEMM
// (blocking.hpp), with A and B packed as bf16 pairs and a vdpbf16ps micro-kernel.
// Raw AVX512-BF16 intrinsics in functions compiled for that instruction set only,
// called after bf16_dot_supported() has checked the CPU.
//
// Packed layouts. A pair t holds depth steps 2t and 2t + 1 (a zero pads an odd depth),
// as one 32-bit word per element: the bf16 of step 2t in the low half, of step 2t + 1
// in the high half, which is how vdpbf16ps pairs its operands. A sliver of A is pairs x
// MR words (the MR rows of pair t one after the other, each broadcast to a vector);
// a sliver of B is pairs x NR words (NR = 32 columns: two vectors per pair).
//
// Summation order. The kernel's 12 x 32 tile of fp32 sums starts from +0 in the first
// depth block and from C's stored values in the next ones (as in gemm-inl.h), and each
// vdpbf16ps adds the two products of one pair to each sum.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "matmul/bf16_dot.hpp"
#include "matmul/bf16_dot_target.hpp"
#include "matmul/blocking.hpp"


namespace softfloat::matmul_detail {

bool bf16_dot_supported() {
#if SOFTFLOAT_HAVE_BF16_DOT
  static const bool supported = __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512vbmi") &&
                                __builtin_cpu_supports("avx512bw");
  return supported;
#else
  return false;
#endif
}

#if SOFTFLOAT_HAVE_BF16_DOT
namespace {

constexpr std::size_t kTileRows = kPairTileRows;        // MR: 24 accumulators of 16 lanes
constexpr std::size_t kTileColumns = kPairTileColumns;  // NR: two vectors

// The two bf16 halves of a pair word: each value is a bf16 value (the rule), so its
// fp32 bits end in 16 zeros and the top 16 are its bf16 code.
std::uint32_t pair_word(float low, float high) {
  return (std::bit_cast<std::uint32_t>(low) >> 16) | (std::bit_cast<std::uint32_t>(high) & 0xFFFF0000u);
}

void pack_a_pairs(const CodeMatrix& a, std::size_t row0, std::size_t col0, std::size_t rows, std::size_t depth,
                  std::uint32_t* packed, float* scratch) {
  const std::size_t pairs = (depth + 1) / 2;
  const std::size_t slivers = (rows + kTileRows - 1) / kTileRows;
  for (std::size_t s = 0; s < slivers; ++s) {
    std::uint32_t* sliver = packed + s * kTileRows * pairs;
    for (std::size_t r = 0; r < kTileRows; ++r) {
      const std::size_t row = s * kTileRows + r;
      if (row >= rows) {
        for (std::size_t t = 0; t < pairs; ++t) sliver[t * kTileRows + r] = 0;
        continue;
      }
      a.decode_row(row0 + row, col0, depth, scratch);
      scratch[depth] = 0.0f;  // pads an odd depth
      for (std::size_t t = 0; t < pairs; ++t) sliver[t * kTileRows + r] = pair_word(scratch[2 * t], scratch[2 * t + 1]);
    }
  }
}

void pack_b_pairs(const CodeMatrix& b, std::size_t row0, std::size_t col0, std::size_t depth, std::size_t columns,
                  std::uint32_t* packed, float* low, float* high) {
  const std::size_t pairs = (depth + 1) / 2;
  const std::size_t slivers = (columns + kTileColumns - 1) / kTileColumns;
  for (std::size_t t = 0; t < pairs; ++t) {
    b.decode_row(row0 + 2 * t, col0, columns, low);
    if (2 * t + 1 < depth) {
      b.decode_row(row0 + 2 * t + 1, col0, columns, high);
    } else {
      std::fill(high, high + columns, 0.0f);
    }
    for (std::size_t s = 0; s < slivers; ++s) {
      std::uint32_t* out = packed + s * kTileColumns * pairs + t * kTileColumns;
      const std::size_t width = std::min(kTileColumns, columns - s * kTileColumns);
      for (std::size_t c = 0; c < width; ++c) out[c] = pair_word(low[s * kTileColumns + c], high[s * kTileColumns + c]);
      std::fill(out + width, out + kTileColumns, 0u);
    }
  }
}

// The 12 x 32 tile at c (row stride ldc): continue_sums ? c : +0, then for each pair t,
// c[r][j] += both products of a's pair t of row r and b's pair t of column j.
SOFTFLOAT_BF16_DOT_TARGET void micro_kernel(std::size_t pairs, const std::uint32_t* __restrict a,
                                            const std::uint32_t* __restrict b, float* __restrict c, std::size_t ldc,
                                            bool continue_sums) {
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

// A tile cut by the edge of C, through a full tile on the stack.
void edge_tile(std::size_t pairs, const std::uint32_t* a, const std::uint32_t* b, float* c, std::size_t ldc,
               std::size_t rows, std::size_t columns, bool continue_sums) {
  alignas(64) float tile[kTileRows * kTileColumns] = {};
  if (continue_sums)
    for (std::size_t r = 0; r < rows; ++r) std::memcpy(tile + r * kTileColumns, c + r * ldc, columns * sizeof(float));
  micro_kernel(pairs, a, b, tile, kTileColumns, continue_sums);
  for (std::size_t r = 0; r < rows; ++r) std::memcpy(c + r * ldc, tile + r * kTileColumns, columns * sizeof(float));
}

}  // namespace

void gemm_bf16_dot(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m,
                   std::size_t n, std::size_t k) {
  const auto round_up = [](std::size_t x, std::size_t step) { return (x + step - 1) / step * step; };
  const std::size_t panel_columns = std::min(kPanelColumns, round_up(n, kTileColumns));
  const std::size_t depth_most = std::min(kPairDepth, round_up(k, 2));
  const std::size_t block_rows = std::min(kBlockRows, round_up(m, kTileRows));
  const auto packed_b = hwy::AllocateAligned<std::uint32_t>(depth_most / 2 * panel_columns);
  const auto packed_a = hwy::AllocateAligned<std::uint32_t>(block_rows * depth_most / 2);
  std::vector<float> scratch(std::max(depth_most + 1, 2 * panel_columns));

  for (std::size_t jc = 0; jc < n; jc += kPanelColumns) {
    const std::size_t columns = std::min(kPanelColumns, n - jc);
    for (std::size_t pc = 0; pc < k; pc += kPairDepth) {
      const std::size_t depth = std::min(kPairDepth, k - pc);
      const std::size_t pairs = (depth + 1) / 2;
      const bool continue_sums = pc > 0;
      pack_b_pairs(b, pc, jc, depth, columns, packed_b.get(), scratch.data(), scratch.data() + panel_columns);
      for (std::size_t ic = 0; ic < m; ic += kBlockRows) {
        const std::size_t rows = std::min(kBlockRows, m - ic);
        pack_a_pairs(a, ic, pc, rows, depth, packed_a.get(), scratch.data());
        for (std::size_t jr = 0; jr < columns; jr += kTileColumns) {
          const std::uint32_t* b_sliver = packed_b.get() + jr * pairs;
          for (std::size_t ir = 0; ir < rows; ir += kTileRows) {
            const std::uint32_t* a_sliver = packed_a.get() + ir * pairs;
            float* tile = s + (ic + ir) * lds + jc + jr;
            if (ir + kTileRows <= rows && jr + kTileColumns <= columns) {
              micro_kernel(pairs, a_sliver, b_sliver, tile, lds, continue_sums);
            } else {
              edge_tile(pairs, a_sliver, b_sliver, tile, lds, std::min(kTileRows, rows - ir),
                        std::min(kTileColumns, columns - jr), continue_sums);
            }
          }
        }
      }
    }
  }
}

#else  // no x86-64 GCC / Clang: bf16_dot_supported() is false and this is never called

void gemm_bf16_dot(const CodeMatrix&, const CodeMatrix&, float*, std::size_t, std::size_t, std::size_t,
                   std::size_t) {}

#endif

}  // namespace softfloat::matmul_detail
