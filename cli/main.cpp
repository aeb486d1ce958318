// softfloat: the command line of the library. Subcommands:
//
//   softfloat formats [SPEC...]                    limits and conventions of formats
//   softfloat encode SPEC VALUE [--round MODE]     a number rounded to a format, in full
//   softfloat decode SPEC 0xBITS                   a code of a format, in full
//   softfloat demo NAME [--csv FILE] [--plot FILE] the precision experiments
//   softfloat cost fit|weights|transfer|roofline|allreduce  what a format costs
//
// Exit status: 0 on success, 2 for a bad command line (unknown format, bad number,
// bad option), 1 when the work itself fails (a file cannot be written, a plot cannot
// be drawn). Every error is one line on stderr saying what was wrong and what is
// accepted. The parsing and the error reporting live in application.cpp, which the
// command line's fuzz target shares.
#include <iostream>
#include <string>
#include <vector>

#include "cli/application.hpp"

int main(int argc, char** argv) {
  const auto app = softfloat::cli::make_application(softfloat::cli::Execution::run);
  return softfloat::cli::run_command_line(*app, std::vector<std::string>(argv + 1, argv + argc), std::cout,
                                          std::cerr);
}
