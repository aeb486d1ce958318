// softfloat encode / decode on the worked examples. Every stored value the
// test expects is computed by MPFR (the code by verify::reference_round, its exact
// decimal by mpfr_get_str) as well as written out from the worked example.
#include <string>

#include "softfloat/format_spec.hpp"
#include "verify/cli/cli_test_support.hpp"

namespace softfloat::cli_test {
namespace {

// The exact decimal of `text` rounded to `spec` by MPFR, in the command's notation
// for values in [1e-5, 1e17): plain digits.
std::string mpfr_stored(const std::string& spec, const std::string& text) {
  verify::Mpfr input(512), stored(128);
  mpfr_set_str(input.get(), text.c_str(), 10, MPFR_RNDN);
  const Format f = parse_format(spec);
  verify::exact_value_of(stored.get(), verify::reference_round(input.get(), f), f);
  const MpfrDigits d = mpfr_exact_digits(stored.get());
  EXPECT_TRUE(d.exponent10 >= -5 && d.exponent10 < 0) << "test helper covers 1e-5 <= |x| < 1 only";
  return "0." + std::string(std::size_t(-d.exponent10 - 1), '0') + d.digits;
}

TEST(CliEncode, StoredValuesInFullAsMpfrGivesThem) {
  const struct {
    const char* spec;
    const char* worked;  // the worked example
  } cases[] = {{"e4m3", "0.1015625"}, {"bf16", "0.10009765625"}, {"fp16", "0.0999755859375"}};
  for (const auto& c : cases) {
    const CommandResult r = run_cli(std::string("encode ") + c.spec + " 0.1");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(mpfr_stored(c.spec, "0.1"), c.worked);
    EXPECT_EQ(field(r.out, "value"), std::string("  value      ") + c.worked + "  (exact)") << r.out;
    EXPECT_EQ(field(r.out, "shortest"), "  shortest   0.1  (reads back to the same bits)");
  }
}

TEST(CliEncode, FieldsErrorAndNeighbours) {
  // bf16 -6.5 = -1.625 * 2^2: sign 1, exponent 127 + 2 = 129 = 0b10000001, mantissa
  // 0.625 * 2^7 = 80 = 0b1010000.
  CommandResult r = run_cli("encode bf16 -6.5");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(field(r.out, "bits"), "  bits       1 10000001 1010000  (0xc0d0)");
  EXPECT_EQ(field(r.out, "exponent"), "  exponent   10000001 = 129, 2^(129 - 127) = 2^2");
  EXPECT_EQ(field(r.out, "error"), "  error      0  (exact)");
  // The gap at 4 <= |x| < 8 is 2^2 * 2^-7 = 0.03125.
  EXPECT_EQ(field(r.out, "next down"), "  next down  -6.53125  (0xc0d1)");
  EXPECT_EQ(field(r.out, "next up"), "  next up    -6.46875  (0xc0cf)");
  // e4m3 0.1 -> 0.1015625: error 0.0015625 exactly, 1.5625% of 0.1.
  r = run_cli("encode e4m3 0.1");
  EXPECT_EQ(field(r.out, "bits"), "  bits       0 0011 101  (0x1d)");
  EXPECT_EQ(field(r.out, "error"), "  error      +0.0015625  (stored - input, exact)");
  EXPECT_EQ(field(r.out, "relative"), "  relative   +0.015625  (error / input)");
  EXPECT_EQ(field(r.out, "next down"), "  next down  0.09375  (0x1c)");
  // fp16 0.1 -> 0.0999755859375: 0.1 - 0.0000244140625.
  r = run_cli("encode fp16 0.1");
  EXPECT_EQ(field(r.out, "error"), "  error      -0.0000244140625  (stored - input, exact)");
}

// A negative special value is a value, not a cluster of short options, with or without
// other options after it and without a "--" before it.
TEST(CliEncode, NegativeSpecialValuesAreValues) {
  CommandResult r = run_cli("encode e4m3 -inf --saturate");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(field(r.out, "bits"), "  bits       1 1111 110  (0xfe)");  // -448, E4M3's largest, saturated
  r = run_cli("encode bf16 -Infinity");
  EXPECT_EQ(field(r.out, "bits"), "  bits       1 11111111 0000000  (0xff80)");
  r = run_cli("encode fp16 -nan");
  EXPECT_EQ(field(r.out, "bits"), "  bits       1 11111 1000000000  (0xfe00)");
  r = run_cli("encode e4m3 -- -inf");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(field(r.out, "class"), "  class      NaN");  // E4M3 has no infinity
}

TEST(CliEncode, RoundingModesAndOverflow) {
  // E4M3 around 0.1: 0.09375 (0x1c) and 0.1015625 (0x1d).
  EXPECT_EQ(field(run_cli("encode e4m3 0.1 --round down").out, "value"), "  value      0.09375  (exact)");
  EXPECT_EQ(field(run_cli("encode e4m3 0.1 --round toward_zero").out, "value"), "  value      0.09375  (exact)");
  EXPECT_EQ(field(run_cli("encode e4m3 0.1 --round up").out, "value"), "  value      0.1015625  (exact)");
  // 464 lies halfway between 448 (0b0'1111'110) and 480, which E4M3 does not have: the
  // tie goes to the even 448; 465 rounds beyond max and becomes NaN, or 448 saturated.
  EXPECT_EQ(field(run_cli("encode e4m3 464").out, "value"), "  value      448  (exact)");
  EXPECT_EQ(field(run_cli("encode e4m3 465").out, "class"), "  class      NaN");
  EXPECT_EQ(field(run_cli("encode e4m3 465 --saturate").out, "value"), "  value      448  (exact)");
  // 1e-8: zero in fp16, 1.001171767711639404296875e-08 in bf16 (checked by MPFR in
  // verify/experiments); the error of the flushed value is -1e-8 exactly.
  CommandResult r = run_cli("encode fp16 1e-8");
  EXPECT_EQ(field(r.out, "class"), "  class      zero");
  EXPECT_EQ(field(r.out, "error"), "  error      -1e-08  (stored - input, exact)");
  EXPECT_EQ(field(run_cli("encode bf16 1e-8").out, "value"), "  value      1.001171767711639404296875e-08  (exact)");
  // Stochastic rounding is reproducible: the same seed, the same result.
  const std::string once = run_cli("encode e4m3 0.1 --round stochastic --seed 7").out;
  EXPECT_EQ(run_cli("encode e4m3 0.1 --round stochastic --seed 7").out, once);
  EXPECT_NE(field(once, "rounding").find("random_bits(7, 0)"), std::string::npos) << once;
}

TEST(CliDecode, CodesInFull) {
  CommandResult r = run_cli("decode bf16 0xc0d0");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(field(r.out, "value"), "  value      -6.5  (exact)");
  EXPECT_EQ(field(run_cli("decode bf16 0b1100000011010000").out, "value"), "  value      -6.5  (exact)");
  // E4M3 0x7f is NaN (S.1111.111); 0x7e is max, 448.
  EXPECT_EQ(field(run_cli("decode e4m3 0x7f").out, "class"), "  class      NaN");
  r = run_cli("decode e4m3 0x7e");
  EXPECT_EQ(field(r.out, "value"), "  value      448  (exact)");
  EXPECT_EQ(field(r.out, "next up"), "  next up    none");
  // fp16 0x0001 is the smallest subnormal 2^-24 = 5.9604644775390625e-08, exactly.
  r = run_cli("decode fp16 0x0001");
  EXPECT_EQ(field(r.out, "class"), "  class      subnormal");
  EXPECT_EQ(field(r.out, "value"), "  value      5.9604644775390625e-08  (exact)");
  EXPECT_EQ(field(r.out, "next down"), "  next down  0  (0x0000)");
  // A spec with options: e6m9 with bias 31, code 0x3e00 = exponent field 31 << 9: 2^(31 - 31) = 1.
  EXPECT_EQ(field(run_cli("decode e6m9:bias=31 0x3e00").out, "value"), "  value      1  (exact)");
}

}  // namespace
}  // namespace softfloat::cli_test
