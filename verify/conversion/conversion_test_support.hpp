// Shared pieces of the MPFR-backed conversion tests: the formats under test as
// GoogleTest type lists, enumeration of codes, the generator of rounding-boundary
// inputs, and the mismatch log (verify/common/mismatch_log.hpp) that keeps loops over
// millions of inputs fast. Every expected code in these suites comes from
// softfloat::verify (GNU MPFR), never from the library under test.
#pragma once

// <cstdint> before <mpfr.h>, so that MPFR declares mpfr_set_sj / mpfr_set_uj.
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <mpfr.h>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"
#include "verify/common/format_lists.hpp"
#include "verify/common/format_test_names.hpp"
#include "verify/common/mismatch_log.hpp"

namespace softfloat::conversion_test {

// From the reference: the RAII mpfr_t and the independent largest-finite-code rule.
using verify::largest_finite_code;
using verify::Mpfr;

// The formats under test (verify/common/format_lists.hpp): those of at most 16 bits
// have every code enumerated, wider ones are sampled binade by binade.
using test_formats::AllFormats;
using test_formats::Concat;
using test_formats::NarrowFormats;
using test_formats::RepresentativeFormats;
using test_formats::Select;
using test_formats::WideFormats;

using test_names::FormatNames;
using test_names::identifier_of;
using test_support::hex;
using test_support::MismatchLog;

// ---------------------------------------------------------------------------
// Codes and values.

// Every code of a format of at most 16 bits, 0 .. 2^total_bits - 1.
inline std::vector<std::uint64_t> all_codes(const Format& f) {
  std::vector<std::uint64_t> codes(std::size_t{1} << f.total_bits());
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = i;
  return codes;
}


// Whether `code` is a finite value other than zero (a format without zero has
// no zero code: its code 0 is a value).
inline bool is_finite_nonzero(std::uint64_t code, const Format& f) {
  const std::uint64_t magnitude = code & ((std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits)) - 1);
  if (f.has_zero && magnitude == 0) return false;
  return magnitude <= largest_finite_code(f);
}


// The exact value of a code (NaN, +-infinity or finite), from the reference.
inline void exact_value(Mpfr& out, std::uint64_t code, const Format& f) {
  verify::exact_value_of(out.get(), code, f);
}

// The bits of a float or double.
inline std::uint64_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }
inline std::uint64_t bits_of(double x) { return std::bit_cast<std::uint64_t>(x); }

// "double 0x1.8p+3 (12, bits 0x4028000000000000)" for messages.
template <class Source>
std::string describe(Source x) {
  char text[96];
  std::snprintf(text, sizeof text, "%s %a (%.17g, bits 0x%llx)", std::is_same_v<Source, float> ? "float" : "double",
                double(x), double(x), static_cast<unsigned long long>(bits_of(x)));
  return text;
}

// Sampled codes of a wide format, binade by binade (every exponent field,
// specials included): the extreme mantissas 0, 1, 2, all ones - 1 and all ones,
// plus `random_per_binade` random mantissas; positive codes only.
template <class Rng>
std::vector<std::uint64_t> binade_sample_codes(const Format& f, Rng& rng, int random_per_binade) {
  const std::uint64_t mantissa_ones = (std::uint64_t{1} << f.mantissa_bits) - 1;
  std::vector<std::uint64_t> codes;
  for (std::uint64_t field = 0; field < (std::uint64_t{1} << f.exponent_bits); ++field) {
    std::vector<std::uint64_t> mantissas{0, 1, 2, mantissa_ones - 1, mantissa_ones};
    for (int i = 0; i < random_per_binade; ++i) mantissas.push_back(rng() & mantissa_ones);
    for (std::uint64_t mantissa : mantissas) codes.push_back((field << f.mantissa_bits) | (mantissa & mantissa_ones));
  }
  return codes;
}

// A NaN code of `f` as the double NaN that stands for it: the code's sign bit, and
// for IEEE-style formats the code's mantissa as the top payload bits (so a
// signaling NaN stays signaling here); the single-code conventions (fn, fnuz,
// P3109) carry no payload and read as the canonical quiet NaN. The sign of the
// fnuz / P3109 NaN is the sign bit of its code 0b1000..., as ml_dtypes reads it.
inline double nan_as_double(std::uint64_t code, const Format& f) {
  const std::uint64_t sign = f.is_signed && ((code >> (f.exponent_bits + f.mantissa_bits)) & 1) != 0
                                 ? std::uint64_t{1} << 63
                                 : 0;
  const std::uint64_t mantissa = code & ((std::uint64_t{1} << f.mantissa_bits) - 1);
  const std::uint64_t payload = f.specials == Specials::ieee ? mantissa << (52 - f.mantissa_bits)
                                                             : std::uint64_t{1} << 51;  // quiet bit
  return std::bit_cast<double>(sign | (std::uint64_t{0x7ff} << 52) | payload);
}

