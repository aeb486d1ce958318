// expect_invalid(call, fragment): the call throws std::invalid_argument whose message
// contains `fragment` (a test failure otherwise, naming what was expected).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>

namespace softfloat::verify {

inline void expect_invalid(const std::function<void()>& call, const std::string& fragment) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected one mentioning \"" << fragment << "\"";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

}  // namespace softfloat::verify
