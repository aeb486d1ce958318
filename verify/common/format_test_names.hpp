// Names for GoogleTest typed tests over formats: the format's spec ("e4m3",
// "e5m10:bias=3") made identifier-safe, so that test names say which format failed
// and ctest filters can select one.
#pragma once

#include <cctype>
#include <string>

#include "softfloat/format_spec.hpp"

namespace softfloat::test_names {

inline std::string identifier_of(const std::string& text) {
  std::string out;
  for (char c : text) out += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '_';
  return out;
}

struct FormatNames {
  template <class F>
  static std::string GetName(int) {
    return identifier_of(format_name(F::format));
  }
};

}  // namespace softfloat::test_names
