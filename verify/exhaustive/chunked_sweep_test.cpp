// The chunked sweep helper itself: it must report a wrong candidate (with the input,
// expected and got), notice an element a candidate forgot to write, count excluded
// inputs exactly, agree on a range that does not fill its last chunk, and compare a
// round trip candidate's floats with the reference's codes decoded, and give a sampled
// candidate exactly the chunks of its sample.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "verify/exhaustive/chunked_sweep.hpp"

namespace softfloat::verify {
namespace {

// A stand-in reference: the top 16 bits of the float (truncation to bf16).
void top_half(const float* in, std::size_t n, std::uint16_t* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::uint16_t(std::bit_cast<std::uint32_t>(in[i]) >> 16);
}

TEST(ChunkedSweep, ReportsMismatchesWithInputExpectedAndGot) {
  const std::uint32_t wrong_input = 0x3f81'2345;  // inside the swept range below
  const Candidate off_by_one{"off by one", [&](const float* in, std::size_t n, std::uint16_t* out) {
                               top_half(in, n, out);
                               for (std::size_t i = 0; i < n; ++i)
                                 if (std::bit_cast<std::uint32_t>(in[i]) == wrong_input) ++out[i];
                             }};
  const Candidate forgets_one{"forgets element 3", [](const float* in, std::size_t n, std::uint16_t* out) {
                                for (std::size_t i = 0; i < n; ++i)
                                  if (i != 3) out[i] = std::uint16_t(std::bit_cast<std::uint32_t>(in[i]) >> 16);
                              }};
  SweepOptions options;
  options.first_bits = 0x3f80'0000;
  options.end_bits = 0x3f80'0000 + 300'001;  // the last chunk is partial
  options.chunk = 1 << 12;
  const auto reports = sweep_floats(top_half, {{"exact", top_half}, off_by_one, forgets_one}, options);
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports[0].mismatches, 0u);
  EXPECT_EQ(reports[0].compared, 300'001u);
  ASSERT_EQ(reports[1].mismatches, 1u);
  EXPECT_EQ(reports[1].first_mismatches[0].input_bits, wrong_input);
  EXPECT_EQ(reports[1].first_mismatches[0].expected, 0x3f81);
  EXPECT_EQ(reports[1].first_mismatches[0].got, 0x3f82);
  // 300001 floats in chunks of 4096: 74 chunks, each missing its element 3.
  EXPECT_EQ(reports[2].mismatches, 74u);
  EXPECT_EQ(reports[2].first_mismatches.size(), 8u);
  EXPECT_EQ(reports[2].first_mismatches[0].input_bits, 0x3f80'0003u);
}

// Truncation to bf16 and back: the floats top_half's codes decode to.
void truncate_low_half(const float* in, std::size_t n, float* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(in[i]) & 0xffff'0000u);
}

TEST(ChunkedSweep, RoundTripCandidatesAreComparedWithTheDecodedReference) {
  std::vector<std::uint32_t> decoded(1u << 16);
  for (std::uint32_t code = 0; code < decoded.size(); ++code) decoded[code] = code << 16;
  const std::uint32_t wrong_input = 0x4000'1234;
  const Candidate exact = round_trip_candidate("exact", truncate_low_half, decoded);
  const Candidate one_wrong = round_trip_candidate(
      "low bit kept once",
      [&](const float* in, std::size_t n, float* out) {
        truncate_low_half(in, n, out);
        for (std::size_t i = 0; i < n; ++i)
          if (std::bit_cast<std::uint32_t>(in[i]) == wrong_input) out[i] = in[i];
      },
      decoded);
  // A table too short for the reference's codes decodes nothing: every input differs.
  const Candidate short_table = round_trip_candidate("short table", truncate_low_half, {0u});
  SweepOptions options;
  options.first_bits = 0x3fff'f000;
  options.end_bits = 0x4000'3000;
  options.chunk = 1 << 12;
  const auto reports = sweep_floats(top_half, {exact, one_wrong, short_table}, options);
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports[0].name, "exact");
  EXPECT_EQ(reports[0].compared, 0x4000u);
  EXPECT_EQ(reports[0].mismatches, 0u);
  ASSERT_EQ(reports[1].mismatches, 1u);
  EXPECT_EQ(reports[1].first_mismatches[0].input_bits, wrong_input);
  EXPECT_EQ(reports[1].first_mismatches[0].expected, 0x4000'0000u);
  EXPECT_EQ(reports[1].first_mismatches[0].got, wrong_input);
  EXPECT_EQ(reports[2].mismatches, 0x4000u);
}

TEST(ChunkedSweep, SampledCandidatesSeeOneChunkInEachRunAndCountTheRest) {
  // 64 chunks of 256 floats from 0: with a sample of 8, chunks 0, 9, 18, ..., 63 (the
  // position moves by one in each run of eight). A wrong answer in chunk 9 is found, one
  // in chunk 10 is not compared at all.
  SweepOptions options;
  options.first_bits = 0;
  options.end_bits = 64 * 256;
  options.chunk = 256;
  const auto wrong_in = [](std::uint32_t chunk) {
    return [chunk](const float* in, std::size_t n, std::uint16_t* out) {
      top_half(in, n, out);
      for (std::size_t i = 0; i < n; ++i)
        if (std::bit_cast<std::uint32_t>(in[i]) == chunk * 256 + 5) out[i] = 0xbad;
    };
  };
  Candidate sampled_wrong_in_9{"wrong in chunk 9", wrong_in(9)}, sampled_wrong_in_10{"wrong in chunk 10", wrong_in(10)};
  sampled_wrong_in_9.chunk_sample = sampled_wrong_in_10.chunk_sample = 8;
  const auto reports = sweep_floats(top_half, {sampled_wrong_in_9, sampled_wrong_in_10}, options);
  ASSERT_EQ(reports.size(), 2u);
  for (const CandidateReport& report : reports) {
    EXPECT_EQ(report.compared, 8u * 256) << report.name;
    EXPECT_EQ(report.not_sampled, 56u * 256) << report.name;
  }
  ASSERT_EQ(reports[0].mismatches, 1u);
  EXPECT_EQ(reports[0].first_mismatches[0].input_bits, 9u * 256 + 5);
  EXPECT_EQ(reports[1].mismatches, 0u);
  for (std::uint64_t run = 0; run < 8; ++run) {
    int taken = 0;
    for (std::uint64_t index = run * 8; index < run * 8 + 8; ++index) taken += chunk_in_sample(index, 8);
    EXPECT_EQ(taken, 1) << "run " << run;
    EXPECT_TRUE(chunk_in_sample(run * 8 + run, 8));
  }
}

TEST(ChunkedSweep, CountsExcludedInputsByClass) {
  // [0x7f7f'0000, 0x7f81'0000): 2^16 finite floats, +infinity and 2^16 - 1 NaNs; a
  // candidate answering 0 everywhere differs on all of them except where top_half is 0.
  SweepOptions options;
  options.first_bits = 0x7f7f'0000;
  options.end_bits = 0x7f81'0000;
  options.chunk = 1 << 14;
  const Candidate zero{"zero", [](const float*, std::size_t n, std::uint16_t* out) {
                         for (std::size_t i = 0; i < n; ++i) out[i] = 0;
                       },
                       nan_input | subnormal_input};
  const auto reports = sweep_floats(top_half, {zero}, options);
  EXPECT_EQ(reports[0].excluded_nan, 65'535u);
  EXPECT_EQ(reports[0].different_nan, 65'535u);
  EXPECT_EQ(reports[0].excluded_subnormal, 0u);
  EXPECT_EQ(reports[0].compared, 65'537u);
  EXPECT_EQ(reports[0].mismatches, 65'537u);
  EXPECT_EQ(input_class(0x0000'0001), subnormal_input);
  EXPECT_EQ(input_class(0x8000'0000), no_class);
  EXPECT_EQ(input_class(0xff80'0000), no_class);
  EXPECT_EQ(input_class(0xff80'0001), nan_input);
}

}  // namespace
}  // namespace softfloat::verify
