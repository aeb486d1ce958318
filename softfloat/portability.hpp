// What the library needs of the compiler and the platform beyond standard C++20, in one
// place, checked at compile time:
//
// - unsigned __int128 (softfloat/wide_value.hpp: the exact products, sums and quotients
//   of the arithmetic). GCC and Clang provide it on every 64-bit target (x86-64,
//   aarch64, ...); elsewhere the build stops here with an #error.
// - long double with at least 64 significand bits, used where a value must be held or
//   summed without rounding: shortest_decimal() (softfloat/decimal.cpp) holds any value
//   with a 64-bit significand in it to print it, the precision experiments
//   (experiments/tradeoffs/tradeoffs.cpp) sum their fp64 reference products in it, and the
//   command's relative error (cli/encode_command.cpp) divides in it. On x86-64 it is
//   the x87 80-bit format (64 significand bits, a software-free hardware type); on
//   aarch64 Linux it is IEEE binary128 (113 bits, computed in software by libgcc), the
//   same exponent range, so the printed decimals are the same on both and the
//   experiments' reference sums only more accurate. Where long double is double
//   (MSVC, some 32-bit ARM ABIs) the build stops with a static_assert.
#pragma once

#include <limits>

#if !defined(__SIZEOF_INT128__)
#error "softfloat needs unsigned __int128 (GCC or Clang on a 64-bit target): see softfloat/portability.hpp"
#endif

namespace softfloat::detail {

static_assert(std::numeric_limits<long double>::digits >= 64,
              "softfloat needs a long double with at least 64 significand bits (x87 extended or IEEE "
              "binary128): see softfloat/portability.hpp");

// Every value significand * 2^exponent with a significand of up to 64 bits is exactly
// a long double when exponent >= this (its smallest subnormal: -16445 for x87,
// -16494 for binary128) and its leading bit is at most long_double_max_lead_exponent.
constexpr int long_double_min_exponent =
    std::numeric_limits<long double>::min_exponent - std::numeric_limits<long double>::digits;
constexpr int long_double_max_lead_exponent = std::numeric_limits<long double>::max_exponent - 1;

}  // namespace softfloat::detail
