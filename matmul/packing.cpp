// Decoding and packing of GEMM operand blocks (layouts in packing.hpp).
#include "matmul/packing.hpp"

#include <algorithm>
#include <cstring>

namespace softfloat::matmul_detail {

void pack_a(const CodeMatrix& a, std::size_t row0, std::size_t col0, std::size_t rows, std::size_t depth,
            std::size_t mr, float* packed, float* scratch) {
  const std::size_t slivers = (rows + mr - 1) / mr;
  for (std::size_t s = 0; s < slivers; ++s) {
    float* sliver = packed + s * mr * depth;
    for (std::size_t r = 0; r < mr; ++r) {
      const std::size_t row = s * mr + r;
      if (row >= rows) {
        for (std::size_t p = 0; p < depth; ++p) sliver[p * mr + r] = 0.0f;
        continue;
      }
      a.decode_row(row0 + row, col0, depth, scratch);
      for (std::size_t p = 0; p < depth; ++p) sliver[p * mr + r] = scratch[p];
    }
  }
}

void pack_b(const CodeMatrix& b, std::size_t row0, std::size_t col0, std::size_t depth, std::size_t columns,
            std::size_t nr, float* packed, float* scratch) {
  const std::size_t slivers = (columns + nr - 1) / nr;
  for (std::size_t p = 0; p < depth; ++p) {
    b.decode_row(row0 + p, col0, columns, scratch);
    for (std::size_t s = 0; s < slivers; ++s) {
      float* out = packed + s * nr * depth + p * nr;
      const std::size_t width = std::min(nr, columns - s * nr);
      std::memcpy(out, scratch + s * nr, width * sizeof(float));
      std::fill(out + width, out + nr, 0.0f);
    }
  }
}

}  // namespace softfloat::matmul_detail
