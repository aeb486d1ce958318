// The rounding boundaries of every format up to 16 bits in every deterministic
// rounding direction with both overflow policies, from float input, against
// verify::reference_round(x, format, mode, policy) (MPFR): for each pair of
// neighbouring values, the lower value and the floats either side of it, the
// midpoint and the floats either side of it, both signs; then the would-be next
// code above max. The reference's constructed modes (nearest_away, nearest_zero,
// odd) are also checked against MPFR's own roundings on the same inputs.
//
// Built twice: SOFTFLOAT_MODES_GAP_STRIDE = 1 visits every gap (the "exhaustive"
// binary, seconds in Release but too slow for the sanitizer run); the default, 16,
// visits every gap of the 8-bit formats and, of the 16-bit ones, every gap of the
// subnormals, of the first normal binade and of the top two binades, the first and
// last gap of every binade, and every 16th gap in between.
#include "verify/conversion/rounding_modes_checks.hpp"

#ifndef SOFTFLOAT_MODES_GAP_STRIDE
#define SOFTFLOAT_MODES_GAP_STRIDE 16
#endif
// The suites' names differ between the two binaries, so that ctest sees distinct
// test names (and labels them apart).
#ifndef SOFTFLOAT_MODES_BOUNDARY_SUITE
#define SOFTFLOAT_MODES_BOUNDARY_SUITE RoundingModesBoundaries
#endif
#ifndef SOFTFLOAT_MODES_REFERENCE_SUITE
#define SOFTFLOAT_MODES_REFERENCE_SUITE RoundingModesReference
#endif

namespace softfloat::conversion_test {
namespace {

constexpr long kGapStride = SOFTFLOAT_MODES_GAP_STRIDE;

// Whether the gap above `position` is visited (see the top of the file).
bool visits_gap(long position, const Format& f) {
  if (kGapStride <= 1 || f.total_bits() <= 8 || position < 0) return true;
  const long per_binade = 1L << f.mantissa_bits;
  const long in_binade = position & (per_binade - 1);
  return position < 2 * per_binade || position >= last_position(f) - 2 * per_binade || in_binade == 0 ||
         in_binade == per_binade - 1 || position % kGapStride == 0;
}

template <class F>
class SOFTFLOAT_MODES_BOUNDARY_SUITE : public ::testing::Test {};
TYPED_TEST_SUITE(SOFTFLOAT_MODES_BOUNDARY_SUITE, NarrowFormats, FormatNames);

// Every midpoint of these formats is a float (see rounding_boundaries_test.cpp), and
// so is every value: the probes are exact.
template <class F, class Source>
void check_gaps_in_every_mode() {
  const Format f = F::format;
  MismatchLog log(format_name(f) + " rounding boundaries, every mode and policy");
  std::vector<Source> probes;
  long visited = 0;
  for (long position = first_position(f); position < last_position(f); ++position) {
    if (!visits_gap(position, f)) continue;
    ++visited;
    probes.clear();
    append_boundary_probes(probes, position, f);
    if (position >= 0) {
      Mpfr low;
      value_at(low, position, f);
      const Source value = nearest_source<Source>(low.get());
      probes.push_back(std::nextafter(value, Source(-kInfinity)));
      probes.push_back(std::nextafter(value, Source(kInfinity)));
    }
    for (Source x : probes) check_every_mode_both_signs<F>(log, x);
  }
  // The would-be next code above max: the first value beyond which every mode
  // overflows unless it rounds toward max.
  Mpfr beyond;
  value_at(beyond, last_position(f), f);
  const Source next = nearest_source<Source>(beyond.get());
  for (Source x : {next, std::nextafter(next, Source(-kInfinity)), std::nextafter(next, Source(kInfinity)), 2 * next})
    check_every_mode_both_signs<F>(log, x);
  EXPECT_TRUE(log.result());
  // Six inputs a gap (three for zero's gap in a format without zero), two signs,
  // 16 mode and policy pairs: catches a loop that silently ran short.
  EXPECT_GE(long(log.checked()), 16 * 2 * (6 * visited - 3));
  if (kGapStride <= 1) {
    EXPECT_EQ(visited, last_position(f) - first_position(f));
  }
}

TYPED_TEST(SOFTFLOAT_MODES_BOUNDARY_SUITE, FloatInput) { check_gaps_in_every_mode<TypeParam, float>(); }

// The reference itself: its constructed modes agree with MPFR's own roundings
// wherever those are defined, so they rest on MPFR too. Off a tie, nearest_away and
// nearest_zero are MPFR_RNDN; on a tie (x the exact midpoint) they are RNDA and
// RNDZ. An inexact odd result is whichever of RNDZ and RNDA has an odd code (formats
// with M >= 1, where the last code bit is the last significand bit). The gaps up to
// max only, so that no candidate overflows.
template <class F>
class SOFTFLOAT_MODES_REFERENCE_SUITE : public ::testing::Test {};
TYPED_TEST_SUITE(SOFTFLOAT_MODES_REFERENCE_SUITE, RepresentativeFormats, FormatNames);

TYPED_TEST(SOFTFLOAT_MODES_REFERENCE_SUITE, ConstructedModesAgreeWithMpfrRoundings) {
  const Format f = TypeParam::format;
  MismatchLog log(format_name(f) + " reference: constructed modes against MPFR roundings");
  std::vector<float> probes;
  long ties = 0, visited = 0;
  for (long position = 0; position + 1 < last_position(f); ++position) {
    if (!visits_gap(position, f)) continue;
    ++visited;
    probes.clear();
    append_boundary_probes(probes, position, f);
    Mpfr low, high, mid;
    value_at(low, position, f);
    value_at(high, position + 1, f);
    mpfr_add(mid.get(), low.get(), high.get(), MPFR_RNDN);  // exact at 256 bits
    mpfr_div_2ui(mid.get(), mid.get(), 1, MPFR_RNDN);
    for (float magnitude : probes) {
      for (float x : {magnitude, -magnitude}) {
        const bool tie = mpfr_cmp_d(mid.get(), std::abs(double(x))) == 0;
        ties += tie;
        auto constructed = [&](Rounding mode) { return verify::reference_round(x, f, mode, Overflow::standard); };
        const std::uint64_t nearest = verify::reference_round(x, f, MPFR_RNDN);
        const std::uint64_t toward_zero = verify::reference_round(x, f, MPFR_RNDZ);
        const std::uint64_t away = verify::reference_round(x, f, MPFR_RNDA);
        auto input = [&] { return describe(x); };
        log.check(constructed(Rounding::nearest_even), nearest, input);
        log.check(constructed(Rounding::nearest_away), tie ? away : nearest, input);
        log.check(constructed(Rounding::nearest_zero), tie ? toward_zero : nearest, input);
        const std::uint64_t odd_one = (toward_zero & 1) != 0 || toward_zero == away ? toward_zero : away;
        log.check(constructed(Rounding::odd), odd_one, input);
      }
    }
  }
  EXPECT_TRUE(log.result());
  EXPECT_EQ(ties, 2 * visited) << "every midpoint itself is probed, with both signs";
}

}  // namespace
}  // namespace softfloat::conversion_test
