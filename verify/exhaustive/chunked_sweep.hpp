// The chunked sweep: every float bit pattern (or a range of them) is converted by a
// reference ONCE per chunk into a buffer, and then by each named candidate, whose
// output is compared with that buffer. Adding a candidate (a SIMD path, a hardware
// instruction, a round trip) costs one conversion of the floats, not another
// reference. Chunks are shared between threads; the report keeps the first mismatches
// of each candidate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace softfloat::verify {

// Converts n floats to codes (an 8-bit format's code sits in the low byte).
using Conversion = std::function<void(const float* in, std::size_t n, std::uint16_t* out)>;
// Takes n floats through a format and back (quantize then dequantize).
using RoundTrip = std::function<void(const float* in, std::size_t n, float* out)>;

// Kinds of float input a candidate may be excused from (as a bit set): a hardware
// instruction that flushes subnormal inputs, or one whose NaN results differ.
enum InputClass : unsigned { no_class = 0, subnormal_input = 1u << 0, nan_input = 1u << 1 };
// The class of the float with these bits: subnormal_input, nan_input or no_class.
unsigned input_class(std::uint32_t float_bits);

// Either `convert`, whose codes must equal the reference's, or `round_trip`, whose
// floats must equal, bit for bit, the reference's codes decoded by the table `decoded`
// (the float bits of every code): a round trip then shares the reference's chunk too.
struct Candidate {
  std::string name;
  Conversion convert;
  unsigned excluded_classes = no_class;  // inputs of these classes are not compared
  RoundTrip round_trip = {};
  std::vector<std::uint32_t> decoded = {};
  // 1: every chunk. k > 1: one chunk in k (chunk_in_sample), for a candidate whose
  // code another candidate's full sweep already shares (array_candidates.cpp says which).
  unsigned chunk_sample = 1;
};

// Whether chunk `index` is in a one-in-`sample` sample: index % sample equal to
// (index / sample) % sample, so that the chunk taken moves along each run of `sample`
// consecutive chunks (with 2^20 floats a chunk and 8 chunks a binade, every binade
// gives one chunk, and the eight positions of its top three mantissa bits all occur).
constexpr bool chunk_in_sample(std::uint64_t index, unsigned sample) {
  return sample <= 1 || index % sample == (index / sample) % sample;
}

// A candidate of the second kind: round_trip, checked against `decoded`.
Candidate round_trip_candidate(std::string name, RoundTrip round_trip, std::vector<std::uint32_t> decoded);

// A code, or for a round trip candidate a float's bits.
struct Mismatch {
  std::uint32_t input_bits;
  std::uint32_t expected, got;
};

struct CandidateReport {
  std::string name;
  std::uint64_t compared = 0;                // inputs compared with the reference
  std::uint64_t excluded_subnormal = 0;      // subnormal inputs not compared
  std::uint64_t excluded_nan = 0;            // NaN inputs not compared
  // Of the excluded inputs, those where the candidate differed from the reference
  // (what the exclusion hides, e.g. subnormal inputs flushed to zero).
  std::uint64_t different_subnormal = 0, different_nan = 0;
  std::uint64_t not_sampled = 0;             // inputs of the chunks a sampled candidate skips
  std::uint64_t mismatches = 0;
  std::vector<Mismatch> first_mismatches;    // the smallest input bits, at most max_listed
};

struct SweepOptions {
  std::uint64_t first_bits = 0;            // the float bit patterns [first_bits, end_bits)
  std::uint64_t end_bits = std::uint64_t{1} << 32;
  std::size_t chunk = std::size_t{1} << 20;  // floats per chunk
  int threads = 2;
  std::size_t max_listed = 8;
};

// Runs the sweep and returns one report per candidate, in the candidates' order. Each
// chunk reaches the reference and the candidates as consecutive float bit patterns in
// increasing order (a reference may rely on that: TableReference::round_consecutive).
std::vector<CandidateReport> sweep_floats(const Conversion& reference, const std::vector<Candidate>& candidates,
                                          const SweepOptions& options = {});

// "E4M3/library: 4294967296 compared, 0 mismatches" and the listed mismatches, one a line.
std::string describe(const CandidateReport& report);

}  // namespace softfloat::verify
