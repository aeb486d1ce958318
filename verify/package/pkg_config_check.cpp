// Built by the package tests with nothing but `pkg-config --cflags --libs softfloat`
// (softfloat-verify with -DWITH_VERIFY): the flags must carry the headers, the static
// library and what it links (Highway for the array functions, threads). Expected
// values are worked out by hand, never taken from the library.
#include <softfloat/softfloat.hpp>
#ifdef WITH_VERIFY
#include <softfloat/verify/mpfr_reference.hpp>
#endif

#include <cstdint>
#include <cstdio>

int main() {
  namespace sf = softfloat;
  int failures = 0;
  // -431.99999999999994 = -432 + 2^-44 lies nearer to -416 (0xfd) than to -448 (0xfe).
  if (sf::E4M3(-431.99999999999994).bits() != 0xfd) ++failures;
  // The compiled parser: e4m3 is 1 + 4 + 3 bits with bias 7.
  const sf::Format e4m3 = sf::parse_format("e4m3");
  if (e4m3.total_bits() != 8 || e4m3.bias != 7) ++failures;
  // The SIMD path (Highway): 1 + 2^-4 is a tie between 1 (0x38) and 1.125 (0x39): even 0x38;
  // 1.1875 = 1 + 3 * 2^-4 is a tie between 0x39 and 0x3a: even 0x3a.
  const float in[2] = {1.0625f, 1.1875f};
  std::uint8_t codes[2] = {};
  sf::simd::quantize(in, 2, codes, e4m3);
  if (codes[0] != 0x38 || codes[1] != 0x3a) ++failures;
#ifdef WITH_VERIFY
  // The MPFR reference agrees on the same tie.
  if (sf::verify::reference_round(1.1875, e4m3) != 0x3a) ++failures;
#endif
  std::printf("pkg_config_check: %s\n", failures == 0 ? "passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
