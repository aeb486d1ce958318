// Shared pieces of the arithmetic, parsing, printing and classification suites: the
// formats under test as GoogleTest type lists, an mpfr_t that frees itself, tables of
// the exact values of codes, the expected code of an operation (MPFR through
// verify::reference_compute, NaN operands by the propagation convention), and the
// mismatch log (verify/common/mismatch_log.hpp) that keeps loops over millions of
// inputs fast. Expected values come
// from GNU MPFR or from the conventions restated here, never from the library.
#pragma once

#include <gtest/gtest.h>
#include <mpfr.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"
#include "verify/common/format_lists.hpp"
#include "verify/common/format_test_names.hpp"
#include "verify/common/mismatch_log.hpp"

namespace softfloat::arithmetic_test {

// From the reference: the RAII mpfr_t and the independent largest-finite-code rule.
using verify::largest_finite_code;
using verify::Mpfr;

// ---------------------------------------------------------------------------
// Formats.

// Every format of at most 8 bits in the contract: all pairs of codes are checked. The
// lists live in verify/common/format_lists.hpp.
using test_formats::ByteFormats;
using test_formats::Concat;

using test_names::FormatNames;
using test_names::identifier_of;
using test_support::hex;
using test_support::MismatchLog;


// ---------------------------------------------------------------------------
// MPFR values.


// The exact values of a list of codes, kept for the duration of a test so that the
// pair loops do not decode the same code millions of times.
class ValueTable {
 public:
  ValueTable(const Format& f, std::vector<std::uint64_t> codes) : codes_(std::move(codes)), values_(codes_.size()) {
    for (std::size_t i = 0; i < codes_.size(); ++i) {
      mpfr_init2(&values_[i], 64);  // every format here has at most 53 significant bits
      verify::exact_value_of(&values_[i], codes_[i], f);
    }
  }
  ~ValueTable() {
    for (auto& v : values_) mpfr_clear(&v);
  }
  ValueTable(const ValueTable&) = delete;
  ValueTable& operator=(const ValueTable&) = delete;
  std::size_t size() const { return codes_.size(); }
  std::uint64_t code(std::size_t i) const { return codes_[i]; }
  mpfr_srcptr value(std::size_t i) const { return &values_[i]; }

