// Accumulation: a running sum kept in a 16-bit format stops growing once each new
// term is below half an ulp of the sum (n copies of 1e-4 in bf16 stall at 2^-5 =
// 0.03125, in fp16 at 0.25), while fp32 and Kahan-compensated sums stay accurate.
// Each series records the relative error of the sum against the exact sum as the
// number of terms n grows.
//
//   sum_constant       n copies of one fp32 value
//   sum_dot_products   dot products of n pairs of fp32 values uniform in [0, 1),
//                      each product added exactly (a fused multiply-add, as a
//                      hardware accumulator does); mean relative error over trials
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "softfloat/format.hpp"

namespace softfloat::experiments {

enum class Summation : std::uint8_t {
  plain,  // s = fmt(s + term)
  kahan,  // Kahan's compensated summation, every step rounded to fmt
};

struct Accumulator {
  Format format;
  Summation summation = Summation::plain;
};
// "bf16", "bf16 + kahan": format_name() and the summation.
std::string accumulator_name(const Accumulator& accumulator);

struct ErrorPoint {
  std::size_t terms = 0;
  double relative_error = 0;  // |sum - exact| / |exact|
};

struct AccumulationSeries {
  Accumulator accumulator;
  std::vector<ErrorPoint> errors;  // at the checkpoints, in increasing order
  double final_sum = 0;            // after all terms (sum_dot_products: of the first trial)
  double exact_sum = 0;
  // sum_constant only: the number of terms after which the accumulator (the sum and,
  // for Kahan, its compensation) never changed again; 0 when it still changed with
  // the last term. Once the state repeats, every later term is lost.
  std::size_t stalled_at = 0;
};

// 1, 2, ..., up to `largest`, about `per_decade` counts per decade (rounded, distinct),
// always ending at `largest`.
std::vector<std::size_t> log_spaced_counts(std::size_t largest, int per_decade = 10);

// `terms` copies of `value`, each added to the sum with one rounding to the format.
// Checkpoints beyond `terms` are ignored.
AccumulationSeries sum_constant(const Accumulator& accumulator, float value, std::size_t terms,
                                std::span<const std::size_t> checkpoints);

// `trials` dot products of `terms` pairs uniform in [0, 1) (fp32, seeded).
AccumulationSeries sum_dot_products(const Accumulator& accumulator, std::size_t terms, int trials,
                                    std::uint64_t seed, std::span<const std::size_t> checkpoints);

}  // namespace softfloat::experiments
