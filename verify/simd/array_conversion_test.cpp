// The array conversions (softfloat/simd.hpp) against the scalar definition, on every
// Highway target compiled in and supported by this CPU: each target is forced in turn
// with hwy::SetSupportedTargetsForTest, as Highway's own tests do. Expected codes come
// from round_to_format(), the routine that verify/conversion checks against MPFR; the
// array functions must match it bit for bit, so it is the reference here.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "simd/conversion_test_hooks.hpp"
#include "simd/prepared_conversions.hpp"
#include "verify/common/format_lists.hpp"
#include "verify/common/format_test_names.hpp"
#include "verify/common/mismatch_log.hpp"
#include "verify/common/rounding_modes.hpp"
#include "verify/simd/every_target.hpp"
#include "softfloat/softfloat.hpp"

namespace softfloat {
namespace {

struct NamedFormat {
  std::string name;
  Format format;
};

NamedFormat named(const Format& f) { return {test_names::identifier_of(format_name(f)), f}; }

// Every format of the shared lists that the vector algorithm takes (at most 32 bits,
// FP64 has no array path, within fp32's exponent range), and formats only a spec
// names: a 16-bit fn format, unsigned ones, and e9m6, whose range beyond fp32's takes
// the scalar route (it stands for every wider-ranged format, e11m20 among them).
bool takes_vector_algorithm(const Format& f) { return f.total_bits() <= 32 && test_formats::within_fp32_range(f); }
std::vector<NamedFormat> formats_under_test() {
  std::vector<NamedFormat> list;
  for (const Format& f : test_formats::formats_of(test_formats::AllFormats{}))
    if (takes_vector_algorithm(f)) list.push_back(named(f));
  for (const char* spec : {"e5m10:fn", "e5m2:unsigned", "e4m3:finite:unsigned", "e9m6"})
    list.push_back(named(parse_format(spec)));
  return list;
}

using test_support::hex;
using test_support::kDeterministicRoundings;
using test_support::kOverflowPolicies;
using test_support::MismatchLog;
using test_support::name_of;

float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }
std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

std::uint32_t expected_code(float x, const Format& f, Rounding mode, Overflow policy) {
  return std::uint32_t(round_to_format(decode(x), f, mode, policy));
}
std::uint32_t expected_float_bits(std::uint32_t code, const Format& f) {
  return std::uint32_t(round_to_format(decode(code, f), binary32_format));
}
std::uint64_t code_count(const Format& f) { return std::uint64_t{1} << f.total_bits(); }

// (a) For every code: its float value, the neighbouring floats, the float midpoints to
// the next code and one float ulp either side of them, with both signs.
// (c) Specials: NaN payloads, infinities, zeros, float subnormals.
std::vector<float> boundary_inputs(const Format& f) {
  std::vector<std::uint32_t> bits;
  auto add = [&](std::uint32_t u) {
    bits.push_back(u & 0x7FFFFFFFu);
    bits.push_back(u | 0x80000000u);
  };
  if (f.total_bits() <= 20) {
    double previous = -1;
    for (std::uint64_t code = 0; code <= f.magnitude_mask(); ++code) {
      const std::uint32_t u = expected_float_bits(std::uint32_t(code), f);
      if ((u & 0x7FFFFFFFu) > 0x7F800000u) continue;
      add(u);
      add(u + 1);
      add(u - 1);
      const double value = from_bits(u);
      if (previous >= 0 && std::isfinite(value)) {
        const std::uint32_t mid = bits_of(float((previous + value) / 2));
        add(mid);
        add(mid + 1);
        add(mid - 1);
      }
      previous = std::isfinite(value) ? value : -1;
    }
  }
  const std::uint32_t specials[] = {0x00000000u, 0x00000001u, 0x00000002u, 0x0000FFFFu, 0x00200000u,
                                    0x003FFFFFu, 0x00400000u, 0x00400001u, 0x005FFFFFu, 0x00600000u,
                                    0x00600001u, 0x007FFFFFu, 0x00800000u, 0x00800001u, 0x7F7FFFFFu,
                                    0x7F000000u, 0x7EFFFFFFu, 0x7F800000u, 0x7F800001u, 0x7F800100u,
                                    0x7FA00000u, 0x7FBFFFFFu, 0x7FC00000u, 0x7FC00001u, 0x7FE00000u,
                                    0x7FFFFFFFu, 0x3F800000u, 0x3F7FFFFFu, 0x3FC00000u};
  for (std::uint32_t u : specials) add(u);
  std::sort(bits.begin(), bits.end());
  bits.erase(std::unique(bits.begin(), bits.end()), bits.end());
  std::vector<float> inputs;
  inputs.reserve(bits.size());
  for (std::uint32_t u : bits) inputs.push_back(from_bits(u));
  return inputs;
}

// (b) A stride through all 2^32 float bit patterns: `count` inputs, evenly spaced, with
// a per-index odd offset so that low mantissa bits vary too.
std::vector<float> stride_inputs(std::size_t count) {
  std::vector<float> inputs(count);
  const std::uint64_t step = (std::uint64_t{1} << 32) / count;
  for (std::size_t i = 0; i < count; ++i)
    inputs[i] = from_bits(std::uint32_t(i * step + ((i * 2654435761u) % step)));
  return inputs;
}

using test_targets::for_each_target;

// The long stride of nearest even: 2^24 inputs in Release, where the values are the
// point. Under the sanitizers (SOFTFLOAT_SANITIZED_TESTS), which hunt memory and
// undefined-behaviour errors and leave the values to Release, 2^20: still beyond cache,
// so round_trip takes its fused loop, and the test costs about an eighth of the 23 s a
// format it took there. Under an emulator (SOFTFLOAT_EMULATED_TESTS: the aarch64
// build's qemu, some 50 times slower than native with SVE), 2^18 and a short stride
// of 2^12 instead of 2^16: the boundary inputs, where the formats differ, are all
// still checked on every target.
#if defined(SOFTFLOAT_EMULATED_TESTS)
constexpr std::size_t kLongStride = std::size_t{1} << 18;
constexpr std::size_t kShortStride = std::size_t{1} << 12;
#elif defined(SOFTFLOAT_SANITIZED_TESTS)
constexpr std::size_t kLongStride = std::size_t{1} << 20;
constexpr std::size_t kShortStride = std::size_t{1} << 16;
#else
constexpr std::size_t kLongStride = std::size_t{1} << 24;
constexpr std::size_t kShortStride = std::size_t{1} << 16;
#endif

// One output against its expected bits (verify/common/mismatch_log.hpp); a mismatch
// names the input's bits.
void check_bits(MismatchLog& log, std::uint32_t input, std::uint32_t expected, std::uint32_t got) {
  log.check(got, expected, [&] { return "input " + hex(input); });
}

// MismatchLog::check_each's name of element i: the input's bits.
auto input_named(const std::vector<float>& inputs) {
  return [&inputs](std::size_t i) { return "input " + hex(bits_of(inputs[i])); };
}

// quantize through the public entry point or the generic algorithm alone, into the
// storage width of the format; `out` is reused between calls (no page faults per run).
void run_quantize(const std::vector<float>& in, const Format& f, Rounding mode, Overflow policy, bool generic,
                  std::vector<std::uint32_t>& out) {
  out.resize(in.size());
  auto run = [&](auto* codes) {
    if (generic) simd::detail::quantize_generic(in.data(), in.size(), codes, f, mode, policy);
    else simd::quantize(in.data(), in.size(), codes, f, mode, policy);
  };
  // Narrow codes are written into the front of the same buffer, then widened in place
  // from the back.
  if (f.total_bits() <= 8) {
    auto* codes = reinterpret_cast<std::uint8_t*>(out.data());
    run(codes);
    for (std::size_t i = in.size(); i-- > 0;) out[i] = codes[i];
  } else if (f.total_bits() <= 16) {
    auto* codes = reinterpret_cast<std::uint16_t*>(out.data());
    run(codes);
    for (std::size_t i = in.size(); i-- > 0;) out[i] = codes[i];
  } else {
    run(out.data());
  }
}
std::vector<std::uint32_t> run_quantize(const std::vector<float>& in, const Format& f, Rounding mode,
                                        Overflow policy, bool generic) {
  std::vector<std::uint32_t> out;
  run_quantize(in, f, mode, policy, generic, out);
  return out;
}

// The public path differs from the generic algorithm only where a hardware shortcut
// exists (fp16, bf16): elsewhere one run per target covers both.
bool has_shortcut(const Format& f) { return f == FP16::format || f == BF16::format; }

class ArrayConversion : public ::testing::TestWithParam<NamedFormat> {};

// Every deterministic rounding direction and both overflow policies on the boundary
// inputs and specials plus a 2^16 stride (kShortStride); nearest-even / standard (the default) also on
// the 2^24-input stride (kLongStride) through all float bit patterns. quantize, and round_trip
// against the same codes decoded.
TEST_P(ArrayConversion, QuantizeMatchesScalarOnEveryTarget) {
  const Format f = GetParam().format;
  const std::vector<float> boundary = boundary_inputs(f);
  const std::vector<float> long_stride = stride_inputs(kLongStride);
  const std::vector<float> short_stride = stride_inputs(kShortStride);
  std::vector<float> inputs, round_tripped;
  std::vector<std::uint32_t> expected, got, expected_floats, decoded;
  if (f.total_bits() <= 20)
    for (std::uint32_t code = 0; code < code_count(f); ++code) decoded.push_back(expected_float_bits(code, f));
  for (Rounding mode : kDeterministicRoundings) {
    for (Overflow policy : kOverflowPolicies) {
      const bool is_default = mode == Rounding::nearest_even && policy == Overflow::standard;
      inputs = boundary;
      const auto& stride = is_default ? long_stride : short_stride;
      inputs.insert(inputs.end(), stride.begin(), stride.end());
      expected.resize(inputs.size());
      for (std::size_t i = 0; i < inputs.size(); ++i) expected[i] = expected_code(inputs[i], f, mode, policy);
      // round_trip's floats: the scalar definition's codes, decoded (by a table of every code up to 20 bits: at most 4 MiB).
      const bool round_trips = f.total_bits() <= 32;
      if (round_trips) {
        expected_floats.resize(inputs.size());
        for (std::size_t i = 0; i < inputs.size(); ++i)
          expected_floats[i] = f.total_bits() <= 20 ? decoded[expected[i]] : expected_float_bits(expected[i], f);
      }
      for_each_target([&](const std::string& target) {
        const std::string what = GetParam().name + " " + name_of(mode) +
                                 (policy == Overflow::saturate ? " saturate " : " standard ") + target;
        for (bool generic : {false, true}) {
          if (generic && !has_shortcut(f)) continue;
          MismatchLog log{what + (generic ? " generic" : " public")};
          run_quantize(inputs, f, mode, policy, generic, got);
          log.check_each(got.data(), expected.data(), inputs.size(), input_named(inputs));
          EXPECT_TRUE(log.result());
        }
        // round_trip, public and generic (the fused per-target loop wherever the vector
        // algorithm covers the format), must be quantize then dequantize, bit for bit.
        for (bool generic : {false, true}) {
          if (!round_trips) break;
          MismatchLog log{what + (generic ? " round_trip generic" : " round_trip public")};
          round_tripped.resize(inputs.size());
          if (generic) simd::detail::round_trip_generic(inputs.data(), inputs.size(), round_tripped.data(), f, mode, policy);
          else simd::round_trip(inputs.data(), inputs.size(), round_tripped.data(), f, mode, policy);
          log.check_each(round_tripped.data(), expected_floats.data(), inputs.size(), input_named(inputs));
          EXPECT_TRUE(log.result());
        }
      });
    }
  }
}

// Every encoding of the format (and, for 8-bit storage, every byte: bits above the
// format's width are ignored as Float::from_bits() does).
TEST_P(ArrayConversion, DequantizeMatchesScalarOnEveryCode) {
  const Format f = GetParam().format;
  if (f.total_bits() > 20) GTEST_SKIP() << "sampled by the fp32 tests in verify/conversion";
  const std::size_t count = f.total_bits() <= 8 ? 256 : code_count(f);
  const std::uint64_t mask = f.sign_bit() | f.magnitude_mask();
  std::vector<std::uint32_t> expected(count);
  for (std::size_t c = 0; c < count; ++c) expected[c] = expected_float_bits(std::uint32_t(c & mask), f);
  for_each_target([&](const std::string& target) {
    for (bool generic : {false, true}) {
      MismatchLog log{GetParam().name + " dequantize " + target + (generic ? " generic" : " public")};
      std::vector<float> out(count);
      auto run = [&](const auto& codes) {
        if (generic) simd::detail::dequantize_generic(codes.data(), count, out.data(), f);
        else simd::dequantize(codes.data(), count, out.data(), f);
      };
      if (f.total_bits() <= 8) {
        std::vector<std::uint8_t> codes(count);
        for (std::size_t c = 0; c < count; ++c) codes[c] = std::uint8_t(c);
        run(codes);
      } else if (f.total_bits() <= 16) {
        std::vector<std::uint16_t> codes(count);
        for (std::size_t c = 0; c < count; ++c) codes[c] = std::uint16_t(c);
        run(codes);
      } else {
        std::vector<std::uint32_t> codes(count);
        for (std::size_t c = 0; c < count; ++c) codes[c] = std::uint32_t(c);
        run(codes);
      }
      log.check_each(out.data(), expected.data(), count, [](std::size_t c) { return "input " + hex(c); });
      EXPECT_TRUE(log.result());
    }
  });
}

// Lengths around the vector widths and one long odd length, pointers misaligned by 0..3
// elements, 64 guard elements either side of the output that must stay untouched.
template <class Code>
void check_lengths_and_guards(const NamedFormat& named) {
  const Format f = named.format;
  const std::vector<float> pool = stride_inputs(std::size_t{1} << 16);
  constexpr std::size_t guard = 64;
  constexpr Code guard_value = Code(0xA5A5A5A5u);
  std::vector<std::uint32_t> expected_pool(pool.size());
  for (std::size_t i = 0; i < pool.size(); ++i)
    expected_pool[i] = expected_code(pool[i], f, Rounding::nearest_even, Overflow::standard);
  for_each_target([&](const std::string& target) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{15}, std::size_t{17},
                          std::size_t{1000003}}) {
      for (std::size_t misalign = 0; misalign <= 3; ++misalign) {
        if (n == 1000003 && misalign != 3) continue;  // the long length once, misaligned
        std::vector<float> in(n + misalign);
        for (std::size_t i = 0; i < n; ++i) in[misalign + i] = pool[(i * 7919) % pool.size()];
        std::vector<Code> out(n + misalign + 2 * guard, guard_value);
        Code* first = out.data() + guard + misalign;
        simd::quantize(in.data() + misalign, n, first, f);
        MismatchLog log{named.name + " n=" + std::to_string(n) + " misalign=" + std::to_string(misalign) + " " + target};
        for (std::size_t i = 0; i < n; ++i)
          check_bits(log, bits_of(in[misalign + i]), expected_pool[(i * 7919) % pool.size()], first[i]);
        for (std::size_t i = 0; i < guard + misalign; ++i) ASSERT_EQ(out[i], guard_value) << "written before out[0]";
        for (std::size_t i = guard + misalign + n; i < out.size(); ++i) ASSERT_EQ(out[i], guard_value) << "written after out[n)";
        // And back: dequantize into a guarded float buffer.
        std::vector<std::uint32_t> floats(n + misalign + 2 * guard, 0xA5A5A5A5u);
        float* back = reinterpret_cast<float*>(floats.data() + guard + misalign);
        simd::dequantize(first, n, back, f);
        // Every code of the pool was checked against the scalar rule above; here the
        // guards and the alignment matter, so compare with the dequantized pool codes.
        for (std::size_t i = 0; i < n && i < 4096; ++i)
          check_bits(log, first[i], expected_float_bits(first[i], f), bits_of(back[i]));
        // An empty array has no codes to compare: the guards above are its check.
        if (n > 0) {
          EXPECT_TRUE(log.result());
        }
        for (std::size_t i = 0; i < guard + misalign; ++i) ASSERT_EQ(floats[i], 0xA5A5A5A5u);
        for (std::size_t i = guard + misalign + n; i < floats.size(); ++i) ASSERT_EQ(floats[i], 0xA5A5A5A5u);
      }
    }
  });
}

