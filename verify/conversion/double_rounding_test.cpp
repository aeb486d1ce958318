// The double-rounding trap: double inputs a few double-ulps from a midpoint of the
// format. Rounding them to float first lands exactly on the midpoint and then breaks
// the tie, which is wrong for one side of every midpoint; the library must round
// the double once. Expected codes: verify::reference_round (MPFR).
#include <random>

#include "verify/conversion/conversion_test_support.hpp"

namespace softfloat::conversion_test {
namespace {

// Every format whose midpoints are doubles (FP64's need 54 bits).
using DoubleRoundingFormats = Select<AllFormats, test_formats::midpoints_are_doubles>;

template <class F>
class DoubleRounding : public ::testing::Test {};
TYPED_TEST_SUITE(DoubleRounding, DoubleRoundingFormats, FormatNames);

// The gaps to visit: all of a format up to 16 bits, sampled binades of the others.
std::vector<long> positions_to_visit(const Format& f) {
  std::vector<long> positions;
  if (f.total_bits() <= 16) {
    for (long p = first_position(f); p < last_position(f); ++p) positions.push_back(p);
    return positions;
  }
  std::mt19937_64 rng(7);
  for (std::uint64_t code : binade_sample_codes(f, rng, 8))
    if (code <= largest_finite_code(f)) positions.push_back(long(code));
  return positions;
}

TYPED_TEST(DoubleRounding, DoublesNearMidpointsRoundOnce) {
  using F = TypeParam;
  const Format f = F::format;
  MismatchLog log(format_name(f) + " doubles near midpoints");
  long wrong_through_float = 0;  // how often the float detour would have failed
  for (long position : positions_to_visit(f)) {
    for (double x : doubles_near_midpoint(position, f, 3)) {
      for (double signed_x : {x, -x}) {
        const std::uint64_t expected = verify::reference_round(signed_x, f);
        log.check(std::uint64_t(F(signed_x).bits()), expected, [&] { return describe(signed_x); });
        wrong_through_float += std::uint64_t(F(float(signed_x)).bits()) != expected ? 1 : 0;
      }
    }
  }
  EXPECT_TRUE(log.result());
  // The inputs really are traps: through float, roughly one side of every midpoint
  // that float can hold comes out wrong. (FP32's midpoints are not floats, so only
  // the other formats are guaranteed to show it.)
  if (f.mantissa_bits <= 22) {
    EXPECT_GT(wrong_through_float, long(log.checked() / 8));
  }
}

// ml_dtypes' "DoubleRound" case, with MPFR's answer and the arithmetic.
TEST(DoubleRoundingByHand, Bf16FromDoubleJustAboveATie) {
  // x = 1 + 2^-8 + 2^-40 lies just above the midpoint of bf16's 1 and 1 + 2^-7, so
  // it rounds up to 1 + 2^-7 (0x3F81). Through float, 2^-40 is lost (float keeps
  // 2^-23), the tie goes to the even 1.0 (0x3F80).
  const double x = 1.0 + 0x1p-8 + 0x1p-40;
  EXPECT_EQ(verify::reference_round(x, BF16::format), 0x3F81u);
  EXPECT_EQ(BF16(x).bits(), 0x3F81);
  EXPECT_EQ(BF16(-x).bits(), 0xBF81);
  EXPECT_EQ(BF16(float(x)).bits(), 0x3F80);  // what the detour would give
}

TEST(DoubleRoundingByHand, E4m3FromDoubleJustBelowATie) {
  // 1.0625 = 1 + 2^-4 is the midpoint of E4M3's 1 and 1.125. Just below it the
  // answer is 1.0 (0x38); 1.0625 + 2^-30 rounds up to 1.125 (0x39).
  EXPECT_EQ(E4M3(1.0625 - 0x1p-40).bits(), 0x38);
  EXPECT_EQ(E4M3(1.0625 + 0x1p-30).bits(), 0x39);
  EXPECT_EQ(verify::reference_round(1.0625 + 0x1p-30, E4M3::format), 0x39u);
}

}  // namespace
}  // namespace softfloat::conversion_test
