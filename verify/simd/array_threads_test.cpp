// softfloat::set_num_threads and the split of large arrays across threads: the output
// bits must not depend on the thread count. Expected codes are the one-thread output,
// itself checked against round_to_format() element by element in array_conversion_test.
// The Environment tests read SOFTFLOAT_NUM_THREADS, which ctest sets for the extra runs
// declared in CMakeLists.txt; without it they are skipped.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"

namespace softfloat {
namespace {

constexpr std::size_t kCount = 1000003;  // odd, so the blocks end in a vector tail

// Every kind of input: a normal spread, random bit patterns (NaNs, infinities,
// subnormals), and exact zeros.
std::vector<float> mixed_inputs() {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 8.0f);
  std::vector<float> in(kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    if (i % 3 == 0) in[i] = std::bit_cast<float>(std::uint32_t(rng()));
    else if (i % 97 == 0) in[i] = -0.0f;
    else in[i] = normal(rng);
  }
  return in;
}

struct Outputs {
  std::vector<std::uint8_t> e4m3, e2m1_packed, e3m2_packed;
  std::vector<std::uint16_t> bf16, fp16;
  std::vector<float> round_trip_e5m2, from_e4m3, from_e3m2_packed;
  std::vector<std::uint32_t> tf32_from_double;
};

Outputs convert_all(const std::vector<float>& in) {
  Outputs o;
  o.e4m3.resize(kCount);
  simd::quantize<E4M3>(in.data(), kCount, o.e4m3.data());
  o.bf16.resize(kCount);
  simd::quantize<BF16>(in.data(), kCount, o.bf16.data());
  o.fp16.resize(kCount);
  simd::quantize(in.data(), kCount, o.fp16.data(), FP16::format, Rounding::nearest_away, Overflow::saturate);
  o.round_trip_e5m2.resize(kCount);
  simd::round_trip<E5M2>(in.data(), kCount, o.round_trip_e5m2.data());
  o.from_e4m3.resize(kCount);
  simd::dequantize<E4M3>(o.e4m3.data(), kCount, o.from_e4m3.data());
  o.e2m1_packed.resize(simd::packed_size<E2M1>(kCount));
  simd::quantize_packed<E2M1>(in.data(), kCount, o.e2m1_packed.data(), o.e2m1_packed.size());
  o.e3m2_packed.resize(simd::packed_size<E3M2>(kCount));
  simd::quantize_packed<E3M2>(in.data(), kCount, o.e3m2_packed.data(), o.e3m2_packed.size());
  o.from_e3m2_packed.resize(kCount);
  simd::dequantize_packed<E3M2>(o.e3m2_packed.data(), o.e3m2_packed.size(), kCount, o.from_e3m2_packed.data());
  const std::vector<double> wide(in.begin(), in.end());
  o.tf32_from_double.resize(kCount);
  simd::quantize(wide.data(), kCount, o.tf32_from_double.data(), TF32::format);
  return o;
}

std::vector<std::uint32_t> bits(const std::vector<float>& v) {
  std::vector<std::uint32_t> b(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) b[i] = std::bit_cast<std::uint32_t>(v[i]);
  return b;
}

void expect_same(const Outputs& a, const Outputs& b, int threads) {
  EXPECT_EQ(a.e4m3, b.e4m3) << threads << " threads";
  EXPECT_EQ(a.bf16, b.bf16) << threads << " threads";
  EXPECT_EQ(a.fp16, b.fp16) << threads << " threads";
  EXPECT_EQ(bits(a.round_trip_e5m2), bits(b.round_trip_e5m2)) << threads << " threads";
  EXPECT_EQ(bits(a.from_e4m3), bits(b.from_e4m3)) << threads << " threads";
  EXPECT_EQ(a.e2m1_packed, b.e2m1_packed) << threads << " threads";
  EXPECT_EQ(a.e3m2_packed, b.e3m2_packed) << threads << " threads";
  EXPECT_EQ(bits(a.from_e3m2_packed), bits(b.from_e3m2_packed)) << threads << " threads";
  EXPECT_EQ(a.tf32_from_double, b.tf32_from_double) << threads << " threads";
}

TEST(Threads, OutputDoesNotDependOnThreadCount) {
  const std::vector<float> in = mixed_inputs();
  set_num_threads(1);
  const Outputs one = convert_all(in);
  // Spot check of the reference itself against the scalar routine.
  for (std::size_t i = 0; i < kCount; i += 4099)
    ASSERT_EQ(one.e4m3[i], std::uint8_t(round_to_format(decode(in[i]), E4M3::format))) << i;
  for (int threads : {2, 3}) {
    set_num_threads(threads);
    EXPECT_EQ(num_threads(), threads);
    expect_same(one, convert_all(in), threads);
  }
  set_num_threads(1);
}

TEST(Threads, BadCountThrows) {
  EXPECT_THROW(set_num_threads(0), std::invalid_argument);
  EXPECT_THROW(set_num_threads(-3), std::invalid_argument);
  try {
    set_num_threads(0);
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("at least 1"), std::string::npos) << error.what();
  }
}

// Run by ctest with SOFTFLOAT_NUM_THREADS=3: the count is read from the environment and
// the output matches the one-thread output.
TEST(ThreadsEnvironment, ValidCountIsUsed) {
  const char* text = std::getenv("SOFTFLOAT_NUM_THREADS");
  if (text == nullptr || std::string(text) != "3") GTEST_SKIP() << "needs SOFTFLOAT_NUM_THREADS=3";
  EXPECT_EQ(num_threads(), 3);
  const std::vector<float> in = mixed_inputs();
  const Outputs from_environment = convert_all(in);
  set_num_threads(1);
  expect_same(convert_all(in), from_environment, 3);
}

// Run by ctest with SOFTFLOAT_NUM_THREADS=two: a clear error at the first use.
TEST(ThreadsEnvironment, InvalidCountThrows) {
  const char* text = std::getenv("SOFTFLOAT_NUM_THREADS");
  if (text == nullptr || std::string(text) != "two") GTEST_SKIP() << "needs SOFTFLOAT_NUM_THREADS=two";
  try {
    (void)num_threads();
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("softfloat::num_threads: SOFTFLOAT_NUM_THREADS=\"two\""),
              std::string::npos)
        << error.what();
  }
  std::vector<float> in(1 << 18, 1.0f);
  std::vector<std::uint8_t> out(in.size());
  EXPECT_THROW(simd::quantize<E4M3>(in.data(), in.size(), out.data()), std::invalid_argument);
  set_num_threads(2);  // an explicit count wins over the bad environment
  EXPECT_EQ(num_threads(), 2);
}

}  // namespace
}  // namespace softfloat