// FP32 codes decode to their own floats, NaNs made quiet as the scalar routine makes
// them: every high half with low halves that set the lowest, the middle and all bits
// (signalling NaNs with payloads only there, subnormals, infinities), through the
// public call and the prepared one that matmul packs with.
TEST(ArrayConversionFp32Codes, DequantizeMatchesScalarOnSampledCodes) {
  const Format f = binary32_format;
  std::vector<std::uint32_t> codes;
  for (std::uint32_t high = 0; high < 0x10000u; ++high)
    for (std::uint32_t low : {0x0000u, 0x0001u, 0x7FFFu, 0x8000u, 0xFFFFu}) codes.push_back(high << 16 | low);
  std::vector<float> out(codes.size());
  const simd::detail::PreparedDequantize decoding(f);
  for (bool prepared : {false, true}) {
    MismatchLog log{std::string("fp32 dequantize ") + (prepared ? "prepared" : "public")};
    if (prepared) decoding(codes.data(), codes.size(), out.data());
    else simd::dequantize(codes.data(), codes.size(), out.data(), f);
    for (std::size_t i = 0; i < codes.size(); ++i)
      check_bits(log, codes[i], expected_float_bits(codes[i], f), bits_of(out[i]));
    EXPECT_TRUE(log.result());
  }
  EXPECT_EQ(bits_of(out[1]), 0x00000001u);  // code 1: the smallest subnormal, copied
  EXPECT_TRUE(std::isnan(out[0x7F80u * 5 + 1]));  // 0x7F800001, a signalling NaN
}

