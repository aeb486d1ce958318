// Arithmetic, parsing and printing never depend on the caller's floating-point
// environment: a sample of operations (subnormal operands and results, ties,
// overflow, NaN, fp16/bf16/E4M3/binary64) gives the same bits under the default
// environment, under each directed rounding mode (fesetround) and with the SSE
// flush-to-zero and denormals-are-zero bits set. The operands are read through
// volatile, so nothing is folded at compile time.
#include <gtest/gtest.h>

#include <cfenv>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define SOFTFLOAT_TEST_HAS_MXCSR 1
#endif

#include "softfloat/softfloat.hpp"

namespace softfloat {
namespace {

template <class T>
T read(const T& value) {
  const volatile T copy = value;
  return copy;
}

// Operand codes, per format: zero, the smallest and largest subnormals, values that
// make ties and near-ties, max, infinity or NaN.
const std::uint16_t fp16_codes[] = {0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x3C00, 0x3C01, 0x3555, 0x1400,
                                    0x7BFF, 0x4B00, 0xBC00, 0x7C00, 0x7E00, 0x0003, 0x3800};
const std::uint16_t bf16_codes[] = {0x0000, 0x0001, 0x007F, 0x0080, 0x3F80, 0x3F81, 0x3B80, 0x3EAB,
                                    0x7F7F, 0xBF80, 0x7F80, 0x7FC0, 0x8001, 0x3F00};
const std::uint8_t e4m3_codes[] = {0x00, 0x01, 0x07, 0x08, 0x38, 0x39, 0x7E, 0xFE, 0x7F, 0x81, 0x30, 0x3F};
const std::uint64_t fp64_codes[] = {0x0000000000000001, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x3FF0000000000000,
                                    0x3FF0000000000001, 0x3CA0000000000000, 0x3FD5555555555555, 0x7FEFFFFFFFFFFFFF,
                                    0xBFF8000000000000, 0x3FE0000000000000};
const char* const texts[] = {"0.1", "1.00390625000000000001", "65520", "65519.999", "5.9604644775390625e-8",
                             "2.98e-8", "1e-400", "0x1.8p3", "-1.5e-40", "3.4e38", "448", "464", "2.2250738585072014e-308"};

// Everything the sample computes, as text (bits and printed strings).
template <class F>
void run_format(std::vector<std::string>& out, const auto& codes) {
  using S = typename F::storage_type;
  for (auto a_code : codes) {
    const F a = F::from_bits(read(S(a_code)));
    out.push_back(std::to_string(sqrt(a).bits()) + " " + to_string(a));
    for (auto b_code : codes) {
      const F b = F::from_bits(read(S(b_code)));
      out.push_back(std::to_string((a + b).bits()) + " " + std::to_string((a - b).bits()) + " " +
                    std::to_string((a * b).bits()) + " " + std::to_string((a / b).bits()) + " " +
                    std::to_string(fma(a, b, a).bits()) + " " + std::to_string(add(a, b, Rounding::up).bits()) + " " +
                    std::to_string(divide(a, b, Rounding::toward_zero).bits()) + " " + to_string(a * b));
    }
  }
  for (const char* text : texts) out.push_back(std::to_string(parse<F>(std::string(text)).bits()));
}

std::vector<std::string> run_sample() {
  std::vector<std::string> out;
  run_format<FP16>(out, fp16_codes);
  run_format<BF16>(out, bf16_codes);
  run_format<E4M3>(out, e4m3_codes);
  run_format<FP64>(out, fp64_codes);
  return out;
}

void expect_same(const std::vector<std::string>& expected, const std::vector<std::string>& got, const char* environment) {
  ASSERT_EQ(expected.size(), got.size());
  int shown = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != got[i] && shown++ < 10)
      ADD_FAILURE() << environment << ": case " << i << " gives '" << got[i] << "', default environment '" << expected[i] << "'";
}

TEST(ArithmeticFpuEnvironment, DirectedRoundingModesChangeNothing) {
  const std::vector<std::string> expected = run_sample();
  const int saved = std::fegetround();
  for (auto [mode, name] : {std::pair{FE_UPWARD, "FE_UPWARD"}, std::pair{FE_DOWNWARD, "FE_DOWNWARD"},
                            std::pair{FE_TOWARDZERO, "FE_TOWARDZERO"}}) {
    ASSERT_EQ(std::fesetround(mode), 0);
    const std::vector<std::string> got = run_sample();
    std::fesetround(saved);
    expect_same(expected, got, name);
  }
}

#ifdef SOFTFLOAT_TEST_HAS_MXCSR
TEST(ArithmeticFpuEnvironment, FlushToZeroAndDenormalsAreZeroChangeNothing) {
  const std::vector<std::string> expected = run_sample();
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);  // FTZ (bit 15) | DAZ (bit 6)
  const std::vector<std::string> got = run_sample();
  _mm_setcsr(saved);
  expect_same(expected, got, "MXCSR FTZ|DAZ");
}
#endif

}  // namespace
}  // namespace softfloat
