// Integer inputs: Float<...>(int64_t / uint64_t / int32_t) rounds the integer once,
// against MPFR (mpfr_set_sj / mpfr_set_uj, exact at 64 bits, then
// verify::reference_round). Includes the edges INT64_MIN, INT64_MAX, UINT64_MAX,
// powers of two and their neighbours, and 16973823, which a float detour rounds
// twice.
#include <random>

#include "verify/conversion/conversion_test_support.hpp"

namespace softfloat::conversion_test {
namespace {

std::uint64_t reference_from_integer(std::intmax_t v, const Format& f) {
  Mpfr exact(64);
  mpfr_set_sj(exact.get(), v, MPFR_RNDN);  // exact: 64 bits hold any int64
  return verify::reference_round(exact.get(), f);
}
std::uint64_t reference_from_integer(std::uintmax_t v, const Format& f) {
  Mpfr exact(64);
  mpfr_set_uj(exact.get(), v, MPFR_RNDN);
  return verify::reference_round(exact.get(), f);
}

template <class F, class Int>
void check_integer(MismatchLog& log, Int v) {
  using Wide = std::conditional_t<std::is_signed_v<Int>, std::intmax_t, std::uintmax_t>;
  log.check(std::uint64_t(F(v).bits()), reference_from_integer(Wide(v), F::format),
            [&] { return std::string(std::is_signed_v<Int> ? "int" : "uint") + std::to_string(8 * sizeof(Int)) + " " +
                         std::to_string(v); });
}

// Magnitudes of every width: 2^k - 1, 2^k, 2^k + 1, and random ones of every
// bit length, so that all binades of the integers are visited.
std::vector<std::uint64_t> integer_magnitudes(std::mt19937_64& rng, int random_per_width) {
  std::vector<std::uint64_t> magnitudes{0, 16973823};
  for (int k = 0; k < 64; ++k) {
    const std::uint64_t power = std::uint64_t{1} << k;
    magnitudes.insert(magnitudes.end(), {power - 1, power, power + 1, power | (power >> 1), power | (power >> 1) | 1});
    for (int i = 0; i < random_per_width; ++i) magnitudes.push_back(power | (rng() & (power - 1)));
  }
  magnitudes.push_back(~std::uint64_t{0});
  return magnitudes;
}

template <class F>
class IntegerInputs : public ::testing::Test {};
TYPED_TEST_SUITE(IntegerInputs, AllFormats, FormatNames);

TYPED_TEST(IntegerInputs, Int64Uint64AndInt32RoundOnce) {
  using F = TypeParam;
  std::mt19937_64 rng(1664525);
  MismatchLog log(format_name(F::format) + " integers");
  for (std::uint64_t magnitude : integer_magnitudes(rng, 200)) {
    check_integer<F>(log, magnitude);
    const auto as_signed = static_cast<std::int64_t>(magnitude);  // wraps for >= 2^63: INT64_MIN etc.
    check_integer<F>(log, as_signed);
    check_integer<F>(log, std::int64_t(0) - std::int64_t(magnitude >> 1));
    check_integer<F>(log, static_cast<std::int32_t>(std::uint32_t(magnitude)));
    check_integer<F>(log, -static_cast<std::int32_t>(std::uint32_t(magnitude) >> 1));
  }
  for (std::int64_t v : {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()})
    check_integer<F>(log, v);
  for (std::int32_t v : {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()})
    check_integer<F>(log, v);
  EXPECT_TRUE(log.result());
}

TEST(IntegerInputsByHand, Bf16RoundsOnce) {
  // 16973823 = 2^24 + 196607; bf16's ulp at 2^24 is 2^17 = 131072, and 196607 is
  // 1.49999 ulps, so the answer is 2^24 + 2^17 = 16908288 = 0x4B81 (exponent field
  // 24 + 127 = 0x97, mantissa 1). Through float, 16973823 (odd, float's ulp is 2
  // there) ties to 16973824 = 2^24 + 1.5 ulps, which ties again to the even
  // 2^24 + 2^18 = 17039360 (0x4B82).
  EXPECT_EQ(reference_from_integer(std::intmax_t{16973823}, BF16::format), 0x4B81u);
  EXPECT_EQ(BF16(std::int64_t{16973823}).bits(), 0x4B81);
  EXPECT_EQ(BF16(std::int32_t{16973823}).bits(), 0x4B81);
  EXPECT_EQ(BF16(std::uint64_t{16973823}).bits(), 0x4B81);
  EXPECT_EQ(double(BF16(std::int64_t{16973823})), 16908288.0);
  EXPECT_EQ(BF16(float(16973823)).bits(), 0x4B82);  // the detour's answer, 17039360
  EXPECT_EQ(BF16(std::int64_t{-16973823}).bits(), 0xCB81);
}

TEST(IntegerInputsByHand, Extremes) {
  // INT64_MIN = -2^63: bf16 0x8000 | (63 + 127) << 7 = 0xDF00; beyond fp16's max.
  EXPECT_EQ(BF16(std::numeric_limits<std::int64_t>::min()).bits(), 0xDF00);
  EXPECT_EQ(FP16(std::numeric_limits<std::int64_t>::min()).bits(), 0xFC00);
  // UINT64_MAX = 2^64 - 1 rounds up to 2^64: bf16 (64 + 127) << 7 = 0x5F80,
  // E8M0 code 64 + 127 = 0xBF, and beyond E4M3's 448: NaN.
  EXPECT_EQ(BF16(std::numeric_limits<std::uint64_t>::max()).bits(), 0x5F80);
  EXPECT_EQ(E8M0(std::numeric_limits<std::uint64_t>::max()).bits(), 0xBF);
  EXPECT_EQ(E4M3(std::numeric_limits<std::uint64_t>::max()).bits(), 0x7F);
  // FP64: INT64_MAX = 2^63 - 1 rounds to 2^63 (53 bits): 0x43E0000000000000.
  EXPECT_EQ(FP64(std::numeric_limits<std::int64_t>::max()).bits(), 0x43E0000000000000u);
  EXPECT_EQ(reference_from_integer(std::uintmax_t{~0ull}, BF16::format), 0x5F80u);
  EXPECT_EQ(reference_from_integer(std::intmax_t{std::numeric_limits<std::int64_t>::min()}, BF16::format), 0xDF00u);
  // Zero has no sign: +0 everywhere, E8M0's smallest value 2^-127.
  EXPECT_EQ(FP16(std::int64_t{0}).bits(), 0x0000);
  EXPECT_EQ(E8M0(std::int32_t{0}).bits(), 0x00);
  // Negative integers in the unsigned E8M0 are NaN.
  EXPECT_EQ(E8M0(std::int32_t{-4}).bits(), 0xFF);
}

}  // namespace
}  // namespace softfloat::conversion_test
