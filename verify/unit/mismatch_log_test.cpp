// MismatchLog (verify/common/mismatch_log.hpp), which every suite's loops over millions of
// inputs report through: its whole-array check_each must find the same mismatches, and
// count the same cases, as a check per element, bits compared (a NaN's payload, the sign
// of zero).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "verify/common/mismatch_log.hpp"

namespace softfloat::test_support {
namespace {

std::string named(std::size_t i) { return "input " + std::to_string(i); }

TEST(MismatchLog, CheckEachCountsAgreeingArraysAsChecked) {
  const std::vector<std::uint32_t> codes = {0, 1, 0x7F, 0xFFFFFFFFu};
  MismatchLog log{"agreeing"};
  log.check_each(codes.data(), codes.data(), codes.size(), named);
  EXPECT_EQ(log.checked(), 4u);
  EXPECT_EQ(log.failed(), 0u);
  EXPECT_TRUE(log.result());
}

TEST(MismatchLog, CheckEachOfNothingFails) {
  MismatchLog log{"empty"};
  const std::uint32_t none[1] = {};
  log.check_each(none, none, 0, named);
  EXPECT_FALSE(log.result());  // a loop that checked nothing must not pass
}

TEST(MismatchLog, CheckEachComparesFloatsByTheirBits) {
  // Equal as floats, different as bits: -0 against +0, and a NaN whose payload differs.
  const std::vector<float> got = {1.5f, -0.0f, std::bit_cast<float>(0x7FC00001u), 2.0f};
  const std::vector<std::uint32_t> expected = {0x3FC00000u, 0x00000000u, 0x7FC00000u, 0x40000000u};
  MismatchLog log{"floats"};
  log.check_each(got.data(), expected.data(), got.size(), named);
  EXPECT_EQ(log.checked(), 4u);
  EXPECT_EQ(log.failed(), 2u);
  const std::string message = log.result().message();
  EXPECT_NE(message.find("input 1: library 0x80000000, expected 0x0"), std::string::npos) << message;
  EXPECT_NE(message.find("input 2: library 0x7fc00001, expected 0x7fc00000"), std::string::npos) << message;
  EXPECT_EQ(message.find("input 0"), std::string::npos) << message;
}

TEST(MismatchLog, CheckEachAgreesWithACheckPerElement) {
  std::vector<std::uint16_t> got(1000), expected(1000);
  for (std::size_t i = 0; i < got.size(); ++i) got[i] = expected[i] = std::uint16_t(i * 37);
  got[999] ^= 1;  // the last element only: a comparison that stopped early would miss it
  MismatchLog whole{"whole"}, each{"each"};
  whole.check_each(got.data(), expected.data(), got.size(), named);
  for (std::size_t i = 0; i < got.size(); ++i) each.check(got[i], expected[i], [&] { return named(i); });
  EXPECT_EQ(whole.checked(), each.checked());
  EXPECT_EQ(whole.failed(), 1u);
  EXPECT_EQ(each.failed(), 1u);
}

}  // namespace
}  // namespace softfloat::test_support
