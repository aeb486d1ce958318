// The format-specialised scalar paths of Float (softfloat/fast_conversion.hpp) against
// MPFR, where the exhaustive float sweeps do not reach:
//  - Float(double) on doubles around every rounding boundary: the value and the
//    midpoint of every gap, and doubles 1, 2, 3, 2^20, 2^29 - 1, 2^29 + 1 and 2^40
//    double-ulps either side, so that the discarded bits sit at every distance from
//    the rounding point (2^29 double-ulps is one float-ulp: a detour through float
//    would round those twice);
//  - the paths under every rounding direction and with flush-to-zero and
//    denormals-are-zero set: the subnormal case scales and truncates with floating-
//    point operations, which must stay exact, and the decoder multiplies;
//  - Float(float), Float(double) and operator float evaluated at compile time (the
//    same functions under the constant evaluator) against MPFR.
// Expected codes: verify::reference_round (MPFR); expected floats: the MPFR value.
#include <array>
#include <cfenv>
#include <random>

#include "verify/common/float_environment.hpp"
#include "verify/conversion/conversion_test_support.hpp"

namespace softfloat::conversion_test {
namespace {

// ---------------------------------------------------------------------------
// Doubles around every rounding boundary.

// The formats within fp32's exponent range. The wider ones' 2046 binades would cost
// seconds more here (minutes under the sanitizers); the double-rounding suite walks
// e11m20's boundaries with doubles too.
using BoundaryFormats = Select<AllFormats, test_formats::within_fp32_range>;

template <class F>
class ScalarPathDoubles : public ::testing::Test {};
TYPED_TEST_SUITE(ScalarPathDoubles, BoundaryFormats, FormatNames);

// Every gap of a format up to 16 bits, sampled binades of the others.
std::vector<long> gaps_to_visit(const Format& f) {
  std::vector<long> positions;
  if (f.total_bits() <= 16) {
    for (long p = first_position(f); p < last_position(f); ++p) positions.push_back(p);
    return positions;
  }
  std::mt19937_64 rng(11);
  for (std::uint64_t code : binade_sample_codes(f, rng, 8))
    if (code <= largest_finite_code(f)) positions.push_back(long(code));
  return positions;
}

TYPED_TEST(ScalarPathDoubles, AroundEveryRoundingBoundary) {
  using F = TypeParam;
  const Format f = F::format;
  MismatchLog log(format_name(f) + " Float(double) around rounding boundaries");
  constexpr std::uint64_t offsets[] = {1, 2, 3, std::uint64_t{1} << 20, (std::uint64_t{1} << 29) - 1,
                                       (std::uint64_t{1} << 29) + 1, std::uint64_t{1} << 40};
  for (long position : gaps_to_visit(f)) {
    std::vector<double> bases;
    append_boundary_probes(bases, position, f);  // the value, the midpoint (or its neighbours), one ulp around
    for (double base : bases) {
      const std::uint64_t bits = bits_of(base);
      std::vector<double> probes{base};
      for (std::uint64_t k : offsets) {
        probes.push_back(std::bit_cast<double>(bits + k));
        if (bits >= k) probes.push_back(std::bit_cast<double>(bits - k));
      }
      for (double x : probes)
        if (!std::isnan(x)) check_both_signs<F>(log, x);
    }
  }
  EXPECT_TRUE(log.result());
}

// ---------------------------------------------------------------------------
// Independence of the floating-point environment.

struct EnvironmentCase {
  int rounding;
  bool flush;
  const char* name;
};
constexpr EnvironmentCase environments[] = {
    {FE_TONEAREST, false, "nearest"},      {FE_UPWARD, false, "upward"},
    {FE_DOWNWARD, false, "downward"},      {FE_TOWARDZERO, false, "toward zero"},
    {FE_TONEAREST, true, "nearest, FTZ+DAZ"}, {FE_UPWARD, true, "upward, FTZ+DAZ"},
    {FE_DOWNWARD, true, "downward, FTZ+DAZ"}, {FE_TOWARDZERO, true, "toward zero, FTZ+DAZ"},
};

// The loops as user code writes them (the compiler may vectorise them), kept out of
// line so that the environment is set when they run.
template <class F>
[[gnu::noinline]] void encode_floats(const std::vector<float>& in, std::vector<std::uint64_t>& out) {
  out.resize(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = F(in[i]).bits();
}
template <class F>
[[gnu::noinline]] void encode_doubles(const std::vector<double>& in, std::vector<std::uint64_t>& out) {
  out.resize(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = F(in[i]).bits();
}
template <class F>
[[gnu::noinline]] void decode_codes(const std::vector<typename F::storage_type>& in, std::vector<std::uint64_t>& out) {
  out.resize(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = std::bit_cast<std::uint32_t>(float(F::from_bits(in[i])));
}

// Inputs where the environment could matter: every multiple of a quarter of the
// subnormal quantum up to twice the smallest normal (values, ties and the points
// between), one float-ulp either side of each, random floats below the smallest normal
// (float subnormals among them), both signs; plus overflow edges and specials.
template <class F>
std::vector<float> environment_inputs() {
  const Format f = F::format;
  const int quantum = f.min_normal_exponent() - f.mantissa_bits;
  std::vector<float> values;
  const long steps = 8L << f.mantissa_bits;  // up to 2^(emin + 1) in quarters of the quantum
  for (long k = 0; k <= steps; ++k) {
    const float x = std::ldexp(float(k), quantum - 2);
    values.insert(values.end(), {x, std::nextafter(x, 0.0f), std::nextafter(x, 1.0f)});
  }
  std::mt19937 rng(3);
  const float smallest_normal = std::ldexp(1.0f, f.min_normal_exponent());
  for (int i = 0; i < 20000; ++i) {
    values.push_back(std::bit_cast<float>(std::uint32_t(rng() % bits_of(smallest_normal))));
  }
  const float max = float(F::max());
  for (float x : {max, std::nextafter(max, 1e38f), 1e38f, 0x1p-149f, 0x1p-126f, 0x1.fffffcp-127f})
    values.insert(values.end(), {x, std::nextafter(x, 0.0f), std::nextafter(x, 1e38f)});
  values.push_back(std::numeric_limits<float>::infinity());
  values.push_back(std::bit_cast<float>(0x7FA0'0001u));  // signalling NaN with payload
  const std::size_t positive = values.size();
  for (std::size_t i = 0; i < positive; ++i) values.push_back(-values[i]);
  return values;
}

template <class F>
class ScalarPathEnvironment : public ::testing::Test {};
// One of each kind, plus TF32, the MX formats of 6 bits and a custom bias: a format
// takes a specialised path by its layout.
using EnvironmentFormats = Concat<RepresentativeFormats, ::testing::Types<TF32, E3M2, E2M3, Float<5, 10, 3>>>;
TYPED_TEST_SUITE(ScalarPathEnvironment, EnvironmentFormats, FormatNames);

TYPED_TEST(ScalarPathEnvironment, SameBitsInEveryEnvironment) {
  using F = TypeParam;
  const Format f = F::format;
  const std::vector<float> floats = environment_inputs<F>();
  // The same values as doubles, and doubles just off each (half a float-ulp above and
  // below the float, where double's extra bits decide): the double path's cases.
  std::vector<double> doubles;
  for (float x : floats) {
    const double d = x;
    doubles.insert(doubles.end(), {d, std::bit_cast<double>(bits_of(d) + (std::uint64_t{1} << 28))});
    if ((bits_of(d) & ~(std::uint64_t{1} << 63)) >= (std::uint64_t{1} << 28))
      doubles.push_back(std::bit_cast<double>(bits_of(d) - (std::uint64_t{1} << 28)));
  }
  std::vector<typename F::storage_type> codes;
  if (f.total_bits() <= 16)
    for (std::uint32_t c = 0; c < (std::uint32_t{1} << f.total_bits()); ++c)
      codes.push_back(typename F::storage_type(c));
  // The expected results, from MPFR in the default environment.
  std::vector<std::uint64_t> expected_floats, expected_doubles, expected_codes;
  for (float x : floats) expected_floats.push_back(verify::reference_round(x, f));
  for (double x : doubles) expected_doubles.push_back(verify::reference_round(x, f));
  for (auto c : codes) expected_codes.push_back(reference_convert(c, f, binary32_format));

  for (const EnvironmentCase& environment : environments) {
    std::vector<std::uint64_t> got_floats, got_doubles, got_codes;
    {
      const verify::ScopedFloatEnvironment set(environment.rounding, environment.flush);
      encode_floats<F>(floats, got_floats);
      encode_doubles<F>(doubles, got_doubles);
      decode_codes<F>(codes, got_codes);
    }
    MismatchLog from_float(format_name(f) + " Float(float), " + environment.name);
    for (std::size_t i = 0; i < floats.size(); ++i)
      from_float.check(got_floats[i], expected_floats[i], [&] { return describe(floats[i]); });
    EXPECT_TRUE(from_float.result());
    MismatchLog from_double(format_name(f) + " Float(double), " + environment.name);
    for (std::size_t i = 0; i < doubles.size(); ++i)
      from_double.check(got_doubles[i], expected_doubles[i], [&] { return describe(doubles[i]); });
    EXPECT_TRUE(from_double.result());
    if (!codes.empty()) {
      MismatchLog to_float(format_name(f) + " operator float, " + environment.name);
      for (std::size_t i = 0; i < codes.size(); ++i)
        to_float.check(got_codes[i], expected_codes[i], [&] { return "code " + hex(codes[i]); });
      EXPECT_TRUE(to_float.result());
    }
  }
}

// ---------------------------------------------------------------------------
// The constant evaluator runs the same paths.

// Subnormal values and ties, normal ties, overflow edges and specials, as float bits.
constexpr std::uint32_t compile_time_inputs[] = {
    0x00000000, 0x80000000, 0x00000001, 0x007FFFFF, 0x33000000, 0x33000001, 0x33C00000, 0x34200000,
    0x387FC000, 0x387FE000, 0x38800000, 0x3A800000, 0x3B400000, 0x3BA00000, 0x3C000000, 0x3E800000,
    0x3F000000, 0x3F400000, 0x3F801000, 0x3F803000, 0x3F808000, 0x3F818000, 0x40A00000, 0x40C00000,
    0x40E00000, 0x43E00000, 0x43E80000, 0x43E80001, 0x47600000, 0x477FEFFF, 0x477FF000, 0x7F7FFFFF,
    0x7F800000, 0x7FC00000, 0x7FA00001, 0xFF800000, 0xFFC12345, 0xB3C00000, 0xBF808000, 0xC0C00001,
};

template <class F, class Source>
constexpr auto encoded_at_compile_time() {
  std::array<std::uint64_t, std::size(compile_time_inputs)> codes{};
  for (std::size_t i = 0; i < codes.size(); ++i)
    codes[i] = F(static_cast<Source>(std::bit_cast<float>(compile_time_inputs[i]))).bits();
  return codes;
}

// Every code of a format up to 8 bits; 4096 codes of a wider one, spread over the code
// space with varying low bits (code = 33 i mod 2^bits: every binade, zeros, subnormals
// and specials), which keeps the constant evaluation short.
template <class F>
constexpr std::size_t compile_time_code_count =
    F::format.total_bits() <= 8 ? std::size_t{1} << F::format.total_bits() : 4096;
template <class F>
constexpr std::uint64_t compile_time_code(std::size_t i) {
  return F::format.total_bits() <= 8 ? i : (33 * i) & ((std::uint64_t{1} << F::format.total_bits()) - 1);
}

template <class F>
constexpr auto decoded_at_compile_time() {
  std::array<std::uint32_t, compile_time_code_count<F>> bits{};
  for (std::size_t i = 0; i < bits.size(); ++i)
    bits[i] = std::bit_cast<std::uint32_t>(float(F::from_bits(typename F::storage_type(compile_time_code<F>(i)))));
  return bits;
}

template <class F>
class ScalarPathCompileTime : public ::testing::Test {};
TYPED_TEST_SUITE(ScalarPathCompileTime, RepresentativeFormats, FormatNames);

TYPED_TEST(ScalarPathCompileTime, SameBitsAsMpfr) {
  using F = TypeParam;
  const Format f = F::format;
  static constexpr auto from_float = encoded_at_compile_time<F, float>();
  static constexpr auto from_double = encoded_at_compile_time<F, double>();
  static constexpr auto decoded = decoded_at_compile_time<F>();
  MismatchLog log(format_name(f) + " compile-time conversions");
  for (std::size_t i = 0; i < std::size(compile_time_inputs); ++i) {
    const float x = std::bit_cast<float>(compile_time_inputs[i]);
    log.check(from_float[i], verify::reference_round(x, f), [&] { return "Float(" + describe(x) + ")"; });
    log.check(from_double[i], verify::reference_round(double(x), f),
              [&] { return "Float(double(" + describe(x) + "))"; });
  }
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    const std::uint64_t code = compile_time_code<F>(i);
    log.check(decoded[i], reference_convert(code, f, binary32_format), [&] { return "float(code " + hex(code) + ")"; });
  }
  EXPECT_TRUE(log.result());
}

}  // namespace
}  // namespace softfloat::conversion_test
