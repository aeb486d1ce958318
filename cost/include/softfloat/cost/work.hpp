// Work: how many steps a matrix multiply takes on a number of cores, and how long a
// count of FLOPs takes at a rate. The FLOP counts are those of matmul_model.hpp
// (matmul_flops = 2 m n k, one multiply and one add per step of each element's sum).
//
//   parallel_rounds(m, n, k, cores) = ceil(m n / cores) * k
//       The m n cells of C are dealt out to the cores; a core finishes a cell in its k
//       multiply-add steps, and a round is one step on every core. 64 x 64 x 64:
//       262144 rounds on 1 core (4096 cells x 64), 4096 on 64, 64 on 4096 and still
//       64 on 8192: once every cell has its own core, the k steps of a sum are the
//       chain that more cores cannot shorten.
//   compute_seconds(flops, flops_per_second) = flops / rate
//       2 * 4096^3 = 1.374e11 FLOPs at 1e15 FLOP/s: 1.374e-4 s = 0.14 ms.
//   training_flops(P, D) = 6 P D
//       A forward pass spends one multiply-add (2 FLOPs) per parameter per token; the
//       backward pass twice that (gradients with respect to the activations and to the
//       weights), so 2 + 4 = 6 FLOPs per parameter per token (Kaplan et al. 2020,
//       "Scaling Laws for Neural Language Models", section 2.1).
//   training_step_seconds(P, D, rate) = 6 P D / rate
//       7e9 parameters, 16384 tokens at 1e15 FLOP/s: 6.88e14 / 1e15 = 0.69 s.
//
// Every time here is a lower bound at the peak rate: nothing waits for memory (see
// roofline.hpp for when it does).
#pragma once

#include <cstdint>
#include <limits>

#include "softfloat/cost/arguments.hpp"
#include "softfloat/matmul_model.hpp"

namespace softfloat::cost {

// Rounds of multiply-add steps for C = A B (A m x k, B k x n) when the m n cells of C
// are split across `cores`, each cell taking k steps: ceil(m n / cores) * k. Throws
// std::invalid_argument for zero cores and for sizes whose count overflows 64 bits.
inline std::uint64_t parallel_rounds(std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint64_t cores) {
  detail::require_at_least_one(cores, "parallel_rounds", "the number of cores");
  constexpr std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
  if (n != 0 && m > most / n) detail::reject_argument("parallel_rounds", "m * n", "below 2^64", double(m) * double(n));
  const std::uint64_t cells = m * n;
  const std::uint64_t cells_per_core = cells / cores + (cells % cores != 0 ? 1 : 0);
  if (k != 0 && cells_per_core > most / k)
    detail::reject_argument("parallel_rounds", "the number of rounds", "below 2^64",
                            double(cells_per_core) * double(k));
  return cells_per_core * k;
}

// Seconds to do `flops` floating-point operations at `flops_per_second`.
inline double compute_seconds(double flops, double flops_per_second) {
  detail::require_non_negative(flops, "compute_seconds", "the FLOP count");
  detail::require_positive(flops_per_second, "compute_seconds", "the FLOP/s rate");
  return flops / flops_per_second;
}

// Seconds for the 2 m n k FLOPs of an m x k by k x n product (matmul_flops).
inline double matmul_seconds(std::uint64_t m, std::uint64_t n, std::uint64_t k, double flops_per_second) {
  return compute_seconds(double(matmul_flops(m, n, k)), flops_per_second);
}

// FLOPs of one training step over `tokens` tokens of a model with `params` parameters:
// 6 P D (2 forward, 4 backward, per parameter per token).
inline double training_flops(double params, double tokens) {
  detail::require_non_negative(params, "training_flops", "the parameter count");
  detail::require_non_negative(tokens, "training_flops", "the token count");
  return 6 * params * tokens;
}

// Seconds of one training step at `flops_per_second`: 6 P D / rate.
inline double training_step_seconds(double params, double tokens, double flops_per_second) {
  return compute_seconds(training_flops(params, tokens), flops_per_second);
}

}  // namespace softfloat::cost
