// Bad command lines: each gives exit status 2 and exactly one line on stderr that
// says what was wrong and what is accepted, and nothing on stdout. --help works for
// every subcommand.
#include <algorithm>
#include <string>
#include <utility>

#include "verify/cli/cli_test_support.hpp"

namespace softfloat::cli_test {
namespace {

TEST(CliErrors, BadFormats) {
  expect_one_line_error("encode e9m9x 1", "expected a named format (fp32 fp64 bf16");
  expect_one_line_error("decode bogus 0x00", "unknown format 'bogus'");
  expect_one_line_error("formats e4m0", "IEEE-style format needs at least one mantissa bit");
  expect_one_line_error("encode e4m3:bias=x 1", "the bias must be an integer");
  expect_one_line_error("demo accumulation --formats fp17", "invalid format spec 'fp17'");
}

TEST(CliErrors, BadNumbersAndCodes) {
  expect_one_line_error("encode bf16 abc", "cannot parse 'abc' as a number: expected digits");
  expect_one_line_error("encode bf16 1.2.3", "more than one decimal point");
  expect_one_line_error("decode e4m3 0x1ff", "does not fit in the 8 bits of e4m3 (largest 0xff)");
  expect_one_line_error("decode e4m3 255", "expected 0x<hex digits> or 0b<binary digits>");
  expect_one_line_error("decode e4m3 0xfg", "'g' is not a hexadecimal digit");
}

TEST(CliErrors, BadOptionsAndArguments) {
  expect_one_line_error("encode e4m3 1 --round nearest", "accepted: nearest_even, nearest_away");
  expect_one_line_error("encode e4m3 1 --bogus", "--bogus");
  expect_one_line_error("encode e4m3", "VALUE is required");
  expect_one_line_error("encode e4m3 1 2", "not expected: 2");
  expect_one_line_error("demo", "name an experiment: accumulation, decode-step, gradient-underflow, tradeoffs, vanishing-updates");
  expect_one_line_error("demo nonsense", "unknown experiment 'nonsense'; expected accumulation");
  expect_one_line_error("demo accumulation --plot figure.pdf", "must end in .svg or .png");
  expect_one_line_error("demo accumulation --terms 0", "--terms");
  expect_one_line_error("demo vanishing-updates --learning-rate -1", "--learning-rate");
  expect_one_line_error("nonsense", "nonsense");
}

// Arguments holding control characters are quoted escaped, so the message stays one
// line. The first is the command line fuzz target's finding (corpus
// command_line/finding-newline-in-quoted-spec), whose message was three lines; the shell
// text keeps the newline and tab inside single quotes and printf writes ESC (sh has no
// $'...').
TEST(CliErrors, ControlCharactersAreQuotedEscaped) {
  const std::pair<std::string, std::string> cases[] = {
      {"encode 'e4m3\n' '' '' '' 1 --round sidewaxs",
       R"(softfloat: SPEC: invalid format spec 'e4m3\n': unknown format 'e4m3\n'; expected a named format (fp32 )"
       R"(fp64 bf16 fp16 tf32 e5m2 e4m3 e3m2 e2m3 e2m1 e8m0 e4m3fnuz e5m2fnuz p3109_8p1..p3109_8p7) or eXmY with )"
       R"(options :ieee :fn :finite :fnuz :unsigned :nozero :bias=N (see 'softfloat encode --help'))"},
      // CLI11's own message, escaped by the command.
      {"'x\ny'", R"(softfloat: The following argument was not expected: x\ny (see 'softfloat --help'))"},
      {"encode e4m3 '1\t2'", R"(softfloat: cannot parse '1\t2' as a number: expected digits, a point, an exponent, )"
                             R"(inf or nan)"},
      {"decode e4m3 \"$(printf '0x\\033')\"", R"(softfloat: invalid code '0x\x1b': '\x1b' is not a hexadecimal digit)"},
  };
  for (const auto& [arguments, message] : cases) {
    SCOPED_TRACE("softfloat " + arguments);
    const CommandResult r = run_cli(arguments);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, message + "\n");
  }
}

TEST(CliHelp, EverySubcommand) {
  for (const char* command : {"", "formats", "encode", "decode", "demo", "demo vanishing-updates",
                              "demo gradient-underflow", "demo accumulation"}) {
    SCOPED_TRACE(command);
    const CommandResult r = run_cli(std::string(command) + " --help");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << r.out;
    EXPECT_EQ(r.err, "");
  }
  // The rounding names appear in encode's help, spelled as the enumerators.
  EXPECT_NE(run_cli("encode --help").out.find("stochastic_equal"), std::string::npos);
}

}  // namespace
}  // namespace softfloat::cli_test
