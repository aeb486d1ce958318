// Bytes, not FLOPs: one decode step of a small language model's shape on this machine.
// A token's activations (d fp32 values) pass through `layers` square d x d weight
// matrices, each a matrix-vector product with fp32 activations, as generating one token
// at batch size 1 does; the weights in total lie well beyond the last-level cache, so
// every format's time is set by the bytes it reads. For each weight format the step is
// timed and set beside the bound that this machine's measured read bandwidth gives:
//
//   bound_ms = layers * d^2 * bytes per weight / bandwidth
//
// e.g. d = 4096 and 8 layers: 512 MiB of fp32 weights, which at 10 GB/s take 53.7 ms a
// token; the same in MXFP4 (4.25 bits a weight) 71.3 MiB and 7.1 ms.
//
// Weights: mean 0, variance 1 / d (so that activations keep their size from layer to
// layer), a bell of four uniforms from the seeded counter stream (random_bits). The
// plain formats of narrow range (fp16, e4m3, e5m2, e2m1) store W * 2^s with the power
// of two s that brings max |W| to the format's largest finite value, and the product is
// scaled back by 2^-s exactly (per-tensor scaling; fp32 and bf16 are stored as they
// are); the block-scaled ones (mxfp8_e4m3, mxfp6_e2m3, mxfp4, nvfp4) are
// quantize_weights' (softfloat/block_scaled_matmul.hpp). Error: the output's relative
// error ||y - y64|| / ||y64||, y64 the same step in fp64 on the fp32 weights, so that it
// counts what each format loses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace softfloat::experiments {

struct DecodeStepOptions {
  std::vector<std::string> formats = {"fp32",       "bf16",       "fp16",  "e4m3",  "e5m2",
                                      "mxfp8_e4m3", "mxfp6_e2m3", "mxfp4", "nvfp4", "e2m1"};
  std::size_t dim = 4096;      // d
  std::size_t layers = 8;
  int repeats = 5;             // timed steps per format: the median counts
  std::uint64_t seed = 1;
};

struct DecodeStepFormat {
  std::string spec;
  double bytes_per_weight = 0;   // elements and scales, averaged over the weights
  double ms_per_token = 0;       // median of the timed steps
  double bound_ms = 0;           // the weights' bytes / bandwidth
  double fraction_of_bound = 0;  // bound_ms / ms_per_token
  double speedup_over_fp32 = 0;  // fp32's ms_per_token / ms_per_token (0 without fp32)
  double relative_error = 0;
};

struct DecodeStepResult {
  double bandwidth = 0;  // bytes per second, one thread's streaming read
  std::size_t bandwidth_bytes = 0;
  int threads = 1;
  std::vector<DecodeStepFormat> formats;
};

// Throws std::invalid_argument for an unknown format spec, dim or layers 0, repeats < 1.
DecodeStepResult run_decode_step(const DecodeStepOptions& options);

// This machine's read bandwidth in bytes per second: the best of `repeats` sums over a
// buffer of `bytes` (one thread).
double measure_read_bandwidth(std::size_t bytes, int repeats);

}  // namespace softfloat::experiments
