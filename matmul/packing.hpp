// Decoding and packing of the GEMM's operand blocks into the layout the micro-kernel
// streams through: contiguous slivers, each read front to back exactly once per use.
// The codes are decoded here, a row at a time with simd::dequantize, so that each
// block is decoded once however many micro-kernel calls then use it.
#pragma once

#include <cstddef>

#include "matmul/code_matrix.hpp"

namespace softfloat::matmul_detail {

// A block of A, rows [row0, row0 + rows) and columns [col0, col0 + depth), as slivers
// of `mr` rows: sliver s is depth x mr floats, the mr values of column p one after the
// other, A[row0 + s*mr + r][col0 + p] at packed[s*mr*depth + p*mr + r]. Rows beyond the
// block (the last sliver's padding) are zero. `scratch` holds `depth` floats.
void pack_a(const CodeMatrix& a, std::size_t row0, std::size_t col0, std::size_t rows, std::size_t depth,
            std::size_t mr, float* packed, float* scratch);

// A block of B, rows [row0, row0 + depth) and columns [col0, col0 + columns), as
// slivers of `nr` columns: sliver s is depth x nr floats, B[row0 + p][col0 + s*nr + c]
// at packed[s*nr*depth + p*nr + c]. Columns beyond the block are zero. `scratch`
// holds `columns` floats.
void pack_b(const CodeMatrix& b, std::size_t row0, std::size_t col0, std::size_t depth, std::size_t columns,
            std::size_t nr, float* packed, float* scratch);

}  // namespace softfloat::matmul_detail
