// The tile GEMM: S = A * B through AMX TDPBF16PS (gemm_amx.cpp) in the loop nest of
// loop_nest.hpp, for operands under the pairs rule of bf16_dot.hpp; call only when
// amx_usable() (amx_tiles.hpp).
#pragma once

#include <cstddef>

#include "matmul/code_matrix.hpp"
#include "matmul/loop_nest.hpp"

namespace softfloat::matmul_detail {

// The nest's shape: a 32 x 32 block of C (four 16 x 16 tiles) per micro-kernel call;
// depth in steps of 32 (one tile), 512 a block, A blocks of 64 rows (64 KiB of bf16)
// and B panels of 1024 columns (1 MiB, in L2). Measured on a Sapphire Rapids class
// Xeon against depth blocks of 128 to 1024 and row blocks of 32 to 128: the deeper
// blocks save reloading the C tiles, and 512 x 64 was the fastest at 1024^3 and 2048^3.
LoopNestShape gemm_amx_shape();

void gemm_amx(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m, std::size_t n,
              std::size_t k);

}  // namespace softfloat::matmul_detail
