// The subcommands of `softfloat`. Each add_*_command() registers one subcommand with
// its options and its action on the application; main() calls them all.
#pragma once

#include <CLI/CLI.hpp>

namespace softfloat::cli {

void add_formats_command(CLI::App& app);  // softfloat formats [SPEC...]
void add_encode_command(CLI::App& app);   // softfloat encode SPEC VALUE
void add_decode_command(CLI::App& app);   // softfloat decode SPEC CODE
void add_demo_commands(CLI::App& app);    // softfloat demo NAME, and top-level experiments
void add_cost_command(CLI::App& app);     // softfloat cost fit|weights|transfer|roofline|allreduce

}  // namespace softfloat::cli
