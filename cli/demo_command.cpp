// softfloat demo NAME: runs a registered experiment, prints its tables, and writes
// the data (--csv) and the figure (--plot) on request.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/commands.hpp"
#include "cli/demo.hpp"
#include "cli/plot.hpp"
#include "softfloat/escape.hpp"

namespace softfloat::cli {
namespace {

std::vector<std::function<std::unique_ptr<Demo>()>>& registry() {
  static std::vector<std::function<std::unique_ptr<Demo>()>> makers;
  return makers;
}

struct DemoRequest {
  std::shared_ptr<Demo> demo;
  std::uint64_t seed = 1;
  std::string csv;
  std::string plot;
};

// The --plot extension is checked by the action before this runs (add_demo).
void run_demo(const DemoRequest& request) {
  const DemoOutput output = request.demo->run(request.seed);
  for (const auto& table : output.tables) print_table(std::cout, table);
  std::cout.flush();
  if (!request.csv.empty()) {
    write_csv(request.csv, output.data);
    std::cout << "wrote " << request.csv << '\n';
  }
  if (request.plot.empty()) return;
  // Without --csv the data go to a scratch file that lives as long as the plot run.
  std::string csv = request.csv;
  if (csv.empty()) {
    csv = (std::filesystem::temp_directory_path() /
           ("softfloat-" + request.demo->name() + "-" + std::to_string(::getpid()) + ".csv"))
              .string();
    write_csv(csv, output.data);
  }
  struct RemoveScratch {
    std::string path;
    ~RemoveScratch() {
      if (!path.empty()) std::filesystem::remove(path);
    }
  } scratch{request.csv.empty() ? csv : std::string()};
  draw_plot(request.demo->plot_script(), csv, request.plot);
  std::cout << "wrote " << request.plot << '\n';
}

void add_demo(CLI::App& parent, std::shared_ptr<Demo> demo, Execution execution) {
  auto request = std::make_shared<DemoRequest>();
  request->demo = demo;
  CLI::App* command = parent.add_subcommand(demo->name(), demo->summary());
  for (const std::string& alias : demo->aliases()) command->alias(alias);
  command->add_option("--seed", request->seed, "seed of every random choice: the same seed, the same numbers")
      ->default_val(1);
  command->add_option("--csv", request->csv, "write the data behind the figure to this CSV file")
      ->type_name("FILE");
  command->add_option("--plot", request->plot,
                      "draw the figure (matplotlib, $SOFTFLOAT_PYTHON or python3) to FILE.svg or FILE.png")
      ->type_name("FILE");
  demo->add_options(*command);
  set_action(
      *command, execution,
      [request] {
        if (!request->plot.empty()) check_plot_path(request->plot);
      },
      [request] { run_demo(*request); });
}

}  // namespace

DemoRegistration::DemoRegistration(std::function<std::unique_ptr<Demo>()> make) {
  registry().push_back(std::move(make));
}

std::vector<std::unique_ptr<Demo>> make_demos() {
  std::vector<std::unique_ptr<Demo>> demos;
  for (const auto& make : registry()) demos.push_back(make());
  std::sort(demos.begin(), demos.end(), [](const auto& a, const auto& b) { return a->name() < b->name(); });
  return demos;
}

void add_demo_commands(CLI::App& app, Execution execution) {
  CLI::App* demo = app.add_subcommand("demo", "Run a precision experiment: print its tables, write its data "
                                              "(--csv) and draw its figure (--plot)");
  std::string names;
  for (auto& made : make_demos()) {
    std::shared_ptr<Demo> shared = std::move(made);
    (names += names.empty() ? "" : ", ") += shared->name();
    add_demo(*demo, shared, execution);
    // A top-level demo gets its own instance, so the two commands' options stay apart.
    if (shared->top_level())
      for (auto& again : make_demos())
        if (again->name() == shared->name()) add_demo(app, std::move(again), execution);
  }
  // Words that name no experiment stay with `demo` and are reported here, with the
  // names that are accepted (CLI11 alone would only say that a subcommand is required).
  demo->allow_extras();
  demo->callback([demo, names] {
    if (!demo->get_subcommands().empty()) return;
    const auto extras = demo->remaining();
    throw std::invalid_argument(extras.empty() ? "demo: name an experiment: " + names
                                               : "demo: unknown experiment '" + escape_unprintable(extras.front()) +
                                                     "'; expected " + names);
  });
}

}  // namespace softfloat::cli
