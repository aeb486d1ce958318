// All 2^32 float bit patterns (every NaN payload, both infinities and zeros, every
// subnormal) converted to each format by every path the library has, against ONE table
// reference per format (itself checked against MPFR in table_reference_test.cpp and
// built unlike the library), computed once per chunk and shared by all the paths:
//   - the scalar Float<...>(float).bits() and Float<...>(double(x)).bits() (not for
//     E3M2 and the fnuz formats, to save CI time: see Paths::scalar);
//   - the x86 conversion instructions where the CPU has them (F16C, AVX512-BF16);
//   - the array simd::quantize as dispatched, and the generic algorithm of every
//     Highway target compiled in and supported (array_candidates.hpp; SSSE3 and the
//     one-lane fallbacks on one chunk in eight, array_candidates.cpp says why);
//   - for the 8-bit float formats, every target's fused round_trip, whose floats must
//     be the reference's codes decoded.
// Every code of the format must also convert back (operator float) to its MPFR value.
// Each format is its own test so that ctest runs them in parallel; each sweep also
// splits its chunks over two threads. Every candidate is reported by name.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"
#include "verify/exhaustive/array_candidates.hpp"
#include "verify/exhaustive/chunked_sweep.hpp"
#include "verify/exhaustive/hardware_conversions.hpp"
#include "verify/exhaustive/table_reference.hpp"

