// Accumulation: the running sums replayed step by step with MPFR (each step one
// rounding of the exact sum), the fused step checked against mpfr_fma, and the key
// numbers: 16-bit sums of 1e-4 stall (bf16 at 2^-5, fp16 at 2^-2) while fp32 and
// Kahan-compensated fp16 stay accurate.
#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <string>

#include "experiments/exact_steps.hpp"
#include "softfloat/experiments/accumulation.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/verify/mpfr_reference.hpp"

namespace softfloat::experiments {
namespace {

using verify::Mpfr;

constexpr float term = 1e-4f;
constexpr std::size_t terms = 100000;

struct MpfrSum {
  double value;
  std::size_t stalled_at;  // as AccumulationSeries::stalled_at
};

// s = round(s + term), n times, with MPFR rounding each exact sum to the format.
MpfrSum mpfr_plain_sum(const Format& f) {
  Mpfr x(64), sum(64);
  mpfr_set_flt(x.get(), term, MPFR_RNDN);
  std::uint64_t code = 0;
  std::size_t last_change = 0;
  for (std::size_t n = 1; n <= terms; ++n) {
    verify::exact_value_of(sum.get(), code, f);
    const std::uint64_t next = verify::reference_compute(
        [&](mpfr_ptr out, mpfr_rnd_t rnd) { return mpfr_add(out, sum.get(), x.get(), rnd); }, f);
    if (next != code) last_change = n;
    code = next;
  }
  return {verify::reference_value(code, f), last_change == terms ? 0 : last_change};
}

TEST(SumConstant, PlainSumsReplayedWithMpfr) {
  const std::vector<std::size_t> checkpoints = log_spaced_counts(terms);
  for (const char* spec : {"bf16", "fp16", "fp32"}) {
    SCOPED_TRACE(spec);
    const Format f = parse_format(spec);
    const AccumulationSeries series = sum_constant({f, Summation::plain}, term, terms, checkpoints);
    const MpfrSum expected = mpfr_plain_sum(f);
    EXPECT_EQ(series.final_sum, expected.value);
    EXPECT_EQ(series.stalled_at, expected.stalled_at);
  }
}

TEST(SumConstant, SixteenBitSumsStallAndCompensationHelps) {
  const std::vector<std::size_t> checkpoints = log_spaced_counts(terms);
  auto run = [&](const Format& f, Summation summation) { return sum_constant({f, summation}, term, terms, checkpoints); };
  // 1e-4 drops below half an ulp of the sum at 2^-5 in bf16 (ulp 2^-12) and at 2^-2
  // in fp16 (ulp 2^-12 as well): there the sums stop, ~10 short of the exact 10.
  const AccumulationSeries bf16 = run(format_of<BF16>(), Summation::plain);
  const AccumulationSeries fp16 = run(format_of<FP16>(), Summation::plain);
  EXPECT_EQ(bf16.final_sum, 0x1p-5);
  EXPECT_EQ(fp16.final_sum, 0x1p-2);
  EXPECT_GT(bf16.errors.back().relative_error, 0.99);
  EXPECT_GT(fp16.errors.back().relative_error, 0.97);
  EXPECT_EQ(bf16.exact_sum, double(terms) * double(term));
  // fp32 drifts (its sum's ulp grows to 2^-20 against terms of 2^-13.3) but stays close.
  EXPECT_LT(run(format_of<FP32>(), Summation::plain).errors.back().relative_error, 1e-3);
  // Kahan's compensation carries what each rounding drops: fp16 + Kahan is accurate
  // to ~fp32's level and never stalls.
  const AccumulationSeries fp16_kahan = run(format_of<FP16>(), Summation::kahan);
  EXPECT_LT(fp16_kahan.errors.back().relative_error, 1e-6);
  EXPECT_EQ(fp16_kahan.stalled_at, 0u);
  // bf16 + Kahan stalls too, later: at 8 (ulp 2^-4) the compensated term
  // y = fl(1e-4 - c) itself stops growing at 2^-5, half an ulp of 8, and 8 + 2^-5 is a
  // tie that goes to the even 8: sum and compensation repeat from then on.
  const AccumulationSeries bf16_kahan = run(format_of<BF16>(), Summation::kahan);
  EXPECT_EQ(bf16_kahan.final_sum, 8.0);
  EXPECT_GT(bf16_kahan.stalled_at, 0u);
  EXPECT_LT(bf16_kahan.errors.back().relative_error, 0.25);
}

TEST(DotProducts, FusedStepIsOneRoundingByMpfr) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (const char* spec : {"bf16", "fp16", "fp32"}) {
    const Format f = parse_format(spec);
    for (int i = 0; i < 5000; ++i) {
      const float a = unit(rng), b = unit(rng);
      const std::uint64_t c = std::uint64_t(rng()) & (f.total_bits() == 32 ? 0x4fffffffu : 0x4fffu);
      Mpfr x(64), y(64), z(64);
      mpfr_set_flt(x.get(), a, MPFR_RNDN);
      mpfr_set_flt(y.get(), b, MPFR_RNDN);
      verify::exact_value_of(z.get(), c, f);
      const std::uint64_t expected = verify::reference_compute(
          [&](mpfr_ptr out, mpfr_rnd_t rnd) { return mpfr_fma(out, x.get(), y.get(), z.get(), rnd); }, f);
      ASSERT_EQ(detail::rounded_fma(decode(a), decode(b), decode(c, f), f), expected) << spec << " " << i;
    }
  }
}

TEST(DotProducts, SixteenBitAccumulatorsLoseTheSumFp32AndKahanKeepIt) {
  const std::size_t n = 20000;
  const std::vector<std::size_t> checkpoints = log_spaced_counts(n);
  auto error = [&](const Format& f, Summation summation) {
    return sum_dot_products({f, summation}, n, 2, 1, checkpoints).errors.back().relative_error;
  };
  // Sums near n/4 = 5000 have a bf16 ulp of 32 and an fp16 ulp of 4, against products
  // below 1: most of them round away.
  EXPECT_GT(error(format_of<BF16>(), Summation::plain), 0.5);
  EXPECT_GT(error(format_of<FP16>(), Summation::plain), 0.1);
  EXPECT_LT(error(format_of<FP32>(), Summation::plain), 1e-5);
  EXPECT_LT(error(format_of<FP16>(), Summation::kahan), 1e-3);
  EXPECT_LT(error(format_of<BF16>(), Summation::kahan), 1e-2);
}

TEST(LogSpacedCounts, IncreasingFromOneToTheLargest) {
  const std::vector<std::size_t> counts = log_spaced_counts(100000, 10);
  EXPECT_EQ(counts.front(), 1u);
  EXPECT_EQ(counts.back(), 100000u);
  for (std::size_t i = 1; i < counts.size(); ++i) EXPECT_LT(counts[i - 1], counts[i]);
  // round(10^(i/10)) for i = 0 .. 49 gives 50 counts, of which 1.26, 2.0 and 3.16 repeat
  // 1, 2 and 3; then 10^5 itself: 50 - 3 + 1.
  EXPECT_EQ(counts.size(), 48u);
  EXPECT_THROW(log_spaced_counts(0), std::invalid_argument);
}

TEST(Accumulation, RejectsBadArguments) {
  const std::vector<std::size_t> checkpoints = {1};
  EXPECT_THROW(sum_constant({format_of<BF16>()}, term, 0, checkpoints), std::invalid_argument);
  EXPECT_THROW(sum_dot_products({format_of<BF16>()}, 10, 0, 1, checkpoints), std::invalid_argument);
}

}  // namespace
}  // namespace softfloat::experiments
