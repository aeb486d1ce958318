// The tile GEMM: S = A * B through AMX TDPBF16PS (gemm_amx.cpp) in the loop nest of
// loop_nest.hpp, for operands under the pairs rule of bf16_dot.hpp; call only when
// amx_usable() (amx_tiles.hpp).
#pragma once

#include <cstddef>

#include "matmul/code_matrix.hpp"
#include "matmul/loop_nest.hpp"

namespace softfloat::matmul_detail {

// The nest's shape: a 32 x 32 block of C (four 16 x 16 tiles) per micro-kernel call;
// depth in steps of 32 (one tile), 256 a block, so that a micro-kernel's B sliver
// (32 columns x 256, 16 KiB of bf16) stays in L1 while its A slivers stream from the
// packed A block (128 x 256, 64 KiB, in L2); B panels of 1024 columns (512 KiB).
LoopNestShape gemm_amx_shape();

void gemm_amx(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m, std::size_t n,
              std::size_t k);

}  // namespace softfloat::matmul_detail
