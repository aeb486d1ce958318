// smallest_increment(): the smallest u with fmt(1 + u) != 1, by bisection over codes.
#include <stdexcept>
#include <string>

#include "experiments/exact_steps.hpp"
#include "softfloat/arithmetic.hpp"
#include "softfloat/decimal.hpp"
#include "softfloat/experiments/vanishing_updates.hpp"
#include "softfloat/format_spec.hpp"

namespace softfloat::experiments {

SmallestIncrement smallest_increment(const Format& format, Rounding mode) {
  if (!format.valid()) throw std::invalid_argument("smallest_increment: " + std::string(describe(format.problem())));
  if (mode == Rounding::stochastic || mode == Rounding::stochastic_equal)
    throw std::invalid_argument("smallest_increment: a stochastic rounding has no smallest increment; "
                                "use a deterministic mode such as nearest_even");
  SmallestIncrement result;
  result.format = format;
  result.one = round_to_format(decode(1), format);
  if (detail::to_double(result.one, format) != 1.0)
    throw std::invalid_argument("smallest_increment: 1 is not a value of " + format_name(format));

  // Positive codes are ordered like their values, and 1 + u grows with u, so the
  // codes whose sum with 1 is not 1 form an upper range: bisect for its first code.
  auto moves_one = [&](std::uint64_t u) { return runtime::add(result.one, u, format, mode) != result.one; };
  const std::uint64_t smallest_positive = format.has_zero ? 1 : 0;
  std::uint64_t above = format.max_finite_magnitude();  // 1 + max is max or beyond: it moves 1
  if (moves_one(smallest_positive)) {
    above = smallest_positive;
  } else {
    std::uint64_t below = smallest_positive;  // invariant: below does not move 1, above does
    while (above - below > 1) {
      const std::uint64_t middle = below + (above - below) / 2;
      (moves_one(middle) ? above : below) = middle;
    }
  }
  result.increment = above;
  result.one_plus_increment = runtime::add(result.one, above, format, mode);
  result.thousandth = round_to_format(parse_exact("0.001", exponent_limit(format)), format, mode);
  result.one_plus_thousandth = runtime::add(result.one, result.thousandth, format, mode);
  return result;
}

}  // namespace softfloat::experiments