TEST_P(ArrayConversion, AnyLengthAnyAlignmentNothingOutsideWritten) {
  const NamedFormat& named = GetParam();
  if (named.format.total_bits() <= 8) check_lengths_and_guards<std::uint8_t>(named);
  else if (named.format.total_bits() <= 16) check_lengths_and_guards<std::uint16_t>(named);
  else check_lengths_and_guards<std::uint32_t>(named);
}

// round_trip = dequantize(quantize(x)), and the double overload rounds straight from
// the double (2^-11 + 2^-40 is above the fp16... e4m3 midpoint only as a double).
TEST_P(ArrayConversion, RoundTripAndDoubleInput) {
  const Format f = GetParam().format;
  if (f.total_bits() > 32) GTEST_SKIP();
  const std::vector<float> in = stride_inputs(4099);
  std::vector<float> out(in.size());
  simd::round_trip(in.data(), in.size(), out.data(), f);
  MismatchLog log{GetParam().name + " round_trip"};
  for (std::size_t i = 0; i < in.size(); ++i)
    check_bits(log, bits_of(in[i]), expected_float_bits(expected_code(in[i], f, Rounding::nearest_even, Overflow::standard), f),
              bits_of(out[i]));
  EXPECT_TRUE(log.result());
  // Doubles just above a midpoint of the format's codes round up only when read as doubles.
  std::vector<double> doubles;
  for (std::uint64_t code = 0; code + 1 < std::min<std::uint64_t>(f.magnitude_mask(), 4096); ++code) {
    const double a = from_bits(expected_float_bits(std::uint32_t(code), f));
    const double b = from_bits(expected_float_bits(std::uint32_t(code + 1), f));
    if (!std::isfinite(a) || !std::isfinite(b)) continue;
    const double mid = (a + b) / 2;
    for (double x : {mid, std::nextafter(mid, 1e300), std::nextafter(mid, -1e300), -mid}) doubles.push_back(x);
  }
  std::vector<std::uint32_t> codes(doubles.size());
  simd::quantize(doubles.data(), doubles.size(), codes.data(), f, Rounding::up, Overflow::saturate);
  MismatchLog double_log{GetParam().name + " double input"};
  for (std::size_t i = 0; i < doubles.size(); ++i)
    check_bits(double_log, std::uint32_t(i), std::uint32_t(round_to_format(decode(doubles[i]), f, Rounding::up, Overflow::saturate)),
                     codes[i]);
  EXPECT_TRUE(double_log.result());
}

