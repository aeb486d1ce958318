// Internal entry points of the matmul kernels, for the library, the tests and the
// benchmarks. Each computes the sum S of the documentation in softfloat/matmul.hpp into
// s (row stride lds) for m, n >= 1; arguments are not checked here (detail::matmul does
// that), and the caller sets the default floating-point environment for the fp32 paths.
#pragma once

#include <cstddef>

#include "matmul/byte_decode.hpp"
#include "matmul/code_matrix.hpp"
#include "matmul/loop_nest.hpp"
#include "softfloat/format.hpp"

namespace softfloat::matmul_detail {

// Acc = FP32: the blocked, packed GEMM on the dispatched Highway target.
void gemm_fp32(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m, std::size_t n,
               std::size_t k);
// Acc = FP32, m = 1: the matrix-vector path, decoding B inside its loop; by pairs of
// products (bf16_dot.hpp) when `pairs`, which the caller sets only where the kernel
// choice (kernel_choice.hpp) named that kernel. short_rows: the rows per pass of the
// short decodings (8 or 16; 0 takes kernel_rule.hpp's matvec_rows_per_pass for this CPU,
// as every library call does; the tests run both shapes on any CPU).
void matvec_fp32(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t n, std::size_t k, bool pairs,
                 std::size_t short_rows = 0);
// y (n running sums) continued over `count` rows of fp32 values (row stride ld) by the
// in-order chain y[j] = MulAdd(x[p], rows[p][j], y[j]), p in order: the matrix-vector
// loop for weights decoded elsewhere (block_formats/block_scaled_matmul.cpp).
void matvec_rows_fp32(const float* x, const float* rows, std::size_t ld, std::size_t count, std::size_t n, float* y);
// y continued over `count` rows of one-byte codes (row stride ld) decoded by the half
// rule `half` (byte_decode.hpp's half_byte_decode_for of the codes' format, whose
// decoding is `table`), each column's values times column_scale[j]: block-scaled MXFP8
// weights, one call per block of rows. The caller makes sure every value times its scale
// is finite. False (y untouched) when the rule differs from the table on this target.
bool matvec_column_scaled_bytes(const float* x, const std::uint8_t* codes, std::size_t ld, std::size_t count,
                                std::size_t n, const float table[256], const HalfByteDecode& half,
                                const float* column_scale, float* y);
// The in-register decodings of one-byte codes that matvec_fp32 tries in this order
// (byte_decode.hpp): the half rule (F16C), the fp32 rule, the table.
enum class ByteRule { half, fp32, table };
// matvec_fp32 without pairs for one-byte B, by `rule` alone: false when the rule does
// not apply to B's format on the dispatched target (s then holds zeros).
bool matvec_fp32_by_rule(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t n, std::size_t k,
                         ByteRule rule);
// Any accumulator format: one running sum per element in k order, each step one
// fused multiply-add rounded to `accumulator` by round_to_format(). In vector lanes on
// the dispatched Highway target where accumulator_in_lanes(accumulator) (the columns
// split among threads), else accumulate_exact_scalar; both give the same bits.
void accumulate_exact(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m,
                      std::size_t n, std::size_t k, const Format& accumulator);
// The definition itself, one ExactValue step at a time: the reference.
void accumulate_exact_scalar(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m,
                             std::size_t n, std::size_t k, const Format& accumulator);
// Whether accumulate_exact computes in vector lanes for this accumulator
// (exact_accumulation.cpp says which formats, and why).
bool accumulator_in_lanes(const Format& accumulator);

// The loop nest's shape (register tile, depth block) of gemm_fp32 on the dispatched
// target.
LoopNestShape gemm_fp32_shape();

}  // namespace softfloat::matmul_detail
