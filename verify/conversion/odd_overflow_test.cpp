// Round-to-odd at the top of the range: truncation with a sticky last bit, so a finite
// value beyond max rounds to max of its sign (Berkeley SoftFloat's and TestFloat's
// -rodd, Boldo and Melquiond's definition), never to infinity or NaN; infinite input
// and exact infinities (1 / 0) keep the format's rule. Each case's code was worked out
// by hand from that rule and is checked against the library (typed and runtime
// conversions from float and double, the typed and runtime arithmetic, the SIMD array
// conversion on every target) and against the MPFR reference (the value rounded toward
// zero on the format's grid plus a sticky bit). Both overflow policies give the same
// code here, since odd's overflow is saturation already, except for exact infinities
// (1 / 0, infinite operands), which keep the format's rule and saturate to max.
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "softfloat/simd.hpp"
#include "verify/common/rounding_modes.hpp"
#include "verify/conversion/conversion_test_support.hpp"
#include "verify/simd/every_target.hpp"

namespace softfloat::conversion_test {
namespace {

using test_support::kOverflowPolicies;
using test_support::name_of;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct InputCase {
  const char* what;
  double input;
  bool as_float;  // also convert float(input) (exact for every float case below)
  std::uint64_t code;
};

template <class F>
void check_inputs(std::initializer_list<InputCase> cases) {
  const Format f = F::format;
  for (const InputCase& c : cases) {
    for (Overflow policy : kOverflowPolicies) {
      SCOPED_TRACE(format_name(f) + ": " + c.what + ", " + std::string(name_of(policy)));
      const bool saturating_infinity = std::isinf(c.input) && policy == Overflow::saturate;
      const std::uint64_t expected = saturating_infinity ? verify::reference_round(c.input, f, Rounding::nearest_even, policy)
                                                         : c.code;
      EXPECT_EQ(std::uint64_t(F(c.input, Rounding::odd, policy).bits()), expected) << "typed from double";
      EXPECT_EQ(verify::reference_round(c.input, f, Rounding::odd, policy), expected) << "MPFR from double";
      if (!c.as_float) continue;
      const float x = float(c.input);
      ASSERT_EQ(double(x), c.input) << "the case's float input is not exact";
      EXPECT_EQ(std::uint64_t(F(x, Rounding::odd, policy).bits()), expected) << "typed from float";
      EXPECT_EQ(verify::reference_round(x, f, Rounding::odd, policy), expected) << "MPFR from float";
      if (f.total_bits() > 16) continue;
      test_targets::for_each_target([&](const std::string&) {
        std::uint16_t code = 0xDEAD;
        simd::quantize(&x, 1, &code, f, Rounding::odd, policy);
        EXPECT_EQ(code, expected) << "simd::quantize";
      });
    }
  }
}

enum class Op { add, subtract, multiply, divide, fma };

constexpr std::uint64_t kSameCode = ~std::uint64_t{0};

struct OperationCase {
  const char* what;
  Op op;
  std::uint64_t a, b, c;  // c: fma's addend
  std::uint64_t code;
  std::uint64_t saturated = kSameCode;  // the code under Overflow::saturate, where it differs (exact infinities)
};

std::uint64_t library_result(Op op, const OperationCase& c, const Format& f, Overflow policy) {
  constexpr Rounding odd = Rounding::odd;
  switch (op) {
    case Op::add: return runtime::add(c.a, c.b, f, odd, policy);
    case Op::subtract: return runtime::subtract(c.a, c.b, f, odd, policy);
    case Op::multiply: return runtime::multiply(c.a, c.b, f, odd, policy);
    case Op::divide: return runtime::divide(c.a, c.b, f, odd, policy);
    case Op::fma: return runtime::fma(c.a, c.b, c.c, f, odd, policy);
  }
  return 0;
}

std::uint64_t reference_result(const OperationCase& c, const Format& f, Overflow policy) {
  const mpfr_prec_t precision = f.mantissa_bits + 1;
  Mpfr a(precision), b(precision), addend(precision);
  verify::exact_value_of(a.get(), c.a, f);
  verify::exact_value_of(b.get(), c.b, f);
  verify::exact_value_of(addend.get(), c.c, f);
  return verify::reference_compute(
      [&](mpfr_ptr out, mpfr_rnd_t r) {
        switch (c.op) {
          case Op::add: return mpfr_add(out, a.get(), b.get(), r);
          case Op::subtract: return mpfr_sub(out, a.get(), b.get(), r);
          case Op::multiply: return mpfr_mul(out, a.get(), b.get(), r);
          case Op::divide: return mpfr_div(out, a.get(), b.get(), r);
          case Op::fma: return mpfr_fma(out, a.get(), b.get(), addend.get(), r);
        }
        return 0;
      },
      f, Rounding::odd, policy);
}

// The typed operators of F on the same codes (the runtime ones share the rounding, not
// the entry points).
template <class F>
std::uint64_t typed_result(const OperationCase& c, Overflow policy) {
  const F a = F::from_bits(typename F::storage_type(c.a)), b = F::from_bits(typename F::storage_type(c.b)),
          addend = F::from_bits(typename F::storage_type(c.c));
  constexpr Rounding odd = Rounding::odd;
  switch (c.op) {
    case Op::add: return add(a, b, odd, policy).bits();
    case Op::subtract: return subtract(a, b, odd, policy).bits();
    case Op::multiply: return multiply(a, b, odd, policy).bits();
    case Op::divide: return divide(a, b, odd, policy).bits();
    case Op::fma: return fma(a, b, addend, odd, policy).bits();
  }
  return 0;
}

template <class F>
void check_operations(std::initializer_list<OperationCase> cases) {
  const Format f = F::format;
  for (const OperationCase& c : cases) {
    for (Overflow policy : kOverflowPolicies) {
      SCOPED_TRACE(format_name(f) + ": " + c.what + ", " + std::string(name_of(policy)));
      const std::uint64_t expected = policy == Overflow::saturate && c.saturated != kSameCode ? c.saturated : c.code;
      EXPECT_EQ(library_result(c.op, c, f, policy), expected) << "runtime";
      EXPECT_EQ(typed_result<F>(c, policy), expected) << "typed";
      EXPECT_EQ(reference_result(c, f, policy), expected) << "MPFR";
    }
  }
}

// FP16: max 65504 = 0x7BFF (significand all ones, odd), infinity 0x7C00. 0x4000 = 2,
// 0x3C00 = 1, 0x3800 = 0.5, 0x5000 = 32.
TEST(OddOverflow, Fp16) {
  check_inputs<FP16>({
      {"65504 is exact", 65504, true, 0x7BFF},
      {"65535 truncates to max", 65535, true, 0x7BFF},
      {"2^16 is beyond max", 65536, true, 0x7BFF},
      {"1e6", 1e6, true, 0x7BFF},
      {"-1e6", -1e6, true, 0xFBFF},
      {"f32 0x4F951295 (5.0e9), TestFloat's case", double(std::bit_cast<float>(0x4F951295u)), true, 0x7BFF},
      {"FLT_MAX", FLT_MAX, true, 0x7BFF},
      {"1e300 (double only)", 1e300, false, 0x7BFF},
      {"infinity keeps its rule", kInf, true, 0x7C00},
      {"-infinity keeps its rule", -kInf, true, 0xFC00},
  });
  check_operations<FP16>({
      {"0x7B9E + 0x6BFF = 66494, TestFloat's case", Op::add, 0x7B9E, 0x6BFF, 0, 0x7BFF},
      {"max - (-max)", Op::subtract, 0x7BFF, 0xFBFF, 0, 0x7BFF},
      {"-max - max", Op::subtract, 0xFBFF, 0x7BFF, 0, 0xFBFF},
      {"max * 2", Op::multiply, 0x7BFF, 0x4000, 0, 0x7BFF},
      {"-max * 2", Op::multiply, 0xFBFF, 0x4000, 0, 0xFBFF},
      {"max / 0.5", Op::divide, 0x7BFF, 0x3800, 0, 0x7BFF},
      {"max * 1 + 32 = 2^16", Op::fma, 0x7BFF, 0x3C00, 0x5000, 0x7BFF},
      {"1 / 0 is an exact infinity (max when saturating)", Op::divide, 0x3C00, 0x0000, 0, 0x7C00, 0x7BFF},
      {"infinity + 1 stays infinite (max when saturating)", Op::add, 0x7C00, 0x3C00, 0, 0x7C00, 0x7BFF},
  });
}

// BF16: max 0x7F7F = (2 - 2^-7) * 2^127, infinity 0x7F80. 0x4000 = 2, 0x3F80 = 1,
// 0x3F00 = 0.5, 0x7F00 = 2^127.
TEST(OddOverflow, Bf16) {
  check_inputs<BF16>({
      {"FLT_MAX truncates to max", FLT_MAX, true, 0x7F7F},
      {"-FLT_MAX", -double(FLT_MAX), true, 0xFF7F},
      {"2^128 (double only)", 0x1p128, false, 0x7F7F},
      {"1e300 (double only)", 1e300, false, 0x7F7F},
      {"-1e300 (double only)", -1e300, false, 0xFF7F},
      {"infinity keeps its rule", kInf, true, 0x7F80},
  });
  check_operations<BF16>({
      {"max + max", Op::add, 0x7F7F, 0x7F7F, 0, 0x7F7F},
      {"-max - max", Op::subtract, 0xFF7F, 0x7F7F, 0, 0xFF7F},
      {"max * 2", Op::multiply, 0x7F7F, 0x4000, 0, 0x7F7F},
      {"max / 0.5", Op::divide, 0x7F7F, 0x3F00, 0, 0x7F7F},
      {"max * 1 + 2^127", Op::fma, 0x7F7F, 0x3F80, 0x7F00, 0x7F7F},
  });
}

// FP32: max 0x7F7FFFFF, infinity 0x7F800000. 0x40000000 = 2, 0x3F800000 = 1,
// 0x3F000000 = 0.5.
TEST(OddOverflow, Fp32) {
  check_inputs<FP32>({
      {"between max and 2^128", 0x1.ffffffcp127, false, 0x7F7FFFFF},
      {"2^128", 0x1p128, false, 0x7F7FFFFF},
      {"DBL_MAX", DBL_MAX, false, 0x7F7FFFFF},
      {"-1e300", -1e300, false, 0xFF7FFFFF},
      {"infinity keeps its rule", kInf, true, 0x7F800000},
  });
  check_operations<FP32>({
      {"max + max", Op::add, 0x7F7FFFFF, 0x7F7FFFFF, 0, 0x7F7FFFFF},
      {"-max - max", Op::subtract, 0xFF7FFFFF, 0x7F7FFFFF, 0, 0xFF7FFFFF},
      {"max * 2", Op::multiply, 0x7F7FFFFF, 0x40000000, 0, 0x7F7FFFFF},
      {"max / 0.5", Op::divide, 0x7F7FFFFF, 0x3F000000, 0, 0x7F7FFFFF},
      {"max * 1 + max", Op::fma, 0x7F7FFFFF, 0x3F800000, 0x7F7FFFFF, 0x7F7FFFFF},
      {"1 / 0 is an exact infinity (max when saturating)", Op::divide, 0x3F800000, 0, 0, 0x7F800000, 0x7F7FFFFF},
  });
}

// binary64: max 0x7FEFFFFFFFFFFFFF, infinity 0x7FF0000000000000. 0x4000... = 2,
// 0x3FF0... = 1, 0x3FE0... = 0.5, 0x1 the smallest subnormal 2^-1074.
TEST(OddOverflow, Binary64) {
  using Fp64 = FP64;
  check_inputs<Fp64>({
      {"DBL_MAX is exact", DBL_MAX, false, 0x7FEFFFFFFFFFFFFF},
      {"infinity keeps its rule", kInf, false, 0x7FF0000000000000},
  });
  check_operations<Fp64>({
      {"0x6FEA335F52DDFE00 / 2^-1074, TestFloat's case", Op::divide, 0x6FEA335F52DDFE00, 0x1, 0,
       0x7FEFFFFFFFFFFFFF},
      {"max + max", Op::add, 0x7FEFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0, 0x7FEFFFFFFFFFFFFF},
      {"-max - max", Op::subtract, 0xFFEFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0, 0xFFEFFFFFFFFFFFFF},
      {"max * 2", Op::multiply, 0x7FEFFFFFFFFFFFFF, 0x4000000000000000, 0, 0x7FEFFFFFFFFFFFFF},
      {"max / 0.5", Op::divide, 0x7FEFFFFFFFFFFFFF, 0x3FE0000000000000, 0, 0x7FEFFFFFFFFFFFFF},
      {"max * 1 + max", Op::fma, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000, 0x7FEFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF},
  });
}

// E5M2: max 57344 = 0x7B (0b0'11110'11, odd), infinity 0x7C. 0x40 = 2, 0x3C = 1,
// 0x38 = 0.5.
TEST(OddOverflow, E5m2) {
  check_inputs<E5M2>({
      {"60000 truncates to max", 60000, true, 0x7B},
      {"2^16", 65536, true, 0x7B},
      {"-1e6", -1e6, true, 0xFB},
      {"1e300 (double only)", 1e300, false, 0x7B},
      {"infinity keeps its rule", kInf, true, 0x7C},
  });
  check_operations<E5M2>({
      {"max + max", Op::add, 0x7B, 0x7B, 0, 0x7B},
      {"-max - max", Op::subtract, 0xFB, 0x7B, 0, 0xFB},
      {"max * 2", Op::multiply, 0x7B, 0x40, 0, 0x7B},
      {"max / 0.5", Op::divide, 0x7B, 0x38, 0, 0x7B},
      {"max * 1 + max", Op::fma, 0x7B, 0x3C, 0x7B, 0x7B},
  });
}

// E4M3: max 448 = 0x7E = 0b0'1111'110, whose significand is even; the would-be odd
// neighbour 480 is 0x7F, the NaN code, so odd overflow lands on 448 itself. No
// infinity: infinite input and 1 / 0 are NaN under the standard policy. 0x58 = 16,
// 0x40 = 2, 0x38 = 1, 0x30 = 0.5.
TEST(OddOverflow, E4m3) {
  check_inputs<E4M3>({
      {"449", 449, true, 0x7E},
      {"460, the issue's case", 460, true, 0x7E},
      {"464, the midpoint", 464, true, 0x7E},
      {"480, the NaN code's place", 480, true, 0x7E},
      {"-460", -460, true, 0xFE},
      {"1e6", 1e6, true, 0x7E},
      {"FLT_MAX", FLT_MAX, true, 0x7E},
      {"1e300 (double only)", 1e300, false, 0x7E},
      {"infinity is NaN", kInf, true, 0x7F},
      {"-infinity is NaN", -kInf, true, 0xFF},
  });
  check_operations<E4M3>({
      {"448 + 16", Op::add, 0x7E, 0x58, 0, 0x7E},
      {"-448 - 448", Op::subtract, 0xFE, 0x7E, 0, 0xFE},
      {"448 * 2", Op::multiply, 0x7E, 0x40, 0, 0x7E},
      {"448 / 0.5", Op::divide, 0x7E, 0x30, 0, 0x7E},
      {"448 * 1 + 448", Op::fma, 0x7E, 0x38, 0x7E, 0x7E},
  });
}

// Custom biases. Float<5,10,3>: IEEE, max (2 - 2^-10) * 2^27 = 0x7BFF, infinity 0x7C00;
// 2 = 0x1000, 1 = 0x0C00, 0.5 = 0x0800. Float<4,3,11,false>: fn, max 1.75 * 2^4 = 28 =
// 0x7E (even significand, 0x7F the NaN code).
TEST(OddOverflow, CustomBias) {
  using Ieee = Float<5, 10, 3>;
  check_inputs<Ieee>({
      {"2^28", 0x1p28, true, 0x7BFF},
      {"between max and 2^28", 0x1.fffp27, true, 0x7BFF},
      {"-1e300 (double only)", -1e300, false, 0xFBFF},
  });
  check_operations<Ieee>({
      {"max + max", Op::add, 0x7BFF, 0x7BFF, 0, 0x7BFF},
      {"max * 2", Op::multiply, 0x7BFF, 0x1000, 0, 0x7BFF},
      {"max / 0.5", Op::divide, 0x7BFF, 0x0800, 0, 0x7BFF},
      {"max * 1 + max", Op::fma, 0x7BFF, 0x0C00, 0x7BFF, 0x7BFF},
      {"-max - max", Op::subtract, 0xFBFF, 0x7BFF, 0, 0xFBFF},
  });
  using Fn = Float<4, 3, 11, false>;
  check_inputs<Fn>({
      {"29", 29, true, 0x7E},
      {"30, the NaN code's place", 30, true, 0x7E},
      {"-1e6", -1e6, true, 0xFE},
  });
  check_operations<Fn>({
      {"28 + 28", Op::add, 0x7E, 0x7E, 0, 0x7E},
  });
}

}  // namespace
}  // namespace softfloat::conversion_test
