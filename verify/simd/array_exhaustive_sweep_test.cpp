// All 2^32 floats through the array conversions on every Highway target this CPU
// supports, against the table reference of verify/exhaustive (MPFR-checked, and built
// unlike the library). One sweep per format; each target is a candidate, so the
// reference converts every chunk once. The sweep runs on one thread because a
// candidate forces its target through hwy::SetSupportedTargetsForTest, which is global.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "simd/array_paths.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/exhaustive/chunked_sweep.hpp"
#include "verify/exhaustive/table_reference.hpp"

namespace softfloat {
namespace {

using verify::Candidate;
using verify::CandidateReport;

// Converts into 8- or 16-bit codes as the format stores them, widened for the sweep.
void quantize_widened(const float* in, std::size_t n, std::uint16_t* out, const Format& f, bool generic) {
  if (f.total_bits() <= 8) {
    std::vector<std::uint8_t> bytes(n);
    if (generic) simd::detail::quantize_generic(in, n, bytes.data(), f, Rounding::nearest_even, Overflow::standard);
    else simd::quantize(in, n, bytes.data(), f);
    for (std::size_t i = 0; i < n; ++i) out[i] = bytes[i];
  } else if (generic) {
    simd::detail::quantize_generic(in, n, out, f, Rounding::nearest_even, Overflow::standard);
  } else {
    simd::quantize(in, n, out, f);
  }
}

void sweep_every_target(const char* name, const Format& f) {
  const verify::TableReference table(f);
  const verify::Conversion reference = [&table](const float* in, std::size_t n, std::uint16_t* out) {
    table.round(in, n, out);
  };
  const bool has_shortcut = f == FP16::format || f == BF16::format;
  std::vector<Candidate> candidates;
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    for (bool generic : {false, true}) {
      if (generic && !has_shortcut) continue;
      candidates.push_back({std::string(hwy::TargetName(target)) + (generic ? " generic" : ""),
                            [target, f, generic](const float* in, std::size_t n, std::uint16_t* out) {
                              hwy::SetSupportedTargetsForTest(target);
                              quantize_widened(in, n, out, f, generic);
                            }});
    }
  }
  verify::SweepOptions options;
  options.threads = 1;
  const std::vector<CandidateReport> reports = verify::sweep_floats(reference, candidates, options);
  hwy::SetSupportedTargetsForTest(0);
  for (const CandidateReport& report : reports) {
    std::printf("%s/%s\n", name, verify::describe(report).c_str());
    EXPECT_EQ(report.mismatches, 0u) << name << "/" << verify::describe(report);
    EXPECT_EQ(report.compared, std::uint64_t{1} << 32) << report.name;
  }
  std::fflush(stdout);
}

TEST(ArrayExhaustiveSweep, E4M3) { sweep_every_target("E4M3", E4M3::format); }
TEST(ArrayExhaustiveSweep, E5M2) { sweep_every_target("E5M2", E5M2::format); }
TEST(ArrayExhaustiveSweep, FP16) { sweep_every_target("FP16", FP16::format); }
TEST(ArrayExhaustiveSweep, BF16) { sweep_every_target("BF16", BF16::format); }
TEST(ArrayExhaustiveSweep, E2M1) { sweep_every_target("E2M1", E2M1::format); }
TEST(ArrayExhaustiveSweep, E3M2) { sweep_every_target("E3M2", E3M2::format); }
TEST(ArrayExhaustiveSweep, E4M3FNUZ) { sweep_every_target("E4M3FNUZ", E4M3FNUZ::format); }

}  // namespace
}  // namespace softfloat
