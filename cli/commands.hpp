// The subcommands of `softfloat`. Each add_*_command() registers one subcommand with
// its options and its action on the application; make_application() calls them all.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace softfloat::cli {

// What a parsed subcommand does. `check` stops after the checks that parsing alone
// cannot make (the value of `encode`, the code of `decode`, the --plot extension):
// nothing is computed, printed or written. The fuzz target of the command line uses it.
enum class Execution { run, check };

// The action of `command`: `check` always, then `run` when `execution` says so.
inline void set_action(CLI::App& command, Execution execution, std::function<void()> check,
                       std::function<void()> run) {
  command.callback([execution, check = std::move(check), run = std::move(run)] {
    check();
    if (execution == Execution::run) run();
  });
}

void add_formats_command(CLI::App& app, Execution execution);  // softfloat formats [SPEC...]
void add_encode_command(CLI::App& app, Execution execution);   // softfloat encode SPEC VALUE
void add_decode_command(CLI::App& app, Execution execution);   // softfloat decode SPEC CODE
void add_demo_commands(CLI::App& app, Execution execution);    // softfloat demo NAME, and top-level experiments
void add_cost_command(CLI::App& app, Execution execution);     // softfloat cost fit|weights|transfer|roofline|allreduce

}  // namespace softfloat::cli
