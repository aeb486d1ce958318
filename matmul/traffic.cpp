// matmul_fast_path_traffic (softfloat/matmul.hpp): the block loops of gemm-inl.h and
// gemm_bf16_dot.cpp walked without the arithmetic, counting what each level moves.
#include <algorithm>

#include "matmul/blocking.hpp"
#include "matmul/paths.hpp"
#include "softfloat/matmul.hpp"

namespace softfloat {

Traffic matmul_fast_path_traffic(std::size_t m, std::size_t n, std::size_t k, bool pairs_of_products) {
  Traffic traffic;
  traffic.flops = matmul_flops(m, n, k);
  if (m == 0 || n == 0 || k == 0) return traffic;
  if (m == 1) {
    // x once, B once; y (n sums) stays in cache and is written once.
    traffic.reads = k + std::uint64_t(k) * n;
    traffic.writes = n;
    traffic.peak_fast_words = k + n;
    return traffic;
  }
  const matmul_detail::KernelShape tile =
      pairs_of_products ? matmul_detail::KernelShape{matmul_detail::kPairTileRows, matmul_detail::kPairTileColumns}
                        : matmul_detail::gemm_kernel_shape();
  const std::size_t depth_block = pairs_of_products ? matmul_detail::kPairDepth : matmul_detail::kDepth;
  const auto round_up = [](std::size_t x, std::size_t step) { return (x + step - 1) / step * step; };
  for (std::size_t jc = 0; jc < n; jc += matmul_detail::kPanelColumns) {
    const std::size_t columns = std::min(matmul_detail::kPanelColumns, n - jc);
    for (std::size_t pc = 0; pc < k; pc += depth_block) {
      const std::size_t depth = std::min(depth_block, k - pc);
      traffic.reads += std::uint64_t(depth) * columns;  // B block, packed once
      const std::uint64_t packed_b = std::uint64_t(depth) * round_up(columns, tile.columns);
      for (std::size_t ic = 0; ic < m; ic += matmul_detail::kBlockRows) {
        const std::size_t rows = std::min(matmul_detail::kBlockRows, m - ic);
        traffic.reads += std::uint64_t(rows) * depth;  // A block, packed once per B block
        // The C tiles: reloaded after the first depth block, stored after each.
        if (pc > 0) traffic.reads += std::uint64_t(rows) * columns;
        traffic.writes += std::uint64_t(rows) * columns;
        const std::uint64_t packed_a = std::uint64_t(round_up(rows, tile.rows)) * depth;
        traffic.peak_fast_words =
            std::max<std::uint64_t>(traffic.peak_fast_words, packed_a + packed_b + tile.rows * tile.columns);
      }
    }
  }
  return traffic;
}

}  // namespace softfloat
