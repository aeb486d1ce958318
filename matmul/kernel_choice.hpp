// The kernel a matmul call takes (softfloat/matmul_summation.hpp's MatmulKernel): the one
// decision that the entry point acts on and matmul_path() reports, so the two agree.
#pragma once

#include <cstddef>

#include "matmul/code_matrix.hpp"
#include "softfloat/format.hpp"
#include "softfloat/matmul_summation.hpp"

namespace softfloat::matmul_detail {

struct KernelChoice {
  MatmulKernel kernel = MatmulKernel::none;
  int a_pieces = 1, b_pieces = 1;  // the bf16 pieces of a split operand of the tile GEMM (amx_gemm.hpp)
};

// The kernel for S = A * B (A m x k, B k x n) with `accumulator` in order `summation`.
// With `look_at_values`, operands of wider codes are scanned for the pairs rule
// (bf16_dot.hpp) or the tiles' (amx_gemm.hpp); without, their codes are not read (they
// may be null) and the rule is taken to hold for them with as many pieces as their
// format's significand needs, as it holds for every value that a one-byte format can
// hold.
KernelChoice choose_kernel(const CodeMatrix& a, const CodeMatrix& b, std::size_t m, std::size_t n, std::size_t k,
                           const Format& accumulator, MatmulSummation summation, bool look_at_values);

}  // namespace softfloat::matmul_detail
