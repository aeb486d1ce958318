// Fuzz target: the softfloat command's argument parsing and validation, through the
// command's own parser (cli/application.hpp) with Execution::check, which computes,
// prints and writes nothing. The input is the argument list, arguments separated by
// NUL bytes. Every command line must be accepted (status 0, nothing on stderr) or
// refused with status 2 and exactly one line on stderr, even where the arguments hold
// line breaks (the message quotes them escaped, as \n); any other status, exception,
// crash or sanitizer report is a finding.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cli/application.hpp"
#include "softfloat/escape.hpp"
#include "verify/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) args.emplace_back();
    else args.back() += char(data[i]);
  }
  if (size == 0) args.clear();

  const auto app = softfloat::cli::make_application(softfloat::cli::Execution::check);
  std::ostringstream out, err;
  const int status = softfloat::cli::run_command_line(*app, args, out, err);
  const std::string message = err.str();
  const auto lines = std::size_t(std::count(message.begin(), message.end(), '\n'));
  std::string shown;
  for (const auto& arg : args) shown += " '" + softfloat::escape_unprintable(arg) + "'";
  if (status == 0) {
    if (!message.empty()) softfloat::fuzz::fail("softfloat%s: accepted, but wrote to stderr: %s", shown.c_str(), message.c_str());
  } else if (status == 2) {
    if (lines != 1 || message.back() != '\n')
      softfloat::fuzz::fail("softfloat%s: refused without a one-line message: %s", shown.c_str(), message.c_str());
  } else {
    softfloat::fuzz::fail("softfloat%s: status %d in a parse-only run: %s", shown.c_str(), status, message.c_str());
  }
  return 0;
}
