// Figures: the plot scripts (experiments/NAME/plot_NAME.py, matplotlib) run under a Python
// with matplotlib, the project's .venv in the build tree (scripts/dev.sh makes it).
#pragma once

#include <string>

namespace softfloat::cli {

// Checks that `output` ends in .svg or .png; throws std::invalid_argument if not.
void check_plot_path(const std::string& output);

// Runs `python3 <scripts>/<script> <csv> <output>`. The scripts directory is
// $SOFTFLOAT_SCRIPTS_DIR if set, else the installed share/softfloat/scripts next to
// the executable, else the build tree's copies (cli/plot_scripts/). The interpreter is
// $SOFTFLOAT_PYTHON if set, else CMake's SOFTFLOAT_PYTHON ("python3" found on PATH
// unless configured otherwise). Throws
// std::runtime_error saying what is missing if the script or the interpreter cannot
// be found or the script fails.
void draw_plot(const std::string& script, const std::string& csv, const std::string& output);

}  // namespace softfloat::cli
