// Fuzz target: the softfloat command's argument parsing and validation, through the
// command's own parser (cli/application.hpp) with Execution::check, which computes,
// prints and writes nothing. The input is the argument list, arguments separated by
// NUL bytes. Every command line must be accepted (status 0, nothing on stderr) or
// refused with status 2 and one line on stderr (more only where the arguments
// themselves hold line breaks that the message quotes); any other status, exception,
// crash or sanitizer report is a finding.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cli/application.hpp"
#include "verify/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) args.emplace_back();
    else args.back() += char(data[i]);
  }
  if (size == 0) args.clear();
  std::size_t quoted_breaks = 0;
  for (const auto& arg : args) quoted_breaks += std::size_t(std::count(arg.begin(), arg.end(), '\n'));

  const auto app = softfloat::cli::make_application(softfloat::cli::Execution::check);
  std::ostringstream out, err;
  const int status = softfloat::cli::run_command_line(*app, args, out, err);
  const std::string message = err.str();
  const auto lines = std::size_t(std::count(message.begin(), message.end(), '\n'));
  std::string shown;
  for (const auto& arg : args) shown += " '" + arg + "'";
  if (status == 0) {
    if (!message.empty()) softfloat::fuzz::fail("softfloat%s: accepted, but wrote to stderr: %s", shown.c_str(), message.c_str());
  } else if (status == 2) {
    if (lines == 0 || message.back() != '\n' || lines > 1 + quoted_breaks)
      softfloat::fuzz::fail("softfloat%s: refused without a one-line message: %s", shown.c_str(), message.c_str());
  } else {
    softfloat::fuzz::fail("softfloat%s: status %d in a parse-only run: %s", shown.c_str(), status, message.c_str());
  }
  return 0;
}
