// The tile GEMM: S = A * B through AMX TDPBF16PS (gemm_amx.cpp), for operands under
// the pairs rule of bf16_dot.hpp; call only when amx_usable() (amx_tiles.hpp).
#pragma once

#include <cstddef>

#include "matmul/code_matrix.hpp"

namespace softfloat::matmul_detail {

// Blocking: a packed B panel of kAmxDepth x kAmxPanelColumns bf16 (1 MiB) for L2, a
// packed A block of kAmxBlockRows x kAmxDepth bf16 (128 KiB), and per micro-kernel
// call two 32-column tile runs of B (32 KiB) streaming through L1.
inline constexpr std::size_t kAmxDepth = 256;
inline constexpr std::size_t kAmxBlockRows = 128;
inline constexpr std::size_t kAmxPanelColumns = 1024;

void gemm_amx(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m, std::size_t n,
              std::size_t k);

}  // namespace softfloat::matmul_detail