// Doubles that separate rounding the double from rounding a float made of it: for a
// stride of codes, the value and its double neighbours, the midpoint to the next code
// and points just beside it (mid * (1 +- 2^-30) rounds to the midpoint as a float to
// nearest: the double rounding that rounding to odd avoids), both signs; the top of the
// range and beyond fp32's (FLT_MAX and past it, 2^128, DBL_MAX), the bottom (float
// subnormals, half of 2^-149, double subnormals), infinities, NaN payloads only
// a double carries (low bits only: quiet or signalling), and random bit patterns.
std::vector<double> double_inputs(const Format& f) {
  std::vector<double> inputs;
  auto add = [&](double x) {
    inputs.push_back(x);
    inputs.push_back(-x);
  };
  const std::uint64_t last = f.max_finite_magnitude();
  const std::uint64_t stride = std::max<std::uint64_t>(1, last / 2048);
  for (std::uint64_t code = 0; code < last; code += stride) {
    const double a = from_bits(expected_float_bits(std::uint32_t(code), f));
    const double b = from_bits(expected_float_bits(std::uint32_t(code + 1), f));
    if (!std::isfinite(a) || !std::isfinite(b)) continue;
    const double mid = (a + b) / 2;
    for (double x : {a, std::nextafter(a, 1e300), std::nextafter(a, -1e300), mid, std::nextafter(mid, 1e300),
                     std::nextafter(mid, -1e300), mid * (1 + 0x1p-30), mid * (1 - 0x1p-30), a * (1 + 0x1p-26)})
      add(x);
  }
  const double top = from_bits(expected_float_bits(std::uint32_t(last), f));
  const double flt_max = 3.4028234663852886e38;
  for (double x : {top, std::nextafter(top, 1e300), top * (1 + 0x1p-30), flt_max, std::nextafter(flt_max, 1e300),
                   flt_max * (1 + 0x1p-30), flt_max + 0x1p103, 0x1p128, 1e300, 1.7976931348623157e308,
                   double(INFINITY), 0.0, 0x1p-149, 0x1p-150, 0x1p-150 * (1 + 0x1p-20), 0x1p-151, 0x1p-126,
                   0x1p-126 * (1 - 0x1p-30), 1e-300, 4.9406564584124654e-324})
    add(x);
  for (std::uint64_t nan : {0x7FF8000000000000ull, 0x7FF0000000000001ull, 0x7FF0000020000000ull,
                            0x7FF4000000000000ull, 0x7FFFFFFFFFFFFFFFull})
    add(std::bit_cast<double>(nan));
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 4096; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t r = state ^ (state >> 29);
    if (i % 4 == 0) {
      inputs.push_back(std::bit_cast<double>(r));  // any pattern
    } else {  // exponents over the format's range and a little beyond
      const int low = f.min_normal_exponent() - f.mantissa_bits - 3, high = f.max_exponent() + 2;
      const int exponent = low + int((r >> 52) % std::uint64_t(high - low + 1));
      inputs.push_back(std::ldexp(1.0 + double(r & 0xFFFFFFFFFFFFFull) * 0x1p-52, exponent) * ((r >> 63) ? -1 : 1));
    }
  }
  return inputs;
}

