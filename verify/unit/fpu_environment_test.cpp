// Conversions never depend on the caller's floating-point environment: the same inputs
// (subnormal inputs and outputs, halfway cases, overflow, NaN) give the same bits under
// the default environment, under directed rounding modes, and with the SSE flush-to-zero
// and denormals-are-zero bits set. The inputs are read from runtime arrays through
// volatile, so the compiler cannot fold the conversions at compile time.
#include <gtest/gtest.h>

#include <bit>
#include <cfenv>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"
#include "verify/common/float_environment.hpp"

namespace softfloat {
namespace {

// float inputs as bit patterns, so building them needs no floating-point arithmetic.
std::uint32_t float_inputs[] = {
    0x3DCCCCCD,  // 0.1f
    0x3EAAAAAB,  // 1/3
    0x00000001,  // smallest float subnormal 2^-149
    0x007FFFFF,  // largest float subnormal
    0x00400000,  // 2^-127 (E8M0's smallest value)
    0x80000003,  // negative subnormal
    0x3F808000,  // 1 + 2^-8: bf16 tie, to even 1.0
    0x3F818000,  // 1 + 3 * 2^-8: bf16 tie, to even 1 + 2^-6
    0x3F801000,  // 1 + 2^-11: fp16 tie, to even 1.0
    0x33000000,  // 2^-25: half of fp16's smallest subnormal, a tie to 0
    0x33C00000,  // 3 * 2^-25: fp16 subnormal tie between 2^-24 and 2^-23, to 2^-23
    0x3A800000,  // 2^-10: half of E4M3's smallest subnormal 2^-9, a tie to 0
    0x43E80000,  // 464: E4M3 tie at the overflow edge, to 448
    0x43E80001,  // just above 464: E4M3 NaN
    0x477FF000,  // 65520: fp16 overflow tie, to infinity
    0xC0400000,  // -3
    0x40400000,  // 3: E8M0 tie, up to 4
    0x7F800000,  // +infinity
    0xFFA00000,  // negative signalling NaN with payload
    0x80000000,  // -0
};
// double inputs, likewise.
std::uint64_t double_inputs[] = {
    0x3FB999999999999A,  // 0.1
    0x0000000000000001,  // smallest double subnormal 2^-1074
    0x000FFFFFFFFFFFFF,  // largest double subnormal
    0x36A0000000000000,  // 2^-149: smallest float subnormal
    0x3690000000000000,  // 2^-150: float tie to 0
    0x36A8000000000000,  // 3 * 2^-150: float subnormal tie, to 2^-148
    0x3FF0100000000001,  // 1 + 2^-8 + 2^-52: above the bf16 tie
    0x3FF0100000001000,  // 1 + 2^-8 + 2^-40: double rounding through float would differ
    0xC07AFFFFFFFFFFFF,  // -431.99999999999994
    0x3E45798EE2308C3A,  // 1e-8
    0x3E60000000000000,  // 2^-25: fp16 tie to 0
    0x3E78000000000000,  // 3 * 2^-25: fp16 subnormal tie between 2^-24 and 2^-23, to 2^-23
    0x41702FFFF0000000,  // 16973823 = 2^24 + 0x2FFFF
    0x47EFFFFFF0000000,  // float max + half a gap: overflows float
    0x7FF0000000000000,  // +infinity
    0xFFF4000000000000,  // negative signalling NaN
    0x8000000000000000,  // -0
};

template <class T>
T read(const T* array, std::size_t i) {
  const volatile T* element = array + i;
  return *element;
}

// One recorded result: what was converted, and the bits that came out.
struct Result {
  std::string label;
  std::uint64_t bits;
};

template <class F>
void convert_all(const char* name, std::vector<Result>& out) {
  for (std::size_t i = 0; i < std::size(float_inputs); ++i) {
    const float x = std::bit_cast<float>(read(float_inputs, i));
    out.push_back({std::string(name) + "(float #" + std::to_string(i) + ")", F(x).bits()});
  }
  for (std::size_t i = 0; i < std::size(double_inputs); ++i) {
    const double x = std::bit_cast<double>(read(double_inputs, i));
    out.push_back({std::string(name) + "(double #" + std::to_string(i) + ")", F(x).bits()});
  }
}

// Codes decoded back to float and double: subnormal codes, codes whose value is
// subnormal in float (bf16 0x0001 = 2^-133, E8M0 0x00 = 2^-127), and double codes that
// round when narrowed to float.
template <class F>
void decode_codes(const char* name, const std::vector<std::uint64_t>& codes, std::vector<Result>& out) {
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const auto code = read(codes.data(), i);
    const F x = F::from_bits(typename F::storage_type(code));
    out.push_back({std::string("float(") + name + " #" + std::to_string(i) + ")",
                   std::bit_cast<std::uint32_t>(float(x))});
    out.push_back({std::string("double(") + name + " #" + std::to_string(i) + ")",
                   std::bit_cast<std::uint64_t>(double(x))});
  }
}

std::vector<Result> run_conversions() {
  std::vector<Result> out;
  convert_all<FP32>("FP32", out);
  convert_all<FP64>("FP64", out);
  convert_all<BF16>("BF16", out);
  convert_all<FP16>("FP16", out);
  convert_all<E5M2>("E5M2", out);
  convert_all<E4M3>("E4M3", out);
  convert_all<E2M1>("E2M1", out);
  convert_all<E8M0>("E8M0", out);
  convert_all<E4M3FNUZ>("E4M3FNUZ", out);
  decode_codes<FP32>("FP32", {0x00000001, 0x807FFFFF, 0x3DCCCCCD, 0x7FA00000}, out);
  decode_codes<FP64>("FP64", {0x0000000000000001, 0x36A0000000000000, 0x3690000000000000, 0x36A8000000000000,
                              0x3FF0000010000000, 0x3FF0000030000000, 0x47EFFFFFF0000000}, out);
  decode_codes<BF16>("BF16", {0x0001, 0x8001, 0x007F, 0x0080, 0x3DCD, 0x7F81}, out);
  decode_codes<FP16>("FP16", {0x0001, 0x03FF, 0x8200, 0x7BFF, 0x7C00, 0xFD01}, out);
  decode_codes<E4M3>("E4M3", {0x01, 0x07, 0x7E, 0xFF}, out);
  decode_codes<E8M0>("E8M0", {0x00, 0x01, 0xFE, 0xFF}, out);
  return out;
}

void expect_same(const std::vector<Result>& expected, const std::vector<Result>& actual, const char* environment) {
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(expected[i].bits, actual[i].bits) << expected[i].label << " under " << environment;
}

// The environment-independent baseline: in the default environment, every
// float/double conversion matches MPFR, so the comparison below compares right answers.
TEST(FpuEnvironment, DefaultEnvironmentMatchesMpfr) {
  auto check = [](auto format_tag, const char* name) {
    using F = decltype(format_tag);
    for (std::size_t i = 0; i < std::size(float_inputs); ++i) {
      const float x = std::bit_cast<float>(read(float_inputs, i));
      EXPECT_EQ(F(x).bits(), verify::reference_round(x, format_of<F>())) << name << " float #" << i;
    }
    for (std::size_t i = 0; i < std::size(double_inputs); ++i) {
      const double x = std::bit_cast<double>(read(double_inputs, i));
      EXPECT_EQ(F(x).bits(), verify::reference_round(x, format_of<F>())) << name << " double #" << i;
    }
  };
  check(FP32{}, "FP32");
  check(FP64{}, "FP64");
  check(BF16{}, "BF16");
  check(FP16{}, "FP16");
  check(E5M2{}, "E5M2");
  check(E4M3{}, "E4M3");
  check(E2M1{}, "E2M1");
  check(E8M0{}, "E8M0");
  check(E4M3FNUZ{}, "E4M3FNUZ");
}

TEST(FpuEnvironment, SameBitsUnderEveryRoundingModeAndFlushToZero) {
  verify::ScopedFloatEnvironment restore;
  const std::vector<Result> baseline = run_conversions();

  ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  expect_same(baseline, run_conversions(), "FE_UPWARD");
  ASSERT_EQ(std::fesetround(FE_DOWNWARD), 0);
  expect_same(baseline, run_conversions(), "FE_DOWNWARD");
  ASSERT_EQ(std::fesetround(FE_TOWARDZERO), 0);
  expect_same(baseline, run_conversions(), "FE_TOWARDZERO");
  ASSERT_EQ(std::fesetround(FE_TONEAREST), 0);

#if defined(SOFTFLOAT_TEST_HAS_MXCSR) || defined(SOFTFLOAT_TEST_HAS_FPCR)
  restore.set(FE_TONEAREST, true);
  // Prove the switch took effect: the hardware now flushes a subnormal product to zero
  // (2^-149 * 1 would stay 2^-149 without DAZ/FTZ, or aarch64's FZ).
  volatile float tiny = std::bit_cast<float>(std::uint32_t{1});
  volatile float one = 1.0f;
  ASSERT_EQ(std::bit_cast<std::uint32_t>(float(tiny * one)), 0u);
  expect_same(baseline, run_conversions(), "FTZ+DAZ");
  ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  expect_same(baseline, run_conversions(), "FTZ+DAZ with FE_UPWARD");
#else
  GTEST_SKIP() << "neither MXCSR nor FPCR on this target: flush-to-zero not tested";
#endif
}

// The environment is restored: after the test above, subnormal arithmetic works again.
TEST(FpuEnvironment, EnvironmentRestoredAfterwards) {
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
#ifdef SOFTFLOAT_TEST_HAS_MXCSR
  EXPECT_EQ(_mm_getcsr() & verify::kFlushToZeroAndDenormalsAreZero, 0u);
#endif
  volatile float tiny = std::bit_cast<float>(std::uint32_t{1});
  volatile float one = 1.0f;
  EXPECT_EQ(std::bit_cast<std::uint32_t>(float(tiny * one)), 1u) << "subnormal arithmetic is not flushed";
}

}  // namespace
}  // namespace softfloat
