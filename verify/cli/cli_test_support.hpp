// Running the softfloat executable from a test: its exit status, stdout and stderr.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "verify/cli/mpfr_digits.hpp"

namespace softfloat::cli_test {

struct CommandResult {
  int status = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// A file name in the test's temporary folder, unique to this process: ctest runs
// the tests of one binary in parallel processes.
inline std::string scratch_path(const std::string& name) {
  return ::testing::TempDir() + "softfloat_cli_" + std::to_string(::getpid()) + "_" + name;
}

// Runs `softfloat <arguments>` through the shell (`arguments` is shell text; the
// tests quote what needs it), with `environment` ("NAME=value ...") in front.
inline CommandResult run_cli(const std::string& arguments, const std::string& environment = "") {
  const std::string out = scratch_path("stdout.txt"), err = scratch_path("stderr.txt");
  const std::string command = environment + " '" SOFTFLOAT_CLI "' " + arguments + " >'" + out + "' 2>'" + err + "'";
  const int raw = std::system(command.c_str());
  CommandResult result;
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  result.out = read_file(out);
  result.err = read_file(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return result;
}

// The line of `text` that starts with `label` (after the two-space indent), or "".
inline std::string field(const std::string& text, const std::string& label) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("  " + label + " ", 0) == 0) return line;
  return "";
}

// The cells of the printed table row whose first cell is `first` (cells are
// separated by two or more spaces); empty if there is none.
inline std::vector<std::string> row(const std::string& table, const std::string& first) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::size_t at = line.find_first_not_of(' ');
    while (at != std::string::npos) {
      const std::size_t end = line.find("  ", at);
      cells.push_back(line.substr(at, end == std::string::npos ? std::string::npos : end - at));
      at = end == std::string::npos ? end : line.find_first_not_of(' ', end);
    }
    if (!cells.empty() && cells.front() == first) return cells;
  }
  return {};
}

// A bad command line: exit status 2, nothing on stdout, and one line on stderr that
// starts with "softfloat: " and contains `says`.
inline void expect_one_line_error(const std::string& arguments, const std::string& says) {
  SCOPED_TRACE("softfloat " + arguments);
  const CommandResult r = run_cli(arguments);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("softfloat: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
}

}  // namespace softfloat::cli_test