// quantize from double on every target, every deterministic direction and both
// overflow policies, against round_to_format of the double itself; lengths that leave
// a tail, with guard codes after the output that must stay untouched.
TEST_P(ArrayConversion, DoubleInputMatchesScalarOnEveryTarget) {
  const Format f = GetParam().format;
  if (f.total_bits() > 32) GTEST_SKIP() << "formats of more than 32 bits have no array path";
  const std::vector<double> in = double_inputs(f);
  constexpr std::size_t guard = 19;
  for (Rounding mode : kDeterministicRoundings) {
    for (Overflow policy : kOverflowPolicies) {
      std::vector<std::uint32_t> expected(in.size());
      for (std::size_t i = 0; i < in.size(); ++i) expected[i] = std::uint32_t(round_to_format(decode(in[i]), f, mode, policy));
      for_each_target([&](const std::string& target) {
        MismatchLog log{GetParam().name + " from double, " + name_of(mode) + ", " + target};
        auto check = [&](auto* codes) {
          using Code = std::remove_pointer_t<decltype(codes)>;
          std::vector<Code> out(in.size() + guard, Code(0xA5A5A5A5u));
          for (std::size_t n : {in.size(), in.size() - 7, std::size_t{13}, std::size_t{1}}) {
            std::fill(out.begin(), out.end(), Code(0xA5A5A5A5u));
            simd::quantize(in.data(), n, out.data(), f, mode, policy);
            for (std::size_t i = 0; i < n; ++i) check_bits(log, std::uint32_t(i), expected[i], out[i]);
            for (std::size_t i = n; i < out.size(); ++i) ASSERT_EQ(out[i], Code(0xA5A5A5A5u)) << "written at " << i;
          }
        };
        if (f.total_bits() <= 8) check(static_cast<std::uint8_t*>(nullptr));
        else if (f.total_bits() <= 16) check(static_cast<std::uint16_t*>(nullptr));
        else check(static_cast<std::uint32_t*>(nullptr));
        EXPECT_TRUE(log.result());
      });
    }
  }
}