// The code the reference gives for the value of `code` in `from`, rounded to `to`
// (MPFR rounding of the exact value; NaN through nan_as_double).
inline std::uint64_t reference_convert(std::uint64_t code, const Format& from, const Format& to) {
  Mpfr exact(64);  // every format here has at most 53 significant bits
  verify::exact_value_of(exact.get(), code, from);
  if (mpfr_nan_p(exact.get())) return verify::reference_round(nan_as_double(code, from), to);
  return verify::reference_round(exact.get(), to);
}

// ---------------------------------------------------------------------------
// Rounding-boundary inputs.

// Positions along the positive axis of a format, in increasing order of value:
// position p >= 0 is code p (codes 0 .. largest_finite_code are monotone), the
// position after the largest finite code is where the next code would sit with an
// unbounded exponent (max + one ulp of max's binade: rounding to it means overflow),
// and position -1 is zero for a format without zero (E8M0), so that the gap
// between zero and its smallest value is visited too.
inline long first_position(const Format& f) { return f.has_zero ? 0 : -1; }
inline long last_position(const Format& f) { return long(largest_finite_code(f)) + 1; }

// The exact value at a position (see above).
inline void value_at(Mpfr& out, long position, const Format& f) {
  const long largest = long(largest_finite_code(f));
  if (position < 0) {
    mpfr_set_zero(out.get(), 1);
  } else if (position <= largest) {
    exact_value(out, std::uint64_t(position), f);
  } else {  // max + 2^(e_max - M), e_max the exponent of max's binade
    Mpfr ulp;
    exact_value(out, std::uint64_t(largest), f);
    mpfr_set_ui_2exp(ulp.get(), 1, mpfr_get_exp(out.get()) - 1 - f.mantissa_bits, MPFR_RNDN);
    mpfr_add(out.get(), out.get(), ulp.get(), MPFR_RNDN);  // exact at 256 bits
  }
}

// Appends to `probes` the positive inputs of type Source that decide the rounding
// between positions p and p + 1: the value at p, the midpoint, and the Source values
// one Source-ulp either side of the midpoint. A midpoint that Source cannot hold
// exactly (float for formats with more than 22 mantissa bits, double for FP64, and
// midpoints outside Source's range) is skipped; its place is taken by the two Source
// values that bracket it, which are then the nearest inputs on either side.
// Returns whether the midpoint was a Source value.
template <class Source>
bool append_boundary_probes(std::vector<Source>& probes, long position, const Format& f) {
  Mpfr low, high, mid;
  value_at(low, position, f);
  value_at(high, position + 1, f);
  mpfr_add(mid.get(), low.get(), high.get(), MPFR_RNDN);  // exact: 256 bits hold any two codes' sum
  mpfr_div_2ui(mid.get(), mid.get(), 1, MPFR_RNDN);
  constexpr Source infinity = std::numeric_limits<Source>::infinity();
  auto to_source = [](mpfr_srcptr x, mpfr_rnd_t rnd) -> Source {
    if constexpr (std::is_same_v<Source, float>) return mpfr_get_flt(x, rnd);
    else return mpfr_get_d(x, rnd);
  };
  if (position >= 0) {
    const Source value = to_source(low.get(), MPFR_RNDN);
    if (mpfr_cmp_d(low.get(), double(value)) == 0) probes.push_back(value);
  }
  const Source below = to_source(mid.get(), MPFR_RNDD), above = to_source(mid.get(), MPFR_RNDU);
  if (below == above) {  // the midpoint itself is a Source value
    probes.push_back(below);
    probes.push_back(std::nextafter(below, -infinity));
    probes.push_back(std::nextafter(below, infinity));
    return true;
  }
  probes.push_back(below);
  probes.push_back(above);
  return false;
}

// Doubles within `ulps` double-ulps of the midpoint between positions p and p + 1
// (the midpoint itself excluded), or nothing when the midpoint is not a double.
// Rounding these through float first lands exactly on the midpoint and then
// breaks the tie the wrong way half of the time: the double-rounding trap.
inline std::vector<double> doubles_near_midpoint(long position, const Format& f, int ulps) {
  Mpfr low, high, mid;
  value_at(low, position, f);
  value_at(high, position + 1, f);
  mpfr_add(mid.get(), low.get(), high.get(), MPFR_RNDN);
  mpfr_div_2ui(mid.get(), mid.get(), 1, MPFR_RNDN);
  const double center = mpfr_get_d(mid.get(), MPFR_RNDN);
  if (mpfr_cmp_d(mid.get(), center) != 0) return {};
  std::vector<double> near;
  double down = center, up = center;
  for (int i = 0; i < ulps; ++i) {
    down = std::nextafter(down, -std::numeric_limits<double>::infinity());
    up = std::nextafter(up, std::numeric_limits<double>::infinity());
    near.push_back(down);
    near.push_back(up);
  }
  return near;
}

// Converts `x` with the library and compares the code with the reference's.
template <class F, class Source>
void check_conversion(MismatchLog& log, Source x) {
  log.check(std::uint64_t(F(x).bits()), verify::reference_round(x, F::format), [&] { return describe(x); });
}
template <class F, class Source>
void check_both_signs(MismatchLog& log, Source x) {
  check_conversion<F>(log, x);
  check_conversion<F>(log, -x);
}

}  // namespace softfloat::conversion_test
