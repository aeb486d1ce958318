// The softfloat command's parser: the CLI11 application with every subcommand, and the
// reading of one command line into it. main() runs commands with it; the fuzz target
// verify/fuzz/command_line_fuzz.cpp parses and checks with Execution::check, which
// computes, prints and writes nothing.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace softfloat::cli {

// The application with every subcommand registered, their actions as `execution` says.
std::unique_ptr<CLI::App> make_application(Execution execution);

// Parses `args` (the arguments after the program name) into `app`, which runs the
// actions, and returns the exit status: 0 on success (the help on `out` when asked for
// or when no subcommand was given), 2 for a bad command line, 1 when the work itself
// failed. An error is one line on `err` saying what was wrong and what is accepted; the
// arguments it quotes have their control characters escaped (softfloat/escape.hpp).
int run_command_line(CLI::App& app, const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace softfloat::cli