// The fused round trip with non-temporal stores (what the public round_trip takes for
// outputs far beyond the cache, too large to test on every target here) on every
// target: plain stores up to the first vector-aligned output address, streamed after.
// Nearest even, a directed and a stochastic rounding (its stream crossing a 2^32
// counter boundary), outputs at float offsets across 64 bytes and in place,
// against round_to_format's codes decoded; nothing outside the output written.
TEST_P(ArrayConversion, RoundTripWithNonTemporalStoresOnEveryTarget) {
  const Format f = GetParam().format;
  std::vector<float> in = boundary_inputs(f);
  const std::vector<float> stride = stride_inputs(std::size_t{1} << 14);
  in.insert(in.end(), stride.begin(), stride.end());
  const RandomStream stream{0x5EED, (std::uint64_t{1} << 32) - 4321};
  constexpr std::size_t kOffsets = 16, kGuard = 19;
  constexpr float kUntouched = -1234.5f;
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::string outside;
  int modes_streamed = 0;
  for (Rounding mode : {Rounding::nearest_even, Rounding::toward_zero, Rounding::stochastic}) {
    // An empty call tells whether the fused loop covers the format and mode.
    if (!simd::detail::round_trip_on_target(targets.front(), nullptr, 0, nullptr, f, mode, Overflow::standard)) {
      outside += std::string(" ") + name_of(mode);
      continue;
    }
    ++modes_streamed;
    std::vector<std::uint32_t> expected(in.size());
    for (std::size_t i = 0; i < in.size(); ++i)
      expected[i] = expected_float_bits(
          std::uint32_t(round_to_format(decode(in[i]), f, mode, Overflow::standard, random_bits(stream, i))), f);
    for (std::int64_t target : targets) {
      std::vector<float> buffer(kOffsets + in.size() + kGuard);
      for (std::size_t offset : {0, 1, 2, 3, 5, 8, 13, 15, 16}) {
        const bool in_place = offset == kOffsets;
        std::fill(buffer.begin(), buffer.end(), kUntouched);
        float* out = buffer.data() + (in_place ? 0 : offset);
        if (in_place) std::copy(in.begin(), in.end(), out);
        ASSERT_TRUE(simd::detail::round_trip_on_target(target, in_place ? out : in.data(), in.size(), out, f, mode,
                                                       Overflow::standard, stream, true));
        MismatchLog log{GetParam().name + " " + name_of(mode) + " streamed, " + hwy::TargetName(target) +
                        (in_place ? ", in place" : ", output offset " + std::to_string(offset))};
        log.check_each(out, expected.data(), in.size(), input_named(in));
        EXPECT_TRUE(log.result());
        for (float* p = buffer.data(); p < out; ++p) ASSERT_EQ(*p, kUntouched) << "written before the output";
        for (float* p = out + in.size(); p < buffer.data() + buffer.size(); ++p)
          ASSERT_EQ(*p, kUntouched) << "written after the output";
      }
    }
  }
  if (outside.size() > 0 && modes_streamed == 0)
    GTEST_SKIP() << GetParam().name << ": outside the fused loop (round_trip goes through codes)";
  if (!outside.empty()) std::printf("%s: not streamed (outside the fused loop):%s\n", GetParam().name.c_str(), outside.c_str());
}

