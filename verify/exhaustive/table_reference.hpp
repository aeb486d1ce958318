// A fast reference rounding of float to any format of at most 16 bits, by a method
// unlike the library's: instead of shifting and rounding the significand, it looks
// the input up in the sorted table of every finite non-negative value of the format
// (each decoded by MPFR) and picks the nearer neighbour by comparing with their
// midpoint. It is fast enough to check all 2^32 floats, and the exhaustive and
// array (SIMD) sweeps use it as their expected values. It is itself checked against
// the MPFR reference on every rounding boundary (table_reference_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "softfloat/format.hpp"

namespace softfloat::verify {

class TableReference {
 public:
  // Builds the table of `format` (at most 16 bits); throws std::invalid_argument otherwise.
  explicit TableReference(const Format& format);

  // The code of `x` rounded to nearest, ties to even, with the format's overflow,
  // signed-zero and NaN conventions.
  std::uint16_t round(float x) const;
  void round(const float* in, std::size_t n, std::uint16_t* out) const;
  // The same for the n consecutive float bit patterns from first_bits (wrapping past
  // 0xffffffff), much faster: a run of inputs with one code costs a few lookups.
  void round_consecutive(std::uint32_t first_bits, std::size_t n, std::uint16_t* out) const;

  const Format& format() const { return format_; }
  // The finite non-negative values in increasing order, and their codes.
  const std::vector<double>& values() const { return values_; }
  const std::vector<std::uint16_t>& codes() const { return codes_; }

 private:
  std::uint16_t round_one(float x) const;
  std::uint16_t apply_sign(std::size_t index, bool negative) const;
  std::uint16_t nan_code(bool negative, std::uint32_t float_mantissa) const;
  std::uint16_t overflow_code(bool negative) const;

  Format format_;
  std::vector<double> values_;              // finite values >= 0, increasing
  std::vector<std::uint16_t> codes_;        // codes_[i] encodes +values_[i]
  std::vector<std::uint16_t> negative_codes_;  // encodes -values_[i] (0 where unsigned)
  // Bracket of the binary search for each float with magnitude bits >> 16 == b: the
  // table indices of the largest value <= the bucket's smallest float and of the
  // smallest value >= its largest float. The search then runs over a few entries.
  std::vector<std::uint32_t> bucket_first_, bucket_last_;

  double max_ = 0;                 // values_.back()
  double overflow_midpoint_ = 0;   // max + half an ulp of max's binade
  bool overflow_tie_rounds_up_ = false;
  bool ties_round_up_ = false;     // M = 0: a tie between powers of two goes up
  bool has_negative_zero_ = false;
  std::uint16_t negative_zero_code_ = 0;
  bool has_infinity_ = false;
  std::uint16_t positive_infinity_ = 0, negative_infinity_ = 0;
  // NaN codes found in the table, by sign; more than one per sign means the
  // format carries payloads (IEEE style).
  std::vector<std::uint16_t> positive_nans_, negative_nans_;
};

}  // namespace softfloat::verify
