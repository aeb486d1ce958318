// Links softfloat::verify from the installed package and checks that its MPFR reference
// and the library agree: every code of E4M3 and BF16 reads back to itself through the
// reference, and a sweep of float bit patterns rounds to the same code both ways.
#include <softfloat/verify/mpfr_reference.hpp>

#include <softfloat/softfloat.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace sf = softfloat;

namespace {

int failures = 0;

template <class F>
void check_format(const char* name) {
  const sf::Format format = sf::format_of<F>();
  const std::uint64_t codes = std::uint64_t{1} << format.total_bits();
  for (std::uint64_t code = 0; code < codes; ++code) {
    if (format.is_nan(code)) continue;
    const double value = sf::verify::reference_value(code, format);
    if (sf::verify::reference_round(value, format) != code) {
      ++failures;
      std::printf("%s: code 0x%llx does not read back through the reference\n", name, (unsigned long long)code);
    }
  }
  // Every 4099th float bit pattern (an odd stride, so all exponents and low bits vary).
  std::uint64_t checked = 0;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += 4099, ++checked) {
    const float x = std::bit_cast<float>(std::uint32_t(bits));
    const auto library = F(x).bits();
    const auto reference = sf::verify::reference_round(x, format);
    if (library != reference) {
      ++failures;
      if (failures < 10)
        std::printf("%s: %a -> library 0x%llx, MPFR 0x%llx\n", name, double(x), (unsigned long long)library,
                    (unsigned long long)reference);
    }
  }
  std::printf("reference_check: %s: %llu codes and %llu floats compared with MPFR\n", name,
              (unsigned long long)codes, (unsigned long long)checked);
}

}  // namespace

int main() {
  check_format<sf::E4M3>("e4m3");
  check_format<sf::BF16>("bf16");
  if (failures != 0) {
    std::printf("reference_check: %d mismatch(es)\n", failures);
    return 1;
  }
  return 0;
}
