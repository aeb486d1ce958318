// softfloat demo: each experiment with small sizes prints its tables and writes its
// CSV; --plot draws a figure through a Python with matplotlib, and says so
// clearly when the interpreter is missing.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "verify/cli/cli_test_support.hpp"

namespace softfloat::cli_test {
namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::size_t file_size(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? std::size_t(info.st_size) : 0;
}

TEST(CliDemo, VanishingUpdatesTablesAndCsv) {
  const std::string csv = scratch_path("vanishing.csv");
  const CommandResult r = run_cli("demo vanishing-updates --steps 100 --csv '" + csv + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  // bf16: 1 + 0.001 is 1; the smallest u is 2^-8 + 2^-15 = 0.003936767578125.
  EXPECT_EQ(row(r.out, "bf16"), (std::vector<std::string>{"bf16", "7", "2^-8", "0.003936767578125", "1.0078125",
                                                          "0.00099945068359375", "1"}))
      << r.out;
  const std::string data = read_file(csv);
  std::remove(csv.c_str());
  EXPECT_EQ(first_line(data), "update,weights,step,loss");
  EXPECT_NE(data.find("\nplain,bf16,0,"), std::string::npos);
  EXPECT_NE(data.find("\nfp32,fp32,100,"), std::string::npos);
}

TEST(CliDemo, GradientUnderflowTablesAndCsv) {
  const std::string csv = scratch_path("gradients.csv");
  const CommandResult r =
      run_cli("demo gradient-underflow --samples 2000 --steps 20 --batch 64 --max-scale 8 --csv '" + csv + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  // The first table: 1e-8 in each format (the gradient table's rows come later).
  EXPECT_EQ(row(r.out, "fp16"), (std::vector<std::string>{"fp16", "2^-24", "0", "-100%"})) << r.out;
  EXPECT_EQ(row(r.out, "bf16"), (std::vector<std::string>{"bf16", "2^-133", "1.001171767711639404296875e-08", "+0.1172%"}));
  const std::string data = read_file(csv);
  std::remove(csv.c_str());
  EXPECT_EQ(first_line(data), "kind,format,step,log2_scale,survived,flushed_to_zero,overflowed");
  EXPECT_NE(data.find("\nstatic,e4m3,,8,"), std::string::npos);
  EXPECT_NE(data.find("\ndynamic,fp16,19,"), std::string::npos);
}

TEST(CliDemo, AccumulationTablesAndCsv) {
  const std::string csv = scratch_path("accumulation.csv");
  const CommandResult r = run_cli("demo accumulation --terms 1000 --trials 2 --seed 3 --csv '" + csv + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  // 1000 copies of 1e-4: bf16 stalls at 2^-5 = 0.03125 after 273 terms (replayed with
  // MPFR in verify/experiments).
  const std::vector<std::string> bf16 = row(r.out, "bf16");
  ASSERT_EQ(bf16.size(), 5u) << r.out;
  EXPECT_EQ(bf16[1], "0.03125");
  EXPECT_EQ(bf16[4], "273");
  const std::string data = read_file(csv);
  std::remove(csv.c_str());
  EXPECT_EQ(first_line(data), "workload,accumulator,terms,relative_error");
  EXPECT_NE(data.find("\nconstant 1e-4,bf16 + kahan,1000,"), std::string::npos);
  EXPECT_NE(data.find("\ndot,fp16,1000,"), std::string::npos);
}

TEST(CliDemo, TradeoffsTableAndCsv) {
  const std::string csv = scratch_path("tradeoffs.csv");
  // A top-level demo: `softfloat tradeoffs` is `softfloat demo tradeoffs`.
  const CommandResult r = run_cli("tradeoffs --formats fp16,e4m3,e2m1 --depths 16,64 --rows 4 --columns 4 "
                                  "--throughput-size 8 --repeats 1 --csv '" + csv + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  // format, bytes, accumulator, the error at k = 16 and k = 64, GFLOP/s (fp32 rows only).
  const std::vector<std::string> e2m1 = row(r.out, "e2m1");
  ASSERT_EQ(e2m1.size(), 6u) << r.out;
  EXPECT_EQ(e2m1[1], "0.5");
  EXPECT_EQ(e2m1[2], "fp32");
  EXPECT_EQ(row(r.out, "format"),
            (std::vector<std::string>{"format", "bytes", "accumulator", "k = 16", "k = 64", "GFLOP/s"}));
  const std::string data = read_file(csv);
  std::remove(csv.c_str());
  EXPECT_EQ(first_line(data), "format,bytes_per_element,accumulator,k,relative_error,input_error,fp32_gflops");
  // 3 formats x 2 accumulators x 2 depths.
  EXPECT_EQ(std::count(data.begin(), data.end(), '\n'), 1 + 12);
  EXPECT_NE(data.find("\nfp16,2,fp32,16,"), std::string::npos);
  EXPECT_NE(data.find("\ne2m1,0.5,bf16,64,"), std::string::npos);
}

TEST(CliDemo, DecodeStepTableAndCsv) {
  const std::string csv = scratch_path("decode_step.csv");
  // `demo decode` is `demo decode-step`.
  const CommandResult r = run_cli("demo decode --dim 64 --layers 2 --repeats 1 --csv '" + csv + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(row(r.out, "mxfp4").at(1), "0.5312");  // 4.25 bits
  EXPECT_EQ(row(r.out, "fp32").at(5), "1x");
  // The 70B bound of softfloat cost (cost/weights.hpp) beside this machine's.
  EXPECT_NE(r.out.find("41.8 ms (bf16), 20.9 ms (e4m3), 10.4 ms (e2m1) per token"), std::string::npos) << r.out;
  const std::string data = read_file(csv);
  std::remove(csv.c_str());
  EXPECT_EQ(first_line(data),
            "format,bytes_per_weight,ms_per_token,bound_ms,fraction_of_bound,speedup_over_fp32,relative_error");
  EXPECT_EQ(std::count(data.begin(), data.end(), '\n'), 1 + 10);
  for (const char* row_start : {"\nfp32,4,", "\nbf16,2,", "\nnvfp4,0.5625,", "\nmxfp6_e2m3,0.78125,", "\ne2m1,0.5,"})
    EXPECT_NE(data.find(row_start), std::string::npos) << row_start;
  const CommandResult full_name = run_cli("demo decode-step --dim 8 --layers 1 --repeats 1 --formats fp32,nvfp4");
  EXPECT_NE(full_name.status, 0) << "nvfp4 needs d a multiple of 16";
  EXPECT_NE(full_name.err.find("multiple of 16"), std::string::npos) << full_name.err;
}

TEST(CliDemo, TradeoffsRejectsAScaleFormat) {
  const CommandResult r = run_cli("tradeoffs --formats e8m0 --depths 8 --throughput-size 0");
  EXPECT_EQ(r.status, 2);  // bad input, as a usage error
  EXPECT_NE(r.err.find("e8m0 is unsigned or has no zero"), std::string::npos) << r.err;
}

bool matplotlib_available() {
  return std::system("'" SOFTFLOAT_TEST_PYTHON "' -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

TEST(CliDemo, PlotWritesTheFigure) {
  if (!matplotlib_available()) GTEST_SKIP() << SOFTFLOAT_TEST_PYTHON " cannot import matplotlib";
  // SVG, the figures of docs/experiments.md; PNG goes through the same script and backend.
  const std::string figure = scratch_path("accumulation.svg");
  const CommandResult r = run_cli("demo accumulation --terms 100 --trials 1 --plot '" + figure + "'",
                                  "SOFTFLOAT_PYTHON='" SOFTFLOAT_TEST_PYTHON "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_file(figure).rfind("<?xml", 0), 0u);
  EXPECT_GT(file_size(figure), 1000u);
  EXPECT_NE(r.out.find("wrote " + figure), std::string::npos);
  std::remove(figure.c_str());
}

TEST(CliDemo, PlotWithoutPythonFailsClearly) {
  const std::string figure = scratch_path("never.png");
  const CommandResult r =
      run_cli("demo accumulation --terms 10 --trials 1 --plot '" + figure + "'", "SOFTFLOAT_PYTHON=/nonexistent/python3");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "softfloat: cannot draw the plot: /nonexistent/python3 is missing (the plots need a Python "
                   "with matplotlib: set SOFTFLOAT_PYTHON to one)\n");
}

TEST(CliDemo, PlotLooksForPython3OnPath) {
  const std::string figure = scratch_path("never.png");
  const CommandResult r = run_cli("demo accumulation --terms 10 --trials 1 --plot '" + figure + "'",
                                  "SOFTFLOAT_PYTHON= PATH=/nonexistent/bin:/nonexistent/usr/bin");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "softfloat: cannot draw the plot: no python3 on PATH (the plots need a Python with matplotlib: "
                   "set SOFTFLOAT_PYTHON to one)\n");
}

}  // namespace
}  // namespace softfloat::cli_test
