// The arithmetic steps of the experiments: an exact sum or fused multiply-add of values
// from different formats (a bf16 weight plus a double update, an fp32 term into a bf16
// accumulator), rounded once to the format that stores the result. The exact results
// come from the library's arithmetic (the same ones runtime::add and runtime::fma
// use), and round_to_format() rounds them: no double rounding through an intermediate
// format, and no dependence on the FPU's rounding mode.
#pragma once

#include <bit>
#include <cstdint>

#include "softfloat/arithmetic.hpp"
#include "softfloat/exact_value.hpp"
#include "softfloat/format.hpp"
#include "softfloat/round_to_format.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat::experiments::detail {

// a + b rounded once to `format`.
inline std::uint64_t rounded_sum(const ExactValue& a, const ExactValue& b, const Format& format,
                                 Rounding mode = Rounding::nearest_even, std::uint32_t random = 0) {
  return round_to_format(softfloat::detail::exact_sum(a, b, mode), format, mode, Overflow::standard, random);
}

// a * b + c rounded once to `format`.
inline std::uint64_t rounded_fma(const ExactValue& a, const ExactValue& b, const ExactValue& c,
                                 const Format& format) {
  return round_to_format(softfloat::detail::exact_fma(a, b, c, Rounding::nearest_even), format);
}

inline ExactValue negated(ExactValue x) {
  x.negative = !x.negative;
  return x;
}

// The value of a code as a double: exact for every format whose values double holds.
inline double to_double(std::uint64_t code, const Format& format) {
  return std::bit_cast<double>(round_to_format(decode(code, format), binary64_format));
}

}  // namespace softfloat::experiments::detail
