// Fuzz target: parse_format() on arbitrary bytes. Either it returns a valid Format
// whose format_name() parses back to an equal Format (and names itself again), or it
// throws std::invalid_argument with a message; nothing else (any other exception,
// crash or sanitizer report is a finding).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "softfloat/format_spec.hpp"
#include "verify/fuzz/fuzz_input.hpp"

namespace {

[[noreturn]] void fail(std::string_view spec, const std::string& why) {
  softfloat::fuzz::fail("parse_format(\"%.*s\"): %s", int(spec.size()), spec.data(), why.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  softfloat::Format format;
  try {
    format = softfloat::parse_format(spec);
  } catch (const std::invalid_argument& error) {
    if (std::string_view(error.what()).empty()) fail(spec, "refused without a message");
    return 0;
  }
  if (!format.valid()) fail(spec, "accepted an invalid parameter set");
  const std::string name = softfloat::format_name(format);
  softfloat::Format again;
  try {
    again = softfloat::parse_format(name);
  } catch (const std::invalid_argument& error) {
    fail(spec, "its name '" + name + "' is refused: " + error.what());
  }
  if (!(again == format)) fail(spec, "its name '" + name + "' reads back to another format");
  if (softfloat::format_name(again) != name) fail(spec, "its name '" + name + "' is not stable");
  return 0;
}
