// The summation order of matmul's fp32 accumulator and the kernel a call takes.
// (softfloat/matmul.hpp documents what each order computes; this header says how the
// order is chosen, per call or process-wide, and which kernel runs it.)
//
// Kernels, and what MatmulSummation::fastest picks on each CPU. The pairs kernels (the
// vdpbf16ps GEMM and matrix-vector loop) and the FMA kernels give different bits, so
// the choice must not depend on a timing taken at run time: it comes from a fixed table
// keyed only by what cpuid reports (vendor, family, model; the instructions themselves
// are checked separately), backed by bench_matmul runs (matmul/kernel_table.cpp holds
// the table and the numbers behind each row):
//
//   CPU (cpuid)                                  GEMM (m > 1)      matrix-vector (m = 1)
//   GenuineIntel family 6 model 143 / 207        AMX tiles         vdpbf16ps pairs
//     (Sapphire / Emerald Rapids: the tile GEMM runs 4 to 5 times the FMA GEMM; without
//     the tiles, FMA, since vdpbf16ps runs no more products per cycle than FMA and
//     its pair packing costs: E4M3 1024^3 100 GFLOP/s by pairs, 156 by FMA)
//   AuthenticAMD family 0x19 (Zen 4)             vdpbf16ps pairs   vdpbf16ps pairs
//     (twice FMA's products per cycle: E4M3 1024^3 3.3x sgemm by pairs, 1.7x by FMA)
//   AuthenticAMD family 0x1A (Zen 5)             vdpbf16ps pairs   vdpbf16ps pairs
//     (an E4M3 Linear forward at 1024^3 through matmul: 287 GFLOP/s by pairs, 170 by FMA)
//   any other CPU                                FMA               FMA
//
// A row's pairs kernels apply only where the CPU has AVX512-BF16 and AVX512-VBMI, its
// tiles only where amx can run (the CPU has AMX-TILE and AMX-BF16 and the system grants
// the process the tile state); otherwise the call takes the next kernel of its row, then
// FMA. To add a CPU: build bench_matmul (bench/matmul/), run
//   bench_matmul --benchmark_filter='n:1024/threads:1/|8192/threads:1/'
// and compare, for the GEMM (n = 1024) and the matrix-vector product, the rows
// "summation:1" (in order: FMA), "summation:2" (pairs) and "summation:3" (tiles); then add a row to
// kKernelRules in matmul/kernel_table.cpp with the vendor, family and model that
// `lscpu` reports (or kAnyModel), the faster kernel of each shape and the numbers
// measured, a case to verify/matmul/kernel_choice_test.cpp, and a line to the table
// above and to README.md.
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
  fastest,   // the kernel the table above names for this CPU and shape
  in_order,  // always the in-order fused multiply-add chain: reproducible bits
  pairs,     // pairs of products by vdpbf16ps wherever the CPU has it and the rule of
             // matmul.hpp allows, whatever the table says (else the in-order chain)
  tiles,     // the GEMM by AMX tiles (TDPBF16PS) wherever the CPU and system allow them
             // and the rule of matmul.hpp holds, whatever the table says (else the
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
