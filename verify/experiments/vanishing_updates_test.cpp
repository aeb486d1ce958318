// Vanishing updates: the smallest increments of 1 checked against MPFR, the update
// step of the training loop checked against MPFR, and the training experiment's key
// numbers: plain bf16 weights stall while fp32 master weights, Kahan-compensated
// updates and stochastic rounding reach a loss at least 100 times lower, and fp32
// weights do not stall.
#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <string>

#include "experiments/exact_steps.hpp"
#include "softfloat/experiments/vanishing_updates.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/verify/mpfr_reference.hpp"

namespace softfloat::experiments {
namespace {

using verify::Mpfr;

// The code MPFR gives for 1 + value(u) in `format`, one rounding in `mode`.
std::uint64_t mpfr_one_plus(std::uint64_t u, const Format& format, Rounding mode) {
  Mpfr one(64), increment(64);
  mpfr_set_ui(one.get(), 1, MPFR_RNDN);
  verify::exact_value_of(increment.get(), u, format);
  return verify::reference_compute(
      [&](mpfr_ptr out, mpfr_rnd_t rnd) { return mpfr_add(out, one.get(), increment.get(), rnd); }, format, mode,
      Overflow::standard);
}

TEST(SmallestIncrement, IsTheFirstCodeThatMovesOneByMpfr) {
  const char* specs[] = {"fp64", "fp32", "tf32", "bf16", "fp16", "e5m2", "e4m3", "e3m2", "e2m3", "e2m1",
                         "e8m0", "e4m3fnuz", "e5m2fnuz", "p3109_8p1", "p3109_8p4", "p3109_8p7", "e6m9:bias=31"};
  const Rounding modes[] = {Rounding::nearest_even, Rounding::nearest_away, Rounding::toward_zero, Rounding::up,
                            Rounding::down, Rounding::odd};
  for (const char* spec : specs)
    for (const Rounding mode : modes) {
      SCOPED_TRACE(std::string(spec) + " mode " + std::to_string(int(mode)));
      const Format f = parse_format(spec);
      const SmallestIncrement r = smallest_increment(f, mode);
      Mpfr one(64);
      mpfr_set_ui(one.get(), 1, MPFR_RNDN);
      ASSERT_EQ(r.one, verify::reference_round(one.get(), f, mode, Overflow::standard));
      EXPECT_NE(mpfr_one_plus(r.increment, f, mode), r.one);
      EXPECT_EQ(mpfr_one_plus(r.increment, f, mode), r.one_plus_increment);
      // Every positive code below u leaves 1 alone; 1 + u grows with u, so the one
      // just below is enough.
      const std::uint64_t smallest_positive = f.has_zero ? 1 : 0;
      if (r.increment > smallest_positive) {
        EXPECT_EQ(mpfr_one_plus(r.increment - 1, f, mode), r.one);
      }
      // 0.001, parsed exactly, then 1 + it: each one rounding, as MPFR does them.
      Mpfr thousandth(256);
      mpfr_set_str(thousandth.get(), "0.001", 10, MPFR_RNDN);  // 256 bits: far beyond any format here
      EXPECT_EQ(r.thousandth, verify::reference_round(thousandth.get(), f, mode, Overflow::standard));
      EXPECT_EQ(r.one_plus_thousandth, mpfr_one_plus(r.thousandth, f, mode));
    }
}

TEST(SmallestIncrement, KeyNumbers) {
  // bf16: 1 + 2^-8 ties to the even 1, so u is the next bf16 value, 2^-8 + 2^-15;
  // 1 + 0.001 rounds back to exactly 1.
  const SmallestIncrement bf16 = smallest_increment(format_of<BF16>());
  EXPECT_EQ(detail::to_double(bf16.increment, bf16.format), 0x1p-8 + 0x1p-15);
  EXPECT_EQ(bf16.one_plus_thousandth, bf16.one);
  EXPECT_EQ(detail::to_double(bf16.one_plus_increment, bf16.format), 1 + 0x1p-7);
  // fp16 and fp32: 2^-11 + 2^-21 and 2^-24 + 2^-47; fp16 keeps 1 + 0.001 as 1 + 2^-10.
  const SmallestIncrement fp16 = smallest_increment(format_of<FP16>());
  EXPECT_EQ(detail::to_double(fp16.increment, fp16.format), 0x1p-11 + 0x1p-21);
  EXPECT_EQ(detail::to_double(fp16.one_plus_thousandth, fp16.format), 1 + 0x1p-10);
  EXPECT_EQ(detail::to_double(smallest_increment(format_of<FP32>()).increment, binary32_format), 0x1p-24 + 0x1p-47);
  // Rounding up, any positive increment moves 1: u is the smallest subnormal.
  EXPECT_EQ(smallest_increment(format_of<BF16>(), Rounding::up).increment, 1u);
}

TEST(SmallestIncrement, RejectsWhatHasNoAnswer) {
  EXPECT_THROW(smallest_increment(format_of<BF16>(), Rounding::stochastic), std::invalid_argument);
  EXPECT_THROW(smallest_increment(format_of<BF16>(), Rounding::stochastic_equal), std::invalid_argument);
  // e2m1 with bias 5 tops out at 1.5 * 2^-3: 1 is not one of its values.
  EXPECT_THROW(smallest_increment(parse_format("e2m1:finite:bias=5")), std::invalid_argument);
}

// The training loop stores w + update with one rounding; check that step against MPFR
// for bf16 weights and double updates of every size relative to the weight.
TEST(TrainingStep, WeightPlusUpdateIsOneRoundingByMpfr) {
  const Format bf16 = format_of<BF16>();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-40, 10), fraction(-2, 2);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t w = rng() & 0x7f7f;  // finite bf16 codes, both signs
    const double update = std::ldexp(fraction(rng), int(exponent(rng)));
    Mpfr weight(64), step(64);
    verify::exact_value_of(weight.get(), w, bf16);
    mpfr_set_d(step.get(), update, MPFR_RNDN);
    const std::uint64_t expected = verify::reference_compute(
        [&](mpfr_ptr out, mpfr_rnd_t rnd) { return mpfr_add(out, weight.get(), step.get(), rnd); }, bf16);
    ASSERT_EQ(detail::rounded_sum(decode(w, bf16), decode(update), bf16), expected) << "w 0x" << std::hex << w
                                                                                    << " update " << update;
    // Stochastic rounding lands on one of the two neighbours MPFR rounds down and up to.
    const std::uint64_t random = detail::rounded_sum(decode(w, bf16), decode(update), bf16, Rounding::stochastic,
                                                     random_bits(1, std::uint64_t(i)));
    const std::uint64_t down = verify::reference_compute(
        [&](mpfr_ptr out, mpfr_rnd_t rnd) { return mpfr_add(out, weight.get(), step.get(), rnd); }, bf16, MPFR_RNDZ);
    const std::uint64_t up = verify::reference_compute(
        [&](mpfr_ptr out, mpfr_rnd_t rnd) { return mpfr_add(out, weight.get(), step.get(), rnd); }, bf16, MPFR_RNDA);
    ASSERT_TRUE(random == down || random == up);
  }
}

