// softfloat formats: the table's rows for the named formats and for specs given on
// the command line, its limits worked out by hand, and its CSV file.
#include <cstdio>
#include <string>
#include <vector>

#include "verify/cli/cli_test_support.hpp"

namespace softfloat::cli_test {
namespace {

TEST(CliFormats, NamedFormatsWithLimitsAndMultiplierCells) {
  const CommandResult r = run_cli("formats");
  ASSERT_EQ(r.status, 0) << r.err;
  // columns: spec bits E M bias max min-normal min-subnormal epsilon specials cells
  // Multiplier cells (M + 1)^2: fp32 24^2 = 576, fp16 11^2 = 121, bf16 8^2 = 64, E4M3 4^2 = 16.
  EXPECT_EQ(row(r.out, "fp32"), (std::vector<std::string>{"fp32", "32", "8", "23", "127", "~3.4028235e+38",
                                                          "2^-126 ~ 1.1755e-38", "2^-149 ~ 1.4013e-45", "2^-23",
                                                          "+-inf, NaN = exponent all ones", "576"}));
  // fp16 max = (2 - 2^-10) * 2^15 = 65504.
  EXPECT_EQ(row(r.out, "fp16"), (std::vector<std::string>{"fp16", "16", "5", "10", "15", "65504", "2^-14 ~ 6.1035e-05",
                                                          "2^-24 ~ 5.9605e-08",
                                                          "2^-10", "+-inf, NaN = exponent all ones", "121"}));
  EXPECT_EQ(row(r.out, "bf16").back(), "64");
  // E4M3 max = 1.75 * 2^8 = 448, smallest subnormal 2^(1 - 7 - 3) = 2^-9.
  EXPECT_EQ(row(r.out, "e4m3"), (std::vector<std::string>{"e4m3", "8", "4", "3", "7", "448", "2^-6 = 0.015625",
                                                          "2^-9 ~ 0.0019531", "2^-3",
                                                          "no inf, NaN = magnitude all ones", "16"}));
  // E8M0: no zero, no subnormals; its smallest value 2^-127 is code 0.
  EXPECT_EQ(row(r.out, "e8m0")[6], "2^-127 ~ 5.8775e-39");
  EXPECT_EQ(row(r.out, "e8m0")[7], "none");
  EXPECT_FALSE(row(r.out, "p3109_8p7").empty());
}

TEST(CliFormats, GivenSpecsAndCsv) {
  const std::string csv = scratch_path("formats.csv");
  const CommandResult r = run_cli("formats e6m9:bias=31 E5M2:FNUZ --csv '" + csv + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  // e6m9, bias 31 (the IEEE default for 6 exponent bits, so format_name() says just
  // "e6m9"): max (2 - 2^-9) * 2^(62 - 31) = 4290772992, min subnormal 2^(1 - 31 - 9).
  EXPECT_EQ(row(r.out, "e6m9")[5], "4290772992");
  EXPECT_EQ(row(r.out, "e6m9")[7], "2^-39 ~ 1.819e-12");
  EXPECT_FALSE(row(r.out, "e5m2fnuz").empty()) << r.out;  // named by format_name()
  const std::string text = read_file(csv);
  std::remove(csv.c_str());
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "spec,bits,E,M,bias,max,min normal,min subnormal,epsilon,infinity / NaN,multiplier cells");
  EXPECT_NE(text.find("e6m9,16,6,9,31,4290772992,2^-30 ~ 9.3132e-10,2^-39 ~ 1.819e-12,2^-9,\"+-inf, NaN = exponent all ones\",100"),
            std::string::npos)
      << text;
}

// Beyond double's range (a custom bias) the decimal comes from exponent * log10(2):
// 2^-16382 = 3.36210314...e-4932, 2^-16434 = 7.46536864...e-4948 and, at the largest bias,
// 2^-1048574 = 5.93371437...e-315653 (values from exact decimal arithmetic); a format whose
// min normal is 2^0 shows it exactly.
TEST(CliFormats, MinimaBeyondDoubleRangeAndExactOnes) {
  const CommandResult r = run_cli("formats e11m52:bias=16383 e11m52:bias=1048575 e2m1");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> binary64_shifted = row(r.out, "e11m52:bias=16383");
  ASSERT_EQ(binary64_shifted.size(), 11u) << r.out;
  EXPECT_EQ(binary64_shifted[6], "2^-16382 ~ 3.3621e-4932");
  EXPECT_EQ(binary64_shifted[7], "2^-16434 ~ 7.4654e-4948");
  EXPECT_EQ(row(r.out, "e11m52:bias=1048575")[6], "2^-1048574 ~ 5.9337e-315653");
  EXPECT_EQ(row(r.out, "e2m1")[6], "2^0 = 1");
  EXPECT_EQ(row(r.out, "e2m1")[7], "2^-1 = 0.5");
}

}  // namespace
}  // namespace softfloat::cli_test
