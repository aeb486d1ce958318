// Precision trade-offs: one small case recomputed independently (inputs rounded by
// MPFR, the fp32 chain by std::fma, the bf16 accumulator step by step by MPFR, the
// exact product by MPFR), and the key numbers: the inputs' rounding costs 0.6 unit
// roundoffs, as the normal distribution predicts; fp32 accumulation adds little to
// it; a bf16 accumulator's error grows like sqrt(k); more mantissa bits give less
// error while the range holds the data; the bytes per element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "softfloat/experiments/tradeoffs.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/verify/mpfr_reference.hpp"

namespace softfloat::experiments {
namespace {

using verify::Mpfr;

// C of 16 x 16 (enough elements that the normwise errors vary by only about 10% from
// seed to seed), k up to 4096. Every format with the fp32 accumulator; the scalar bf16
// accumulator (~30 ns a step) only for the formats its test needs. ctest runs each
// test in a process of its own, so each computes what it uses.
TradeoffResult sweep(std::vector<Format> formats, std::vector<Format> accumulators) {
  TradeoffOptions options;
  options.rows = options.columns = 16;
  options.depths = {64, 256, 1024, 4096};
  options.throughput_size = 0;
  options.formats = std::move(formats);
  options.accumulators = std::move(accumulators);
  return run_tradeoffs(options);
}
const TradeoffResult& fp32_sweep() {
  static const TradeoffResult result = sweep(tradeoff_formats(), {FP32::format});
  return result;
}
const TradeoffResult& bf16_sweep() {
  static const TradeoffResult result =
      sweep({FP32::format, FP16::format, BF16::format, E2M1::format}, {FP32::format, BF16::format});
  return result;
}

const FormatTradeoff& of(const std::string& spec, const TradeoffResult& result = fp32_sweep()) {
  for (const auto& tradeoff : result.formats)
    if (format_name(tradeoff.format) == spec) return tradeoff;
  throw std::logic_error("no format " + spec);
}

constexpr std::size_t fp32_accumulator = 0, bf16_accumulator = 1;  // the accumulators' order

// Unit roundoff of nearest rounding: half the gap above 1, 2^-(M + 1).
double unit_roundoff(const Format& format) { return std::ldexp(1.0, -(format.mantissa_bits + 1)); }

TEST(Tradeoffs, FormatsAreTheSignedNamedFormatsUpTo16BitsAndFp32) {
  std::vector<std::string> names;
  for (const Format& format : tradeoff_formats()) names.push_back(format_name(format));
  // Widest first; e8m0 (unsigned, no zero), tf32 (stored in 32 bits) and fp64 are out.
  EXPECT_EQ(names, (std::vector<std::string>{"fp32", "bf16", "fp16", "e5m2", "e4m3", "e4m3fnuz", "e5m2fnuz",
                                             "p3109_8p1", "p3109_8p2", "p3109_8p3", "p3109_8p4", "p3109_8p5",
                                             "p3109_8p6", "p3109_8p7", "e3m2", "e2m3", "e2m1"}));
}

TEST(Tradeoffs, BytesPerElementPacked) {
  EXPECT_EQ(bytes_per_element(FP32::format), 4.0);
  EXPECT_EQ(bytes_per_element(BF16::format), 2.0);
  EXPECT_EQ(bytes_per_element(FP16::format), 2.0);
  EXPECT_EQ(bytes_per_element(E4M3::format), 1.0);
  EXPECT_EQ(bytes_per_element(parse_format("p3109_8p3")), 1.0);
  EXPECT_EQ(bytes_per_element(E3M2::format), 0.75);  // four codes in three bytes
  EXPECT_EQ(bytes_per_element(E2M3::format), 0.75);
  EXPECT_EQ(bytes_per_element(E2M1::format), 0.5);  // two codes a byte
}

TEST(Tradeoffs, ScaleFitsTheLargestMagnitudeUnderTheMax) {
  const Format p8p7 = parse_format("p3109_8p7");  // max 1.96875
  EXPECT_EQ(fitting_log2_scale(1.96875, p8p7), 0);
  EXPECT_EQ(fitting_log2_scale(1.97, p8p7), -1);
  EXPECT_EQ(fitting_log2_scale(5.0, p8p7), -2);  // 5 / 4 = 1.25 fits, 5 / 2 = 2.5 does not
  EXPECT_EQ(fitting_log2_scale(6.0, E2M1::format), 0);
  EXPECT_EQ(fitting_log2_scale(6.5, E2M1::format), -1);
  EXPECT_EQ(fitting_log2_scale(0.001, FP16::format), 0);  // never scaled up
  EXPECT_THROW(fitting_log2_scale(INFINITY, FP16::format), std::invalid_argument);
  // Unit normal data (largest about 4) fit all but the two narrowest P3109 formats.
  for (const auto& tradeoff : fp32_sweep().formats) {
    const std::string name = format_name(tradeoff.format);
    const bool narrow = name == "p3109_8p6" || name == "p3109_8p7";
    EXPECT_EQ(tradeoff.log2_scale_a < 0, narrow) << name;
    EXPECT_EQ(tradeoff.log2_scale_b < 0, narrow) << name;
  }
}

// The MPFR recomputation of one small case.
struct Recomputed {
  int log2_scale_a, log2_scale_b;
  std::vector<double> error_fp32, error_bf16;  // per depth
};

int scale_for(const std::vector<double>& values, const Format& format) {
  double largest = 0;
  for (const double x : values) largest = std::max(largest, std::abs(x));
  const double max = verify::reference_value(verify::largest_finite_code(format), format);
  int s = 0;
  while (std::ldexp(largest, s) > max) --s;
  return s;
}

double normwise_error(const std::vector<double>& c, const std::vector<double>& exact) {
  double difference = 0, size = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    difference += (c[i] - exact[i]) * (c[i] - exact[i]);
    size += exact[i] * exact[i];
  }
  return std::sqrt(difference / size);
}

Recomputed recompute(const TradeoffOptions& options, const TradeoffInputs& inputs, const Format& format) {
  const std::size_t m = options.rows, n = options.columns, depth = options.depths.back();
  Recomputed out{scale_for(inputs.a, format), scale_for(inputs.b, format), {}, {}};
  // The scaled inputs rounded by MPFR, as codes and as values.
  auto rounded = [&](const std::vector<double>& values, int scale, std::vector<std::uint64_t>& codes) {
    std::vector<double> scaled_values;
    for (const double x : values) {
      codes.push_back(verify::reference_round(std::ldexp(x, scale), format));
      scaled_values.push_back(verify::reference_value(codes.back(), format));
    }
    return scaled_values;
  };
  std::vector<std::uint64_t> codes_a, codes_b;
  const std::vector<double> a = rounded(inputs.a, out.log2_scale_a, codes_a);
  const std::vector<double> b = rounded(inputs.b, out.log2_scale_b, codes_b);
  const Format bf16 = BF16::format;
  const double unscale = std::ldexp(1.0, -(out.log2_scale_a + out.log2_scale_b));
  std::vector<std::vector<double>> fp32(options.depths.size(), std::vector<double>(m * n)), bf16_sums = fp32,
      exact = fp32;
  Mpfr x(64), y(64), sum_bf16(64), left(53), right(53), product(256), exact_sum(256);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float c = 0;
      std::uint64_t c_bf16 = 0;
      mpfr_set_zero(exact_sum.get(), 1);
      std::size_t d = 0;
      for (std::size_t p = 0; p < depth; ++p) {
        // fp32: the in-order chain of fused multiply-adds (std::fma is correctly rounded).
        c = std::fma(float(a[i * depth + p]), float(b[p * n + j]), c);
        // bf16: each step a * b + c rounded once, by MPFR.
        verify::exact_value_of(x.get(), codes_a[i * depth + p], format);
        verify::exact_value_of(y.get(), codes_b[p * n + j], format);
        verify::exact_value_of(sum_bf16.get(), c_bf16, bf16);
        c_bf16 = verify::reference_compute(
            [&](mpfr_ptr result, mpfr_rnd_t rnd) { return mpfr_fma(result, x.get(), y.get(), sum_bf16.get(), rnd); },
            bf16);
        // The exact product of the unrounded inputs: two doubles multiply exactly in 106 bits.
        mpfr_set_d(left.get(), inputs.a[i * depth + p], MPFR_RNDN);
        mpfr_set_d(right.get(), inputs.b[p * n + j], MPFR_RNDN);
        mpfr_mul(product.get(), left.get(), right.get(), MPFR_RNDN);
        mpfr_add(exact_sum.get(), exact_sum.get(), product.get(), MPFR_RNDN);
        if (p + 1 == options.depths[d]) {
          fp32[d][i * n + j] = double(c) * unscale;
          bf16_sums[d][i * n + j] = verify::reference_value(c_bf16, bf16) * unscale;
          exact[d][i * n + j] = mpfr_get_d(exact_sum.get(), MPFR_RNDN);
          ++d;
        }
      }
    }
  for (std::size_t d = 0; d < options.depths.size(); ++d) {
    out.error_fp32.push_back(normwise_error(fp32[d], exact[d]));
    out.error_bf16.push_back(normwise_error(bf16_sums[d], exact[d]));
  }
  return out;
}

