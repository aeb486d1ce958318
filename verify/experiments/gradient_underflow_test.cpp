// Gradient underflow: 1e-8 in each format checked against MPFR; the classification of
// every gradient (flushed, overflowed, survived) checked against MPFR's rounding and
// against fp16's thresholds worked by hand; the key numbers: fp16 without scaling
// loses the small gradients that bf16 keeps, and static and dynamic loss scaling
// bring them back.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "experiments/exact_steps.hpp"
#include "softfloat/experiments/gradient_underflow.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/verify/mpfr_reference.hpp"

namespace softfloat::experiments {
namespace {

using verify::Mpfr;

TEST(StoreDecimal, OneEMinus8IsZeroInFp16AndAbout1p00117eMinus8InBf16ByMpfr) {
  Mpfr value(256);
  mpfr_set_str(value.get(), "1e-8", 10, MPFR_RNDN);
  for (const char* spec : {"fp16", "bf16", "e5m2", "e4m3", "fp32", "tf32"}) {
    const Format f = parse_format(spec);
    EXPECT_EQ(store_decimal("1e-8", f), verify::reference_round(value.get(), f)) << spec;
  }
  // fp16: below half its smallest subnormal 2^-24 ~ 5.96e-8, so +0.
  EXPECT_EQ(store_decimal("1e-8", format_of<FP16>()), 0u);
  // bf16: fp32's exponent range keeps it, to bf16's 8 significant bits.
  const double bf16 = detail::to_double(store_decimal("1e-8", format_of<BF16>()), format_of<BF16>());
  EXPECT_NEAR(bf16, 1.00117e-8, 1e-13);
}

GradientSpread small_spread() {
  GradientSpread spread;
  spread.count = 20000;
  return spread;
}

TEST(RangeLoss, ClassifiesEveryGradientAsMpfrRoundsIt) {
  const std::vector<float> gradients = lognormal_gradients(small_spread(), 0, 3000);
  for (const char* spec : {"fp16", "bf16", "e5m2", "e4m3", "e4m3fnuz"})
    for (const int log2_scale : {0, 12, 24}) {
      SCOPED_TRACE(std::string(spec) + " scale 2^" + std::to_string(log2_scale));
      const Format f = parse_format(spec);
      std::size_t flushed = 0, overflowed = 0;
      for (const float g : gradients) {
        Mpfr scaled(64);
        mpfr_set_flt(scaled.get(), g, MPFR_RNDN);
        mpfr_mul_2si(scaled.get(), scaled.get(), log2_scale, MPFR_RNDN);  // exact
        const std::uint64_t code = verify::reference_round(scaled.get(), f);
        if (f.is_zero(code)) ++flushed;
        else if (f.is_nan(code) || f.is_infinite(code)) ++overflowed;
      }
      const RangeLoss loss = range_loss(gradients, f, log2_scale);
      const double n = double(gradients.size());
      EXPECT_DOUBLE_EQ(loss.flushed_to_zero, double(flushed) / n);
      EXPECT_DOUBLE_EQ(loss.overflowed, double(overflowed) / n);
      EXPECT_DOUBLE_EQ(loss.survived, double(gradients.size() - flushed - overflowed) / n);
    }
}

TEST(RangeLoss, Fp16ThresholdsWorkedByHand) {
  // fp16 rounds |x| <= 2^-25 (half the smallest subnormal; the tie goes to the even
  // 0) to zero, and |x| >= 65520 (max 65504 plus half its ulp of 32) to infinity.
  const std::vector<float> gradients = lognormal_gradients(small_spread());
  for (const int k : {0, 10, 30, 36}) {
    std::size_t below = 0, above = 0;
    for (const float g : gradients) {
      const double scaled = std::ldexp(std::abs(double(g)), k);
      below += scaled <= 0x1p-25;
      above += scaled >= 65520.0;
    }
    const RangeLoss loss = range_loss(gradients, format_of<FP16>(), k);
    EXPECT_DOUBLE_EQ(loss.flushed_to_zero, double(below) / double(gradients.size())) << "2^" << k;
    EXPECT_DOUBLE_EQ(loss.overflowed, double(above) / double(gradients.size())) << "2^" << k;
  }
}

TEST(LossScaling, Fp16LosesWhatBf16KeepsAndScalingRecoversIt) {
  const GradientSpread spread = small_spread();
  const std::vector<float> gradients = lognormal_gradients(spread);
  const RangeLoss fp16 = range_loss(gradients, format_of<FP16>());
  const RangeLoss bf16 = range_loss(gradients, format_of<BF16>());
  // Median 1e-7, 1.5 decades: a third of the gradients lie below fp16's 2^-25 ~ 3e-8.
  EXPECT_GT(fp16.flushed_to_zero, 0.3);
  EXPECT_EQ(bf16.flushed_to_zero, 0.0);
  EXPECT_EQ(bf16.overflowed, 0.0);
  // Static scaling: the best power of two keeps (nearly) everything.
  double best = 0;
  for (const auto& point : static_loss_scaling(gradients, format_of<FP16>(), 0, 40))
    best = std::max(best, point.loss.survived);
  EXPECT_GT(best, 0.999);
  // Dynamic scaling, from 2^16: what it applies keeps (nearly) everything too.
  DynamicScalingConfig config;
  config.steps = 400;
  config.batch = 512;
  const DynamicScalingRun dynamic = dynamic_loss_scaling(spread, format_of<FP16>(), config);
  EXPECT_GT(dynamic.mean_survived(), 0.999);
  EXPECT_LT(dynamic.skipped_fraction(), 0.05);
}

TEST(LossScaling, DynamicScalerHalvesOnOverflowAndDoublesAfterCleanSteps) {
  DynamicScalingConfig config;
  config.steps = 300;
  config.batch = 256;
  config.growth_interval = 20;
  const DynamicScalingRun run = dynamic_loss_scaling(small_spread(), format_of<E4M3>(), config);
  ASSERT_EQ(run.steps.size(), 300u);
  EXPECT_EQ(run.steps.front().log2_scale, config.initial_log2_scale);
  int clean = 0, halvings = 0, doublings = 0;
  for (std::size_t i = 0; i + 1 < run.steps.size(); ++i) {
    const auto& step = run.steps[i];
    const int next = run.steps[i + 1].log2_scale;
    if (step.loss.overflowed > 0) {
      EXPECT_EQ(next, step.log2_scale - 1) << "step " << i;
      clean = 0;
      ++halvings;
    } else if (++clean == config.growth_interval) {
      EXPECT_EQ(next, step.log2_scale + 1) << "step " << i;
      clean = 0;
      ++doublings;
    } else {
      EXPECT_EQ(next, step.log2_scale) << "step " << i;
    }
  }
  // E4M3 (max 448) cannot hold these gradients at 2^16: the scaler backs off, then probes.
  EXPECT_GT(halvings, 0);
  EXPECT_GT(doublings, 0);
}

TEST(LognormalGradients, SeededAndSplittable) {
  const GradientSpread spread = small_spread();
  const std::vector<float> all = lognormal_gradients(spread);
  const std::vector<float> tail = lognormal_gradients(spread, 100, 50);
  for (std::size_t i = 0; i < tail.size(); ++i) EXPECT_EQ(tail[i], all[100 + i]);
  GradientSpread other = spread;
  other.seed = 2;
  EXPECT_NE(lognormal_gradients(other, 0, 10), lognormal_gradients(spread, 0, 10));
  // The median magnitude is near 10^-7.
  std::vector<float> magnitudes;
  for (const float g : all) magnitudes.push_back(std::abs(g));
  std::nth_element(magnitudes.begin(), magnitudes.begin() + magnitudes.size() / 2, magnitudes.end());
  EXPECT_NEAR(std::log10(magnitudes[magnitudes.size() / 2]), -7.0, 0.05);
}

}  // namespace
}  // namespace softfloat::experiments
