// The choice of kernel (kernel_choice.hpp): the accumulator, then the shape, then
// whether the summation asks for tiles or pairs of products (fastest asks the rule of
// kernel_rule.cpp), then whether the CPU, the system and the operands allow them.
#include "matmul/kernel_choice.hpp"

#include "matmul/amx_gemm.hpp"
#include "matmul/amx_tiles.hpp"
#include "matmul/bf16_dot.hpp"
#include "matmul/kernel_rule.hpp"

namespace softfloat::matmul_detail {

namespace {

bool pairs_wanted(MatmulSummation summation, bool matvec) {
  switch (summation) {
    case MatmulSummation::in_order:
    case MatmulSummation::tiles: return false;
    case MatmulSummation::pairs: return true;
    case MatmulSummation::fastest: break;
  }
  const FastestKernels fastest = fastest_kernels(detail::cpu_features());
  return matvec ? fastest.pairs_matvec : fastest.pairs_gemm;
}

// Tiles serve the GEMM only: a single row would fill one row of each 16-row tile.
bool tiles_wanted(MatmulSummation summation, bool matvec) {
  if (matvec) return false;
  switch (summation) {
    case MatmulSummation::in_order:
    case MatmulSummation::pairs: return false;
    case MatmulSummation::tiles: return true;
    case MatmulSummation::fastest: break;
  }
  return fastest_kernels(detail::cpu_features()).tiles_gemm;
}

// The fit of an operand (bf16_dot.hpp): its values' when scanned, else what its format
// allows (1 + M significant bits in ceil((1 + M) / 8) pieces).
Bf16Fit fit_of(const CodeMatrix& x, std::size_t rows, std::size_t columns, bool look_at_values, int most_pieces) {
  Bf16Fit fit = operand_fit(x, look_at_values ? rows : 0, look_at_values ? columns : 0, most_pieces);
  if (!look_at_values && x.code_bytes() > 1) fit.pieces_needed = (x.format().mantissa_bits + 8) / 8;
  return fit;
}

}  // namespace

KernelChoice choose_kernel(const CodeMatrix& a, const CodeMatrix& b, std::size_t m, std::size_t n, std::size_t k,
                           const Format& accumulator, MatmulSummation summation, bool look_at_values) {
  if (m == 0 || n == 0) return {};
  if (!(accumulator == binary32_format)) return {MatmulKernel::scalar_accumulator};
  const bool matvec = m == 1;
  const KernelChoice fma{matvec ? MatmulKernel::fma_matvec : MatmulKernel::fma_gemm};
  const bool tiles = k > 0 && tiles_wanted(summation, matvec) && amx_usable();
  // The matrix-vector pairs loop decodes B by byte tables, so it reads one-byte codes only.
  const bool pairs = k > 0 && pairs_wanted(summation, matvec) && bf16_dot_supported() &&
                     !(matvec && b.code_bytes() != 1);
  if (!tiles && !pairs) return fma;
  // The tiles add by pairs of products too, under the same rule, and may split one
  // operand into pieces: B's scan stops early once A needs splitting.
  const Bf16Fit a_fit = fit_of(a, m, k, look_at_values, tiles ? 3 : 1);
  const Bf16Fit b_fit = fit_of(b, k, n, look_at_values, tiles && a_fit.pieces() == 1 ? 3 : 1);
  if (tiles) {
    if (!tiles_are_exact(a_fit, b_fit, k)) return fma;
    return {MatmulKernel::tiles_gemm, a_fit.pieces(), b_fit.pieces()};
  }
  if (!pairs_are_exact(a_fit, b_fit, k)) return fma;
  if (!matvec) return {MatmulKernel::pairs_gemm};
  return {matvec_bf16_dot_applies(b.format()) ? MatmulKernel::pairs_matvec : MatmulKernel::fma_matvec};
}

}  // namespace softfloat::matmul_detail
