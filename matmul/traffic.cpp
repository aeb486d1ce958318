// matmul_fast_path_traffic (softfloat/matmul.hpp): the GEMMs' loop nest (loop_nest.hpp)
// walked with a counter in place of the packer and micro-kernel, so that the count
// follows the loops that run, block for block and tile for tile.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "matmul/amx_gemm.hpp"
#include "matmul/bf16_dot.hpp"
#include "matmul/loop_nest.hpp"
#include "matmul/kernels.hpp"
#include "softfloat/matmul.hpp"

namespace softfloat {

namespace {

using matmul_detail::LoopNestShape;
using matmul_detail::NestBlock;
using matmul_detail::NestTile;

struct TrafficCounter {
  const LoopNestShape& shape;
  Traffic& traffic;
  std::uint64_t packed_b = 0;  // values of the packed B block in cache

  // Packed values of `extent` rows or columns padded to whole slivers of `sliver`, by
  // the depth padded as the kernel packs it.
  std::uint64_t packed(std::size_t extent, std::size_t sliver, std::size_t depth) const {
    return std::uint64_t(matmul_detail::round_up_to_multiple(extent, sliver)) *
           matmul_detail::round_up_to_multiple(depth, shape.depth_step);
  }
  // A block of B is read once and packed.
  void pack_b(const NestBlock& block) {
    traffic.reads += std::uint64_t(block.depth) * block.columns;
    packed_b = packed(block.columns, shape.tile_columns, block.depth) * shape.b_pieces;
  }
  // A block of A is read once per B block and packed beside it; with one tile of C in
  // registers, that is what the fast memory holds.
  void pack_a(const NestBlock& block) {
    traffic.reads += std::uint64_t(block.rows) * block.depth;
    const std::uint64_t fast = packed(block.rows, shape.tile_rows, block.depth) * shape.a_pieces + packed_b +
                               std::uint64_t(shape.tile_rows) * shape.tile_columns;
    traffic.peak_fast_words = std::max(traffic.peak_fast_words, fast);
  }
  // Each tile of C is loaded unless its sums start from +0, and stored.
  void tile(const NestBlock& block, const NestTile& tile) {
    const std::uint64_t words = std::uint64_t(tile.rows) * tile.columns;
    if (block.continue_sums()) traffic.reads += words;
    traffic.writes += words;
  }
};

}  // namespace

Traffic matmul_fast_path_traffic(std::size_t m, std::size_t n, std::size_t k, MatmulKernel kernel) {
  namespace md = matmul_detail;
  if (kernel != MatmulKernel::fma_gemm && kernel != MatmulKernel::pairs_gemm && kernel != MatmulKernel::tiles_gemm &&
      kernel != MatmulKernel::fma_matvec && kernel != MatmulKernel::pairs_matvec)
    throw std::invalid_argument("softfloat::matmul_fast_path_traffic: the " +
                                std::string(matmul_kernel_name(kernel)) + " kernel has no blocking to count");
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
  const LoopNestShape shape = kernel == MatmulKernel::pairs_gemm   ? md::gemm_bf16_dot_shape()
                              : kernel == MatmulKernel::tiles_gemm ? md::gemm_amx_shape()
                                                                   : md::gemm_fp32_shape();
  TrafficCounter counter{shape, traffic};
  md::for_each_block(shape, m, n, k, counter);
  return traffic;
}

Traffic matmul_fast_path_traffic(std::size_t m, std::size_t n, std::size_t k, bool pairs_of_products) {
  return matmul_fast_path_traffic(m, n, k, pairs_of_products ? MatmulKernel::pairs_gemm : MatmulKernel::fma_gemm);
}

}  // namespace softfloat