// dequantize with non-temporal stores (what the public dequantize takes for outputs far
// beyond the cache) on every target: every code of formats up to 16 bits (a stride
// through wider ones), outputs at float offsets across 64 bytes, against
// round_to_format's floats; nothing outside the output written.
template <class Code>
void check_streamed_dequantize(const NamedFormat& named) {
  const Format f = named.format;
  const std::uint64_t step = f.total_bits() <= 16 ? 1 : code_count(f) >> 16;
  std::vector<Code> codes;
  for (std::uint64_t c = 0; c < code_count(f); c += step) codes.push_back(Code(c + (c * 2654435761u) % step));
  std::vector<std::uint32_t> expected(codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) expected[i] = expected_float_bits(codes[i], f);
  constexpr std::size_t kOffsets = 16, kGuard = 19;
  constexpr float kUntouched = -1234.5f;
  std::vector<float> buffer(kOffsets + codes.size() + kGuard);
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    for (std::size_t offset : {0, 1, 2, 3, 5, 8, 13, 15}) {
      std::fill(buffer.begin(), buffer.end(), kUntouched);
      float* out = buffer.data() + offset;
      if (!simd::detail::dequantize_on_target(target, codes.data(), codes.size(), out, f, true))
        GTEST_SKIP() << named.name << ": outside the vector algorithm (dequantized by the scalar rule)";
      MismatchLog log{named.name + " dequantize streamed, " + hwy::TargetName(target) + ", output offset " +
                      std::to_string(offset)};
      log.check_each(out, expected.data(), codes.size(), [&](std::size_t i) { return "input " + hex(codes[i]); });
      EXPECT_TRUE(log.result());
      for (float* p = buffer.data(); p < out; ++p) ASSERT_EQ(*p, kUntouched) << "written before the output";
      for (float* p = out + codes.size(); p < buffer.data() + buffer.size(); ++p)
        ASSERT_EQ(*p, kUntouched) << "written after the output";
    }
  }
}

TEST_P(ArrayConversion, DequantizeWithNonTemporalStoresOnEveryTarget) {
  const Format f = GetParam().format;
  if (f.total_bits() > 32) GTEST_SKIP() << "formats of more than 32 bits have no array path";
  if (f.total_bits() <= 8) check_streamed_dequantize<std::uint8_t>(GetParam());
  else if (f.total_bits() <= 16) check_streamed_dequantize<std::uint16_t>(GetParam());
  else check_streamed_dequantize<std::uint32_t>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Formats, ArrayConversion, ::testing::ValuesIn(formats_under_test()),
                         [](const ::testing::TestParamInfo<NamedFormat>& info) { return info.param.name; });

// Every target compiled in and supported by the CPU runs; the list is printed.
TEST(ArrayConversionTargets, EverySupportedTargetRuns) {
  const std::vector<std::string> names = for_each_target([](const std::string&) {});
  std::string list;
  for (const auto& name : names) list += name + " ";
  std::printf("targets run: %s\n", list.c_str());
  ASSERT_FALSE(names.empty());
  std::int64_t compiled_and_supported = hwy::SupportedTargets() & HWY_TARGETS;
  EXPECT_EQ(std::size_t(std::popcount(std::uint64_t(compiled_and_supported))), names.size());
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512bw")) {
    EXPECT_NE(list.find("AVX3"), std::string::npos) << "an AVX-512 CPU must run the AVX3 target";
  }
  // Every x86-64 CPU runs SSSE3, so a build that compiles it must run it (the
  // sanitizer build compiles fewer targets: scripts/dev.sh).
  if (HWY_TARGETS & HWY_SSSE3) {
    EXPECT_NE(list.find("SSSE3"), std::string::npos);
  }
#endif
}

// Whole vectors of a format's subnormal range and just above it, each quantum's
// halfway points included, both signs: the middle path rounds these lanes with one
// float addition, so they are where a caller's rounding mode or FTZ / DAZ would show.
std::vector<float> subnormal_range_inputs(const Format& f) {
  std::vector<float> inputs;
  const double quantum = std::ldexp(1.0, f.min_normal_exponent() - f.mantissa_bits);
  const int steps = 4 << f.mantissa_bits;  // halves of a quantum up to twice the smallest normal
  for (int k = 0; k <= steps; ++k)
    for (double fraction : {0.0, 0.25, 0.5}) {
      const float x = float((k * 0.5 + fraction * 0.5) * quantum);
      inputs.push_back(x);
      inputs.push_back(-x);
    }
  return inputs;
}

