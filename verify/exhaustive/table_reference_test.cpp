// The table reference (table_reference.hpp) against the MPFR reference: on every
// rounding boundary of each format (each value of either sign, each midpoint between
// neighbours and the overflow midpoint above max, and the floats one ulp either side
// of each) and on every 997th float bit pattern, plus zeros, infinities and NaNs
// with several payloads. The exhaustive sweeps trust the table only because of this.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"
#include "verify/exhaustive/table_reference.hpp"

namespace softfloat::verify {
namespace {

struct NamedFormat {
  const char* name;
  Format format;
  std::uint32_t stride;  // every stride-th float bit pattern is checked too
};

// The five formats of the exhaustive sweep get the fine stride; the other small
// formats are checked too, so that the table can serve their array sweeps later.
const NamedFormat formats[] = {
    {"E4M3", E4M3::format, 997},        {"E5M2", E5M2::format, 997},
    {"FP16", FP16::format, 997},        {"BF16", BF16::format, 997},
    {"E2M1", E2M1::format, 997},        {"E3M2", E3M2::format, 99'991},
    {"E2M3", E2M3::format, 99'991},     {"E8M0", E8M0::format, 99'991},
    {"E4M3FNUZ", E4M3FNUZ::format, 99'991}, {"E5M2FNUZ", E5M2FNUZ::format, 99'991},
    {"P3109_8p3", P3109<8, 3>::format, 99'991}, {"P3109_8p1", P3109<8, 1>::format, 99'991},
};

// The float equal to `value`, which must be exact (every midpoint of a format of
// at most 16 bits is, inside float's range).
float exactly_float(double value) {
  const auto f = float(value);
  EXPECT_EQ(double(f), value) << "not a float: " << value;
  return f;
}

// Boundary inputs: each value and midpoint, both signs, and their float neighbours.
std::vector<float> boundary_inputs(const TableReference& table) {
  const std::vector<double>& values = table.values();
  std::vector<double> points(values.begin(), values.end());
  for (std::size_t i = 0; i + 1 < values.size(); ++i) points.push_back((values[i] + values[i + 1]) / 2);
  // max + half an ulp of max's binade: the overflow threshold, worked out by hand.
  const double max = values.back();
  points.push_back(max + std::ldexp(1.0, std::ilogb(max) - table.format().mantissa_bits) / 2);
  std::vector<float> inputs;
  for (double point : points) {
    if (point > std::numeric_limits<float>::max()) continue;
    const float x = exactly_float(point);
    for (float signed_x : {x, -x}) {
      inputs.push_back(signed_x);
      inputs.push_back(std::nextafter(signed_x, -std::numeric_limits<float>::infinity()));
      inputs.push_back(std::nextafter(signed_x, std::numeric_limits<float>::infinity()));
    }
  }
  // Specials and extremes of float itself.
  for (std::uint32_t bits : {0x0000'0000u, 0x8000'0000u, 0x7f80'0000u, 0xff80'0000u, 0x0000'0001u, 0x8000'0001u,
                             0x007f'ffffu, 0x0080'0000u, 0x7f7f'ffffu, 0xff7f'ffffu,
                             // NaNs: quiet and signalling, several payloads, both signs
                             0x7fc0'0000u, 0xffc0'0000u, 0x7f80'0001u, 0xff80'0001u, 0x7fff'ffffu, 0xffff'ffffu,
                             0x7fa0'0000u, 0x7f90'2000u, 0xffd5'5555u, 0x7fbf'e000u})
    inputs.push_back(std::bit_cast<float>(bits));
  return inputs;
}

class TableReferenceTest : public ::testing::TestWithParam<NamedFormat> {};

TEST_P(TableReferenceTest, MatchesMpfrOnBoundariesAndStride) {
  const NamedFormat& named = GetParam();
  const TableReference table(named.format);
  std::vector<float> inputs = boundary_inputs(table);
  const std::size_t boundary_count = inputs.size();
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += named.stride)
    inputs.push_back(std::bit_cast<float>(std::uint32_t(bits)));

  int mismatches = 0;
  for (float x : inputs) {
    const std::uint64_t expected = reference_round(x, named.format);
    const std::uint16_t got = table.round(x);
    if (got != expected && ++mismatches <= 8)
      ADD_FAILURE() << named.name << ": input 0x" << std::hex << std::bit_cast<std::uint32_t>(x) << " ("
                    << std::hexfloat << x << "): table 0x" << got << ", MPFR 0x" << expected;
  }
  EXPECT_EQ(mismatches, 0) << named.name << ": " << boundary_count << " boundary inputs and "
                           << inputs.size() - boundary_count << " strided inputs";
}

// The array overload is the scalar one element by element.
TEST(TableReference, ArrayOverloadMatchesScalar) {
  const TableReference table(FP16::format);
  const std::vector<float> inputs = {0.0f, -0.0f, 1.0f, 65504.0f, 65520.0f, -65519.99f, 0x1p-25f, 0x1.8p-24f};
  std::vector<std::uint16_t> out(inputs.size());
  table.round(inputs.data(), inputs.size(), out.data());
  for (std::size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(out[i], table.round(inputs[i])) << inputs[i];
  // Worked values: 65520 = 65504 + 32 / 2 ties to the even code above max, 0x7c00 (+inf);
  // 2^-25 is half the smallest subnormal 2^-24 and ties to +0; 1.5 * 2^-24 ties to 2 * 2^-24.
  EXPECT_EQ(out[4], 0x7c00);
  EXPECT_EQ(out[6], 0x0000);
  EXPECT_EQ(out[7], 0x0002);
}

// The sweeps' fast overload for consecutive float bits (runs found by galloping) gives
// the scalar overload's codes on windows spread over all 2^32 patterns, unaligned and of
// odd lengths, and on windows across each format's edges: zero and the sign change,
// max and the overflow midpoint, infinity and the NaNs, the wrap past 0xffffffff.
TEST_P(TableReferenceTest, ConsecutiveOverloadMatchesScalar) {
  const NamedFormat& named = GetParam();
  const TableReference table(named.format);
  const auto float_bits = [](double value) { return std::bit_cast<std::uint32_t>(float(value)); };
  std::vector<std::uint32_t> starts = {0u, 0x7f7f'f000u, 0x7fff'f000u, 0x807f'f000u, 0xffff'f000u, 0x8000'0000u - 2000u};
  const std::uint32_t max_bits = float_bits(table.values().back());
  for (std::uint32_t sign : {0u, 0x8000'0000u}) starts.push_back((max_bits | sign) - 2500u);
  for (std::uint64_t start = 12'345; start < (std::uint64_t{1} << 32); start += (std::uint64_t{1} << 22) + 4'099)
    starts.push_back(std::uint32_t(start));
  const std::size_t length = 5'003;
  std::vector<std::uint16_t> fast(length), one_by_one(length);
  int mismatches = 0;
  for (const std::uint32_t start : starts) {
    table.round_consecutive(start, length, fast.data());
    for (std::size_t i = 0; i < length; ++i) {
      const std::uint32_t bits = start + std::uint32_t(i);
      one_by_one[i] = table.round(std::bit_cast<float>(bits));
      if (fast[i] != one_by_one[i] && ++mismatches <= 8)
        ADD_FAILURE() << named.name << ": input 0x" << std::hex << bits << ": consecutive 0x" << fast[i]
                      << ", one by one 0x" << one_by_one[i];
    }
  }
  EXPECT_EQ(mismatches, 0) << named.name << ": " << starts.size() << " windows of " << length;
}

TEST(TableReference, RejectsFormatsWiderThan16Bits) {
  EXPECT_THROW(TableReference{FP32::format}, std::invalid_argument);
  EXPECT_THROW(TableReference{TF32::format}, std::invalid_argument);
}

std::string format_name_of(const ::testing::TestParamInfo<NamedFormat>& info) { return info.param.name; }
INSTANTIATE_TEST_SUITE_P(SmallFormats, TableReferenceTest, ::testing::ValuesIn(formats), format_name_of);

}  // namespace
}  // namespace softfloat::verify
