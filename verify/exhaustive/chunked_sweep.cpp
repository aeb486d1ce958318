// The chunked sweep over float bit patterns (see chunked_sweep.hpp).
#include "verify/exhaustive/chunked_sweep.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>

namespace softfloat::verify {

unsigned input_class(std::uint32_t float_bits) {
  const std::uint32_t exponent = (float_bits >> 23) & 0xff, mantissa = float_bits & 0x7f'ffff;
  if (exponent == 0 && mantissa != 0) return subnormal_input;
  if (exponent == 0xff && mantissa != 0) return nan_input;
  return no_class;
}

namespace {

// Keeps the `limit` mismatches with the smallest input bits.
void keep_first(std::vector<Mismatch>& list, std::size_t limit) {
  std::sort(list.begin(), list.end(),
            [](const Mismatch& a, const Mismatch& b) { return a.input_bits < b.input_bits; });
  if (list.size() > limit) list.resize(limit);
}

// How many inputs of each excludable class a chunk holds, counted once per chunk.
struct ChunkClasses {
  std::uint64_t subnormal = 0, nan = 0;
};

ChunkClasses count_classes(std::uint64_t base, std::size_t n) {
  ChunkClasses classes;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned kind = input_class(std::uint32_t(base + i));
    classes.subnormal += kind == subnormal_input;
    classes.nan += kind == nan_input;
  }
  return classes;
}

std::uint32_t bits_of(std::uint16_t code) { return code; }
std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

// Adds to `report` the comparison of got[i] with expected[i] for the n floats from `base`.
// Nearly every chunk of a correct candidate matches exactly: one memcmp settles it, and
// only a chunk that differs somewhere is walked element by element to tell excused
// inputs from mismatches. (Walking every chunk took the E4M3 sweep 317 s of CPU, the
// memcmp 256 s, on an AMD EPYC Zen 3.)
template <class Got, class Code>
void compare_chunk(const Got* got, const Code* expected, std::size_t n, std::uint64_t base,
                   unsigned excluded_classes, const ChunkClasses& classes, std::size_t max_listed,
                   CandidateReport& report) {
  const std::uint64_t excluded_subnormal = (excluded_classes & subnormal_input) ? classes.subnormal : 0;
  const std::uint64_t excluded_nan = (excluded_classes & nan_input) ? classes.nan : 0;
  report.excluded_subnormal += excluded_subnormal;
  report.excluded_nan += excluded_nan;
  report.compared += n - excluded_subnormal - excluded_nan;
  static_assert(sizeof(Got) == sizeof(Code));
  if (std::memcmp(got, expected, n * sizeof(Code)) == 0) return;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t have = bits_of(got[i]);
    if (have == expected[i]) continue;
    const std::uint32_t bits = std::uint32_t(base + i);
    const unsigned excluded_kind = input_class(bits) & excluded_classes;
    if (excluded_kind != no_class) {
      report.different_subnormal += excluded_kind == subnormal_input;
      report.different_nan += excluded_kind == nan_input;
      continue;
    }
    ++report.mismatches;
    if (report.first_mismatches.size() < max_listed) report.first_mismatches.push_back({bits, expected[i], have});
  }
}

