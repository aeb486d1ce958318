// The API in one screen: README.md's C++ example, kept identical to this file by the
// test example_readme_snippet (examples/readme_snippet_matches.cmake). The package
// test (verify/package) compiles this file against the installed package, so the
// README snippet is known to build for a user of find_package(softfloat).
#include <softfloat/softfloat.hpp>

#include <cstdio>
#include <limits>

int main() {
  using namespace softfloat;

  // A value of a named format: round to nearest even, straight from the argument.
  const E4M3 x(0.1);
  std::printf("E4M3(0.1)     = %.17g  bits 0x%02x  (%s)\n", double(x), unsigned(x.bits()),
              x.bit_string().c_str());

  // Limits, as constexpr members and through std::numeric_limits.
  static_assert(double(FP16::max()) == 65504.0);
  std::printf("bf16 max      = %.9g, epsilon %g, digits %d\n", double(BF16::max()),
              double(std::numeric_limits<BF16>::epsilon()), std::numeric_limits<BF16>::digits);

  // Overflow follows the format: FP16 has infinity, E4M3 only NaN.
  std::printf("FP16(1e5)     = %g, E4M3(1000) = %g\n", double(FP16(1e5)), double(E4M3(1000.0f)));

  // Any format of your own: Float<E, M, Bias, HasInf>.
  using E3M4 = Float<3, 4>;
  std::printf("e3m4 max      = %g\n", double(E3M4::max()));

  // Formats chosen at run time use one spec grammar.
  const Format f = parse_format("e5m2:fnuz");
  std::printf("'e5m2:fnuz'   = %s (bias %d, %d bits)\n", format_name(f).c_str(), f.bias, f.total_bits());
  return f == format_of<E5M2FNUZ>() ? 0 : 1;
}
