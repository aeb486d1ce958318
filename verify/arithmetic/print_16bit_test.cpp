// Printing, every code of the 16-bit formats (65536 each; the checks are those of
// print_test.cpp, in print_checks.hpp). Labelled "exhaustive": it takes a while.
#include "verify/arithmetic/print_checks.hpp"

namespace softfloat::arithmetic_test {
namespace {

TEST(PrintEvery16BitCode, FP16) { check_every_code<FP16>(); }
TEST(PrintEvery16BitCode, BF16) { check_every_code<BF16>(); }
// A custom-bias 16-bit format: exponents -39 .. 23.
TEST(PrintEvery16BitCode, E6M9Bias40) { check_every_code<Float<6, 9, 40>>(); }

}  // namespace
}  // namespace softfloat::arithmetic_test