// One thread's work: claim chunks until none is left, accumulating into `reports`.
void sweep_chunks(const Conversion& reference, const std::vector<Candidate>& candidates,
                  const SweepOptions& options, std::atomic<std::uint64_t>& next_chunk,
                  std::vector<CandidateReport>& reports) {
  const std::size_t chunk = options.chunk;
  auto input = std::make_unique<float[]>(chunk);
  auto expected = std::make_unique<std::uint16_t[]>(chunk);
  auto got = std::make_unique<std::uint16_t[]>(chunk);
  auto expected_floats = std::make_unique<std::uint32_t[]>(chunk);
  auto got_floats = std::make_unique<float[]>(chunk);
  const bool any_exclusion = std::any_of(candidates.begin(), candidates.end(),
                                         [](const Candidate& c) { return c.excluded_classes != no_class; });
  const std::uint64_t span = options.end_bits - options.first_bits;
  const std::uint64_t chunk_count = (span + chunk - 1) / chunk;
  for (std::uint64_t index = next_chunk++; index < chunk_count; index = next_chunk++) {
    const std::uint64_t base = options.first_bits + index * chunk;
    const std::size_t n = std::size_t(std::min<std::uint64_t>(chunk, options.end_bits - base));
    for (std::size_t i = 0; i < n; ++i) input[i] = std::bit_cast<float>(std::uint32_t(base + i));
    reference(input.get(), n, expected.get());
    const ChunkClasses classes = any_exclusion ? count_classes(base, n) : ChunkClasses{};
    const std::vector<std::uint32_t>* decoded_in_expected_floats = nullptr;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      const Candidate& candidate = candidates[c];
      if (!chunk_in_sample(index, candidate.chunk_sample)) {
        reports[c].not_sampled += n;
        continue;
      }
      // Poison the output so that an element the candidate forgets to write shows up.
      if (candidate.round_trip) {
        // The reference's codes decoded by the candidate's table (shared by the round
        // trips of one format). A code beyond the table decodes to 0xffffffff: neither
        // the poison nor any float that a code of at most 16 bits decodes to (NaN
        // payloads are left-aligned).
        if (decoded_in_expected_floats == nullptr || *decoded_in_expected_floats != candidate.decoded) {
          const std::uint32_t* decoded = candidate.decoded.data();
          const std::size_t codes = candidate.decoded.size();
          for (std::size_t i = 0; i < n; ++i)
            expected_floats[i] = expected[i] < codes ? decoded[expected[i]] : 0xffff'ffffu;
          decoded_in_expected_floats = &candidate.decoded;
        }
        std::fill(got_floats.get(), got_floats.get() + n, std::bit_cast<float>(0xdeadbeefu));
        candidate.round_trip(input.get(), n, got_floats.get());
        compare_chunk(got_floats.get(), expected_floats.get(), n, base, candidate.excluded_classes, classes,
                      options.max_listed, reports[c]);
      } else {
        std::fill(got.get(), got.get() + n, std::uint16_t(0xdead));
        candidate.convert(input.get(), n, got.get());
        compare_chunk(got.get(), expected.get(), n, base, candidate.excluded_classes, classes, options.max_listed,
                      reports[c]);
      }
    }
  }
}

}  // namespace

Candidate round_trip_candidate(std::string name, RoundTrip round_trip, std::vector<std::uint32_t> decoded) {
  Candidate candidate{std::move(name), nullptr};
  candidate.round_trip = std::move(round_trip);
  candidate.decoded = std::move(decoded);
  return candidate;
}

std::vector<CandidateReport> sweep_floats(const Conversion& reference, const std::vector<Candidate>& candidates,
                                          const SweepOptions& options) {
  const int threads = std::max(1, options.threads);
  std::vector<std::vector<CandidateReport>> per_thread(std::size_t(threads), std::vector<CandidateReport>(candidates.size()));
  std::atomic<std::uint64_t> next_chunk{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] { sweep_chunks(reference, candidates, options, next_chunk, per_thread[std::size_t(t)]); });
  for (std::thread& worker : workers) worker.join();

  std::vector<CandidateReport> total(candidates.size());
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    total[c].name = candidates[c].name;
    for (const auto& reports : per_thread) {
      const CandidateReport& part = reports[c];
      total[c].compared += part.compared;
      total[c].excluded_subnormal += part.excluded_subnormal;
      total[c].excluded_nan += part.excluded_nan;
      total[c].different_subnormal += part.different_subnormal;
      total[c].different_nan += part.different_nan;
      total[c].not_sampled += part.not_sampled;
      total[c].mismatches += part.mismatches;
      total[c].first_mismatches.insert(total[c].first_mismatches.end(), part.first_mismatches.begin(),
                                       part.first_mismatches.end());
    }
    keep_first(total[c].first_mismatches, options.max_listed);
  }
  return total;
}

std::string describe(const CandidateReport& report) {
  char line[512];
  std::snprintf(line, sizeof line, "%s: %llu inputs compared, %llu mismatches", report.name.c_str(),
                static_cast<unsigned long long>(report.compared), static_cast<unsigned long long>(report.mismatches));
  std::string text = line;
  if (report.excluded_subnormal + report.excluded_nan > 0) {
    std::snprintf(line, sizeof line,
                  "; not compared: %llu subnormal inputs (it differs from the reference on %llu of them) "
                  "and %llu NaN inputs (it differs on %llu)",
                  static_cast<unsigned long long>(report.excluded_subnormal),
                  static_cast<unsigned long long>(report.different_subnormal),
                  static_cast<unsigned long long>(report.excluded_nan),
                  static_cast<unsigned long long>(report.different_nan));
    text += line;
  }
  if (report.not_sampled > 0) {
    std::snprintf(line, sizeof line, "; sampled: %llu inputs in chunks it skipped",
                  static_cast<unsigned long long>(report.not_sampled));
    text += line;
  }
  for (const Mismatch& m : report.first_mismatches) {
    std::snprintf(line, sizeof line, "\n  input 0x%08x (%.9g): expected 0x%04x, got 0x%04x", unsigned(m.input_bits),
                  double(std::bit_cast<float>(m.input_bits)), unsigned(m.expected), unsigned(m.got));
    text += line;
  }
  return text;
}

}  // namespace softfloat::verify
