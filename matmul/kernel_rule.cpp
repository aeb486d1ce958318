// The rule behind MatmulSummation::fastest (kernel_rule.hpp), from what the CPU can do.
// softfloat/matmul_summation.hpp quotes it; each clause cites what bench_matmul measured, one
// thread, OpenBLAS sgemm / sgemv in the same process, GFLOP/s at 1024^3 (GEMM) and
// ratios to sgemv at 1 x 8192 x 8192 (matrix-vector), E4M3 x E4M3 unless named.
#include "matmul/kernel_rule.hpp"

namespace softfloat::matmul_detail {

bool pairs_kernels_can_run(const detail::CpuFeatures& cpu) { return cpu.avx512_bf16 && cpu.avx512_vbmi; }

FastestKernels fastest_kernels(const detail::CpuFeatures& cpu) {
  const bool pairs = pairs_kernels_can_run(cpu);
  return {
      // Where vdpbf16ps runs no more products per cycle than FMA, the pairs GEMM loses to
      // the FMA GEMM by its pair packing: Intel's cores (Sapphire Rapids: sgemm 161, E4M3
      // pairs 100 / FMA 156, BF16 pairs 85 / FMA 151). AMD's run twice FMA's products
      // (Zen 4: sgemm 104, E4M3 pairs 337 / FMA 176, BF16 pairs 251 / FMA 174; Zen 5, an
      // E4M3 Linear forward at 1024^3: pairs 287, FMA 170). The vendor is the measured
      // distinction; no model number enters.
      .pairs_gemm = pairs && cpu.vendor == "AuthenticAMD",
      // The matrix-vector product is bound by memory: the byte-table decoding into pairs
      // reads a quarter of fp32's bytes (Zen 4: pairs 3.38x sgemv, FMA 0.85x; Sapphire
      // Rapids: pairs 4.3x, FMA 0.11x on weights drawn from N(0, 0.05)).
      .pairs_matvec = pairs,
      // AMX tiles (TDPBF16PS) wherever the system grants them: Sapphire Rapids 4.6x sgemm
      // for E4M3 and 3.6x for BF16, against about 0.9x by FMA in the same runs.
      .tiles_gemm = cpu.amx_bf16,
  };
}

std::size_t matvec_rows_per_pass(const detail::CpuFeatures& cpu) {
  // A measured rule on the vendor, as for pairs_gemm. Sixteen streams of B at once beat
  // eight on Intel's cores (Sapphire Rapids, 1 x 8192 x 8192: bf16 10.9 -> 9.8 ms on
  // AVX2, E5M2 4.3 -> 3.8 ms on AVX-512), but lose to eight on AMD's, whose prefetchers
  // follow fewer streams (Zen 4, sgemv 11.5 ms in the same runs: bf16 7.8 -> 6.0 ms on
  // AVX-512 and 9.2 -> 6.1 ms under SOFTFLOAT_MAX_ISA=avx2, fp16 7.9 -> 6.0, E5M2
  // 4.9 -> 4.4). Elsewhere sixteen, the shape measured first.
  return cpu.vendor == "AuthenticAMD" ? 8 : 16;
}

bool matvec_pairs_prefetch(const detail::CpuFeatures& cpu) {
  // Measured on the vendor too: the prefetch 768 bytes ahead was worth 16 -> 25 GB/s
  // where it was added, but costs on Zen 4 (E4M3 x E4M3 at 1 x 8192 x 8192, three runs
  // each, sgemv 10.3-11.0 ms: 3.9-4.3 ms with it, 3.4-3.6 ms without; E5M2 3.7-4.1 ->
  // 3.4-3.7 ms), as it does in the FMA loop there.
  return cpu.vendor != "AuthenticAMD";
}

}  // namespace softfloat::matmul_detail
