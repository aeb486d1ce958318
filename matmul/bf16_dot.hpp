// The pairs-of-products paths: fp32-accumulated sums computed by the bf16 dot-product
// instruction (AVX512-BF16 vdpbf16ps), which multiplies two pairs of bf16 values and
// adds both products to an fp32 lane, each with one rounding to nearest even, treating
// subnormal inputs and results as zero. It runs twice as many multiply-adds per cycle
// as fp32 FMA, and its result is the in-order chain up to the order within each pair
// of products, when the rule of softfloat/matmul.hpp holds:
//   - every finite value of both operands is a bf16 value (at most 8 significant bits)
//     of magnitude >= 2^-126, so the instruction reads it exactly;
//   - each value is a multiple of 2^q for its operand's quantum q (the lowest bit of
//     its 8-bit significand), and q_a + q_b >= -126: every product and every partial
//     sum is a multiple of 2^(q_a + q_b), so no nonzero partial sum is subnormal and
//     nothing is flushed;
//   - 2^(e_a + 1) * 2^(e_b + 1) * k <= 2^127 for the largest exponents e_a, e_b: no
//     partial sum overflows, whatever the order.
// Infinities and NaNs are left out of the rule: they give the same infinities and NaNs
// in every order once no finite partial sum overflows.
#pragma once

#include <climits>
#include <cstddef>

#include "matmul/code_matrix.hpp"
#include "matmul/loop_nest.hpp"

namespace softfloat::matmul_detail {

// What the rules need to know of a set of fp32 values. Each value is read as the sum
// of pieces() bf16 values of 8 significant bits each: one for the pairs kernels, up to
// three (fp32's 24 bits) for the operand that the tile GEMM splits (tiles_are_exact).
struct Bf16Fit {
  bool subnormal = false;           // some value is an fp32 subnormal (the bf16 instructions read zero)
  bool infinities = false;          // some value is infinite
  int pieces_needed = 1;            // see pieces()
  int smallest_exponent = INT_MAX;  // min over nonzero finite values of floor(log2 |v|)
  int largest_exponent = INT_MIN;   // max over finite values of floor(log2 |v|)

  void add(const float* values, std::size_t count);
  // bf16 values per value: 1 when every finite value is a bf16 value, 2 within 16
  // significant bits (FP16, TF32), else 3.
  int pieces() const { return pieces_needed; }
  // Every finite value is a bf16 value >= 2^-126 in magnitude.
  bool bf16_values() const { return !subnormal && pieces_needed == 1; }
  // Every finite value, and each of its pieces, is a multiple of 2^smallest_quantum()
  // (its exponent less the pieces' 8 pieces() - 1 bits below the leading one).
  int smallest_quantum() const {
    return smallest_exponent == INT_MAX ? INT_MAX : smallest_exponent - (8 * pieces_needed - 1);
  }
};

// The fit of every value an operand can hold: for one-byte codes the format's 256
// decoded codes (a property of the format, nothing to scan), for wider codes the
// values of the rows x columns block actually present. The scan stops once the values
// need more than most_pieces pieces (the fit then says so).
Bf16Fit operand_fit(const CodeMatrix& x, std::size_t rows, std::size_t columns, int most_pieces = 1);

// The rule above for a k-term sum of products of the two sets.
bool pairs_are_exact(const Bf16Fit& a, const Bf16Fit& b, std::size_t k);

// Whether this CPU has vdpbf16ps and the byte permutes (AVX512-VBMI) of the
// matrix-vector path, and the build compiled them (x86-64 with GCC or Clang).
bool bf16_dot_supported();

// The loop nest's shape (loop_nest.hpp) of gemm_bf16_dot: 12 x 32 tiles, depth blocks
// of 384 steps packed as bf16 pairs.
LoopNestShape gemm_bf16_dot_shape();
// S = A * B for m, n, k >= 1 by pairs of products; call only when pairs_are_exact()
// holds for the operands and bf16_dot_supported().
void gemm_bf16_dot(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m,
                   std::size_t n, std::size_t k);

// y[j] (j < n, starting from +0) = the sum over p < k of x[p] * B[p][j] by pairs of
// products, B of one-byte codes. False (and y untouched) when the path does not apply
// to B's format: a code with bit 7 set whose value is not the negation of the code
// without it (the fnuz and P3109 formats, whose 0x80 is NaN). The byte tables of a
// format are made once per thread (runtime/remembered.hpp), not per call.
bool matvec_bf16_dot_applies(const Format& format);  // the condition of matvec_bf16_dot below
bool matvec_bf16_dot(const float* x, const CodeMatrix& b, float* y, std::size_t n, std::size_t k);

}  // namespace softfloat::matmul_detail
