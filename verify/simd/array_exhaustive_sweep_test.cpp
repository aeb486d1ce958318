// All 2^32 floats through the array conversions on every Highway target this CPU
// supports, against the table reference of verify/exhaustive (MPFR-checked, and built
// unlike the library). One sweep per format, chunk outer and target inner: the
// reference converts each chunk once, and every target's generic algorithm is called
// through its own dispatch-table entry (simd::detail::quantize_on_target), not the
// global target choice, so the chunks are shared between two threads. One more
// candidate is the public simd::quantize with the runtime dispatch and the F16C /
// AVX512-BF16 shortcuts.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
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
// target 0: the public simd::quantize; else that target's generic algorithm.
bool quantize_widened(std::int64_t target, const float* in, std::size_t n, std::uint16_t* out, const Format& f) {
  constexpr Rounding kMode = Rounding::nearest_even;
  constexpr Overflow kPolicy = Overflow::standard;
  if (f.total_bits() <= 8) {
    std::vector<std::uint8_t> bytes(n);
    if (target == 0) simd::quantize(in, n, bytes.data(), f);
    else if (!simd::detail::quantize_on_target(target, in, n, bytes.data(), f, kMode, kPolicy)) return false;
    for (std::size_t i = 0; i < n; ++i) out[i] = bytes[i];
    return true;
  }
  if (target == 0) simd::quantize(in, n, out, f);
  else return simd::detail::quantize_on_target(target, in, n, out, f, kMode, kPolicy);
  return true;
}

void sweep_every_target(const char* name, const Format& f) {
  const verify::TableReference table(f);
  const verify::Conversion reference = [&table](const float* in, std::size_t n, std::uint16_t* out) {
    table.round(in, n, out);
  };
  std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  std::vector<Candidate> candidates;
  candidates.push_back({"dispatched", [f](const float* in, std::size_t n, std::uint16_t* out) {
                          quantize_widened(0, in, n, out, f);
                        }});
  for (std::int64_t target : targets) {
    // A compiled and supported target that cannot be called directly is a failure, not a skip.
    float probe = 1.0f;
    std::uint16_t probe_out = 0;
    ASSERT_TRUE(quantize_widened(target, &probe, 1, &probe_out, f)) << hwy::TargetName(target) << " not callable";
    candidates.push_back({std::string(hwy::TargetName(target)) + " generic",
                          [target, f](const float* in, std::size_t n, std::uint16_t* out) {
                            if (!quantize_widened(target, in, n, out, f)) std::abort();
                          }});
  }
  verify::SweepOptions options;
  options.threads = 2;
  const std::vector<CandidateReport> reports = verify::sweep_floats(reference, candidates, options);
  ASSERT_EQ(reports.size(), candidates.size());
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
