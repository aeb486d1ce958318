// round_trip toward zero with saturation (the general path and the other branch of the
// overflow select) is quantize followed by dequantize, bit for bit, on all 2^32 floats
// for the 8-bit float formats, on the best Highway target this CPU supports (the others
// take it on the 2^24-float stride of array_conversion_test). Nearest even with the
// standard rule is checked on every target in verify/exhaustive/exhaustive_sweep_test,
// against the table reference it shares with the other paths; the table reference has
// no other rounding, so here the best target's quantize is the reference. The floats
// are cut into chunks of 2^20 shared between two threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "verify/exhaustive/array_candidates.hpp"
#include "verify/exhaustive/chunked_sweep.hpp"

namespace softfloat::verify {
namespace {

void sweep_toward_zero_saturate(const char* name, const Format& f) {
  constexpr Rounding mode = Rounding::toward_zero;
  constexpr Overflow policy = Overflow::saturate;
  const std::vector<Candidate> candidates = array_round_trip_candidates(f, mode, policy, /*best_target_only=*/true);
  const std::vector<CandidateReport> reports = sweep_floats(best_target_quantize(f, mode, policy), candidates);
  ASSERT_EQ(reports.size(), 1u);
  std::printf("%s toward_zero saturate/%s\n", name, describe(reports[0]).c_str());
  EXPECT_EQ(reports[0].mismatches, 0u) << name << " toward_zero saturate/" << describe(reports[0]);
  EXPECT_EQ(reports[0].compared, std::uint64_t{1} << 32);
  std::fflush(stdout);
}

TEST(ArrayRoundTripSweep, E4M3) { sweep_toward_zero_saturate("E4M3", E4M3::format); }
TEST(ArrayRoundTripSweep, E5M2) { sweep_toward_zero_saturate("E5M2", E5M2::format); }
TEST(ArrayRoundTripSweep, E4M3FNUZ) { sweep_toward_zero_saturate("E4M3FNUZ", E4M3FNUZ::format); }
TEST(ArrayRoundTripSweep, E5M2FNUZ) { sweep_toward_zero_saturate("E5M2FNUZ", E5M2FNUZ::format); }

}  // namespace
}  // namespace softfloat::verify
