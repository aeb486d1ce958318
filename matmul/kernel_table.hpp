// Which kernels MatmulSummation::fastest takes on a CPU: the table of
// softfloat/matmul_path.hpp, looked up by what cpuid reports. A lookup, never a
// timing: the pairs and FMA kernels give different bits, and a CPU must always give
// the same ones.
#pragma once

#include <string>

namespace softfloat::matmul_detail {

// What the table is keyed by, as cpuid reports it (and lscpu prints it).
struct CpuIdentity {
  std::string vendor;     // "GenuineIntel", "AuthenticAMD", ...
  unsigned family = 0;    // base family, plus the extended family when the base is 0xF
  unsigned model = 0;     // base model, plus the extended model << 4 for families 6 and >= 0xF
  bool bf16_dot = false;  // the pairs kernels can run: bf16_dot_supported()
  bool amx = false;       // the tile GEMM can run: amx_usable()
};

// This CPU, read once.
const CpuIdentity& this_cpu();

// The kernels fastest takes for each shape.
struct FastestKernels {
  bool pairs_gemm = false;    // the vdpbf16ps GEMM, else the FMA GEMM
  bool pairs_matvec = false;  // the vdpbf16ps matrix-vector loop, else the FMA one
  bool tiles_gemm = false;    // the AMX tile GEMM, before either GEMM above
};

// The table's row for `cpu` (its pairs kernels only where cpu.bf16_dot, its tiles only
// where cpu.amx); a CPU it does not name takes the FMA kernels.
FastestKernels fastest_kernels(const CpuIdentity& cpu);

}  // namespace softfloat::matmul_detail
