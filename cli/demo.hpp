// Experiments on the command line. A demo is one experiment: its own options, a run
// that returns the tables to print and the data table that --csv writes and the plot
// script reads. Each demo lives in its own demo_<name>.cpp and registers itself with
// a DemoRegistration there, so adding an experiment is adding that one file (and its
// line in cli/CMakeLists.txt). The demo command supplies the shared options:
//
//   softfloat demo NAME [--seed N] [--csv FILE] [--plot FILE.svg|FILE.png] [demo options]
//
// and a demo whose top_level() is true is also `softfloat NAME`.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/table.hpp"

namespace softfloat::cli {

struct DemoOutput {
  std::vector<Table> tables;  // printed in order
  Table data;                 // written by --csv; the plot script reads it
};

class Demo {
 public:
  virtual ~Demo() = default;
  virtual std::string name() const = 0;         // the subcommand: "vanishing-updates"
  virtual std::string summary() const = 0;      // one line for --help
  virtual std::string plot_script() const = 0;  // "plot_vanishing_updates.py", beside the experiment
  virtual bool top_level() const { return false; }
  // Other names of the subcommand ("decode" for "decode-step").
  virtual std::vector<std::string> aliases() const { return {}; }
  // Options of this experiment, bound to members that run() reads.
  virtual void add_options(CLI::App& command) = 0;
  virtual DemoOutput run(std::uint64_t seed) = 0;
};

struct DemoRegistration {
  explicit DemoRegistration(std::function<std::unique_ptr<Demo>()> make);
};

// Every registered demo, in name order.
std::vector<std::unique_ptr<Demo>> make_demos();

}  // namespace softfloat::cli
