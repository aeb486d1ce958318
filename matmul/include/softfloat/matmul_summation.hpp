// The summation order of matmul's fp32 accumulator and the kernel a call takes.
// (softfloat/matmul.hpp documents what each order computes; this header says how the
// order is chosen, per call or process-wide, and which kernel runs it.)
//
// Kernels, and what MatmulSummation::fastest picks on each CPU. The pairs kernels (the
// vdpbf16ps GEMM and matrix-vector loop) and the FMA kernels give different bits, so the
// choice must not depend on a timing taken at run time: it is a rule over what the CPU
// can do, read once per process (runtime/cpu_features.hpp; SOFTFLOAT_MAX_ISA caps it),
// quoted here from matmul/kernel_rule.cpp, where each clause cites the bench_matmul
// numbers behind it (the test matmul_kernel_rule_quoted keeps the quote true):
//
//   bool pairs_kernels_can_run(const detail::CpuFeatures& cpu) { return cpu.avx512_bf16 && cpu.avx512_vbmi; }
//   const bool pairs = pairs_kernels_can_run(cpu);
//   .pairs_gemm = pairs && cpu.vendor == "AuthenticAMD",
//   .pairs_matvec = pairs,
//   .tiles_gemm = cpu.amx_bf16,
//
// That is:
//   CPU can do                              GEMM (m > 1)      matrix-vector (m = 1)
//   AMX tiles (Sapphire / Emerald Rapids)   AMX tiles         vdpbf16ps pairs (with BF16)
//   AVX512-BF16 + VBMI, AMD (Zen 4, Zen 5)  vdpbf16ps pairs   vdpbf16ps pairs
//   AVX512-BF16 + VBMI, other vendors       FMA               vdpbf16ps pairs
//   anything else (AVX-512, AVX2, NEON)     FMA               FMA
// (Intel's vdpbf16ps runs no more products per cycle than FMA, and the pairs' packing
// costs: E4M3 1024^3 100 GFLOP/s by pairs, 156 by FMA on Sapphire Rapids; AMD's runs
// twice FMA's: 3.3x sgemm by pairs, 1.7x by FMA on Zen 4.) No model number enters, so a
// hypervisor that reports an unusual one changes nothing.
//
// Beside the kernel, one loop shape that never changes the bits: the FMA matrix-vector
// loop streams 8 rows of B at once on AMD's cores and 16 on others where its decoding is
// short (bf16, fp16, E5M2), and the pairs matrix-vector loop prefetches rows in software
// on others only: matmul/kernel_rule.cpp's matvec_rows_per_pass and matvec_pairs_prefetch,
// measured there.
//
// The tiles apply only where the system grants the process the tile state, and every
// kernel only where the rule of matmul.hpp holds for the operands; otherwise the call
// takes the next kernel of its row, then FMA. To revise the rule: build bench_matmul
// (bench/matmul/), run
//   bench_matmul --benchmark_filter='n:1024/threads:1/|8192/threads:1/'
// on the CPU in question, compare the rows "summation:1" (in order: FMA), "summation:2"
// (pairs) and "summation:3" (tiles) for the GEMM (n = 1024) and the matrix-vector
// product, and change fastest_kernels() with the numbers beside the clause, a case in
// verify/matmul/kernel_choice_test.cpp and the quote above.
#pragma once

#include <cstddef>
#include <string_view>

#include "softfloat/float.hpp"
#include "softfloat/format.hpp"
#include "softfloat/named_formats.hpp"

namespace softfloat {

// The summation order of the fp32 paths. Each matmul call may name one; a call that
// does not takes the process-wide default of set_matmul_summation() (initially
// fastest), read when the call starts. Calls on different threads with different
// orders each get their own: the order is a parameter of the call, never shared state.
enum class MatmulSummation {
  fastest,   // the kernel the rule above names for this CPU and shape
  in_order,  // always the in-order fused multiply-add chain: reproducible bits
  pairs,     // pairs of products by vdpbf16ps wherever the CPU has it and the rule of
             // matmul.hpp allows, whatever fastest would take (else the in-order chain)
  tiles,     // the GEMM by AMX tiles (TDPBF16PS) wherever the CPU and system allow them
             // and the rule of matmul.hpp holds, whatever fastest would take (else the
             // in-order chain); matrix-vector products keep the in-order chain
};
void set_matmul_summation(MatmulSummation summation);  // throws std::invalid_argument
MatmulSummation matmul_summation();

// The kernel that computes a product's sums.
enum class MatmulKernel {
  none,                // m or n is 0: nothing is computed
  fma_gemm,            // the blocked GEMM, fp32 FMA micro-kernel (Highway dispatch)
  pairs_gemm,          // the blocked GEMM, vdpbf16ps micro-kernel
  fma_matvec,          // m = 1: the matrix-vector loop, fp32 FMA chain
  pairs_matvec,        // m = 1: the matrix-vector loop, vdpbf16ps
  tiles_gemm,          // the blocked GEMM, AMX TDPBF16PS on 16 x 16 tiles
  scalar_accumulator,  // any accumulator but FP32: one rounding per step, in scalar code
};
// "fma gemm", "vdpbf16ps pairs gemm", "fma matvec", "vdpbf16ps pairs matvec",
// "amx tiles gemm", "scalar accumulator", "none".
std::string_view matmul_kernel_name(MatmulKernel kernel);

// The kernel a matmul call with these formats (codes in the smallest of uint8_t,
// uint16_t, uint32_t that holds them, as the typed forms store them), shape,
// accumulator and summation takes on this CPU. Formats of more than one byte whose
// values could all be bf16 values (BF16 itself) take a pairs kernel only when the
// values of the call fit the rule of matmul.hpp; this function does not see them and
// answers for values that fit. Throws std::invalid_argument for an invalid format.
MatmulKernel matmul_path(const Format& format_a, const Format& format_b, std::size_t m, std::size_t n,
                         std::size_t k, const Format& accumulator, MatmulSummation summation);
inline MatmulKernel matmul_path(const Format& format_a, const Format& format_b, std::size_t m, std::size_t n,
                                std::size_t k, const Format& accumulator = binary32_format) {
  return matmul_path(format_a, format_b, m, n, k, accumulator, matmul_summation());
}
template <class FA, class FB, class Acc = FP32>
  requires FloatType<FA> && FloatType<FB> && FloatType<Acc>
MatmulKernel matmul_path(std::size_t m, std::size_t n, std::size_t k, MatmulSummation summation) {
  return matmul_path(FA::format, FB::format, m, n, k, Acc::format, summation);
}
template <class FA, class FB, class Acc = FP32>
  requires FloatType<FA> && FloatType<FB> && FloatType<Acc>
MatmulKernel matmul_path(std::size_t m, std::size_t n, std::size_t k) {
  return matmul_path(FA::format, FB::format, m, n, k, Acc::format, matmul_summation());
}

}  // namespace softfloat
