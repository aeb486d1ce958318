// softfloat::experiments through the installed package: the vanishing-update numbers
// docs/experiments.md quotes, worked out by hand. In bf16 (8 significant bits) 1 + 2^-8 is a tie
// that rounds to the even 1, so the smallest u with bf16(1 + u) != 1 is the next bf16
// value above 2^-8, 2^-8 + 2^-15; and 0.001 vanishes: bf16(1 + bf16(0.001)) = 1.
// Every experiment's header is included: each lives in its experiment's folder in the
// source tree (experiments/NAME/include/) and must be found in the installed
// include/softfloat/experiments/.
#include <softfloat/experiments/accumulation.hpp>
#include <softfloat/experiments/gradient_underflow.hpp>
#include <softfloat/experiments/tradeoffs.hpp>
#include <softfloat/experiments/vanishing_updates.hpp>
#include <softfloat/softfloat.hpp>

#include <cstdio>

int main() {
  namespace sf = softfloat;
  const sf::experiments::SmallestIncrement bf16 = sf::experiments::smallest_increment(sf::BF16::format);
  const double u = double(sf::BF16::from_bits(std::uint16_t(bf16.increment)));
  const double one_plus_thousandth = double(sf::BF16::from_bits(std::uint16_t(bf16.one_plus_thousandth)));
  int failures = 0;
  if (u != 0x1p-8 + 0x1p-15) {
    std::printf("experiments_check: bf16 smallest increment %.17g, expected 2^-8 + 2^-15\n", u);
    ++failures;
  }
  if (one_plus_thousandth != 1.0) {
    std::printf("experiments_check: bf16(1 + 0.001) = %.17g, expected 1\n", one_plus_thousandth);
    ++failures;
  }
  if (failures == 0) std::printf("experiments_check: bf16 smallest increment 2^-8 + 2^-15, 1 + 0.001 -> 1\n");
  return failures == 0 ? 0 : 1;
}
