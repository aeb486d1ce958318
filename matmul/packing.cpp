// Decoding and packing of GEMM operand blocks (layouts in packing.hpp).
#include "matmul/packing.hpp"

#include <algorithm>
#include <cstring>

namespace softfloat::matmul_detail {

template <class Words>
SliverPacker<Words>::SliverPacker(const CodeMatrix& a, const CodeMatrix& b, const LoopNestShape& shape,
                                  std::size_t n, std::size_t k)
    : a_(a),
      b_(b),
      shape_(shape),
      panel_columns_(std::min(shape.panel_columns, round_up_to_multiple(n, shape.tile_columns))),
      scratch_(Words::values * std::max(shape.packed_depth(std::min(shape.depth_block, k)), panel_columns_)) {}

template <class Words>
void SliverPacker<Words>::pack_a(const NestBlock& block, Word* packed) {
  const std::size_t mr = shape_.tile_rows, words = shape_.packed_depth(block.depth);
  float* row_values = scratch_.data();
  std::fill(row_values + block.depth, row_values + words * Words::values, 0.0f);  // pads the depth
  const std::size_t slivers = (block.rows + mr - 1) / mr;
  for (std::size_t s = 0; s < slivers; ++s) {
    Word* sliver = packed + s * mr * words;
    for (std::size_t r = 0; r < mr; ++r) {
      const std::size_t row = s * mr + r;
      if (row >= block.rows) {
        for (std::size_t t = 0; t < words; ++t) sliver[t * mr + r] = Word{0};
        continue;
      }
      a_.decode_row(block.row0 + row, block.depth0, block.depth, row_values);
      for (std::size_t t = 0; t < words; ++t) sliver[t * mr + r] = Words::word(row_values + t * Words::values, 1);
    }
  }
}

template <class Words>
void SliverPacker<Words>::pack_b(const NestBlock& block, Word* packed) {
  const std::size_t nr = shape_.tile_columns, columns = block.columns, stride = panel_columns_;
  const std::size_t words = shape_.packed_depth(block.depth);
  float* rows = scratch_.data();  // the `values` rows of word t, `stride` apart
  const std::size_t slivers = (columns + nr - 1) / nr;
  for (std::size_t t = 0; t < words; ++t) {
    for (std::size_t v = 0; v < Words::values; ++v) {
      const std::size_t p = t * Words::values + v;
      if (p < block.depth) {
        b_.decode_row(block.depth0 + p, block.column0, columns, rows + v * stride);
      } else {
        std::fill(rows + v * stride, rows + v * stride + columns, 0.0f);  // pads the depth
      }
    }
    for (std::size_t s = 0; s < slivers; ++s) {
      Word* out = packed + s * nr * words + t * nr;
      const std::size_t width = std::min(nr, columns - s * nr);
      if constexpr (Words::values == 1) {
        std::memcpy(out, rows + s * nr, width * sizeof(Word));  // the library's memcpy: wide vectors
      } else {
        for (std::size_t c = 0; c < width; ++c) out[c] = Words::word(rows + s * nr + c, stride);
      }
      std::fill(out + width, out + nr, Word{0});
    }
  }
}

template class SliverPacker<Fp32Words>;
template class SliverPacker<Bf16PairWords>;

}  // namespace softfloat::matmul_detail
