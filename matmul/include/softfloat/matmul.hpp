// Mixed-precision matrix multiply: A and B hold codes of low-precision formats, the
// products of their values are summed in an accumulator format, and C receives the
// sums as float. Row-major throughout: A is m x k, B is k x n, C is m x n, element
// (i, j) of a matrix with leading dimension ld at [i * ld + j].
//
//   std::vector<std::uint8_t> a(m * k), b(k * n);   // E4M3 codes
//   std::vector<float> c(m * n);
//   softfloat::matmul<softfloat::E4M3, softfloat::E4M3>(a.data(), b.data(), c.data(), m, n, k);
//   softfloat::matmul<softfloat::E4M3, softfloat::E4M3, softfloat::BF16>(...);  // bf16 accumulator
//
// What is computed, for every element. Each input code is first decoded to fp32 as
// simd::dequantize does (exact for every format whose values fp32 holds: all the named
// formats but FP64; a value beyond fp32's range becomes infinity). The sum S over
// p = 0 .. k-1 of a_ip * b_pj is then formed in k order, as one hardware accumulator
// register would see it:
//
//   Acc = FP32 (the default; the fast paths), summation MatmulSummation::in_order:
//     c = +0, then c = fma(a_ip, b_pj, c) for p = 0, 1, ..., k-1, one fp32 fused
//     multiply-add per step, rounded to nearest even. The blocked GEMM carries the
//     running sum through memory from one depth block to the next and the
//     matrix-vector path (m = 1) runs the same chain, so the result is this chain
//     whatever the block sizes, shape and thread count: on targets with FMA (AVX2,
//     AVX-512) it equals, bit for bit, the general definition below with Acc = FP32.
//     On targets without FMA (SSSE3, SSE4, the scalar fallback) each step is a product
//     rounded to fp32 and then a sum rounded to fp32, which gives the same bits
//     whenever fp32 holds every product exactly: always for FP16 and the FP8 / FP6 /
//     FP4 element formats (E5M2, E4M3, E3M2, E2M3, E2M1, the fnuz variants) in any
//     pair, whose products have at most 22 significant bits and lie between 2^-48 and
//     2^32; for BF16 and TF32 inputs unless a product leaves fp32's normal range; for
//     FP32 inputs only when the product fits in 24 bits.
//   Acc = FP32, summation MatmulSummation::pairs: the same chain, except where the
//     CPU has the bf16 dot-product instruction (AVX512-BF16 vdpbf16ps) and every
//     input value is a bf16 value in a range where that instruction is exact per
//     product (the rule below, "pairs of products"): then
//     c = +0 and, for each pair p = 2t, 2t + 1 (a zero product pads an odd k), c
//     receives both products a_ip * b_pj, each exact in fp32, with one fp32 rounding
//     to nearest even per product, in the order the instruction adds them. The result
//     is the same chain up to the order within each pair, so it obeys the same error
//     bound; it is not bit-identical to the in-order chain, nor promised across CPUs.
//     Pairs of products (matmul/bf16_dot.hpp): every finite input value has at most 8
//     significant bits and an fp32 exponent, each nonzero product is a multiple of a
//     power of two >= 2^-126 (so no partial sum is ever an fp32 subnormal, which the
//     instruction would flush), and k times the largest product stays below 2^127 (so
//     no partial sum overflows in one order and not in the other). E4M3, E5M2, E3M2,
//     E2M3, E2M1 and their mixes always qualify; BF16 inputs qualify when their values
//     do (the call looks at them: tiny or huge BF16 values keep the in-order chain).
//     Infinities and NaNs keep their IEEE meaning either way (a NaN may carry another
//     payload).
//   Acc = FP32, summation MatmulSummation::tiles (GEMM shapes, m > 1): the in-order
//     chain, except where the CPU has AMX tiles (AMX-TILE and AMX-BF16, Intel Xeon
//     from Sapphire Rapids on), the system lets the process use them, and the pairs
//     rule below holds: then TDPBF16PS computes, for each block of 32 depth steps
//     p = 32 q .. 32 q + 31 (zeros pad the last), two fp32 sums from +0, e over the
//     even steps and o over the odd steps, each in k order with one rounding to
//     nearest even per addition, and c = fl(c + fl(e + o)), starting from c = +0.
//     Every value on the way is a partial sum of the same products, so the result
//     obeys the same error bound; it is not bit-identical to the in-order chain or to
//     pairs. One operand may instead hold values of more than 8 significant bits
//     (FP32; FP16 and TF32 have 11) when k >= 32 and the other operand's values are
//     bf16 values without infinities: each such value v is the exact sum of two or
//     three bf16 pieces of v's sign, hi + mid + lo, each the leading 8 bits of what
//     remains, and each block of 32 steps runs the above once per piece (hi, mid,
//     lo) against the other operand's same values. Every piece must be a multiple of
//     2^-126 or more and the pairs rule's bounds must hold for the pieces' products;
//     as |hi| + |mid| + |lo| = |v| and no product meets more roundings than in the
//     chain (15 + 3 ceil(k / 32) <= k - 1), the same error bound holds (the reasoning
//     is in matmul/amx_gemm.hpp). The matrix-vector shape (m = 1) keeps the in-order
//     chain.
//   Acc = FP32, summation MatmulSummation::fastest (the default): in_order, pairs or
//     tiles, per shape (GEMM or matrix-vector), as the table of
//     softfloat/matmul_summation.hpp says for this CPU: tiles for the GEMM where AMX runs
//     (Intel Sapphire and Emerald Rapids), pairs where vdpbf16ps is measured faster
//     than FMA (AMD Zen 4 and 5, and Intel's matrix-vector product), the in-order
//     chain elsewhere (and every CPU the table does not name). The table is keyed by cpuid alone, never by a
//     timing, so a CPU always gives the same bits; matmul_path() names the kernel.
//   Any other Acc (BF16, FP16, E5M2, FP64, ...): c = +0, then c = round(a_ip * b_pj + c)
//     for p = 0, 1, ..., k-1, where the product and the sum are exact and round() is
//     round_to_format() to Acc, nearest even, the format's overflow rule: one fused
//     rounding per step, as the fused multiply-add of a hardware accumulator does.
//     The last c is converted to float (exact when fp32 holds Acc's values).
//
// Either way the error of S is at most k*u/(1 - k*u) * sum_p |a_ip| |b_pj| with u the
// unit roundoff of Acc (2^-24 for FP32, 2^-8 for BF16), while Acc's range suffices.
// Results never depend on the caller's rounding mode or flush-to-zero settings: the
// call sets the default floating-point environment for its duration.
//
// alpha and beta (C = alpha * A * B + beta * C) are applied to S in fp32, whatever
// Acc is, because C is float: the accumulator format governs the k-sum only.
//   beta == 0:  C = fl(alpha * S); C is not read, so NaN or garbage in it is ignored
//               (the BLAS convention).
//   otherwise:  C = fl(fl(alpha * S) + fl(beta * C)), each fl() one fp32 rounding to
//               nearest even. alpha == 1 and beta == 1 make their products exact, so
//               C = S + C with one rounding.
//
// Paths: Acc = FP32 with m = 1 takes a matrix-vector loop that decodes B as it reads
// it (a one-byte format reads a quarter of fp32's bytes); other shapes a cache-blocked
// GEMM that decodes packed panels of A and B once (to fp32 for a Highway FMA
// micro-kernel dispatched at run time to the CPU's best instruction set, or to bf16
// pairs for the vdpbf16ps kernel); any other Acc a scalar loop over the one rounding
// routine. The fp32 paths split the columns of C among softfloat::num_threads()
// threads (softfloat/threads.hpp; one by default) when the product is large enough to
// gain from it; each element is computed by one thread in the order above, so the
// thread count never changes the result. Codes are one per element, in the low bits
// (E2M1 in the low nibble of a byte; the dense layouts of simd::quantize_packed are not
// read here). C must not overlap A or B.
//
// Bad arguments throw std::invalid_argument with a message: a null pointer for a
// matrix with elements, a leading dimension smaller than the row length (lda < k,
// ldb < n, ldc < n), a format that is not valid or has more bits than its code type,
// a matrix too large to address, C overlapping A or B. Sizes of zero are allowed (C
// is then left as it is when m or n is 0, and is alpha * 0 + beta * C when k is 0).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "softfloat/float.hpp"
#include "softfloat/format.hpp"
#include "softfloat/matmul_model.hpp"  // the counted models of the same computation
#include "softfloat/matmul_summation.hpp"   // MatmulSummation, and which kernel a call takes
#include "softfloat/named_formats.hpp"