// The caller's rounding mode and MXCSR's FTZ / DAZ change nothing, on any target: the
// F16C shortcut, the AVX512-BF16 shortcut, and the generic path on float subnormals,
// halfway cases and the formats' subnormal ranges.
TEST(ArrayConversionEnvironment, ResultsIgnoreRoundingModeAndFlushToZero) {
  const std::vector<float> stride = stride_inputs(kShortStride);
  // One format of each kind, and E8M0, E3M2 and TF32: the shortcuts' formats and the
  // generic path's layouts.
  using Checked = test_formats::Concat<test_formats::RepresentativeFormats, ::testing::Types<E8M0, E3M2, TF32>>;
  for (const Format& f : test_formats::formats_of(Checked{})) {
    const std::string name = format_name(f);
    std::vector<float> inputs = subnormal_range_inputs(f);
    inputs.insert(inputs.end(), stride.begin(), stride.end());
    for (std::uint32_t u : {0x00000001u, 0x00400000u, 0x007FFFFFu, 0x33000001u, 0x33800000u, 0x387FC000u,
                            0x3F801000u, 0x3F808000u, 0x80000001u, 0xB87FE000u})
      inputs.push_back(from_bits(u));
    std::vector<std::uint32_t> expected(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i)
      expected[i] = expected_code(inputs[i], f, Rounding::nearest_even, Overflow::standard);
    for (int rounding : {FE_UPWARD, FE_TOWARDZERO, FE_DOWNWARD}) {
      for_each_target([&](const std::string& target) {
        const int saved_rounding = std::fegetround();
        std::fesetround(rounding);
#if defined(__x86_64__)
        const unsigned saved_csr = _mm_getcsr();
        _mm_setcsr(saved_csr | 0x8040u);  // FTZ | DAZ
#endif
        const std::vector<std::uint32_t> got =
            run_quantize(inputs, f, Rounding::nearest_even, Overflow::standard, false);
        std::vector<float> back(inputs.size());
        std::vector<std::uint16_t> codes16(expected.begin(), expected.end());
        if (f.total_bits() > 8 && f.total_bits() <= 16) simd::dequantize(codes16.data(), codes16.size(), back.data(), f);
#if defined(__x86_64__)
        const unsigned csr_after = _mm_getcsr();
        _mm_setcsr(saved_csr);
        EXPECT_EQ(csr_after, saved_csr | 0x8040u) << "the caller's MXCSR is restored";
#endif
        EXPECT_EQ(std::fegetround(), rounding) << "the caller's rounding mode is restored";
        std::fesetround(saved_rounding);
        MismatchLog log{name + " under FTZ, DAZ and rounding mode " + std::to_string(rounding) + " on " + target};
        for (std::size_t i = 0; i < inputs.size(); ++i) {
          check_bits(log, bits_of(inputs[i]), expected[i], got[i]);
          if (f.total_bits() > 8 && f.total_bits() <= 16)
            check_bits(log, expected[i], expected_float_bits(expected[i], f), bits_of(back[i]));
        }
        EXPECT_TRUE(log.result());
      });
    }
  }
}

// Bad arguments throw std::invalid_argument naming the problem.
TEST(ArrayConversionErrors, BadArgumentsThrow) {
  float x[2] = {1.0f, 2.0f};
  std::uint8_t bytes[2];
  std::uint16_t halves[2];
  auto message_of = [](auto call) -> std::string {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no exception";
  };
  EXPECT_NE(message_of([&] { simd::quantize(static_cast<const float*>(nullptr), 2, bytes, E4M3::format); }).find("null"),
            std::string::npos);
  EXPECT_NE(message_of([&] { simd::quantize(x, 2, bytes, FP16::format); }).find("does not fit"), std::string::npos);
  EXPECT_NE(message_of([&] { simd::dequantize(halves, 2, x, TF32::format); }).find("does not fit"), std::string::npos);
  Format invalid = E4M3::format;
  invalid.exponent_bits = 0;
  EXPECT_NE(message_of([&] { simd::quantize(x, 2, bytes, invalid); }).find("invalid format"), std::string::npos);
  EXPECT_NE(message_of([&] { simd::round_trip(std::span<const float>(x, 2), std::span<float>(x, 1), E4M3::format); })
                .find("output span"),
            std::string::npos);
  // n = 0 with null pointers is fine.
  EXPECT_NO_THROW(simd::quantize(static_cast<const float*>(nullptr), 0, static_cast<std::uint8_t*>(nullptr), E4M3::format));
}

// The typed wrappers agree with the Float type on a few worked values:
// 1.0 -> E4M3 0b0'0111'000 = 0x38; 500 > 448 -> NaN 0x7F; -0 -> fnuz +0.
TEST(ArrayConversionTyped, WorkedValues) {
  const float x[3] = {1.0f, 500.0f, -0.0f};
  std::uint8_t e4m3[3], fnuz[3];
  simd::quantize<E4M3>(x, 3, e4m3);
  simd::quantize<E4M3FNUZ>(x, 3, fnuz);
  EXPECT_EQ(e4m3[0], 0x38);
  EXPECT_EQ(e4m3[1], 0x7F);
  EXPECT_EQ(e4m3[2], 0x80);
  EXPECT_EQ(fnuz[2], 0x00);
  float back[3];
  simd::dequantize<E4M3>(e4m3, 3, back);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_TRUE(std::isnan(back[1]));
  std::uint16_t half[3];
  simd::quantize<FP16>(x, 3, half);
  EXPECT_EQ(half[0], 0x3C00);  // 0b0'01111'0000000000
  EXPECT_EQ(half[1], 0x5FD0);  // 500 = 1.953125 * 2^8: 0b0'10111'1111010000
}

}  // namespace
}  // namespace softfloat
