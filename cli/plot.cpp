// Finding and running the plot scripts.
#include "cli/plot.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "softfloat/escape.hpp"

extern char** environ;

namespace softfloat::cli {
namespace {

namespace fs = std::filesystem;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

fs::path find_script(const std::string& script) {
  std::vector<fs::path> candidates;
  if (const auto dir = environment("SOFTFLOAT_SCRIPTS_DIR"); !dir.empty()) candidates.emplace_back(dir);
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error) candidates.push_back(executable.parent_path() / SOFTFLOAT_INSTALLED_SCRIPTS_RELATIVE);
  candidates.emplace_back(SOFTFLOAT_BUILD_SCRIPTS_DIR);
  for (const auto& dir : candidates)
    if (fs::exists(dir / script, error)) return dir / script;
  std::string searched;
  for (const auto& dir : candidates) (searched += searched.empty() ? "" : ", ") += escape_unprintable(dir.string());
  throw std::runtime_error("cannot find the plot script " + script + " (searched " + searched +
                           "; set SOFTFLOAT_SCRIPTS_DIR to the folder that holds it)");
}

// The interpreter: $SOFTFLOAT_PYTHON if set, else SOFTFLOAT_PYTHON (CMake's, "python3"
// by default). A name without a slash is looked up on PATH, as a shell would: the
// project's .venv/bin first on PATH (scripts/dev.sh) makes it the venv's python3.
std::string find_python() {
  std::string python = environment("SOFTFLOAT_PYTHON");
  if (python.empty()) python = SOFTFLOAT_PYTHON;
  const std::string needs = " (the plots need a Python with matplotlib: set SOFTFLOAT_PYTHON to one)";
  if (python.find('/') != std::string::npos) {
    if (::access(python.c_str(), X_OK) != 0)
      throw std::runtime_error("cannot draw the plot: " + escape_unprintable(python) + " is missing" + needs);
    return python;
  }
  const std::string path = environment("PATH");
  for (std::size_t start = 0; start <= path.size();) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    const fs::path candidate = fs::path(end > start ? path.substr(start, end - start) : ".") / python;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  throw std::runtime_error("cannot draw the plot: no " + escape_unprintable(python) + " on PATH" + needs);
}

}  // namespace

void check_plot_path(const std::string& output) {
  const std::string extension = fs::path(output).extension().string();
  if (extension != ".svg" && extension != ".png")
    throw std::invalid_argument("--plot: '" + escape_unprintable(output) + "' must end in .svg or .png");
}

void draw_plot(const std::string& script, const std::string& csv, const std::string& output) {
  const fs::path script_path = find_script(script);
  const std::string python = find_python();
  std::vector<std::string> arguments = {python, script_path.string(), csv, output};
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  if (posix_spawn(&child, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot draw the plot: cannot start " + escape_unprintable(python));
  int status = 0;
  if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("the plot script " + escape_unprintable(script_path.string()) + " failed" +
                             (WIFEXITED(status) ? " (exit " + std::to_string(WEXITSTATUS(status)) + ")" : ""));
}

}  // namespace softfloat::cli
