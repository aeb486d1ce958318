// The decode-step experiment on a small stack (d = 128, 3 layers): the bytes per weight
// of each format from its layout (4.25 bits for MXFP4: 4 per element and 8 per 32-row
// scale), the bound as those bytes over the measured bandwidth, and the errors in the
// order the formats' significand bits set: fp32 near its unit roundoff times sqrt(k),
// then fp16 (11 bits), bf16 (8), e4m3 (4), e5m2 (3), the 4-bit formats last.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "softfloat/experiments/decode_step.hpp"

namespace softfloat::experiments {
namespace {

const std::map<std::string, DecodeStepFormat>& small_run() {
  static const std::map<std::string, DecodeStepFormat> rows = [] {
    DecodeStepOptions options;
    options.dim = 128;
    options.layers = 3;
    options.repeats = 1;
    const DecodeStepResult result = run_decode_step(options);
    EXPECT_GT(result.bandwidth, 1e8);  // bytes per second: any machine reads 100 MB/s
    std::map<std::string, DecodeStepFormat> by_spec;
    for (const auto& f : result.formats) {
      by_spec[f.spec] = f;
      EXPECT_NEAR(f.bound_ms, f.bytes_per_weight * 3 * 128 * 128 / result.bandwidth * 1e3, 1e-12) << f.spec;
      EXPECT_DOUBLE_EQ(f.fraction_of_bound, f.bound_ms / f.ms_per_token) << f.spec;
    }
    return by_spec;
  }();
  return rows;
}

TEST(DecodeStep, BytesPerWeightFollowTheLayouts) {
  const auto& rows = small_run();
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows.at("fp32").bytes_per_weight, 4.0);
  EXPECT_EQ(rows.at("bf16").bytes_per_weight, 2.0);
  EXPECT_EQ(rows.at("e4m3").bytes_per_weight, 1.0);
  EXPECT_EQ(rows.at("mxfp8_e4m3").bytes_per_weight, 1.0 + 1.0 / 32);
  EXPECT_EQ(rows.at("mxfp6_e2m3").bytes_per_weight, 0.75 + 1.0 / 32);
  EXPECT_EQ(rows.at("mxfp4").bytes_per_weight, 0.5 + 1.0 / 32);
  EXPECT_EQ(rows.at("nvfp4").bytes_per_weight, 0.5 + 1.0 / 16);
  EXPECT_EQ(rows.at("e2m1").bytes_per_weight, 0.5);
  EXPECT_EQ(rows.at("fp32").speedup_over_fp32, 1.0);
}

TEST(DecodeStep, ErrorsFollowTheSignificandBits) {
  const auto& rows = small_run();
  // fp32: 3 chains of 128 fp32 steps, relative error a few units of 2^-24 = 6e-8.
  EXPECT_LT(rows.at("fp32").relative_error, 1e-6);
  EXPECT_GT(rows.at("fp32").relative_error, 0.0);
  const double fp16 = rows.at("fp16").relative_error, bf16 = rows.at("bf16").relative_error;
  const double e4m3 = rows.at("e4m3").relative_error, e5m2 = rows.at("e5m2").relative_error;
  // Rounding a weight costs about 2^-p / sqrt(3) relatively, p the significand bits.
  EXPECT_GT(fp16, 2e-5);
  EXPECT_LT(fp16, 2e-3);
  EXPECT_LT(rows.at("fp32").relative_error, fp16);
  EXPECT_LT(fp16, bf16);
  EXPECT_LT(bf16, e4m3);
  EXPECT_LT(e4m3, e5m2);
  for (const char* four_bit : {"e2m1", "mxfp4", "nvfp4"}) EXPECT_GT(rows.at(four_bit).relative_error, e4m3) << four_bit;
  EXPECT_LT(rows.at("e2m1").relative_error, 1.0);
}

TEST(DecodeStep, BadOptionsAreRefused) {
  DecodeStepOptions options;
  options.dim = 8;
  options.layers = 1;
  options.formats = {"fp32", "mxfp5"};
  EXPECT_THROW(run_decode_step(options), std::invalid_argument);
  options.formats = {"fp32"};
  options.repeats = 0;
  EXPECT_THROW(run_decode_step(options), std::invalid_argument);
  options.repeats = 1;
  options.dim = 0;
  EXPECT_THROW(run_decode_step(options), std::invalid_argument);
}

}  // namespace
}  // namespace softfloat::experiments