TEST(Tradeoffs, OneSmallCaseRecomputedWithMpfr) {
  TradeoffOptions options;
  options.rows = options.columns = 3;
  options.depths = {16, 64};
  options.throughput_size = 0;
  options.seed = 5;
  // e4m3, p3109_8p7 (scaled to fit) and fp16, each with both accumulators.
  options.formats = {E4M3::format, parse_format("p3109_8p7"), FP16::format};
  const TradeoffResult result = run_tradeoffs(options);
  const TradeoffInputs inputs = tradeoff_inputs(options);
  for (const auto& tradeoff : result.formats) {
    SCOPED_TRACE(format_name(tradeoff.format));
    const Recomputed expected = recompute(options, inputs, tradeoff.format);
    EXPECT_EQ(tradeoff.log2_scale_a, expected.log2_scale_a);
    EXPECT_EQ(tradeoff.log2_scale_b, expected.log2_scale_b);
    for (std::size_t d = 0; d < options.depths.size(); ++d) {
      // The sums are the same bits; the norms differ only in their last digits.
      EXPECT_NEAR(tradeoff.error[fp32_accumulator][d], expected.error_fp32[d], 1e-12 * expected.error_fp32[d]);
      EXPECT_NEAR(tradeoff.error[bf16_accumulator][d], expected.error_bf16[d], 1e-12 * expected.error_bf16[d]);
    }
  }
  EXPECT_EQ(result.formats[1].log2_scale_a, -1);  // 3 x 64 normal values, the largest in (1.97, 3.94]
}