namespace softfloat::verify {
namespace {

constexpr std::uint64_t all_floats = std::uint64_t{1} << 32;

// The library's scalar path from float, in a loop the compiler may vectorise, as user
// code would write it; and Float(double) on every float widened to double (the same
// value, so the same expected code), which runs the double path's normal, subnormal,
// overflow and NaN cases on every float.
template <class F>
void library_quantize(const float* in, std::size_t n, std::uint16_t* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = F(in[i]).bits();
}
template <class F>
void library_quantize_double(const float* in, std::size_t n, std::uint16_t* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = F(double(in[i])).bits();
}

// Which paths a format's sweep checks beside the array quantize on every target, in
// this order: "library" and "library Float(double)", then `hardware`, then the array
// paths.
struct Paths {
  std::vector<Candidate> hardware = {};
  // The scalar paths cost about 50 s of CPU a format (the reference 40): E3M2 and the
  // fnuz formats, which only the array sweep covered before, leave them out to keep CI
  // inside its time.
  bool scalar = true;
  bool round_trip = false;  // every target's fused round trip too
};

// Runs the sweep, prints every candidate's report and fails on any mismatch.
template <class F>
std::vector<CandidateReport> sweep_and_expect_no_mismatch(const char* format_name, Paths paths) {
  const TableReference table(F::format);
  // sweep_floats hands each chunk's float bit patterns in order, consecutive: the
  // table's run-filling overload serves them.
  const Conversion reference = [&table](const float* in, std::size_t n, std::uint16_t* out) {
    if (n != 0) table.round_consecutive(std::bit_cast<std::uint32_t>(in[0]), n, out);
  };
  std::vector<Candidate> candidates;
  if (paths.scalar)
    candidates = {{"library", library_quantize<F>}, {"library Float(double)", library_quantize_double<F>}};
  candidates.insert(candidates.end(), paths.hardware.begin(), paths.hardware.end());
  for (Candidate& candidate : array_quantize_candidates(F::format)) candidates.push_back(std::move(candidate));
  if (paths.round_trip)
    for (Candidate& candidate : array_round_trip_candidates(F::format)) candidates.push_back(std::move(candidate));
  const std::vector<CandidateReport> reports = sweep_floats(reference, candidates);
  EXPECT_EQ(reports.size(), candidates.size());
  for (const CandidateReport& report : reports) {
    std::printf("%s/%s\n", format_name, describe(report).c_str());
    EXPECT_EQ(report.mismatches, 0u) << format_name << "/" << describe(report);
    EXPECT_EQ(report.compared + report.excluded_subnormal + report.excluded_nan + report.not_sampled, all_floats)
        << report.name;
    // Only the targets array_candidates.cpp names are sampled, one chunk in eight.
    EXPECT_EQ(report.not_sampled, all_floats / 8 * 7 * std::uint64_t(report.not_sampled != 0)) << report.name;
  }
  std::fflush(stdout);
  return reports;
}

// The float the library should give for `code`: the MPFR value (exact in float for
// these formats), or for a NaN code the quiet float NaN of the code's sign carrying
// the code's payload bits left-aligned (IEEE style; the fn NaN carries none).
template <class F>
std::uint32_t expected_float_bits(std::uint32_t code) {
  const Format format = F::format;
  const double value = reference_value(code, format);
  if (!std::isnan(value)) return std::bit_cast<std::uint32_t>(float(value));
  const std::uint32_t sign = (code & format.sign_bit()) != 0 ? 0x8000'0000u : 0;
  const std::uint32_t payload =
      format.specials == Specials::ieee ? std::uint32_t(code & format.mantissa_mask()) << (23 - format.mantissa_bits) : 0;
  return sign | 0x7fc0'0000u | payload;
}

template <class F>
void expect_every_code_dequantizes_to_mpfr_value(const char* format_name) {
  const std::uint32_t code_count = std::uint32_t{1} << F::format.total_bits();
  int failures = 0;
  for (std::uint32_t code = 0; code < code_count; ++code) {
    const auto got = std::bit_cast<std::uint32_t>(float(F::from_bits(typename F::storage_type(code))));
    const std::uint32_t expected = expected_float_bits<F>(code);
    if (got != expected && ++failures <= 8)
      ADD_FAILURE() << format_name << " code 0x" << std::hex << code << " -> float 0x" << got << ", expected 0x" << expected;
  }
  EXPECT_EQ(failures, 0) << format_name << ": codes that convert back to the wrong float";
}

template <class F>
void sweep_format(const char* format_name, Paths paths) {
  sweep_and_expect_no_mismatch<F>(format_name, std::move(paths));
  expect_every_code_dequantizes_to_mpfr_value<F>(format_name);
}

TEST(ExhaustiveSweep, E4M3) { sweep_format<E4M3>("E4M3", {.round_trip = true}); }
TEST(ExhaustiveSweep, E5M2) { sweep_format<E5M2>("E5M2", {.round_trip = true}); }
TEST(ExhaustiveSweep, E4M3FNUZ) { sweep_format<E4M3FNUZ>("E4M3FNUZ", {.scalar = false, .round_trip = true}); }
TEST(ExhaustiveSweep, E5M2FNUZ) { sweep_format<E5M2FNUZ>("E5M2FNUZ", {.scalar = false, .round_trip = true}); }
TEST(ExhaustiveSweep, E3M2) { sweep_format<E3M2>("E3M2", {.scalar = false}); }
TEST(ExhaustiveSweep, E2M1) { sweep_format<E2M1>("E2M1", {}); }

TEST(ExhaustiveSweep, FP16) {
  Paths paths;
  // F16C is compared on every input, NaNs included: vcvtps2ph keeps the sign, sets
  // the quiet bit and keeps the top 9 payload bits, the convention the library follows.
  if (f16c_available()) {
    std::printf("FP16: hardware candidate F16C vcvtps2ph runs on this CPU\n");
    paths.hardware.push_back({"F16C vcvtps2ph", fp16_from_float_f16c});
  } else {
    std::printf("FP16: F16C is NOT available on this CPU; only the library's own paths are compared\n");
  }
  sweep_format<FP16>("FP16", std::move(paths));

  // The other direction against vcvtph2ps: every code, bit for bit.
  if (f16c_available()) {
    std::vector<std::uint16_t> codes(1u << 16);
    for (std::uint32_t code = 0; code < codes.size(); ++code) codes[code] = std::uint16_t(code);
    std::vector<float> hardware(codes.size());
    float_from_fp16_f16c(codes.data(), codes.size(), hardware.data());
    int failures = 0;
    for (std::uint32_t code = 0; code < codes.size(); ++code) {
      const auto got = std::bit_cast<std::uint32_t>(float(FP16::from_bits(std::uint16_t(code))));
      const auto instruction = std::bit_cast<std::uint32_t>(hardware[code]);
      if (got != instruction && ++failures <= 8)
        ADD_FAILURE() << "FP16 code 0x" << std::hex << code << ": library 0x" << got << ", vcvtph2ps 0x" << instruction;
    }
    EXPECT_EQ(failures, 0);
    std::printf("FP16: operator float compared with F16C vcvtph2ps on all 65536 codes, %d differ\n", failures);
  }
}

TEST(ExhaustiveSweep, BF16) {
  Paths paths;
  // vcvtneps2bf16 treats subnormal inputs as zero and does not promise NaN payloads:
  // those inputs are left out of its comparison (the library is still compared
  // with the reference on them, and on every other input).
  if (avx512bf16_available()) {
    std::printf("BF16: hardware candidate AVX512-BF16 vcvtneps2bf16 runs on this CPU\n");
    paths.hardware.push_back({"AVX512-BF16 vcvtneps2bf16", bf16_from_float_avx512bf16, subnormal_input | nan_input});
  } else {
    std::printf("BF16: AVX512-BF16 is NOT available on this CPU; only the library's own paths are compared\n");
  }
  const bool hardware = !paths.hardware.empty();
  const auto reports = sweep_and_expect_no_mismatch<BF16>("BF16", std::move(paths));
  if (hardware) {
    // The library (reports[0] and [1]) has no exclusions: it matched the reference on
    // every input, those the instruction (reports[2]) was excused from included.
    ASSERT_GE(reports.size(), 3u);
    EXPECT_EQ(reports[0].compared, all_floats);
    EXPECT_EQ(reports[1].compared, all_floats);
    std::printf("BF16: the library matches the reference on all %llu inputs, including the %llu subnormal and %llu NaN "
                "inputs left out of the vcvtneps2bf16 comparison\n",
                static_cast<unsigned long long>(reports[0].compared),
                static_cast<unsigned long long>(reports[2].excluded_subnormal),
                static_cast<unsigned long long>(reports[2].excluded_nan));
  }
  expect_every_code_dequantizes_to_mpfr_value<BF16>("BF16");
}

}  // namespace
}  // namespace softfloat::verify
