// The names of the rounding directions and overflow policies, which the command line
// and the Python module share: each reads back to its enumerator, and an unknown name
// is an error that lists the accepted ones.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "softfloat/rounding.hpp"

namespace softfloat {
namespace {

TEST(RoundingNames, EveryNameReadsBack) {
  std::set<std::string> names;
  for (Rounding mode : kAllRoundings) {
    EXPECT_EQ(parse_rounding(rounding_name(mode)), mode) << rounding_name(mode);
    names.insert(std::string(rounding_name(mode)));
  }
  EXPECT_EQ(names.size(), 10u);
  EXPECT_EQ(rounding_name(Rounding::stochastic_equal), "stochastic_equal");
  EXPECT_EQ(rounding_name(Rounding::nearest_even), "nearest_even");
  EXPECT_EQ(parse_overflow("saturate"), Overflow::saturate);
  EXPECT_EQ(parse_overflow(overflow_name(Overflow::standard)), Overflow::standard);
}

TEST(RoundingNames, UnknownNamesListTheAcceptedOnes) {
  try {
    parse_rounding("nearest");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'nearest'"), std::string::npos) << message;
    EXPECT_NE(message.find("nearest_even, nearest_away"), std::string::npos) << message;
    EXPECT_NE(message.find("stochastic_equal"), std::string::npos) << message;
  }
  EXPECT_THROW(parse_overflow("clamp"), std::invalid_argument);
  EXPECT_THROW(parse_rounding("NEAREST_EVEN"), std::invalid_argument);  // names are exact
}

}  // namespace
}  // namespace softfloat