// Rounding to nearest moves x in the binade [2^e, 2^(e+1)) by up to half its ulp
// 2u 2^e (u = 2^-(M + 1)), uniformly: a mean square of u^2 4^e / 3. Over standard
// normal data (E[x^2] = 1), ||dA||_F^2 / ||A||_F^2 -> u^2 E[4^floor(log2 |x|)] / 3, and
// the product's error adds A's and B's independent parts in quadrature, so
//   error / u -> sqrt(2 E[4^floor(log2 |x|)] / 3),
// with P(2^e <= |x| < 2^(e+1)) = erfc(2^e / sqrt 2) - erfc(2^(e+1) / sqrt 2).
double expected_input_error_per_unit_roundoff() {
  double mean = 0;
  for (int e = -80; e < 8; ++e)
    mean += std::ldexp(1.0, 2 * e) * (std::erfc(std::ldexp(1.0, e) / std::sqrt(2.0)) -
                                      std::erfc(std::ldexp(1.0, e + 1) / std::sqrt(2.0)));
  return std::sqrt(2 * mean / 3);
}

// The formats checked hold the data in their normal range (smallest normal at most
// 2^-2: the values below it carry under 1% of ||A||_F^2). 16 x 16 results vary by
// about 10% around the expectation from seed to seed.
TEST(Tradeoffs, InputRoundingCostsWhatTheUnitRoundoffPredicts) {
  const double expected = expected_input_error_per_unit_roundoff();
  EXPECT_NEAR(expected, 0.60, 0.01);
  for (const char* spec : {"fp32", "bf16", "fp16", "e5m2", "e4m3", "e4m3fnuz", "e5m2fnuz", "p3109_8p1", "p3109_8p2",
                           "p3109_8p3", "p3109_8p4", "p3109_8p5", "e3m2"}) {
    const FormatTradeoff& tradeoff = of(spec);
    const double u = unit_roundoff(tradeoff.format);
    for (std::size_t d = 0; d < fp32_sweep().options.depths.size(); ++d) {
      SCOPED_TRACE(std::string(spec) + " k = " + std::to_string(fp32_sweep().options.depths[d]));
      EXPECT_GT(tradeoff.input_error[d] / u, 0.75 * expected);
      EXPECT_LT(tradeoff.input_error[d] / u, 1.25 * expected);
    }
  }
}