double loss_at(const TrainingRun& run, int step) {
  for (const auto& point : run.curve)
    if (point.step == step) return point.loss;
  ADD_FAILURE() << "no loss recorded at step " << step;
  return 0;
}

TEST(Training, Bf16StallsWhileTheThreeFixesLearnOnAndFp32DoesNotStall) {
  const TrainingConfig config;  // the defaults the command and docs/experiments.md use
  const TrainingRun plain = train(config, WeightUpdate::plain);
  const TrainingRun fp32 = train(config, WeightUpdate::fp32);
  const int half = config.steps / 2;
  ASSERT_EQ(plain.curve.back().step, config.steps);
  // Plain bf16 stalls: the second half of the run gains less than a factor 2, and
  // almost every late update is below half an ulp of its weight.
  EXPECT_GT(plain.final_loss(), 0.5 * loss_at(plain, half));
  EXPECT_GT(plain.updates_below_half_ulp, 0.9);
  for (const WeightUpdate fix : {WeightUpdate::master_weights, WeightUpdate::kahan, WeightUpdate::stochastic_rounding}) {
    SCOPED_TRACE(std::string(weight_update_name(fix)));
    const TrainingRun run = train(config, fix);
    EXPECT_LE(100 * run.final_loss(), plain.final_loss());
    // The fixes keep the updates that plain storage drops: they are just as small.
    EXPECT_GT(run.updates_below_half_ulp, 0.9);
  }
  // fp32 keeps learning through the second half, far below every bf16 run.
  EXPECT_LT(fp32.final_loss(), 1e-3 * loss_at(fp32, half));
  EXPECT_LT(fp32.final_loss(), 1e-6 * plain.final_loss());
}

TEST(Training, SameSeedSameCurveOtherSeedOtherCurve) {
  TrainingConfig config;
  config.steps = 200;
  const TrainingRun a = train(config, WeightUpdate::stochastic_rounding);
  const TrainingRun b = train(config, WeightUpdate::stochastic_rounding);
  ASSERT_EQ(a.curve.size(), b.curve.size());
  for (std::size_t i = 0; i < a.curve.size(); ++i) EXPECT_EQ(a.curve[i].loss, b.curve[i].loss);
  config.seed = 2;
  EXPECT_NE(train(config, WeightUpdate::stochastic_rounding).final_loss(), a.final_loss());
}

TEST(Training, RejectsBadConfigurations) {
  TrainingConfig config;
  config.steps = 0;
  EXPECT_THROW(train(config, WeightUpdate::plain), std::invalid_argument);
  config = {};
  config.learning_rate = -1;
  EXPECT_THROW(train(config, WeightUpdate::plain), std::invalid_argument);
  config = {};
  config.batch_size = 0;
  EXPECT_THROW(train(config, WeightUpdate::plain), std::invalid_argument);
}

}  // namespace
}  // namespace softfloat::experiments
