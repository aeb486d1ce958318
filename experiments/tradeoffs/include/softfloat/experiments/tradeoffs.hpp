// Precision trade-offs: what a matrix multiply loses to each input format and to a
// low-precision accumulator, beside what the format saves in memory and what the
// multiply costs here.
//
// For each input format F, A (m x K) and B (K x n) hold standard normal values drawn
// in fp64 (seeded); each matrix is rounded to F once (nearest even), straight from
// fp64. For each accumulator and each depth k of the sweep, C = softfloat::matmul of
// the first k columns of A and the first k rows of B, and the error is normwise:
//
//   relative error = ||C - C64||_F / ||C64||_F,  C64 = the product of the unrounded
//   fp64 inputs, summed in long double.
//
// Scaling: unit normal data fits every format but two of the P3109 ones (p3109_8p6
// tops out at 3.875 and p3109_8p7 at 1.96875, while the largest of 2^18 normal values
// is about 5). A matrix whose largest magnitude exceeds F's max is multiplied by the
// largest power of two that brings it within the max before rounding (per-tensor
// scaling, as FP8 training recipes do) and C is divided by the two scales afterwards,
// exactly. Data that fit are never scaled up: scaling a 16-bit or 32-bit format's data
// up to its max would overflow the accumulators, and unit data already lie in the
// normal range of the narrower formats but for their smallest values (e2m3 and e2m1,
// whose normal range starts at 1, hold the values below 1 on their subnormal grid: a
// cost of those formats that the error shows).
//
// The fp32 accumulator sums in order (MatmulSummation::in_order, for the duration of
// the error measurements): the same bits on every CPU. The throughput is measured in
// the caller's summation order (by default the fastest).
//
// The depths share their data: depth k uses the first k terms of each dot product, as
// a longer run of the same computation would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "softfloat/format.hpp"
#include "softfloat/named_formats.hpp"

namespace softfloat::experiments {

// The input formats compared: fp32 (the baseline), then every named format of at most
// 16 bits that carries signed data: bf16, fp16, the OCP FP8 / FP6 / FP4 element
// formats, the fnuz FP8 variants and the P3109 8-bit family, in order of decreasing
// width (as named_format_specs() lists them within a width). Left out: e8m0, an
// unsigned exponent-only format without zero, which is the scale of MX blocks and
// cannot hold signed data; tf32, stored in 32-bit words and so saving no memory over
// fp32; fp64, the reference (matmul takes inputs of at most 32 bits).
std::vector<Format> tradeoff_formats();

// Bytes each element takes in memory: 4 for fp32, 2 for the 16-bit formats, 1 for the
// 8-bit ones, 0.75 for the 6-bit formats (four codes in three bytes) and 0.5 for the
// 4-bit ones (two a byte), as simd::quantize_packed stores them.
double bytes_per_element(const Format& format);

struct TradeoffOptions {
  std::vector<Format> formats = tradeoff_formats();
  std::vector<Format> accumulators = {FP32::format, BF16::format};
  std::vector<std::size_t> depths = {64, 256, 1024, 4096, 16384};  // k, increasing
  std::size_t rows = 16;     // m: rows of C
  std::size_t columns = 16;  // n: columns of C
  // The throughput is that of an fp32-accumulated square multiply of this size, the
  // best of `throughput_repeats` runs; 0 skips the measurement.
  std::size_t throughput_size = 512;
  int throughput_repeats = 5;
  std::uint64_t seed = 1;
};

// The fp64 inputs: A (rows x the largest depth) and B (the largest depth x columns),
// row-major, standard normal; element i of each depends only on (seed, i).
struct TradeoffInputs {
  std::vector<double> a, b;
};
TradeoffInputs tradeoff_inputs(const TradeoffOptions& options);

// The per-tensor scale described above: the largest power of two 2^s, s <= 0,
// with largest_magnitude * 2^s <= the format's max (finite, or std::invalid_argument).
int fitting_log2_scale(double largest_magnitude, const Format& format);

struct FormatTradeoff {
  Format format;
  double bytes_per_element = 0;
  int log2_scale_a = 0, log2_scale_b = 0;  // A and B were multiplied by these powers of two
  // Per depth: the error of the rounded inputs alone, their products summed in long
  // double (each product is exact there): what an exact accumulator would give.
  std::vector<double> input_error;
  // [accumulator][depth]: the relative error of matmul's C, as above.
  std::vector<std::vector<double>> error;
  // Measured: 2 N^3 / seconds of the fp32-accumulated N x N multiply, in GFLOP/s;
  // 0 when not measured.
  double gflops = 0;
};

struct TradeoffResult {
  TradeoffOptions options;
  std::vector<FormatTradeoff> formats;  // as options.formats
  int threads = 1;                      // softfloat::num_threads() during the timed runs
};

// Throws std::invalid_argument for an empty or invalid format list, an input format
// wider than 32 bits, unsigned or without zero, no accumulator or an invalid one,
// depths that are empty, zero or not increasing, zero rows or columns, or a
// throughput measurement of zero repeats.
TradeoffResult run_tradeoffs(const TradeoffOptions& options);

}  // namespace softfloat::experiments
