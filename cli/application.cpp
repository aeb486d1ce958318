// The softfloat command's parser and its error reporting (see application.hpp).
#include "cli/application.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string_view>

#include "softfloat/escape.hpp"

namespace softfloat::cli {
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
std::vector<std::string> with_negative_specials_last(const std::vector<std::string>& args) {
  if (std::find(args.begin(), args.end(), "--") != args.end()) return args;
  std::vector<std::string> moved, kept;
  for (const std::string& arg : args) (negative_special_value(arg) ? moved : kept).push_back(arg);
  if (moved.empty()) return args;
  kept.push_back("--");
  kept.insert(kept.end(), moved.begin(), moved.end());
  return kept;
}

}  // namespace

std::unique_ptr<CLI::App> make_application(Execution execution) {
  auto app = std::make_unique<CLI::App>(
      "Exact low-precision floating point: formats, encodings and precision experiments", "softfloat");
  app->footer("Formats use the spec grammar of parse_format(): fp32 fp64 bf16 fp16 tf32 e5m2 e4m3 e3m2 e2m3 "
              "e2m1 e8m0 e4m3fnuz e5m2fnuz p3109_8p1..p3109_8p7, or eXmY with options :ieee :fn :finite :fnuz "
              ":unsigned :nozero :bias=N (e6m9:bias=31).");
  add_formats_command(*app, execution);
  add_encode_command(*app, execution);
  add_decode_command(*app, execution);
  add_demo_commands(*app, execution);
  add_cost_command(*app, execution);
  return app;
}

int run_command_line(CLI::App& app, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    std::vector<std::string> reversed = with_negative_specials_last(args);
    std::reverse(reversed.begin(), reversed.end());  // CLI11 takes the arguments last first
    app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error, out, err);  // --help
    // CLI11 quotes arguments as they are ("The following argument was not expected:
    // x<newline>y"), so the whole message is escaped here; the parts quoted by softfloat
    // are escaped already, and escaping again leaves them as they are.
    err << "softfloat: " << escape_unprintable(error.what()) << " (see '" << command_path(app) << " --help')\n";
    return 2;
  } catch (const std::invalid_argument& error) {
    err << "softfloat: " << escape_unprintable(error.what()) << '\n';
    return 2;
  } catch (const std::exception& error) {
    err << "softfloat: " << escape_unprintable(error.what()) << '\n';
    return 1;
  }
  if (app.get_subcommands().empty()) out << app.help();
  return 0;
}

}  // namespace softfloat::cli
