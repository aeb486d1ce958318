// Correctly rounded arithmetic: + - * / fma sqrt on values of one format, each
// computed exactly (softfloat/wide_value.hpp) and rounded once by round_to_format().
// Three layers: exact results of decoded values (detail), the same on codes of a
// runtime Format (runtime::), and the typed operators on Float (found by ADL).
// Special cases follow IEEE 754-2019 sections 6.2 (NaN), 6.3 (signs of zero) and
// 7.2 (invalid operations give the default quiet NaN); infinities and NaNs that a
// format cannot hold are then encoded by its overflow and NaN rules.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "softfloat/exact_value.hpp"
#include "softfloat/float.hpp"
#include "softfloat/format.hpp"
#include "softfloat/round_to_format.hpp"
#include "softfloat/rounding.hpp"
#include "softfloat/wide_value.hpp"

namespace softfloat {

namespace detail {

constexpr ExactValue special(ValueClass kind, bool negative) {
  ExactValue x;
  x.kind = kind;
  x.negative = negative;
  return x;
}
constexpr ExactValue default_nan() { return special(ValueClass::nan, false); }
constexpr bool is_nan(const ExactValue& x) { return x.kind == ValueClass::nan; }
constexpr bool is_inf(const ExactValue& x) { return x.kind == ValueClass::infinite; }
constexpr bool is_zero(const ExactValue& x) { return x.kind == ValueClass::zero; }

// An exact zero from operands of opposite signs is +0, except -0 when rounding
// toward -infinity (IEEE 754 6.3).
constexpr bool cancellation_sign(Rounding mode) { return mode == Rounding::down; }

constexpr ExactValue exact_sum(const ExactValue& a, const ExactValue& b, Rounding mode) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  if (is_inf(a)) return is_inf(b) && a.negative != b.negative ? default_nan() : a;
  if (is_inf(b)) return b;
  if (is_zero(a) && is_zero(b))
    return special(ValueClass::zero, a.negative == b.negative ? a.negative : cancellation_sign(mode));
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  ExactValue sum = narrow(add(widen(a), widen(b)));
  if (is_zero(sum)) sum.negative = cancellation_sign(mode);
  return sum;
}

constexpr ExactValue negated(ExactValue x) {
  x.negative = !x.negative;
  return x;
}

constexpr ExactValue exact_product(const ExactValue& a, const ExactValue& b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  const bool negative = a.negative != b.negative;
  if ((is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b))) return default_nan();
  if (is_inf(a) || is_inf(b)) return special(ValueClass::infinite, negative);
  if (is_zero(a) || is_zero(b)) return special(ValueClass::zero, negative);
  return narrow(multiply(a, b));
}

constexpr ExactValue exact_quotient(const ExactValue& a, const ExactValue& b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  const bool negative = a.negative != b.negative;
  if ((is_inf(a) && is_inf(b)) || (is_zero(a) && is_zero(b))) return default_nan();
  if (is_inf(a) || is_zero(b)) return special(ValueClass::infinite, negative);  // x/0: division by zero
  if (is_inf(b) || is_zero(a)) return special(ValueClass::zero, negative);
  return narrow(divide(a, b));
}

constexpr ExactValue exact_square_root(const ExactValue& a) {
  if (is_nan(a) || is_zero(a)) return a;  // sqrt(-0) = -0
  if (a.negative) return default_nan();
  if (is_inf(a)) return a;
  return narrow(square_root(a));
}

// a * b + c with a single rounding: the product is exact in 106 bits and the sum
// is formed in the same 128-bit frame as addition.
constexpr ExactValue exact_fma(const ExactValue& a, const ExactValue& b, const ExactValue& c, Rounding mode) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  if ((is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b))) return default_nan();
  if (is_nan(c)) return c;
  const bool product_negative = a.negative != b.negative;
  if (is_inf(a) || is_inf(b)) {
    if (is_inf(c) && c.negative != product_negative) return default_nan();
    return special(ValueClass::infinite, product_negative);
  }
  if (is_inf(c)) return c;
  if (is_zero(a) || is_zero(b)) {
    if (!is_zero(c)) return c;
    return special(ValueClass::zero, product_negative == c.negative ? c.negative : cancellation_sign(mode));
  }
  const WideValue product = multiply(a, b);
  if (is_zero(c)) return narrow(product);
  ExactValue sum = narrow(add(product, widen(c)));
  if (is_zero(sum)) sum.negative = cancellation_sign(mode);
  return sum;
}

// The decoded value of an operand code. A code with bits above the format's width
// names no value of it (a caller's mistake: a code of another format, or garbage), so it
// is refused rather than silently masked; the typed operators cannot pass one.
constexpr ExactValue operand(std::uint64_t code, const Format& f, const char* function) {
  if (!f.valid())
    throw std::invalid_argument(std::string("softfloat::runtime::") + function + ": invalid format: " +
                                std::string(describe(f.problem())));
  if (f.total_bits() < 64 && (code >> f.total_bits()) != 0)
    throw std::invalid_argument(std::string("softfloat::runtime::") + function + ": code " + std::to_string(code) +
                                " does not fit the format's " + std::to_string(f.total_bits()) +
                                " bits (codes lie in [0, 2^" + std::to_string(f.total_bits()) + "))");
  return decode(code, f);
}

}  // namespace detail

