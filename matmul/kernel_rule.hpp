// Which kernels MatmulSummation::fastest takes on a CPU: a rule over what the CPU can do
// (runtime/cpu_features.hpp, read once per process, under SOFTFLOAT_MAX_ISA), documented in
// softfloat/matmul_summation.hpp. A rule, never a timing: the pairs and FMA kernels give
// different bits, and a CPU must always give the same ones.
#pragma once

#include <cstddef>

#include "runtime/cpu_features.hpp"

namespace softfloat::matmul_detail {

// The kernels fastest takes for each shape.
struct FastestKernels {
  bool pairs_gemm = false;    // the vdpbf16ps GEMM, else the FMA GEMM
  bool pairs_matvec = false;  // the vdpbf16ps matrix-vector loop, else the FMA one
  bool tiles_gemm = false;    // the AMX tile GEMM, before either GEMM above
};

// The pairs kernels can run: vdpbf16ps, and vpermb for their byte tables.
bool pairs_kernels_can_run(const detail::CpuFeatures& cpu);

// The rule, for any capability set (the tests give it synthetic ones).
FastestKernels fastest_kernels(const detail::CpuFeatures& cpu);

// How many rows of B the FMA matrix-vector loop streams at once where its decoding is
// short (bf16, fp16, E5M2): 8 or 16. The loop shape only, never the
// bits: each y[j] is the same in-order chain whatever the grouping of rows.
std::size_t matvec_rows_per_pass(const detail::CpuFeatures& cpu);

// Whether the pairs matrix-vector loop (matvec_bf16_dot.cpp) prefetches each row's
// line ahead in software, beside the hardware prefetchers. Never changes the bits.
bool matvec_pairs_prefetch(const detail::CpuFeatures& cpu);

}  // namespace softfloat::matmul_detail