// fp32 accumulation's rounding errors add up like a random walk, about 2^-24 sqrt(k)
// relative to the result: invisible beside 16-bit or narrower inputs, the whole
// error for fp32 inputs.
TEST(Tradeoffs, Fp32AccumulationAddsLittleToNarrowInputs) {
  const auto& depths = fp32_sweep().options.depths;
  for (const auto& tradeoff : fp32_sweep().formats) {
    if (tradeoff.format == FP32::format) continue;
    for (std::size_t d = 0; d < depths.size(); ++d)
      EXPECT_LT(std::abs(tradeoff.error[fp32_accumulator][d] - tradeoff.input_error[d]),
                2 * 0x1p-24 * std::sqrt(double(depths[d])))
          << format_name(tradeoff.format) << " k = " << depths[d];
  }
  const FormatTradeoff& fp32 = of("fp32");
  for (std::size_t d = 0; d < depths.size(); ++d) {
    EXPECT_LT(fp32.error[fp32_accumulator][d], 2 * 0x1p-24 * std::sqrt(double(depths[d])));
    if (d > 0) {
      EXPECT_GT(fp32.error[fp32_accumulator][d], fp32.error[fp32_accumulator][d - 1]);
    }
  }
  EXPECT_GT(fp32.error[fp32_accumulator].back(), 10 * fp32.input_error.back());
}

// With the data in range, the error follows the mantissa: each bit halves it.
TEST(Tradeoffs, MoreMantissaBitsLessError) {
  const std::vector<std::string> by_precision = {"fp32", "fp16", "bf16", "p3109_8p5", "e4m3",
                                                 "e5m2", "p3109_8p2", "p3109_8p1"};
  for (std::size_t d = 0; d < fp32_sweep().options.depths.size(); ++d) {
    for (std::size_t i = 1; i < by_precision.size(); ++i)
      EXPECT_LT(of(by_precision[i - 1]).error[fp32_accumulator][d], of(by_precision[i]).error[fp32_accumulator][d])
          << by_precision[i - 1] << " vs " << by_precision[i];
    EXPECT_LT(of("e2m3").error[fp32_accumulator][d], of("e3m2").error[fp32_accumulator][d]);
    // The same mantissa width gives the same error whatever the exponent width.
    for (const auto& [x, y] : {std::pair{"e4m3", "e4m3fnuz"}, {"e4m3", "p3109_8p4"}, {"e5m2", "e3m2"},
                               {"e5m2", "p3109_8p3"}, {"e5m2", "e5m2fnuz"}})
      EXPECT_NEAR(of(x).error[fp32_accumulator][d], of(y).error[fp32_accumulator][d],
                  0.05 * of(x).error[fp32_accumulator][d])
          << x << " vs " << y;
  }
}

// Out of range, precision does not help: p3109_8p7 (6 mantissa bits, one exponent bit,
// max 1.97) holds the scaled data mostly in its subnormal range, a fixed-point grid
// of step 2^-6 (2^-4 after the scale 2^-2 is undone): an absolute error of rms
// 2^-4 / sqrt(12) per element, ~ sqrt(2) * 0.018 = 0.026 relative for the product,
// more than p3109_8p5 (4 mantissa bits) loses.
TEST(Tradeoffs, NarrowRangeLosesToFewerMantissaBits) {
  for (std::size_t d = 0; d < fp32_sweep().options.depths.size(); ++d) {
    const double p8p7 = of("p3109_8p7").error[fp32_accumulator][d];
    EXPECT_GT(p8p7, of("p3109_8p5").error[fp32_accumulator][d]);
    EXPECT_GT(p8p7, 0.02);
    EXPECT_LT(p8p7, 0.032);
  }
}

