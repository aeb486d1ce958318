// Fuzz target: round_to_format() on exact values and the runtime arithmetic (add,
// subtract, multiply, divide, fma, sqrt) on operand codes, in formats with random
// exponent and mantissa widths, bias and conventions, every deterministic rounding mode
// and both overflow policies, against the MPFR reference (reference/). An
// operation with a NaN operand must give a NaN (which one is the propagation rule,
// pinned by the unit tests, not MPFR's: MPFR's NaN has no sign or payload).
#include <mpfr.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "softfloat/arithmetic.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/round_to_format.hpp"
#include "softfloat/verify/mpfr_reference.hpp"
#include "verify/fuzz/fuzz_input.hpp"

namespace {

using namespace softfloat;
using verify::Mpfr;

enum class Operation { round, add, subtract, multiply, divide, fma, sqrt };
const char* const kNames[] = {"round_to_format", "add", "subtract", "multiply", "divide", "fma", "sqrt"};

struct Case {
  Format format;
  Operation operation;
  Rounding mode;
  Overflow policy;
};

void report(const Case& c, const char* operands, std::uint64_t got, std::uint64_t expected) {
  const Format& f = c.format;
  fuzz::fail("%s(%s) in e%dm%d bias %d specials %s signed %d zero %d, %s, %s: library 0x%llx, MPFR 0x%llx",
             kNames[int(c.operation)], operands, f.exponent_bits, f.mantissa_bits, f.bias,
             std::string(specials_name(f.specials)).c_str(), int(f.is_signed), int(f.has_zero),
             std::string(rounding_name(c.mode)).c_str(), c.policy == Overflow::saturate ? "saturate" : "standard",
             static_cast<unsigned long long>(got), static_cast<unsigned long long>(expected));
}

// An exact value around the format's range: a zero, an infinity, or a finite value
// with a 64-bit significand whose exponent reaches from far below the smallest
// subnormal to beyond the overflow threshold. A sticky tail needs a full significand
// (ExactValue's contract: callers with more than 64 bits shift the excess there).
ExactValue exact_value(fuzz::FuzzInput& input, const Format& f) {
  ExactValue x;
  const std::uint8_t kind = input.byte();
  x.negative = (kind & 0x80) != 0;
  if ((kind & 0x0F) == 0) return x;  // zero
  if ((kind & 0x0F) == 1) {
    x.kind = ValueClass::infinite;
    return x;
  }
  x.kind = ValueClass::finite;
  x.significand = input.integer(8) | 1;
  x.sticky = (kind & 0x10) != 0;
  if (x.sticky) x.significand |= std::uint64_t{1} << 63;
  const std::int64_t low = std::int64_t(f.min_normal_exponent()) - f.mantissa_bits - 64 - 8;
  const std::int64_t high = std::int64_t(f.max_exponent()) + 8;
  x.exponent = int(low + std::int64_t(input.below(std::uint64_t(high - low + 1))));
  return x;
}

// The same value in MPFR: (significand + 1/2 if sticky) * 2^exponent, exactly (any
// tail strictly between 0 and 1 rounds the same once 64 bits are kept above it).
void to_mpfr(mpfr_ptr out, const ExactValue& x) {
  switch (x.kind) {
    case ValueClass::zero: mpfr_set_zero(out, x.negative ? -1 : 1); return;
    case ValueClass::infinite: mpfr_set_inf(out, x.negative ? -1 : 1); return;
    case ValueClass::nan: mpfr_set_nan(out); return;
    case ValueClass::finite: break;
  }
  mpfr_set_ui_2exp(out, x.significand, x.exponent, MPFR_RNDN);
  if (x.sticky) {
    Mpfr half(2);
    mpfr_set_ui_2exp(half.get(), 1, x.exponent - 1, MPFR_RNDN);
    mpfr_add(out, out, half.get(), MPFR_RNDN);  // 65 significant bits: exact in 66
  }
  if (x.negative) mpfr_neg(out, out, MPFR_RNDN);
}

void check_round_to_format(fuzz::FuzzInput& input, const Case& c) {
  const ExactValue x = exact_value(input, c.format);
  Mpfr value(66);
  to_mpfr(value.get(), x);
  const std::uint64_t got = round_to_format(x, c.format, c.mode, c.policy);
  const std::uint64_t expected = verify::reference_round(value.get(), c.format, c.mode, c.policy);
  if (got != expected) {
    char operand[96];
    std::snprintf(operand, sizeof operand, "%s(0x%llx%s) * 2^%d", x.negative ? "-" : "",
                  static_cast<unsigned long long>(x.significand), x.sticky ? " + tail" : "", x.exponent);
    report(c, x.kind == ValueClass::finite ? operand : x.kind == ValueClass::zero ? "zero" : "infinity", got,
           expected);
  }
}

void check_operation(fuzz::FuzzInput& input, const Case& c) {
  const Format& f = c.format;
  const std::uint64_t a = input.code(f), b = input.code(f), z = input.code(f);
  Mpfr x(64), y(64), w(64);  // every format has at most 53 significant bits
  verify::exact_value_of(x.get(), a, f);
  verify::exact_value_of(y.get(), b, f);
  verify::exact_value_of(w.get(), z, f);
  std::uint64_t got = 0;
  int operands = 2;
  std::function<int(mpfr_ptr, mpfr_rnd_t)> reference;
  switch (c.operation) {
    case Operation::add:
      got = runtime::add(a, b, f, c.mode, c.policy);
      reference = [&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_add(out, x.get(), y.get(), r); };
      break;
    case Operation::subtract:
      got = runtime::subtract(a, b, f, c.mode, c.policy);
      reference = [&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_sub(out, x.get(), y.get(), r); };
      break;
    case Operation::multiply:
      got = runtime::multiply(a, b, f, c.mode, c.policy);
      reference = [&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_mul(out, x.get(), y.get(), r); };
      break;
    case Operation::divide:
      got = runtime::divide(a, b, f, c.mode, c.policy);
      reference = [&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_div(out, x.get(), y.get(), r); };
      break;
    case Operation::fma:
      operands = 3;
      got = runtime::fma(a, b, z, f, c.mode, c.policy);
      reference = [&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_fma(out, x.get(), y.get(), w.get(), r); };
      break;
    case Operation::sqrt:
      operands = 1;
      got = runtime::sqrt(a, f, c.mode, c.policy);
      reference = [&](mpfr_ptr out, mpfr_rnd_t r) { return mpfr_sqrt(out, x.get(), r); };
      break;
    case Operation::round: return;
  }
  char text[96];
  std::snprintf(text, sizeof text, operands == 1 ? "0x%llx" : operands == 2 ? "0x%llx, 0x%llx" : "0x%llx, 0x%llx, 0x%llx",
                static_cast<unsigned long long>(a), static_cast<unsigned long long>(b),
                static_cast<unsigned long long>(z));
  const bool nan_operand = mpfr_nan_p(x.get()) || (operands > 1 && mpfr_nan_p(y.get())) ||
                           (operands > 2 && mpfr_nan_p(w.get()));
  if (nan_operand) {
    Mpfr result(64);
    verify::exact_value_of(result.get(), got, f);
    if (!mpfr_nan_p(result.get())) report(c, text, got, verify::reference_compute(reference, f, c.mode, c.policy));
    return;
  }
  const std::uint64_t expected = verify::reference_compute(reference, f, c.mode, c.policy);
  if (got != expected) report(c, text, got, expected);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput input(data, size);
  const auto format = input.format();
  if (!format) return 0;
  Case c{*format, Operation(input.below(7)), input.deterministic_rounding(), input.overflow()};
  if (c.operation == Operation::round) check_round_to_format(input, c);
  else check_operation(input, c);
  return 0;
}