// The same operations on codes of a runtime Format, for code that picks formats at
// run time (the command line, Python, the matmul accumulator).
namespace runtime {

constexpr std::uint64_t add(std::uint64_t a, std::uint64_t b, const Format& f,
                            Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                            std::uint32_t random = 0) {
  return round_to_format(detail::exact_sum(detail::operand(a, f, "add"), detail::operand(b, f, "add"), mode), f, mode,
                         policy, random);
}
// a - b is a + (-b), except that a NaN operand propagates unchanged (as the x86
// and Arm instructions do), so its sign is not flipped.
constexpr std::uint64_t subtract(std::uint64_t a, std::uint64_t b, const Format& f,
                                 Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                                 std::uint32_t random = 0) {
  const ExactValue subtrahend = detail::operand(b, f, "subtract");
  return round_to_format(
      detail::exact_sum(detail::operand(a, f, "subtract"),
                        detail::is_nan(subtrahend) ? subtrahend : detail::negated(subtrahend), mode),
      f, mode, policy, random);
}
constexpr std::uint64_t multiply(std::uint64_t a, std::uint64_t b, const Format& f,
                                 Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                                 std::uint32_t random = 0) {
  return round_to_format(detail::exact_product(detail::operand(a, f, "multiply"), detail::operand(b, f, "multiply")),
                         f, mode, policy, random);
}
constexpr std::uint64_t divide(std::uint64_t a, std::uint64_t b, const Format& f,
                               Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                               std::uint32_t random = 0) {
  return round_to_format(detail::exact_quotient(detail::operand(a, f, "divide"), detail::operand(b, f, "divide")), f,
                         mode, policy, random);
}
constexpr std::uint64_t fma(std::uint64_t a, std::uint64_t b, std::uint64_t c, const Format& f,
                            Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                            std::uint32_t random = 0) {
  return round_to_format(
      detail::exact_fma(detail::operand(a, f, "fma"), detail::operand(b, f, "fma"), detail::operand(c, f, "fma"), mode),
      f, mode, policy, random);
}
constexpr std::uint64_t sqrt(std::uint64_t a, const Format& f, Rounding mode = Rounding::nearest_even,
                             Overflow policy = Overflow::standard, std::uint32_t random = 0) {
  return round_to_format(detail::exact_square_root(detail::operand(a, f, "sqrt")), f, mode, policy, random);
}
// Exact: flips the sign (-0 becomes +0 where there is no negative zero; negating a
// nonzero value of an unsigned format gives NaN).
constexpr std::uint64_t negate(std::uint64_t a, const Format& f) {
  return round_to_format(detail::negated(detail::operand(a, f, "negate")), f);
}

}  // namespace runtime

namespace detail {
// The Float of a code that a runtime operation returned.
template <FloatType F>
constexpr F typed(std::uint64_t code) {
  return F::from_bits(typename F::storage_type(code));
}
}  // namespace detail

// Typed operations. Both operands must have the same Float type: there is no
// implicit conversion between formats or from built-in types, so mixing them is a
// compile error (convert explicitly).
template <FloatType F>
constexpr F add(F a, F b, Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                std::uint32_t random = 0) {
  return detail::typed<F>(runtime::add(a.bits(), b.bits(), F::format, mode, policy, random));
}
template <FloatType F>
constexpr F subtract(F a, F b, Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                std::uint32_t random = 0) {
  return detail::typed<F>(runtime::subtract(a.bits(), b.bits(), F::format, mode, policy, random));
}
template <FloatType F>
constexpr F multiply(F a, F b, Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                std::uint32_t random = 0) {
  return detail::typed<F>(runtime::multiply(a.bits(), b.bits(), F::format, mode, policy, random));
}
template <FloatType F>
constexpr F divide(F a, F b, Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                std::uint32_t random = 0) {
  return detail::typed<F>(runtime::divide(a.bits(), b.bits(), F::format, mode, policy, random));
}
template <FloatType F>
constexpr F fma(F a, F b, F c, Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                std::uint32_t random = 0) {
  return detail::typed<F>(runtime::fma(a.bits(), b.bits(), c.bits(), F::format, mode, policy, random));
}
template <FloatType F>
constexpr F sqrt(F a, Rounding mode = Rounding::nearest_even, Overflow policy = Overflow::standard,
                std::uint32_t random = 0) {
  return detail::typed<F>(runtime::sqrt(a.bits(), F::format, mode, policy, random));
}

template <FloatType F> constexpr F operator+(F a, F b) { return add(a, b); }
template <FloatType F> constexpr F operator-(F a, F b) { return subtract(a, b); }
template <FloatType F> constexpr F operator*(F a, F b) { return multiply(a, b); }
template <FloatType F> constexpr F operator/(F a, F b) { return divide(a, b); }
template <FloatType F> constexpr F operator-(F a) {
  return detail::typed<F>(runtime::negate(a.bits(), F::format));
}
template <FloatType F> constexpr F operator+(F a) { return a; }
template <FloatType F> constexpr F& operator+=(F& a, F b) { return a = a + b; }
template <FloatType F> constexpr F& operator-=(F& a, F b) { return a = a - b; }
template <FloatType F> constexpr F& operator*=(F& a, F b) { return a = a * b; }
template <FloatType F> constexpr F& operator/=(F& a, F b) { return a = a / b; }

}  // namespace softfloat