namespace softfloat {

// The code types of the runtime overloads: one code per element, in the low bits.
template <class Code>
concept MatmulCode =
    std::same_as<Code, std::uint8_t> || std::same_as<Code, std::uint16_t> || std::same_as<Code, std::uint32_t>;

// The traffic of the fast paths' own blocking (matmul/blocking.hpp), counted as their
// loops run on one thread, in the terms of the counted models (matmul_model.hpp): words
// read from and written to main memory (codes of A and B, and C's fp32 running sums,
// which the blocked GEMM stores and reloads between depth blocks), FLOPs (2 m n k), and
// the most words its packed blocks hold in cache at once, for the blocking of `kernel`
// (fma gemm, vdpbf16ps pairs gemm or amx tiles gemm; any other kernel throws
// std::invalid_argument); m = 1 counts the matrix-vector loop, which reads x and B once
// and keeps y in cache. `pairs_of_products` picks the vdpbf16ps GEMM instead of the
// FMA GEMM's.
Traffic matmul_fast_path_traffic(std::size_t m, std::size_t n, std::size_t k, MatmulKernel kernel);
Traffic matmul_fast_path_traffic(std::size_t m, std::size_t n, std::size_t k, bool pairs_of_products = false);

namespace detail {
// One operand of the compiled entry point: codes of `format`, `code_bytes` bytes each
// (1, 2 or 4), row-major with leading dimension `ld`.
struct MatmulOperand {
  const void* codes = nullptr;
  std::size_t code_bytes = 1;
  Format format;
  std::size_t ld = 0;
};
// Checks every argument, then C = alpha * S + beta * C as documented above, S summed
// in the order `summation` (for an fp32 accumulator).
void matmul(float alpha, const MatmulOperand& a, const MatmulOperand& b, float beta, float* c, std::size_t ldc,
            std::size_t m, std::size_t n, std::size_t k, const Format& accumulator, MatmulSummation summation);
}  // namespace detail

// Every form ends with an optional MatmulSummation: the order of this call's fp32 sums.
// Left out, it is the process-wide default (set_matmul_summation), read as the call
// starts; given, it is this call's alone, so threads may multiply in different orders
// at once.

// Runtime formats. The code types are chosen per operand (uint8_t, uint16_t or
// uint32_t, each at least as wide as its format), so for instance E4M3 codes in bytes
// multiply bf16 codes in uint16_t. `accumulator` may be any valid Format.
template <MatmulCode CodeA, MatmulCode CodeB>
void matmul(float alpha, const CodeA* A, const Format& format_a, std::size_t lda, const CodeB* B,
            const Format& format_b, std::size_t ldb, float beta, float* C, std::size_t ldc, std::size_t m,
            std::size_t n, std::size_t k, const Format& accumulator = binary32_format,
            MatmulSummation summation = matmul_summation()) {
  detail::matmul(alpha, detail::MatmulOperand{A, sizeof(CodeA), format_a, lda},
                 detail::MatmulOperand{B, sizeof(CodeB), format_b, ldb}, beta, C, ldc, m, n, k, accumulator,
                 summation);
}
template <MatmulCode CodeA, MatmulCode CodeB>
void matmul(const CodeA* A, const Format& format_a, const CodeB* B, const Format& format_b, float* C,
            std::size_t m, std::size_t n, std::size_t k, const Format& accumulator = binary32_format,
            MatmulSummation summation = matmul_summation()) {
  matmul(1.0f, A, format_a, k, B, format_b, n, 0.0f, C, n, m, n, k, accumulator, summation);
}

// Typed forms: FA and FB are Float types of at most 32 bits (storage uint8_t,
// uint16_t or uint32_t), Acc any Float type.
template <class FA, class FB, class Acc = FP32>
  requires FloatType<FA> && FloatType<FB> && FloatType<Acc>
void matmul(float alpha, const typename FA::storage_type* A, std::size_t lda, const typename FB::storage_type* B,
            std::size_t ldb, float beta, float* C, std::size_t ldc, std::size_t m, std::size_t n, std::size_t k,
            MatmulSummation summation = matmul_summation()) {
  static_assert(MatmulCode<typename FA::storage_type> && MatmulCode<typename FB::storage_type>,
                "softfloat::matmul: input formats of at most 32 bits");
  matmul(alpha, A, FA::format, lda, B, FB::format, ldb, beta, C, ldc, m, n, k, Acc::format, summation);
}
// C = A * B with leading dimensions.
template <class FA, class FB, class Acc = FP32>
  requires FloatType<FA> && FloatType<FB> && FloatType<Acc>
void matmul(const typename FA::storage_type* A, std::size_t lda, const typename FB::storage_type* B, std::size_t ldb,
            float* C, std::size_t ldc, std::size_t m, std::size_t n, std::size_t k,
            MatmulSummation summation = matmul_summation()) {
  matmul<FA, FB, Acc>(1.0f, A, lda, B, ldb, 0.0f, C, ldc, m, n, k, summation);
}
// C = A * B, densely stored (the contract's form).
template <class FA, class FB, class Acc = FP32>
  requires FloatType<FA> && FloatType<FB> && FloatType<Acc>
void matmul(const typename FA::storage_type* A, const typename FB::storage_type* B, float* C, std::size_t m,
            std::size_t n, std::size_t k, MatmulSummation summation = matmul_summation()) {
  matmul<FA, FB, Acc>(1.0f, A, k, B, n, 0.0f, C, n, m, n, k, summation);
}

}  // namespace softfloat
