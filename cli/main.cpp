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
// accepted.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"

namespace {

// "softfloat encode" for the deepest subcommand the parser reached.
std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  const CLI::App* current = &app;
  while (true) {
    const auto selected = current->get_subcommands();
    if (selected.empty()) return path;
    current = selected.front();
    path += " " + current->get_name();
  }
}

// "-inf", "-Infinity", "-nan", "-nan(0x1)": a negative special value, which a command
// line parser reads as a cluster of short options (-i -n -f).
bool negative_special_value(std::string_view arg) {
  if (arg.size() < 4 || arg[0] != '-' || arg[1] == '-') return false;
  std::string word;
  for (char c : arg.substr(1)) word += char(std::tolower(static_cast<unsigned char>(c)));
  return word == "inf" || word == "infinity" || word.rfind("nan", 0) == 0 || word.rfind("snan", 0) == 0;
}

// The arguments with every negative special value moved behind a "--" at the end, in
// order, where the parser takes them as positionals: the value is the last positional
// of encode, so `softfloat encode e4m3 -inf --saturate` reads as the user meant. A
// command line that already has "--" is left as it is.
std::vector<std::string> with_negative_specials_last(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc), moved, kept;
  if (std::find(args.begin(), args.end(), "--") != args.end()) return args;
  for (const std::string& arg : args) (negative_special_value(arg) ? moved : kept).push_back(arg);
  if (moved.empty()) return args;
  kept.push_back("--");
  kept.insert(kept.end(), moved.begin(), moved.end());
  return kept;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Exact low-precision floating point: formats, encodings and precision experiments", "softfloat");
  app.footer("Formats use the spec grammar of parse_format(): fp32 fp64 bf16 fp16 tf32 e5m2 e4m3 e3m2 e2m3 "
             "e2m1 e8m0 e4m3fnuz e5m2fnuz p3109_8p1..p3109_8p7, or eXmY with options :ieee :fn :finite :fnuz "
             ":unsigned :nozero :bias=N (e6m9:bias=31).");
  softfloat::cli::add_formats_command(app);
  softfloat::cli::add_encode_command(app);
  softfloat::cli::add_decode_command(app);
  softfloat::cli::add_demo_commands(app);
  softfloat::cli::add_cost_command(app);
  try {
    std::vector<std::string> args = with_negative_specials_last(argc, argv);
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
    app.parse(args);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);  // --help
    std::cerr << "softfloat: " << error.what() << " (see '" << command_path(app) << " --help')\n";
    return 2;
  } catch (const std::invalid_argument& error) {
    std::cerr << "softfloat: " << error.what() << '\n';
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "softfloat: " << error.what() << '\n';
    return 1;
  }
  if (app.get_subcommands().empty()) std::cout << app.help();
  return 0;
}