// A bf16 accumulator rounds every partial sum (relative error up to 2^-8); the errors
// add like a random walk over k steps, so the result's relative error grows about
// like 2^-8 sqrt(k): x8 from k = 64 to k = 4096.
TEST(Tradeoffs, Bf16AccumulationGrowsWithK) {
  const auto& depths = bf16_sweep().options.depths;
  for (const char* spec : {"fp32", "fp16", "bf16"}) {
    SCOPED_TRACE(spec);
    const std::vector<double>& errors = of(spec, bf16_sweep()).error[bf16_accumulator];
    for (std::size_t d = 1; d < depths.size(); ++d) EXPECT_GT(errors[d], errors[d - 1]);
    EXPECT_GT(errors.back() / errors.front(), 4.0);
    EXPECT_LT(errors.back() / errors.front(), 16.0);
    EXPECT_LT(errors.back(), 0x1p-8 * std::sqrt(double(depths.back())));
    // At k = 4096 the accumulator, not the inputs, sets the error.
    EXPECT_GT(errors.back(), 10 * of(spec, bf16_sweep()).error[fp32_accumulator].back());
  }
  // e2m1 inputs lose so much on their own that a bf16 accumulator adds little at small k.
  const FormatTradeoff& e2m1 = of("e2m1", bf16_sweep());
  EXPECT_LT(e2m1.error[bf16_accumulator].front(), 1.05 * e2m1.error[fp32_accumulator].front());
}

TEST(Tradeoffs, ReproducibleWithASeed) {
  TradeoffOptions options;
  options.rows = options.columns = 4;
  options.depths = {64, 256};
  options.throughput_size = 0;
  options.formats = {E4M3::format, BF16::format};
  auto errors = [&](std::uint64_t seed) {
    options.seed = seed;
    std::vector<double> all;
    for (const auto& tradeoff : run_tradeoffs(options).formats)
      for (const auto& errors : tradeoff.error) all.insert(all.end(), errors.begin(), errors.end());
    return all;
  };
  EXPECT_EQ(errors(7), errors(7));
  const std::vector<double> seven = errors(7), eight = errors(8);
  for (std::size_t i = 0; i < seven.size(); ++i) EXPECT_NE(seven[i], eight[i]) << i;
}

TEST(Tradeoffs, ThroughputIsMeasuredWhenAsked) {
  TradeoffOptions options;
  options.rows = options.columns = 2;
  options.depths = {8};
  options.formats = {E4M3::format};
  options.throughput_size = 16;
  options.throughput_repeats = 1;
  const double gflops = run_tradeoffs(options).formats[0].gflops;
  EXPECT_TRUE(std::isfinite(gflops));
  EXPECT_GT(gflops, 0.0);
  options.throughput_size = 0;
  EXPECT_EQ(run_tradeoffs(options).formats[0].gflops, 0.0);
}

TEST(Tradeoffs, RejectsBadArguments) {
  auto with = [](auto change) {
    TradeoffOptions options;
    options.rows = options.columns = 2;
    options.depths = {8};
    options.throughput_size = 0;
    change(options);
    return options;
  };
  EXPECT_THROW(run_tradeoffs(with([](auto& o) { o.formats = {E8M0::format}; })), std::invalid_argument);
  EXPECT_THROW(run_tradeoffs(with([](auto& o) { o.formats = {FP64::format}; })), std::invalid_argument);
  EXPECT_THROW(run_tradeoffs(with([](auto& o) { o.formats = {}; })), std::invalid_argument);
  EXPECT_THROW(run_tradeoffs(with([](auto& o) { o.accumulators = {}; })), std::invalid_argument);
  EXPECT_THROW(run_tradeoffs(with([](auto& o) { o.depths = {64, 64}; })), std::invalid_argument);
  EXPECT_THROW(run_tradeoffs(with([](auto& o) { o.depths = {0}; })), std::invalid_argument);
  EXPECT_THROW(run_tradeoffs(with([](auto& o) { o.depths = {}; })), std::invalid_argument);
  EXPECT_THROW(run_tradeoffs(with([](auto& o) { o.rows = 0; })), std::invalid_argument);
  EXPECT_THROW(run_tradeoffs(with([](auto& o) {
                 o.throughput_size = 4;
                 o.throughput_repeats = 0;
               })),
               std::invalid_argument);
}

}  // namespace
}  // namespace softfloat::experiments
