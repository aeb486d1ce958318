// The table behind MatmulSummation::fastest (kernel_table.hpp; documented in
// softfloat/matmul_path.hpp and README.md). Each row records what bench_matmul
// measured on that CPU, one thread, OpenBLAS sgemm / sgemv in the same process.
#include "matmul/kernel_table.hpp"

#include <cstring>

#include "matmul/amx_tiles.hpp"
#include "matmul/bf16_dot.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace softfloat::matmul_detail {

namespace {

constexpr unsigned kAnyModel = ~0u;

struct KernelRule {
  const char* vendor;
  unsigned family;
  unsigned model;  // kAnyModel: every model of the family
  FastestKernels kernels;
};

// First match wins. The numbers are GFLOP/s at 1024^3 (GEMM) and ratios to sgemv at
// 1 x 8192 x 8192 (matrix-vector), E4M3 x E4M3 unless named.
constexpr KernelRule kKernelRules[] = {
    // Intel Xeon, Sapphire Rapids (model 143) and Emerald Rapids (207): vdpbf16ps has
    // no throughput over FMA. GEMM: sgemm 161, E4M3 pairs 100 / FMA 156, BF16 pairs 85
    // / FMA 151; AMX tiles (TDPBF16PS) 4.6x sgemm for E4M3 and 3.6x for BF16 (FMA about
    // 0.9x in the same runs). Matrix-vector: the byte-table decoding into
    // pairs reads a quarter of fp32's bytes and beats the FMA loop's integer decoding
    // (pairs 2.5x to 3.2x sgemv on a loaded machine).
    {"GenuineIntel", 6, 143, {.pairs_gemm = false, .pairs_matvec = true, .tiles_gemm = true}},
    {"GenuineIntel", 6, 207, {.pairs_gemm = false, .pairs_matvec = true, .tiles_gemm = true}},
    // AMD EPYC Zen 4: vdpbf16ps does twice FMA's products per cycle. GEMM: sgemm 104,
    // E4M3 pairs 337 / FMA 176, BF16 pairs 251 / FMA 174. Matrix-vector: pairs 3.38x
    // sgemv, FMA 0.85x.
    {"AuthenticAMD", 0x19, kAnyModel, {.pairs_gemm = true, .pairs_matvec = true}},
    // AMD EPYC Zen 5: vdpbf16ps at full 512-bit width. The E4M3 Linear forward at
    // 1024^3 (bench/python/bench_torch.py, a GEMM through matmul): pairs 287 GFLOP/s,
    // FMA 170; bench_matmul's own rows are still to be taken on one.
    {"AuthenticAMD", 0x1A, kAnyModel, {.pairs_gemm = true, .pairs_matvec = true}},
};

CpuIdentity read_cpu() {
  CpuIdentity cpu;
  cpu.bf16_dot = bf16_dot_supported();
  cpu.amx = amx_usable();
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return cpu;
  char vendor[13] = {};
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  cpu.vendor = vendor;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return cpu;
  const unsigned base_family = (eax >> 8) & 0xF, base_model = (eax >> 4) & 0xF;
  cpu.family = base_family == 0xF ? base_family + ((eax >> 20) & 0xFF) : base_family;
  cpu.model = base_family == 6 || base_family == 0xF ? base_model + (((eax >> 16) & 0xF) << 4) : base_model;
#endif
  return cpu;
}

}  // namespace

const CpuIdentity& this_cpu() {
  static const CpuIdentity cpu = read_cpu();
  return cpu;
}

FastestKernels fastest_kernels(const CpuIdentity& cpu) {
  for (const KernelRule& rule : kKernelRules)
    if (cpu.vendor == rule.vendor && cpu.family == rule.family && (rule.model == kAnyModel || cpu.model == rule.model))
      return {.pairs_gemm = rule.kernels.pairs_gemm && cpu.bf16_dot,
              .pairs_matvec = rule.kernels.pairs_matvec && cpu.bf16_dot,
              .tiles_gemm = rule.kernels.tiles_gemm && cpu.amx};
  return {};
}

}  // namespace softfloat::matmul_detail