 private:
  std::vector<std::uint64_t> codes_;
  std::vector<__mpfr_struct> values_;
};

// Every code 0 .. 2^total_bits - 1 of a format of at most 16 bits.
inline std::vector<std::uint64_t> all_codes(const Format& f) {
  std::vector<std::uint64_t> codes(std::size_t{1} << f.total_bits());
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = i;
  return codes;
}

// ---------------------------------------------------------------------------
// Roundings.

struct RoundingPair {
  Rounding library;
  mpfr_rnd_t mpfr;
  const char* name;
};
inline constexpr RoundingPair kNearest{Rounding::nearest_even, MPFR_RNDN, "nearest_even"};
inline constexpr RoundingPair kDirectedRoundings[] = {
    {Rounding::toward_zero, MPFR_RNDZ, "toward_zero"},
    {Rounding::up, MPFR_RNDU, "up"},
    {Rounding::down, MPFR_RNDD, "down"},
    {Rounding::away_from_zero, MPFR_RNDA, "away_from_zero"},
};

// ---------------------------------------------------------------------------
// Expected results.

// NaN by the conventions (restated from the format definitions, as the reference
// does): IEEE exponent all ones with a nonzero mantissa; fn the all-ones magnitude;
// fnuz and P3109 the negative-zero code; finite formats have none.
inline bool is_nan_code(std::uint64_t code, const Format& f) {
  const int m = f.mantissa_bits;
  const std::uint64_t magnitude_ones = (std::uint64_t{1} << (f.exponent_bits + m)) - 1;
  const std::uint64_t sign = f.is_signed ? std::uint64_t{1} << (f.exponent_bits + m) : 0;
  const std::uint64_t magnitude = code & magnitude_ones;
  switch (f.specials) {
    case Specials::ieee: return (magnitude >> m) == (magnitude_ones >> m) && (magnitude & ((std::uint64_t{1} << m) - 1)) != 0;
    case Specials::fn: return magnitude == magnitude_ones;
    case Specials::fnuz:
    case Specials::p3109: return sign != 0 && code == sign;
    case Specials::finite: return false;
  }
  return false;
}

// A NaN operand propagates (IEEE 754-2019 6.2.3): the result is that NaN made quiet.
// IEEE-style formats set the quiet bit (the top mantissa bit) and keep sign and
// payload; the other conventions have one NaN code per sign, which is already the
// answer.
inline std::uint64_t quieted(std::uint64_t nan, const Format& f) {
  return f.specials == Specials::ieee ? nan | (std::uint64_t{1} << (f.mantissa_bits - 1)) : nan;
}

// The default NaN of an invalid operation: positive and quiet (MPFR's NaN carries
// no sign; IEEE 754 leaves the sign unspecified and the library picks +).
inline std::uint64_t default_nan(const Format& f) {
  return verify::reference_compute([](mpfr_ptr out, mpfr_rnd_t) { mpfr_set_nan(out); return 0; }, f);
}

enum class Operation { add, subtract, multiply, divide };
inline constexpr Operation kOperations[] = {Operation::add, Operation::subtract, Operation::multiply,
                                            Operation::divide};
inline const char* symbol(Operation op) {
  switch (op) {
    case Operation::add: return "+";
    case Operation::subtract: return "-";
    case Operation::multiply: return "*";
    case Operation::divide: return "/";
  }
  return "?";
}

// MPFR's `a op b` into `out`, rounded by `r`; returns MPFR's ternary value.
inline int mpfr_binary(Operation op, mpfr_ptr out, mpfr_srcptr a, mpfr_srcptr b, mpfr_rnd_t r) {
  switch (op) {
    case Operation::add: return mpfr_add(out, a, b, r);
    case Operation::subtract: return mpfr_sub(out, a, b, r);
    case Operation::multiply: return mpfr_mul(out, a, b, r);
    case Operation::divide: return mpfr_div(out, a, b, r);
  }
  return 0;
}

// The code MPFR gives for `a op b` on exact operand values, rounded once to `f`.
// `rounding...` is what verify::reference_compute takes after the format: an
// mpfr_rnd_t, or a softfloat::Rounding and an Overflow policy.
template <class... HowToRound>
std::uint64_t reference_binary(Operation op, mpfr_srcptr a, mpfr_srcptr b, const Format& f, HowToRound... rounding) {
  return verify::reference_compute([&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_binary(op, out, a, b, r); }, f,
                                   rounding...);
}

// The expected sqrt of code i of `table`: a NaN propagates quieted, everything else is
// MPFR's result rounded as `rounding...` says (as for reference_binary).
template <class... HowToRound>
std::uint64_t expected_sqrt(const ValueTable& table, std::size_t i, const Format& f, HowToRound... rounding) {
  if (mpfr_nan_p(table.value(i))) return quieted(table.code(i), f);
  return verify::reference_compute([&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_sqrt(out, table.value(i), r); }, f,
                                   rounding...);
}

// Checks `got`, the library's fma of codes i, j, k of `table` (a, b, c), against MPFR
// rounding as `rounding...` says (as for reference_binary). NaN operands: a NaN a or b
// propagates quieted (a first); inf * 0 is invalid whatever c is (IEEE 754 7.2(c)
// leaves it to the implementation whether a quiet NaN c is passed on instead, so both
// that and `default_nan_code` are accepted there); otherwise a NaN c propagates.
template <class Describe, class... HowToRound>
void check_fma_result(MismatchLog& log, const ValueTable& table, std::size_t i, std::size_t j, std::size_t k,
                      const Format& f, std::uint64_t got, std::uint64_t default_nan_code, Describe describe,
                      HowToRound... rounding) {
  const std::uint64_t a = table.code(i), b = table.code(j), c = table.code(k);
  mpfr_srcptr x = table.value(i), y = table.value(j), z = table.value(k);
  if (mpfr_nan_p(x)) return log.check(got, quieted(a, f), describe);
  if (mpfr_nan_p(y)) return log.check(got, quieted(b, f), describe);
  if (mpfr_nan_p(z)) {
    const bool invalid_product = (mpfr_inf_p(x) && mpfr_zero_p(y)) || (mpfr_zero_p(x) && mpfr_inf_p(y));
    if (!invalid_product) return log.check(got, quieted(c, f), describe);
    return log.check_true(got == quieted(c, f) || got == default_nan_code, [&] {
      return describe() + ": library " + hex(got) + " is neither NaN operand c nor the default NaN";
    });
  }
  log.check(got,
            verify::reference_compute([&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_fma(out, x, y, z, r); }, f,
                                      rounding...),
            describe);
}

// The expected code of `a op b` for codes of `f`: a NaN operand propagates (the first
// one, quieted), everything else is MPFR's result rounded as `rounding...` says (as
// for reference_binary).
template <class... HowToRound>
std::uint64_t expected_binary(Operation op, std::uint64_t a_code, mpfr_srcptr a, std::uint64_t b_code, mpfr_srcptr b,
                              const Format& f, HowToRound... rounding) {
  if (mpfr_nan_p(a)) return quieted(a_code, f);
  if (mpfr_nan_p(b)) return quieted(b_code, f);
  return reference_binary(op, a, b, f, rounding...);
}

// The library's result for codes of F, through the typed API: the operator for the
// default rounding (checked against the named function too), the named function with
// an explicit Rounding otherwise.
template <class F>
std::uint64_t library_binary(Operation op, std::uint64_t a_code, std::uint64_t b_code, Rounding mode) {
  using S = typename F::storage_type;
  const F a = F::from_bits(S(a_code)), b = F::from_bits(S(b_code));
  if (mode == Rounding::nearest_even) {
    switch (op) {
      case Operation::add: return (a + b).bits();
      case Operation::subtract: return (a - b).bits();
      case Operation::multiply: return (a * b).bits();
      case Operation::divide: return (a / b).bits();
    }
  }
  switch (op) {
    case Operation::add: return add(a, b, mode).bits();
    case Operation::subtract: return subtract(a, b, mode).bits();
    case Operation::multiply: return multiply(a, b, mode).bits();
    case Operation::divide: return divide(a, b, mode).bits();
  }
  return 0;
}

}  // namespace softfloat::arithmetic_test
