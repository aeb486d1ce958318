// The tile GEMM: S = A * B through AMX TDPBF16PS (gemm_amx.cpp) in the loop nest of
// loop_nest.hpp, for operands under tiles_are_exact below; call only when amx_usable()
// (amx_tiles.hpp).
//
// Split operands. One operand may hold values of up to 24 significant bits (FP32, or
// FP16 / TF32 values of 11): each value v is then the exact sum of pieces() bf16 values
// (bf16_dot.hpp's Bf16Fit), cut from the top by truncation, so all of v's sign:
//   hi = v with the low 16 bits of its fp32 encoding cleared,
//   mid = (v - hi) likewise, lo = v - hi - mid   (each subtraction exact in fp32).
// Worked value: v = 1 + 2^-9 + 2^-20 (0x3F804008): hi = 0x3F80 (1), v - hi = 2^-9 +
// 2^-20, mid = 2^-9 (0x3B00), lo = 2^-20 (0x3580).
// Each depth step of 32 then runs one tile product per piece against the same tiles of
// the other operand: every product of a piece and a bf16 value is exact in fp32, and
// |hi| + |mid| + |lo| = |v|, so the sums obey the chain's error bound as long as no
// product passes through more roundings than in the chain (k - 1). In the tiles a
// product meets at most 15 additions in its half of a step, 1 joining the halves and
// pieces * ceil(k / 32) - 1 into C (the first, into +0, is exact): 15 + 3 ceil(k / 32)
// with 3 pieces, which is at most k - 1 for every k >= 32 (18 at k = 32).
#pragma once

#include <cstddef>

#include "matmul/bf16_dot.hpp"
#include "matmul/code_matrix.hpp"
#include "matmul/loop_nest.hpp"

namespace softfloat::matmul_detail {

constexpr std::size_t kSplitMinimumDepth = 32;

// The pairs rule (bf16_dot.hpp) for the tiles, which also admit one split operand: its
// pieces bf16 normals, the other operand free of infinities (an infinity times a zero
// piece would be a NaN), k >= kSplitMinimumDepth, and the pairs rule's bounds on the
// exponents of the pieces.
bool tiles_are_exact(const Bf16Fit& a, const Bf16Fit& b, std::size_t k);

// The nest's shape: a 32 x 32 block of C (four 16 x 16 tiles) per micro-kernel call;
// depth in steps of 32 (one tile), 512 a block, A blocks of 64 rows (64 KiB of bf16)
// and B panels of 1024 columns (1 MiB, in L2). Measured on a Sapphire Rapids class
// Xeon against depth blocks of 128 to 1024 and row blocks of 32 to 128: the deeper
// blocks save reloading the C tiles, and 512 x 64 was the fastest at 1024^3 and 2048^3.
// a_pieces / b_pieces: the bf16 pieces of each value of A / B (1 unless split).
LoopNestShape gemm_amx_shape(int a_pieces = 1, int b_pieces = 1);

void gemm_amx(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m, std::size_t n,
              std::size_t k, int a_pieces = 1, int b_pieces = 1);

}  // namespace softfloat::matmul_detail
